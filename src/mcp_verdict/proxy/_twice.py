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
two ways and that the proxy paired and judged it by the last values.

Cost: :func:`may_repeat` is one regular-expression scan in C of the request's bytes; only a request
that names one of these members twice, or holds a ``\\u`` escape, is read strictly (jiter, which
refuses any repeated name), and only one the strict reader refuses is read twice more, as
``_params`` reads a request's arguments: the first values kept (``first_read``) and the last
(``exact_read``).
"""

from __future__ import annotations

import re
from typing import Any, Final

from ..verdict._parser import NOT_PARSED, read_strict
from ._params import exact_read, first_read

_NAMES: Final = re.compile(rb'"(?:method|id|params|name|taskId)"|\\u')
"""The names :func:`two_readings` compares (and ``params``, which holds two of them) as written
plainly, and the start of a ``\\u`` escape (which may spell one of them)."""


def may_repeat(data: bytes) -> bool:
    """The frame ``data`` may give one of the members :func:`two_readings` compares twice: it names
    one of them twice as written, or holds a ``\\u`` escape. False is sure; True is for
    :func:`two_readings` to tell."""
    found = _NAMES.findall(data)
    return len(found) > 1 and (len(set(found)) < len(found) or b"\\u" in found)


def _member(message: object, path: tuple[str, ...]) -> tuple[bool, Any]:
    value = message
    for name in path:
        if not isinstance(value, dict) or name not in value:
            return False, None
        value = value[name]
    return True, value


def _same(first: tuple[bool, Any], last: tuple[bool, Any]) -> bool:
    return first[0] == last[0] and type(first[1]) is type(last[1]) and first[1] == last[1]


def two_readings(data: bytes) -> str | None:
    """The routing member of the host request ``data`` that a parser keeping the first of a name
    given twice reads otherwise than one keeping the last (the module's rule): ``"method"``,
    ``"id"``, ``"params.name"`` (a ``tools/call`` by either reading) or ``"params.taskId"`` (a
    ``tasks/`` method by either reading); None when both read them alike, when the strict reader
    reads ``data`` (no name repeats), or when Python's json does not read it."""
    if not may_repeat(data) or read_strict(data) is not NOT_PARSED:
        return None
    first = first_read(data)
    if not isinstance(first, dict):
        return None
    last = exact_read(data)  # (msgspec, then Python's json: each keeps the last)
    if not isinstance(last, dict):
        return None
    for name in ("method", "id"):
        if not _same(_member(first, (name,)), _member(last, (name,))):
            return name
    methods = {first.get("method"), last.get("method")}
    if "tools/call" in methods and not _same(_member(first, ("params", "name")), _member(last, ("params", "name"))):
        return "params.name"
    if any(isinstance(m, str) and m.startswith("tasks/") for m in methods) \
            and not _same(_member(first, ("params", "taskId")), _member(last, ("params", "taskId"))):
        return "params.taskId"
    return None


__all__ = ["may_repeat", "two_readings"]
