"""Peak memory of one VerdictClient call whose answer is a 50 MiB text block, per transport.

Run: python benchmarks/bench_client_memory.py [--mib N] [--transport stdio|json|sse ...]

The servers are the tests' (their memory is not counted: other processes): stdio is
``tests/servers/hostile_stdio.py big N``, a line of N MiB; ``json`` and ``sse`` are
``tests/servers/hostile_http.py``'s ``json_big`` and ``sse_big`` (one JSON body, one event of
50 MiB). The client connects and lists the tools first; only ``call_tool`` is measured, two
ways, each in a process of its own (the first call's allocations would hide the second's):

- peak RSS: the resident-set high-water mark (Linux ``VmHWM``, reset through
  ``/proc/self/clear_refs``) above the resident set before the call: every allocation, the
  SDK's and pydantic's in Rust included;
- peak traced: ``tracemalloc``'s peak of the Python heap above its level before the call, and
  what the call leaves held (the call's record in ``history``, its outcome).

Ratios are to the size of the answer.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_memory import _release, _status  # noqa: E402  (the benchmarks' own: this folder is the script's)


def _one(transport: str, mib: int, way: str) -> dict[str, float]:
    """In this process: connect, list, then measure one call (``way``: rss or traced)."""
    import anyio
    from tests.processes import port_server  # (the tests' servers: the repository's root is on the path)

    from mcp_verdict.client import VerdictClient

    result: dict[str, float] = {}

    async def run(client: VerdictClient) -> None:
        async with client:
            await client.list_tools()
            _release()
            if way == "rss":
                Path("/proc/self/clear_refs").write_text("5")
                before = _status("VmRSS")
                outcome = await client.call_tool("t", {})
                result["peak"] = _status("VmHWM") - before
            else:
                tracemalloc.start()
                before = tracemalloc.get_traced_memory()[0]
                tracemalloc.reset_peak()
                outcome = await client.call_tool("t", {})
                peak = tracemalloc.get_traced_memory()[1]
                _release()
                result["peak"] = peak - before
                result["held"] = tracemalloc.get_traced_memory()[0] - before
                tracemalloc.stop()
            result["kind"] = outcome.verdict.kind.value  # type: ignore[assignment]

    if transport == "stdio":
        anyio.run(run, VerdictClient.stdio([sys.executable, "-m", "tests.servers.hostile_stdio", "big", str(mib)],
                                           cwd=str(ROOT), mode="legacy", timeout=120))
    else:
        with port_server([sys.executable, "-m", "tests.servers.hostile_http"], cwd=ROOT) as base:
            anyio.run(run, VerdictClient.http(f"{base}/{transport}_big/mcp", mode="legacy", timeout=120))
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=50)
    parser.add_argument("--transport", action="append", choices=["stdio", "json", "sse"])
    parser.add_argument("--child", nargs=2, metavar=("TRANSPORT", "WAY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_one(args.child[0], args.mib, args.child[1])))
        return
    size = args.mib * 1024 * 1024
    print(f"one call answered with {args.mib} MiB (ratios to the answer's size)")
    for transport in args.transport or ["stdio", "json", "sse"]:
        row = [f"{transport:6}"]
        for way in ("rss", "traced"):
            done = subprocess.run([sys.executable, __file__, "--mib", str(args.mib), "--child", transport, way],
                                  capture_output=True, text=True, check=True, cwd=ROOT)
            got = json.loads(done.stdout.strip().splitlines()[-1])
            row.append(f"{way} peak {got['peak'] / size:4.2f}x")
            if "held" in got:
                row.append(f"held after {got['held'] / size:4.2f}x")
            row.append(str(got["kind"]))
        print("  ".join(row))


if __name__ == "__main__":
    main()
