"""The tap's ``transport.noise`` counts every line a stdio server wrote that is no JSON-RPC
message (MCP basic/transports#stdio: the server MUST NOT write anything that is not a valid MCP
message to stdout), not the lines it kept: it keeps the last 64 of a connection (bounded memory)
and its warning says how many the server wrote and how many of them were kept. It counted the
lines kept, so 12,000 lines were reported as 64.

The server is real (tests/servers/noisy_stdio.py: ``noise 0``, ``noise 1``... then the answer),
the client the SDK's own ``mcp.Client`` over the tap's stdio transport; the expected messages
are written by hand."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap
from mcp_verdict.tap import _conn

ROOT = Path(__file__).resolve().parents[2]
SERVER = ["-m", "tests.servers.noisy_stdio"]
WROTE = "the server wrote {} lines that are not JSON-RPC messages before its answer"
LAST_64 = " (the tap kept the last 64 of them)"

# (noise lines before the answer, notifications spread among them, the transport.noise message)
CASES: list[tuple[int, int, str]] = [
    (1, 0, "the server wrote 1 line that is not a JSON-RPC message before its answer: 'noise 0'"),
    (64, 0, WROTE.format(64) + ": 'noise 0', 'noise 1', 'noise 2', …"),  # every one kept
    (65, 0, WROTE.format(65) + LAST_64 + ": 'noise 1', 'noise 2', 'noise 3', …"),
    (12_000, 0, WROTE.format(12000) + LAST_64 + ": 'noise 11936', 'noise 11937', 'noise 11938', …"),
    # a notification after every 4 noise lines: messages, not noise, and not counted
    (12_000, 3_000, WROTE.format(12000) + LAST_64 + ": 'noise 11936', 'noise 11937', 'noise 11938', …"),
]


def calls(lines: int, notes: int, times: int) -> tuple[list[Any], Any]:
    """``times`` judged calls of tool ``t`` on one session; their outcomes and the connection."""
    async def go() -> tuple[list[Any], Any]:
        with anyio.fail_after(60), VerdictTap() as tap:
            transport = tap.stdio_transport(sys.executable, [*SERVER, str(lines), str(notes)], cwd=ROOT)
            async with Client(transport) as client:
                outcomes = [await tap.call_tool(client, "t", {}, call_options={"read_timeout_seconds": 30})
                            for _ in range(times)]
                (state,) = tap._conns.values()
        return outcomes, state
    return anyio.run(go)


@pytest.mark.parametrize(("lines", "notes", "message"), CASES, ids=[f"{c[0]}-lines-{c[1]}-notes" for c in CASES])
def test_the_noise_warning_counts_every_line_and_says_how_many_were_kept(lines: int, notes: int,
                                                                         message: str) -> None:
    (outcome,), state = calls(lines, notes, 1)
    verdict = outcome.verdict
    assert (verdict.kind.value, [(f.code, f.message) for f in verdict.findings]) == (
        "normal_complete", [("transport.noise", message)])
    assert (state.noise_count, len(state.noise)) == (lines, min(lines, 64))  # counted, and a bounded sample


def test_each_call_counts_the_noise_of_its_own_exchange() -> None:
    """Three calls of 100 lines each on one connection: each is told of its own 100."""
    outcomes, state = calls(100, 0, 3)
    assert [[f.message for f in o.verdict.findings] for o in outcomes] == [
        [WROTE.format(100) + LAST_64 + ": 'noise 36', 'noise 37', 'noise 38', …"]] * 3
    assert (state.noise_count, len(state.noise)) == (300, 64)


def test_past_the_counts_kept_the_warning_says_at_least(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one count kept per connection (``_NOISE_MARKS`` = 1), the second call's answer
    pushes out the count at its request: its 100 lines are then known to be at least the 64 the
    tap kept; the first call's request came before any noise, so its count stays exact."""
    monkeypatch.setattr(_conn, "_NOISE_MARKS", 1)
    outcomes, state = calls(100, 0, 2)
    assert [[f.message for f in o.verdict.findings] for o in outcomes] == [
        [WROTE.format(100) + LAST_64 + ": 'noise 36', 'noise 37', 'noise 38', …"],
        ["the server wrote at least 64 lines that are not JSON-RPC messages before its answer" + LAST_64
         + ": 'noise 36', 'noise 37', 'noise 38', …"]]
    assert len(state.noise_marks) == 1
