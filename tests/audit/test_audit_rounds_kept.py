"""What the audit holds of one call in flight is bounded (issue #14: "memory bounded whatever the
file size"): a task polled without end, or a 2025 server asking a thousand times during one call,
keeps the call's first 100 rounds and its last 100 (``_held.ROUNDS_FIRST``, ``ROUNDS_LAST``),
the ones between counted (``CallRow.rounds_shed``, the ``rounds_shed`` column and ``--json``
member), and the findings of its first 64 refused server requests with one more counting the
others (the tap's rule and words, ``verdict._input.RefusedAsks``). What the row says of all its
rounds stays as if every one were kept: the ``rounds`` column counts them all, ``request_bytes``
and ``response_bytes`` add them all, ``started_at`` is the first request's time and ``ended_at``
the last answer's, and the naive receiver's first answer is compared with every answer the call
had (a first answer among the rounds shed still makes a naive false success).

Before, every round was kept until the call ended: memory grew with the file.

Generated frame logs (format v1), small; every expected value written by hand from the log's
layout (written out above each builder)."""

from __future__ import annotations

import gc
import json
import os
import pickle
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import Auditor, CallRow, Entry, _files, _parts
from mcp_verdict.audit._rows import DECODE, ENCODE
from mcp_verdict.frames import FrameRecord, encode

from .test_audit_asked_judged import ALL, FORM, OBJECT_PROPERTY, V3, answer, ask, call, init, reply
from .test_audit_recorded import run

T0 = 1_790_000_000.0
"""Line N of a generated log is at T0 + N (its seq N)."""
META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/'
        b'clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}')
TASK = (b'{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}')
WORKING = (b'{"resultType":"complete","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z",'
           b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}')
DONE = (b'{"resultType":"complete","taskId":"T","status":"completed","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":60000,"result":{"resultType":"complete",'
        b'"content":[{"type":"text","text":"report"}]}}')
ASK_2026 = b'{"resultType":"input_required","requestState":"S","inputRequests":{}}'
OK_2026 = b'{"resultType":"complete","content":[{"type":"text","text":"ok"}]}'
Frame = tuple[Any, ...]


def result(rid: int, body: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, body)


def request_2026(rid: int, method: str, params: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s,%s}}' % (rid, method.encode(), params, META)


def polled(n: int) -> list[Frame]:
    """A 2026 task polled ``n`` times: line 1 the tools/call (id 1), 2 its task; then per poll k
    (0..n-1) line 3+2k its tasks/get (id 2+k) and 4+2k its answer, working but the last, completed."""
    frames: list[Frame] = [("c2s", request_2026(1, "tools/call", b'"name":"t","arguments":{}')),
                           ("s2c", result(1, TASK))]
    for k in range(n):
        frames += [("c2s", request_2026(2 + k, "tasks/get", b'"taskId":"T"')),
                   ("s2c", result(2 + k, DONE if k == n - 1 else WORKING))]
    return frames


def asked(n: int) -> list[Frame]:
    """A 2025-11-25 call during which the server asks ``n`` times: lines 1-2 initialize, 3 the
    tools/call (id 1); per request k (0..n-1) line 4+2k the server's elicitation (id 1001+k),
    refused when k is a multiple of 3 (a property of type object), and 5+2k the client's
    answer; line 4+2n the call's answer."""
    frames: list[Frame] = [*init(V3, ALL), call(1)]
    for k in range(n):
        frames += [ask(1001 + k, "elicitation/create", OBJECT_PROPERTY if k % 3 == 0 else FORM), reply(1001 + k)]
    return [*frames, answer(1)]


def asked_then_closed(n: int) -> list[Frame]:
    """As :func:`asked`, every request valid, and the connection closes (line 4+2n) before the answer."""
    frames: list[Frame] = [*init(V3, ALL), call(1)]
    for k in range(n):
        frames += [ask(1001 + k, "elicitation/create", FORM), reply(1001 + k)]
    return [*frames, ("close",)]


def pinged(n: int, m: int) -> list[Frame]:
    """A 2026 call with an input round, the server pinging ``n`` times during its first request and
    ``m`` times during its retry: line 1 the tools/call (id 1); per ping k (0..n-1) line 2+2k the
    ping (id "pk") and 3+2k its answer; 2+2n the input_required answer, 3+2n the retry (id 2); per
    ping k (n..n+m-1) line 4+2k and 5+2k; 4+2n+2m the retry's answer, complete."""
    frames: list[Frame] = [("c2s", request_2026(1, "tools/call", b'"name":"t","arguments":{}'))]
    for k in range(n):
        frames += [("s2c", b'{"jsonrpc":"2.0","id":"p%d","method":"ping"}' % k),
                   ("c2s", b'{"jsonrpc":"2.0","id":"p%d","result":{}}' % k)]
    frames += [("s2c", result(1, ASK_2026)),
               ("c2s", request_2026(2, "tools/call", b'"name":"t","arguments":{},"requestState":"S",'
                                                      b'"inputResponses":{}'))]
    for k in range(n, n + m):
        frames += [("s2c", b'{"jsonrpc":"2.0","id":"p%d","method":"ping"}' % k),
                   ("c2s", b'{"jsonrpc":"2.0","id":"p%d","result":{}}' % k)]
    return [*frames, ("s2c", result(2, OK_2026))]


def ids(numbers: range) -> list[str]:
    return [str(n) for n in numbers]


def pings(numbers: range) -> list[str]:
    return [f'"p{n}"' for n in numbers]


REFUSED = ("elicitation.property", "")
# (case, the log's frames) → (kind, first_kind, naive, naive_false_success, end, findings (code, path),
# rounds in all, rounds shed, the kept rounds' ids in order, started_at, ended_at), all by hand from
# each builder's layout. Each many-rounds case comes with its few-rounds twin: the same verdict.
# started_at is the call's request's time (line 3 of asked, line 1 of pinged), though a server request
# made while the call waits is a round over before the call's own (its row comes first).
CASES: list[tuple[str, list[Frame], tuple[Any, ...]]] = [
    # 1 + 1,000 rounds: the tools/call and polls 2..100 kept, polls 902..1001 kept, 801 between
    ("a task polled 1,000 times", polled(1000),
     ("normal_complete", "task", "success", True, "answered", [], 1001, 801,
      ["1", *ids(range(2, 101)), *ids(range(902, 1002))], T0 + 1, T0 + 2002)),
    ("a task polled 3 times", polled(3),
     ("normal_complete", "task", "success", True, "answered", [], 4, 0, ["1", "2", "3", "4"], T0 + 1, T0 + 8)),
    # 300 requests + the answer: requests 1001..1100 kept, 1202..1300 and the answer kept, 101 between;
    # 100 refused (k = 0, 3, ... 297): the first 64's findings, then one counting the 36 others
    ("300 server requests during one call", asked(300),
     ("unclassified", "normal_complete", "success", True, "answered",
      [REFUSED] * 64 + [("elicitation.property", "")], 301, 101,
      [*ids(range(1001, 1101)), *ids(range(1202, 1301)), "1"], T0 + 3, T0 + 604)),
    ("3 server requests during one call", asked(3),
     ("unclassified", "normal_complete", "success", True, "answered", [REFUSED], 4, 0,
      ["1001", "1002", "1003", "1"], T0 + 3, T0 + 10)),
    # the call's own round has no answer: ended_at is none (as with few rounds)
    ("300 server requests, then the connection closes", asked_then_closed(300),
     ("unclassified", "unclassified", "no_response", False, "closed", [("transport.closed", "")], 301, 101,
      [*ids(range(1001, 1101)), *ids(range(1202, 1301)), "1"], T0 + 3, None)),
    ("3 server requests, then the connection closes", asked_then_closed(3),
     ("unclassified", "unclassified", "no_response", False, "closed", [("transport.closed", "")], 4, 0,
      ["1001", "1002", "1003", "1"], T0 + 3, None)),
    # rounds p0..p249, 1, p250..p499, 2 (the pings of each request shed some before they join the call's
    # rounds): the first answer (round 251) is shed; the call had two answers, so the naive receiver,
    # which stopped at the first, made a false success all the same
    ("an input round with 250 pings during each request", pinged(250, 250),
     ("normal_complete", "input_required", "success", True, "answered", [], 502, 302,
      [*pings(range(100)), *pings(range(401, 500)), "2"], T0 + 1, T0 + 1004)),
    ("an input round with 2 pings during each request", pinged(2, 2),
     ("normal_complete", "input_required", "success", True, "answered", [], 6, 0,
      ['"p0"', '"p1"', "1", '"p2"', '"p3"', "2"], T0 + 1, T0 + 12)),
    # rounds p0..p2, 1, p3..p302, 2: the first 100 are p0..p2, 1, p3..p98; the last p204..p302, 2
    ("an input round with 3 pings, then 300", pinged(3, 300),
     ("normal_complete", "input_required", "success", True, "answered", [], 305, 105,
      ['"p0"', '"p1"', '"p2"', "1", *pings(range(3, 99)), *pings(range(204, 303)), "2"], T0 + 1, T0 + 610)),
    ("an input round with 3 pings, then 2", pinged(3, 2),
     ("normal_complete", "input_required", "success", True, "answered", [], 7, 0,
      ['"p0"', '"p1"', '"p2"', "1", '"p3"', '"p4"', "2"], T0 + 1, T0 + 14)),
]


def frame_log(frames: list[Frame]) -> bytes:
    out = []
    for seq, frame in enumerate(frames, 1):
        if frame[0] == "close":
            out.append(encode(FrameRecord("c1", seq, T0 + seq, "s2c", "close", transport="stdio")))
        else:
            out.append(encode(FrameRecord("c1", seq, T0 + seq, frame[0], "message", frame[1], transport="stdio")))
    return b"".join(out)


def shape(row: CallRow) -> tuple[Any, ...]:
    return (row.kind, row.first_kind, row.naive, row.naive_false_success, row.end,
            [(f.code, f.path) for f in row.findings], row.round_count, row.rounds_shed,
            [r.request_id for r in row.rounds], row.started_at, row.ended_at)


def byte_sums(frames: list[Frame]) -> tuple[int, int]:
    """(the call's request bytes, its answer bytes): every frame after initialize, the client's
    requests and answers to the server on one side, the server's on the other, as each round adds
    its request's and its answer's."""
    body = [f for f in frames if f[0] != "close" and b'"initialize"' not in f[1] and b'"id":0,' not in f[1]]
    # a round's request is the client's tools/call or tasks/get, or the server's request
    requests = sum(len(f[1]) for f in body if b'"method"' in f[1])
    answers = sum(len(f[1]) for f in body if b'"method"' not in f[1])
    return requests, answers


@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_call_keeps_its_first_and_last_rounds_and_counts_the_others(
        tmp_path: Path, name: str, frames: list[Frame], expected: tuple[Any, ...]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log(frames))
    rows, problems, _ = run([path])
    assert problems == []
    assert [shape(r) for r in rows] == [expected]
    row = rows[0]
    assert (row.request_bytes, row.response_bytes) == byte_sums(frames)
    if len(row.findings) > 1 and row.kind == "unclassified" and row.first_kind == "normal_complete":
        assert row.findings[-1].message == ("the server made 36 more requests mcp-verdict refuses during the "
                                            "call (the first 64 are above)")
    assert DECODE.decode(ENCODE.encode([row])) == [row]  # as rows cross between the audit's processes
    assert pickle.loads(pickle.dumps(row)) == row


@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_same_through_two_processes_with_cuts_inside_the_call(
        tmp_path: Path, name: str, frames: list[Frame], expected: tuple[Any, ...],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--jobs 2`` with the log cut into 6 parts: the call is held across every cut (its kept rounds
    and counts, the server requests waiting and those refused: ``Held``), and its row is the one
    ``--jobs 1`` gives."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log(frames))
    alone, _, _ = run([path])
    monkeypatch.setattr(_parts, "_STRIPE", path.stat().st_size // 5 + 1)
    assert len(_parts.parts(_files.plan([str(path)], "auto"), 2)) == 6
    rows, problems, _ = run([path], jobs=2)
    assert problems == []
    assert [shape(r) for r in rows] == [expected]
    assert rows == alone


def feed(auditor: Auditor, frames: list[Frame], first: int) -> list[Entry]:
    out: list[Entry] = []
    for line, frame in enumerate(frames, first):
        if frame[0] == "close":
            out += auditor.record("c1", "close", "s2c", line=line)
        else:
            out += auditor.message("c1", frame[0], frame[1], T0 + line, line, line, None, "stdio")
    return out


@pytest.mark.parametrize(("name", "frames", "expected"), CASES[::2], ids=[c[0] for c in CASES[::2]])
def test_the_same_when_another_auditor_continues_the_connection(
        name: str, frames: list[Frame], expected: tuple[Any, ...]) -> None:
    """Cut among the first rounds, among those shed, among the last: what one auditor holds of the
    connection (``export``, pickled as between the audit's processes) handed to another."""
    for cut in (60, len(frames) // 2, len(frames) - 30):
        before = Auditor()
        entries = feed(before, frames[:cut], 1)
        after = Auditor()
        for conn, held in pickle.loads(pickle.dumps(before.export())):
            after.adopt(conn, held)
        entries += feed(after, frames[cut:], cut + 1) + after.end()
        assert [shape(e) for e in entries if isinstance(e, CallRow)] == [expected], cut


def held_after(frames: list[Frame]) -> int:
    """The bytes traced as held once ``frames`` are fed to an auditor (the call still in flight),
    less the tracker's memory of the ids answered on the connection (``frames._track`` and
    ``frames._connection``: the ids themselves, read in ``frames._jsonrpc``), which has its own
    bound (100,000 per connection: ``Tracker(max_answered=...)``) and is no part of the call's."""
    gc.collect()
    tracemalloc.start()
    try:
        auditor = Auditor()
        feed(auditor, frames, 1)
        gc.collect()
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    del auditor
    ours = snapshot.filter_traces([tracemalloc.Filter(False, "*/frames/_track.py"),
                                   tracemalloc.Filter(False, "*/frames/_connection.py"),
                                   tracemalloc.Filter(False, "*/frames/_jsonrpc.py")])
    return sum(stat.size for stat in ours.statistics("filename"))


def poll_forever(n: int) -> list[Frame]:
    """A task polled ``n`` times, still working when the log stops."""
    return polled(n + 1)[:-2]


def ask_forever(n: int) -> list[Frame]:
    """A call the server asks ``n`` times during (every third refused), not answered yet."""
    return asked(n)[:-1]


@pytest.mark.parametrize("frames_of", [poll_forever, ask_forever], ids=["task polls", "server requests"])
def test_what_a_call_in_flight_holds_does_not_grow_with_its_rounds(frames_of: Callable[[int], list[Frame]]) -> None:
    """1,000 rounds and 11,000 rounds of one call in flight: the auditor holds about as much after
    both (10,000 rounds kept would be over 1 MB more: a round's row, its id and its two times)."""
    small = held_after(frames_of(1_000))
    large = held_after(frames_of(11_000))
    assert large - small < 256 * 1024, (small, large)


def test_the_cli_json_parquet_and_page(tmp_path: Path) -> None:
    """``mcp-verdict audit --json --parquet --html`` on the task polled 1,000 times: ``--json`` has
    the 200 rounds kept and ``rounds_shed``; the Parquet row counts every round in ``rounds``, has
    the kept ones in ``round_details``, and ``rounds_shed``; the bytes and the duration are those of
    every round; the page is written."""
    import pyarrow.parquet as pq

    frames = polled(1000)
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log(frames))
    table, page = tmp_path / "calls.parquet", tmp_path / "report.html"
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", "audit", str(path), "--json", "--parquet", str(table),
                           "--html", str(page)], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 1, done.stderr  # (the call is a naive false success)
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    [call_json] = [o for o in objects if o["type"] == "call"]
    requests, answers = byte_sums(frames)
    assert (len(call_json["rounds"]), call_json["rounds_shed"], call_json["rounds"][99]["request_id"],
            call_json["rounds"][100]["request_id"], call_json["request_bytes"], call_json["response_bytes"],
            call_json["duration_ms"]) == (200, 801, "100", "902", requests, answers, 2_001_000.0)
    [row] = pq.read_table(table).to_pylist()
    assert (row["rounds"], row["rounds_shed"], len(row["round_details"]), row["round_details"][-1]["request_id"],
            row["request_bytes"], row["response_bytes"], row["duration_ms"]) == (
        1001, 801, 200, "1001", requests, answers, 2_001_000.0)
    assert page.read_text("utf-8").startswith("<!DOCTYPE html>")
