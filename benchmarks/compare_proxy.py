"""Two versions of the proxy side by side on one transport pair: what a change did to the added latency.

Run: python benchmarks/compare_proxy.py OLD_SRC NEW_SRC [--pair PAIR] [--mode MODE] [--calls N] [--size BYTES]
[--block N] [--version 2026-07-28]

OLD_SRC and NEW_SRC are ``src`` folders of two checkouts (e.g. ``git worktree add /tmp/old
REV`` then ``/tmp/old/src``). Each runs ``mcp-verdict proxy`` (in observe and in enforce mode,
or in the one ``--mode`` names) on the transport pair ``--pair`` (host side → upstream side, as
bench_proxy names them: ``stdio→stdio``, the default, ``stdio→HTTP``, ``HTTP→stdio``,
``HTTP→HTTP``; ``->`` may stand for the arrow) in front of bench_proxy's echo server: the stdio
one as each proxy's child process, or one HTTP echo server (``_proxy_peers.py echo-http``) that
every proxy and the direct chain POST to. A raw host (bytes on a pipe, or ``http.client`` POSTs
on one kept-alive connection, as bench_proxy's) sends the same tools/call to the direct server
and to every proxy in turn, call after call, so all of them are measured in the same moments
(in a new order each round: a chain right after a proxy shares the CPU with that proxy's work
after its send, which in a fixed order would favour the chain right after direct). The direct
chain is the upstream side's server reached directly (on HTTP→stdio the stdio one, as in
bench_proxy). It prints each proxy's added p50 and p99 (its round trip minus the direct one's
at the same percentile), and its CPU per call (the process's user+system time over the calls,
in ns from ``/proc/PID/task/*/schedstat``; its upstream not counted). ``--size``: the answer's
text (bench_proxy's 160, ~250 B answers, by default; 60000 for its ~60 kB ones). ``--swap``
starts NEW_SRC's proxies before OLD_SRC's (the chain started last may measure a little more
whatever its code: run both orders). ``--records DIR``: each proxy records as users run it, its
frame log (payloads redacted) and its verdict lines in DIR (``LABEL-MODE.log``,
``LABEL-MODE.verdicts``). ``--version``: the hosts' protocol version (2025-06-18, an
``initialize`` session, by default; 2026-07-28: stateless requests carrying ``_meta`` and, over
HTTP, the routing headers a proxy serving a stdio server checks). ``--block N``: N calls in a row
through each chain before the turn passes (in the round's order), as bench_proxy's blocks of 10:
a proxy's work after its send then runs before its own next call (with the host's turn around),
where with 1, the default, it runs while the other chains are timed — a change that moves that
work measures differently in the two. Numbers, not assertions: compare within one run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_proxy as bench

PAIRS = ("stdio→stdio", "stdio→HTTP", "HTTP→stdio", "HTTP→HTTP")
"""The transport pairs, host side → upstream side."""


class Host(Protocol):
    """A raw host of bench_proxy (``StdioHost`` or ``HttpHost``)."""

    def call(self, data: bytes) -> bytes: ...


Opener = Callable[[], tuple[Host, int | None, Callable[[], None]]]
"""() -> (a started host, the proxy's pid or None for direct, its cleanup)."""


def pair_name(text: str) -> str:
    """``text`` as one of :data:`PAIRS` (``->`` for the arrow, any case)."""
    wanted = text.replace("->", "→").lower()
    for pair in PAIRS:
        if pair.lower() == wanted:
            return pair
    raise argparse.ArgumentTypeError(f"not a pair: {text!r} (one of {', '.join(PAIRS)})")


def openers(pair: str, upstream_url: str | None, versions: list[tuple[str, str]], modes: list[str],
            records: Path | None = None, protocol: str = bench.V2025) -> dict[str, Opener]:
    """The chains of one comparison: direct, then each (label, src) version in each mode (with
    ``records``: each proxy's frame log and verdict lines there), their hosts speaking the
    protocol version ``protocol`` (2025-06-18's ``initialize`` session, or 2026-07-28's
    stateless requests with their ``_meta`` and routing headers, as bench_proxy's)."""
    host_side, upstream_side = pair.split("→")
    if upstream_side == "HTTP":
        assert upstream_url is not None
        url = upstream_url

        def direct() -> tuple[Host, int | None, Callable[[], None]]:
            host = bench.HttpHost(url, version=protocol)
            host.start()
            return host, None, host.close
        upstream_args = ["--upstream", url]
    else:
        def direct() -> tuple[Host, int | None, Callable[[], None]]:
            host = bench.StdioHost(bench.ECHO_STDIO, protocol)
            host.start()
            return host, None, host.close
        upstream_args = ["--", *bench.ECHO_STDIO]
    chains: dict[str, Opener] = {"direct": direct}
    for mode in modes:
        for label, src in versions:
            env = ["env", f"PYTHONPATH={Path(src).resolve()}"]
            recording = [] if records is None else ["--log", str(records / f"{label}-{mode}.log"),
                                                    "--verdicts", str(records / f"{label}-{mode}.verdicts")]
            if host_side == "HTTP":
                chains[f"{label} {mode}"] = bench.http_chain(
                    [*env, *bench.OURS, "--mode", mode, *recording, "--listen", "127.0.0.1:{port}", *upstream_args],
                    "http://127.0.0.1:{port}/mcp", protocol)
            else:
                chains[f"{label} {mode}"] = bench.stdio_chain([*env, *bench.OURS, "--mode", mode, *recording,
                                                               *upstream_args], protocol)
    return chains


@contextlib.contextmanager
def upstream_for(pair: str) -> Iterator[str | None]:
    """The HTTP echo server's URL when the pair's upstream side is HTTP, else None."""
    if pair.endswith("→HTTP"):
        with bench.echo_http() as url:
            yield url
    else:
        yield None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", help="the src folder of the version before")
    parser.add_argument("new", help="the src folder of the version after")
    parser.add_argument("--pair", type=pair_name, default="stdio→stdio",
                        help=f"the transport pair, host side → upstream ({', '.join(PAIRS)}; default stdio→stdio)")
    parser.add_argument("--mode", choices=("observe", "enforce"), action="append",
                        help="only this mode (repeatable; default both)")
    parser.add_argument("--calls", type=int, default=2000, help="sequential calls per chain (default 2000)")
    parser.add_argument("--size", type=int, default=bench.SMALL, help="the answer's text in bytes (default 160)")
    parser.add_argument("--swap", action="store_true", help="start the new version's proxies first")
    parser.add_argument("--block", type=int, default=1, metavar="N",
                        help="calls in a row through one chain before the turn passes (default 1; bench_proxy's 10)")
    parser.add_argument("--version", choices=(bench.V2025, bench.V2026), default=bench.V2025,
                        help=f"the hosts' protocol version (default {bench.V2025}, as bench_proxy's first rows)")
    parser.add_argument("--records", type=Path, metavar="DIR",
                        help="each proxy writes its frame log and verdict lines in DIR (as users run it)")
    args = parser.parse_args()
    versions = [("before", args.old), ("after", args.new)]
    if args.swap:
        versions.reverse()
    modes = args.mode or ["observe", "enforce"]
    hosts: dict[str, Host] = {}
    pids: dict[str, int | None] = {}
    closers: list[Callable[[], None]] = []
    with upstream_for(args.pair) as url:
        if args.records is not None:
            args.records.mkdir(parents=True, exist_ok=True)
        chains = openers(args.pair, url, versions, modes, args.records, args.version)
        try:
            for name, open_ in chains.items():
                host, pid, close = open_()
                closers.append(close)
                hosts[name], pids[name] = host, pid
                for n in range(300):  # warm-up
                    host.call(bench.call_bytes(n + 1, bench.SMALL, args.version))
            times: dict[str, list[float]] = {name: [] for name in chains}
            cpu = {name: cpu_ns(pid) for name, pid in pids.items()}
            names = list(hosts)
            order = random.Random(0)
            block = max(1, args.block)
            for n in range(0, args.calls, block):
                order.shuffle(names)  # (a chain right after a proxy shares the CPU with its work after a send)
                for name in names:
                    host = hosts[name]
                    for m in range(n, min(n + block, args.calls)):
                        frame = bench.call_bytes(1000 + m, args.size, args.version)
                        start = time.perf_counter()
                        host.call(frame)
                        times[name].append(time.perf_counter() - start)
            cpu = {name: cpu_ns(pid) - cpu[name] for name, pid in pids.items()}
        finally:
            for close in closers:
                close()
    calls = args.calls
    direct = sorted(times["direct"])
    p50, p99 = direct[calls // 2], direct[int(calls * 0.99)]
    print(f"{args.pair} ({args.version}): direct round trip p50 {p50 * 1e6:.0f} µs, p99 {p99 * 1e6:.0f} µs "
          f"({calls} calls, text of {args.size} B)")
    for name in sorted(list(chains)[1:], key=lambda name: (name.split()[1], name.split()[0] != "before")):
        ordered = sorted(times[name])
        print(f"  {name:16s} adds p50 {(ordered[calls // 2] - p50) * 1e6:7.1f} µs   "
              f"p99 {(ordered[int(calls * 0.99)] - p99) * 1e6:7.1f} µs   CPU {cpu[name] / calls / 1e3:6.1f} µs/call")


def cpu_ns(pid: int | None) -> int:
    """The process's CPU time so far, in ns (every thread's); 0 for none (the direct chain)."""
    if pid is None:
        return 0
    return sum(int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
               for tid in os.listdir(f"/proc/{pid}/task"))


if __name__ == "__main__":
    main()
