"""A call that ends with the server's exit reports the noise the server wrote during it: the lines
that are no JSON-RPC message (MCP basic/transports#stdio: the server MUST NOT write anything that
is not a valid MCP message to stdout), counted and sampled as for an answered call. The tap
forgot the request when the connection closed, so the call was judged ``transport.closed``
alone, and the debug lines that often say why the server died were not reported.

The server is real (tests/servers/noisy_stdio.py ``LINES 0 exit``: ``noise 0``, ``noise 1``...,
then it exits without answering), the client the SDK's own ``mcp.Client`` over the tap's stdio
transport; the expected messages are written by hand."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap

ROOT = Path(__file__).resolve().parents[2]
SERVER = ["-m", "tests.servers.noisy_stdio"]
WROTE = "the server wrote {} lines that are not JSON-RPC messages and no answer"
LAST_64 = " (the tap kept the last 64 of them)"

# (noise lines before the exit, the transport.noise message; None: no noise finding)
CASES: list[tuple[int, str | None]] = [
    (0, None),
    (1, "the server wrote 1 line that is not a JSON-RPC message and no answer: 'noise 0'"),
    (3, WROTE.format(3) + ": 'noise 0', 'noise 1', 'noise 2'"),
    (64, WROTE.format(64) + ": 'noise 0', 'noise 1', 'noise 2', …"),  # every one kept
    (65, WROTE.format(65) + LAST_64 + ": 'noise 1', 'noise 2', 'noise 3', …"),
    (12_000, WROTE.format(12000) + LAST_64 + ": 'noise 11936', 'noise 11937', 'noise 11938', …"),
]


@pytest.mark.parametrize(("lines", "message"), CASES, ids=[f"{c[0]}-lines" for c in CASES])
def test_a_call_ended_by_the_servers_exit_reports_its_noise(lines: int, message: str | None) -> None:
    async def go() -> Any:
        with anyio.fail_after(60), VerdictTap() as tap:
            transport = tap.stdio_transport(sys.executable, [*SERVER, str(lines), "0", "exit"], cwd=ROOT)
            async with Client(transport) as client:
                return await tap.call_tool(client, "t", {}, call_options={"read_timeout_seconds": 30})

    verdict = anyio.run(go).verdict
    noise = [(f.code, f.severity, f.message) for f in verdict.findings if f.code == "transport.noise"]
    assert (verdict.kind.value, verdict.findings[0].code, noise) == (
        "unclassified", "transport.closed", [] if message is None else [("transport.noise", "warning", message)])
