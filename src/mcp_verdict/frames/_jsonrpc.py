"""What a JSON-RPC frame is, read leniently for routing — never for the verdict.

A proxy, a tap or an audit must know which frames are requests, which answer which request,
and what method and id they carry, before (and whatever) the verdict says. :func:`peek` reads
a frame with orjson (fast; the last of duplicated keys wins, which is harmless for routing
because the verdict reads the same bytes strictly). A frame no strict parser can read — NaN, a
lone surrogate, a truncated line, invalid UTF-8 — still gets its id recovered by
:func:`recover_id` where one is visible at the top level, so its call can be answered with an
error rather than left waiting. The frame's strings and brackets are found in C a block at a time
(:func:`id_values`: escapes paired by ``bytes.replace``, strings split on their quotes, the depth
counted by C iterators), in time a part of what orjson takes to read a frame of that size. A
backslash outside a string (no JSON text holds one) is a byte like any other there, and the quote
after an odd run of them opens a string where it stands outside one: found in C too, by the
quotes before it (:func:`_quotes_after_backslashes`).

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
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from itertools import accumulate, chain, compress, count, repeat
from operator import add, eq, gt, mul, sub
from typing import Any, Final, Literal, Protocol

import msgspec
import orjson

from ..verdict._kind import Kind
from ..verdict._verdict import Verdict

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

_SKIP: Final = msgspec.json.Decoder(msgspec.Raw)
_CHUNK: Final = 1 << 20
_NUMBER_SHAPES: Final = bytes.maketrans(b"123456789E-", b"000000000e+")
_BIG_NUMBERS: Final = (b"e000", b"e+000", b"0" * 210)
"""Where a number past the double range may be, in a frame whose digits are all read as ``0``,
``E`` as ``e`` and ``-`` as ``+``: 210 digits or more in a row, or an exponent of 3 digits or
more (a number of at most 209 integer digits and a 2-digit exponent is under 1e309). Found
inside strings too: :func:`_infinite_number` tells them apart."""
_NOT_ZERO: Final = re.compile(b"[^0]")
_NUMBER_ENDS: Final = tuple(bytes([b]) for b in b" \t\r\n,:[")
"""The bytes one of which comes before a number of a JSON text (or its start)."""
_ESCAPED_QUOTES: Final = re.compile(rb'\\+"')
_NUMBER_AT: Final = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


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


_DEPTH: Final = 1024
"""The deepest nesting orjson reads."""


def _large_problem(data: bytes | bytearray | memoryview | str) -> str | None:
    """Why orjson would find no JSON in a large frame, found with no value built: msgspec's
    reason (it skips every value, checking it, in memory a small part of the frame's size), or
    orjson's own words for a number past the double range, which msgspec does not check, or, for
    a frame nested deeper than msgspec follows, :func:`_deep_problem`'s. None when orjson reads the
    frame, or refuses it before it builds anything (bytes that are not UTF-8: orjson checks them
    first, and a str holding a lone surrogate, which it cannot encode), or the frame cannot be
    told apart (:func:`_deep_problem`): orjson reads it then."""
    try:
        _SKIP.decode(data)
    except msgspec.DecodeError as exc:
        if not _utf8(data):
            return None  # (orjson's reason: it checks the bytes before it reads anything)
        return _malformed(str(exc))
    except RecursionError:  # (nested deeper than the interpreter's recursion limit lets msgspec go)
        return _deep_problem(data)
    except UnicodeEncodeError:  # (a str holding a lone surrogate: orjson refuses it first)
        return None
    # (a copy of a str or a memoryview, as orjson makes of a str: bytes and bytearray, the frames
    # the proxy, the tap and the audit read, are not copied)
    whole = data.encode() if isinstance(data, str) else bytes(data) if isinstance(data, memoryview) else data
    problem = _infinite_number(whole)
    # (UTF-8 checked only then: bytes that are not UTF-8 are orjson's first reason, found before
    # it builds anything)
    return problem if problem is None or _utf8(data) else None


def _malformed(text: str) -> str:
    """msgspec's reason as the problem of a frame: ``JSON is malformed: ...``."""
    return text if text.startswith("JSON is malformed") else f"JSON is malformed: {text[:1].lower()}{text[1:]}"


_DEEPER: Final = _DEPTH + 100
"""How much deeper :func:`_deeper` lets msgspec go: orjson's levels and room for the caller's."""
_LIMIT: Final = threading.Lock()


def _deep_problem(data: bytes | bytearray | memoryview | str) -> str | None:
    """:func:`_large_problem` of a frame nested deeper than msgspec followed: where orjson's 1024
    levels are passed (:func:`_too_deep`), ``JSON is malformed: nested deeper than 1024 levels
    (byte N)`` (N: the byte of the bracket that opens the level past them), unless msgspec finds a
    syntax error before that byte (its words), and with the recursion limit raised for the read
    (:func:`_deeper`); nesting of at most 1024 levels is checked whole so. In C, in memory a small
    part of the frame's size, no value built. None when orjson refuses the frame before it
    builds anything (not UTF-8), or when msgspec cannot read it still (nesting past the raised
    limit): orjson reads it then. The brackets are counted past a backslash outside a string too,
    as far as the nesting goes (no JSON text holds one: msgspec stops there, which is the problem
    when it comes before the bracket past the levels, as orjson's first error is)."""
    try:
        whole = data.encode() if isinstance(data, str) else bytes(data) if not isinstance(data, bytes) else data
    except UnicodeEncodeError:
        return None
    if not _utf8(whole):
        return None
    over = _too_deep(whole)
    try:
        with _deeper():
            _SKIP.decode(memoryview(whole)[:len(whole) if over is None else over])
    except msgspec.DecodeError as exc:
        text = str(exc)
        if over is None or text != "Input data was truncated":  # (the text before the bracket: cut short)
            return _malformed(text)
    except RecursionError:
        return None
    if over is not None:
        return f"JSON is malformed: nested deeper than {_DEPTH} levels (byte {over})"
    return _infinite_number(whole)


@contextmanager
def _deeper() -> Iterator[None]:
    """The interpreter's recursion limit raised by :data:`_DEEPER` while msgspec reads (msgspec
    counts its nesting against it on Python 3.11; from 3.12 against a fixed C limit, past
    orjson's levels), one read at a time, then set back."""
    with _LIMIT:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + _DEEPER)
        try:
            yield
        finally:
            sys.setrecursionlimit(limit)


def _utf8(data: bytes | bytearray | memoryview | str) -> bool:
    """The frame is UTF-8 (a ``str``: it encodes, which msgspec checked), as the verdict's strict
    reader checks a text (``verdict._parser._utf8_error``: a block at a time, no copy of the frame)."""
    if isinstance(data, str):
        return True
    if not isinstance(data, memoryview) and data.isascii():
        return True
    from ..verdict._parser import _utf8_error  # (loaded on first use, as classify loads it)

    return _utf8_error(memoryview(data).cast("B")) is None


def _big_numbers(data: bytes | bytearray) -> Iterator[int]:
    """Where a number past the double range may start or be (:data:`_BIG_NUMBERS`), in order,
    found a chunk at a time in C (a regular expression took ~30 ns a byte)."""
    longest = max(len(shape) for shape in _BIG_NUMBERS)
    for start in range(0, len(data), _CHUNK):
        shapes = data[start:start + _CHUNK + longest - 1].translate(_NUMBER_SHAPES)
        found = []
        for shape in _BIG_NUMBERS:
            at = shapes.find(shape)
            while at >= 0:
                found.append(at)
                if shape[:1] == b"0":  # (the rest of a run of digits is that one number)
                    end = _NOT_ZERO.search(shapes, at)
                    at = -1 if end is None else shapes.find(shape, end.start())
                else:
                    at = shapes.find(shape, at + 1)
        yield from (start + at for at in sorted(found))


def _infinite_number(data: bytes | bytearray) -> str | None:
    """orjson's reason for the first number of a valid JSON text (msgspec read it) that is past
    the double range, where orjson stops (``number is infinity when parsed as double: line 1
    column 8 (char 7)``); None when there is none. Linear time; a Python step per candidate and
    per escaped quote before it. A frame of few strings (at most one quote in :data:`_FEW_QUOTES`
    bytes: mostly long strings) is first looked at outside its strings only (:func:`_outside`),
    where its numbers are: most such frames are done with no scan of their strings' bytes."""
    if not _numbers_outside(data):
        return None
    quotes = 0  # unescaped quotes before ``done``: odd inside a string
    done = 0
    for at in _big_numbers(data):
        if at < done:
            continue
        quotes += data.count(b'"', done, at)
        for escaped in _ESCAPED_QUOTES.finditer(data, done, at):
            if (escaped.end() - escaped.start() - 1) % 2:  # (an odd run of backslashes escapes it)
                quotes -= 1
        done = at
        if quotes % 2:
            continue  # inside a string
        start = max(data.rfind(end, 0, at) for end in _NUMBER_ENDS) + 1
        number = _NUMBER_AT.match(data, start)
        if number is None:  # (cannot be: msgspec read a number here)
            continue
        done = number.end()
        if math.isinf(float(number.group())):
            return _orjson_reason("number is infinity when parsed as double", data, start)
    return None


_FEW_QUOTES: Final = 256
_MOSTLY_STRINGS: Final = 8
"""... and that holds at most one byte in this many outside its strings, in every block read
(else the look stops there)."""


def _numbers_outside(data: bytes | bytearray) -> bool:
    """Whether a number past the double range may be in ``data`` (:data:`_BIG_NUMBERS`): True,
    but in a frame of few, long strings whose bytes outside strings hold no such shape (a number
    is never cut by a string, so its shape is whole in the bytes outside them, joined)."""
    if type(data) is not bytes or data.count(b'"') * _FEW_QUOTES > len(data):
        return True
    parts = []
    size = 0
    for start, view, outside, _ in _outside(data, ids=False):
        parts.append(outside)
        size += len(outside)
        if size * _MOSTLY_STRINGS > start + len(view):  # (not mostly strings: the whole scan is as quick)
            return True
    shapes = b"".join(parts).translate(_NUMBER_SHAPES)
    return any(shape in shapes for shape in _BIG_NUMBERS)


def _orjson_reason(reason: str, data: bytes | bytearray, at: int) -> str:
    """``reason`` with the place of byte ``at`` as orjson writes it (JSONDecodeError: line and
    column from 1, the character's index), counted a chunk at a time."""
    line, column = data.count(_LF, 0, at) + 1, _chars(data, data.rfind(_LF, 0, at) + 1, at) + 1
    return f"{reason}: line {line} column {column} (char {_chars(data, 0, at)})"


def _chars(data: bytes | bytearray, start: int, end: int) -> int:
    """How many characters the UTF-8 bytes ``data[start:end]`` hold (``end`` at a character's
    start): the bytes that start one."""
    view = memoryview(data).cast("B")
    count = 0
    for at in range(start, end, _CHUNK):
        chunk = bytes(view[at:min(end, at + _CHUNK)])
        count += len(chunk) - len(chunk.translate(None, _NOT_CONTINUATION))
    return count


_LF: Final = b"\n"
_NOT_CONTINUATION: Final = bytes(b for b in range(256) if not 0x80 <= b <= 0xBF)


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


# Strings and brackets, as the scans of a frame read them a block at a time (_outside; the id
# scan, and frames/_request_ids for proxy/_codes.py): a Python step per match read it before,
# and the tests compare the scans with it.
_TOKENS: Final = re.compile(rb'"(?:[^"\\]++|\\.)*+"?|[{}\[\]]', re.DOTALL)
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


# --- the structure of a frame, read in C -------------------------------------------------------
#
# A frame's strings and brackets, found a block at a time with bytes methods (split, join,
# translate, count, replace) and C iterators, where a regular expression took a Python step per
# string or bracket. Each escape pair (a backslash and the byte it escapes, when that is a
# backslash or a quote) is first made two _ESCAPED bytes, so every quote left delimits a string;
# that reads a frame as the token scan of its strings and brackets reads it (_TOKENS: in a string a
# backslash escapes the byte after it; outside one it is a plain byte, no JSON but a byte the scan
# steps over). A run of backslashes is whole inside a string or whole outside one (a quote ends
# it); only the quote after an odd run is read two ways: escaped in a string, opening one outside
# (_quotes_after_backslashes).

_ESCAPED: Final = b"\x01"
_QUOTED: Final = b"\x03"
"""A quote after an odd run of backslashes in :func:`_plain`'s view, read as an escaped quote in
a string (where every JSON text has it)."""
_STRAY: Final = b"\x04"
"""The last backslash of an odd run, in :func:`_plain`'s view where the quote after it opens a
string (:func:`_quotes_after_backslashes`)."""
_STRING: Final = re.compile(b'["' + _QUOTED + b']([^"]*"?)')
"""A string of the view from its opening quote (a quote or :data:`_QUOTED`) to its closing one
(none at the end), what follows the opening quote in group 1."""
_ID_MARK: Final = b"\x00\x02\x02\x02"
"""Where a top-level member may be named ``"id"``: its four bytes (the name and its quotes) in
:func:`_plain`'s view, when a colon follows past blanks. Its quotes gone, the strings around it are
delimited as before (two quotes fewer), and the mark is outside a string exactly when its first
quote opened the string ``"id"``."""
_CLEAN: Final = bytes.maketrans(b"\x00\x01\x02\x03\x04", b"_____")
_SPACED_ID: Final = re.compile(rb'"id"(?=\s*:)')
_COLON: Final = re.compile(rb"\s*:")
_BLANKS_RE: Final = b" \t\n\r\f\v"
"""What ``\\s`` matches in a bytes pattern."""
_STEP: Final = 1 << 16
"""The scan reads this many bytes at a time (a block of short strings splits into a list of
about 30 times its size)."""
_NOT_STRUCTURE: Final = bytes(b for b in range(256) if b not in b"[]{}\x00")
_STEPS: Final = bytes.maketrans(b"[{]}\x00", b"\x02\x02\x00\x00\x01")
"""A structural byte as 1 + the change of depth it makes: an opening bracket 2, a closing one 0, a
mark 1 (none)."""
_ONE_BRACKET: Final = bytes.maketrans(b"[]{}", b"||||")
_IS_MARK: Final = bytes.maketrans(b"\x00\x01\x02", b"\x00\x01\x00")
"""A token's step (:data:`_STEPS`) as 1 where it is a mark."""
_ONLY_BRACKETS: Final = bytes(0x5B if b in b"[]{}" else 0x2E for b in range(256))
"""Every byte as ``.`` but a bracket, as ``[``."""


def _plain(data: bytes, ids: bool, inside: bool = False) -> bytes:
    """``data``, which starts inside a string when ``inside``, with each escape of a backslash or a
    quote in a string two :data:`_ESCAPED` bytes (backslashes pair from the left, as JSON reads
    them), and with ``ids``, each ``"id"`` a colon follows :data:`_ID_MARK`; the bytes the view
    uses for itself (0 to 4) made ``_`` first. A backslash outside a string stays, or is made
    another byte that is no quote, and the quote after it is kept (:func:`_quotes_after_backslashes`):
    every quote of the view delimits a string. Same length and places as ``data``: a copy, or
    ``data`` when nothing changes."""
    view = data.translate(_CLEAN) if b"\x00" in data or b"\x01" in data or b"\x02" in data \
        or b"\x03" in data or b"\x04" in data else data
    if b"\\" in view:
        view = view.replace(b"\\\\", b"\x01\x01")
        if b'\\"' in view:
            view = _quotes_after_backslashes(view, inside)
    if ids and b'"id"' in view:
        view = view.replace(b'"id":', _ID_MARK + b":")
        if b'"id"' in view:
            view = _SPACED_ID.sub(_ID_MARK, view)
    return view


def _quotes_after_backslashes(view: bytes, inside: bool) -> bytes:
    """``view`` (starting inside a string when ``inside``; each pair of backslashes made two
    :data:`_ESCAPED`, so ``\\"`` is the last backslash of an odd run and the quote after it) with
    each such quote read: in a string an escaped quote (``_ESCAPED`` and :data:`_QUOTED`), outside
    one the quote that opens a string (:data:`_STRAY` and the quote). Each leaves the scan in a
    string (it was, or it opens one). Read in C, the block at a time: first as if each were in a
    string (every JSON text), which holds when none of them lands outside the strings that reading
    finds (the readings agree up to the first that does not hold); then as if each opened one
    (a backslash before each string), which holds when none of them closes a string; else (the
    two mixed) the view's strings are read again by :data:`_STRING`, opened by either quote (a
    regular expression's split: in C, a few objects per string, no Python step)."""
    within = view.replace(b'\\"', _ESCAPED + _QUOTED)
    if _QUOTED not in _between(within, inside):
        return within
    opening = view.replace(b'\\"', _STRAY + b'"')
    if _STRAY not in _between(opening, not inside):
        return opening
    head = b""
    if inside:  # (the string the view starts in, up to its closing quote)
        head, quote, within = within.partition(b'"')
        head += quote
    parts = _STRING.split(within)
    parts[1::2] = map(add, repeat(b'"'), parts[1::2])
    return head + b"".join(parts)


def _between(view: bytes, inside: bool) -> bytes:
    """The bytes of ``view`` outside its strings, joined, when it starts inside one if ``inside``
    (with ``not inside``: those inside its strings). ``split`` steps a byte at a time: a view with
    no quote is not split."""
    if b'"' not in view:
        return b"" if inside else view
    return b"".join(view.split(b'"')[inside::2])


def _outside(data: bytes, ids: bool, marks: Marks | None = None) -> Iterator[tuple[int, bytes, bytes, bool]]:
    """``(start, view, outside, inside)`` for each block of about :data:`_STEP` bytes of ``data``:
    ``view`` the block's :func:`_plain` view (with ``ids``, its marks; with ``marks``, the view
    that makes, in place of both), ``outside`` the view's bytes outside strings (joined),
    ``inside`` whether the block starts inside a string. A block ends past an escape's backslash
    and past what may be a member named ``"id"`` and its colon (with ``marks``: where it says;
    the view of a block is the view of the frame there; memory: a block's)."""
    inside = False
    start = 0
    size = len(data)
    while start < size:
        if marks is None:
            end = _block_end(data, start, min(size, start + _STEP), ids)
            view = _plain(data[start:end], ids, inside)
        else:
            end = marks.block_end(data, start, min(size, start + _STEP))
            view = marks.view(data[start:end], inside)
        was = inside
        if b'"' in view:
            pieces = view.split(b'"')
            outside = b"".join(pieces[inside::2])
            if len(pieces) % 2 == 0:
                inside = not inside
        else:
            outside = b"" if inside else view
        yield start, view, outside, was
        start = end


class Marks(Protocol):
    """Other marks than the ``"id"`` members' for :func:`_outside` (``frames._request_ids``)."""

    def block_end(self, data: bytes, start: int, end: int) -> int:
        """Where a block that starts at ``start`` ends, at ``end`` or just past it (as :func:`_block_end`)."""

    def view(self, block: bytes, inside: bool) -> bytes:
        """The view of ``block`` (starting inside a string when ``inside``): :func:`_plain`'s, marked."""


_TAIL: Final = 64


def _block_end(data: bytes, start: int, end: int, ids: bool) -> int:
    """Where a block of ``data`` that starts at ``start`` (a block's end: :func:`_outside`) ends,
    at ``end`` or just past it: past an escape's backslash (the byte it escapes too), and with
    ``ids``, past a name ``"id"`` that ends, or a part of one, and the blanks and colon after it.
    A constant number of Python steps: the run of backslashes or blanks before ``end`` is measured
    by ``rstrip`` and the blanks after a name by a regular expression, in C (a loop that stepped a
    byte or three at a time took a Python step per two bytes of a frame of escaped quotes)."""
    size = len(data)
    if end >= size:
        return size
    if _run_before(data, start, end, b"\\") % 2:  # (an escape's backslash: its byte too)
        end += 1
    if ids:
        after = end - _run_before(data, start, end, _BLANKS_RE)
        for at in range(max(start, after - 4), after):
            colon = _COLON.match(data, at + 4) if data.startswith(b'"id"', at) else None
            if colon is not None:  # (a name "id" before the blanks, or cut at the end; '"id"id":' has two)
                end = colon.end()
                break
    return min(size, end)


def _run_before(data: bytes, start: int, end: int, bytes_: bytes) -> int:
    """How many of the bytes of ``data[start:end]`` before ``end`` are in ``bytes_``, in a row:
    from the last :data:`_TAIL` bytes, or from the whole block where they all are."""
    tail = data[max(start, end - _TAIL):end]
    run = len(tail) - len(tail.rstrip(bytes_))
    if run == _TAIL:
        return end - start - len(data[start:end].rstrip(bytes_))
    return run


def _nth(block: bytes, byte: bytes, numbers: list[int]) -> list[int]:
    """Where the ``numbers``-th occurrences (from 0, ascending) of ``byte`` are in ``block``."""
    if len(numbers) == 1:  # (the place of one: the length of what follows it, no list of places)
        return [len(block) - len(block.split(byte, numbers[0] + 1)[-1]) - 1]
    places = list(accumulate(map(len, block.split(byte, numbers[-1] + 1)[:numbers[-1] + 1])))
    return list(map(add, map(places.__getitem__, numbers), numbers))


_FILL: Final = b"_"


def _masked(block: bytes, inside: bool) -> bytes:
    """``block`` with the bytes inside its strings :data:`_FILL` (places kept)."""
    pieces = block.split(b'"')
    pieces[1 - inside::2] = map(_FILL.__mul__, map(len, pieces[1 - inside::2]))
    return b'"'.join(pieces)


def _id_members(data: bytes) -> list[int]:
    """Where each top-level ``"id"`` member's name starts (its first quote; a colon follows it
    past blanks), in order, as the token scan of strings and brackets finds them (:data:`_TOKENS`):
    depth 1 in the count of brackets outside strings."""
    return [at for members in _member_blocks(data) for at in members]


def _member_blocks(data: bytes, last: bool = False) -> Iterator[list[int]]:
    """:func:`_id_members`, a block of the scan at a time (some lists empty); with ``last``, the
    last member of each block only."""
    if b'"id"' not in data:  # (no member)
        return
    depth = 0
    for start, block, outside, inside in _outside(data, ids=True):
        tokens = outside.translate(None, _NOT_STRUCTURE)
        marks = tokens.count(b"\x00")
        if marks and depth - _fall(tokens) <= 1:  # (a mark may be at depth 1)
            ones = _at_depth_one(tokens, depth, last)
            if ones:
                yield list(map(add, _marks_outside(block, inside, ones, marks), repeat(start)))
        depth += 2 * (tokens.count(b"[") + tokens.count(b"{")) + marks - len(tokens)


def _at_depth_one(tokens: bytes, depth: int, last: bool) -> list[int]:
    """Which marks of a block's ``tokens`` (brackets and marks; the depth ``depth`` before them)
    are at depth 1 (their numbers, from 0; with ``last``, the last only), in C iterators, up to the
    last mark (the brackets after it move none; none at all when ``last`` and that mark is at depth
    1): a step per token where brackets are as many as marks or more; else a step per bracket and
    a range per run of marks at depth 1 (the marks between two brackets are at one depth)."""
    tokens = tokens[:tokens.rfind(b"\x00") + 1]
    marks = tokens.count(b"\x00")
    if last and depth + 2 * (tokens.count(b"[") + tokens.count(b"{")) + marks - len(tokens) == 1:
        return [marks - 1]
    if 2 * marks <= len(tokens):
        # (the depth after the i-th token, depth + sum(steps[:i+1]) - (i+1), is 1 where the sum is i + 2 - depth)
        steps = tokens.translate(_STEPS)
        at_marks = compress(map(eq, accumulate(steps), count(2 - depth)), steps.translate(_IS_MARK))
        ones = list(compress(count(), at_marks))
        return ones[-1:] if last else ones
    # (the marks before each bracket, and after the last)
    runs = list(map(len, tokens.translate(_ONE_BRACKET).split(b"|")))
    # (the depth after the i-th bracket, depth + sum(steps[:i+1]) - (i+1), is 1 where the sum is i + 1 - depth)
    at_one = list(map(eq, accumulate(tokens.translate(None, b"\x00").translate(_STEPS), initial=depth), count(1)))
    ends = list(accumulate(runs))
    if last:  # (the end of the last run at depth 1 that holds a mark)
        held = list(compress(ends, map(mul, at_one, runs)))
        return [held[-1] - 1] if held else []
    return list(chain.from_iterable(map(range, compress(map(sub, ends, runs), at_one), compress(ends, at_one))))


def _marks_outside(block: bytes, inside: bool, numbers: list[int], outside: int) -> list[int]:
    """Where the ``numbers``-th marks outside strings are in ``block`` (``outside`` of them): the
    marks in strings masked first (:func:`_masked`) where there are any, in C."""
    if block.count(b"\x00") != outside:  # (a mark in a string: no member)
        block = _masked(block, inside)
    return _nth(block, b"\x00", numbers)


_PAIRS: Final = bytes.maketrans(b"[{]}", b"(())")
_LEAVES: Final = 4


def _rise(tokens: bytes) -> int:
    """At least how far a block's brackets take the depth above where it starts: its opening
    brackets once the containers that hold no bracket are taken out (each pass of
    :data:`_LEAVES`, a ``bytes.replace`` in C, lowers the count by at most one level)."""
    pairs = tokens.translate(_PAIRS)
    for passes in range(_LEAVES):
        fewer = pairs.replace(b"()", b"")
        if len(fewer) == len(pairs):
            return pairs.count(b"(") + passes
        pairs = fewer
    return pairs.count(b"(") + _LEAVES


def _fall(tokens: bytes) -> int:
    """At most how far a block's brackets take the depth below where it starts: its closing
    brackets once the containers that hold no bracket are taken out (which changes no depth
    outside them), up to :data:`_LEAVES` times."""
    pairs = tokens.translate(_PAIRS, b"\x00")
    for _ in range(_LEAVES):
        fewer = pairs.replace(b"()", b"")
        if len(fewer) == len(pairs):
            break
        pairs = fewer
    return pairs.count(b")")


def _too_deep(data: bytes) -> int | None:
    """Where the first bracket that opens past :data:`_DEPTH` levels is in ``data`` (None: none
    does), counting the brackets outside strings. A block is walked bracket by bracket (C
    iterators) only where its opening brackets may take the depth past the limit."""
    depth = 0
    for start, block, outside, inside in _outside(data, ids=False):
        tokens = outside.translate(None, _NOT_STRUCTURE)
        opens = tokens.count(b"[") + tokens.count(b"{")
        if depth + opens > _DEPTH and depth + _rise(tokens) > _DEPTH:
            # (the depth after the i-th bracket: depth + sum(steps[:i+1]) - (i+1))
            over = next(compress(count(), map(gt, map(sub, accumulate(tokens.translate(_STEPS)), count()),
                                               repeat(_DEPTH + 1 - depth))), None)
            if over is not None:
                return start + _nth(_masked(block, inside).translate(_ONLY_BRACKETS), b"[", [over])[0]
        depth += 2 * opens - len(tokens)
    return None
