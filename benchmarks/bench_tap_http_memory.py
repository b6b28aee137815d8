"""Peak memory of one 50 MiB tools/call answer through the SDK's Streamable HTTP client: the plain
SDK beside the same call over ``tap.http_client()``.

Run: python benchmarks/bench_tap_http_memory.py [--frame-log]

The server is ``tests/servers/hostile_http.py`` in a process of its own (modes ``json_big``: one
``application/json`` body; ``sse_big``: one server-sent event), so only the client is measured.
Each row is one ``call_tool`` of an open session (the first and the second: the tap links its
session to its connection at the first), measured two ways: ``tracemalloc``'s peak of the
Python heap above its level before the call, and the resident set's high-water mark (Linux
``VmHWM``, reset before each call) above the resident set before it — orjson reserves far more
than it touches for a long string, which tracemalloc counts and the resident set does not. The
tap's column judges the call (``tap.judging``) and keeps it on its history, as an application's
tap does. The difference is what the tap adds. (The SDK refuses a server-sent event over 1 MiB:
``sse_big`` measures that refusal.)
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import re
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import VerdictTap

ROOT = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _rss_peak() -> int:
    """The process's resident-set high-water mark (Linux ``VmHWM``), in bytes; 0 elsewhere."""
    match = re.search(r"^VmHWM:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE) if _STATUS.exists() else None
    return int(match.group(1)) * 1024 if match else 0


def _reset_rss_peak() -> None:
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # glibc only: freed heap back to the system
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    with contextlib.suppress(OSError):
        _CLEAR_REFS.write_text("5")  # VmHWM back to the current resident set


async def _peaks(url: str, tapped: bool, calls: int, log: str | None) -> list[tuple[int, int, str]]:
    """Per call of one session: (tracemalloc peak, resident peak, what came of it)."""
    tap = VerdictTap(frame_log=log if tapped else None)
    http: Any = tap.http_client() if tapped else None
    rows = []
    async with Client(streamable_http_client(url, http_client=http)) as client:
        for _ in range(calls):
            _reset_rss_peak()
            rss = _rss_peak()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                failed = None
                async with tap.judging(client) as judged:
                    try:
                        result = await client.call_tool("t", {})
                    except Exception as exc:  # the SDK's own refusal (its SSE event limit): a row all the same
                        failed = f"the SDK raised {type(exc).__name__}"
                    else:
                        del result
                peak = tracemalloc.get_traced_memory()[1] - before
            finally:
                tracemalloc.stop()
            kind = judged.outcome.verdict.kind.value if tapped else "ok"
            rows.append((peak, _rss_peak() - rss, f"{kind}; {failed}" if failed else kind))
            del judged
    if http is not None:
        await http.aclose()
    tap.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--frame-log", action="store_true", help="the tap writes a frame log (payloads) too")
    options = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    log = str(Path(folder.name) / "frames.jsonl") if options.frame_log else None
    server = subprocess.Popen([sys.executable, "-m", "tests.servers.hostile_http"], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = server.stdout.readline().strip()
        print(f"{'mode, call':<14} {'plain SDK':>16} {'tap':>16} {'tap - plain':>16}   MiB: tracemalloc / resident")
        for mode in ("json_big", "sse_big"):
            url = f"http://127.0.0.1:{port}/{mode}/mcp"
            plain = anyio.run(_peaks, url, False, 2, None)
            tapped = anyio.run(_peaks, url, True, 2, log)
            rows = zip(plain, tapped, strict=True)
            for call, ((p_traced, p_rss, p_kind), (t_traced, t_rss, t_kind)) in enumerate(rows, 1):
                print(f"{mode + ' ' + str(call):<14} {p_traced / MIB:>7.1f} /{p_rss / MIB:>7.1f} "
                      f"{t_traced / MIB:>7.1f} /{t_rss / MIB:>7.1f} "
                      f"{(t_traced - p_traced) / MIB:>7.1f} /{(t_rss - p_rss) / MIB:>7.1f}   "
                      f"(plain: {p_kind}; tap: {t_kind})")
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(10)
        folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
