"""Inputs as they come: gzip (whole or damaged), redacted payloads, lines past the length bound,
the progress callback, a problem line in the middle of a JSON-RPC file, files with nothing to
detect a format from, and paths that are no file."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import AuditError, CallRow, Totals, audit, plan
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
    import mcp_verdict.audit._files as files_module

    lines = demo_log.read_bytes().splitlines(True)
    bound = max(len(line) for line in lines)
    monkeypatch.setattr(files_module, "MAX_LINE", bound)
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


# A gzip file that cannot be read to its end (a log compressed while it was written, a copy cut
# off, a bad disk): the lines before the damage are audited as the same lines of a plain file
# are, the damage is one unreadable line where it begins, and the other inputs are audited. The
# damage is built at a member boundary (a gzip file may hold several members, read in turn), so
# where it begins is known. (name, the file's bytes from the demo log's lines, lines read before
# the damage, words of the reason)
def _member(lines: list[bytes]) -> bytes:
    return gzip.compress(b"".join(lines), mtime=0)


def _bad_checksum(lines: list[bytes]) -> bytes:
    member = bytearray(_member(lines))
    member[-8] ^= 0xFF  # the CRC-32 of the member's data (RFC 1952 section 2.3), first byte flipped
    return bytes(member)


DAMAGED_GZIP = [
    ("cut off inside the next member's header", lambda ls: _member(ls[:20]) + b"\x1f\x8b\x08", 20,
     "the gzip stream is cut off before its end"),
    ("corrupt deflate data after a good header", lambda ls: _member(ls[:20]) + _member(ls[20:30])[:10] + b"\xff" * 16,
     20, "not a valid gzip stream (Error -3"),
    ("a member whose checksum is wrong (its lines are read, then the check fails)",
     lambda ls: _member(ls[:20]) + _bad_checksum(ls[20:30]), 30, "not a valid gzip stream (CRC check failed"),
    ("a gzip header and nothing readable after it", lambda ls: b"\x1f\x8b" + b"garbage", 0,
     "the gzip stream is cut off before its end"),
]


@pytest.mark.parametrize(("name", "build", "read", "why"), DAMAGED_GZIP, ids=[c[0] for c in DAMAGED_GZIP])
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_damaged_gzip_file_is_audited_up_to_the_damage(demo_log: Path, tmp_path: Path, name: str, build: Any,
                                                         read: int, why: str, jobs: int) -> None:
    lines = demo_log.read_bytes().splitlines(True)
    assert len(lines) > 30
    damaged = tmp_path / "frames.jsonl.gz"
    damaged.write_bytes(build(lines))
    plain = tmp_path / "prefix.jsonl"
    plain.write_bytes(b"".join(lines[:read]))
    other = tmp_path / "other.jsonl"
    other.write_bytes(demo_log.read_bytes())
    rows, problems, totals = run([damaged, other], jobs=jobs)
    assert [(p.source, p.line, p.category) for p in problems] == [(str(damaged), read + 1, "unreadable")]
    assert problems[0].reason.startswith(why) and "nothing from here to the end of the file" in problems[0].reason
    assert totals.lines == read + 1 + len(lines)  # every line accounted for: those read, the damage, the other file
    damaged_rows = [comparable(r) for r in rows if r.source == str(damaged)]
    assert damaged_rows == ([comparable(r) for r in run([plain])[0]] if read else [])
    assert [comparable(r) for r in rows if r.source == str(other)] == [comparable(r) for r in run([demo_log])[0]]
    (item, _) = plan([str(damaged), str(other)])
    assert (item.format, item.note is None) == (("framelog", True) if read else ("framelog", False))


def test_a_damaged_gzip_file_as_a_frame_table_keeps_its_lines_and_the_damage(demo_log: Path, tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    from mcp_verdict.audit._arrow import FRAME_SCHEMA, audit_batches, frame_batches

    lines = demo_log.read_bytes().splitlines(True)
    damaged = tmp_path / "frames.jsonl.gz"
    damaged.write_bytes(_member(lines[:20]) + b"\x1f\x8b\x08")
    table = [row for batch in frame_batches(plan([str(damaged)])) for row in batch.to_pylist()]
    assert [(r["line"], r["text"]) for r in table] == [
        *((n, line.rstrip(b"\n")) for n, line in enumerate(lines[:20], 1)), (21, None)]
    audited = [row for batch in audit_batches([pa.RecordBatch.from_pylist(table, schema=FRAME_SCHEMA)])
               for row in batch.to_pylist()]
    problems = [(r["line"], r["category"], r["problem"]) for r in audited if r["entry"] == "problem"]
    assert problems == [(21, "unreadable", "the line cannot be read (too long, or a damaged file from here on)")]
    local_rows, _, _ = run([damaged])
    assert len([r for r in audited if r["entry"] == "call"]) == len(local_rows)


def test_a_gzip_file_unreadable_from_its_start_says_so_in_the_plan(tmp_path: Path) -> None:
    damaged = tmp_path / "x.gz"
    damaged.write_bytes(b"\x1f\x8bgarbage")
    (item,) = plan([str(damaged)])
    assert item.note == ("unreadable: the gzip stream is cut off before its end: nothing from here to the end "
                         "of the file can be read")


# Files with nothing to detect a format from: audited as their recording's other files are (a
# frame log alone), with a note, the other inputs audited. (name, files written: name -> content
# or "DEMO" for the demo log, the expected notes by file, blank lines counted)
EMPTY_INPUTS = [
    ("an empty file beside a log", {"empty.jsonl": b"", "frames.jsonl": "DEMO"},
     {"empty.jsonl": "empty: nothing to audit", "frames.jsonl": None}, 0),
    ("blank lines only", {"blank.jsonl": b"\n \n\r\n", "frames.jsonl": "DEMO"},
     {"blank.jsonl": "empty: nothing to audit", "frames.jsonl": None}, 3),
    ("the current file of a rotated log, just rotated", {"frames.jsonl": b"", "frames.jsonl.1": "DEMO"},
     {"frames.jsonl.1": None, "frames.jsonl": "empty: nothing to audit"}, 0),
    ("an empty gzip file", {"empty.jsonl.gz": gzip.compress(b""), "frames.jsonl": "DEMO"},
     {"empty.jsonl.gz": "empty: nothing to audit", "frames.jsonl": None}, 0),
]


@pytest.mark.parametrize(("name", "files", "notes", "blank"), EMPTY_INPUTS, ids=[c[0] for c in EMPTY_INPUTS])
def test_a_file_with_nothing_to_detect_does_not_stop_the_audit(demo_log: Path, tmp_path: Path, name: str,
                                                             files: dict[str, Any], notes: dict[str, str | None],
                                                             blank: int) -> None:
    for file, content in files.items():
        (tmp_path / file).write_bytes(demo_log.read_bytes() if content == "DEMO" else content)
    paths = [str(tmp_path / file) for file in files]
    inputs = plan(paths)
    assert {Path(i.path).name: i.note for i in inputs} == notes
    assert {i.format for i in inputs} == {"framelog"}  # the demo log's format, taken by the empty file
    rows, problems, totals = run([tmp_path / file for file in files])
    assert problems == [] and totals.tally["blank"] == blank
    assert [comparable(r) for r in rows] == [comparable(r) for r in run([demo_log])[0]]
    assert totals.lines == len(demo_log.read_bytes().splitlines()) + blank


@pytest.mark.parametrize(("make", "message"), [
    (lambda tmp: str(tmp / "missing.jsonl"), "no such file"),
    (str, "a directory (name the files in it)"),
    (lambda tmp: os.devnull, "not a regular file (the audit reads files it can seek in)"),
])
def test_a_path_that_is_no_file_stops_the_plan_with_why(tmp_path: Path, make: Any, message: str) -> None:
    path = make(tmp_path)
    with pytest.raises(AuditError) as raised:
        plan([path])
    assert str(raised.value) == f"{path}: {message}"


BOM = b"\xef\xbb\xbf"


def _jsonrpc_lines(demo_log: Path) -> bytes:
    """The demo log's first connection as JSON-RPC JSON Lines (what a tool logging messages writes)."""
    out = []
    for line in demo_log.open("rb"):
        record = decode(line.rstrip(b"\n"))
        if isinstance(record, FrameRecord) and record.conn == "demo-1" and record.data is not None:
            out.append(record.data + b"\n")
    return b"".join(out)


# A UTF-8 byte order mark before a file's first line (as Notepad or PowerShell 5's Out-File write
# UTF-8): RFC 8259 section 8.1, "implementations that parse JSON texts MAY ignore the presence of a
# byte order mark rather than treating it as an error". The file is detected and read as without it,
# with any number of processes. (name, the file's bytes from the demo log, format, jobs, blank lines)
BOM_INPUTS = [
    ("a frame log", lambda log: BOM + log.read_bytes(), "framelog", 1, 0),
    ("a frame log, two processes", lambda log: BOM + log.read_bytes(), "framelog", 2, 0),
    ("a gzip frame log", lambda log: gzip.compress(BOM + log.read_bytes()), "framelog", 1, 0),
    ("JSON-RPC JSON Lines", lambda log: BOM + _jsonrpc_lines(log), "jsonrpc", 1, 0),
    ("a frame log with CRLF line ends, two processes",
     lambda log: BOM + log.read_bytes().replace(b"\n", b"\r\n"), "framelog", 2, 0),
    ("a blank first line", lambda log: BOM + b"\r\n" + log.read_bytes(), "framelog", 2, 1),
]


@pytest.mark.parametrize(("name", "make", "format", "jobs", "blank"), BOM_INPUTS, ids=[c[0] for c in BOM_INPUTS])
def test_a_byte_order_mark_before_the_first_line_is_ignored(demo_log: Path, tmp_path: Path, name: str, make: Any,
                                                           format: str, jobs: int, blank: int) -> None:
    data = make(demo_log)
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(data)
    plain = tmp_path / "plain.jsonl"  # the same lines without the mark
    plain.write_bytes((gzip.decompress(data) if data.startswith(b"\x1f\x8b") else data).removeprefix(BOM))
    (item,) = plan([str(marked)])
    assert (item.format, item.note) == (format, None)
    rows, problems, totals = run([marked], jobs=jobs)
    assert problems == [] and totals.tally["unreadable"] == 0 and totals.tally["blank"] == blank
    assert totals.lines == plain.read_bytes().count(b"\n")
    # (a JSON-RPC file is its own connection: named for it)
    assert [comparable(r)[1:] for r in rows] == [comparable(r)[1:] for r in run([plain])[0]]
    assert len(rows) > 0


# A file's format, from its first line (README "The audit": detected from the first line). A JSON-RPC batch
# (https://www.jsonrpc.org/specification#batch: an array of requests, notifications or responses; MCP's
# from 2025-03-26 to 2025-06-18) is a JSON-RPC line; its calls are then stray lines (batches are no part of
# MCP since 2025-06-18), not a reason to stop the audit.
FIRST_LINES = [
    ("a frame log record", b'{"v":1,"conn":"c","seq":0,"t":1.0,"dir":"c2s","kind":"open"}', "framelog"),
    ("an OTLP TracesData", b'{"resourceSpans":[]}', "otlp"),
    ("a JSON-RPC request", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}', "jsonrpc"),
    ("a JSON-RPC batch of a request and a notification",
     b'[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}},'
     b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}]', "jsonrpc"),
    ("a JSON-RPC batch of responses", b'[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]',
     "jsonrpc"),
    # bytes that are no UTF-8 in a string (a Latin-1 client's argument): still a JSON-RPC line, its bytes a
    # finding or an unreadable line for the audit to report (README "The audit": bad UTF-8 is visible on the wire)
    ("a JSON-RPC request with a Latin-1 byte in a string",
     b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"city":"S\xe3o Paulo"}}}',
     "jsonrpc"),
    ("a frame log record with a Latin-1 byte in its note",
     b'{"v":1,"conn":"c","seq":0,"t":1.0,"dir":"c2s","kind":"open","note":"S\xe3o"}', "framelog"),
    # what orjson refuses and RFC 8259's grammar allows (section 7: a lone surrogate escape; OpenTelemetry's JSON
    # exporter writes one for a Python string holding it), and NaN (no JSON: a json.* finding of the answer), in
    # a line of that shape: still that format, read as the audit reads such a line
    ("an OTLP TracesData with a lone surrogate escape",
     b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"r\\udcff"}]}]}]}', "otlp"),
    ("a JSON-RPC request with a lone surrogate escape",
     b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r\\udcff"}}', "jsonrpc"),
    ("a JSON-RPC answer holding NaN", b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"n":NaN}}', "jsonrpc"),
    ("an array of other objects", b'[{"name":"t"}]', None),
    ("an empty array", b"[]", None),
    ("a number", b"7", None),
]


@pytest.mark.parametrize(("name", "first", "format"), FIRST_LINES, ids=[c[0] for c in FIRST_LINES])
def test_the_format_is_detected_from_the_first_line(tmp_path: Path, name: str, first: bytes,
                                                    format: str | None) -> None:
    path = tmp_path / "recorded.jsonl"
    path.write_bytes(first + b"\n")
    if format is None:
        with pytest.raises(AuditError, match="its first line is none of them"):
            plan([str(path)])
        return
    (item,) = plan([str(path)])
    assert item.format == format
    _, _, totals = run([path])
    assert totals.lines == 1


# A file in UTF-16 or UTF-32 (what Windows PowerShell 5's `>` writes: UTF-16LE with its byte order mark) stops
# the audit saying so, where it said the first line was of no known format and to name one with --format
# (which reads every line as unreadable). JSON Lines are UTF-8 (https://jsonlines.org/: "UTF-8 Encoding").
# (Python's codec, with its mark, → the message's end)
WIDE = [
    ("utf-16", "UTF-16LE text (it begins with that byte order mark); JSON Lines are UTF-8: convert it "
               "(iconv -f UTF-16 -t UTF-8)"),
    ("utf-32", "UTF-32LE text (it begins with that byte order mark); JSON Lines are UTF-8: convert it "
               "(iconv -f UTF-32 -t UTF-8)"),
]


@pytest.mark.parametrize(("codec", "message"), WIDE, ids=[c[0] for c in WIDE])
def test_a_utf16_or_utf32_file_stops_the_plan_saying_so(demo_log: Path, tmp_path: Path, codec: str,
                                                        message: str) -> None:
    path = tmp_path / "messages.jsonl"
    path.write_bytes(_jsonrpc_lines(demo_log).decode("utf-8", "surrogateescape").encode(codec, "surrogatepass"))
    with pytest.raises(AuditError) as raised:
        plan([str(path)])
    assert str(raised.value) == f"{path}: {message}"


# A file named twice — overlapping globs (`audit *.jsonl frames.jsonl`), another spelling, a link to it — is
# audited once: its calls are not counted twice. (name, the names given; "log" is the demo log's copy)
NAMED_TWICE = [
    ("the same name twice", ["log", "log"]),
    ("./ and the plain name", ["log", "./log"]),
    ("the file and a link to it", ["log", "link"]),
]


@pytest.mark.parametrize(("name", "given"), NAMED_TWICE, ids=[c[0] for c in NAMED_TWICE])
def test_a_file_named_twice_is_audited_once(demo_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            name: str, given: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("frames.jsonl").write_bytes(demo_log.read_bytes())
    Path("link.jsonl").symlink_to("frames.jsonl")
    names = {"log": "frames.jsonl", "./log": "./frames.jsonl", "link": "link.jsonl"}
    paths = [Path(names[g]) for g in given]
    assert [item.name for item in plan([str(p) for p in paths])] == ["frames.jsonl"]
    rows, _, totals = run(paths)
    assert [comparable(r) for r in rows] == [comparable(r) for r in run([demo_log])[0]]
    assert totals.lines == len(demo_log.read_bytes().splitlines())
