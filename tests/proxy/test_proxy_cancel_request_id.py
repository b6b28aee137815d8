"""A host's ``notifications/cancelled`` rewritten under the id the proxy sent its request upstream
as (proxy/_codes.py ``with_request_id``; MCP basic/utilities/cancellation: ``params.requestId``
names the request being cancelled). The value of each ``requestId`` member of each top-level
``params`` object is replaced, every other byte kept; a member deeper (in ``_meta``, in a
``params`` one level down) is not. The frame is read as a scan of its strings and brackets reads it
(RFC 8259 s7: a backslash escapes the byte after it in a string; one outside a string is a byte like
any other there), found in C a block at a time (``frames._request_ids``): the scan before took a
Python step per string or bracket (8 MiB of small objects in ``_meta``: ~0.8 s; the rows of Python
steps below fail on it). When no member shows (a name escaped) a frame of up to 64 KiB is written
anew by Python's json; a larger one is not (None: the caller sends it as the host wrote it). Expected
values are written by hand.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_verdict.proxy._codes import with_request_id

from .._calls import python_steps
from .._scan_blocks import scan_blocks

NEW = b'"up-3"'
BLOCK = 1 << 16
REASON = b"r" * 70_000  # (a frame with it is past the 64 KiB written anew)

# (name, frame, with_request_id)
ROWS: list[tuple[str, bytes, bytes | None]] = [
    ("a number", b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"r"}}',
     b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"up-3","reason":"r"}}'),
    ("a string with an escape", b'{"params":{"requestId":"a\\"b","reason":"r"}}',
     b'{"params":{"requestId":"up-3","reason":"r"}}'),
    ("null", b'{"params":{"requestId":null}}', b'{"params":{"requestId":"up-3"}}'),
    ("an integer past 64 bits", b'{"params":{"requestId":18446744073709551616}}', b'{"params":{"requestId":"up-3"}}'),
    ("an exponent", b'{"params":{"requestId":-1.5E+3}}', b'{"params":{"requestId":"up-3"}}'),
    ("blanks of every kind kept", b'{ "params" :\n{ "requestId"\t: 7 ,\r"reason" : "r" } }',
     b'{ "params" :\n{ "requestId"\t: "up-3" ,\r"reason" : "r" } }'),
    ("a second member kept", b'{"params":{"requestId":1,"requestId":2}}',
     b'{"params":{"requestId":"up-3","requestId":"up-3"}}'),
    ("in each of two params members", b'{"params":{"requestId":1},"params":{"requestId":2}}',
     b'{"params":{"requestId":"up-3"},"params":{"requestId":"up-3"}}'),
    # deeper members are not the request's
    ("one in _meta kept", b'{"params":{"_meta":{"requestId":1},"requestId":2}}',
     b'{"params":{"_meta":{"requestId":1},"requestId":"up-3"}}'),
    ("one in an array kept", b'{"params":{"list":[{"requestId":1}],"requestId":2}}',
     b'{"params":{"list":[{"requestId":1}],"requestId":"up-3"}}'),
    ("nested params kept", b'{"params":{"params":{"requestId":1},"requestId":2}}',
     b'{"params":{"params":{"requestId":1},"requestId":"up-3"}}'),
    ("params one level down kept", b'{"x":{"params":{"requestId":1}},"params":{"requestId":2}}',
     b'{"x":{"params":{"requestId":1}},"params":{"requestId":"up-3"}}'),
    ("an object's member after params closed", b'{"params":{"requestId":1},"o":{"requestId":2}}',
     b'{"params":{"requestId":"up-3"},"o":{"requestId":2}}'),
    ("at depth 1 of an array", b'["params":{"requestId":1}]', b'["params":{"requestId":"up-3"}]'),
    # names inside strings
    ("a name in a string", b'{"params":{"reason":"\\"requestId\\":7","requestId":8}}',
     b'{"params":{"reason":"\\"requestId\\":7","requestId":"up-3"}}'),
    ("a string ending in an escaped backslash", b'{"params":{"reason":"a\\\\","requestId":8}}',
     b'{"params":{"reason":"a\\\\","requestId":"up-3"}}'),
    ("a name after a string that closes before it", b'{"params":{"a":"x"requestId":5}}', None),
    ("bytes 0, 2 and 5 in strings", b'{"params":{"a":"\x00\x02\x05{","requestId":1}}',
     b'{"params":{"a":"\x00\x02\x05{","requestId":"up-3"}}'),
    ("byte 5 before the object", b'{"params":\x05{"requestId":1}}', None),
    # backslashes outside strings (no JSON text: a byte like any other there)
    ("a stray backslash before params", b'{\\ "params":{"requestId":7}}', b'{\\ "params":{"requestId":"up-3"}}'),
    ("a stray backslash before the name", b'{"params":{\\"requestId":7}}', b'{"params":{\\"requestId":"up-3"}}'),
    ("a stray backslash before the colon", b'{"params":{"requestId"\\:7}}', None),
    # cut short
    ("cut in the reason", b'{"params":{"requestId":7,"reason":"ab', b'{"params":{"requestId":"up-3","reason":"ab'),
    ("cut after the value", b'{"params":{"requestId":7', None),
    ("cut in the name", b'{"params":{"reque', None),
    # no member shows: written anew by Python's json (up to 64 KiB)
    ("the name escaped", b'{"params":{"request\\u0049d":7,"reason":"\\u00e9 \xc3\xa9"}}',
     b'{"params":{"requestId":"up-3","reason":"\\u00e9 \\u00e9"}}'),
    ("params escaped", b'{"para\\u006ds" : {"requestId" : 7}}', b'{"params":{"requestId":"up-3"}}'),
    ("an object value", b'{"params":{"requestId":{"a":1}}}', b'{"params":{"requestId":"up-3"}}'),
    ("none in params", b'{"params":{},"o":{"requestId":1}}', b'{"params":{"requestId":"up-3"},"o":{"requestId":1}}'),
    ("one in _meta only", b'{"params":{"_meta":{"requestId":1}}}',
     b'{"params":{"_meta":{"requestId":1},"requestId":"up-3"}}'),
    ("params an array", b'{"params":[{"requestId":7}]}', None),
    ("params a string", b'{"params":"{\\"requestId\\":7}"}', None),
    ("no params", b'{"result":{"requestId":1}}', None),
    ("more closing brackets first", b'}{"params":{"requestId":1}}', None),
    ("not JSON", b'{"params":{"requestId":7 7}}', None),
    ("the name escaped, the frame just under 64 KiB",
     b'{"params":{"request\\u0049d":7,"reason":"' + b"r" * 65_490 + b'"}}',
     b'{"params":{"requestId":"up-3","reason":"' + b"r" * 65_490 + b'"}}'),
    # large
    ("after 2 MB of _meta", b'{"params":{"_meta":{"a":[' + b'{"requestId":1},' * 130_000 + b'1]},"requestId":2}}',
     b'{"params":{"_meta":{"a":[' + b'{"requestId":1},' * 130_000 + b'1]},"requestId":"up-3"}}'),
    ("before a long reason", b'{"params":{"requestId":2,"reason":"' + b'\\"' * 100_000 + b'"}}',
     b'{"params":{"requestId":"up-3","reason":"' + b'\\"' * 100_000 + b'"}}'),
]

# past 64 KiB, a frame whose name is escaped is not written anew (the one row that differs from the
# scan before, which wrote it with Python's json whatever its size)
BOUND: list[tuple[str, bytes, bytes | None]] = [
    ("the name escaped, a frame past 64 KiB", b'{"params":{"request\\u0049d":7,"reason":"' + REASON + b'"}}', None),
]


@pytest.mark.parametrize("size", [BLOCK, 5, 8, 11, 12, 16])
@pytest.mark.parametrize(("frame", "expected"), [c[1:] for c in ROWS + BOUND], ids=[c[0] for c in ROWS + BOUND])
def test_with_request_id(frame: bytes, expected: bytes | None, size: int) -> None:
    with scan_blocks(size):
        assert with_request_id(frame, NEW) == expected


def _across(offset: int, piece: bytes) -> bytes:
    """A frame whose ``piece`` starts ``offset`` bytes before the end of the scan's first block."""
    head = b'{"params":{"pad":"'
    return head + b"x" * (BLOCK - offset - len(head)) + piece


@pytest.mark.parametrize("offset", [1, 2, 3, 5, 8, 11, 12, 13, 40, 100, 110, 205])
@pytest.mark.parametrize(("piece", "expected"), [
    (b'","requestId":44}}', b'","requestId":"up-3"}}'),
    (b'","requestId"' + b" " * 100 + b": 45}}", b'","requestId"' + b" " * 100 + b': "up-3"}}'),
    (b'"},"params"' + b" " * 100 + b":" + b"\n" * 100 + b'{"requestId":46}}',
     b'"},"params"' + b" " * 100 + b":" + b"\n" * 100 + b'{"requestId":"up-3"}}'),
    (b"\\" * 200 + b'","requestId":47}}', b"\\" * 200 + b'","requestId":"up-3"}}'),
    (b"\\" * 201 + b'","requestId":48}}', None),  # (an escaped quote: the string goes on, cut short)
    (b'","o":{"requestId":49}}', None),  # (nested one level down)
])
def test_with_request_id_across_a_block(offset: int, piece: bytes, expected: bytes | None) -> None:
    frame = _across(offset, piece)
    assert with_request_id(frame, NEW) == (None if expected is None else frame[:len(frame) - len(piece)] + expected)


# frames of 4 blocks: a Python step per block of the scan, not per string, bracket or member (a long
# string is one token of the scan before too: its two rows held before, ~110 steps)
HEAD = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,'
OUT = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"up-3",'
LARGE: list[tuple[str, bytes, bytes]] = [
    ("a reason of escaped quotes", b'"reason":"' + b'\\"' * (2 * BLOCK) + b'"}}', b""),
    ("_meta of small objects", b'"_meta":{"a":[' + b'{"k":1},' * (BLOCK // 2) + b"1]}}}", b""),
    ("_meta of brackets", b'"_meta":{"a":[' + b"[[],{}]," * (BLOCK // 2) + b"1]}}}", b""),
    ("names in strings", b'"reason":"' + b'\\"requestId\\":1,' * (BLOCK // 4) + b'"}}', b""),
    ("a stray backslash before each string", b'"_meta":{"a":[' + b'\\"x",' * (4 * BLOCK // 5) + b"1]}}}", b""),
    ("members one level down", b'"_meta":{"a":[' + b'{"requestId":1},' * (BLOCK // 4) + b"1]}}}", b""),
    ("many members", b'"requestId":8,' * (BLOCK // 4) + b'"reason":"r"}}', b'"requestId":"up-3",' * (BLOCK // 4)),
]


@pytest.mark.parametrize(("tail", "rewritten"), [c[1:] for c in LARGE], ids=[c[0] for c in LARGE])
def test_a_large_cancellation_is_rewritten_in_python_steps_per_block(tail: bytes, rewritten: bytes) -> None:
    steps, written = python_steps(lambda: with_request_id(HEAD + tail, NEW))
    assert written == OUT + (rewritten + b'"reason":"r"}}' if rewritten else tail)
    assert steps < 2_000, steps  # (the scan before: a step per token, 340,000 to 1,380,000)


# --- against a scan written apart ----------------------------------------------------------------

_VALUE = re.compile(rb'[ \t\n\r\f\v]*:[ \t\n\r\f\v]*(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?'
                    rb'|"(?:[^"\\]|\\.)*"|null)(?=[ \t\n\r\f\v]*[,}])', re.DOTALL)
_OBJECT = re.compile(rb"[ \t\n\r\f\v]*:[ \t\n\r\f\v]*\{")


def _oracle(data: bytes) -> bytes | None:
    """``with_request_id`` by a byte-at-a-time walk: strings (a backslash in one escapes the byte
    after it; one not closed runs to the end), brackets outside them, the depth and the params
    object the walk is in."""
    spans = []
    depth = 0
    params_at = None  # (the depth of the params object the walk is in)
    opening = False  # (the walk is past a "params" name at depth 1 whose value is an object)
    at = 0
    while at < len(data):
        byte = data[at:at + 1]
        if byte == b'"':
            end = at + 1
            while end < len(data) and data[end:end + 1] != b'"':
                end += 2 if data[end:end + 1] == b"\\" else 1
            end = min(end + 1, len(data))
            name = data[at:end]
            opening = depth == 1 and name == b'"params"' and _OBJECT.match(data, end) is not None
            if params_at is not None and depth == 2 and name == b'"requestId"':
                value = _VALUE.match(data, end)
                if value is not None:
                    spans.append(value.span(1))
            at = end
            continue
        if byte in (b"{", b"["):
            depth += 1
            if opening:
                params_at = depth
            opening = False
        elif byte in (b"}", b"]"):
            depth -= 1
            if params_at is not None and depth < params_at:
                params_at = None
        at += 1
    if not spans:
        if len(data) > 1 << 16:
            return None
        try:
            message = json.loads(data)
            message["params"]["requestId"] = json.loads(NEW)
        except (ValueError, TypeError, KeyError, RecursionError):
            return None
        return json.dumps(message, separators=(",", ":")).encode()
    out, last = b"", 0
    for start, end in spans:
        out += data[last:start] + NEW
        last = end
    return out + data[last:]


def test_the_oracle_reads_the_rows() -> None:
    for name, frame, expected in ROWS + BOUND:
        assert _oracle(frame) == expected, name


_PIECES = [b"{", b"}", b"[", b"]", b",", b":", b" ", b"\n", b"1", b"null", b'"a"', b'"', b'"params"', b'"params":{',
           b'"params" :\t{', b'"params":', b'"requestId"', b'"requestId":', b'"requestId" : ', b'"requestId":7',
           b'"requestId":"x"', b'{"params":{"requestId":', b"\\", b"\\\\", b'\\"', b'\\\\"', b'"x\\"y"', b'"\\\\"',
           b"\x00", b"\x02", b"\x05", b'"request\\u0049d":']


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=80).map(b"".join), st.integers(1, 24))
def test_with_request_id_answers_as_a_walk_of_the_bytes(data: bytes, size: int) -> None:
    with scan_blocks(size):
        assert with_request_id(data, NEW) == _oracle(data)
