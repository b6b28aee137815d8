"""Why orjson would find no JSON in a large frame, found before it reads it and with no value
built (:func:`_large_problem`, for ``_jsonrpc.peek`` and ``peek_shape`` past ``LARGE``): msgspec's
reason, a number past the double range in orjson's words (:func:`_infinite_number`), nesting past
orjson's 1024 levels (:func:`_deep_problem`, :func:`_too_deep`), and whether a frame is UTF-8
(:func:`_utf8`).
"""

from __future__ import annotations

import math
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import accumulate, compress, count, repeat
from operator import gt, sub
from typing import Final

import msgspec

from ._structure import _NOT_STRUCTURE, _ONLY_BRACKETS, _STEPS, _masked, _nth, _outside, _rise

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
