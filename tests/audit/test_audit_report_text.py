"""The reports hold peer text as data, bounded: what a log calls a server, a tool or a file
reaches the terminal, the page, the --json lines and the Parquet table as text that acts on
nothing (a terminal's C1 and bidi controls, a line separator, a byte no UTF-8 holds), names of
any length are shown cut with their length, any number of names and any recorded times keep
the report's size and memory bounded. Each case a table row with the text expected."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Literal

import msgspec
import pytest

from mcp_verdict.audit import CallRow, FindingRow
from mcp_verdict.audit._summary import Summary
from mcp_verdict.frames import FrameLogWriter, FrameRecord

from .test_audit_summary import ROW

CLI = [sys.executable, "-m", "mcp_verdict"]


def cli(*args: str | bytes, width: int = 80) -> subprocess.CompletedProcess[bytes]:
    """The CLI with a strict UTF-8 stdout (what a UTF-8 terminal's locale gives: a lone surrogate
    raises there, where the C locale's surrogateescape would write a byte no UTF-8 holds)."""
    env = {**os.environ, "COLUMNS": str(width), "TERM": "dumb", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([*CLI, "audit", *args], capture_output=True, env=env, timeout=120, check=False)


def one_call(path: Path, tool: str, server: str = "srv") -> Path:
    """A frame log of one connection: initialize (serverInfo.name ``server``), then a tools/call
    of ``tool`` answered with a result whose isError is 1 (a naive false success)."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "c", "version": "1"}}}
    ready = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                                   "serverInfo": {"name": server, "version": "1"}}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool}}
    with FrameLogWriter(path, max_bytes=1 << 30) as writer:
        frames: list[tuple[Literal["c2s", "s2c"], dict[str, object] | None]] = [
            ("c2s", init), ("s2c", ready), ("c2s", call), ("s2c", None)]
        for seq, (direction, message) in enumerate(frames):
            data = (json.dumps(message, ensure_ascii=False).encode() if message is not None
                    else b'{"jsonrpc":"2.0","id":1,"result":{"isError":1}}')
            writer.write(FrameRecord("c", seq, 1.0 + seq, direction, "message", data))
    return path


@pytest.mark.parametrize(("tool", "in_json"), [
    # json.dumps(ensure_ascii=False) leaves these raw; each is its \uXXXX escape in the line (the same string)
    ("csi\x9b2J", r'"tool": "csi\u009b2J"'),  # C1 CSI: a terminal's control sequence
    ("nel\x85end", r'"tool": "nel\u0085end"'),  # NEL: a line end to str.splitlines
    ("ls\u2028ps\u2029", r'"tool": "ls\u2028ps\u2029"'),  # line/paragraph separators
    ("\u202egnp.exe", r'"tool": "\u202egnp.exe"'),  # RLO (Trojan Source)
    ("del\x7f", r'"tool": "del\u007f"'),
    ("esc\x1b[2J", r'"tool": "esc\u001b[2J"'),  # json escapes C0 itself
    ("café ✓", '"tool": "café ✓"'),  # other text stays as it is
])
def test_json_lines_carry_no_raw_control_separator_or_bidi(tmp_path: Path, tool: str, in_json: str) -> None:
    done = cli(str(one_call(tmp_path / "frames.jsonl", tool)), "--json")
    assert done.returncode == 1, done.stderr
    out = done.stdout.decode("utf-8")
    assert in_json in out
    lines = out.splitlines()  # every line end str.splitlines knows
    assert [json.loads(line)["type"] for line in lines] == ["call", "summary"]
    assert json.loads(lines[0])["tool"] == tool


def test_a_path_the_file_system_could_not_decode_is_shown_with_its_escape(tmp_path: Path) -> None:
    import duckdb

    raw = os.fsencode(tmp_path) + b"/r\xff\x1b.jsonl"  # a byte no UTF-8 decodes, and ESC
    one_call(Path(os.fsdecode(raw)), "t")
    shown = f"{tmp_path}/r\\xff\x1b.jsonl"  # the byte's escape; ESC is a character of the name
    page, table = tmp_path / "report.html", tmp_path / "calls.parquet"
    done = cli(raw, "--json", "--html", str(page), "--parquet", str(table))
    assert done.returncode == 1, done.stderr
    objects = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert objects[0]["source"] == shown and objects[-1]["inputs"][0]["path"] == shown
    assert f"{tmp_path}/r\\xff\\x1b.jsonl" in page.read_text("utf-8")  # the page shows ESC as its escape too
    assert duckdb.connect().execute(f"select source from read_parquet('{table}')").fetchall() == [(shown,)]
    terminal = cli(raw).stdout.decode("utf-8")
    # (folded where the line meets the width, which the path's length sets: compared without blanks)
    assert "".join(f"{tmp_path}/r\\xff\\x1b.jsonl: framelog, wire fidelity".split()) in "".join(terminal.split())


@pytest.mark.parametrize(("args", "status", "said"), [
    ([b"/no/such/\x1b[2J\xe2\x80\xae"], 3, "mcp-verdict audit: /no/such/\\x1b[2J\\u202e: no such file"),
    ([b"/no/such/\xff"], 3, "mcp-verdict audit: /no/such/\\xff: no such file"),
    (["{log}", "--html", "/no/such/dir/report.html"], 74,
     "mcp-verdict: cannot write the output: /no/such/dir/report.html: No such file or directory"),
    (["{log}", "--parquet", "/no/such/dir/calls.parquet"], 74,
     "mcp-verdict: cannot write the output: /no/such/dir/calls.parquet: No such file or directory"),
    (["{log}", "--html", b"/no/such/\x1b[2J\xe2\x80\xae"], 74,
     "mcp-verdict: cannot write the output: /no/such/\\x1b[2J\\u202e: No such file or directory"),
])
def test_errors_name_paths_as_text_and_an_output_that_cannot_be_written_says_why(
        tmp_path: Path, args: list[str | bytes], status: int, said: str) -> None:
    log = str(one_call(tmp_path / "frames.jsonl", "t"))
    done = cli(*[a.replace("{log}", log) if isinstance(a, str) else a for a in args], width=400)
    err = done.stderr.decode("utf-8")
    assert done.returncode == status, err
    assert said in " ".join(err.split()) and "Traceback" not in err and "\x1b" not in err and "\u202e" not in err


@pytest.mark.parametrize(("tool", "server", "shown"), [
    ("\u202eevil\x1b[2J", "s", "\\u202eevil\\x1b[2J"),  # bidi and ESC: shown as on the terminal
    ("t", "<script>alert(1)</script>\u2066", "&lt;script&gt;alert(1)&lt;/script&gt;\\u2066"),
    ("</style><img src=x onerror=alert(1)>", "s", "&lt;/style&gt;&lt;img src=x onerror=alert(1)&gt;"),
    ('"><a href="javascript:alert(1)">', "s", "&quot;&gt;&lt;a href=&quot;javascript:alert(1)&quot;&gt;"),
])
def test_the_page_shows_peer_text_as_text(tmp_path: Path, tool: str, server: str, shown: str) -> None:
    page = tmp_path / "report.html"
    done = cli(str(one_call(tmp_path / "frames.jsonl", tool, server)), "--html", str(page))
    assert done.returncode == 1, done.stderr
    html = page.read_text("utf-8")
    assert shown in html
    for raw in ("\x1b", "\u202e", "\u2066", "<script", "<img", "<a "):
        assert raw not in html, raw
    assert html.count("</style>") == 1


@pytest.mark.parametrize(("tool", "server", "shown", "terminal_under", "page_under"), [
    ("T" * 1_000_000, "s", "T" * 40 + "… (1000000 characters in all)", 6_000, 30_000),
    ("t", "S" * 1_000_000, "S" * 40 + "… (1000000 characters in all)", 6_000, 30_000),
    ("\x1b" * 300_000, "s", "\\x1b" * 10 + "… (300000 characters in all)", 8_000, 40_000),
])
def test_a_name_of_any_length_is_shown_cut_with_its_length(tmp_path: Path, tool: str, server: str, shown: str,
                                                          terminal_under: int, page_under: int) -> None:
    log = one_call(tmp_path / "frames.jsonl", tool, server)
    page = tmp_path / "report.html"
    done = cli(str(log), "--html", str(page))
    assert done.returncode == 1, done.stderr
    terminal = done.stdout.decode("utf-8")
    assert "".join(shown.split()) in "".join(terminal.split()) and len(terminal) < terminal_under  # (folded)
    html = page.read_text("utf-8")
    assert shown in html and len(html) < page_under
    row = json.loads(cli(str(log), "--json").stdout.decode("utf-8").splitlines()[0])
    assert (row["tool"], row["server"]) == (tool, server)  # the call's own line keeps the whole names


def test_names_past_the_bound_are_counted_together() -> None:
    from mcp_verdict.audit._summary import MAX_PAIRS, PAST_PAIRS

    summary = Summary()
    for n in range(MAX_PAIRS + 5):
        summary.add(msgspec.structs.replace(ROW, tool=f"tool-{n}"))
    assert MAX_PAIRS == 100_000 and PAST_PAIRS == "(pairs past the first 100000)"
    assert len(summary.calls_by_tool) == 100_001
    assert summary.calls_by_tool[(PAST_PAIRS, PAST_PAIRS)] == summary.false_by_tool[(PAST_PAIRS, PAST_PAIRS)] == 5
    assert summary.calls_by_tool[("s", "tool-99999")] == 1 and summary.false_successes == 100_005


def _codes(calls: list[tuple[str, ...]]) -> list[CallRow]:
    return [msgspec.structs.replace(ROW, findings=tuple(FindingRow(code, "error", "", "recorded on the span")
                                                         for code in codes)) for codes in calls]


@pytest.mark.parametrize(("calls", "kept", "counts"), [
    # a trace export's spans may record any codes (mcp_verdict.findings), one new per call: the first
    # 100000 are counted by name, the calls of later ones together (a call once, whatever it holds past them)
    ([(f"code-{n}",) for n in range(100_005)] + [("past-a", "past-b"), ("code-7", "past-c")], 100_001,
     {"code-0": 1, "code-7": 2, "code-99999": 1, "(findings past the first 100000)": 7}),
    # a code is kept as its first 200 characters and its length, as a name is
    ([("x" * 300,), ("x" * 300,)], 1, {"x" * 200 + "… (300 characters in all)": 2}),
])
def test_finding_codes_past_the_bound_are_counted_together(calls: list[tuple[str, ...]], kept: int,
                                                            counts: dict[str, int]) -> None:
    summary = Summary()
    for row in _codes(calls):
        summary.add(row)
    assert len(summary.findings) == kept
    assert {code: summary.findings[code] for code in counts} == counts
    assert len(summary.findings_by_server) <= kept


def _strict(constant: str) -> None:
    raise ValueError(f"{constant} is no JSON number (RFC 8259 section 6)")


@pytest.mark.parametrize(("asked", "answered", "duration_ms"), [
    (3.0, 4.0, 1000.0),
    (1e300, -1e300, -2e303),
    # the span of times near a float's limits either side is past what a float holds: no duration
    (1e308, -1e308, None),
    (-1.7e308, 1.7e308, None),
    (0.0, 1.7e308, None),
])
def test_a_duration_past_what_a_float_holds_is_null_in_the_json_lines(
        tmp_path: Path, asked: float, answered: float, duration_ms: float | None) -> None:
    path = tmp_path / "frames.jsonl"
    with FrameLogWriter(path, max_bytes=1 << 30) as writer:
        writer.write(FrameRecord("c", 0, asked, "c2s", "message",
                                 b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}'))
        writer.write(FrameRecord("c", 1, answered, "s2c", "message",
                                 b'{"jsonrpc":"2.0","id":1,"result":{"isError":1}}'))
    done = cli(str(path), "--json")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.decode("utf-8").splitlines()
    rows = [json.loads(line, parse_constant=_strict) for line in lines]  # every line strict JSON
    assert [(r["type"], r.get("started_at"), r.get("ended_at"), r.get("duration_ms")) for r in rows] == [
        ("call", asked, answered, duration_ms), ("summary", None, None, None)]


DAY = 86_400


@pytest.mark.parametrize(("times", "width", "columns", "filled"), [
    # nanoseconds read as seconds (a mixed-unit log): a call a minute for 1000 minutes spans 1.9 million years;
    # the columns widen past a year by tens (364 days x 10**5) instead of one column per call
    ([1.7e18 + i * 60e9 for i in range(1000)], 364 * DAY * 10**5, 20, None),
    # a week-wide column merged into a wider one lands where its times are: day 31 is in [28, 56), not [0, 30)
    ([0.0, 31.0 * DAY, 900.0 * DAY], 28 * DAY, 33, {0: 1, 28 * DAY: 1, 896 * DAY: 1}),
    # the largest times either side (their span is infinite as a float): four columns, none lost
    ([-1.7e308, 0.0, 1.7e308], 10**308, 4, {-2 * 10**308: 1, 0: 1, 10**308: 1}),
])
def test_the_time_axis_stays_within_its_columns_whatever_the_times(
        times: list[float], width: int, columns: int, filled: dict[int, int] | None) -> None:
    summary = Summary()
    for at in times:
        summary.add(msgspec.structs.replace(ROW, started_at=at))
    timeline = summary.timeline()
    assert summary.width == width and len(timeline) == columns
    assert sum(sum(c.values()) for _, c in timeline) == len(times)
    if filled is not None:
        assert {start: sum(c.values()) for start, c in timeline if c} == filled


# A line break (LF, CR, U+2028), or a TAB, in a name: a report line of the peer's making on the terminal ("12
# lines = 12 call" under the report's own count), and on the page a name that reads as another (a page shows a
# newline as a space: "srv\nx" read "srv x"). Each is shown as its escape on the terminal and the page (what the
# README says of control characters there); the --json line and the Parquet row keep the name as it was. (Before,
# the terminal printed LF raw and the page left LF and TAB raw.)
@pytest.mark.parametrize(("tool", "server", "shown"), [
    ("t", "srv\n12 lines = 12 call + 0 message", "srv\\n12 lines = 12 call + 0 message"),
    ("tool\r\nFAKE", "s", "tool\\r\\nFAKE"),
    ("a\tb", "s", "a\\tb"),
    ("ls\u2028x", "s", "ls\\u2028x"),
])
def test_a_line_break_in_a_name_is_shown_as_its_escape(tmp_path: Path, tool: str, server: str, shown: str) -> None:
    import duckdb

    log = one_call(tmp_path / "frames.jsonl", tool, server)
    page, table = tmp_path / "report.html", tmp_path / "calls.parquet"
    done = cli(str(log), "--html", str(page), "--parquet", str(table), width=200)
    assert done.returncode == 1, done.stderr
    terminal = done.stdout.decode("utf-8")
    assert shown in terminal  # (200 columns: the row on one line)
    assert not any(line.lstrip("│ ").startswith(("12 lines", "FAKE", "b ", "x ")) for line in terminal.splitlines())
    html = page.read_text("utf-8")
    assert shown in html and (tool if tool != "t" else server) not in html  # (never raw)
    row = json.loads(cli(str(log), "--json").stdout.decode("utf-8").splitlines()[0])
    assert (row["tool"], row["server"]) == (tool, server)
    assert duckdb.connect().execute(f"select tool, server from read_parquet('{table}')").fetchall() == [(tool, server)]


# A frame-log line that is no record, quoting a value of its own of any size in why: the reason quotes at most its
# first 60 characters, so every report stays bounded (the terminal, the page, the problem's --json line); the call
# beside it is judged. (Before, a 1 MB version or http key was quoted whole: a 1 MB reason in each report.)
@pytest.mark.parametrize(("record", "reason"), [
    ('{"v":"' + "V" * 1_000_000 + '"}', "unknown format version '" + "V" * 56 + "... (this reader knows 1)"),
    ('{"v":[' + "[" * 100 + "]" * 100 + ',"' + "W" * 1_000_000 + '"]}',
     "unknown format version [" + "[" * 56 + "... (this reader knows 1)"),
    ('{"v":1,"conn":"c","seq":9,"t":1,"dir":"c2s","kind":"open","http":{"' + "K" * 1_000_000 + '":1}}',
     "http." + "K" * 60 + "… (1000000 characters in all) is not a field of the format"),
    ('{"v":1,"conn":"c","seq":9,"t":1,"dir":"c2s","kind":"open","http":{"<script>\\u202e\\n":1}}',
     "http.<script>\u202e\n is not a field of the format"),
])
def test_a_value_a_problem_quotes_is_bounded_in_every_report(tmp_path: Path, record: str, reason: str) -> None:
    log = one_call(tmp_path / "frames.jsonl", "t")
    with log.open("ab") as file:
        file.write(record.encode() + b"\n")
    page = tmp_path / "report.html"
    done = cli(str(log), "--html", str(page))
    assert done.returncode == 1, done.stderr
    terminal, html = done.stdout.decode("utf-8"), page.read_text("utf-8")
    assert len(terminal) < 6_000 and len(html) < 30_000
    assert "<script" not in html and "\u202e" not in html and "\u202e" not in terminal
    lines = [json.loads(line) for line in cli(str(log), "--json").stdout.decode("utf-8").splitlines()]
    assert [(o["type"], o.get("line"), o.get("reason")) for o in lines if o["type"] != "summary"] == [
        ("call", 3, None), ("problem", 5, reason)]
    assert lines[-1]["line_counts"]["unreadable"] == 1 and lines[-1]["calls"] == 1


def _own_span(code: str) -> bytes:
    """A trace export of one of mcp-verdict's own spans (README "OpenTelemetry": ``mcp_verdict.kind``,
    ``.decision``, ``.findings``) recording an unknown effect (check_state) and the finding ``code``."""
    attributes = {"mcp.method.name": "tools/call", "jsonrpc.request.id": "1", "gen_ai.tool.name": "t",
                  "mcp.protocol.version": "2026-07-28", "mcp_verdict.kind": "unclassified",
                  "mcp_verdict.decision": "check_state", "mcp_verdict.findings": code}
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "s"}}]},
        "scopeSpans": [{"spans": [{
            "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "tools/call t",
            "kind": 2, "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000500000000",
            "status": {"code": 2, "message": "m"},
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]}]}]}]}).encode()


# A span may record a finding code of any length: the figures count it cut to 200 characters with its length, and
# the calls with an unknown effect show their example's code the same way (terminal, page); the --json line keeps
# it whole. (Before, the example kept its code whole: a 1 MB code made a 1 MB terminal report and page.)
@pytest.mark.parametrize(("code", "shown"), [
    ("X" * 1_000_000, "X" * 200 + "… (1000000 characters in all)"),
    ("\x1b" * 300_000, "\\x1b" * 200 + "… (300000 characters in all)"),
])
def test_an_unknown_effects_code_of_any_length_is_shown_cut(tmp_path: Path, code: str, shown: str) -> None:
    export = tmp_path / "traces.jsonl"
    export.write_bytes(_own_span(code) + b"\n")
    page = tmp_path / "report.html"
    done = cli(str(export), "--html", str(page))
    assert done.returncode == 0, done.stderr
    terminal, html = done.stdout.decode("utf-8"), page.read_text("utf-8")
    assert len(terminal) < 6_000 and len(html) < 30_000
    assert "Unknown effect" in terminal and "".join(terminal.split()).count("".join(shown.split())) == 2  # (folded)
    assert html.count(f"<td>{shown}</td>") == 2  # the top findings and the unknown effect's example
    row = json.loads(cli(str(export), "--json").stdout.decode("utf-8").splitlines()[0])
    assert (row["finding"], row["unknown_effect"]) == (code, True)
