"""``mcp-verdict classify`` on inputs a user meets at the edges: one it cannot read, a closed
stdin, and JSON Lines of many short responses (README "The CLI").

- A read that fails (EIO: a bad disk, ``/proc/self/mem``) or a closed stdin (a daemon's, ``<&-``)
  is a usage error naming FILE, status 2. Before, the first was an ``OSError`` traceback (status
  1) and the second click's ``RuntimeError: Was not able to determine binary stream for
  sys.stdin.`` traceback.
- JSON Lines are judged and printed one response at a time, none kept: memory does not grow
  with the number of lines. Before, every verdict was kept until the last was made: 300,000
  lines of ``{}`` (900 kB) held ~140-180 MB, and 64 MiB of them (the largest input read whole)
  would hold ~12 GB.
- An input longer than ``--max-bytes`` whose first max-bytes + 1 bytes begin as JSON Lines is
  streamed as such; that beginning is looked at one line at a time, none kept. Before, a list of
  its lines was made: 20 MB of ``{}`` lines held ~450 MB, 64 MiB of them ~1.5 GB.
- JSON Lines holding no response (an empty log, blank lines only) say so on stderr and exit 20,
  as one empty response (unclassified) does: nothing judged is no success. Before, they printed
  nothing and exited 0, the status of normal_complete.
- A FILE that cannot be opened (missing, a directory) is named with its control, bidi and
  line-break characters as visible escapes, as click's other messages write a name. Before, the
  name was written as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "mcp_verdict"]


def _close_stdin() -> None:
    os.close(0)


# (case: the arguments, whether stdin is closed; the last line on stderr)
UNREADABLE = {
    "a file whose read fails (EIO)": (
        ["classify", "/proc/self/mem"], False,
        "Error: Invalid value for FILE: cannot read '/proc/self/mem': Input/output error"),
    "the same, as JSON Lines": (
        ["classify", "--lines", "/proc/self/mem"], False,
        "Error: Invalid value for FILE: cannot read '/proc/self/mem': Input/output error"),
    "a closed stdin": (
        ["classify"], True,
        "Error: Invalid value for '[FILE]': there is no standard input to read (it is closed): give FILE"),
    "a closed stdin, as -": (
        ["classify", "--json", "-"], True,
        "Error: Invalid value for '[FILE]': there is no standard input to read (it is closed): give FILE"),
}


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc/self/mem (a read that fails)")
@pytest.mark.parametrize("case", list(UNREADABLE))
def test_an_input_that_cannot_be_read_is_a_usage_error(case: str) -> None:
    arguments, closed, last = UNREADABLE[case]
    run = subprocess.run([*CLI, *arguments], capture_output=True, timeout=60, check=False,
                         stdin=subprocess.DEVNULL, preexec_fn=_close_stdin if closed else None)
    assert (run.returncode, run.stdout, run.stderr.decode().splitlines()[-1]) == (2, b"", last)


# (case: a FILE name (made in the work folder; a directory when it ends with "/"); the last line on
# stderr after "Error: Invalid value for '[FILE]': "). click writes the name as it is: a name made
# by someone else (`for f in logs/*`) reached the terminal with its ESC sequences (on a terminal:
# click strips them only from a pipe), its bidi override and its line breaks raw.
NAMED = {
    "a missing file with ESC and a bidi override": (
        "\x1b[2Jlog\u202etxt.json", "'\\x1b[2Jlog\\u202etxt.json': No such file or directory"),
    "a missing file with a line break": (
        "a\nError: forged", "'a\\nError: forged': No such file or directory"),
    "a directory with a bidi override": ("dir\u202e/", "'dir\\u202e': Is a directory"),
}


@pytest.mark.parametrize("case", list(NAMED))
def test_a_file_that_cannot_be_opened_is_named_with_its_controls_escaped(tmp_path: Path, case: str) -> None:
    name, says = NAMED[case]
    if name.endswith("/"):
        name = name.rstrip("/")
        (tmp_path / name).mkdir()
    run = subprocess.run([*CLI, "classify", name], capture_output=True, timeout=60, check=False, cwd=tmp_path,
                         stdin=subprocess.DEVNULL)
    assert (run.returncode, run.stdout, run.stderr.decode().splitlines()[-1]) == (
        2, b"", f"Error: Invalid value for '[FILE]': {says}")


# (case: the arguments; status, lines of output) over 300,000 JSON Lines of `{}` (each unclassified)
MANY = {
    "--json, detected": (["--json"], 20, 300_000),
    "--json --lines": (["--json", "--lines"], 20, 300_000),
}
_PEAK_KB = 100_000
"""A bound on the command's peak resident memory: ~20 MB when verdicts are not kept."""


_MEASURE = """
import json, os, subprocess, sys
with open(sys.argv[1], "wb") as sink:
    process = subprocess.Popen(sys.argv[2:], stdout=sink, stderr=subprocess.PIPE)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), stderr.decode(), usage.ru_maxrss]))
"""
"""Run a command and print its status, stderr and peak resident memory (kB). A small process of
its own starts it: a child forked from pytest would count pytest's memory as its own (Linux
keeps the peak across exec)."""


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs os.wait4 for the child's peak memory")
@pytest.mark.parametrize("case", list(MANY))
def test_json_lines_are_judged_in_bounded_memory(tmp_path: Path, case: str) -> None:
    arguments, status, count = MANY[case]
    path = tmp_path / "many.jsonl"
    path.write_bytes(b"{}\n" * 300_000)
    out = tmp_path / "out.jsonl"
    run = subprocess.run([sys.executable, "-c", _MEASURE, str(out), *CLI, "classify", *arguments, str(path)],
                         capture_output=True, timeout=300, check=True)
    returncode, stderr, peak = json.loads(run.stdout)
    with out.open("rb") as lines:
        total, last = 0, b""
        for line in lines:
            total, last = total + 1, line
    assert (returncode, stderr, total, last.endswith(b'"line": 300000}\n')) == (status, "", count, True)
    assert peak < _PEAK_KB, f"peak {peak} kB"


_FIRST_LINE = """
import json, os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
first = process.stdout.readline()
process.stdout.close()
stderr = process.stderr.read()
_, status, usage = os.wait4(process.pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), first.decode(), stderr.decode(), usage.ru_maxrss]))
"""
"""Run a command, read the first line it prints and stop reading; print its status, that line,
its stderr and its peak resident memory (kB)."""

# (case: the arguments; how the first line printed starts and ends) over 21 MB of JSON Lines of `{}`,
# past --max-bytes 20000000: detected as JSON Lines from its first 20 MB, then streamed
PAST_THE_BOUND = {
    "--json": (["--json"], '{"kind": "unclassified", ', '"line": 1}\n'),
    "terminal text": ([], "line 1  unclassified\n", "line 1  unclassified\n"),
}


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs os.wait4 for the child's peak memory")
@pytest.mark.parametrize("case", list(PAST_THE_BOUND))
def test_json_lines_past_the_bound_are_detected_in_bounded_memory(tmp_path: Path, case: str) -> None:
    """An input longer than --max-bytes is JSON Lines when its first max-bytes + 1 read so; they
    are looked at one line at a time. Before, a list of every line of them was made first: 20 MB
    of short lines held ~450 MB (64 MiB, the default bound, ~1.5 GB) before the first verdict."""
    arguments, starts, ends = PAST_THE_BOUND[case]
    path = tmp_path / "many.jsonl"
    path.write_bytes(b"{}\n" * 7_000_000)
    run = subprocess.run([sys.executable, "-c", _FIRST_LINE, *CLI, "classify", "--max-bytes", "20000000",
                          *arguments, str(path)], capture_output=True, timeout=300, check=True)
    returncode, first, stderr, peak = json.loads(run.stdout)
    assert (returncode, stderr, first.startswith(starts), first.endswith(ends)) == (141, "", True, True), first
    assert peak < _PEAK_KB, f"peak {peak} kB"


COMPLETE = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}\n'
# (case: the arguments; the first line printed for COMPLETE, before the input ends)
LIVE = {
    "--lines --json": (["--lines", "--json"],
                       b'{"kind": "normal_complete", "version": "2026-07-28", "id": 1, "findings": [], '
                       b'"is_error": false, "content_types": [], "content": [], "line": 1}\n'),
    "--lines": (["--lines"], b"line 1  normal_complete  0 block(s)\n"),
}


@pytest.mark.skipif(os.name != "posix", reason="select on a pipe is POSIX")
@pytest.mark.parametrize("case", list(LIVE))
def test_json_lines_from_a_pipe_are_judged_as_they_come(case: str) -> None:
    """``tail -f log | mcp-verdict classify --lines``: each line is judged once it has come.
    Before, the reader waited for 64 KiB (or the end of the input) before judging any line."""
    import select

    arguments, first = LIVE[case]
    process = subprocess.Popen([*CLI, "classify", *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "100"})
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(COMPLETE)
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 60)  # a guard against a hang, not a timing
        printed = process.stdout.readline() if ready else b"(nothing while the input is open)"
        process.stdin.close()
        status = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (printed, status) == (first, 0)


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal is POSIX")
def test_classify_alone_in_a_terminal_says_what_it_waits_for() -> None:
    """``mcp-verdict classify`` with no FILE in a terminal waited for stdin in silence, like a hang;
    it now says it reads the terminal and how to end (Ctrl-D), then judges what was typed."""
    from .terminal import in_a_terminal

    status, output = in_a_terminal(["classify"], [(b"end it with Ctrl-D", b"{}\n\x04")])
    lines = [line.strip() for line in output.decode("utf-8", "replace").replace("\r", "").splitlines()]
    assert (status, lines[0], "unclassified" in lines) == (
        20, "mcp-verdict classify: reading a response from the terminal; end it with Ctrl-D (or give FILE, or "
            "pipe it in)", True), output


# (case: the arguments, the input; status, stdout, stderr) -- README "The CLI", exit statuses
NOTHING = {
    "--lines, an empty input": (["--lines"], b"", 20, b"",
                                b"mcp-verdict classify: no response in the input: every line is blank\n"),
    "--lines --json, blank lines": (["--lines", "--json"], b"\n  \r\n\t\n", 20, b"",
                                    b"mcp-verdict classify: no response in the input: every line is blank\n"),
    # RFC 8259 s2: FF and VT are no JSON whitespace: a line of them is a response, and a bad one
    "--lines, a line of FF and VT": (["--lines"], b"\n\x0c\x0b\n", 20,
                                     b"line 2  unclassified\n          error json.syntax at /: not standard JSON: "
                                     b"expected value (byte 0)\n", b""),
    "detected, an empty input: one empty response": (
        [], b"", 20, b"unclassified\n  error json.syntax at /: not standard JSON: EOF while parsing a value (byte 0)\n",
        b""),
}


@pytest.mark.parametrize(("args", "given", "status", "out", "err"), NOTHING.values(), ids=NOTHING)
def test_an_input_holding_no_response_is_no_success(args: list[str], given: bytes, status: int, out: bytes,
                                                     err: bytes) -> None:
    done = subprocess.run([*CLI, "classify", *args], input=given, capture_output=True, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (status, out, err)
