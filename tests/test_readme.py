"""The README states the policy and the heuristics as tables: they must be the code's tables;
and every Python example in it is a complete program, run here as written, that prints exactly
the output the README shows under it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

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
