"""Strict reading of wire text: UTF-8, standard JSON, no duplicate keys, bounded size.

Rules (RFC 8259 as MCP uses it; each maps to a ``json.*`` code in ``_findings``):

- the text is UTF-8; a string escaping a lone surrogate cannot be carried by UTF-8 and is
  refused (``json.encoding``); a byte order mark is refused (``json.bom``);
- standard JSON only: no NaN or Infinity, no single quotes, comments or trailing commas
  (``json.syntax``) and nothing after the value but whitespace (``json.trailing_data``);
- no object repeats a member name (``json.duplicate_key``);
- the text is at most ``Limits.max_bytes`` long (``json.too_large``) and nests at most
  ``Limits.max_depth`` deep (``json.too_deep``; the parser itself stops at
  :data:`PARSER_MAX_DEPTH`, so a 100,000-deep nesting costs nothing).

The reader is jiter with duplicate-key detection: the only fast parser measured (see README)
that reports duplicate keys instead of silently keeping one copy. It is the authority: every
finding about wire text comes from it, with one exception for long texts below. (The fast
path, ``_fastpath.read_common``, reads the common responses more quickly, and only where it can
prove it reads them as this module would.)

A text longer than :data:`SKIM_BYTES` is first checked to be UTF-8 (:func:`skim`), a block of
64 KiB at a time (CPython's decoder, no copy of the text held): bytes that are no UTF-8 are
named at once (``json.encoding``), wherever they sit, as orjson checks a text before reading
it (RFC 8259 section 8.1: the text as a whole must be UTF-8). A shorter text is checked the same
way (:func:`not_utf8`) before the fast path's typed read when it is longer than 2.5 KiB and not
all ASCII (``_fastpath`` module docstring, "Bytes that are no UTF-8"), and as soon as a fast
reader refuses it (orjson checks a text's UTF-8 before it reads it), so no value is built before
such a byte but in a text of at most 2.5 KiB. Whatever else a reader meets before such bytes (a
repeated name, nesting past the limit, data after the value), they are named first: in every
explanation (:func:`_named`), and at once where the fast path's reader refused a shorter text as
no UTF-8 or left it to be checked (:func:`not_utf8`), so a text gets the same finding whatever
its length. Past 256 KiB the check costs ~0.04 ms per MiB of ASCII and ~0.4 ms per MiB of
French prose: ~20% of a well-formed long text block's bytes to verdict, ~1% of a listing's, the
price of the bound.

Such a text whose tokens are dense (:func:`_dense`: more than one comma or colon per 16 bytes
in eight 4 KiB windows spread over it, ~16 searches in C) is then skimmed: msgspec's raw skip
checks its syntax without building any value, at 0.4-0.6x ``orjson.loads``' time there. A
syntax error it finds is explained at once, so such a wrong text never has a value built only
to be dropped (a listing of small numbers cost four to six times its size that way; skimmed,
the error path holds well under one). Where tokens are sparse (long strings: the skip reads
them at ~0.9x orjson) the values built cost about the text itself, and no skim runs.
Anything else the skip reports (a lone surrogate escape, nesting past its own limit), a syntax
error after nesting deeper than jiter reads, and every error the skip cannot see (duplicate
names but as follows) are left to jiter as below. So on
such a text a syntax error is named even where a duplicate name came before it; the verdict is
unclassified either way.

A duplicate name is well-formed JSON, so the skip passes it, and jiter would build the whole
listing before it meets the repeated name (a listing of small numbers: ten times its size).
Where the skip finds nothing, the skim also looks for a repeated name (:func:`_first_duplicate`)
where member names are sparse: it visits only the braces, colons and backslashes, found by
``bytes.find`` in C a block at a time, whether each is in a string told by the parity of the
quotes before it, counted in C, and at most one of them per 4 KiB of text (and 64 more): past
that it gives up, and the text takes the path above. Each open object keeps the set of its
names, compared as jiter compares them (a name holding an escape is decoded by jiter), so
nothing proportional to the text is built. Its finding is jiter's own, in its words (jiter is
given the name twice in a small object) and at its byte and pointer; where jiter would stop
before that name (bad UTF-8 in a string, an integer of thousands of digits, nesting past
:data:`PARSER_MAX_DEPTH`) the text is left to jiter. It costs ~0.1 ms per MiB of numbers or
short strings (~0.02x ``orjson.loads``) and ~0.55 µs per brace, colon or backslash in Python:
measured on well-formed 1 MiB texts, bytes to verdict +2-4% where it searches through, +3-5%
where it gives up (benchmarks/bench_bounds.py ``--valid``). Texts whose names are clearly
dense (:func:`_sparse_names`: more than one such byte per 512 in eight 4 KiB windows, one in
the middle of each eighth of the text) are not searched at all; texts with more names than
the budget (a listing of small objects, an object every few KiB of numbers) keep jiter's read,
which builds their values (README, "Not met").
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

import msgspec

from ._classify import PARSER_MAX_DEPTH
from ._findings import Finding, finding, pointer
from ._options import SKIM_BYTES

_BOM: Final = b"\xef\xbb\xbf"
# The error paths' patterns, compiled by their first use (re keeps them): an import of
# classify does not pay for them (~0.1 ms each), and the common answers never reach them.
_POSITION: Final = r" at line (\d+) column (\d+)$"
_STRING: Final = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'  # possessive: no backtracking
_BRACKETS: Final = rb"([\[\]{}])"
_NOT_TOKEN: Final = bytes(sorted(set(range(256)) - set(b'{}[],:"')))
_BLOCK: Final = 1 << 16
"""The error path reads the text this many bytes at a time."""
_INNERMOST: Final = rb"[\[{][^\[\]{}]*[\]}]"
"""A container holding no bracket, in a block's tokens (:func:`_collapse`)."""
_MOST_HEIGHT: Final = 4
_HEIGHTS: Final = (b"", b"1", b"2", b"3", b"4")
_SHAPES: Final = 12
"""At most this many shapes of container taken out of a block (each a search and a replace
over its tokens in C: ~0.1 ms a block at worst, where nothing repeats)."""
_PIECES: Final = 1 << 13
"""... and splits its blocks on quotes this many bytes at a time (:func:`_tokens`)."""
_NOT_PARSED: Final = object()
_WINDOWS: Final = 8
_WINDOW: Final = 4096
_RAW: Final = msgspec.json.Decoder(msgspec.Raw)
_MALFORMED: Final = r"JSON is malformed: (.*) \(byte (\d+)\)"
_EVENTS: Final = (b"{", b"}", b":", b"\\")
"""What the duplicate finder visits (:func:`_first_duplicate`)."""
_SPARSE: Final = 512
"""Member names are not clearly dense (:func:`_sparse_names`) at one such byte per this many
bytes or fewer in the sampled windows."""
_BUDGET: Final = 4096
"""The finder gives up past one such byte per this many bytes of the text ..."""
_SLACK: Final = 64
"""... and this many more (the envelope's and a short head's names)."""
_WHITESPACE: Final = b" \t\r\n"
_BACKSLASH: Final = ord("\\")
_LONG_NUMBER: Final = 4000
"""A run of this many digits may be an integer jiter refuses (it reads at most 4300)."""
_DIGITS: Final = bytes.maketrans(b"123456789", b"000000000")


def _import_jiter(data: bytes, **options: Any) -> Any:
    """jiter's ``from_json``, imported by the strict reader's first read, which it then calls
    directly: the common answers never need it (the fast path proves them), so an import of
    classify does not pay for it (~0.6 ms)."""
    global _from_json  # noqa: PLW0603 - replaced once, by the library's own function
    import jiter
    _from_json = jiter.from_json
    return _from_json(data, **options)


_from_json: Callable[..., Any] = _import_jiter
"""The strict reader: jiter's ``from_json`` once :func:`_import_jiter` has imported it."""


def _strict(data: bytes) -> Any:
    """jiter's strict read of ``data`` (its options spelled once, for the reader and for the
    duplicate finder's words)."""
    return _from_json(data, allow_inf_nan=False, cache_mode="none", catch_duplicate_keys=True)


def parse(raw: bytes | bytearray | memoryview | str, max_bytes: int, max_depth: int,
          explain: bool = True, skimmed: bool = False, utf8: bool = False) -> tuple[object, Finding | None]:
    """Parse one message. Returns ``(value, None)`` or ``(NOT_PARSED, finding)``; with
    ``explain=False``, ``(NOT_PARSED, None)`` for a wrong text, at no cost beyond the read.
    ``skimmed``: the caller has already skimmed this text (:func:`skim`) and found nothing;
    ``utf8``: the caller knows it is UTF-8 (the skim, or orjson's whole read, checked it), which
    an explanation then need not check again (:func:`_named`)."""
    # (a subclass's text read through str's own methods and the buffer protocol: none of its runs)
    if type(raw) is bytes:
        data = raw
    elif isinstance(raw, str):
        try:
            data = str.encode(raw, "utf-8")
        except UnicodeEncodeError as exc:
            return _NOT_PARSED, finding(
                "", "json.encoding",
                f"the text holds a lone surrogate (U+{ord(str.__getitem__(raw, exc.start)):04X}) at character "
                f"{exc.start}, which UTF-8 cannot encode") if explain else None
    else:
        data = bytes(memoryview(raw))
    if len(data) > max_bytes:  # (one byte past the limit: what a reader that stops there holds, no size)
        size = f"more than {max_bytes} bytes, the limit" if len(data) == max_bytes + 1 \
            else f"{len(data)} bytes; the limit is {max_bytes}"
        return _NOT_PARSED, finding("", "json.too_large", f"the message is {size}") if explain else None
    if len(data) > SKIM_BYTES and explain and not skimmed:
        problem = skim(data)
        if problem is not None:
            return _NOT_PARSED, problem
        utf8 = True  # (the skim checks it first)
    try:
        value = _strict(data)
    except ValueError as exc:  # (a byte order mark included: _named names it)
        if not explain:
            return _NOT_PARSED, None
        return _NOT_PARSED, _explain(data, str(exc), max_depth, utf8)
    return value, None


NOT_PARSED: Final = _NOT_PARSED
"""Sentinel returned in place of a value when the text could not be parsed."""


def read_strict(data: bytes) -> object:
    """The strict reader's value of ``data`` (within the size limit), or :data:`NOT_PARSED` on
    any wire error, left unexplained: for the fast path's proof on texts a write-back cannot
    prove."""
    return parse(data, len(data), PARSER_MAX_DEPTH, explain=False)[0]


def _dense(data: bytes) -> bool:
    """Whether the text's tokens are dense: more than one comma or colon per 16 bytes in eight
    windows of 4 KiB spread evenly over it (where building its values would cost several times
    its size)."""
    step = len(data) // _WINDOWS
    tokens = 0
    for start in range(0, step * _WINDOWS, step):
        tokens += data.count(b",", start, start + _WINDOW) + data.count(b":", start, start + _WINDOW)
    return tokens * 16 > _WINDOWS * _WINDOW


def not_utf8(data: bytes) -> Finding | None:
    """``json.encoding`` at the first byte where ``data`` fails to be UTF-8 (RFC 8259 section
    8.1), as ``bytes.decode`` names it, a block at a time (:func:`_utf8_error`); None when it is
    UTF-8, or starts with a byte order mark (named as jiter names it: ``json.bom``)."""
    if data.startswith(_BOM):
        return None
    problem = _utf8_error(data)
    return None if problem is None else finding("", "json.encoding", f"the message is not UTF-8: {problem}")


def skim(data: bytes, duplicates: bool = True) -> Finding | None:
    """Bytes that are no UTF-8 in ``data`` (checked first, a block at a time, whatever its
    tokens), or, where its tokens are dense, its syntax error as a finding, found without
    building any value, or, where it has none and its member names are sparse, its first
    repeated member name (with ``duplicates``; off, for measuring and for tests that compare
    with jiter alone); ``None`` when none is found, or when what is found is for jiter to
    explain (module docstring). For texts longer than :data:`SKIM_BYTES`, within the size limit."""
    problem = not_utf8(data)  # first, wherever the byte sits, as orjson checks it
    if problem is not None:
        return problem
    if not _dense(data):
        return None
    try:
        _RAW.decode(data)
    except msgspec.DecodeError as exc:
        reason = str(exc)
    except Exception:  # RecursionError: nesting past the skip's own limit, for jiter to measure
        return None
    else:  # well-formed but for what the skip cannot see: a repeated name, where names are sparse
        return _duplicate(data) if duplicates and _sparse_names(data) else None
    if reason == "Input data was truncated":
        if b"\\u" in data:  # the skip says this of a lone high surrogate escape as well
            return None
        offset, text = max(len(data) - 1, 0), "the text ends inside the value"  # its last byte, as jiter says
    else:
        match = re.fullmatch(_MALFORMED, reason)
        if match is None or "unicode escape" in match.group(1) or "surrogate" in match.group(1):
            return None  # a bad or lone-surrogate \\u escape: jiter names it
        text, offset = match.group(1), int(match.group(2))
        if text == "trailing characters":
            offset -= 1  # the skip names the byte after the first one
    path, deepest = _open_at(data, offset)
    if deepest > PARSER_MAX_DEPTH:  # jiter stops there first, and names the nesting
        return None
    return _named(data, text, offset, f" (byte {offset})", PARSER_MAX_DEPTH, path, utf8=True)


def read_duplicate(data: bytes) -> Finding | None:
    """The first repeated member name of a long text that orjson has read whole (so it is UTF-8
    and well-formed but maybe for a repeated name), found as :func:`skim` finds it where names
    are sparse (jiter's finding, in its words); ``None`` where names are dense, or none is found:
    the strict reader then reads the text."""
    return _duplicate(data) if _sparse_names(data) else None


def _sparse_names(data: bytes) -> bool:
    """Whether the text's member names may be sparse: at most one brace, colon or backslash
    per :data:`_SPARSE` bytes in eight windows of 4 KiB, one in the middle of each eighth of the
    text (where the envelope's names are not). Only what is clearly dense is told apart here;
    the search's own budget is the bound (a sample of 4 KiB windows cannot tell one name per
    4 KiB from one per 16 KiB: a periodic listing puts one in every window)."""
    step = len(data) // _WINDOWS
    events = 0
    for start in range((step - _WINDOW) // 2, step * _WINDOWS, step):
        for byte in _EVENTS:
            events += data.count(byte, start, start + _WINDOW)
    return events * _SPARSE <= _WINDOWS * _WINDOW


def _first_duplicate(data: bytes, budget: int) -> tuple[int, int, int] | None:
    """Where the first repeated member name of the well-formed text ``data`` is, in the order
    jiter reads it: ``(the byte after its colon, its opening quote, its closing quote)``;
    ``(-1, -1, -1)`` when no object repeats a name, ``None`` when more than ``budget`` braces,
    colons and backslashes were met first (or the text is not JSON after all).

    Only the braces, colons and backslashes are visited, each found by ``bytes.find`` in C, a
    block of :data:`_BLOCK` bytes at a time (four searches of the whole text one after the
    other, measured on 1 MiB listings, made the typed read after them ~5% slower; block by
    block, ~2%). Whether one is in a string is the parity of the quotes before it, counted in
    C from the one visited before it, or after it to the end where that is shorter and holds
    no backslash (a well-formed text's quotes pair up): a listing of short strings is not
    counted through. A backslash in a string skips the byte it escapes. Arrays are not
    followed: a member name always belongs to the innermost open object. Each open object keeps
    the set of its names (bytes as written; a name holding an escape decoded by jiter and
    encoded again), so memory is the open objects' names, at most ``budget`` of them."""
    find, count, rfind, end = data.find, data.count, data.rfind, len(data)
    stop = 0  # the end of the block read

    def following(byte: bytes, start: int) -> int:
        found = find(byte, start, stop)
        return stop if found < 0 else found

    opening = closing = colon = backslash = 0  # the next of each in the block, or its end
    last = 0  # the quotes before this byte have been counted
    inside = False  # ... and they leave the text inside a string
    escaped = -1  # the last escape's backslash
    names: set[bytes] | None = None  # the innermost open object's names
    stack: list[set[bytes] | None] = []
    while True:
        at = min(opening, closing, colon, backslash)
        if at >= stop:  # none left in the block: the next one
            if stop >= end:
                return -1, -1, -1
            begin = max(last, stop)
            stop = min(end, stop + _BLOCK)
            opening, closing, colon, backslash = (following(byte, begin) for byte in _EVENTS)
            continue
        budget -= 1
        if budget < 0:
            return None
        if at - last <= end - at or find(b"\\", at, end) >= 0:
            quote = find(b'"', last, at)  # memchr, where count reads byte by byte: count from the first
            if quote >= 0 and count(b'"', quote, at) & 1:
                inside = not inside
        else:  # the quotes after it, fewer to count
            inside = bool(count(b'"', at, end) & 1)
        if at == backslash:
            if not inside:
                return None
            escaped, last = at, at + 2
            backslash = following(b"\\", last)
            if opening < last:
                opening = following(b"{", last)
            if closing < last:
                closing = following(b"}", last)
            if colon < last:
                colon = following(b":", last)
            continue
        last = at + 1
        if at == opening:
            opening = find(b"{", last, stop)
            if opening < 0:
                opening = stop
            if not inside:
                stack.append(names)
                names = set()
            continue
        if at == closing:
            closing = find(b"}", last, stop)
            if closing < 0:
                closing = stop
            if not inside:
                if not stack:
                    return None
                names = stack.pop()
            continue
        colon = find(b":", last, stop)
        if colon < 0:
            colon = stop
        if inside:
            continue
        if names is None:
            return None
        close = at - 1
        while data[close] in _WHITESPACE:
            close -= 1
        start = rfind(b'"', 0, close)
        if escaped >= start - 1:  # that quote may be escaped: the name opens at the first one not
            while data[start - 1] == _BACKSLASH:
                before = start - 1
                while data[before] == _BACKSLASH:
                    before -= 1
                if (start - 1 - before) % 2 == 0:
                    break
                start = rfind(b'"', 0, start)
        if escaped > start:  # an escape in the name: decoded by jiter
            try:
                name = _from_json(data[start:close + 1]).encode("utf-8", "surrogatepass")
            except ValueError:  # bad UTF-8 in it: for jiter to name
                return None
        else:
            name = data[start + 1:close]
        if name in names:
            return at + 1, start, close
        names.add(name)


def _duplicate(data: bytes) -> Finding | None:
    """The finding jiter gives for the first repeated member name of the well-formed long text
    ``data`` (:func:`_first_duplicate`), found without building its values; ``None`` where it
    has none, where the search gave up, or where jiter would stop before that name: a byte
    order mark, bad UTF-8 in a string before it, an integer of thousands of digits before it
    (jiter: "number out of range"), or nesting deeper than jiter reads."""
    found = _first_duplicate(data, len(data) // _BUDGET + _SLACK)
    if found is None or found[0] < 0 or data.startswith(_BOM):
        return None
    after, start, close = found
    offset = after + (data[after:after + 1] == b"\n")  # jiter counts a newline's byte on the next line, column 0
    if _long_number(data, after):  # (bad UTF-8 anywhere: named by the skim before it searches)
        return None
    path, deepest = _open_at(data, offset)
    if deepest > PARSER_MAX_DEPTH:
        return None
    name = data[start:close + 1]
    try:  # jiter's own words for this name: the same name twice in a small object
        _strict(b"{" + name + b":0," + name + b":0}")
    except ValueError as exc:
        reason = str(exc)
    else:
        return None
    return _named(data, reason[:reason.rfind(" at line ")], offset, f" (byte {offset})", PARSER_MAX_DEPTH, path,
                  utf8=True)


def _long_number(data: bytes, end: int) -> bool:
    """Whether the text before ``end`` holds a run of :data:`_LONG_NUMBER` digits or more,
    looked for a block at a time (blocks overlapping by that many bytes)."""
    run = b"0" * _LONG_NUMBER
    return any(data[start:min(end, start + _BLOCK + _LONG_NUMBER)].translate(_DIGITS).find(run) >= 0
               for start in range(0, end, _BLOCK))


def _explain(data: bytes, reason: str, max_depth: int, utf8: bool = False) -> Finding:
    """Turn jiter's error into a finding at the JSON pointer where it happened (``utf8``: the
    text is known to be UTF-8, :func:`_named`)."""
    match = re.search(_POSITION, reason)
    if match is None:
        return _named(data, reason, 0, "", max_depth, utf8=utf8)
    offset = _offset(data, int(match.group(1)), int(match.group(2)))
    return _named(data, reason[: match.start()], offset, f" (byte {offset})", max_depth, utf8=utf8)


def _named(data: bytes, text: str, offset: int, where: str, max_depth: int, path: str | None = None,
           utf8: bool = False) -> Finding:
    """The finding for a reader's error ``text`` at byte ``offset`` (``where`` names that byte,
    or is empty when the reader gave none), jiter's and the skim's alike; ``path`` is the JSON
    pointer at ``offset`` when the caller has walked there already (else it is walked to only
    where the finding names it). A text that is no UTF-8 is named so first, whatever the reader
    met before the byte (RFC 8259 section 8.1: it is no JSON text at all; the skim and the fast
    path's readers name it first alike), unless ``utf8`` says it is (the skim checked it)."""

    def at() -> str:
        return _locate(data, offset) if path is None else path

    if data.startswith(_BOM):  # jiter reads no byte order mark either: it is named here
        return finding("", "json.bom", "the message starts with a UTF-8 byte order mark")
    if not utf8:
        problem = _utf8_error(data)
        if problem is not None:
            return finding("", "json.encoding", f"the message is not UTF-8: {problem}")
    if text.startswith("Detected duplicate key"):
        return finding(at(), "json.duplicate_key", f"{text.replace('Detected d', 'd', 1)}{where}")
    if text == "recursion limit exceeded":
        return finding(at(), "json.too_deep", f"the value nests deeper than the limit of {max_depth} levels{where}")
    if text == "trailing characters":
        return finding("", "json.trailing_data", f"data follows the JSON value{where}")
    if "surrogate" in text or "hex escape" in text or "unicode code point" in text:
        return finding(at(), "json.encoding", f"a string escapes a lone surrogate, which UTF-8 cannot carry{where}")
    return finding(at(), "json.syntax", f"not standard JSON: {text}{where}")


def _offset(data: bytes, line: int, column: int) -> int:
    """Byte offset of jiter's 1-based line and byte column: newlines are counted a block at a
    time, in C."""
    start = 0
    need = line - 1
    while need > 0 and start < len(data):
        end = min(len(data), start + _BLOCK)
        lines = data.count(b"\n", start, end)
        if lines < need:
            need -= lines
            start = end
            continue
        start = end - len(data[start:end].split(b"\n", need)[-1])
        break
    return min(len(data), start + max(column - 1, 0))


def _utf8_error(data: bytes | bytearray | memoryview, end: int | None = None) -> str | None:
    """Where ``data`` (or its bytes before ``end``) first fails to be UTF-8 (as ``bytes.decode``
    says it), decoded a block at a time so that no copy of the text is held (a block's str at
    most); ``None`` if it is UTF-8. A block's last character may be cut: the decoder leaves its
    bytes for the next block."""
    decode = codecs.utf_8_decode  # (an ASCII block at ~40 us per MiB: bytes.isascii first saves little)
    step = _BLOCK  # (a 64 KiB block's str at most, 0.06x a 1 MiB text; 256 KiB ones cost the same time)
    size = len(data) if end is None else end
    if size == len(data) <= step:  # one block, decoded as it is (~0.6 us less than through a view)
        try:
            decode(data, "strict", True)
        except UnicodeDecodeError as exc:
            return f"{exc.reason} at byte {exc.start}"
        return None
    view = memoryview(data)
    start = 0
    while True:
        stop = min(size, start + step)
        try:
            used = decode(view[start:stop], "strict", stop == size)[1]
        except UnicodeDecodeError as exc:
            return f"{exc.reason} at byte {start + exc.start}"
        start += used
        if stop == size:
            return None


def _blocks(data: bytes, end: int) -> Iterator[tuple[int, int, bool, bytes]]:
    """The text before ``end`` a block at a time, as ``(start, stop, inside, plain)``:
    ``inside`` tells whether the block starts inside a string, ``plain`` is the block with
    every escape turned into two underscores (so every quote left delimits a string; lengths
    and places kept). A block never ends inside an escape."""
    start = 0
    inside = False
    while start < end:
        stop = min(end, start + _BLOCK)
        block = data[start:stop]
        if b"\\" in block:
            run = len(block) - len(block.rstrip(b"\\"))
            if run % 2 and stop < end:  # the block ends on an escape's backslash: take its character
                stop += 1
                block = data[start:stop]
            block = _plain(block)
        yield start, stop, inside, block
        if block.count(b'"') % 2:
            inside = not inside
        start = stop


def _plain(block: bytes) -> bytes:
    """``block`` with every escape two underscores: backslashes pair from the left, as JSON
    reads them (the block starts outside an escape)."""
    return block.replace(b"\\\\", b"__").replace(b'\\"', b"__") if b"\\" in block else block


def _tokens(block: bytes, inside: bool) -> bytes:
    """The structural tokens of a block, one byte each: the brackets, commas and colons outside
    strings, and a quote where a string opens. Split on quotes :data:`_PIECES` bytes at a time:
    a block of short strings splits into pieces of about 30 times its size."""
    if len(block) > _PIECES and b'"' in block:
        parts = []
        for start in range(0, len(block), _PIECES):
            part = block[start:start + _PIECES]
            parts.append(_tokens(part, inside))
            if part.count(b'"') % 2:
                inside = not inside
        return b"".join(parts)
    if b'"' not in block:  # all inside one string, or no string at all
        return b"" if inside else block.translate(None, _NOT_TOKEN)
    pieces = block.split(b'"')
    outside = pieces[1 if inside else 0::2]
    marked = b'"'.join(outside)
    if outside and (len(pieces) - 1 + inside) % 2:  # the block ends inside a string it opened
        marked += b'"'
    return marked.translate(None, _NOT_TOKEN)


def _collapse(tokens: bytes, innermost: re.Pattern[bytes]) -> tuple[bytes, int]:
    """A block's tokens with the containers it closes taken out where they repeat, and the
    greatest height taken out (0: none). A container holding no bracket becomes its quotes
    (each the opening of one of its strings: the strings' numbering is kept) and a digit, its
    height (1, or one more than the greatest digit in it): what the walk needs of it (its
    strings, one element of its parent, how deep it went), none of its commas and colons. Each
    shape is taken out everywhere in the block by one ``bytes.replace`` in C, up to
    :data:`_SHAPES` shapes (a listing of records of one shape is one or a few, its envelope a
    few more) and heights up to :data:`_MOST_HEIGHT`: the walk in Python visits what is left
    (~0.5 us a bracket)."""
    height = 0
    for _ in range(_SHAPES):
        match = innermost.search(tokens)
        if match is None:
            break
        group = match.group()
        inner = next((level for level in range(height, 0, -1) if _HEIGHTS[level] in group), 0)
        if inner == _MOST_HEIGHT:
            break  # deeper: left to the walk
        tokens = tokens.replace(group, b'"' * group.count(b'"') + _HEIGHTS[inner + 1])
        height = max(height, inner + 1)
    return tokens, height


def _has_bracket(tokens: bytes) -> bool:
    """Whether a block's tokens hold a bracket: four searches in C, each faster than one
    regular expression scanning for the four (a block of commas is the common case)."""
    return b"[" in tokens or b"]" in tokens or b"{" in tokens or b"}" in tokens


def _locate(data: bytes, offset: int) -> str:
    """The JSON pointer of the innermost member or element open at ``offset``."""
    return _open_at(data, offset)[0]


def _open_at(data: bytes, offset: int) -> tuple[str, int]:
    """(the JSON pointer of the innermost member or element open at ``offset``, the deepest
    nesting met before it).

    One forward pass over the text before ``offset`` (error path only), in blocks of
    :data:`_BLOCK` bytes: each block is reduced in C to its structural tokens (strings become
    one quote each), the containers it closes are taken out where they repeat
    (:func:`_collapse`: a listing of small objects walked 8x ``orjson.loads``' time, now a
    tenth of that), and only the brackets left are walked in Python, keeping the open containers:
    for an array the index of the current element (its commas counted in C), for an object the
    number of the string that names the current member (none from the comma that closes a member
    to the colon after the next name: a fault in a name, or a comma with no name after it, is the
    object's, not the member's before it). The names are read from the text at
    the end, one string each. Time linear in the text, memory one block and the open
    containers (at most :data:`PARSER_MAX_DEPTH`).
    """
    stack: list[list[Any]] = []  # [is_object, element index | number of the member name's string | None]
    deepest = 0
    strings = 0  # strings opened so far
    after_string = False  # the last token read is a string
    blocks: list[tuple[int, int, bool, int]] = []  # (start, stop, inside, strings before), to find names
    brackets = re.compile(_BRACKETS)
    innermost = re.compile(_INNERMOST)
    for start, stop, inside, block in _blocks(data, offset):
        blocks.append((start, stop, inside, strings))
        if not inside and stack and not stack[-1][0] and b'"' not in block and not _has_bracket(block):
            # a block of an array's elements, no string and no bracket in it (a listing of
            # numbers): only its commas count, and no token of it is a string
            commas = block.count(b",")
            stack[-1][1] += commas
            if commas or b":" in block:
                after_string = False
            continue
        tokens = _tokens(block, inside)
        if not tokens:
            continue
        tokens, collapsed = _collapse(tokens, innermost)
        for index, piece in enumerate(brackets.split(tokens) if _has_bracket(tokens) else (tokens,)):
            if index % 2:  # a bracket
                if piece == b"{":
                    stack.append([True, None])
                    deepest = max(deepest, len(stack))
                elif piece == b"[":
                    stack.append([False, 0])
                    deepest = max(deepest, len(stack))
                elif stack:
                    stack.pop()
            elif piece:  # the tokens between two brackets
                if collapsed:  # closed containers in it, each as deep as its digit
                    for height in range(collapsed, 0, -1):
                        if _HEIGHTS[height] in piece:
                            deepest = max(deepest, len(stack) + height)
                            break
                if stack:
                    top = stack[-1]
                    if top[0]:
                        colon = piece.rfind(b'":')
                        if colon >= 0:
                            top[1] = strings + piece.count(b'"', 0, colon)
                        elif index == 0 and after_string and piece[:1] == b":":  # a name ending in the last block
                            top[1] = strings - 1
                            colon = 0
                        if piece.rfind(b",") > colon:  # the member closed, the next one's name not yet read:
                            top[1] = None  # the object itself is open there (a fault in a name is the object's)
                    else:
                        top[1] += piece.count(b",")
                strings += piece.count(b'"')
        after_string = tokens[-1:] == b'"'
    path = ""
    for is_object, key in stack:
        if key is None:
            break
        path = pointer(path, _name(data, blocks, key) if is_object else key)
    return path, deepest


def _name(data: bytes, blocks: list[tuple[int, int, bool, int]], number: int) -> str:
    """The member name held by the string numbered ``number`` (from 0) in the text."""
    # The error path's modules, imported here so that an import of classify does not pay for
    # them: bisect ~0.3 ms; orjson with its json ~1.7 ms (the first write-back imports orjson).
    import bisect
    import json

    import orjson

    start, stop, inside, before = blocks[bisect.bisect_right(blocks, number, key=lambda b: b[3]) - 1]
    block = _plain(data[start:stop])
    pieces = block.split(b'"', 2 * (number - before + 1))
    opening = 2 * (number - before) + inside  # the opening quote follows this piece
    where = start + sum(map(len, pieces[:opening + 1])) + opening
    match = re.compile(_STRING, re.DOTALL).match(data, where)
    token = match.group() if match else data[where:where + 1]
    try:
        key = orjson.loads(token)  # ~10x json.loads on a short string (error path only)
    except orjson.JSONDecodeError:
        try:
            key = json.loads(token)  # what orjson refuses and json reads: a lone surrogate's escape
        except ValueError:
            key = token.decode("utf-8", "replace")[1:-1]
    return key if isinstance(key, str) else str(key)


__all__ = ["NOT_PARSED", "PARSER_MAX_DEPTH", "SKIM_BYTES", "parse", "read_duplicate", "read_strict",
           "skim"]  # the bounds: from _options
