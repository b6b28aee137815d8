"""How many findings ``classify`` and ``call`` show on a terminal: the first 100 of a verdict, in
their order, then one line saying how many more (``--json`` lists every one). README "The CLI".
Before, every finding was a line: a response of 300,000 broken blocks (8.7 MB, within the 64 MB
limit) took two minutes and 600,000 lines of terminal output.

Each block ``{"type": "text", "text": 1}`` is one finding, ``content.field_type`` at its path
(2025-11-25 schema, TextContent: ``text`` is a string).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "mcp_verdict"]
ENV = {**os.environ, "COLUMNS": "200"}  # (each finding on one line)


def _finding(number: int) -> str:
    return f"  error content.field_type at /result/content/{number}/text: text is the integer 1; expected a string"


def _response(blocks: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete",
                                                             "content": [{"type": "text", "text": 1}] * blocks}})


# (blocks; the finding lines shown, by the index of their block; the line after them, if any)
CASES = [
    (1, [0], None),
    (100, list(range(100)), None),
    (101, list(range(100)), "  … 1 more finding (--json lists every one)"),
    (2_500, list(range(100)), "  … 2,400 more findings (--json lists every one)"),
]


@pytest.mark.parametrize(("blocks", "shown", "after"), CASES)
def test_classify_shows_the_first_hundred_findings_and_how_many_more(tmp_path: Path, blocks: int, shown: list[int],
                                                                      after: str | None) -> None:
    path = tmp_path / "r.json"
    path.write_text(_response(blocks), "utf-8")
    run = subprocess.run([*CLI, "classify", str(path)], capture_output=True, text=True, env=ENV, timeout=120,
                         check=False)
    assert run.returncode == 20, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "unclassified"
    assert lines[1:] == [_finding(number) for number in shown] + ([] if after is None else [after])


@pytest.mark.parametrize("blocks", [101, 2_500])
def test_classify_json_lists_every_finding(tmp_path: Path, blocks: int) -> None:
    path = tmp_path / "r.json"
    path.write_text(_response(blocks), "utf-8")
    run = subprocess.run([*CLI, "classify", "--json", str(path)], capture_output=True, text=True, timeout=120,
                         check=False)
    findings = json.loads(run.stdout)["findings"]
    assert [f["path"] for f in findings] == [f"/result/content/{n}/text" for n in range(blocks)]


# (blocks; the finding lines shown under the verdict, by block; the line after them, if any)
CALL_CASES = [
    (100, list(range(100)), None),
    (2_500, list(range(100)), "          … 2,400 more findings (--json lists every one)"),
]


@pytest.mark.parametrize(("blocks", "shown", "after"), CALL_CASES)
def test_call_shows_the_first_hundred_findings_and_how_many_more(blocks: int, shown: list[int],
                                                                  after: str | None) -> None:
    server = shlex.join([sys.executable, "-m", "tests.servers.broken_blocks", str(blocks)])
    run = subprocess.run([*CLI, "call", "--stdio", server, "t"], capture_output=True, text=True, env=ENV,
                         stdin=subprocess.DEVNULL, timeout=120, check=False)
    assert run.returncode == 20, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("verdict   unclassified")
    expected = [f"        {_finding(number)}" for number in shown] + ([] if after is None else [after])
    assert lines[1:1 + len(expected)] == expected
    assert lines[1 + len(expected)].startswith("decision  ")
