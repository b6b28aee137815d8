"""``peek`` of a large frame (frames/_jsonrpc.py): a frame past ``LARGE`` bytes is checked with
its values skipped before orjson reads it, so an invalid one costs a small part of its size in
memory (orjson built every value before the error: ~9 times the frame), and the Peek is what
orjson's read gives — kind, id (JSON-RPC 2.0 s4: a string, a number or null), method, message,
unheld — but for the ``problem`` of a frame msgspec finds no JSON in, given in msgspec's words
with its byte offset. RFC 8259 s2 (blanks), s6 (numbers), s7 (strings), s8.1 (UTF-8). Expected
values are written by hand.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

from mcp_verdict.frames import peek
from mcp_verdict.frames._jsonrpc import LARGE

BLANKS = b" " * LARGE  # a frame holding it is past LARGE
HEAD = b'{"jsonrpc":"2.0",'


def padded(body: bytes, pad: bytes = BLANKS) -> bytes:
    """``body`` with ``pad`` before its last byte (blanks are allowed before a closing bracket)."""
    return body[:-1] + pad + body[-1:]


# (name, frame, kind, id, has_id, method, unheld, problem: the exact text, or None)
CASES: list[tuple[str, bytes, str, Any, bool, str | None, bytes | None, str | None]] = [
    ("request int id", padded(HEAD + b'"id":7,"method":"tools/call","params":{}}'),
     "request", 7, True, "tools/call", None, None),
    ("request str id", padded(HEAD + b'"id":"a-1","method":"m"}'), "request", "a-1", True, "m", None, None),
    ("notification", padded(HEAD + b'"method":"notifications/progress"}'),
     "notification", None, False, "notifications/progress", None, None),
    ("response null id", padded(HEAD + b'"id":null,"result":{}}'), "response", None, True, None, None, None),
    ("error float id", padded(HEAD + b'"id":1.5,"error":{"code":1,"message":"x"}}'),
     "error", 1.5, True, None, None, None),
    ("response id past 64 bits", padded(HEAD + b'"id":18446744073709551616,"result":{}}'),
     "response", 18446744073709551616, True, None, None, None),
    ("bool id is none", padded(HEAD + b'"id":true,"result":{}}'), "response", None, False, None, None, None),
    ("batch", padded(b'[{"jsonrpc":"2.0","id":1,"method":"m"}]'), "batch", None, False, None, None, None),
    ("not an object", BLANKS + b"7", "invalid", None, False, None, None, None),
    ("method and result", padded(HEAD + b'"id":3,"method":"m","result":{}}'), "invalid", 3, True, None, None, None),
    # invalid: a syntax error msgspec finds (its words, its byte offset: past the byte, after a
    # whole text)
    ("trailing characters", HEAD + b'"id":7,"result":{}}' + BLANKS + b"x",
     "unreadable", 7, True, None, None, f"JSON is malformed: trailing characters (byte {37 + LARGE})"),
    ("cut short", HEAD + b'"id":"q","result":{"a":[1,2' + BLANKS,
     "unreadable", "q", True, None, None, "JSON is malformed: input data was truncated"),
    ("NaN", HEAD + b'"id":8,"result":{"a":' + BLANKS + b"NaN}}",
     "unreadable", 8, True, None, None, f"JSON is malformed: invalid character (byte {38 + LARGE})"),
    ("control character", HEAD + b'"id":9,"result":"' + BLANKS + b'\x01"}',
     "unreadable", 9, True, None, None, f"JSON is malformed: invalid character (byte {34 + LARGE})"),
    # invalid: what msgspec does not check, where orjson stops before it builds anything (UTF-8) or
    # with its own words (a number past the double range)
    ("not UTF-8", padded(HEAD + b'"id":4,"result":"\xff"}'), "unreadable", 4, True, None, None,
     "str is not valid UTF-8: surrogates not allowed: line 1 column 1 (char 0)"),
    ("infinite number", HEAD + b'"id":5,"result":["\xc3\xa9",' + BLANKS + b"\n 1e400]}", "unreadable", 5, True,
     None, None, f"number is infinity when parsed as double: line 2 column 2 (char {40 + LARGE})"),
    ("infinite number of 400 digits", padded(HEAD + b'"id":6,"result":[' + b"9" * 400 + b"]}"),
     "unreadable", 6, True, None, None, "number is infinity when parsed as double: line 1 column 35 (char 34)"),
    ("1e400 in a string is valid", padded(HEAD + b'"id":6,"result":{"a":"1e400 \\" 1e400"}}'),
     "response", 6, True, None, None, None),
    ("1e-400 is zero", padded(HEAD + b'"id":6,"result":[1e-400,' + b"1" * 300 + b'.5e-99]}'),
     "response", 6, True, None, None, None),
    ("unheld id 1e400", padded(HEAD + b'"id":1e400,"result":{}}'), "unreadable", None, False, None, b"1e400",
     "number is infinity when parsed as double: line 1 column 23 (char 22)"),
]


# nested deeper than msgspec follows (the interpreter's recursion limit, ~1,000 levels on Python
# 3.11): orjson reads 1024 levels; the frame's brackets outside strings are counted, and msgspec
# checks it with the recursion limit raised, so that orjson reads no frame that fails (it built
# every value before its error: ~9 times the frame). HEAD + ID_RESULT is 33 bytes: the first
# bracket of ``result`` is byte 33, the object around it level 1.
ID_RESULT = b'"id":7,"result":'
DEEP = len(HEAD + ID_RESULT)
CASES += [
    ("1010 levels", HEAD + ID_RESULT + b"[" * 1009 + BLANKS + b"1" + b"]" * 1009 + b"}",
     "response", 7, True, None, None, None),
    ("1024 levels", HEAD + ID_RESULT + b"[" * 1023 + BLANKS + b"1" + b"]" * 1023 + b"}",
     "response", 7, True, None, None, None),
    ("1025 levels", HEAD + ID_RESULT + b"[" * 1024 + BLANKS + b"1" + b"]" * 1024 + b"}",
     "unreadable", 7, True, None, None, f"JSON is malformed: nested deeper than 1024 levels (byte {DEEP + 1023})"),
    ("1010 levels, a wrong last byte", HEAD + ID_RESULT + b"[" * 1009 + BLANKS + b"1" + b"]" * 1009 + b"x",
     "unreadable", 7, True, None, None, f"JSON is malformed: expected ',' or '}}' (byte {DEEP + 2019 + LARGE})"),
    ("1010 levels of objects, a wrong last byte",
     HEAD + ID_RESULT + b'{"a":' * 1009 + BLANKS + b"1" + b"}" * 1009 + b"]",
     "unreadable", 7, True, None, None, f"JSON is malformed: expected ',' or '}}' (byte {DEEP + 6055 + LARGE})"),
    ("a syntax error past 1000 levels, then 1100", HEAD + ID_RESULT + b"[" * 1009 + BLANKS + b"1 2" + b"[" * 100,
     "unreadable", 7, True, None, None, f"JSON is malformed: expected ',' or ']' (byte {DEEP + 1011 + LARGE})"),
    ("values, then 2000 levels", HEAD + ID_RESULT + b"[" + b"1," * (LARGE // 2) + b"[" * 2000 + b"]" * 2001 + b"}",
     "unreadable", 7, True, None, None,
     f"JSON is malformed: nested deeper than 1024 levels (byte {DEEP + 1 + LARGE + 1022})"),
    ("50000 brackets then no JSON", b"[" * 50_000 + b"x" * LARGE, "unreadable", None, False, None, None,
     "JSON is malformed: nested deeper than 1024 levels (byte 1024)"),
    ("1010 levels, cut short", HEAD + b'"id":"q","result":' + b"[" * 1009 + BLANKS,
     "unreadable", "q", True, None, None, "JSON is malformed: input data was truncated"),
    # brackets in strings are not counted; an escaped quote does not end a string
    ("1010 levels, brackets in a string", HEAD + ID_RESULT + b"[" * 1009 + BLANKS + b'"\\\"' + b"[{" * 40 + b'"'
     + b"]" * 1009 + b"}", "response", 7, True, None, None, None),
    # a backslash outside a string: the brackets are not counted, msgspec names it
    ("1010 levels, a backslash", HEAD + ID_RESULT + b"[" * 1009 + BLANKS + b'\\"x"' + b"]" * 1009 + b"}",
     "unreadable", 7, True, None, None, f"JSON is malformed: invalid character (byte {DEEP + 1009 + LARGE})"),
]


@pytest.mark.parametrize(("frame", "kind", "id_", "has_id", "method", "unheld", "problem"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_peek_of_a_large_frame(frame: bytes, kind: str, id_: Any, has_id: bool, method: str | None,
                               unheld: bytes | None, problem: str | None) -> None:
    assert len(frame) > LARGE
    look = peek(frame)
    assert (look.kind, look.id, type(look.id), look.has_id, look.method, look.unheld, look.problem) == (
        kind, id_, type(id_), has_id, method, unheld, problem)
    if kind in {"unreadable", "batch"}:
        assert look.message is None
    elif kind != "invalid":
        assert type(look.message) is dict and look.message.get("method") == method


def test_the_message_of_a_large_valid_frame_is_read_whole() -> None:
    text = "x" * LARGE
    look = peek(HEAD + b'"id":7,"result":{"content":[{"type":"text","text":"' + text.encode() + b'"}]}}')
    assert look.message == {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": text}]}}
    assert look.result == {"content": [{"type": "text", "text": text}]}


# around the threshold: the same frame, LARGE - 1, LARGE and LARGE + 1 bytes long; at LARGE and
# below orjson reads it (its words), past it msgspec checks it first (its words)
@pytest.mark.parametrize(("size", "problem"), [
    (LARGE - 1, f"unexpected character, expected ',' or '}}': line 1 column {LARGE - 1} (char {LARGE - 2})"),
    (LARGE, f"unexpected character, expected ',' or '}}': line 1 column {LARGE} (char {LARGE - 1})"),
    (LARGE + 1, f"JSON is malformed: expected ',' or '}}' (byte {LARGE})"),
])
def test_the_threshold(size: int, problem: str) -> None:
    body = HEAD + b'"id":7,"result":"'
    frame = body + b"y" * (size - len(body) - 2) + b'"x'
    assert len(frame) == size
    look = peek(frame)
    assert (look.kind, look.id, look.has_id, look.problem) == ("unreadable", 7, True, problem)


@pytest.mark.parametrize("data", [bytearray, memoryview, lambda b: b.decode()])
def test_other_buffers_read_alike(data: Any) -> None:
    bad = HEAD + b'"id":7,"result":[' + BLANKS + b"1e400]}"
    look = peek(data(bad))
    assert (look.kind, look.id, look.problem) == (
        "unreadable", 7, f"number is infinity when parsed as double: line 1 column {35 + LARGE} (char {34 + LARGE})")
    assert peek(data(padded(HEAD + b'"id":7,"method":"m"}'))).method == "m"


MEMORY = textwrap.dedent("""
    import sys
    from mcp_verdict.frames import peek
    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM"):
                return int(line.split()[1]) * 1024
    size = 50 * 1024 * 1024
    head = b'{"jsonrpc":"2.0","id":7,"result":{"items":['
    frame = head + b"1," * ((size - len(head)) // 2) + sys.argv[1].encode()
    peek(b'{"id":1,"method":"m"}')
    open("/proc/self/clear_refs", "w").write("5")
    base = hwm()
    look = peek(frame)
    assert look.kind == "unreadable" and look.id == 7, look
    print((hwm() - base) / len(frame))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
# a syntax error, a number past range, cut short; a syntax error past 1000 levels; 1100 levels
@pytest.mark.parametrize("end", ["0]}x", "1e400]}}", "0]}", "[" * 1010 + "]" * 1010 + "]}x",
                                 "[" * 1100 + "]" * 1100 + "]}}"])
def test_an_invalid_50mb_frame_of_small_values_is_read_in_bounded_memory(end: str) -> None:
    # orjson alone built every value before the error: ~9 times the frame's size
    done = subprocess.run([sys.executable, "-c", MEMORY, end], capture_output=True, text=True, timeout=300, check=True)
    assert float(done.stdout) < 3.0
