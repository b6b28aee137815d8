"""``mcp-verdict audit``'s terminal report at any width: never empty, never a count, kind,
decision or name cut, and its top-N tables say how many there were in all.

The input is a JSON-RPC JSON Lines recording written here by hand: 16 tools each called once
and answered with ``"isError": "false"`` (a string: a naive receiver's success, mcp-verdict's
``unclassified``/``investigate``). The command runs for real as a subprocess with ``COLUMNS``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "mcp_verdict"]
TOOLS = [f"tool_{number:02d}" for number in range(16)]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "calls.jsonl"
    lines = []
    for number, tool in enumerate(TOOLS, 1):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": tool}}))
        lines.append(json.dumps({"jsonrpc": "2.0", "id": number, "result": {"content": [], "isError": "false"}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def whole(word: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None


@pytest.mark.parametrize("columns", ["0", "1", "12", "20", "30", "40", "80", "200"])
def test_the_audit_report_is_whole_at_any_width(recording: Path, columns: str) -> None:
    run = subprocess.run([*CLI, "audit", str(recording)], capture_output=True, text=True, timeout=120, check=False,
                         stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": columns})
    assert run.returncode == 1, run.stderr  # naive false successes found
    shown = run.stdout
    assert "…" not in shown, shown
    for word in ("unclassified", "investigate", "kind", "decision", "calls", "16", "15"):
        assert whole(word, shown), (word, shown)
    listed = [tool for tool in TOOLS if whole(tool, shown)]
    assert len(listed) == 15, shown  # the 15 most frequent: all of them 1, so any 15
    assert "(the 15 most frequent of 16 server/tool pairs)" in " ".join(shown.split()), shown  # its title, wrapped
