"""What a stdio upstream is given to read and write: pipes, as the official SDKs' hosts give a
server they start (Python's ``subprocess.PIPE`` is ``os.pipe``), on its first start and on each
restart; and what the proxy holds of them: no pipe end left open by a process that exited.

The subprocess transport's own stdin, under uvloop (libuv's), is a socket pair: a write to it cost
the proxy ~4 µs more of CPU a call than one to a pipe (``benchmarks/compare_proxy.py``). POSIX
only (elsewhere the proxy keeps the subprocess transport's pipes).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

import pytest

from ._peers import PROXY, TIMEOUT, LinePeer
from ._restarting import INITIALIZE, INITIALIZED

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the proxy makes its own pipes on POSIX only")

SERVER = [sys.executable, str(Path(__file__).with_name("pipes_server.py"))]
KINDS = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "kinds", "arguments": {}}}
EXIT = {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "exit", "arguments": {}}}


def _pipes(pid: int) -> int:
    """How many pipe ends the process ``pid`` holds open."""
    count = 0
    for entry in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):  # (closed meanwhile)
            count += os.readlink(f"/proc/{pid}/fd/{entry}").startswith("pipe:")
    return count


def _kinds(peer: LinePeer) -> str:
    answer = json.loads(peer.exchange(KINDS) or b"null")
    return str(answer["result"]["content"][0]["text"])


# (the start: first, or after how many restarts; the upstream's stdin and stdout as it sees them)
ROWS = [(0, "fifo fifo"), (1, "fifo fifo"), (3, "fifo fifo")]


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc to count the proxy's pipe ends")
@pytest.mark.parametrize(("restarts", "kinds"), ROWS, ids=[f"after-{r}-restarts" for r, _ in ROWS])
def test_the_upstream_reads_and_writes_pipes_and_none_is_left_open(restarts: int, kinds: str) -> None:
    peer = LinePeer([*PROXY, "--restart", "on-failure", "--max-restarts", "5", "--", *SERVER])
    try:
        assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
        peer.send(INITIALIZED)
        assert _kinds(peer) == kinds
        held = _pipes(peer.process.pid)
        for _ in range(restarts):
            answer = json.loads(peer.exchange(EXIT) or b"null")
            assert answer["error"]["code"] == -31001  # UPSTREAM_CLOSED: it exited before answering
            deadline = time.monotonic() + TIMEOUT  # (the restart, then the replayed initialize)
            while (got := _kinds(peer)) != kinds and time.monotonic() < deadline:
                time.sleep(0.05)
            assert got == kinds
        assert _pipes(peer.process.pid) == held  # the exited processes' pipe ends closed
    finally:
        peer.close()
