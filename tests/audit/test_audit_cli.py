"""``mcp-verdict audit`` as a user runs it: the terminal report at 80 columns, --json, --parquet
queried with DuckDB, --html rendered in headless Chromium with its charts drawn, exit status,
and peer text printed literally."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from mcp_verdict.frames import FrameLogWriter, FrameRecord

CLI = [sys.executable, "-m", "mcp_verdict"]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def cli(*args: str, width: int = 80) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(width), "TERM": "dumb"}
    return subprocess.run([*CLI, "audit", *args], capture_output=True, text=True, env=env, timeout=120,
                          check=False)


def test_the_terminal_report_fits_80_columns_and_its_counts_add_up(demo_log: Path) -> None:
    done = cli(str(demo_log))
    assert done.returncode == 1, done.stderr  # naive false successes were found
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    total = sum(1 for _ in demo_log.open("rb"))
    counted = next(line for line in lines if line.startswith(f"{total} lines = "))
    assert sum(int(part.split()[0]) for part in counted.split(" = ")[1].split(" + ")) == total
    words = " ".join(done.stdout.split())  # long paths wrap
    assert "naive false successes" in words and "wire fidelity" in words
    assert "json.duplicate_key" in words and "hang_up" in words


def test_json_lines_one_per_call_and_problem_then_the_summary(demo_log: Path) -> None:
    done = cli(str(demo_log), "--json")
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    calls = [o for o in objects if o["type"] == "call"]
    summary = objects[-1]
    assert summary["type"] == "summary" and summary["calls"] == len(calls)
    assert summary["lines"] == sum(summary["line_counts"].values()) == sum(1 for _ in demo_log.open("rb"))
    assert summary["naive_false_successes"] == sum(c["naive_false_success"] for c in calls)
    dup = next(c for c in calls if c["tool"] == "duplicate_is_error")
    assert dup["kind"] == "unclassified" and dup["decision"]["action"] == "investigate"
    assert dup["rounds"][0]["response_bytes"] > 0 and dup["findings"][0]["code"] == "json.duplicate_key"


def test_parquet_is_queried_with_duckdb(demo_log: Path, everything_log: Path, tmp_path: Path) -> None:
    import duckdb

    out = tmp_path / "calls.parquet"
    done = cli(str(demo_log), str(everything_log), "--parquet", str(out))
    assert done.returncode == 1, done.stderr
    con = duckdb.connect()
    rows = con.execute(f"""
        select server, tool, kind, action from read_parquet('{out}')
        where naive_false_success order by server, tool""").fetchall()
    assert ("mcp-verdict-demo", "string_is_error", "unclassified", "investigate") in rows
    # server-everything's only one: the tool error of an unknown tool, a result a naive receiver takes as success
    assert [(tool, kind) for server, tool, kind, _ in rows if server != "mcp-verdict-demo"] == [("nope", "tool_error")]
    per_kind = dict(con.execute(f"select kind, count(*) from read_parquet('{out}') group by kind").fetchall())
    assert per_kind["tool_error"] == 2  # charge_card, and server-everything's unknown tool
    rounds = con.execute(f"""select len(round_details), round_details[2].status from read_parquet('{out}')
                            where tool = 'generate_report'""").fetchone()
    assert rounds == (4, "working")
    first = con.execute(f"select findings[1].code from read_parquet('{out}') where tool = 'nan_value'").fetchone()
    assert first == ("json.syntax",)


def _png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) into rows of pixels."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, channels, rows


def test_the_html_report_renders_in_chromium_with_its_charts_drawn(demo_log: Path, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed (./run test installs Debian's chromium)")
    page = tmp_path / "report.html"
    done = cli(str(demo_log), "--html", str(page))
    assert done.returncode == 1, done.stderr
    html = page.read_text("utf-8")
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html and "<script" not in html
    profile = tmp_path / "profile"
    dom = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120, check=True)
    for chart in ("kinds-over-time", "false-successes-by-tool", "findings-by-server"):
        start = dom.stdout.index(f'id="{chart}"')
        svg = dom.stdout[start:dom.stdout.index("</svg>", start)]
        assert svg.count("<rect") >= 3, chart
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1400",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True)
    width, channels, rows = _png_pixels(shot)

    def count(rgb: tuple[int, int, int]) -> int:
        pixel = bytes(rgb)
        return sum(row[x:x + 3] == pixel for row in rows for x in range(0, width * channels, channels * 2))

    assert count((0xD6, 0x27, 0x28)) > 2000  # the red of unclassified columns and false-success bars
    assert count((0x2E, 0x9E, 0x44)) > 500  # the green of normal_complete columns


def test_peer_text_is_printed_literally(tmp_path: Path) -> None:
    log = tmp_path / "evil.jsonl"
    with FrameLogWriter(log) as writer:
        call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\u001b[2Jwipe[/]"}}'
        writer.write(FrameRecord("c", 0, 1.0, "c2s", "message", call))
        writer.write(FrameRecord("c", 1, 2.0, "s2c", "message", b'{"jsonrpc":"2.0","id":1,"result":{"isError":1}}'))
    done = cli(str(log))
    assert "\x1b" not in done.stdout and "\\x1b[2Jwipe[/]" in done.stdout


@pytest.mark.parametrize(("args", "status", "message"), [
    (["/no/such/file"], 3, "no such file"),
    (["{log}", "--format", "otlp"], 0, ""),
    (["{plain}"], 3, "not a frame log"),
    # README "The audit": a path that is no regular file stops the audit before anything is read (exit 3), in
    # one line saying why; a directory among files too, not click's usage error (exit 2)
    (["{dir}"], 3, "mcp-verdict audit: {dir}: a directory (name the files in it)\n"),
    (["{log}", "{dir}"], 3, "mcp-verdict audit: {dir}: a directory (name the files in it)\n"),
])
def test_exit_status_and_errors(demo_log: Path, tmp_path: Path, args: list[str], status: int, message: str) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("hello\n")
    (tmp_path / "logs").mkdir()
    names = {"log": demo_log, "plain": plain, "dir": tmp_path / "logs"}
    done = cli(*[a.format(**names) for a in args])
    assert done.returncode == status, done.stderr
    assert message.format(**names) in done.stderr
    assert done.stderr.count("\n") <= 1


def test_an_empty_file_and_a_damaged_gzip_file_are_reported_not_fatal(demo_log: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(b"\x1f\x8bgarbage")
    done = cli(str(empty), str(cut), str(demo_log), width=400)  # (the paths are not folded)
    assert done.returncode == 1, done.stderr  # the demo log's naive false successes: the audit ran
    out = " ".join(done.stdout.split())
    assert f"{empty}: empty: nothing to audit" in out
    assert f"{cut}: unreadable: the gzip stream is cut off before its end" in out
    assert f"{cut}:1 unreadable: the gzip stream is cut off before its end" in out
    summary = json.loads(cli(str(empty), str(cut), "--json").stdout.splitlines()[-1])
    assert [(i["path"], i["note"]) for i in summary["inputs"]] == [
        (str(empty), "empty: nothing to audit"),
        (str(cut), "unreadable: the gzip stream is cut off before its end: nothing from here to the end of the "
                   "file can be read")]
    assert summary["line_counts"]["unreadable"] == summary["lines"] == 1


@pytest.mark.parametrize(("at", "shown", "stored"), [
    # A frame log's "t" is any JSON number; only some are times a datetime holds (year 1..9999).
    (2.0, "1970-01-01 00:00:02", 2.0),
    (-5.0, "1969-12-31 23:59:55", -5.0),
    (1e300, "t=1e+300", None),  # OverflowError
    (-1e300, "t=-1e+300", None),
    (253402300800.0, "t=253402300800.0", None),  # year 10000: ValueError
])
def test_recorded_times_a_datetime_cannot_hold_do_not_stop_html_or_parquet(
        tmp_path: Path, at: float, shown: str, stored: float | None) -> None:
    import duckdb

    log = tmp_path / "times.jsonl"
    with FrameLogWriter(log) as writer:
        writer.write(FrameRecord("c", 0, at, "c2s", "message",
                                 b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}'))
        writer.write(FrameRecord("c", 1, at, "s2c", "message",
                                 b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}'))
    page, table = tmp_path / "report.html", tmp_path / "calls.parquet"
    done = cli(str(log), "--html", str(page), "--parquet", str(table))
    assert done.returncode == 0, done.stderr
    assert f"{shown} UTC" in page.read_text()
    row = duckdb.connect().execute(
        f"select kind, epoch(started_at) from read_parquet('{table}')").fetchall()
    assert row == [("normal_complete", stored)]


# An output named as one of the inputs (by any spelling or link) is a usage error said before anything is
# opened (README "The audit": exit 2; an --html or --parquet file that cannot be written is said before
# anything is read): opening it for writing would empty the recording before it is read. ({log}: a copy of
# the demo log; the message's end after "Invalid value for ...")
SAME_FILE = [
    (["{log}", "--parquet", "{log}"], "'--parquet': {log} is one of the files to audit: writing it would destroy it "
                                      "before it is read"),
    (["{log}", "--html", "{log}"], "'--html': {log} is one of the files to audit: writing it would destroy it before "
                                   "it is read"),
    (["{log}", "--html", "{link}"], "'--html': {link} is one of the files to audit: writing it would destroy it "
                                    "before it is read"),
    (["{log}", "--html", "{out}", "--parquet", "{out}"], "'--html': {out} is the --parquet file too"),
]


@pytest.mark.parametrize(("args", "message"), SAME_FILE, ids=["parquet", "html", "html through a link", "both"])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(demo_log: Path, tmp_path: Path, args: list[str],
                                                                 message: str) -> None:
    log = tmp_path / "frames.jsonl"
    log.write_bytes(demo_log.read_bytes())
    (tmp_path / "link.jsonl").symlink_to(log)
    names = {"log": str(log), "link": str(tmp_path / "link.jsonl"), "out": str(tmp_path / "report.out")}
    done = cli(*[a.format(**names) for a in args])
    assert log.read_bytes() == demo_log.read_bytes()  # the recording is untouched
    assert done.returncode == 2, done.stderr
    assert f"Invalid value for {message.format(**names)}" in " ".join(done.stderr.split())
