"""Two versions of the proxy side by side on stdio→stdio: what a change did to the added latency.

Run: python benchmarks/compare_proxy.py OLD_SRC NEW_SRC [--calls N] [--size BYTES]

OLD_SRC and NEW_SRC are ``src`` folders of two checkouts (e.g. ``git worktree add /tmp/old
REV`` then ``/tmp/old/src``). Each runs ``mcp-verdict proxy`` in observe and in enforce mode in
front of bench_proxy's echo server; a raw host sends the same tools/call to the direct server
and to every proxy in turn, call after call, so all of them are measured in the same moments
(in a new order each round: a chain right after a proxy shares the CPU with that proxy's work
after its send, which in a fixed order would favour the chain right after direct). It
prints each proxy's added p50 and p99 (its round trip minus the direct one's at the same
percentile), and its CPU per call (the process's user+system time over the calls, in ns
from ``/proc/PID/task/*/schedstat``; its upstream not counted). ``--size``: the answer's text
(bench_proxy's 160, ~250 B answers, by default; 60000 for its ~60 kB ones). Numbers, not
assertions: compare within one run.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_proxy as bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old", help="the src folder of the version before")
    parser.add_argument("new", help="the src folder of the version after")
    parser.add_argument("--calls", type=int, default=2000, help="sequential calls per chain (default 2000)")
    parser.add_argument("--size", type=int, default=bench.SMALL, help="the answer's text in bytes (default 160)")
    args = parser.parse_args()
    chains = {"direct": bench.ECHO_STDIO}
    for mode in ("observe", "enforce"):
        for label, src in (("before", args.old), ("after", args.new)):
            chains[f"{label} {mode}"] = ["env", f"PYTHONPATH={Path(src).resolve()}", *bench.OURS, "--mode", mode,
                                         "--", *bench.ECHO_STDIO]
    hosts = {}
    try:
        for name, command in chains.items():
            host = bench.StdioHost(command)
            host.start()
            hosts[name] = host
            for n in range(300):  # warm-up
                host.call(bench.call_bytes(n + 1, bench.SMALL))
        times: dict[str, list[float]] = {name: [] for name in chains}
        cpu = {name: cpu_ns(host.process.pid) for name, host in hosts.items()}
        names = list(hosts)
        order = random.Random(0)
        for n in range(args.calls):
            frame = bench.call_bytes(1000 + n, args.size)
            order.shuffle(names)  # (a chain right after a proxy shares the CPU with its work after a send)
            for name in names:
                host = hosts[name]
                start = time.perf_counter()
                host.call(frame)
                times[name].append(time.perf_counter() - start)
        cpu = {name: cpu_ns(host.process.pid) - cpu[name] for name, host in hosts.items()}
    finally:
        for host in hosts.values():
            host.close()
    calls = args.calls
    direct = sorted(times["direct"])
    p50, p99 = direct[calls // 2], direct[int(calls * 0.99)]
    print(f"direct round trip: p50 {p50 * 1e6:.0f} µs, p99 {p99 * 1e6:.0f} µs ({calls} calls, text of "
          f"{args.size} B)")
    for name in list(chains)[1:]:
        ordered = sorted(times[name])
        print(f"  {name:16s} adds p50 {(ordered[calls // 2] - p50) * 1e6:7.1f} µs   "
              f"p99 {(ordered[int(calls * 0.99)] - p99) * 1e6:7.1f} µs   CPU {cpu[name] / calls / 1e3:6.1f} µs/call")


def cpu_ns(pid: int) -> int:
    """The process's CPU time so far, in ns (every thread's)."""
    return sum(int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
               for tid in os.listdir(f"/proc/{pid}/task"))


if __name__ == "__main__":
    main()
