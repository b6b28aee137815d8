"""The official conformance suite's client scenarios, run against VerdictClient.

npm @modelcontextprotocol/conformance 0.2.0-alpha.12 under npm's node@22. Each scenario runs
the driver tests/interop/conformance_client.py; the suite exits non-zero on any FAILURE or
WARNING, a timeout, or a client crash, and that fails the test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import CONFORMANCE, HERE, NODE, need

SCENARIOS = [
    ("tools_call", "2026-07-28"),
    ("tools_call", None),  # the suite's default era, 2025-11-25: the client falls back to initialize
    ("request-metadata", "2026-07-28"),
    ("sep-2322-client-request-state", "2026-07-28"),
    ("http-standard-headers", "2026-07-28"),
    ("http-custom-headers", "2026-07-28"),
    ("http-invalid-tool-headers", "2026-07-28"),
    ("json-schema-ref-no-deref", "2026-07-28"),
    ("json-schema-2020-12-preservation", "2026-07-28"),
    ("json-schema-2020-12-preservation", None),
]


@pytest.mark.parametrize(("scenario", "version"), SCENARIOS, ids=[f"{s}@{v or 'default'}" for s, v in SCENARIOS])
def test_conformance_scenario(scenario: str, version: str | None, tmp_path: Path) -> None:
    node = need(NODE, "npm's node@22")
    suite = need(CONFORMANCE, "@modelcontextprotocol/conformance")
    driver = f"{sys.executable} {HERE / 'conformance_client.py'}"
    command = [str(node), str(suite), "client", "--command", driver, "--scenario", scenario,
               "--timeout", "60000", "-o", str(tmp_path)]
    if version is not None:
        command += ["--spec-version", version]
    run = subprocess.run(command, check=False, capture_output=True, text=True, timeout=180, cwd=HERE)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-4000:]
    assert "OVERALL: PASSED" in report, report[-4000:]
