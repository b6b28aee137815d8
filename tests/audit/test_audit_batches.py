"""How the audit reads a file's lines: in batches (``_files._batches``), each item one line as read
(its line end kept) or why it cannot be read, with the bytes each batch took. The cases are
bytes written by hand with the items and sizes expected, read with the line bound set to 8 bytes
and batches of about 6 bytes, so every rule meets a batch's edge: a line of exactly the bound and
one byte past it, a long line between two batches and at the end of the file, no final line end,
CRLF, a byte limit (the lines that start within it: a part of a log), and a gzip stream cut off
after its lines. A frame log line is read the same with or without its line end, and a line that
is no record is reported without it (``_formats.read_framelog``)."""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import _files, _formats
from mcp_verdict.frames import FrameRecord, LogProblem

LONG = "the line is longer than 8 bytes"
CUT = "the gzip stream is cut off before its end: nothing from here to the end of the file can be read"

# (name, the file's bytes, limit, [(the batch's items, the bytes it took)])
BATCHES: list[tuple[str, bytes, int | None, list[tuple[list[Any], int]]]] = [
    ("empty", b"", None, []),
    ("two lines, one batch", b"ab\ncd\n", None, [([b"ab\n", b"cd\n"], 6)]),
    ("a batch ends past 6 bytes", b"ab\ncd\nef\n", None, [([b"ab\n", b"cd\n"], 6), ([b"ef\n"], 3)]),
    ("no final line end", b"ab\ncd", None, [([b"ab\n", b"cd"], 5)]),
    ("CRLF and blank lines kept as read", b"a\r\n\n \r\n", None, [([b"a\r\n", b"\n", b" \r\n"], 7)]),
    ("a line of exactly 8 bytes", b"12345678\nx\n", None, [([b"12345678\n"], 9), ([b"x\n"], 2)]),
    ("9 bytes: past the bound, alone in its batch", b"123456789\nx\n", None, [([LONG], 10), ([b"x\n"], 2)]),
    ("a long line between two lines", b"a\n" + b"1" * 30 + b"\nb\n", None,
     [([b"a\n"], 2), ([LONG], 31), ([b"b\n"], 2)]),
    ("a long line at the end, no line end", b"a\n" + b"1" * 20, None, [([b"a\n"], 2), ([LONG], 20)]),
    ("9 bytes at the end, no line end", b"123456789", None, [([LONG], 9)]),
    ("limit at a line end: the lines before it", b"aa\nbb\ncc\n", 3, [([b"aa\n"], 3)]),
    ("limit inside a line: the line that starts before it, whole", b"aa\nbb\ncc\n", 4, [([b"aa\n", b"bb\n"], 6)]),
    ("limit 0: no line", b"aa\nbb\n", 0, []),
    ("limit past a long line", b"a\n" + b"1" * 12 + b"\nb\nc\n", 16, [([b"a\n"], 2), ([LONG], 13), ([b"b\n"], 2)]),
]


@pytest.mark.parametrize(("name", "data", "limit", "expected"), BATCHES, ids=[c[0] for c in BATCHES])
def test_batches(monkeypatch: pytest.MonkeyPatch, name: str, data: bytes, limit: int | None,
                 expected: list[tuple[list[Any], int]]) -> None:
    monkeypatch.setattr(_files, "MAX_LINE", 8)
    monkeypatch.setattr(_files, "_BATCH", 6)
    assert list(_files._batches(io.BufferedReader(io.BytesIO(data)), limit)) == expected


def test_a_gzip_stream_cut_off_gives_its_lines_then_why(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(b"ab\ncd\n", mtime=0) + b"\x1f\x8b\x08")
    with _files._open(str(path)) as handle:
        assert list(_files._batches(handle)) == [([b"ab\n", b"cd\n"], 6), ([CUT], 0)]


def test_lines_number_the_batches_items(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_files, "MAX_LINE", 8)
    monkeypatch.setattr(_files, "_BATCH", 6)
    data = b"ab\r\ncd\n" + b"1" * 12 + b"\nef"
    assert list(_files._lines(io.BufferedReader(io.BytesIO(data)), first=5)) == [
        (5, b"ab", 4), (6, b"cd", 3), (7, LONG, 13), (8, b"ef", 2)]


RECORD = b'{"v":1,"conn":"c1","seq":0,"t":1.5,"dir":"c2s","kind":"message","data":"{}"}'


@pytest.mark.parametrize("end", [b"", b"\n", b"\r\n", b"\r\r\n"])
def test_a_frame_log_line_reads_the_same_with_or_without_its_end(end: bytes) -> None:
    assert _formats.read_framelog(RECORD + end, 3) == FrameRecord("c1", 0, 1.5, "c2s", "message", b"{}")


@pytest.mark.parametrize("end", [b"", b"\n", b"\r\n"])
def test_a_line_that_is_no_record_is_reported_without_its_end(end: bytes) -> None:
    problem = _formats.read_framelog(b"not json" + end, 3)
    assert isinstance(problem, LogProblem)
    assert (problem.line, problem.text, problem.reason.startswith("not JSON: ")) == (3, b"not json", True)
