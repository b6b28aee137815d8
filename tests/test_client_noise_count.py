"""``transport.noise`` counts every line the server wrote, not the lines the wire log kept.

The wire log is bounded (10,000 frames by default): past nine tenths of it during a call, noise
and notifications are shed, counted and not kept. The warning says how many noise lines the
server wrote in all, that only the first three are shown, and how many the log kept. The server
is real (tests/servers/noisy_stdio.py, on stdio); the expected messages are written by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import Kind
from mcp_verdict.client import VerdictClient

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
SERVER = [sys.executable, "-m", "tests.servers.noisy_stdio"]

FIRST_THREE = "'noise 0', 'noise 1', 'noise 2'"

# (lines, notifications among them, how the call ends, exit status, verdict findings as (code, message))
CLI_CASES: list[tuple[int, int, str, int, list[tuple[str, str]]]] = [
    (1, 0, "answer", 0, [("transport.noise", "the server wrote 1 line that is not a JSON-RPC message before its "
                                             "answer: 'noise 0'")]),
    (3, 0, "answer", 0, [("transport.noise", "the server wrote 3 lines that are not JSON-RPC messages before its "
                                             f"answer: {FIRST_THREE}")]),
    (4, 0, "answer", 0, [("transport.noise", "the server wrote 4 lines that are not JSON-RPC messages before its "
                                             f"answer (the first 3 shown): {FIRST_THREE}, …")]),
    # 10,000 frames: the call keeps its request, the tools/list frames before it go, nine tenths stay
    (12_000, 0, "answer", 0, [("transport.noise", "the server wrote 12000 lines that are not JSON-RPC messages "
                                                  "before its answer (the first 3 shown; the wire log kept 8999 of "
                                                  f"them): {FIRST_THREE}, …")]),
    # notifications are messages, not noise: one after every 4 noise lines, shed with them past the
    # bound (8999 frames of the call after its request: 1799 groups of 4 + 1, then 4 noise lines)
    (12_000, 3_000, "answer", 0, [("transport.noise", "the server wrote 12000 lines that are not JSON-RPC messages "
                                                      "before its answer (the first 3 shown; the wire log kept "
                                                      f"7200 of them): {FIRST_THREE}, …")]),
    (12_000, 0, "exit", 20, [
        ("transport.closed", "the server closed its stdout; the server wrote 12000 lines that are not JSON-RPC "
                             "messages (first: 'noise 0'): the likely cause, if it meant to answer"),
        ("transport.noise", "the server wrote 12000 lines that are not JSON-RPC messages instead of an answer "
                            f"(the first 3 shown; the wire log kept 8999 of them): {FIRST_THREE}, …")]),
]


@pytest.mark.parametrize(("lines", "notes", "end", "status", "findings"), CLI_CASES,
                         ids=[f"{c[0]}-lines-{c[1]}-notes-{c[2]}" for c in CLI_CASES])
def test_call_counts_every_noise_line_the_server_wrote(lines: int, notes: int, end: str, status: int,
                                                       findings: list[tuple[str, str]]) -> None:
    server = " ".join([*SERVER, str(lines), str(notes), end])
    run = subprocess.run([*CLI, "call", "--mode", "legacy", "--stdio", server, "t", "--json"], capture_output=True,
                         text=True, timeout=120, check=False, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert run.returncode == status, run.stdout + run.stderr
    data = json.loads(run.stdout)
    shown = [(f["code"], f["message"]) for f in data["verdict"]["findings"]]
    if end == "exit":  # the exit status may or may not be known when the stdout closes
        shown = [(code, message.replace(" (exit 0)", "")) for code, message in shown]
    assert shown == findings


def call(lines: int, bound: int) -> Any:
    async def go() -> Any:
        async with VerdictClient.stdio([*SERVER, str(lines)], cwd=str(ROOT), mode="legacy", timeout=30) as client:
            client.wire.max_frames = bound
            return await client.call_tool("t"), client
    return anyio.run(go)


# (lines, wire log bound, noise kept on the round) - by hand: 9 tenths of the bound, less the request
@pytest.mark.parametrize(("lines", "bound", "kept"), [(50, 100, 50), (89, 100, 89), (500, 100, 89),
                                                      (5_000, 1_000, 899)])
def test_the_round_counts_noise_it_did_not_keep(lines: int, bound: int, kept: int) -> None:
    outcome, client = call(lines, bound)
    assert outcome.verdict.kind is Kind.NORMAL_COMPLETE
    round_ = client.history[-1].rounds[-1]
    assert (round_.noise_count, len(round_.noise)) == (lines, kept)
    message = next(f.message for f in outcome.verdict.findings if f.code == "transport.noise")
    assert message.startswith(f"the server wrote {lines} lines that are not JSON-RPC messages before its answer")
    assert (f"the wire log kept {kept} of them" in message) is (kept < lines)
