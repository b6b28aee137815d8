"""The mcp 1.x side of the integrations, run where it can be installed: ``.venvs/mcp1``.

langchain-mcp-adapters pins ``mcp<2``, so its tests and the tap's 1.x tests cannot share this
environment (mcp 2.x). ``./run test`` builds ``.venvs/mcp1`` (mcp 1.x, langchain-mcp-adapters,
langchain-core, the package itself as a user installs it); this test runs ``tests/integrations/mcp1``
there with its own pytest, and fails with that run's output when any of it fails.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venvs" / "mcp1" / "bin" / "python"


def test_the_mcp1_integrations_pass_in_their_own_virtualenv() -> None:
    if not PYTHON.exists():
        message = f"the mcp1 virtualenv is missing at {PYTHON.parent.parent}: ./run test builds it"
        if os.environ.get("MCP_VERDICT_REQUIRE_INTEROP") == "1":
            pytest.fail(message)
        pytest.skip(message)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_XDIST_WORKER",
                                                            "PYTEST_ADDOPTS")}
    done = subprocess.run([str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "tests/integrations/mcp1"], cwd=ROOT, env=env, capture_output=True, timeout=900,
                          check=False)
    output = (done.stdout + done.stderr).decode("utf-8", "replace")
    assert done.returncode == 0, output[-6000:]
    assert " passed" in output and "skipped" not in output.splitlines()[-1], output[-2000:]
