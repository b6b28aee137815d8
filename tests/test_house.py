"""The house's own documents tell the truth about the house.

CONTRIBUTING.md names the modules a newcomer edits to add a rule or a version: every path it
names exists. The pre-commit hooks call tools the test environment has. The extras the README
lists are pyproject's extras.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "mcp_verdict"
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text("utf-8")


def _named_paths() -> list[str]:
    found = set(re.findall(r"`((?:verdict|judgement|frames|corpus|kit|client|cli|demo)/[\w/.*]+\.(?:py|jsonl|md))`",
                           CONTRIBUTING))
    return sorted(found)


def test_contributing_names_modules() -> None:
    assert len(_named_paths()) >= 8  # the reader sees the paths it checks


@pytest.mark.parametrize("path", _named_paths())
def test_every_path_contributing_names_exists(path: str) -> None:
    matches = list(PACKAGE.glob(path))
    assert matches, f"CONTRIBUTING.md names {path}, which does not exist under src/mcp_verdict"


def test_the_pre_commit_hooks_call_tools_of_the_test_environment() -> None:
    config = (ROOT / ".pre-commit-config.yaml").read_text("utf-8")
    tools = re.findall(r"entry: \.venv/bin/(\w+)", config)
    assert tools == ["ruff", "mypy"]
    test_extra = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]["test"]
    assert set(tools) <= {re.split(r"[<>=\[]", d)[0] for d in test_extra}


def test_the_changelog_has_an_entry_for_the_current_version() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text("utf-8")
    assert f"## {version}" in changelog


def test_the_readme_lists_every_extra_pyproject_declares() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    listed = set(re.findall(r"^\| `\[([a-z-]+)\]` \|", readme, re.MULTILINE))
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"])
    assert listed == declared - {"test"}
