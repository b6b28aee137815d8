"""A long-lived client holds a bounded part of what its calls answered: the wire log keeps at most
``max_bytes`` of frames (64 MiB by default; the oldest before the call in progress go first, the
call's own frames and the last frame always kept whole, and once the call's own frames reach it
its notifications and noise lines are shed, counted), and ``client.history`` the last 100
calls within 64 MiB (its frames, and its answers once more for the verdicts' parse; the oldest go
first, the newest always kept whole). Before, every frame was kept up to 10,000 frames and every
call up to 100: 100 calls answered with 64 MiB each held ~12 GiB.

The wire log's table is written by hand; the client runs against a real server
(tests/servers/hostile_stdio.py ``big N``: each call answered with N MiB of text).
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

import anyio
import pytest

from mcp_verdict.client import VerdictClient
from mcp_verdict.client._wire import WireLog

ROOT = Path(__file__).resolve().parents[1]
MIB = 1 << 20

# (steps: ("add", data) or ("hold", mark or None); the sequence numbers kept after each add, the
# marks lost_since says were lost at the end) - max_bytes 10
STEPS: list[tuple[str, bytes | int | None, list[int]]] = [
    ("add", b"aaaa", [0]),
    ("hold", 1, []),
    ("add", b"bbbb", [0, 1]),
    ("add", b"cccc", [1, 2]),  # 12 bytes: the frame before the call goes
    ("add", b"dddd", [1, 2, 3]),  # the call's own frames are kept, past the bound
    ("hold", None, []),
    ("add", b"e", [2, 3, 4]),  # the call over: its oldest go first, to 9 bytes
    ("add", b"f" * 20, [5]),  # the last frame is kept whole, alone past the bound
]


def test_the_wire_log_keeps_at_most_max_bytes_of_frames() -> None:
    log = WireLog(max_bytes=10)
    for step, value, kept in STEPS:
        if step == "hold":
            assert value is None or isinstance(value, int)
            log.hold(value)
            continue
        assert isinstance(value, bytes)
        log.add("out", "message", value)  # (never shed: see below)
        assert [f.seq for f in log.frames] == kept
    assert [log.lost_since(mark) for mark in (1, 2, 5)] == [True, True, False]


CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}'
# (the frames a call receives, in order; the sequence numbers kept, shed, shed_noise) - max_bytes 80
SHED: list[tuple[list[bytes], list[int], int, int]] = [
    # the request (68 bytes) and an answer within the bound: both kept
    ([b'{"jsonrpc":"2.0","id":1,"result":{}}'], [0, 1], 0, 0),
    # past the bound, the call's noise and notifications are shed (counted), its answer kept
    ([b"debug: a line of noise", b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}',
      b'{"jsonrpc":"2.0","id":1,"result":{}}'], [0, 3], 2, 1),
    # a request of the server (it waits for our answer) is never shed
    ([b'{"jsonrpc":"2.0","id":"s","method":"roots/list"}'], [0, 1], 0, 0),
]


@pytest.mark.parametrize(("incoming", "kept", "shed", "shed_noise"), SHED)
def test_a_call_past_max_bytes_sheds_its_noise_and_notifications(incoming: list[bytes], kept: list[int], shed: int,
                                                                 shed_noise: int) -> None:
    log = WireLog(max_bytes=80)
    log.hold(log.mark())
    log.add("out", "message", CALL)
    for data in incoming:
        log.add("in", "message", data)
    assert ([f.seq for f in log.frames], log.shed, log.shed_noise) == (kept, shed, shed_noise)
    assert not log.lost_since(0)


def test_a_long_lived_client_holds_a_bounded_part_of_many_large_answers() -> None:
    """16 calls answered with 8 MiB each (128 MiB): the client holds at most the wire log's
    64 MiB and the history's 64 MiB (~80 MiB measured: the history's frames are the log's),
    whatever the number of calls; every answer and its parse were kept (256 MiB after 16)."""
    held: list[int] = []

    async def run() -> None:
        async with VerdictClient.stdio([sys.executable, "-m", "tests.servers.hostile_stdio", "big", "8"],
                                       cwd=str(ROOT), mode="legacy", timeout=60) as client:
            await client.list_tools()
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                for _ in range(16):
                    outcome = await client.call_tool("t", {})
                    assert outcome.verdict.kind.value == "normal_complete"
                del outcome
                gc.collect()
                held.append(tracemalloc.get_traced_memory()[0] - before)
            finally:
                tracemalloc.stop()
            assert len(client.history) < 16

    anyio.run(run)
    assert held[0] < 128 * MIB, held[0] / MIB
