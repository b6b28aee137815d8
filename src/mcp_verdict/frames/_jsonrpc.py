"""What a JSON-RPC frame is, read leniently for routing — never for the verdict.

A proxy, a tap or an audit must know which frames are requests, which answer which request,
and what method and id they carry, before (and whatever) the verdict says. :func:`peek` reads
a frame with orjson (fast; the last of duplicated keys wins, which is harmless for routing
because the verdict reads the same bytes strictly). A frame no strict parser can read — NaN, a
lone surrogate, a truncated line, invalid UTF-8 — still gets its id recovered by
:func:`recover_id` where one is visible at the top level, so its call can be answered with an
error rather than left waiting. The frame's strings and brackets are found in C a block at a time
(:func:`id_values`, by ``_structure``: escapes paired by ``bytes.replace``, strings split on their
quotes, the depth counted by C iterators), in time a part of what orjson takes to read a frame of
that size. A backslash outside a string (no JSON text holds one) is a byte like any other there,
and the quote after an odd run of them opens a string where it stands outside one: found in C too,
by the quotes before it (``_structure._quotes_after_backslashes``). A frame past :data:`LARGE` is
checked before orjson reads it, with no value built (``_large``).

Ids are compared with their JSON type (``7`` is not ``"7"``, and ``1`` is not ``1.0``):
:func:`id_key` is the key to use in a map of pending requests.

Ids are read exactly. orjson reads an integer past the 64-bit range as a float
(``18446744073709551616`` becomes ``1.8446744073709552e+19``: another id, and 2**64 and
2**64 + 1 the same one), and reads no frame whose id is ``1e400``. So when orjson gives a float
id — only then: an ``int`` or ``str`` id (every ordinary frame) costs its type test and nothing
more — :func:`peek` reads the id again from the bytes, from the last top-level ``"id"`` member
(the one orjson and Python's json keep when there are several); :func:`recover_id` reads a frame
no parser reads the same way:

- an integer is a Python ``int``, exactly (the verdict's strict parser reads the answer's id the
  same way, so a server that rounds it is caught);
- a string is read as Python's json reads it (a lone surrogate kept);
- a fraction or exponent that a float holds (``1.5``, ``1E2``) is that float, as orjson reads it;
- ``null`` is the id ``None``;
- a number that neither an int nor a float holds — ``1e400``, an integer of more digits than
  Python converts (``sys.get_int_max_str_digits``; its default when that is 0, so a read stays
  quick) — is *unheld*: no id (``has_id`` is False) and :attr:`Peek.unheld` holds it as
  written. No request can carry such an id, so the tracker pairs the frame with no request
  (where a frame without a visible id is paired with the only request waiting).

An id is written back the same way, exactly (:func:`id_json`): what the proxy and the tap put in
the answers they make for a request, where ``orjson.dumps`` refuses an int past 64 bits and a
string with a lone surrogate.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator, Mapping
from typing import Any, Final, Literal

import msgspec
import orjson

from ..verdict._kind import Kind
from ..verdict._verdict import Verdict
from ._large import _large_problem, _utf8
from ._structure import _member_blocks

FrameKind = Literal["request", "notification", "response", "error", "batch", "invalid", "unreadable"]
"""``response`` holds ``result``; ``error`` holds ``error``; ``invalid`` is JSON but no JSON-RPC
message (no method, no result or error, not an object); ``unreadable`` is not JSON at all."""

Id = str | int | float | bytes | None
"""A request id as routing reads it; ``bytes``: a string id whose bytes are no UTF-8, as written
(:func:`with_bytes_id`)."""


class Peek(msgspec.Struct, frozen=True, gc=False):
    """A frame, as routing sees it (untracked by the cycle collector, as the tracker's values:
    it holds JSON values only)."""

    kind: FrameKind
    id: Id = None
    has_id: bool = False
    """The id member is present (``id: null`` included)."""
    method: str | None = None
    message: dict[str, Any] | None = None
    """The parsed message (requests and responses), for reading params and result members, as
    orjson reads it (its ``"id"`` may be the float of an integer past 64 bits: ``id`` is exact)."""
    problem: str | None = None
    """Why an unreadable frame could not be read."""
    unheld: bytes | None = None
    """The id as written when it is a number neither an int nor a float holds (``1e400``; an
    integer of more digits than Python converts): ``has_id`` is False, and the frame answers no
    request (the tracker never pairs it with the only request waiting)."""

    @property
    def params(self) -> dict[str, Any]:
        params = self.message.get("params") if self.message is not None else None
        return params if isinstance(params, dict) else {}

    @property
    def result(self) -> dict[str, Any] | None:
        result = self.message.get("result") if self.message is not None else None
        return result if isinstance(result, dict) else None


_ABSENT: Final = object()
_UNCLASSIFIED: Final = Kind.UNCLASSIFIED  # (an Enum member is slow to look up on its class)
_ID_TYPES: Final = frozenset({int, str, float, type(None)})


def answer_peek(verdict: Verdict, request_id: Id) -> Peek | None:
    """The routing read of an answer from the message a judge read of its bytes, when the
    verdict is not ``unclassified``, the message's id is ``request_id`` with its JSON type, and
    it is a response or an error (None otherwise: the caller reads the frame with :func:`peek`).
    It is what :func:`peek` makes of the same bytes: a message whose verdict passes was read
    strictly (no repeated member, no number out of range, no lone surrogate), so orjson reads
    it alike, but for its integers past 64 bits, exact here where orjson's are floats (a routing
    read never looks at such a member). A relay or a tap that judges an answer first (its
    request guessed: :func:`shown_id`) reads it once."""
    if verdict.kind is _UNCLASSIFIED:
        return None
    message = verdict.message
    if type(message) is not dict or "method" in message:
        return None
    answered = message.get("id", _ABSENT)  # (no id member: peek's has_id is False, so not this read)
    of = type(answered)
    if of is not type(request_id) or of not in _ID_TYPES or answered != request_id:
        return None  # (true is no id: peek reads it as none)
    if "result" in message:
        return Peek("response", answered, True, None, message)
    if "error" in message:
        return Peek("error", answered, True, None, message)
    return None


_SHOWN_ID: Final = re.compile(rb'"id"\s*:\s*(-?[0-9]{1,18}|"[^"\\]{0,256}")\s*[,}]')
_ENDS: Final = 300
"""How many bytes at each end of a frame :func:`shown_id` and :func:`names_method` read."""
NAMES_WHOLE: Final = 2 * _ENDS
"""The frames :func:`names_method` searches whole: up to this size (its answer is then
``data.find(b'"method"') >= 0``, which a caller may ask without the call)."""


def shown_id(data: bytes) -> Id:
    """The id an answer shows in its first or last 300 bytes (``"id": 7`` or ``"id": "a"``,
    no escape), as a guess of the request it answers (None: none shows). A guess only: the
    judge's read of the answer (:func:`answer_peek`) confirms it, id and JSON type included."""
    found = _SHOWN_ID.search(data, 0, _ENDS) or _SHOWN_ID.search(data, max(0, len(data) - _ENDS))
    if found is None:
        return None
    text = found.group(1)
    if text[:1] != b'"':
        return int(text)
    try:
        return text[1:-1].decode()
    except UnicodeDecodeError:
        return None


def names_method(data: bytes) -> bool:
    """Whether a frame may be a request or a notification as SDKs write them: its bytes name
    ``"method"`` (a frame over 600 bytes: in its first or last 300; a long answer is not
    scanned whole). One that does is read with :func:`peek` before anything is judged; one that
    does not is taken for an answer whose request can be guessed (:func:`shown_id`)."""
    if len(data) <= NAMES_WHOLE:
        return data.find(b'"method"') >= 0
    return data.find(b'"method"', 0, _ENDS) >= 0 or data.find(b'"method"', len(data) - _ENDS) >= 0


_ID_TYPE_NAMES: Final[dict[type, str]] = {int: "int", str: "str", float: "float", type(None): "NoneType", bool: "bool"}
"""``type(value).__name__`` of the types an id has, as constant strings: ``__name__`` of a
built-in type makes a new string at each read, which a map then hashes and compares character by
character (the four keys of a call the tap judges cost ~900 instructions more, valgrind)."""


def id_key(value: Id) -> tuple[str, Any]:
    """A map key for a request id that keeps its JSON type apart (``7``, ``"7"`` and ``7.0``):
    ``(type(value).__name__, value)``."""
    of = type(value)
    return (_ID_TYPE_NAMES.get(of) or of.__name__, value)


def peek(data: bytes | bytearray | memoryview | str) -> Peek:
    """Read one frame for routing, with its id exact. Never raises.

    orjson gives plain ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None``
    only, so exact type tests read it (they are cheaper than ``isinstance``; a peek is made of
    every frame).

    A frame of more than :data:`LARGE` bytes is checked before orjson reads it, in memory a small
    part of its size (:func:`_large_problem`): orjson builds every value it reads before the
    error it stops at, which took ~9 times the size of an invalid frame of many small values
    (a 64 MiB frame: ~580 MB) for nothing. The Peek is the same as orjson's read gives, but for
    the ``problem`` of a large frame msgspec finds no JSON: msgspec's words and byte offset
    (``JSON is malformed: invalid character (byte 52428790)``) where orjson gives its own and
    the line, column and character (``unexpected character, expected ',' or '}': line 1 column
    52428791 (char 52428790)``). A large frame nested deeper than msgspec follows (the
    interpreter's recursion limit) is checked the same way, its brackets counted in C and msgspec
    let go deeper (:func:`_deep_problem`): past orjson's 1024 levels its problem is ``JSON is
    malformed: nested deeper than 1024 levels (byte N)``, N the byte of the bracket that opens the
    level past them (orjson: ``depth limit exceeded`` and a place of its own), unless a syntax
    error comes before that bracket."""
    try:
        # (a frame past LARGE is checked first, values skipped: orjson builds every value before
        # the error, ~9 times the frame's size, and a valid frame is read below all the same)
        problem = _large_problem(data) if len(data) > LARGE else None
        message = orjson.loads(data) if problem is None else _ABSENT
    except (orjson.JSONDecodeError, TypeError) as exc:
        # (the id read once the error is gone: it holds the whole text as a str, its doc, which
        # doubled the memory of a frame of many megabytes while its id was read)
        problem, message = str(exc), _ABSENT
    if message is _ABSENT:
        found, value, unheld = _read_id(data)
        return Peek("unreadable", value, found, problem=problem, unheld=unheld)
    if type(message) is not dict:
        return Peek("batch") if type(message) is list else Peek("invalid")
    return _framed(data, message, message.get("id", _ABSENT), message.get("method"), message)


def _framed(data: bytes | bytearray | memoryview | str, members: Mapping[str, Any], value: Any, method: Any,
            message: dict[str, Any] | None) -> Peek:
    """The Peek of a JSON-RPC object whose top-level member names are ``members``' keys, its
    ``id`` read as ``value`` (:data:`_ABSENT` when it has none) and its ``method`` as ``method``;
    ``message`` kept in it (:func:`peek`'s parse; None for :func:`peek_shape`)."""
    of = type(value)
    if of is int or of is str:  # every ordinary id
        has_id = True
    elif of is float:  # an integer past 64 bits reads as a float: the id as written
        value, has_id = _exact_float(data, value), True
    else:  # absent, null, or not a valid id (a bool, an object...)
        has_id = value is None
        value = None
    if type(method) is str:
        if "result" in members or "error" in members:
            return Peek("invalid", value, has_id, None, message)
        return Peek("request" if has_id else "notification", value, has_id, method, message)
    if "result" in members:
        return Peek("response", value, has_id, None, message)
    if "error" in members:
        return Peek("error", value, has_id, None, message)
    return Peek("invalid", value, has_id, None, message)


LARGE: Final = 1 << 20
"""The size past which :func:`peek` checks a frame before orjson reads it (bytes, or characters
of a ``str``). Below it, orjson's transient on an invalid frame is at most ~32 MiB."""


_MEMBERS: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
"""The top-level members of an object, each value its text as written (in place: no copy, none built)."""


def peek_shape(data: bytes) -> Peek:
    """:func:`peek` without the message's values built, for a frame past :data:`LARGE`: its kind,
    id and method as :func:`peek` reads them, and no ``message`` (None: its ``params`` and
    ``result`` are not read). A frame up to LARGE, and a large one that is no object, is read by
    :func:`peek`. A client routing a server's answer needs nothing more, and orjson's read of it
    held its every value (a 50 MiB text block: a 50 MiB str, and ~13 times the frame allocated
    while reading it) for a look at three members. The same checks come first
    (:func:`_large_problem`: no JSON, a number past the double range; then UTF-8, which orjson
    refuses at once), so a frame is unreadable exactly where :func:`peek` finds it so, with the
    same problem; then msgspec reads the top-level members,
    the last of a repeated name kept as orjson keeps it, and orjson reads the ``id`` and
    ``method`` values alone."""
    if len(data) <= LARGE:
        return peek(data)
    problem = _large_problem(data)
    if problem is not None:
        found, recovered, unheld = _read_id(data)
        return Peek("unreadable", recovered, found, problem=problem, unheld=unheld)
    if not _utf8(data):  # (orjson refuses it before it builds anything, in its words)
        return peek(data)
    try:
        members = _MEMBERS.decode(data)
        raw_id = members.get("id")
        read: Any = orjson.loads(memoryview(raw_id)) if raw_id is not None else _ABSENT
        raw_method = members.get("method")
        method = orjson.loads(memoryview(raw_method)) if raw_method is not None else None
    except (msgspec.DecodeError, orjson.JSONDecodeError):  # (no object, or what only orjson refuses)
        return peek(data)
    except RecursionError:  # (nested deeper than msgspec follows here, within orjson's 1,024 levels)
        look = peek(data)  # (orjson reads it as peek does; its values are let go)
        return msgspec.structs.replace(look, message=None)
    return _framed(data, members, read, method, None)


_ARRAY: Final = b"["
_BLANKS: Final = frozenset({b" ", b"\t", b"\r", b"\n"})


def is_batch(data: bytes) -> bool:
    """The frame is a JSON array (its first byte past blanks ``[``): a JSON-RPC batch. Two byte
    tests for any other frame (a frame starting with a blank is stripped: rare)."""
    first = data[:1]
    if first == _ARRAY:
        return True
    return first in _BLANKS and data.lstrip(b" \t\r\n")[:1] == _ARRAY


_ELEMENTS: Final = msgspec.json.Decoder(list[msgspec.Raw])


def batch_elements(data: bytes | bytearray | memoryview | str) -> list[bytes] | None:
    """The exact bytes of each element of a JSON-RPC batch (a JSON array), in order, as msgspec
    reads the array: the blanks around each element left out, each element's own bytes as
    written (blanks, duplicated keys and escapes inside it kept: the verdict reads each element
    strictly, so a duplicated key is still found there). None when the frame is no array
    msgspec reads (NaN, a bad escape, a truncated line). msgspec does not check that a string
    holds UTF-8, so an element holding bytes that are not is given as its bytes: read as a frame
    of its own it is unreadable, and paired by the id it shows. Linear in the frame's size (the
    elements are slices of it); never raises."""
    try:
        raws = _ELEMENTS.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    return [bytes(raw) for raw in raws]


def lenient_request(data: bytes | bytearray | memoryview | str, look: Peek) -> Peek | None:
    """A request no strict parser reads, read for routing only: its id as :func:`peek` recovered
    it (``look``: exact), its method and params as Python's json reads the frame decoded with
    ``surrogateescape`` (bytes that are not UTF-8 become lone surrogates; NaN, ``1e400``, a lone
    surrogate escape and a raw control character in a string are read as Python reads them).
    So a ``tools/call`` whose arguments hold bytes that are not UTF-8 is followed, and its
    answer paired; the verdict still reads the answer's own bytes strictly. None when it is no
    request with an id (no object, no string method, no id or an unheld one, a result or an
    error member: an answer); a frame whose bytes show no ``"method": "`` member is not read
    (:func:`names_method_member`). Never raises."""
    if not look.has_id or (not isinstance(data, str) and not names_method_member(data)):
        return None
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8", "surrogateescape")
        message = json.loads(text, strict=False)  # (a raw control character in a string read too)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None
    if type(message) is not dict or "result" in message or "error" in message:
        return None
    method = message.get("method")
    if type(method) is not str:
        return None
    return Peek("request", look.id, True, method, message, look.problem)


def with_bytes_id(data: bytes | bytearray | memoryview | str, look: Peek) -> Peek:
    """``look``, the :func:`peek` of a frame no strict parser reads, with its id when that id is a
    string whose bytes are no UTF-8 (JSON text is UTF-8, RFC 8259 s8.1: no parser reads it, nor
    tells what characters it holds): the id as written, its quotes included, as ``bytes`` — compared
    as those bytes (:func:`id_key`: ``("bytes", ...)``, apart from every string and number), so a
    request under it is followed (:func:`lenient_request`) and an answer that echoes those bytes
    is paired with it. ``look`` itself for any other frame. Never raises; linear time."""
    if look.has_id or look.unheld is not None or look.kind != "unreadable":
        return look
    text = id_text(_as_bytes(data))
    if text is None or text[:1] != b'"':
        return look
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return msgspec.structs.replace(look, id=bytes(text), has_id=True)
    return look


_METHOD_MEMBER: Final = re.compile(rb'"method"\s*:\s*"')


def names_method_member(data: bytes | bytearray | memoryview) -> bool:
    """A frame no parser reads shows a ``"method": "`` member (a request's or a notification's,
    by its bytes; a string inside an answer could hold one too, then the frame answers nothing
    a connection waits for either way)."""
    return _METHOD_MEMBER.search(data) is not None


_NUMBER: Final = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
# after a member's name: its value when it is a number, a string or null, else group 1 is None
_ID_VALUE: Final = re.compile(rb'\s*:\s*(?:(' + _NUMBER + rb'|"(?:[^"\\]++|\\.)*+"|null)(?=\s*[,}]))?', re.DOTALL)
_INTEGER: Final = re.compile(rb"-?(?:0|[1-9][0-9]*)")
_FLOAT_DIGITS: Final = 309
"""The most digits of an integer orjson reads (as a float): one more is past the double range."""


def _as_bytes(data: bytes | bytearray | memoryview | str) -> bytes:
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)


def _exact_float(data: bytes | bytearray | memoryview | str, value: float) -> Id:
    """The id orjson read as the float ``value``: an ``int`` when the member's text is an
    integer (past 64 bits), else ``value``. Also ``value`` when the text the scan finds cannot be
    the number orjson read (the member orjson kept is named ``"\\u0069d"``, which the scan does
    not see)."""
    text = id_text(_as_bytes(data))
    if text is None or len(text) > _FLOAT_DIGITS + 1 or _INTEGER.fullmatch(text) is None:
        return value
    number = int(text)  # at most 309 digits: below any limit of int()
    return number if float(number) == value else value


def _max_digits() -> int:
    """The most digits of an integer id read: Python's limit (its default when it is 0, so the
    read stays quick whatever the process set)."""
    return sys.get_int_max_str_digits() or sys.int_info.default_max_str_digits


def _read_id(data: bytes | bytearray | memoryview | str) -> tuple[bool, Id, bytes | None]:
    """(found, id, unheld) of a frame orjson cannot read, from the bytes. Never raises."""
    text = id_text(_as_bytes(data))
    if text is None:
        return False, None, None
    if text[:1] == b'"':
        try:
            value = json.loads(text.decode("utf-8", "surrogatepass"))
        except ValueError:  # (invalid UTF-8, a control character, a bad escape)
            return False, None, None
        return True, value, None  # (a string: the text is one)
    if text == b"null":
        return True, None, None
    if _INTEGER.fullmatch(text) is not None:
        if len(text) - (text[:1] == b"-") > _max_digits():
            return False, None, text
        return True, int(text), None
    number = float(text)
    return (True, number, None) if math.isfinite(number) else (False, None, text)


def recover_id(data: bytes | bytearray | memoryview | str) -> tuple[bool, Id]:
    """The id of a frame that does not parse, read from the last top-level ``"id"`` member (the
    module's rules: an integer exactly, a string as Python's json reads it, a float, ``null``).
    Returns (found, id): not found when no member shows a complete value, or it is a number no
    int or float holds (:attr:`Peek.unheld`). Never raises; linear time."""
    found, value, _ = _read_id(data)
    return found, value


def id_json(request_id: object) -> bytes:
    """An id as JSON, exactly, for a frame written back under it: orjson, else (an int past 64
    bits, a string with a lone surrogate) Python's json; ``bytes``: an id already written (an
    unheld one, :attr:`Peek.unheld`), as they are."""
    if isinstance(request_id, bytes):
        return bytes(request_id)
    try:
        return orjson.dumps(request_id)
    except TypeError:
        return json.dumps(request_id).encode()


def error_json(request_id: object, code: int, message: str, data: object = None) -> bytes:
    """A JSON-RPC error answering ``request_id`` (written compactly, no line end), the id written
    exactly (:func:`id_json`); ``data`` the error's ``data`` member when not None. The one writer
    of the errors the tap and the proxy answer a request with themselves."""
    error: dict[str, object] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return b'{"jsonrpc":"2.0","id":' + id_json(request_id) + b',"error":' + orjson.dumps(error) + b"}"


def id_text(data: bytes) -> bytes | None:
    """The text of the last top-level ``"id"`` member's value, as written, when it is a number,
    a string or null followed by ``,`` or ``}`` (None: no member, or another value, or one cut
    short). Linear time, in memory a block's (the members of one block kept at a time); never
    raises."""
    last = None
    for members in _member_blocks(data, last=True):
        if members:
            last = members[-1]
    found = _ID_VALUE.match(data, last + 4) if last is not None else None
    return None if found is None else found.group(1)


def id_spans(data: bytes) -> list[tuple[int, int]]:
    """Where the value of each top-level ``"id"`` member that is a number, a string or null is
    in ``data``, in order. Linear time; never raises."""
    return [value.span(1) for value in id_values(data, _ID_VALUE) if value.group(1) is not None]


def id_values(data: bytes, value: re.Pattern[bytes]) -> Iterator[re.Match[bytes]]:
    """The value of each top-level ``"id"`` member of ``data`` (a string token ``"id"`` at depth 1
    in the count of brackets outside strings, a colon after it past blanks) that ``value`` matches
    (matched at the end of the member's name), in order. Found in C a block at a time
    (:func:`_member_blocks`). Linear in the frame's size; never raises."""
    for members in _member_blocks(data):
        for at in members:
            found = value.match(data, at + 4)
            if found is not None:
                yield found
