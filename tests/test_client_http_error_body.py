"""An HTTP error status on a tools/call whose body is no JSON-RPC message: the failure quotes
the start of what the server said and how long it was, never an empty body for an unread one,
never a cut one for a whole one. The server is real (tests/servers/misbehaving.py's error
modes, on 127.0.0.1); the command runs as a subprocess; expected messages are written by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_client_transport_faults import http_server

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with http_server() as url:
        yield url


# (body size, the transport.error message) - the body is E...EEND; 200 bytes are quoted
CASES: list[tuple[int | str, str]] = [
    (0, "HTTP 500 with an empty body"),
    (3, "HTTP 500: END"),
    (200, "HTTP 500: " + "E" * 197 + "END"),
    (201, "HTTP 500: " + "E" * 198 + "EN" + "… (201 bytes in all)"),  # the D is the 201st byte
    (100_000, "HTTP 500: " + "E" * 200 + "… (100000 bytes in all)"),
    ("_endless", "HTTP 500: " + "E" * 200 + "… (more than 1048576 bytes: not read to its end)"),
    ("_stall", "HTTP 500: " + "E" * 200 + "… (at least 300 bytes: not read to its end)"),  # read for 5 s
]


@pytest.mark.parametrize(("size", "message"), CASES, ids=[str(c[0]) for c in CASES])
def test_an_http_error_body_is_quoted_with_its_length(base: str, size: int | str, message: str) -> None:
    run = subprocess.run([*CLI, "call", "--mode", "legacy", "--url", f"{base}/error{size}/mcp", "t", "--json"],
                         capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert run.returncode == 20, run.stdout + run.stderr
    findings = json.loads(run.stdout)["verdict"]["findings"]
    assert [(f["code"], f["message"]) for f in findings] == [("transport.error", message)]
