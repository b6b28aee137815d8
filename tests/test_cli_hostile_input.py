"""``call`` and ``tools`` fed what a demanding user or a hostile server gives them: a tool listing
whose schema holds what no schema of names should, a task status that is no status and carries
terminal control sequences, a tool name or arguments no tool call can carry.

Each command runs for real as a subprocess (piped, COLUMNS=80) against
tests/servers/misbehaving.py; the expected lines are written by hand. What is checked: no
traceback, the documented exit status (README "The CLI": 2 usage error, 20 unclassified), and
peer text printed literally with its control sequences as visible escapes.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]


def server(mode: str) -> str:
    return shlex.join([sys.executable, "-m", "tests.servers.misbehaving", "stdio", mode])


# (command line after the command's name, exit status, a line stdout holds, a line stderr holds), by hand
CASES: list[tuple[list[str], int, str, str]] = [
    # JSON Schema 2020-12 s6.5.3: "required" is an array of strings. One that holds an object and a
    # number is listed (the tool exists), its arguments named as the properties say.
    (["tools", "--stdio", server("odd_required")], 0,
     "│ t    │             │ path: string, n?: integer │        │", ""),
    # A tasks/get status outside the spec's five is the task.field verdict; the status itself, in the
    # round's line, is peer text: its ESC and BEL shown as escapes, its markup as typed.
    (["call", "--stdio", server("task_hostile"), "t", "--tasks"], 20,
     "  round 2  tasks/get  unclassified (working\\x1b[2J\\x1b]0;PWNED\\a[bold]x)", ""),
    # A tool name or arguments no tool call can carry (client/_client.py refuses them before anything
    # is sent): a usage error naming TOOL or ARGUMENTS, never a traceback. A byte that is no UTF-8 on
    # the command line reaches Python as a lone surrogate.
    (["call", "--stdio", server("ok"), ""], 2, "",
     "Error: Invalid value for TOOL: name must be a tool's name (a non-empty string), not ''"),
    (["call", "--stdio", server("ok"), "t\udcff"], 2, "",
     "Error: Invalid value for TOOL: name must be a string UTF-8 can carry (this one holds a lone surrogate), "
     "not 't\\udcff'"),
    (["call", "--stdio", server("ok"), "t", '{"a": "\udcff"}'], 2, "",
     "Error: Invalid value for ARGUMENTS: arguments['a'] must be a string UTF-8 can carry (this one holds a lone "
     "surrogate), not '\\udcff'"),
    (["call", "--stdio", server("ok"), "t", '{"a": ' + "[" * 201 + "]" * 201 + "}", "--json"], 2, "",
     "Error: Invalid value for ARGUMENTS: arguments['a'][0][0]...(195 more)...[0][0] is nested more than 200 deep "
     "(or holds itself): the SDK cannot write it"),
]


@pytest.mark.parametrize(("args", "status", "out_line", "err_line"), CASES, ids=[
    "odd_required", "task_status", "empty_name", "surrogate_name", "surrogate_argument", "deep_arguments"])
def test_hostile_input_to_call_and_tools(args: list[str], status: int, out_line: str, err_line: str) -> None:
    run = subprocess.run([*CLI, *args], capture_output=True, timeout=60, check=False, cwd=ROOT,
                         stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "80"})
    out, err = run.stdout.decode("utf-8"), run.stderr.decode("utf-8")
    assert "Traceback" not in err, err
    assert run.returncode == status, out + err
    assert "\x1b" not in out and "\x07" not in out
    if out_line:
        assert out_line in out.splitlines(), out
    if err_line:
        assert err_line in err.splitlines(), err
