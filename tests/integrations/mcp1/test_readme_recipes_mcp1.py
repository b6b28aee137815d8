"""The README recipes that run beside mcp 1.x (LangChain's adapters, the 1.x SDK), as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..recipes import recipes, run_recipe

RECIPES = recipes(mcp1=True)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_the_recipe_runs_as_written(name: str, tmp_path: Path) -> None:
    code, expected = RECIPES[name]
    assert run_recipe(code, tmp_path) == expected
