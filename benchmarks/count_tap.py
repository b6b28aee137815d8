"""Instructions per tools/call of bench_tap's columns, counted by valgrind (issue #12).

Run: python benchmarks/count_tap.py [COLUMN...]   (columns: orjson, classify, tracker, tap; all by default)

Each column runs alone under ``valgrind --tool=callgrind`` twice, for 500 and for 2,500 calls of
bench_tap's request and answer (the tool learnt from a tools/list exchange first, as there), with
``PYTHONHASHSEED=0``; the difference over 2,000 calls is the column's cost per call, start-up and
imports cancelled. Instruction counts do not depend on the machine's load, so two versions of the
code can be compared on a shared machine: run it with each on ``PYTHONPATH``. The tap's overhead
beside classify is ``tap - classify``. (A count varies by about a thousand instructions with the
cycle collector's timing, which other code changes.)

``python benchmarks/count_tap.py --run COLUMN N`` is the measured process itself.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

COLUMNS = ("orjson", "classify", "tracker", "tap")
CALLS = (500, 2500)


def run(column: str, calls: int) -> None:
    """``calls`` calls of one column (the process valgrind counts)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import mcp_types
    import orjson
    from mcp.shared.message import SessionMessage

    from bench_tap import TOOL, _Sink, answer, listing, request
    from mcp_verdict import VerdictTap, classify
    from mcp_verdict.frames import Tracker

    options: dict[str, Any] = {"version": "2026-07-28", "client_capabilities": {}, "extensions": ()}
    tap = VerdictTap()
    conn = tap._open("stdio", "count")
    listing(conn, tap)
    assert tap.tool("get_forecast", conn) == TOOL
    proxy = tap.write_stream(_Sink(), conn)
    tracker = Tracker()
    items = [(i, request(i), answer(i), SessionMessage(mcp_types.JSONRPCRequest(
        jsonrpc="2.0", id=i, method="tools/call", params={"name": "get_forecast", "arguments": {"city": "Lisbon"}})))
        for i in range(1, max(CALLS) + 1)]  # built whatever the count: the same start-up for both runs

    async def calls_of_the_column() -> None:
        for i, sent, data, message in items[:calls]:
            if column == "orjson":
                orjson.loads(data)
            elif column == "classify":
                classify(data, request_id=i, **options)
            elif column == "tracker":
                tracker.feed("count", "c2s", sent, at=0.0, seq=2 * i)
                tracker.feed("count", "s2c", data, at=0.0, seq=2 * i + 1)
            else:
                async with tap.judging() as judged:
                    await proxy.send(message)
                    tap._feed(conn, "c2s", sent)
                    tap._feed(conn, "s2c", data)
                judged.outcome  # noqa: B018 - judged when its answer arrived

    asyncio.run(calls_of_the_column())


def count(column: str, calls: int) -> int:
    """The instructions callgrind collects for one run."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                           __file__, "--run", column, str(calls)], env=env, capture_output=True, text=True,
                          check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no count in valgrind's output: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    if sys.argv[1:2] == ["--run"]:
        run(sys.argv[2], int(sys.argv[3]))
        return
    columns = sys.argv[1:] or list(COLUMNS)
    results = {}
    for column in columns:
        few, many = (count(column, calls) for calls in CALLS)
        results[column] = (many - few) // (CALLS[1] - CALLS[0])
        print(f"  {column:10} {results[column]:8,} instructions per call", flush=True)
    if "tap" in results and "classify" in results:
        print(f"  tap overhead beside classify: {results['tap'] - results['classify']:,} instructions per call")


if __name__ == "__main__":
    main()
