"""The soak: 100,000 frames through the proxy (stdio → stdio, enforce, 64 calls in flight at a
time), in bounded count and time. Every request is forwarded and every answer comes back, once,
in the order the server sent them; the frame log accounts for every frame."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from mcp_verdict.frames import FrameRecord
from mcp_verdict.frames import read as read_log

from ._peers import PROXY

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
CALLS = 50_000  # 100,000 frames: a request and an answer each
IN_FLIGHT = 64
DEADLINE = 240.0


def test_100k_frames_none_lost_or_reordered(tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    process = subprocess.Popen([*PROXY, "--mode", "enforce", "--default-version", "2025-06-18", "--log", str(log),
                                "--", *SERVER],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    window = threading.Semaphore(IN_FLIGHT)
    started = time.monotonic()

    def write() -> None:
        assert process.stdin is not None
        for n in range(CALLS):
            window.acquire(timeout=DEADLINE)
            name = "dup" if n % 1000 == 999 else "echo"
            process.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s"}}\n'
                                % (n, name.encode()))
            if n % IN_FLIGHT == 0:
                process.stdin.flush()
        process.stdin.flush()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    ids = []
    refused = 0
    for line in process.stdout:
        message = json.loads(line)
        ids.append(message["id"])
        refused += "error" in message
        window.release()
        if len(ids) == CALLS or time.monotonic() - started > DEADLINE:
            break
    process.stdin.close()
    process.wait(30)
    assert ids == list(range(CALLS))  # none lost, none duplicated, none reordered
    assert refused == CALLS // 1000  # every duplicate-key answer refused, nothing else
    records = [r for r in read_log(log.open("rb")) if isinstance(r, FrameRecord)]
    messages = [r for r in records if r.kind == "message"]
    assert sum(r.dir == "c2s" for r in messages) == CALLS
    assert sum(r.dir == "s2c" for r in messages) == CALLS  # what the host got: forwarded or written in place
    assert sum(r.kind == "refused" for r in records) == CALLS // 1000
    assert [r.seq for r in records] == sorted(r.seq for r in records)
