"""``peek_shape`` (frames/_jsonrpc.py): :func:`peek` of a frame past ``LARGE`` without its values
built, the read a client pairs a server's answer by. The kind, id (JSON-RPC 2.0 s4: a string, a
number or null; s5: a response holds ``result`` or ``error``), method, unheld id and problem are
what ``peek`` gives for the same frame (the table of tests/test_frames_peek_large.py, written by
hand from RFC 8259 and JSON-RPC 2.0), the ``message`` None; and the read holds no copy of the
frame's values (``peek`` allocated ~13x a frame of one long string, and held its text).
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from mcp_verdict.frames import peek_shape
from mcp_verdict.frames._jsonrpc import LARGE

from .test_frames_peek_large import BLANKS, CASES, HEAD, padded

# (name, frame, kind, id, has_id, method, unheld, problem): more of what only the top level says
MORE: list[tuple[str, bytes, str, Any, bool, str | None, bytes | None, str | None]] = [
    ("the last of a repeated id", padded(HEAD + b'"id":"x","id":7,"method":"m","params":{}}'),
     "request", 7, True, "m", None, None),
    ("an escaped member name", padded(HEAD + b'"\\u0069d":4,"result":{}}'), "response", 4, True, None, None, None),
    ("an escaped id", padded(HEAD + b'"id":"\\u00e9","error":{"code":1,"message":"x"}}'),
     "error", "é", True, None, None, None),
    ("a method that is no string", padded(HEAD + b'"id":1,"method":5,"params":{}}'),
     "invalid", 1, True, None, None, None),
    ("no id", padded(HEAD + b'"result":{}}'), "response", None, False, None, None, None),
]


@pytest.mark.parametrize(("frame", "kind", "id_", "has_id", "method", "unheld", "problem"),
                         [c[1:] for c in [*CASES, *MORE]], ids=[c[0] for c in [*CASES, *MORE]])
def test_peek_shape_of_a_large_frame(frame: bytes, kind: str, id_: Any, has_id: bool, method: str | None,
                                     unheld: bytes | None, problem: str | None) -> None:
    assert len(frame) > LARGE
    look = peek_shape(frame)
    assert (look.kind, look.id, type(look.id), look.has_id, look.method, look.unheld, look.problem,
            look.message) == (kind, id_, type(id_), has_id, method, unheld, problem, None)


def test_a_frame_up_to_large_is_peeks_read_message_and_all() -> None:
    frame = HEAD + b'"id":7,"result":{"content":[]}}'
    look = peek_shape(frame)
    assert (look.kind, look.id, look.message) == ("response", 7, {"jsonrpc": "2.0", "id": 7,
                                                                   "result": {"content": []}})


def test_the_read_of_a_long_answer_holds_no_copy_of_it() -> None:
    """A 16 MiB text block: the read allocates a small part of it (the checks go a block at a
    time) and holds nothing after; ``peek`` held the 16 MiB text, ~13x allocated while reading."""
    frame = HEAD + b'"id":3,"result":{"content":[{"type":"text","text":"' + b"a" * (16 << 20) + b'"}]}}'
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        look = peek_shape(frame)
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (look.kind, look.id) == ("response", 3)
    assert peak - before < len(frame) // 4, (peak - before) / len(frame)
    assert now - before < 64 * 1024


def test_blanks_alone_are_no_object() -> None:
    assert peek_shape(BLANKS + b"[]").kind == "batch"
