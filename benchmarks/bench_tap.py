"""The tap's cost per tools/call, beside classify itself (target: ≤ 15 µs per call, issue #12).

Run: python benchmarks/bench_tap.py [--quick]

Side by side in one process, on the same request and answer bytes, per call:

- ``classify``: the verdict of the answer bytes alone (with its request id, and the version,
  capabilities and extensions the request's ``_meta`` puts in force, as the tap passes them);
- ``judgement``: classify and the content check (``evaluate`` against the tool's outputSchema,
  the error-shaped-success heuristics, the Outcome built), what any judged call pays;
- ``tap``: what the tap does for one call without I/O — the judging block, the write proxy
  noting the request the SDK wrote, the request and the answer fed to the tap (frame
  bookkeeping, routing peek, pairing by connection and id in the shared Tracker, the context in
  force) and the call judged when its answer arrives (classify, the content check, the Outcome
  and the call's record); the tool is known from a ``tools/list`` exchange fed to the tap
  beforehand, as in a session. The tap's overhead is its time minus ``classify``'s: everything
  the tap adds to the verdict of the same bytes (the content check included; printed apart);
- ``tap + frame log``: the same with every frame written to a frame log (a temporary file);
- ``Tracker pair``: the shared ``frames.Tracker`` alone fed the request and the answer (the part
  of the tap's overhead that is the frames layer's, shared with the proxy and the audit);
- ``orjson.loads`` of the answer: the machine's speed in the same rounds, so a run on a busy
  machine can be read against a quiet one (the overhead is also printed as a multiple of it).

Numbers are medians of per-round timings, and the best round (the least disturbed by other work on
a shared machine); compare within a run.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import mcp_types
import orjson
from mcp.shared.message import SessionMessage

from mcp_verdict import VerdictTap, classify, evaluate
from mcp_verdict.frames import Tracker

TOOL = {"name": "get_forecast", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"city": {"type": "string"},
                                                          "temperature_c": {"type": "number"}},
                         "required": ["city", "temperature_c"]}}
META = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientCapabilities":{}}')


def request(i: int) -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"get_forecast",'
            f'"arguments":{{"city":"Lisbon"}},{META}}}}}').encode()


def answer(i: int) -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{i},"result":{{"resultType":"complete","content":[{{"type":"text",'
            f'"text":"{{\\"city\\":\\"Lisbon\\",\\"temperature_c\\":24.9}}"}}],'
            f'"structuredContent":{{"city":"Lisbon","temperature_c":24.9}},"isError":false}}}}').encode()


class _Sink:
    async def send(self, item: Any) -> None:
        return None


def listing(conn: str, tap: VerdictTap) -> None:
    """The tools/list exchange of a session, fed to the tap: it learns the tool as listed."""
    tap._feed(conn, "c2s", b'{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{' + META.encode() + b'}}')
    tap._feed(conn, "s2c", orjson.dumps({"jsonrpc": "2.0", "id": "list",
                                         "result": {"resultType": "complete", "tools": [TOOL]}}))


def main() -> None:
    quick = "--quick" in sys.argv
    rounds, calls = (7, 300) if quick else (21, 1000)
    ids = itertools.count(1)
    options: dict[str, Any] = {"version": "2026-07-28", "client_capabilities": {}, "extensions": ()}
    """What the tap's Tracker finds in force for these requests (their _meta): the same options for
    every column, so the columns differ only by what the tap does."""

    def tapped(tap: VerdictTap) -> tuple[Any, Any]:
        conn = tap._open("stdio", "bench")
        listing(conn, tap)
        assert tap.tool("get_forecast", conn) == TOOL
        return conn, tap.write_stream(_Sink(), conn)

    tap = VerdictTap()
    conn, proxy = tapped(tap)
    with tempfile.TemporaryDirectory() as where:
        logged = VerdictTap(frame_log=Path(where) / "frames.jsonl")
        log_conn, log_proxy = tapped(logged)

        async def one_round() -> dict[str, float]:
            totals = dict.fromkeys(("orjson.loads", "classify", "judgement", "Tracker pair", "tap", "tap + frame log"),
                                   0.0)
            tracker = Tracker()
            clock = time.perf_counter
            for _ in range(calls):  # the columns interleaved call by call: the same machine for each
                i = next(ids)
                sent, data = request(i), answer(i)
                message = SessionMessage(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=i, method="tools/call",
                                                                  params={"name": "get_forecast",
                                                                          "arguments": {"city": "Lisbon"}}))
                tr = clock()
                orjson.loads(data)
                t0 = clock()
                totals["orjson.loads"] += t0 - tr
                classify(data, request_id=i, **options)
                t1 = clock()
                evaluate(classify(data, request_id=i, **options), TOOL)
                t2 = clock()
                for which, target, where_to, sink in (("tap", tap, conn, proxy),
                                                      ("tap + frame log", logged, log_conn, log_proxy)):
                    t3 = clock()
                    async with target.judging() as judged:
                        await sink.send(message)
                        target._feed(where_to, "c2s", sent)
                        target._feed(where_to, "s2c", data)
                    judged.outcome  # noqa: B018 - judged when its answer arrived
                    totals[which] += clock() - t3
                totals["classify"] += t1 - t0
                totals["judgement"] += t2 - t1
                t4 = clock()
                tracker.feed("bench", "c2s", sent, at=0.0, seq=2 * i)
                tracker.feed("bench", "s2c", data, at=0.0, seq=2 * i + 1)
                totals["Tracker pair"] += clock() - t4
            return {name: value / calls * 1e6 for name, value in totals.items()}

        loop = asyncio.new_event_loop()
        results = [loop.run_until_complete(one_round()) for _ in range(rounds)]
        loop.close()
        logged.close()
    med = {name: statistics.median(r[name] for r in results) for name in results[0]}
    best = {name: min(r[name] for r in results) for name in results[0]}

    def median(f: Any) -> float:
        return float(statistics.median(f(r) for r in results))

    print(f"per tools/call, {rounds} rounds of {calls} calls, interleaved (µs): median round, best round")
    for name, value in med.items():
        print(f"  {name:18} {value:8.2f} {best[name]:8.2f}")
    overhead = median(lambda r: r["tap"] - r["classify"])
    ratio = median(lambda r: (r["tap"] - r["classify"]) / r["orjson.loads"])
    print(f"  tap overhead beside classify: {overhead:6.2f} µs (target ≤ 15) = {ratio:.1f}× orjson.loads "
          "of the answer in the same rounds")
    print(f"  best rounds (the least disturbed by other work on the machine): {best['tap'] - best['classify']:6.2f} µs")
    check = median(lambda r: r["judgement"] - r["classify"])
    own = median(lambda r: r["tap"] - r["judgement"] - r["Tracker pair"])
    print(f"  of which the content check and the Outcome (judgement/): {check:6.2f} µs; the shared Tracker "
          f"(frames/) pairing the two frames: {med['Tracker pair']:6.2f} µs; the tap's own work: {own:6.2f} µs")
    beside_judgement = median(lambda r: r["tap"] - r["judgement"])
    with_log = median(lambda r: r["tap + frame log"] - r["classify"])
    print(f"  beside the judgement (classify and the content check): {beside_judgement:6.2f} µs")
    print(f"  ... with the frame log, beside classify: {with_log:6.2f} µs")


if __name__ == "__main__":
    main()
