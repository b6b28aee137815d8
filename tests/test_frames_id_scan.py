"""The id of a frame no strict parser reads (frames/_jsonrpc.py ``recover_id``, ``id_text``,
``id_spans``): the value of the last top-level ``"id"`` member, found by the brackets and strings
of the bytes, whatever else is wrong (NaN, a lone surrogate, a truncated line, duplicate keys).
JSON-RPC 2.0 s4 (an id is a string, a number or null), s5 (a response carries its request's id);
RFC 8259 s7 (strings, escapes). The scan reads a frame a block at a time in C (64 KiB blocks:
the large rows put a member, an escape or a bracket across a block's end); a backslash outside a
string is a byte like any other there (tests/test_frames_id_scan_stray.py). Expected values are
written by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict.frames import peek, recover_id
from mcp_verdict.frames._jsonrpc import id_spans, id_text

from ._calls import python_steps

BLOCK = 1 << 16
OBJECTS = b'{"id":12,"name":"n"},' * 100_000  # 2.1 MB of small objects, each with its own (nested) id

# (name, frame, recover_id)
RECOVERED: list[tuple[str, bytes, tuple[bool, Any]]] = [
    ("after a nested id", b'{"jsonrpc":"2.0","result":{"id":9,"x":NaN},"id":3}', (True, 3)),
    ("spaced", b'{"id" : 8 ,"x":NaN}', (True, 8)),
    ("blanks of every kind", b'{"id"\n:\t"q"\r,"x":NaN}', (True, "q")),
    ("the last of two", b'{"id":1,"x":NaN,"id":2}', (True, 2)),
    ("the last is an object", b'{"id":1,"x":NaN,"id":{}}', (False, None)),
    ("an id named in a string", b'{"result":"a\\"id\\":5","x":NaN}', (False, None)),
    ("a string ending in an escaped backslash", b'{"result":"a\\\\","id":4,"x":NaN}', (True, 4)),
    ("an escaped quote then an escaped backslash", b'{"r":"\\"\\\\","id":"k\\"","x":NaN}', (True, 'k"')),
    ("bytes 0, 1 and 2 in strings", b'{"x":"\x00id\x01\x02","id":6,"y":NaN}', (True, 6)),
    ("bytes 0, 1 and 2 outside strings", b'{\x00"id"\x01:\x02 6,"y":NaN}', (False, None)),
    ("a backslash outside a string", b'{\\"id":7,"x":NaN}', (True, 7)),
    ("two backslashes outside a string", b'{"a":\\\\"id":3}', (True, 3)),
    ("a backslash outside, an escape inside", b'{\\ "s":"\\"id\\":1","id":5,"x":NaN}', (True, 5)),
    ("cut short", b'{"jsonrpc":"2.0","id":"t","result":{"content":[{"ty', (True, "t")),
    ("a lone surrogate", b'{"id":"\\ud800","r":NaN}', (True, "\ud800")),
    ("not UTF-8 elsewhere", b'{"id":2,"r":"\xff"}', (True, 2)),
    ("id after a string that closes before it", b'{"a":"x"id":5,"b":NaN}', (False, None)),
    ("nested one level down", b'{"result":{"id":1},"x":NaN}', (False, None)),
    ("after more closing brackets than opening", b'{"a":[1]],"id":5,"x":NaN}', (False, None)),
    ("at the top of no object", b'"id":1', (False, None)),
    ("in an array", b'["id":4,"x":NaN]', (True, 4)),  # depth 1 is depth 1, whatever the bracket
    ("characters past ASCII", '{"é":"ü","id":2,"x":NaN}'.encode(), (True, 2)),
    ("a name with an escape", b'{"\\u0069d":7,"x":NaN}', (False, None)),
    ("an id with no colon", b'{"id" 7,"x":NaN}', (False, None)),
    # large: past a block of the scan
    ("after 2 MB of objects with ids", b'{"jsonrpc":"2.0","result":{"items":[' + OBJECTS + b'NaN]},"id":"z"}',
     (True, "z")),
    ("before 2 MB of objects with ids", b'{"jsonrpc":"2.0","id":-4,"result":{"items":[' + OBJECTS + b'NaN]}}',
     (True, -4)),
    ("brackets and ids in a long string", b'{"result":{"text":"' + b'[\\"id\\":1]{' * 50_000 + b'"},"x":NaN,"id":9}',
     (True, 9)),
    ("a backslash outside a string after 2 MB", b'{"items":[' + OBJECTS + b'1],\\"id":5,"x":NaN}', (True, 5)),
    # (a quote too many: each string after it is read as what lies between two, and the last
    # "id" is no string of its own)
    ("a stray quote then 2 MB", b'{"id":1,"a":"x""' + OBJECTS + b'"id":2}', (True, 1)),
]


@pytest.mark.parametrize(("frame", "expected"), [c[1:] for c in RECOVERED], ids=[c[0] for c in RECOVERED])
def test_recover_id(frame: bytes, expected: tuple[bool, Any]) -> None:
    assert recover_id(frame) == expected
    look = peek(frame)
    assert (look.kind, look.has_id, look.id) == ("unreadable", *expected)


def _across(offset: int, piece: bytes) -> bytes:
    """A frame whose ``piece`` starts ``offset`` bytes before the end of the scan's first block."""
    head = b'{"pad":"'
    return head + b"x" * (BLOCK - offset - len(head)) + piece


# a member, an escape or a bracket at each place across the end of a block
@pytest.mark.parametrize("offset", range(1, 9))
@pytest.mark.parametrize(("piece", "expected"), [
    (b'","id":44,"x":NaN}', (True, 44)),
    (b'\\"","id":45,"x":NaN}', (True, 45)),  # an escaped quote, then the string's own
    (b'\\\\","id":46,"x":NaN}', (True, 46)),  # an escaped backslash, then the string's quote
    (b'\\",\\"id\\":47,"x":NaN}', (False, None)),  # escaped all along: one string, cut short
    (b'","a":{"id":48},"x":NaN}', (False, None)),  # nested
    (b'[[[","id":49,"x":NaN}', (True, 49)),  # brackets in the string
])
def test_recover_id_across_a_block(offset: int, piece: bytes, expected: tuple[bool, Any]) -> None:
    assert recover_id(_across(offset, piece)) == expected


# (frame, the span of each top-level id's value)
SPANS: list[tuple[bytes, list[tuple[int, int]]]] = [
    (b'{"id":1,"x":NaN,"id" : "b"}', [(6, 7), (23, 26)]),
    (b'{"id":{},"r":{"id":2},"id":null}', [(27, 31)]),
    (b'{"id":1', []),  # no , or } after the value: cut short
    (b'{"r":"' + b"x" * BLOCK + b'","id":-7}', [(BLOCK + 13, BLOCK + 15)]),
]


@pytest.mark.parametrize(("frame", "spans"), SPANS)
def test_id_spans(frame: bytes, spans: list[tuple[int, int]]) -> None:
    assert id_spans(frame) == spans


def test_the_id_of_a_large_frame_is_found_in_c() -> None:
    # the token scan took a Python step per string or bracket: ~300,000 objects' worth here
    frame = b'{"jsonrpc":"2.0","result":{"items":[' + OBJECTS + OBJECTS + OBJECTS + b'NaN]},"id":"z"}'
    steps, text = python_steps(lambda: id_text(frame))
    assert text == b'"z"'
    assert steps < 20_000


# long runs across the end of a block: blanks between the name and its colon, backslashes
@pytest.mark.parametrize("offset", [2, 5, 40, 100, 103, 105, 190, 205])
@pytest.mark.parametrize(("piece", "expected"), [
    (b'","id"' + b" " * 100 + b':50,"x":NaN}', (True, 50)),
    (b'","id"' + b"\n" * 100 + b' 51 ,"x":NaN}', (False, None)),  # no colon
    (b"\\" * 200 + b'","id":52,"x":NaN}', (True, 52)),  # 100 escaped backslashes, then the string's quote
    (b"\\" * 201 + b'","id":53,"x":NaN}', (False, None)),  # ... then an escaped quote: the string goes on
])
def test_recover_id_across_a_block_long_runs(offset: int, piece: bytes, expected: tuple[bool, Any]) -> None:
    assert recover_id(_across(offset, piece)) == expected
