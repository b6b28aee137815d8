"""``--jobs 2`` gives the report ``--jobs 1`` gives, on a generated frame log of many interleaved
connections: the same entries in the same order, the same line counts, the same ``--json``
output and the same terminal report. The log holds what makes pairing across processes hard: a
call and its answer far apart, input rounds linked by requestState, tasks polled by id, ids
reused across connections, a call its connection closed on, and a connection the log ends in."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import cast

import msgspec
import pytest

from mcp_verdict.audit import CallRow, Entry, FindingRow, Problem, RoundRow, Totals, _run, audit_files
from mcp_verdict.audit._rows import DECODE
from mcp_verdict.frames import FrameRecord, encode

META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/'
        b'clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}')
TOOLS = (b'{"resultType":"complete","tools":[{"name":"forecast","inputSchema":{"type":"object"},'
         b'"outputSchema":{"type":"object","properties":{"c":{"type":"number"}},"required":["c"]}},'
         b'{"name":"search","inputSchema":{"type":"object"}}]}')
TASK = (b'{"resultType":"task","taskId":"T%d","status":"working","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}')
DONE = (b'{"resultType":"complete","taskId":"T%d","status":"completed","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":60000,"result":{"resultType":"complete",'
        b'"content":[{"type":"text","text":"report"}]}}')
# (shape, the final kind of its call): each shape's frames are written below, by hand
SHAPES = {"conforming": "normal_complete", "schema_broken": "normal_complete", "tool_error": "tool_error",
          "protocol_error": "protocol_error", "input_rounds": "normal_complete", "task": "normal_complete",
          "malformed": "unclassified"}


def request(rid: int, method: str, params: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s%s}}' % (
        rid, method.encode(), params + b"," if params else b"", META)


def answer(rid: int, result: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, result)


def conversation(rng: random.Random, calls: int) -> tuple[list[tuple[str, bytes]], Counter[str]]:
    """(direction, frame) of one connection, and the final kind of each call it makes."""
    frames: list[tuple[str, bytes]] = [("c2s", request(1, "tools/list", b"")), ("s2c", answer(1, TOOLS))]
    kinds: Counter[str] = Counter()
    rid = 1
    for _ in range(calls):
        shape = rng.choice(list(SHAPES))
        kinds[SHAPES[shape]] += 1
        rid += 1
        if shape in ("conforming", "schema_broken"):
            value = b'{"c":21.5}' if shape == "conforming" else b'{"c":"warm"}'
            frames += [("c2s", request(rid, "tools/call", b'"name":"forecast","arguments":{}')),
                       ("s2c", answer(rid, b'{"resultType":"complete","content":[],"structuredContent":%s}' % value))]
        elif shape == "tool_error":
            frames += [("c2s", request(rid, "tools/call", b'"name":"search","arguments":{}')),
                       ("s2c", answer(rid, b'{"resultType":"complete","isError":true,"content":[]}'))]
        elif shape == "protocol_error":
            frames += [("c2s", request(rid, "tools/call", b'"name":"search","arguments":{}')),
                       ("s2c", b'{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"bad"}}' % rid)]
        elif shape == "input_rounds":
            state = b"S%d" % rid
            frames += [("c2s", request(rid, "tools/call", b'"name":"search","arguments":{}')),
                       ("s2c", answer(rid, b'{"resultType":"input_required","requestState":"%s","inputRequests":'
                                           b'{"ok":{"method":"elicitation/create","params":{"mode":"form",'
                                           b'"message":"Sure?","requestedSchema":{"type":"object","properties":'
                                           b'{"sure":{"type":"boolean"}}}}}}}' % state))]
            rid += 1
            frames += [("c2s", request(rid, "tools/call", b'"name":"search","arguments":{},"requestState":"%s",'
                                                          b'"inputResponses":{"ok":{"action":"accept","content":{"sure":true}}}'
                                                          % state)),
                       ("s2c", answer(rid, b'{"resultType":"complete","content":[]}'))]
        elif shape == "task":
            first = rid
            frames += [("c2s", request(rid, "tools/call", b'"name":"search","arguments":{}')),
                       ("s2c", answer(rid, TASK % first))]
            rid += 1
            frames += [("c2s", request(rid, "tasks/get", b'"taskId":"T%d"' % first)),
                       ("s2c", answer(rid, DONE % first))]
        else:
            frames += [("c2s", request(rid, "tools/call", b'"name":"search","arguments":{}')),
                       ("s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","content":[],'
                               b'"isError":"false"}}' % rid)]
    return frames, kinds


def generate(path: Path, connections: int = 24, seed: int = 5) -> Counter[str]:
    """A frame log of ``connections`` conversations, their frames interleaved at random (each
    connection's in order); the last connection is never closed and its last call gets no
    answer. Returns the final kind of every call written."""
    rng = random.Random(seed)
    streams: dict[str, list[tuple[str, bytes]]] = {}
    expected: Counter[str] = Counter()
    for n in range(connections):
        frames, kinds = conversation(rng, rng.randint(5, 30))
        streams[f"conn-{n}"] = frames
        expected += kinds
    last = f"conn-{connections - 1}"
    streams[last].append(("c2s", request(999, "tools/call", b'"name":"search","arguments":{}')))
    expected["unclassified"] += 1  # no answer before the log ends
    seqs = dict.fromkeys(streams, 0)
    t = 1_790_000_000.0
    with path.open("wb") as out:
        for conn in streams:
            out.write(encode(FrameRecord(conn, 0, t, "c2s", "open", note="test", transport="stdio")))
            seqs[conn] = 1
        while streams:
            conn = rng.choice(sorted(streams))
            direction, frame = streams[conn].pop(0)
            t += 0.001
            out.write(encode(FrameRecord(conn, seqs[conn], t, direction, "message", frame,  # type: ignore[arg-type]
                                         transport="stdio")))
            seqs[conn] += 1
            if not streams[conn]:
                del streams[conn]
                if conn != last:
                    out.write(encode(FrameRecord(conn, seqs[conn], t, "s2c", "close", note="done",
                                                 transport="stdio")))
    return expected


def run(path: Path, jobs: int) -> tuple[list[Entry], Totals]:
    _, totals, entries = audit_files([str(path)], jobs=jobs)
    return list(entries), totals


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Counter[str]]:
    path = tmp_path_factory.mktemp("jobs") / "frames.jsonl"
    return path, generate(path)


def test_the_generated_log_is_judged_as_written(log: tuple[Path, Counter[str]]) -> None:
    path, expected = log
    entries, totals = run(path, 1)
    rows = [e for e in entries if isinstance(e, CallRow)]
    assert Counter(r.kind for r in rows) == expected
    assert totals.lines == sum(1 for _ in path.open("rb"))
    assert totals.tally["unreadable"] == totals.tally["stray"] == 0


@pytest.mark.parametrize(("jobs", "start"), [(2, "fork"), (3, "fork"), (2, "spawn")])
def test_more_processes_give_the_same_entries_in_the_same_order(log: tuple[Path, Counter[str]], jobs: int,
                                                                start: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = log
    one, one_totals = run(path, 1)
    monkeypatch.setattr(_run, "_start_method", lambda: start)
    many, many_totals = run(path, jobs)
    assert many == one
    assert [type(e) for e in many] == [type(e) for e in one]
    assert many_totals.tally == one_totals.tally


ROW = CallRow("f.jsonl", 3, "framelog", "wire", "c", 1, "s", None, "stdio", "t", '"7"', "2026-07-28",
              "request_meta", ("io.modelcontextprotocol/tasks",), 1.5, 2.25,
              (RoundRow("tools/call", '"7"', "protocol_error", None, 1.5, 2.25, 120, 80, 3, 4),
               RoundRow("tasks/get", "8", None, "working", None, None, 60, None, 5, None)),
              "protocol_error", "task", -32602, (FindingRow("error.code", "warning", "/error/code", "é\u2028"),),
              "return_to_model", "protocol_error", "why", "classified", False, False, "failure", False, False, True,
              True, "answered", "T1", (0, 0, 4, "c", 1))
PROBLEM = Problem("f.jsonl", 9, "unreadable", "not JSON", None, b"\xff\x00", (0, 0, 9, "", 0))


def test_entries_cross_between_processes_as_they_were() -> None:
    kind, value = _run._packed([ROW, PROBLEM])
    decoded = DECODE.decode(value)
    assert kind == "entries" and decoded == [ROW, PROBLEM]
    assert [type(e) for e in decoded] == [CallRow, Problem]
    assert type(cast(CallRow, decoded[0]).rounds) is tuple


def test_a_row_that_messagepack_cannot_hold_is_pickled() -> None:
    """An error code past 64 bits (JSON allows it) still crosses between processes."""
    row = msgspec.structs.replace(ROW, error_code=2 ** 70)
    kind, value = _run._packed([row, PROBLEM])
    assert kind == "pickled" and value == [row, PROBLEM]


@pytest.mark.parametrize("as_json", [True, False])
def test_the_cli_report_is_the_same_with_two_processes(log: tuple[Path, Counter[str]], as_json: bool) -> None:
    path, _ = log
    env = {**os.environ, "COLUMNS": "100", "TERM": "dumb"}
    flags = ["--json"] if as_json else []
    outputs = [subprocess.run([sys.executable, "-m", "mcp_verdict", "audit", *flags, "--jobs", jobs, str(path)],
                              capture_output=True, text=True, env=env, timeout=300, check=False)
               for jobs in ("1", "2")]
    assert outputs[0].returncode == outputs[1].returncode == 1, outputs[0].stderr  # the malformed isError
    assert outputs[0].stdout and outputs[1].stdout == outputs[0].stdout


def test_connections_read_the_slow_way_are_shared_alike(tmp_path: Path) -> None:
    """A connection id with an escape, and records whose keys are not in the writer's order,
    are owned by the process their connection hashes to, as the writer's own lines are."""
    import json

    path = tmp_path / "odd.jsonl"
    lines = []
    for conn in ('plain', 'quote"d', "back\\slash", "é-unicode"):
        for seq, (direction, frame) in enumerate(conversation(random.Random(len(conn)), 6)[0], 1):
            record = FrameRecord(conn, seq, 1_790_000_000.0 + seq, direction, "message", frame,  # type: ignore[arg-type]
                                 transport="stdio")
            line = encode(record)
            if conn == "plain" and seq % 2:  # the same record, its keys in another order
                value = json.loads(line)
                line = json.dumps(dict(reversed(list(value.items())))).encode() + b"\n"
            lines.append(line)
    path.write_bytes(b"".join(lines))
    one, one_totals = run(path, 1)
    two, two_totals = run(path, 2)
    assert two == one and two_totals.tally == one_totals.tally
    assert {r.conn for r in one if isinstance(r, CallRow)} == {"plain", 'quote"d', "back\\slash", "é-unicode"}
    assert one_totals.tally["unreadable"] == one_totals.tally["stray"] == 0
