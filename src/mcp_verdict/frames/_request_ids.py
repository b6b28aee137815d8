"""Where the ``requestId`` members of a ``notifications/cancelled``'s top-level ``params`` object
are in its bytes (:func:`request_id_spans`), found in C a block at a time as ``_structure`` finds the
top-level ``"id"`` members (``_outside``: escapes paired, strings split on their quotes, the depth
counted by C iterators), where a regular expression of strings and brackets took a Python step
per token (8 MiB of small objects in ``_meta``: ~0.8 s, ~3.5 times orjson's read of it).

The frame is read as that token scan reads it (``_structure._TOKENS``: a backslash outside a string
a byte like any other): a ``"params"`` string at depth 1 (brackets outside strings counted) whose
value is an object (a colon, then ``{`` past blanks) opens a params object, which ends where the
depth falls below 2; a ``"requestId"`` string at depth 2 in one, a colon after it, is a member.

In the view of a block, each ``"params"`` name whose value is an object has its two quotes made
:data:`_FILL` bytes and its ``{`` :data:`_OPEN` (the strings around it are delimited as before, and
the ``{`` is outside a string exactly when the name's first quote opened one), and each
``"requestId"`` a colon follows is a mark (its first byte ``\\x00``, the rest ``\\x02``). A block
ends past what may be either and what follows it up to the colon or the ``{``.
"""

from __future__ import annotations

import re
from functools import partial
from itertools import accumulate, chain, compress, count, repeat
from operator import eq, methodcaller, mul, ne, sub
from typing import Final

from ._jsonrpc import _ID_VALUE
from ._structure import _BLANKS_RE, _COLON, _fall, _marks_outside, _outside, _plain, _run_before

__all__ = ["request_id_spans", "request_id_text"]

_PARAMS: Final = b'"params"'
_REQUEST_ID: Final = b'"requestId"'
_MARK: Final = b"\x00"
_OPEN: Final = b"\x05"
"""A ``{`` that opens the value of a member named ``"params"``, in the view."""
_FILL: Final = b"\x02"
_PARAMS_OPEN: Final = re.compile(rb'"params"(\s*:\s*)\{')
_PARAMS_VIEW: Final = _FILL * len(_PARAMS) + rb"\1" + _OPEN
_OBJECT_AFTER: Final = re.compile(rb"\s*:\s*\{")
_SPACED_REQUEST_ID: Final = re.compile(rb'"requestId"(?=\s*:)')
_REQUEST_ID_MARK: Final = _MARK + _FILL * (len(_REQUEST_ID) - 1)
_CLEAN_OPEN: Final = bytes.maketrans(_OPEN, b"_")
_NOT_TOKEN: Final = bytes(b for b in range(256) if b not in b"[]{}\x00\x05")
_STEPS: Final = bytes.maketrans(b"[{\x05]}\x00", b"\x02\x02\x02\x00\x00\x01")
"""A token as 1 + the change of depth it makes."""
_NOT_CLOSING: Final = bytes.maketrans(b"[{\x05]}\x00", b"\x01\x01\x01\x00\x00\x01")
_IS_MARK: Final = bytes.maketrans(b"[{\x05]}\x00", b"\x00\x00\x00\x00\x00\x01")
_OPENERS: Final = bytes.maketrans(b"[{", b"||")


class _Marks:
    """The view of :func:`request_id_spans` (``_structure.Marks``)."""

    @staticmethod
    def block_end(data: bytes, start: int, end: int) -> int:
        """``_structure._block_end`` for these marks: past an escape's backslash, then past a name
        ``"params"`` that a colon and ``{`` follow or ``"requestId"`` that a colon follows, when the
        block would cut it or what follows it. A constant number of Python steps (runs measured
        in C)."""
        size = len(data)
        if end >= size:
            return size
        if _run_before(data, start, end, b"\\") % 2:  # (an escape's backslash: its byte too)
            end += 1
        back = end - _run_before(data, start, end, _BLANKS_RE)
        if back > start and data[back - 1] == 0x3A:  # (a colon: the blanks before it too)
            back -= 1 + _run_before(data, start, back - 1, _BLANKS_RE)
        for name, after in ((_PARAMS, _OBJECT_AFTER), (_REQUEST_ID, _COLON)):
            for at in (back - len(name), *range(end - len(name) + 1, end)):
                if at >= start and data.startswith(name, at):
                    found = after.match(data, at + len(name))
                    if found is not None and found.end() > end:
                        return min(size, found.end())
        return min(size, end)

    @staticmethod
    def view(block: bytes, inside: bool) -> bytes:
        """``_structure._plain``'s view (no ``"id"`` marks), :data:`_OPEN` made ``_`` first, marked."""
        view = _plain(block.translate(_CLEAN_OPEN) if _OPEN in block else block, False, inside)
        if _PARAMS in view:
            view = view.replace(b'"params":{', _FILL * len(_PARAMS) + b":" + _OPEN)
            if _PARAMS in view:
                view = _PARAMS_OPEN.sub(_PARAMS_VIEW, view)
        if _REQUEST_ID in view:
            view = view.replace(b'"requestId":', _REQUEST_ID_MARK + b":")
            if _REQUEST_ID in view:
                view = _SPACED_REQUEST_ID.sub(_REQUEST_ID_MARK, view)
        return view


_MARKS: Final = _Marks()


def request_id_members(data: bytes) -> list[int]:
    """Where each ``"requestId"`` member of a top-level ``params`` object starts (its first
    quote), in order (module docstring). Linear time, a constant number of Python steps a block;
    memory: a block's and a place per member."""
    if _REQUEST_ID not in data or _PARAMS not in data:
        return []
    found: list[int] = []
    depth = 0
    inside = False  # (in a params object)
    for start, block, outside, was in _outside(data, False, _MARKS):
        tokens = outside.translate(None, _NOT_TOKEN)
        size = len(tokens)
        steps = tokens.translate(_STEPS)
        after = depth + sum(steps) - size
        if _OPEN not in tokens and (not inside or _MARK not in tokens):
            # (no params object opens: one the block starts in ends where the depth falls below 2)
            inside = inside and (depth - _fall(tokens) >= 2
                                 or depth + min(map(sub, accumulate(steps), count(1)), default=0) >= 2)
            depth = after
            continue
        # (the depth after each token: depth + sum(steps[:i+1]) - (i+1))
        depths = list(map(sub, accumulate(steps), count(1 - depth)))
        # (the tokens at depth 2 but closing brackets: the openers from depth 1, and marks)
        picked = bytes(compress(tokens, map(mul, map(eq, depths, repeat(2)), tokens.translate(_NOT_CLOSING))))
        # (a piece per opener from depth 1, its marks after it: in a params object when it is _OPEN;
        # the marks before the first, when the block starts in one)
        pieces = picked.translate(_OPENERS).replace(_OPEN, b"|" + _OPEN).split(b"|")
        heads = [inside, *map(bytes.startswith, pieces[1:], repeat(_OPEN))]
        sizes = [len(pieces[0]), *map(sub, map(len, pieces[1:]), heads[1:])]
        at_two = compress(count(), map(eq, compress(depths, tokens.translate(_IS_MARK)), repeat(2)))
        numbers = list(compress(at_two, chain.from_iterable(map(repeat, heads, sizes))))
        if numbers:
            found += map(start.__add__, _marks_outside(block, was, numbers, tokens.count(_MARK)))
        inside = heads[-1] and after >= 2
        depth = after
    return found


def request_id_spans(data: bytes) -> list[tuple[int, int]]:
    """Where the value of each ``requestId`` member of a top-level ``params`` object is in
    ``data`` when it is a number, a string or null (``,`` or ``}`` after it), in order (in C
    iterators: no Python step a member)."""
    values = filter(None, map(_ID_VALUE.match, repeat(data), map(len(_REQUEST_ID).__add__, request_id_members(data))))
    return list(filter(partial(ne, (-1, -1)), map(methodcaller("span", 1), values)))  # ((-1, -1): no group 1)


def request_id_text(data: bytes) -> bytes | None:
    """The text of the value of the last ``requestId`` member of a top-level ``params`` object, as
    written, when it is a number, a string or null (``,`` or ``}`` after it); None when there is
    no member, or the last one's value is another (an object, a list) or cut short."""
    members = request_id_members(data)
    found = _ID_VALUE.match(data, members[-1] + len(_REQUEST_ID)) if members else None
    return None if found is None else found.group(1)
