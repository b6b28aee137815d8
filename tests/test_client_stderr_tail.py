"""The server's stderr, kept as a bounded tail (its last 64 KiB), is shown with a mark where its
start was not kept: a cut line never passes for a whole one. The servers are real processes (a
Python one-liner that writes to stderr and exits); expected values are written by hand.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "mcp_verdict"]


def failing_server(stderr: str) -> str:
    """A stdio 'server' that writes `stderr` (a Python expression) to its stderr and exits 1."""
    return shlex.join([sys.executable, "-c", f"import sys; sys.stderr.write({stderr}); sys.exit(1)"])


# (what the server writes to stderr, the stderr line quoted in the cause) - the tail keeps 65,536 bytes
CASES = [
    ('"boom\\n"', "boom"),
    ('"E" * 65535 + "\\n"', "E" * 65535),  # 65,536 bytes: all of it kept
    ('"E" * 65536 + "\\n"', "…" + "E" * 65535),  # one byte more: the first E is not kept
    ('"E" * 100000 + "\\n"', "…" + "E" * 65535),
    ('"first\\n" + "E" * 65535 + "\\n"', "E" * 65535),  # cut at a line's end: the line is whole
]


@pytest.mark.parametrize(("written", "quoted"), CASES, ids=["short", "exactly-the-tail", "one-byte-over",
                                                            "far-over", "whole-lines-dropped"])
def test_a_cut_stderr_line_is_marked(written: str, quoted: str) -> None:
    run = subprocess.run([*CLI, "call", "--mode", "legacy", "--stdio", failing_server(written), "t"],
                         capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert run.returncode == 3, run.stderr
    said = re.search(r"its stderr ends: (\S*)", run.stderr)
    assert said is not None, run.stderr
    assert said.group(1) == quoted


def test_the_tail_says_when_whole_lines_before_it_were_not_kept() -> None:
    from mcp_verdict.client._stdio import StderrTail

    tail = StderrTail()
    tail.add(b"first\n" + b"E" * 65535 + b"\n")
    assert tail.text() == "…\n" + "E" * 65535 + "\n"  # a line of its own: the line after it is whole
    tail = StderrTail()
    tail.add(b"E" * 65535 + b"\n")
    assert tail.text() == "E" * 65535 + "\n"
    tail = StderrTail()
    for _ in range(3):
        tail.add(b"E" * 30_000)
    assert tail.text() == "…" + "E" * 65536
