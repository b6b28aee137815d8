"""Every README recipe for a stack beside mcp 2.x runs as written and prints what the README says
(the mcp 1.x ones: ``mcp1/test_readme_recipes_mcp1.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .recipes import recipes, run_recipe

RECIPES = recipes(mcp1=False)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_the_recipe_runs_as_written(name: str, tmp_path: Path) -> None:
    code, expected = RECIPES[name]
    assert run_recipe(code, tmp_path) == expected


def test_every_stack_has_a_recipe() -> None:
    assert {"sdk_stdio", "sdk_http", "fastmcp", "fastmcp_proxy", "pydantic_ai", "openai_agents", "otel"} <= set(RECIPES)
    assert {"sdk_1x", "langchain"} <= set(recipes(mcp1=True))
