"""Audit throughput and memory, measured side by side in one run (numbers, not assertions).

    python benchmarks/bench_audit.py [--quick] [--memory] [--mb N]

Generates a frame log (format v1, written with ``frames.encode``) of many connections, each a
2026-07-28 conversation — server/discover, tools/list, then tools/call with the answers real
servers give: structured successes, text of a few hundred bytes to a few kB, tool errors,
protocol errors, input_required rounds, tasks polled to completion, and malformed answers
(``isError: "false"``, a duplicated ``isError``, NaN) — with progress notifications between.
Then measures on the same file, in this process's turn:

- ``orjson.loads`` of every line (reading the file included): the line throughput to beat;
- the audit on one process (``jobs=1``) and on two (``jobs=2``), with every entry consumed;
- the machine's ceiling for two processes on this kind of work: the lines decoded, paired by a
  Tracker and every tools/call answer classified, in one forked process over the whole log and in
  two over its halves, with nothing shared (what two processes can gain here, in the same rounds);
- the judgement alone (the calls paired beforehand) and the reading and pairing alone (nothing
  judged): what is left of the audit's time is its own bookkeeping (positions, rounds, rows);

and prints lines/s, the audit's share of orjson's throughput (target ≥ 50%) and the speed-up of
two processes (target ≥ 1.7×). Each measure runs once on a small log before the rounds (what a
process does on first use, such as importing the naive receiver, is not counted per line).
``--memory`` also generates a 1 GB log and reports the peak resident memory of the audit of
100 MB and of 1 GB (each in a fresh process): bounded means the same. Timings on a shared
machine are noisy: compare the ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from mcp_verdict.audit import CallRow, audit_files
from mcp_verdict.frames import Answered, Exchange, FrameRecord, Tracker, decode, encode

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}},
                                                       "extensions": {"io.modelcontextprotocol/tasks": {}}}}
TOOLS: dict[str, Any] = {"resultType": "complete", "tools": [
    {"name": "get_forecast", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True},
     "outputSchema": {"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
                      "required": ["city", "celsius"]}},
    {"name": "search_docs", "inputSchema": {"type": "object"}},
    {"name": "charge_card", "inputSchema": {"type": "object"}},
    {"name": "confirm_delete", "inputSchema": {"type": "object"}},
    {"name": "generate_report", "inputSchema": {"type": "object"}},
]}
WORDS = ("the", "tool", "returned", "a", "result", "that", "a", "receiver", "must", "judge", "before", "it",
         "trusts", "any", "of", "it")


def _text(rng: random.Random, low: int, high: int) -> str:
    n = rng.randint(low, high) // 6
    return " ".join(rng.choice(WORDS) for _ in range(n))


def conversation(rng: random.Random, conn: str, start: float, calls: int) -> list[tuple[str, bytes]]:
    """(direction, frame) of one connection."""
    frames: list[tuple[str, bytes]] = []
    ids = iter(range(1, 1_000_000))

    def request(method: str, params: dict[str, object]) -> int:
        rid = next(ids)
        frames.append(("c2s", orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                            "params": {**params, "_meta": META}})))
        return rid

    def answer(rid: int, result: object) -> None:
        frames.append(("s2c", orjson.dumps({"jsonrpc": "2.0", "id": rid, "result": result})))

    answer(request("server/discover", {}), {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                                             "capabilities": {"tools": {}},
                                             "_meta": {"io.modelcontextprotocol/serverInfo": {
                                                 "name": f"server-{conn[-1]}", "version": "1.0"}}})
    answer(request("tools/list", {}), TOOLS)
    for _ in range(calls):
        shape = rng.random()
        if shape < 0.35:
            rid = request("tools/call", {"name": "get_forecast", "arguments": {"city": "Lisbon"}})
            answer(rid, {"resultType": "complete", "content": [{"type": "text", "text": '{"city":"Lisbon"}'}],
                         "structuredContent": {"city": "Lisbon", "celsius": 21.5}})
        elif shape < 0.65:
            rid = request("tools/call", {"name": "search_docs", "arguments": {"q": "verdict"}})
            frames.append(("s2c", orjson.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                                "params": {"progressToken": rid, "progress": 0.5}})))
            answer(rid, {"resultType": "complete", "content": [{"type": "text", "text": _text(rng, 200, 4000)}]})
        elif shape < 0.75:
            rid = request("tools/call", {"name": "charge_card", "arguments": {"amount_cents": 1999}})
            answer(rid, {"resultType": "complete", "isError": True,
                         "content": [{"type": "text", "text": "card declined"}]})
        elif shape < 0.80:
            rid = request("tools/call", {"name": "charge_card", "arguments": {"amount_cents": "x"}})
            frames.append(("s2c", orjson.dumps({"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32602, "message": "amount_cents must be an integer"}})))
        elif shape < 0.87:
            rid = request("tools/call", {"name": "confirm_delete", "arguments": {"path": "/tmp/x"}})
            answer(rid, {"resultType": "input_required", "requestState": f"s-{conn}-{rid}", "inputRequests": {
                "ok": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "Delete?", "requestedSchema": {
                        "type": "object", "properties": {"confirm": {"type": "boolean"}}}}}}})
            again = request("tools/call", {"name": "confirm_delete", "arguments": {"path": "/tmp/x"},
                                           "requestState": f"s-{conn}-{rid}", "inputResponses": {
                                               "ok": {"action": "accept", "content": {"confirm": True}}}})
            answer(again, {"resultType": "complete", "content": [{"type": "text", "text": "deleted"}]})
        elif shape < 0.92:
            rid = request("tools/call", {"name": "generate_report", "arguments": {"title": "Q3"}})
            task = f"t-{conn}-{rid}"
            answer(rid, {"resultType": "task", "taskId": task, "status": "working",
                         "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
                         "ttlMs": 60000, "pollIntervalMs": 100})
            poll = request("tasks/get", {"taskId": task})
            answer(poll, {"resultType": "complete", "taskId": task, "status": "completed",
                          "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:01Z",
                          "ttlMs": 60000, "result": {"resultType": "complete",
                                                     "content": [{"type": "text", "text": "report"}]}})
        else:
            rid = request("tools/call", {"name": "search_docs", "arguments": {"q": "x"}})
            bad = rng.choice([b'"isError":"false"', b'"isError":true,"isError":false', b'"score":NaN'])
            frames.append(("s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","content":[],%s}}'
                           % (rid, bad)))
    return frames


def generate(path: Path, megabytes: float, seed: int = 7, pace: float = 0.01) -> int:
    """A log of about ``megabytes`` MB, connections interleaved in groups of 8, frames up to ``pace``
    seconds apart; returns its lines."""
    rng = random.Random(seed)
    lines = 0
    t = 1_790_000_000.0
    target = int(megabytes * 1024 * 1024)
    with path.open("wb") as out:
        group = 0
        while out.tell() < target:
            conns = [f"g{group}-c{i}" for i in range(8)]
            streams = {c: [(c2s_s2c, f) for c2s_s2c, f in conversation(rng, c, t, rng.randint(20, 60))]
                       for c in conns}
            seqs = dict.fromkeys(conns, 0)
            for conn in conns:
                out.write(encode(FrameRecord(conn, 0, t, "c2s", "open", note="bench", transport="stdio")))
                seqs[conn] = 1
                lines += 1
            while streams:
                conn = rng.choice(list(streams))
                direction, frame = streams[conn].pop(0)
                t += rng.random() * pace
                out.write(encode(FrameRecord(conn, seqs[conn], t, direction, "message", frame,  # type: ignore[arg-type]
                                             transport="stdio")))
                seqs[conn] += 1
                lines += 1
                if not streams[conn]:
                    del streams[conn]
                    out.write(encode(FrameRecord(conn, seqs[conn], t, "s2c", "close", note="done",
                                                 transport="stdio")))
                    lines += 1
            group += 1
    return lines


def orjson_lines(path: Path) -> tuple[float, int, float]:
    """(seconds, lines, CPU seconds)."""
    cpu = time.process_time()
    start = time.perf_counter()
    n = 0
    with path.open("rb") as handle:
        for line in handle:
            orjson.loads(line)
            n += 1
    return time.perf_counter() - start, n, time.process_time() - cpu


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def audit_time(path: Path, jobs: int) -> tuple[float, int, float, float]:
    """(seconds, lines, CPU seconds of this process, CPU seconds of its worker processes)."""
    cpu, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    _, totals, entries = audit_files([str(path)], jobs=jobs)
    calls = sum(1 for e in entries if isinstance(e, CallRow))
    elapsed = time.perf_counter() - start
    assert totals.lines > 0 and calls > 0
    return elapsed, totals.lines, _cpu(resource.RUSAGE_SELF) - cpu, _cpu(resource.RUSAGE_CHILDREN) - children


def answered_calls(lines: Iterable[bytes]) -> Iterator[tuple[Exchange, bytes]]:
    """The tools/call exchanges a Tracker of their own pairs, each with its answer's bytes, fed
    these frame-log lines in order."""
    tracker = Tracker()
    for line in lines:
        record = decode(line.rstrip(b"\n"))
        if getattr(record, "kind", None) != "message" or record.data is None:  # type: ignore[union-attr]
            continue
        for event in tracker.feed(record.conn, record.dir, record.data, at=record.t, seq=record.seq):  # type: ignore[union-attr]
            if isinstance(event, Answered) and event.exchange.method == "tools/call":
                assert event.exchange.response is not None
                yield event.exchange, event.exchange.response.data


def judgement_only(path: Path) -> float:
    """The judgement alone, for the same calls: classify + evaluate (with the tool) + decide of every
    tools/call answer, paired beforehand (what any audit must spend per call, whatever reads it)."""
    from mcp_verdict import classify, decide, evaluate

    tools = {t["name"]: t for t in TOOLS["tools"]}
    with path.open("rb") as handle:
        work = [(data, exchange.request_id, exchange.context.classify_options(), tools.get(exchange.tool or ""))
                for exchange, data in answered_calls(handle)]
    start = time.perf_counter()
    for data, request_id, options, tool in work:
        decide(evaluate(classify(data, request_id=request_id if isinstance(request_id, (str, int)) else None,
                                 **options), tool))
    return time.perf_counter() - start


def frames_only(path: Path) -> float:
    """Reading and pairing alone: every line read and decoded (``frames.decode``), every message
    read for routing and paired by a Tracker (``frames.peek``, ``frames.Tracker``), nothing judged
    (what any audit of a frame log spends per line before the judgement, whatever it does next)."""
    start = time.perf_counter()
    with path.open("rb") as handle:
        for _ in answered_calls(handle):
            pass
    return time.perf_counter() - start


def _lines_between(handle: BinaryIO, start: int, stop: int) -> Iterator[bytes]:
    """The lines of ``handle`` that begin in ``[start, stop)``."""
    if start:  # the line under way at start belongs to the part before (one that begins at start, here)
        handle.seek(start - 1)
        handle.readline()
    while handle.tell() < stop:
        line = handle.readline()
        if not line:
            return
        yield line


def _scan(path: Path, start: int, stop: int) -> None:
    """The lines beginning in ``[start, stop)`` of ``path`` decoded, fed to a Tracker of their own,
    and every tools/call answer it pairs classified: the bulk of the audit's per-line work, with
    nothing to share (a connection cut at ``start`` is only paired less)."""
    from mcp_verdict import classify

    with path.open("rb") as handle:
        for exchange, data in answered_calls(_lines_between(handle, start, stop)):
            classify(data, **exchange.context.classify_options())


def split_time(path: Path, processes: int) -> float:
    """Seconds for ``processes`` forked processes to :func:`_scan` ``path`` in equal byte ranges:
    one forked process for the whole, against two for its halves, is what this machine gives two
    processes doing this kind of work with no coordination (the ceiling for the audit's 2 jobs)."""
    import multiprocessing

    size = path.stat().st_size
    context = multiprocessing.get_context("fork")
    start = time.perf_counter()
    workers = [context.Process(target=_scan, args=(path, size * i // processes, size * (i + 1) // processes))
               for i in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0
    return time.perf_counter() - start


def peak_rss(path: Path) -> tuple[float, float]:
    """(peak resident MB, seconds) of a fresh process auditing ``path`` on one core."""
    code = ("import sys,resource,time;from mcp_verdict.audit import audit_files;t=time.perf_counter();"
            "_,totals,e=audit_files([sys.argv[1]]);[0 for _ in e];"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024, time.perf_counter()-t)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    rss, seconds = out.stdout.split()
    return float(rss), float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a small log, one round")
    parser.add_argument("--memory", action="store_true", help="also the 1 GB log's peak memory (slow)")
    parser.add_argument("--mb", type=float, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    megabytes = args.mb or (8 if args.quick else 100)
    rounds = args.rounds or (1 if args.quick else 3)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "frames.jsonl"
        lines = generate(log, megabytes)
        size = log.stat().st_size / 1024 / 1024
        print(f"audit benchmark: {size:.1f} MB frame log, {lines} lines, {os.cpu_count()} cores "
              f"(shared machine: compare the ratios)")
        # Each measure's first use in this process (imports on first use: the naive receiver,
        # ~0.08 s; the first outputSchema compiled; classify's readers) on a small log first, so
        # the rounds measure the cost per line (the quick log's audit is ~0.25 s of work).
        warm = Path(tmp) / "warm.jsonl"
        generate(warm, 0.2, seed=3)
        judgement_only(warm)
        frames_only(warm)
        audit_time(warm, 1)
        results: dict[str, list[float]] = {"orjson": [], "audit1": [], "audit2": [], "judge": [], "frames": [],
                                           "split1": [], "split2": []}
        cpu: dict[str, list[float]] = {"orjson": [], "audit1": [], "merge": [], "workers": []}
        for _ in range(rounds):  # side by side, interleaved
            elapsed, _, own = orjson_lines(log)
            results["orjson"].append(elapsed)
            cpu["orjson"].append(own)
            results["judge"].append(judgement_only(log))
            results["frames"].append(frames_only(log))
            elapsed, _, own, _ = audit_time(log, 1)
            results["audit1"].append(elapsed)
            cpu["audit1"].append(own)
            elapsed, _, own, workers = audit_time(log, 2)
            results["audit2"].append(elapsed)
            cpu["merge"].append(own)
            cpu["workers"].append(workers)
            results["split1"].append(split_time(log, 1))
            results["split2"].append(split_time(log, 2))
        best = {k: min(v) for k, v in results.items()}
        share = [o / a for o, a in zip(results["orjson"], results["audit1"], strict=True)]
        speedup = [a1 / a2 for a1, a2 in zip(results["audit1"], results["audit2"], strict=True)]
        print("| measure | lines/s (best of rounds) |")
        print("| --- | --- |")
        for key, label in (("orjson", "orjson.loads per line"), ("judge", "the judgement alone (per line)"),
                           ("frames", "reading and pairing alone (frames: decode, peek, Tracker)"),
                           ("audit1", "audit, 1 process"), ("audit2", "audit, 2 processes")):
            print(f"| {label} | {lines / best[key]:,.0f} |")
        print(f"audit on one core: {100 * max(share):.0f}% of orjson.loads' line throughput "
              f"(rounds: {', '.join(f'{100 * s:.0f}%' for s in share)}; target ≥ 50%)")
        on_cpu = [o / a for o, a in zip(cpu["orjson"], cpu["audit1"], strict=True)]
        print(f"the same in CPU time (what waiting for a busy core does not blur): {100 * max(on_cpu):.1f}% "
              f"(rounds: {', '.join(f'{100 * s:.1f}%' for s in on_cpu)})")
        floor = [o / j for o, j in zip(results["orjson"], results["judge"], strict=True)]
        judged = [j / a for j, a in zip(results["judge"], results["audit1"], strict=True)]
        print(f"the judgement alone (classify + content check + decide of each call, paired beforehand): "
              f"{100 * max(floor):.0f}% of orjson.loads' line throughput; it is {100 * max(judged):.0f}% of "
              "the audit's time")
        paired = [f / a for f, a in zip(results["frames"], results["audit1"], strict=True)]
        rest = [1 - j - p for j, p in zip(judged, paired, strict=True)]
        print(f"reading and pairing alone (frames.decode, peek, Tracker; nothing judged): "
              f"{100 * max(o / f for o, f in zip(results['orjson'], results['frames'], strict=True)):.0f}% of "
              f"orjson.loads' line throughput; it is {100 * min(paired):.0f}–{100 * max(paired):.0f}% of the audit's "
              f"time, the rest (the audit's own bookkeeping: positions, rounds, rows) "
              f"{100 * min(rest):.0f}–{100 * max(rest):.0f}%")
        print(f"two processes: {max(speedup):.2f}× one (rounds: {', '.join(f'{s:.2f}×' for s in speedup)}; "
              "target ≥ 1.7×)")
        ceiling = [s1 / s2 for s1, s2 in zip(results["split1"], results["split2"], strict=True)]
        reached = [s / c for s, c in zip(speedup, ceiling, strict=True)]
        print(f"the machine's ceiling for two processes on this work (the lines read, paired and classified "
              f"in one forked process, and in two over the log's halves, nothing shared): {max(ceiling):.2f}× "
              f"(rounds: {', '.join(f'{c:.2f}×' for c in ceiling)}); the audit's two processes reached "
              f"{', '.join(f'{100 * r:.0f}%' for r in reached)} of it in the same rounds")
        # What the machine's other work cannot blur: the CPU the two workers and the merge spent
        # beside one process's; on two idle cores the wall time is at least half their sum.
        bound = [a / ((w + m) / 2) for a, w, m in zip(cpu["audit1"], cpu["workers"], cpu["merge"], strict=True)]
        print(f"CPU: one process {min(cpu['audit1']):.2f} s; two: workers {min(cpu['workers']):.2f} s together, "
              f"the merge {min(cpu['merge']):.2f} s; on two idle cores at most {max(bound):.2f}× one "
              f"(rounds: {', '.join(f'{b:.2f}×' for b in bound)})")
        if args.memory:
            rss_small, t_small = peak_rss(log)
            big = Path(tmp) / "big.jsonl"
            big_lines = generate(big, 1024, seed=11)
            rss_big, t_big = peak_rss(big)
            print(f"peak memory: {megabytes:.0f} MB log {rss_small:.0f} MB resident ({t_small:.0f} s); "
                  f"1 GB log ({big_lines} lines) {rss_big:.0f} MB resident ({t_big:.0f} s)")
        print(json.dumps({"lines": lines, "share_of_orjson": max(share), "share_of_orjson_cpu": max(on_cpu),
                          "two_processes": max(speedup), "two_processes_ceiling": max(ceiling),
                          "two_processes_cpu_bound": max(bound)}))
    _ = resource


if __name__ == "__main__":
    main()
