"""A host's ``notifications/cancelled`` that orjson does not read (NaN, an integer past 64 bits, a
lone surrogate: RFC 8259 s6 and s8.2 leave them to the reader) is read for the request it names
(MCP basic/utilities/cancellation: ``params.requestId``) in bounded time and memory
(proxy/_codes.py ``cancelled_request``). Up to 64 KiB Python's json reads the whole frame, as
before; past that the frame is read by its members (the last top-level ``method``, the last
``requestId`` of a top-level ``params`` object, each value read alone), found in C a block at a
time: Python's json built the whole message, ~100 MiB and ~1-2 s for 8 MiB of ``NaN`` members.
Expected values are written by hand.
"""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import pytest

from mcp_verdict.proxy._codes import cancelled_request

from .._calls import python_steps

CANCEL = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":'
PAST = 1 << 16
MIB8 = 8 << 20


def _nan_members(count: int) -> bytes:
    return b",".join(b'"k%d":NaN' % i for i in range(count))


# (name, frame, (a cancellation, the id it names: of a frame that is none, what the read gives,
# which no caller looks at)); each row's frame is at most 64 KiB: the same answers as before the bound
SMALL: list[tuple[str, bytes, tuple[bool, Any]]] = [
    ("NaN in the reason", CANCEL + b'5,"reason":NaN}}', (True, 5)),
    ("an integer past 64 bits", CANCEL + b'18446744073709551616}}', (True, 18446744073709551616)),
    ("a lone surrogate", CANCEL + b'"\\ud800","x":NaN}}', (True, "\ud800")),
    ("the id an object", CANCEL + b'{"a":NaN}}}', (True, None)),
    ("another method", b'{"method":"tools/call","params":{"requestId":5,"x":NaN}}', (False, 5)),
    ("the last method counts", b'{"method":"notifications/cancelled","method":"tools/call","params":{"requestId":5,'
                               b'"x":NaN}}', (False, 5)),
    ("the method escaped", b'{"\\u006dethod":"notifications/cancelled","params":{"requestId":5,"x":NaN}}', (True, 5)),
    ("not JSON", CANCEL + b'5 5}}', (False, None)),
    ("NaN members just under 64 KiB", CANCEL + b'5,"_meta":{' + _nan_members(5_200) + b"}}}", (True, 5)),
]

# past 64 KiB: read by the members
LARGE: list[tuple[str, bytes, tuple[bool, Any]]] = [
    ("8 MiB of NaN members", CANCEL + b'5,"_meta":{' + _nan_members(MIB8 // 12) + b"}}}", (True, 5)),
    ("8 MiB of escaped names", CANCEL + b'5,"_meta":[' + b",".join([b'{"\\u0061":NaN}'] * (MIB8 // 14)) + b"]}}",
     (True, 5)),
    ("the id after 8 MiB of NaN", b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{'
                                  + _nan_members(MIB8 // 12) + b'},"requestId":"r-9"}}', (True, "r-9")),
    ("the method after 8 MiB of NaN", b'{"jsonrpc":"2.0","params":{"requestId":7,"_meta":{' + _nan_members(MIB8 // 12)
                                      + b'}},"method":"notifications/cancelled"}', (True, 7)),
    ("an integer past 64 bits, an 8 MiB reason", CANCEL + b'18446744073709551616,"reason":"' + b"r" * MIB8 + b'"}}',
     (True, 18446744073709551616)),
    ("a lone surrogate, 8 MiB of NaN", CANCEL + b'"\\ud800","_meta":{' + _nan_members(MIB8 // 12) + b"}}}",
     (True, "\ud800")),
    ("another method, the name in a string", b'{"method":"tools/call","params":{"requestId":5,"reason":'
                                             b'"\\"method\\":\\"notifications/cancelled\\"","_meta":{'
                                             + _nan_members(PAST // 10) + b"}}}", (False, None)),
    ("a method one level down", b'{"params":{"method":"notifications/cancelled","requestId":5,"_meta":{'
                                + _nan_members(PAST // 10) + b"}}}", (False, None)),
    ("the last method counts", b'{"method":"notifications/cancelled","method":"tools/call","params":{"requestId":5,'
                               b'"_meta":{' + _nan_members(PAST // 10) + b"}}}", (False, None)),
    ("the method's value escaped", b'{"method":"notifications\\/cancelled","params":{"requestId":5,"_meta":{'
                                   + _nan_members(PAST // 10) + b"}}}", (True, 5)),
    ("the id an object", CANCEL + b'{"a":1},"_meta":{' + _nan_members(PAST // 10) + b"}}}", (True, None)),
    ("a requestId one level down only", b'{"method":"notifications/cancelled","params":{"_meta":{"requestId":5,'
                                        + _nan_members(PAST // 10) + b"}}}", (True, None)),
]

# past 64 KiB, the rows that differ from Python's json's read of the whole frame: a name written
# with an escape is not seen by the scans (no cancellation), as with_request_id writes no such frame
# anew past 64 KiB; a frame cut short still names its request (the scans read members, not the
# whole text: as frames.recover_id reads the id of a frame cut short)
BOUND: list[tuple[str, bytes, tuple[bool, Any]]] = [
    ("cut short", CANCEL + b'5,"_meta":{' + _nan_members(PAST // 10), (True, 5)),
    ("the method's name escaped", b'{"\\u006dethod":"notifications/cancelled","params":{"requestId":5,"_meta":{'
                                  + _nan_members(PAST // 10) + b"}}}", (False, None)),
]


@pytest.mark.parametrize(("frame", "expected"), [c[1:] for c in SMALL + LARGE + BOUND],
                         ids=[c[0] for c in SMALL + LARGE + BOUND])
def test_cancelled_request(frame: bytes, expected: tuple[bool, Any]) -> None:
    assert len(frame) <= PAST or (frame, expected) in [c[1:] for c in LARGE + BOUND]
    assert cancelled_request(frame) == expected


UNREADABLE = [c for c in LARGE if len(c[1]) > MIB8 and b"NaN" in c[1]]
"""(an integer past 64 bits in a frame orjson reads: its own read of the 8 MiB reason is the
most of what the read costs, before and after)"""


@pytest.mark.parametrize("frame", [c[1] for c in UNREADABLE], ids=[c[0] for c in UNREADABLE])
def test_a_large_cancellation_is_read_in_memory_a_small_multiple_of_its_size(frame: bytes) -> None:
    """Python's json's read of the whole frame took ~11 times its size in memory (8 MiB of NaN
    members: ~105 MiB traced); the members' read, at most the copy the method's scan makes and a
    block's views."""
    gc.collect()
    tracemalloc.start()
    try:
        cancelled_request(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(frame), (peak, len(frame))


def test_a_large_cancellation_is_read_in_python_steps_per_block() -> None:
    """The members' scans take a constant number of Python steps per 64 KiB block (8 MiB: 128
    blocks), not one per member (a row that held before too: Python's json takes few Python steps,
    its cost was its C's time and memory)."""
    frame = LARGE[0][1]
    steps, read = python_steps(lambda: cancelled_request(frame))
    assert read == (True, 5)
    assert steps < 50_000, steps  # (measured 22,982)
