"""The README's comparison of the three built-in receivers is kept equal to what they do."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from mcp_verdict import corpus, kit

README = Path(__file__).resolve().parents[1] / "README.md"
GROUPS = {"wire": "wire text", "env": "envelope", "err": "error object", "rt": "resultType",
          "content": "content blocks", "input": "input_required", "task": "tasks", "design": "the design note's twelve",
          "rec": "recorded traffic of real servers"}
RECEIVERS = ("mcp-verdict", "minimal", "sdk")


def _cell(outcomes: Sequence[kit.Outcome]) -> str:
    failed = sum(o.failed for o in outcomes)
    as_success = sum(o.status == "fail" and o.got == "normal_complete" for o in outcomes)
    skipped = sum(o.status == "skip" for o in outcomes)
    text = str(failed) + (f" ({as_success} as success)" if as_success else "")
    return text + (f", {skipped} skipped" if skipped else "")


def comparison_rows() -> list[str]:
    cases = corpus.load()
    reports = {name: kit.run(kit.load_receiver(name), cases).outcomes for name in RECEIVERS}
    rows = []
    for prefix, title in [*GROUPS.items(), ("", "")]:
        def chosen(outcomes: Sequence[kit.Outcome], prefix: str = prefix) -> list[kit.Outcome]:
            return [o for o in outcomes if not prefix or o.case.id.split("/")[0] == prefix]

        name = f"{title} (`{prefix}/`)" if prefix else "**all**"
        cells = [_cell(chosen(reports[receiver])) for receiver in RECEIVERS]
        rows.append(f"| {name} | {len(chosen(reports['mcp-verdict']))} | {' | '.join(cells)} |")
    return rows


def test_groups_cover_the_corpus() -> None:
    assert {c.id.split("/")[0] for c in corpus.load()} == set(GROUPS)


def test_readme_comparison_table() -> None:
    pytest.importorskip("mcp_types")
    lines = README.read_text("utf-8").splitlines()
    start = lines.index("| group (case ids) | cases | mcp-verdict | minimal | SDK typed parse |") + 2
    assert lines[start:start + len(GROUPS) + 1] == comparison_rows(), "\n".join(comparison_rows())


if __name__ == "__main__":  # print the rows to paste into the README
    print("\n".join(comparison_rows()))
