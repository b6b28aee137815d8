"""The official conformance suite's client scenarios, run with the proxy between the client and
the scenario's server (HTTP → HTTP), in both modes: the proxy keeps every request header and
answer the scenarios check, so they still pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..interop.conftest import CONFORMANCE, HERE, NODE, need
from ..interop.test_conformance import SCENARIOS

DRIVER = Path(__file__).with_name("conformance_via_proxy.py")
ENFORCED = {"tools_call", "sep-2322-client-request-state", "http-standard-headers"}
CASES = [(s, v, "observe") for s, v in SCENARIOS] + [(s, v, "enforce") for s, v in SCENARIOS if s in ENFORCED]
"""Every scenario in observe; in enforce those whose answers the verdict judges (the rest differ
from observe only in what is never sent to them)."""


@pytest.mark.parametrize(("scenario", "version", "mode"), CASES,
                         ids=[f"{s}@{v or 'default'}-{m}" for s, v, m in CASES])
def test_conformance_scenario_through_the_proxy(scenario: str, version: str | None, mode: str,
                                                tmp_path: Path) -> None:
    node = need(NODE, "npm's node@22")
    suite = need(CONFORMANCE, "@modelcontextprotocol/conformance")
    command = [str(node), str(suite), "client", "--command", f"{sys.executable} {DRIVER} {mode}",
               "--scenario", scenario, "--timeout", "60000", "-o", str(tmp_path)]
    if version is not None:
        command += ["--spec-version", version]
    run = subprocess.run(command, check=False, capture_output=True, text=True, timeout=180, cwd=HERE)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-4000:]
    assert "OVERALL: PASSED" in report, report[-4000:]
