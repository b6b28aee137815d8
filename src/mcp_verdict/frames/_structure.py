"""The structure of a frame, read in C a block at a time: its strings, its brackets and the depth
they make, and the top-level members named ``"id"`` (:func:`_member_blocks`, which the id scan of
``_jsonrpc`` reads), with the view of a block each scan reads (:func:`_outside`, :func:`_plain`;
other marks than the ids' by :class:`Marks`, as ``_request_ids`` makes them) and the token scan of
strings and brackets the tests compare them with (:data:`_TOKENS`). No value is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import accumulate, chain, compress, count, repeat
from operator import add, eq, mul, sub
from typing import Final, Protocol

# Strings and brackets, as the scans of a frame read them a block at a time (_outside; the id
# scan, and frames/_request_ids for proxy/_codes.py): a Python step per match read it before,
# and the tests compare the scans with it.
_TOKENS: Final = re.compile(rb'"(?:[^"\\]++|\\.)*+"?|[{}\[\]]', re.DOTALL)


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
