"""A host request whose routing members two parsers read two ways: a member name given twice (one
of them maybe written with ``\\u`` escapes) with two values.

RFC 8259 s4: "The names within an object SHOULD be unique"; when they are not, "the behavior of
software that receives such an object is unpredictable": orjson (the proxy's routing read), msgspec
and Python's json keep the last value, cJSON and many servers' parsers the first. The proxy pairs,
judges and cancels a host request by its ``method``, its ``id``, and, for a ``tools/call``, the tool
its ``params.name`` names (a ``tasks/*`` poll: the task its ``params.taskId`` names): read two ways,
a ``"ping"`` to the proxy may be a ``"tools/call"`` to the server, whose answer would then escape
judgement (an answer to a ping is not judged), and a call the proxy judges against one tool's
listing may run another.

:func:`two_readings` names the first such member (``method``, ``id``, ``params.name``,
``params.taskId``, in that order) whose first and last values differ (a member given twice with the
same value is read alike by both: it is not named). The relay (``_relay``) answers such a request
itself in enforce (JSON-RPC 2.0 s5.1 Invalid Request, -32600, the member named in its message and
``data.member``; under a null id when the id is the member, s5: the id cannot be told) and does not
forward it; observe forwards it unchanged and notes in its frame-log record which member was read
two ways (:func:`note`; an element of a batch: the batch's record, naming the element) and that the
proxy paired and judged it by the last values — but for its id: when the two readings' ids differ,
the server answers under either (the first, :attr:`Twice.first_id`, when its parser keeps the
first), and the relay takes an answer under either as the request's (judged against the id it
carries), where it awaited the last one only and the host got UPSTREAM_TIMEOUT at ``--timeout``.

Cost: :func:`may_repeat` is five counts and a search in C of the request's bytes; where one of the
names shows twice as written (every 2026-07-28 ``tools/call``: its ``params.name`` and its client
info's ``name``) and no ``\\u`` escape shows, the routing read's tree tells whether each is given
once (:func:`each_once`: a few dictionary lookups for that shape, else a walk of at most
:data:`_WALK` members); only then a regular-expression scan. Only a request it cannot clear is read
strictly (jiter, which refuses any repeated name), and only one the strict reader refuses is read
twice more, as ``_params`` reads a request's arguments: the first values kept (``first_read``) and
the last (``exact_read``).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, Final, NamedTuple

from ..verdict._parser import NOT_PARSED, read_strict
from ._params import exact_read, first_read

_NAMES: Final = re.compile(rb'"(?:method|id|params|name|taskId)"|\\u')
"""The names :func:`two_readings` compares (and ``params``, which holds two of them) as written
plainly, and the start of a ``\\u`` escape (which may spell one of them)."""


def may_repeat(data: bytes, message: object = None) -> bool:
    """The frame ``data`` may give one of the members :func:`two_readings` compares twice: it names
    one of them twice as written, or holds a ``\\u`` escape — unless ``message``, the routing
    read (orjson's) of these very bytes, shows each name given once (:func:`each_once`). False is
    sure; True is for :func:`two_readings` to tell.

    A frame that holds no ``\\u`` and each name at most once as ``bytes.count`` counts it is
    answered False without the scan (the scan's matches of one name are occurrences that do not
    overlap, of which ``count`` finds the most there are: never fewer): most requests, in five
    counts and a search in C, where the regular expression's scan of a 100-byte ``tools/call``
    took ~12,800 instructions (asked once per request: in enforce by the bridge before it is sent
    upstream, ``Relay.unrepeated``). A 2026-07-28 request names ``"name"`` twice (its
    ``_meta``'s ``io.modelcontextprotocol/clientInfo`` and, in a ``tools/call``, ``params.name``):
    :func:`each_once` tells from ``message``. Any other frame is scanned as before."""
    return repeats(data, message, counted(data))


Counts = tuple[int, ...]
"""How many times a frame shows ``"method"``, ``"id"``, ``"params"``, ``"name"``, ``"taskId"`` as
written (:func:`counted`), or :data:`PLAIN`."""

PLAIN: Final[Counts] = ()
""":func:`counted` of a frame that holds no ``\\u`` and shows each name at most once as written:
:func:`may_repeat` says False whatever its routing read."""


def counted(data: bytes) -> Counts | None:
    """How many times the frame ``data`` shows each name :func:`two_readings` compares as written
    (``bytes.count``: ``"method"``, ``"id"``, ``"params"``, ``"name"``, ``"taskId"``); :data:`PLAIN`
    when each at most once (most requests); None when it holds a ``\\u`` escape (which may spell
    one of them: not counted). For a caller that asks before it has read the frame and again
    with the routing read (the bridge in enforce; a 2026-07-28 request names ``"name"`` twice):
    it counts once and gives the counts to :func:`repeats`."""
    if data.find(b"\\u") >= 0:
        return None
    count = data.count
    methods = count(b'"method"')
    ids = count(b'"id"')
    params = count(b'"params"')
    names = count(b'"name"')
    tasks = count(b'"taskId"')
    if methods < 2 and ids < 2 and params < 2 and names < 2 and tasks < 2:
        return PLAIN
    return methods, ids, params, names, tasks


def repeats(data: bytes, message: object, counts: Counts | None) -> bool:
    """:func:`may_repeat` of ``data`` given ``counts``, :func:`counted` of these very bytes."""
    if counts is PLAIN:
        return False
    if counts is not None:
        methods, ids, params, names, tasks = counts
        if type(message) is dict and _once(message, methods, ids, params, names, tasks):
            return False
    found = _NAMES.findall(data)
    return len(found) > 1 and (len(set(found)) < len(found) or b"\\u" in found)


_WALK: Final = 64
"""The most members and array elements :func:`each_once` looks at before it gives up (the old
path then: the scan and the strict read). A 2026-07-28 ``tools/call`` with a few arguments holds
about twenty."""


def each_once(data: bytes, message: object) -> bool:
    """Sure that no object of the JSON text ``data`` gives one of the names :func:`two_readings`
    compares (``method``, ``id``, ``params``, ``name``, ``taskId``) twice, and that the routing
    members' values are no object or array (whose insides may read two ways), told from
    ``message``, orjson's reading of these very bytes (None, or anything but an object: not sure).
    False is "not sure" (the caller reads ``data`` the old way); True is sure.

    Why it is sure. orjson read ``data``, so it is JSON (RFC 8259: valid UTF-8, strings in
    quotes, a repeated name kept once, the last); and it holds no ``\\u`` (else not sure). Each of
    the five names is letters only, and without ``\\u`` the only escapes (``\\" \\\\ \\/ \\b \\f \\n
    \\r \\t``) write no letter: a string equal to one, a member name or a string value, is
    written plainly, ``"method"``. Where ``"X"`` (X one of the names) shows in the bytes, its first
    quote is (a) a string's opening quote, and the string is exactly X (its next quote follows a
    letter: the closing one); or (b) an escaped quote inside a string (``\\"X"``: the string
    ends there). It cannot be a closing quote: after one, JSON has only white space, ``:``, ``,``,
    ``}`` or ``]``, never a letter — for the same reason two showings never overlap (their shared
    quote would be followed by a letter), so ``bytes.count`` counts every showing. So the count
    of ``"X"`` is T + A: T the strings of the text equal to X, A the escaped-quote showings.
    Every member name and string value in ``message`` is one of those strings, each a string of
    its own (an object's member given twice is one name in ``message``, and the value dropped is
    gone with its insides): the strings found equal to X there, F, are at most T. F equal to the
    count proves A = 0 and that no string equal to X was lost — so no object gives X twice
    (its two names would be one in ``message``: F ≤ T - 1). Then a parser that keeps the first of
    a repeated name and one that keeps the last read the same text for ``method``, ``id``,
    ``params`` and, within it, ``name`` and ``taskId``; a value that is no object or array reads
    alike from the same text: :func:`read_two_ways` finds nothing. A name counted once or not at
    all in the bytes is given at most once (two names would count two).

    The walk stops as soon as every name counted more than once is found as often as counted,
    looking at objects level by level (a 2026-07-28 request's ``clientInfo``, three levels down,
    before anything deeper), and gives up past :data:`_WALK` members and elements: not sure."""
    counts = counted(data)  # (None: a \u escape, not sure; PLAIN: each name at most once, none to find)
    if counts is None or type(message) is not dict:
        return False
    return _once(message, *(counts or (0, 0, 0, 0, 0)))


_NESTED: Final = frozenset({dict, list})


def _once(message: dict[str, Any], methods: int, ids: int, params: int, names: int, tasks: int) -> bool:
    """:func:`each_once` of a frame with no ``\\u`` that counts each name as given."""
    method, routed = message.get("method"), message.get("params")
    name = task = None
    if type(routed) is dict:
        name, task = routed.get("name"), routed.get("taskId")
    if type(method) in _NESTED or type(message.get("id")) in _NESTED or type(name) in _NESTED \
            or type(task) in _NESTED:
        return False
    if names == 2 and name is not None and methods < 2 and ids < 2 and params < 2 and tasks < 2:
        # (a 2026-07-28 tools/call's, first: its params.name and its _meta's client info's name, two
        # names of two objects: each found, both are)
        meta = routed.get("_meta")  # type: ignore[union-attr]  # (name is not None: routed is an object)
        client = meta.get(_CLIENT_INFO) if type(meta) is dict else None
        if type(client) is dict and "name" in client:
            return True
    left = {plain: counted for plain, counted in (("method", methods), ("id", ids), ("params", params),
                                                   ("name", names), ("taskId", tasks)) if counted > 1}
    if not left:
        return True
    nodes: list[Any] = [message]
    budget = _WALK
    for node in nodes:  # (level by level: the list grows as it is walked)
        budget -= len(node)
        if budget < 0:
            return False
        values = node
        if type(node) is dict:
            for key in node:
                if key in left and _found(left, key):
                    return True
            values = node.values()
        for value in values:
            kind = type(value)
            if kind is str:
                if value in left and _found(left, value):
                    return True
            elif kind is dict or kind is list:
                nodes.append(value)
    return False


_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
"""Where a 2026-07-28 request's ``_meta`` names its client (``{"name": ..., "version": ...}``)."""


def _found(left: dict[str, int], name: str) -> bool:
    """One more string equal to ``name`` found: True once every name is found as often as counted."""
    more = left[name] - 1
    if more:
        left[name] = more
        return False
    del left[name]
    return not left


def _member(message: object, path: tuple[str, ...]) -> tuple[bool, Any]:
    value = message
    for name in path:
        if not isinstance(value, dict) or name not in value:
            return False, None
        value = value[name]
    return True, value


def _same(first: tuple[bool, Any], last: tuple[bool, Any]) -> bool:
    return first[0] == last[0] and type(first[1]) is type(last[1]) and first[1] == last[1]


class Twice(NamedTuple):
    """How two parsers read a host request two ways (:func:`read_two_ways`)."""

    member: str
    """The first routing member read two ways: ``"method"``, ``"id"``, ``"params.name"``,
    ``"params.taskId"``."""
    first_id: str | int | float | None
    """The request's id as a parser that keeps the first reads it, when the two readings' ids
    differ and it is a string or a number (the id a server keeping the first answers under);
    else None."""


def read_two_ways(data: bytes, message: object = None) -> Twice | None:
    """The routing member of the host request ``data`` that a parser keeping the first of a name
    given twice reads otherwise than one keeping the last (the module's rule): ``"method"``,
    ``"id"``, ``"params.name"`` (a ``tools/call`` by either reading) or ``"params.taskId"`` (a
    ``tasks/`` method by either reading), with the first reading's id when the ids differ; None
    when both read them alike, when the strict reader reads ``data`` (no name repeats), or when
    Python's json does not read it. ``message``: orjson's reading of ``data``, when the caller
    has it (:func:`may_repeat`)."""
    if not may_repeat(data, message):
        return None
    return read_repeated(data)


def read_repeated(data: bytes) -> Twice | None:
    """:func:`read_two_ways` for a caller that found :func:`may_repeat` True: the strict read
    (jiter, which refuses any repeated name), then, when it refuses ``data``, the two readings."""
    if read_strict(data) is not NOT_PARSED:
        return None
    first = first_read(data)
    if not isinstance(first, dict):
        return None
    last = exact_read(data)  # (msgspec, then Python's json: each keeps the last)
    if not isinstance(last, dict):
        return None
    first_id = _member(first, ("id",))
    apart = not _same(first_id, _member(last, ("id",)))
    member = _member_apart(first, last, apart)
    if member is None:
        return None
    return Twice(member, _id_of(first_id[1]) if apart else None)


def _id_of(value: Any) -> str | int | float | None:
    """An id as the first reading holds it, as an answer's routing read (orjson) holds it: a
    string, an integer, a float (a number with a fraction or an exponent, read as a Decimal);
    None for any other value (null, a boolean, an object: no answer is paired by it)."""
    if type(value) is str or type(value) is int:
        return value
    if type(value) is Decimal and value.is_finite():
        return float(value)
    return None


def _member_apart(first: dict[str, Any], last: dict[str, Any], id_apart: bool) -> str | None:
    if not _same(_member(first, ("method",)), _member(last, ("method",))):
        return "method"
    if id_apart:
        return "id"
    methods = {first.get("method"), last.get("method")}
    if "tools/call" in methods and not _same(_member(first, ("params", "name")), _member(last, ("params", "name"))):
        return "params.name"
    if any(isinstance(m, str) and m.startswith("tasks/") for m in methods) \
            and not _same(_member(first, ("params", "taskId")), _member(last, ("params", "taskId"))):
        return "params.taskId"
    return None


def two_readings(data: bytes) -> str | None:
    """The member :func:`read_two_ways` names, or None."""
    read = read_two_ways(data)
    return None if read is None else read.member


def reason(member: str) -> str:
    """Why a request whose ``member`` reads two ways is one the proxy may read otherwise than the server."""
    return (f"its {member} member is given twice with two values: a parser that keeps the first reads another "
            f"request than one that keeps the last (RFC 8259 s4: the names within an object SHOULD be unique)")


def note(read: Twice, sent: bool) -> str:
    """The note of the record of a host request forwarded although it reads two ways (``read``;
    ``sent``: in enforce, the transport had sent it before the relay read it)."""
    said = ("enforce: it had reached the server before the proxy read it" if sent
            else "forwarded unchanged (observe)")
    paired = "the proxy paired and judged it by the last values" if read.first_id is None else \
        "the proxy judged it by the last values and takes an answer under either id as its answer"
    return f"{reason(read.member)}; {said}; {paired}"


__all__ = ["PLAIN", "Counts", "Twice", "counted", "each_once", "may_repeat", "note", "read_repeated", "read_two_ways",
           "reason", "repeats", "two_readings"]
