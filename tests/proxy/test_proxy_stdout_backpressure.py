"""A stdio host that stops reading the proxy's stdout while the server goes on writing: the proxy
stops reading the server (which then blocks on its own stdout, as with a direct connection)
instead of holding what it writes; nothing is dropped, and the host gets every frame and the
answer once it reads. basic/transports/stdio: messages are lines on the pipes, which carry
their own flow control."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ._peers import PROXY, TIMEOUT, call

NOTIFY = [sys.executable, str(Path(__file__).with_name("notify_server.py"))]
FLOOD_HTTP = [sys.executable, str(Path(__file__).with_name("flood_http_server.py"))]


def _flood_bytes(n: int, upstream: str) -> int:
    """What notify_server.py (stdio) or flood_http_server.py (its SSE events) writes for
    ``flood`` (progress token "t"): n progress frames."""
    line = ('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t",'
            '"progress":%d,"message":"' + "p" * 1000 + '"}}\n')
    if upstream == "http":
        line = "data: " + line + "\n"
    return sum(len(line % k) for k in range(n))


RSS_BOUND = 160 * 1024  # KiB: a generous fixed bound, far below what 200 MB of progress would take


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def _written(pid: int) -> int:
    """The bytes the process has written (/proc/<pid>/io wchar)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise AssertionError(f"no wchar for {pid}")


def _child(pid: int) -> int:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.02)
    raise AssertionError("the proxy started no upstream")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize(("n", "all_written"), [
    (20, True),  # within what the pipes hold: the server writes everything at once
    (200_000, False),  # 200 MB of progress: the server is held up until the host reads
], ids=["20 frames", "200 MB"])
@pytest.mark.parametrize("upstream", ["stdio", "http"])
def test_a_host_that_does_not_read_holds_the_server_not_the_proxys_memory(upstream: str, n: int,
                                                                         all_written: bool) -> None:
    request = call(1, "flood", {"n": n})
    request["params"]["_meta"]["progressToken"] = "t"
    with contextlib.ExitStack() as stack:
        if upstream == "http":
            http = subprocess.Popen(FLOOD_HTTP, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            stack.callback(_end, http)
            assert http.stdout is not None
            url = http.stdout.readline().decode().split()[-1]
            target = ["--upstream", url]
            written = lambda: int(httpx2.get(url.replace("/mcp", "/written"), timeout=TIMEOUT).text)  # noqa: E731
        else:
            target = ["--", *NOTIFY]
        process = subprocess.Popen([*PROXY, *target], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env={**os.environ})
        progress, answer, server_done, peak = _flood(process, request, n, upstream,
                                                     written if upstream == "http" else None)
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}],
                                                            "isError": False}}
    assert (progress, server_done, peak < RSS_BOUND) == (n, all_written, True), peak


def _end(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(TIMEOUT)


def _flood(process: subprocess.Popen[bytes], request: dict[str, Any], n: int, upstream: str,
           server_written: Callable[[], int] | None) -> tuple[int, Any, bool, int]:
    """The host asks for the flood, reads nothing until the server has written it all or stopped
    writing, then reads: (progress frames read, the answer, whether the server wrote it all
    before the host read, the proxy's peak RSS in KiB)."""
    assert process.stdin is not None and process.stdout is not None
    try:
        total = _flood_bytes(n, upstream)
        if server_written is None:
            server = _child(process.pid)
            server_written = lambda: _written(server)  # noqa: E731
        start = server_written()
        process.stdin.write(json.dumps(request).encode() + b"\n")
        process.stdin.flush()
        # the host reads nothing until the server has written everything or stopped writing
        # (its writes unchanged over 50 looks in a row: it blocks on its stdout)
        peak, last, still = 0, -1, 0
        while still < 50:
            written = server_written() - start
            peak = max(peak, _status_kib(process.pid, "VmRSS"))
            if written >= total:
                break
            still = still + 1 if written == last else 0
            last = written
            time.sleep(0.02)
        server_done = written >= total
        # the host reads: every progress frame, in order, then the answer
        progress = 0
        answer = None
        for line in process.stdout:
            message = json.loads(line)
            if message.get("method") == "notifications/progress":
                assert message["params"]["progress"] == progress
                progress += 1
            elif message.get("id") == 1:
                answer = message
                break
        peak = max(peak, _status_kib(process.pid, "VmHWM"))
    finally:
        process.stdin.close()
        process.wait(TIMEOUT)
    return progress, answer, server_done, peak
