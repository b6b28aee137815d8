"""The README states the policy and the heuristics as tables: they must be the code's tables;
and every Python example in it is a complete program, run here as written, that prints exactly
the output the README shows under it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_verdict import DEFAULT_SUSPECTS, POLICY, RULES

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


def test_policy_table_is_the_code_table() -> None:
    rows = re.findall(r"^\| (\d+) \| `([a-z_]+)` \| (.+?) \| `([a-z_]+)` \|$", README, re.MULTILINE)
    assert [(int(n), name, when, action) for n, name, when, action in rows] == [
        (i, row.name, row.when, row.action.value) for i, row in enumerate(POLICY, 1)]


def test_heuristics_table_is_the_code_table() -> None:
    rows = re.findall(r"^\| `([a-z_.]+)` \| (.+?) \|$", README, re.MULTILINE)
    suspects = [(name, text) for name, text in rows if "." in name and name.split(".")[0] in ("structured", "text")]
    assert suspects == [(s.id, s.description) for s in DEFAULT_SUSPECTS]


CATALOGUE_ROW = re.compile(r"^\| `([a-z_]+\.[a-z_]+)` \| (error|warning) \| (\S+) \| (.+) \|$", re.MULTILINE)
RULES_SECTION = README[README.index("## The rules, per version"):README.index("### The finding catalogue")]
# The verdict layer's codes (the content check's and the client's own are the README's elsewhere).
VERDICT_PREFIXES = {"json", "envelope", "error", "result", "content", "input", "task", "elicitation", "sampling",
                    "icon", "meta"}


def test_finding_catalogue_is_rules() -> None:
    start = README.index("<!-- finding-catalogue:")
    rows = CATALOGUE_ROW.findall(README[start:README.index("\n## ", start)])
    assert rows == [(r.code, r.severity, r.spec, r.summary) for r in RULES.values()]


def test_every_verdict_rule_is_in_the_per_version_table_or_the_wire_row() -> None:
    named = set(re.findall(r"`([a-z_]+\.[a-z_]+)`", RULES_SECTION))
    families = set(re.findall(r"`([a-z_]+)\.\*`", RULES_SECTION))
    # Rules the table states in words rather than by code: the envelope, error, result,
    # content and task rows, and the wire row (json.*) predate the codes in the table.
    worded = {code for code in RULES if code.split(".")[0] in {"json", "envelope", "error", "result", "content",
                                                                "task"}}
    missing = {code for code in RULES if code.split(".")[0] in VERDICT_PREFIXES
               and code not in named and code.split(".")[0] not in families and code not in worded}
    assert missing == set(), "rules the README's per-version table does not name"
    capabilities = {"sampling.tools"}  # a capability the table names, not a finding code
    assert named - capabilities <= set(RULES), named - capabilities - set(RULES)


# --- every Python example is a complete program that prints what the README shows ---------------

EXAMPLE = re.compile(r"^```python\n(.*?)^```\n\nprints:\n\n```text\n(.*?)^```$", re.MULTILINE | re.DOTALL)
EXAMPLES = EXAMPLE.findall(README)


def test_every_python_example_shows_what_it_prints() -> None:
    # The recipes per stack (``<!-- recipe: NAME -->`` before their block) are run, and their
    # output compared, by tests/integrations/test_readme_recipes.py; every other example is here.
    recipes = README.count("<!-- recipe: ")
    assert len(EXAMPLES) >= 5 and len(EXAMPLES) + recipes == README.count("```python")


@pytest.mark.parametrize(("program", "printed"), EXAMPLES, ids=[f"example{i + 1}" for i in range(len(EXAMPLES))])
def test_the_readme_example_runs_as_written(program: str, printed: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(program, "utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False,
                         cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    assert run.stdout == printed
