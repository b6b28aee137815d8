"""The CLI's output streams, as a shell pipeline and a JSON reader meet them.

- A reader that stops reading (``| head``): the command ends quietly with 141 (128 + SIGPIPE,
  README "The CLI"), whatever it was writing — rich's terminal output, ``--json``, JSON Lines.
  Before, ``audit --json`` said "mcp-verdict audit: [Errno 32] Broken pipe" and exited 3 (an
  input it could not read), rich's output exited 1 (``audit``'s status for a naive false
  success), click's own handling 1.
- ``--json`` of every command escapes what ``json.dumps`` leaves raw and a terminal or a line
  splitter acts on (DEL, C1 controls such as U+009B, CSI; the bidi controls; U+2028, U+2029; a
  lone surrogate) as ``\\uXXXX``: the same JSON value, no raw control byte (``classify --json``
  wrote them raw; ``audit --json`` was fixed alone in be88b92).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "mcp_verdict"]
READER_GONE = 141


def calls_log(path: Path, calls: int) -> Path:
    """A JSON-RPC log of ``calls`` tools/call with a malformed answer each (``isError: "false"``)."""
    lines = []
    for i in range(calls):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": f"t{i}"}}))
        lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "result": {
            "resultType": "complete", "content": [], "isError": "false"}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def answers(path: Path, count: int) -> Path:
    """``count`` JSON Lines of one complete answer each (a line of terminal output each)."""
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [
        {"type": "text", "text": "x" * 40}]}})
    path.write_text((line + "\n") * count)
    return path


# (the command's arguments, given a work folder): each writes far past a pipe's 64 KiB
READER_GONE_CASES = {
    "classify, terminal": lambda tmp: ["classify", str(answers(tmp / "a.jsonl", 20_000))],
    "classify --json": lambda tmp: ["classify", "--json", str(answers(tmp / "a.jsonl", 20_000))],
    "audit --json": lambda tmp: ["audit", "--json", str(calls_log(tmp / "log.jsonl", 5_000))],
}


@pytest.mark.parametrize("case", list(READER_GONE_CASES))
def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path: Path, case: str) -> None:
    command = [*CLI, *READER_GONE_CASES[case](tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "COLUMNS": "100"})
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(100)  # then the reader goes, as `head -c 100` does
    process.stdout.close()
    stderr = process.stderr.read()
    assert (process.wait(timeout=120), stderr) == (READER_GONE, b"")


# (a text block's text; what --json holds for it, as written)
ESCAPED_CASES = [
    ("csi\u009b2J", "csi\\u009b2J"),  # C1: CSI to a terminal
    ("del\x7f", "del\\u007f"),
    ("rlo\u202eevil", "rlo\\u202eevil"),  # bidi override
    ("line\u2028sep", "line\\u2028sep"),  # a line end to str.splitlines
    ("café 東京", "café 東京"),  # readable non-ASCII stays as it is
    ("esc\x1b[2J", "esc\\u001b[2J"),  # (json.dumps escapes C0 itself)
]


@pytest.mark.parametrize(("text", "written"), ESCAPED_CASES)
def test_classify_json_escapes_what_a_terminal_acts_on(tmp_path: Path, text: str, written: str) -> None:
    response = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete",
                                                      "content": [{"type": "text", "text": text}]}}
    path = tmp_path / "r.json"
    path.write_bytes(json.dumps(response, ensure_ascii=False).encode())
    run = subprocess.run([*CLI, "classify", "--json", str(path)], capture_output=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    out = run.stdout.decode("utf-8")
    assert written in out
    assert not any(ch in out for ch in "\u009b\x7f\u202e\u2028\x1b")
    assert json.loads(out)["content"][0]["text"] == text
