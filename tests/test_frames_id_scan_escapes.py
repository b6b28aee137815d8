"""The id of a frame no strict parser reads, where escapes and quotes fill its strings
(frames/_jsonrpc.py ``peek``, ``id_text``; the scan's blocks: ``frames._structure._outside``). A block of the scan
ends past an escape's backslash and past a member named ``"id"`` and its colon; where each byte
is a backslash or a quote (``\\"`` repeated), that end was found a byte or three at a time, a
Python step per two bytes of the frame (a cut frame of 1.4 MB: 0.8 s; 64 MiB: ~33 s). The house
rule: bad input gets a clear answer in bounded time and memory. JSON-RPC 2.0 s4, s5 (an id);
RFC 8259 s7 (strings: a backslash escapes the byte after it, ``\\\\`` a backslash, ``\\"`` a
quote). Expected values are written by hand.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_verdict.frames import _structure, peek
from mcp_verdict.frames._jsonrpc import id_text
from mcp_verdict.frames._structure import _id_members, _outside, _plain

from ._calls import python_steps
from ._scan_blocks import scan_blocks

BLOCK = 1 << 16
HEAD = b'{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"'
TRUNCATED = "JSON is malformed: input data was truncated"  # (msgspec's words: a frame past 1 MiB)
MIB = 1 << 20


def _cut(piece: bytes, size: int = 2 * MIB) -> bytes:
    """HEAD then ``piece`` repeated to about ``size`` bytes: a frame cut inside a string."""
    return HEAD + piece * (size // len(piece))


# (name, frame, (kind, has_id, id, problem)): each passes on the code before the fix too
CONTRACT: list[tuple[str, bytes, tuple[str, bool, Any, str | None]]] = [
    # cut inside the text string (past 1 MiB: msgspec's words)
    ("escaped quotes", _cut(b'\\"'), ("unreadable", True, 6, TRUNCATED)),
    ("three escaped backslashes then an escaped quote", _cut(b'\\\\\\\\\\\\\\"'), ("unreadable", True, 6, TRUNCATED)),
    ("escaped ids and colons", _cut(b'\\"id\\":7,'), ("unreadable", True, 6, TRUNCATED)),
    ("escaped brackets and ids", _cut(b'[{\\"id\\":8}]'), ("unreadable", True, 6, TRUNCATED)),
    ("backslashes only, an even count", _cut(b"\\\\"), ("unreadable", True, 6, TRUNCATED)),
    ("backslashes only, an odd count", _cut(b"\\\\") + b"\\", ("unreadable", True, 6, TRUNCATED)),
    ("letters", _cut(b"a"), ("unreadable", True, 6, TRUNCATED)),
    # the string closes: empty strings follow, one per two quotes (msgspec stops at the first)
    ("a quote every byte", _cut(b'"'), ("unreadable", True, 6, "JSON is malformed: expected ',' or '}' (byte 69)")),
    # an escaped backslash closes the string with its quote, then a backslash outside a string
    # (RFC 8259 s7: no JSON text holds one; the scan steps over it)
    ("an escaped backslash and a quote", _cut(b'\\\\"'),
     ("unreadable", True, 6, "JSON is malformed: expected ',' or '}' (byte 71)")),
    # a member after the escapes, the frame cut after it (the last top-level id is read)
    ("an id after escaped quotes", b'{"a":"' + b'\\"' * MIB + b'","id":9,"b":', ("unreadable", True, 9, TRUNCATED)),
    ("an id after backslash runs", b'{"a":"' + b'\\\\\\\\\\"' * 300_000 + b'","id":"k","b":[',
     ("unreadable", True, "k", TRUNCATED)),
    # (backslashes paired, then an escaped quote: "id is text, its closing quote closes the string)
    ("an escaped quote before id", b'{"a":"' + b"\\\\" * MIB + b'\\"id":9,"b":1',
     ("unreadable", False, None, "JSON is malformed: expected ',' or '}' (byte 2097163)")),
    # whole frames
    ("whole, escaped quotes", HEAD + b'\\"' * MIB + b'"}]}}', ("response", True, 6, None)),
    ("whole, a NaN after escaped quotes", b'{"a":"' + b'\\"' * MIB + b'","id":5,"x":NaN}',
     ("unreadable", True, 5, "JSON is malformed: invalid character (byte 2097171)")),
    # under a block and under 1 MiB (orjson's words)
    ("small, escaped quotes", b'{"id":3,"a":"' + b'\\"' * 100, ("unreadable", True, 3,
     "unexpected end of data: line 1 column 214 (char 213)")),
]


@pytest.mark.parametrize(("frame", "expected"), [c[1:] for c in CONTRACT], ids=[c[0] for c in CONTRACT])
def test_peek_a_frame_of_escapes(frame: bytes, expected: tuple[str, bool, Any, str | None]) -> None:
    look = peek(frame)
    assert (look.kind, look.has_id, look.id, look.problem) == expected


# a member named "id" across the end of the scan's first block, escapes before it
@pytest.mark.parametrize("offset", range(20))
@pytest.mark.parametrize(("piece", "expected"), [
    (b'","id":44,"x":NaN}', (True, 44)),
    (b'","id"   :45,"x":NaN}', (True, 45)),
    (b'\\","id":46,"x":NaN}', (False, None)),  # an escaped quote: "id" is text
    (b'\\\\","id":47,"x":NaN}', (True, 47)),  # an escaped backslash, then the string's quote
    (b'","x":"a"id":48,"y":NaN}', (False, None)),  # the quote before id closes the string "a"
    (b'","id"id":49,"y":NaN}', (False, None)),  # a string "id", then id": opens a string
    (b'","x":"a"id"id":50,"y":NaN}', (True, 50)),  # a string "a", id, then a member "id"
])
def test_an_id_across_a_block_after_escaped_quotes(offset: int, piece: bytes, expected: tuple[bool, Any]) -> None:
    head = b'{"pad":"'
    fill = BLOCK - offset - len(head)
    frame = head + b'\\"' * (fill // 2) + b"a" * (fill % 2) + piece
    look = peek(frame)
    assert (look.kind, look.has_id, look.id) == ("unreadable", *expected)


# a frame of 4 blocks of each piece, cut inside its string: a Python step per block, not per byte
@pytest.mark.parametrize("piece", [
    b'\\"',  # escaped quotes
    b'\\\\\\"',  # an escaped backslash, then an escaped quote
    b'\\"id\\":',  # escaped names
    b'\\"id\\"   :',  # escaped names with blanks
    b"\\",  # backslashes
    b'\\"\\\\',  # alternating escapes
    b'{[\\"',  # brackets and escaped quotes
])
def test_reading_the_id_of_a_cut_frame_of_escapes_takes_python_steps_per_block(piece: bytes) -> None:
    frame = _cut(piece, 4 * BLOCK)
    steps, text = python_steps(lambda: id_text(frame))
    assert text == b"6"
    assert steps < 2_000, steps  # (the loop of the code before: ~7 a two bytes, ~980,000)


# --- the scan's blocks against a byte-by-byte reading ------------------------------------------

_NAME = re.compile(rb'\s*:')


def _reference(data: bytes, ids: bool) -> tuple[list[bool], bytes, list[int]]:
    """A byte at a time (RFC 8259 s7: in a string, a backslash escapes the byte after it; outside
    one, where no JSON text has it, it is a byte like any other): (whether each place is inside a
    string; the brackets outside strings, each name ``"id"`` a colon follows as byte 0 (with
    ``ids``); where each such name at depth 1 starts)."""
    inside_at: list[bool] = []
    tokens = bytearray()
    members: list[int] = []
    inside = escape = False
    depth = 0
    for at, byte in enumerate(data):
        inside_at.append(inside)
        if inside:
            if escape:
                escape = False
            elif byte == 0x5C:
                escape = True
            elif byte == 0x22:
                inside = False
        elif byte == 0x22:
            inside = True
            if ids and data.startswith(b'"id"', at) and _NAME.match(data, at + 4) is not None:
                tokens.append(0)
                if depth == 1:
                    members.append(at)
        elif byte in b"[{":
            tokens.append(byte)
            depth += 1
        elif byte in b"]}":
            tokens.append(byte)
            depth -= 1
    inside_at.append(inside)
    return inside_at, bytes(tokens), members


STRAY_AS_ESCAPED = bytes.maketrans(b"\x04", b"\x01")
_PIECES = [b"\\", b'"', b"a", b"{", b"}", b"[", b"]", b",", b":", b"1", b"id", b" ", b'"id"', b'"id":']
_OUTSIDE = [b"{", b"}", b"[", b"]", b",", b":", b"1", b" ", b"a", b'"id"', b'"id":', b'"id" :', b'id"id":',
            b'"id"id" :']
_INSIDE = [b"\\\\", b'\\"', b"\\", b"a", b"{", b"]", b"id", b'\\"id\\":', b" ", b":", b'\\u0022']
_FRAMES = st.one_of(
    # any bytes of the alphabet (most hold a backslash outside a string)
    st.lists(st.sampled_from(_PIECES), max_size=600).map(b"".join),
    # strings of escapes between members and brackets (a lone backslash may escape the closing quote)
    st.lists(st.one_of(st.sampled_from(_OUTSIDE),
                       st.lists(st.sampled_from(_INSIDE), max_size=40).map(lambda text: b'"' + b"".join(text) + b'"')),
             max_size=60).map(b"".join),
)


# (frame, where each top-level "id" member's name starts), read with blocks of every size
MEMBERS: list[tuple[bytes, list[int]]] = [
    (b'{"x"id"id":5', [6]),  # a string "x", id, then a member (its quote is after a "id")
    (b'{"id"id":5', []),  # a string "id", then id": opens a string
    (b'{"a":"\\"","id" :1', [10]),  # an escaped quote, the string's own, then a spaced member
    (b'{"a":"\\\\","id"\t\n:1', [10]),  # an escaped backslash, the string's quote, then a member with blanks
    (b'{"a":"\\\\\\"id\\":1', []),  # an escaped backslash and an escaped quote: text
    (b'{"a":"\\"id":1,"id":2', [14]),  # "id is text of the string the next quote ends; then a member
    (b'{"a":{"id":1},"id":2', [14]),  # nested one level down, then a member
]


@pytest.mark.parametrize(("frame", "members"), MEMBERS)
def test_the_members_named_id_whatever_the_blocks(frame: bytes, members: list[int]) -> None:
    for size in range(1, len(frame) + 1):
        with scan_blocks(size):
            assert _id_members(frame) == members, size


@settings(max_examples=500, deadline=None)
@given(_FRAMES, st.integers(0, 5000), st.integers(1, 20), st.booleans())
def test_the_blocks_read_a_frame_as_a_byte_at_a_time(whole: bytes, cut: int, size: int, ids: bool) -> None:
    data = whole[:cut]
    inside_at, tokens, members = _reference(data, ids)
    with scan_blocks(size):
        blocks = list(_outside(data, ids))
        # the blocks follow each other, each starts where the byte-by-byte reading is in a string
        # or not, and their views are the frame's (a backslash outside a string, a plain byte
        # there, made 1 or 4 as the block is read)
        starts = [start for start, *_ in blocks]
        assert starts == [sum(len(view) for _, view, _, _ in blocks[:n]) for n in range(len(blocks))]
        assert b"".join(view for _, view, _, _ in blocks).translate(STRAY_AS_ESCAPED) \
            == _plain(data, ids).translate(STRAY_AS_ESCAPED)
        assert [inside for _, _, _, inside in blocks] == [inside_at[start] for start, *_ in blocks]
        outside = b"".join(out for _, _, out, _ in blocks)
        assert outside.translate(None, _structure._NOT_STRUCTURE) == tokens
        if ids:
            assert _id_members(data) == members
