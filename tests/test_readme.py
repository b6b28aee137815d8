"""The README states the policy and the heuristics as tables: they must be the code's tables."""

from __future__ import annotations

import re
from pathlib import Path

from mcp_verdict import DEFAULT_SUSPECTS, POLICY

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


def test_policy_table_is_the_code_table() -> None:
    rows = re.findall(r"^\| (\d+) \| `([a-z_]+)` \| (.+?) \| `([a-z_]+)` \|$", README, re.MULTILINE)
    assert [(int(n), name, when, action) for n, name, when, action in rows] == [
        (i, row.name, row.when, row.action.value) for i, row in enumerate(POLICY, 1)]


def test_heuristics_table_is_the_code_table() -> None:
    rows = re.findall(r"^\| `([a-z_.]+)` \| (.+?) \|$", README, re.MULTILINE)
    suspects = [(name, text) for name, text in rows if "." in name and name.split(".")[0] in ("structured", "text")]
    assert suspects == [(s.id, s.description) for s in DEFAULT_SUSPECTS]
