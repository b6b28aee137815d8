"""Inputs as they come: gzip, redacted payloads, lines past the length bound, the progress
callback, and a problem line in the middle of a JSON-RPC file."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from mcp_verdict.audit import CallRow, Totals, audit, plan
from mcp_verdict.frames import FrameLogWriter, FrameRecord, decode

from .test_audit_recorded import comparable, run


def test_a_gzipped_log_is_read_through_gzip(demo_log: Path, tmp_path: Path) -> None:
    packed = tmp_path / "frames.jsonl.gz"
    packed.write_bytes(gzip.compress(demo_log.read_bytes()))
    assert [comparable(r) for r in run([packed])[0]] == [comparable(r) for r in run([demo_log])[0]]


def test_a_redacted_log_is_counted_not_judged(demo_log: Path, tmp_path: Path) -> None:
    redacted = tmp_path / "redacted.jsonl"
    with FrameLogWriter(redacted, payloads=False, max_bytes=1 << 30) as writer:
        for line in demo_log.open("rb"):
            record = decode(line.rstrip(b"\n"))
            assert isinstance(record, FrameRecord)
            writer.write(record)
    rows, problems, totals = run([redacted])
    assert rows == [] and problems == []
    assert totals.tally["redacted"] == sum(1 for line in demo_log.open("rb") if b'"kind":"message"' in line)
    assert totals.lines == totals.tally["redacted"] + totals.tally["transport"]


def test_a_line_past_the_bound_is_unreadable_and_skipped(demo_log: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import mcp_verdict.audit._run as run_module

    lines = demo_log.read_bytes().splitlines(True)
    bound = max(len(line) for line in lines)
    monkeypatch.setattr(run_module, "MAX_LINE", bound)
    long = tmp_path / "long.jsonl"
    long.write_bytes(b"".join(lines[:5]) + b"x" * (3 * bound) + b"\n" + b"".join(lines[5:]))
    rows, problems, totals = run([long])
    assert [(p.line, p.category) for p in problems] == [(6, "unreadable")]
    assert "longer than" in problems[0].reason
    assert totals.lines == len(lines) + 1
    assert [comparable(r) for r in rows] == [comparable(r) for r in run([demo_log])[0]]


def test_progress_reports_the_bytes_read(demo_log: Path) -> None:
    seen: list[int] = []
    inputs = plan([str(demo_log)])
    totals = Totals()
    rows = [e for e in audit(inputs, totals, progress=seen.append) if isinstance(e, CallRow)]
    assert rows and seen[-1] == demo_log.stat().st_size == totals.bytes_read
    assert seen == sorted(seen)


def test_a_broken_line_in_json_rpc_lines_is_an_answer_or_a_problem(tmp_path: Path) -> None:
    plain = tmp_path / "session.jsonl"
    plain.write_bytes(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}\n'
                      b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"cut\n'
                      b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}\n'
                      b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}\n'
                      b'not json at all\n')
    rows, problems, totals = run([plain])
    assert [(r.tool, r.kind, r.finding, r.naive) for r in rows] == [
        ("a", "unclassified", "json.syntax", "crash"), ("b", "normal_complete", None, "success")]
    assert [(p.line, p.category) for p in problems] == [(5, "unreadable")]
    assert totals.tally["call"] == 4 and totals.lines == 5
