"""The README's recipes: each ``<!-- recipe: NAME [mcp1] -->`` marker, the ```python block after
it, and the ```text block after that (what the recipe prints). Imports no stack."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .readme_table import README

_RECIPE = re.compile(r"<!-- recipe: (\w+)( mcp1)? -->\n```python\n(.*?)```\n```text\n(.*?)```", re.DOTALL)


def recipes(mcp1: bool) -> dict[str, tuple[str, str]]:
    """name → (code, expected output) of the recipes that run beside mcp 1.x (or 2.x)."""
    text = README.read_text("utf-8")
    found = {m.group(1): (m.group(3), m.group(4)) for m in _RECIPE.finditer(text) if bool(m.group(2)) == mcp1}
    assert found, "no recipe markers found in the README"
    return found


def run_recipe(code: str, where: Path) -> str:
    """Run the code as a script in ``where`` with this interpreter; returns what it printed."""
    script = where / "recipe.py"
    script.write_text(code, "utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    done = subprocess.run([sys.executable, str(script)], cwd=where, capture_output=True, timeout=180, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-3000:]
    return done.stdout.decode("utf-8")
