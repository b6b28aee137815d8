"""The tap and the adapters as a user without their stacks meets them: ``import mcp_verdict`` and
``mcp_verdict.VerdictError`` need no SDK; a transport or an adapter whose extra is missing says
which in one line. Run in ``.venvs/core`` (no SDK) and here (no LangChain beside mcp 2.x)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / ".venvs" / "core" / "bin" / "python"

LEAN = """
import sys
import mcp_verdict
from mcp_verdict import VerdictError, VerdictTap
tap = VerdictTap()
assert not [m for m in sys.modules if m.split(".")[0] in ("mcp", "httpx", "httpx2", "fastmcp", "agents")]
try:
    tap.stdio_transport("python")
    import anyio
    anyio.run(lambda: tap.stdio_transport("python").__aenter__())
except ImportError as exc:
    print(type(exc).__name__, exc)
"""


def test_the_core_environment_has_the_tap_and_names_the_missing_extra() -> None:
    if not CORE.exists():
        message = f"the core virtualenv is missing at {CORE.parent.parent}: ./run test builds it"
        if os.environ.get("MCP_VERDICT_REQUIRE_INTEROP") == "1":
            pytest.fail(message)
        pytest.skip(message)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(CORE), "-c", LEAN], capture_output=True, timeout=120, env=env, cwd=ROOT / "tests",
                          check=False)
    assert done.returncode == 0, done.stderr.decode()
    expected = ("MissingExtra the tap's transports needs the [client] extra (the official SDK, mcp 1.9 or later, "
                "is not installed): pip install 'mcp-verdict[client]'")
    assert done.stdout.decode().strip() == expected


@pytest.mark.parametrize(("module", "extra"), [("mcp_verdict.integrations.langchain", "langchain")])
def test_an_adapter_without_its_extra_is_one_line_naming_it(module: str, extra: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, timeout=120,
                          check=False)
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 1
    assert lines[-1].startswith("mcp_verdict._extras.MissingExtra: ") and f"[{extra}] extra" in lines[-1]
