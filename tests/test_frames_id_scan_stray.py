"""The id of a frame with backslashes outside its strings, or many names ``"id"`` in and out of
strings (frames/_jsonrpc.py ``recover_id``, ``id_text``, ``peek``; the scan's blocks:
frames/_structure.py ``_outside``).
No JSON text holds a backslash outside a string (RFC 8259 s7: a backslash escapes the byte after it
in a string); the scan reads such a frame as a scan of its strings and brackets does, the backslash
a byte like any other there, so the id visible at the top level is still found (JSON-RPC 2.0 s4,
s5: an id, a response carries its request's id). The scan read such a frame token by token, a
Python step per string or bracket (8 MiB of ``\\\\"``: 0.57 s; a stray backslash then 8 MiB of
``[``: 1.47 s), and a block holding names ``"id"`` inside strings a Python step per name (40-55 ms
per MiB); the house rule is bad input answered in bounded time, a part of what orjson takes to read
a frame of that size. Expected values are written by hand; the rows about time count Python steps
(no timing).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_verdict.frames import peek, recover_id
from mcp_verdict.frames._jsonrpc import id_text
from mcp_verdict.frames._structure import _TOKENS, _id_members

from ._calls import python_steps
from ._scan_blocks import scan_blocks

BLOCK = 1 << 16
STRAY_STRINGS = b'\\"x",' * 20_000  # a stray backslash before each string (100 kB)
MIXED = b'\\"x","a\\"b",' * 10_000  # ... and an escaped quote in every other string


def _ids_in_strings(units: int) -> bytes:
    """``"a"id":`` repeated after a member ``"id":1``, then ``5}``: the first quote of the n-th
    ``"id"`` closes a string when n is odd (a name inside a string, its colon opening the next) and
    opens one when n is even (a member at depth 1)."""
    return b'{"id":1,"a":' + b'"a"id":' * units + b"5}"


# (name, frame, recover_id)
STRAY: list[tuple[str, bytes, tuple[bool, Any]]] = [
    # before the id member: ignored, whatever the run's length (outside a string the quote opens "id")
    ("a backslash before the name", b'{\\"id":7,"x":NaN}', (True, 7)),
    ("two backslashes before the name", b'{\\\\"id":7,"x":NaN}', (True, 7)),
    ("three backslashes before the name", b'{\\\\\\"id":7,"x":NaN}', (True, 7)),
    ("four backslashes before the name", b'{"a":1,\\\\\\\\"id":2,"x":NaN}', (True, 2)),
    ("a backslash and a blank before the name", b'{\\ "id":1,"x":NaN}', (True, 1)),
    ("a backslash before the colon", b'{"id"\\:7,"x":NaN}', (False, None)),  # (no colon after the name)
    ("a backslash after the value", b'{"id":7\\,"x":NaN}', (False, None)),  # (no , or } after the value)
    # in nested arrays: the depth counted past them
    ("in nested arrays", b'{"a":[[\\ 1,\\"x"],\\\\],"id":8,"b":NaN}', (True, 8)),
    ("before a bracket", b'{"a":\\[1],"id":3,"b":NaN}', (True, 3)),
    ("a name id one level down after one", b'{"a":[\\"id":4],"b":NaN}', (False, None)),
    # right before the quote that ends a string: an odd run escapes it (the string goes on)
    ("one before a closing quote", b'{"a":"x\\","id":5,"b":NaN}', (False, None)),
    ("two before a closing quote", b'{"a":"x\\\\","id":5,"b":NaN}', (True, 5)),
    ("three before a closing quote", b'{"a":"x\\\\\\","id":5,"b":NaN}', (False, None)),
    ("four before a closing quote", b'{"a":"x\\\\\\\\","id":5,"b":NaN}', (True, 5)),
    # an escaped backslash ends the string with its quote, then strays: the strings alternate
    ("escaped backslash and quote, an even count", b'{"a":"' + b'\\\\"' * 50_000 + b',"id":17,"b":NaN}',
     (False, None)),  # (after an even count the scan is in a string: "id" is no name)
    ("escaped backslash and quote, an odd count", b'{"a":"' + b'\\\\"' * 50_001 + b',"id":17,"b":NaN}',
     (True, 17)),
    ("a stray backslash, then brackets", b'{\\ "a":' + b"[" * 70_000 + b"]" * 70_000 + b',"id":15}', (True, 15)),
    ("a stray backslash before each string", b'{"items":[' + STRAY_STRINGS + b'1],"id":9,"b":NaN}', (True, 9)),
    ("and escaped quotes in strings", b'{"items":[' + MIXED + b'1],"id":10,"b":NaN}', (True, 10)),
    ("and an id first", b'{"id":11,"items":[' + MIXED + b"NaN]}", (True, 11)),
    ("and a nested id last", b'{"id":12,"items":[' + MIXED + b'{"id":3}]', (True, 12)),
    # cut in an escape or in a run of backslashes
    ("cut after a backslash in a string", b'{"id":12,"a":"x\\', (True, 12)),
    ("cut after a backslash outside", b'{"id":12,"a":\\', (True, 12)),
    ("cut in a run in a string", b'{"id":14,"a":"' + b"\\" * 5, (True, 14)),
    ("cut after a stray run, a name opened by it", b'{"a":1,\\"id":13,\\', (True, 13)),
    ("cut in a stray run after a string", b'{"id":"k","a":"b"\\\\\\', (True, "k")),
    # many names "id": inside strings (half) and members (the other half)
    ("names in strings, the last a member", _ids_in_strings(2 * 20_000), (True, 5)),
    ("names in strings, the last in a string", _ids_in_strings(2 * 20_000 + 1), (False, None)),
    ("many members", b'{"id":1,"a":' + b'"id":' * 50_000 + b"5}", (True, 5)),
]


@pytest.mark.parametrize(("frame", "expected"), [c[1:] for c in STRAY], ids=[c[0] for c in STRAY])
def test_recover_id_past_stray_backslashes(frame: bytes, expected: tuple[bool, Any]) -> None:
    assert recover_id(frame) == expected
    look = peek(frame)
    assert (look.kind, look.has_id, look.id) == ("unreadable", *expected)


def test_a_large_deep_frame_with_a_stray_backslash_past_the_levels() -> None:
    # (the small frame's problem, orjson's: "depth limit exceeded" before the backslash; a large
    # one's is the same error in msgspec's words, at the bracket that opens level 1025: byte 18 +
    # 1,120,000 + 1,022; before, the backslash stopped the count and msgspec named it)
    frame = b'{"id":1,"result":[' + b'{"a":1,"b":"x"},' * 70_000 + b"[" * 2000 + b"\\" + b"]" * 2000 + b"]}"
    look = peek(frame)
    assert (look.kind, look.has_id, look.id, look.problem) == (
        "unreadable", True, 1, "JSON is malformed: nested deeper than 1024 levels (byte 1121040)")


# frames of 4 blocks: a Python step per block of the scan, not per string, bracket or name
@pytest.mark.parametrize(("frame", "text"), [
    (b'{"id":6,"a":"' + b'\\\\"' * (4 * BLOCK // 3), b"6"),  # an escaped backslash and a quote, repeated
    (b'{\\ "id":1,"a":' + b"[" * (4 * BLOCK), b"1"),  # a stray backslash, then brackets
    (b'{"items":[' + b'\\"x",' * (4 * BLOCK // 5) + b'1],"id":9,"b":NaN}', b"9"),  # stray before each string
    (b'{"items":[' + b'\\"x","a\\"b",' * (4 * BLOCK // 12) + b'1],"id":10,"b":NaN}', b"10"),  # and escaped quotes
    (_ids_in_strings(2 * (4 * BLOCK // 14)), b"5"),  # names "id" in strings
    (b'{"id":1,"a":' + b'"id":' * (4 * BLOCK // 5) + b"5}", b"5"),  # members
], ids=["escaped backslash and quote", "then brackets", "before each string", "mixed", "names in strings",
        "members"])
def test_the_id_of_a_frame_of_strays_or_names_takes_python_steps_per_block(frame: bytes, text: bytes) -> None:
    steps, found = python_steps(lambda: id_text(frame))
    assert found == text
    assert steps < 2_000, steps  # (the code before: a step per token, 105,000 to 1,310,000)


# --- the scan against the token scan -----------------------------------------------------------

def _token_scan(data: bytes) -> list[int]:
    """Where each top-level ``"id"`` member's name starts, by the regular expression of strings and
    brackets (a Python step per token): a string token ``"id"`` at depth 1 a colon follows."""
    found = []
    depth = 0
    for match in _TOKENS.finditer(data):
        start = match.start()
        first = data[start]
        if first in b"{[":
            depth += 1
        elif first in b"}]":
            depth -= 1
        elif depth == 1 and match.end() - start == 4 and data.startswith(b'"id"', start) \
                and re.match(rb"\s*:", data[match.end():]) is not None:
            found.append(start)
    return found


_TOKEN_PIECES = [b"{", b"}", b"[", b"]", b",", b":", b" ", b"1", b"a", b'"', b'"a"', b'"id"', b'"id":', b'"id" :',
                 b"\\", b"\\\\", b'\\"', b'\\\\"', b'\\\\\\"', b'"x\\"y"', b'"\\\\"', b"\x00", b"\x03", b"\x04"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_TOKEN_PIECES), max_size=120).map(b"".join), st.integers(1, 24))
def test_the_scan_finds_the_members_the_token_scan_finds(data: bytes, size: int) -> None:
    members = _token_scan(data)
    with scan_blocks(size):
        assert _id_members(data) == members
        text = id_text(data)
    value = re.match(rb'\s*:\s*(-?[0-9]+|"[^"\\]*"|null)\s*[,}]', data[members[-1] + 4:]) if members else None
    if value is not None:  # (a plain value: the one id_text gives)
        assert text == value.group(1)
