"""The README's before/after table ("Recipes per stack"), kept equal to what the tests observe.

Each stack's test measures its row — what the application or model received without
mcp-verdict (before) and with it (after) — and :func:`check_row` compares it, cell by cell, with
the README's row for that stack. Imports no stack (the mcp 1.x tests use it too).
"""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- stacks-before-after: kept equal to the tests by tests/integrations/readme_table.py -->"
COLUMNS = ('`isError: "false"`', "duplicated `isError`", "unknown resultType", "`isError: true`",
           "a write that timed out after it was sent")
CASES = ("string_is_error", "duplicate_is_error", "deferred_everywhere", "charge_card")
"""The demo tools behind the first four columns (deferred_everywhere: an unknown resultType on
every protocol version, so the 1.x stacks meet it too)."""


def readme_rows() -> dict[str, list[str]]:
    lines = README.read_text("utf-8").splitlines()
    start = lines.index(MARKER)
    header = [c.strip() for c in lines[start + 1].strip("|").split("|")]
    assert tuple(header[1:]) == COLUMNS, header
    rows = {}
    for line in lines[start + 3:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def cell(before: str, after: str) -> str:
    return f"{before} → {after}"


def check_row(stack: str, cells: list[str]) -> None:
    assert len(cells) == len(COLUMNS)
    assert readme_rows().get(stack) == cells, (f"README row for {stack}", cells)
