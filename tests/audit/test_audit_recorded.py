"""The audit of real recorded traffic: the demo server's every tool (labels: the demo's
hand-written catalogue), server-everything and an official-SDK server (labels stated by hand in
tests/interop/test_real_servers.py), and the same logs truncated, interleaved, rotated, as plain
JSON-RPC lines, and audited by two processes."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import Action, Kind
from mcp_verdict.audit import CallRow, Entry, Problem, Totals, audit_files
from mcp_verdict.demo import CATALOGUE, CATALOGUE_BY_NAME

from ..interop.test_real_servers import EVERYTHING_CASES, SDK_CASES


def run(paths: list[Path], **options: Any) -> tuple[list[CallRow], list[Problem], Totals]:
    _, totals, entries = audit_files([str(p) for p in paths], **options)
    out: list[Entry] = list(entries)
    return ([e for e in out if isinstance(e, CallRow)], [e for e in out if isinstance(e, Problem)], totals)


def comparable(row: CallRow) -> tuple[Any, ...]:
    """A row without where it sits in which file."""
    return (row.conn, row.call, row.tool, row.request_id, row.kind, row.finding, row.action, row.naive,
            row.naive_false_success, row.end, tuple((r.method, r.kind, r.status) for r in row.rounds))


def expected(name: str) -> tuple[str, str, str, bool]:
    """(final kind, action, naive, naive false success) of a demo tool, from its catalogue entry."""
    tool = CATALOGUE_BY_NAME[name]
    final = tool.follow_up or tool.expected
    action = tool.checked_action if final.kind is Kind.NORMAL_COMPLETE and tool.checked_action else final.action
    single = tool.follow_up is None
    false_success = tool.expected.naive == "success" and not (single and action is Action.ACCEPT)
    return final.kind.value, action.value, tool.expected.naive, false_success


DEMO_TOOLS = [t.name for t in CATALOGUE if t.name not in ("get_note",)]


@pytest.mark.parametrize("name", DEMO_TOOLS)
def test_each_demo_call_is_judged_as_the_catalogue_says(demo_log: Path, name: str) -> None:
    rows, _, _ = run([demo_log])
    row = next(r for r in rows if r.tool == name)
    assert (row.kind, row.action, row.naive, row.naive_false_success) == expected(name), row.findings
    tool = CATALOGUE_BY_NAME[name]
    final = tool.follow_up or tool.expected
    if final.finding:
        assert row.finding == final.finding
    if final.error_code:
        assert row.error_code == final.error_code
    assert row.server == "mcp-verdict-demo" and row.transport == "stdio"
    assert row.protocol_version == "2026-07-28" and row.version_source == "request_meta"


def test_rounds_tasks_and_the_hang_up_are_followed(demo_log: Path) -> None:
    rows, problems, totals = run([demo_log])
    by_tool = {r.tool: r for r in rows}
    confirm = by_tool["confirm_delete"]
    assert [(r.method, r.kind) for r in confirm.rounds] == [("tools/call", "input_required"),
                                                            ("tools/call", "normal_complete")]
    report = by_tool["generate_report"]
    assert report.first_kind == "task" and report.task_id is not None and report.finished
    assert [r.method for r in report.rounds] == ["tools/call", "tasks/get", "tasks/get", "tasks/get"]
    assert [r.status for r in report.rounds[1:]] == ["working", "working", "completed"]
    hang = by_tool["hang_up"]
    assert (hang.answered, hang.end, hang.finding, hang.unknown_effect) == (False, "closed", "transport.closed", True)
    assert by_tool["count_open_tickets"].content_checked
    assert problems == []
    assert totals.lines == sum(1 for _ in demo_log.open("rb"))
    assert totals.tally["stray"] == totals.tally["unreadable"] == 0


def test_server_everything_recorded_over_stdio(everything_log: Path) -> None:
    rows, problems, totals = run([everything_log])
    by_tool = {r.tool: r for r in rows}
    for name, _, kind, action, _ in EVERYTHING_CASES:
        row = by_tool[name]
        assert (row.kind, row.action) == (kind.value, action.value), (name, row.findings)
        assert row.protocol_version == "2025-11-25" and row.version_source == "initialize"
    assert by_tool["get-structured-content"].content_checked
    elicited = by_tool["trigger-elicitation-request"]
    assert (elicited.kind, elicited.action) == ("normal_complete", "accept")
    # a 2025 server asks with requests of its own while the call waits: they are the call's input rounds
    assert [r.method for r in elicited.rounds] == ["elicitation/create", "tools/call"]
    assert [r.method for r in by_tool["trigger-sampling-request"].rounds] == ["sampling/createMessage", "tools/call"]
    assert elicited.naive_false_success is False  # its one answer was the accepted result
    assert by_tool["echo"].server and problems == []
    assert totals.tally["message"] >= 4  # initialize and tools/list, each a request and its answer
    assert totals.lines == sum(1 for _ in everything_log.open("rb"))


def test_the_official_sdk_server_recorded_over_stdio(sdk_log: Path) -> None:
    rows, _, _ = run([sdk_log])
    by_tool = {r.tool: r for r in rows}
    for name, _, kind, action, _ in SDK_CASES:
        assert (by_tool[name].kind, by_tool[name].action) == (kind.value, action.value), name
    assert [r.kind for r in by_tool["greet"].rounds] == ["input_required", "normal_complete"]
    assert by_tool["add"].content_checked


def test_a_truncated_log_loses_nothing(demo_log: Path, tmp_path: Path) -> None:
    lines = demo_log.read_bytes().splitlines(keepends=True)
    demo_1 = [i for i, line in enumerate(lines) if b'"demo-1"' in line and b'"s2c"' in line
              and b"string_is_error" not in line]
    cut = demo_1[len(demo_1) // 2]  # an answer, cut in the middle of its line: the rest is lost
    broken = tmp_path / "truncated.jsonl"
    broken.write_bytes(b"".join(lines[:cut]) + lines[cut][: len(lines[cut]) // 2])
    rows, problems, totals = run([broken])
    assert totals.lines == cut + 1
    assert [(p.category, p.line) for p in problems] == [("unreadable", cut + 1)]
    assert "not JSON" in problems[0].reason
    ended = [r for r in rows if r.end == "log_ended"]
    assert len(ended) == 1 and ended[0].finding == "transport.closed" and ended[0].action == "check_state"
    assert sum(totals.tally.values()) == totals.lines


def test_interleaved_connections_give_the_same_calls(demo_log: Path, everything_log: Path, tmp_path: Path) -> None:
    a, b = demo_log.read_bytes().splitlines(True), everything_log.read_bytes().splitlines(True)
    mixed = tmp_path / "mixed.jsonl"
    out = []
    for i in range(max(len(a), len(b))):
        out += [*a[i:i + 1], *b[i:i + 1]]
    mixed.write_bytes(b"".join(out))
    rows, _, totals = run([mixed])
    alone = run([demo_log])[0] + run([everything_log])[0]
    assert sorted(map(comparable, rows)) == sorted(map(comparable, alone))
    assert totals.lines == len(a) + len(b)


def test_a_rotated_log_is_one_recording(demo_log: Path, tmp_path: Path) -> None:
    lines = demo_log.read_bytes().splitlines(True)
    (tmp_path / "frames.jsonl.2").write_bytes(b"".join(lines[:20]))
    (tmp_path / "frames.jsonl.1").write_bytes(b"".join(lines[20:41]))
    (tmp_path / "frames.jsonl").write_bytes(b"".join(lines[41:]))
    parts = [tmp_path / "frames.jsonl", tmp_path / "frames.jsonl.1", tmp_path / "frames.jsonl.2"]
    rows, problems, _ = run(parts)
    assert sorted(map(comparable, rows)) == sorted(map(comparable, run([demo_log])[0]))
    assert problems == []


def test_two_processes_give_the_same_entries_in_the_same_order(demo_log: Path, everything_log: Path) -> None:
    one = run([demo_log, everything_log])
    two = run([demo_log, everything_log], jobs=2)
    assert one[0] == two[0] and one[1] == two[1]
    assert one[2].tally == two[2].tally


def test_plain_jsonrpc_lines_are_judged_the_same(demo_log: Path, tmp_path: Path) -> None:
    plain = tmp_path / "demo-1.jsonl"
    with plain.open("wb") as out:
        for line in demo_log.open("rb"):
            record = json.loads(line)
            if record["conn"] == "demo-1" and record["kind"] == "message":
                data = (record["data"].encode("utf-8", "surrogatepass") if "data" in record
                        else base64.b64decode(record["b64"]))
                out.write(data + b"\n")
    rows, problems, totals = run([plain])
    framed = [r for r in run([demo_log])[0] if r.conn == "demo-1"]
    assert [(r.tool, r.kind, r.finding, r.action, r.naive) for r in rows] == [
        (r.tool, r.kind, r.finding, r.action, r.naive) for r in framed]
    assert problems == []
    assert all(r.input_format == "jsonrpc" and r.started_at is None for r in rows)
    assert totals.lines == sum(1 for _ in plain.open("rb"))
