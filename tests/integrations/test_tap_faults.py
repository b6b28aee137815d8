"""The tap under server faults the SDK meets in the wild, each through a real ``mcp.Client`` on
a real server (``crafted_stdio.py`` over stdio, the demo over Streamable HTTP), with the
verdict written by hand and what the SDK itself returned beside it:

- a debug line on stdout is noise (MCP basic/transports#stdio: the server MUST NOT write
  anything that is not a valid MCP message), never the answer: the call completes as it does
  without the tap, with a ``transport.noise`` warning;
- an error with ``"id": null`` (JSON-RPC 2.0 section 5) answers the only call waiting at once,
  where the SDK alone drops it and waits for its timeout;
- an answer whose id is the request's written as a float is that call's malformed answer, at
  once (the SDK alone cannot pair it and waits for its timeout);
- a call that times out is no longer waited for (bounded memory), nor is a closed connection
  kept past the last 64;
- an HTTP exchange that breaks before its answer fails that call, not the session;
- a session whose traffic the tap never saw is never judged by another session's answer;
- a frame log that cannot be written stops, with a warning; the calls go on.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import VerdictTap, demo
from mcp_verdict.frames import FrameLogWriter, FrameRecord, read

CRAFTED = [sys.executable, str(Path(__file__).with_name("crafted_stdio.py"))]

# (tool, kind, finding codes, action, what the SDK's own call_tool gave: "ok", "error" or "timeout")
STDIO_FAULTS = [
    ("noisy", "normal_complete", ["transport.noise"], "accept", "ok"),
    ("id_null", "unclassified", ["envelope.id_type"], "investigate", "error"),
    ("float_id", "unclassified", ["envelope.id_type"], "investigate", "error"),
    ("plain", "normal_complete", [], "accept", "ok"),
]


@pytest.mark.parametrize(("tool", "kind", "codes", "action", "sdk"), STDIO_FAULTS, ids=[c[0] for c in STDIO_FAULTS])
def test_a_stdio_fault_gets_its_own_verdict_at_once(tool: str, kind: str, codes: list[str], action: str,
                                                    sdk: str, tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"

    async def scenario() -> tuple[Any, str]:
        with anyio.fail_after(20), VerdictTap(frame_log=log) as tap:  # never the judged call's 30 s timeout
            async with Client(tap.stdio_transport(CRAFTED[0], CRAFTED[1:])) as client:
                outcome = await tap.call_tool(client, tool, {}, call_options={"read_timeout_seconds": 30})
                try:  # the same call without the tap's judgement, on the same session
                    result = await client.call_tool(tool, {}, read_timeout_seconds=1)
                    plain = "error" if result.is_error else "ok"
                except Exception as exc:
                    plain = "timeout" if "timed out" in str(exc).lower() or "timeout" in type(exc).__name__.lower() \
                        else "error"
        return outcome, plain

    outcome, plain = anyio.run(scenario)
    verdict = outcome.verdict
    assert (verdict.kind.value, [f.code for f in verdict.findings], outcome.decision.action.value) == (
        kind, codes, action)
    assert plain == sdk
    kinds = [record.kind for record in read(log.open("rb")) if isinstance(record, FrameRecord)]
    assert kinds.count("noise") == (2 if tool == "noisy" else 0)  # the judged call's and the plain call's


def test_calls_that_time_out_are_not_waited_for_after_their_verdict() -> None:
    async def scenario() -> tuple[list[Any], VerdictTap]:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(CRAFTED[0], CRAFTED[1:])) as client:
            outcomes = [await tap.call_tool(client, "silent", {}, call_options={"read_timeout_seconds": 0.05})
                        for _ in range(5)]
            assert all(not tap.tracker.pending(conn) for conn in tap._conns)
            assert not tap._claims
        return outcomes, tap

    outcomes, _ = anyio.run(scenario)
    assert [([f.code for f in o.verdict.findings], o.decision.action.value) for o in outcomes] == [
        (["transport.timeout"], "check_state")] * 5


def test_an_http_exchange_that_breaks_fails_its_call_not_the_session() -> None:
    async def scenario() -> tuple[Any, Any]:
        tap = VerdictTap()
        async with demo.serve_http() as url, tap.http_client() as http, \
                Client(streamable_http_client(url, http_client=http)) as client:
            dropped = await tap.call_tool(client, "hang_up", {}, call_options={"read_timeout_seconds": 10})
            after = await tap.call_tool(client, "get_forecast", {"city": "Faro"})
        return dropped, after

    dropped, after = anyio.run(scenario)
    assert ([f.code for f in dropped.verdict.findings], dropped.decision.action.value) == (
        ["transport.error"], "check_state")
    assert dropped.verdict.findings[0].message.startswith("the response stream broke: RemoteProtocolError")
    assert (after.verdict.kind.value, after.decision.action.value) == ("normal_complete", "accept")


def test_a_session_the_tap_never_saw_is_not_judged_by_another_sessions_answer() -> None:
    async def scenario() -> tuple[Any, Any]:
        tap = VerdictTap()
        async with demo.serve_http() as url, tap.http_client() as seen, httpx2.AsyncClient() as unseen, \
                Client(streamable_http_client(url, http_client=seen)) as x, \
                Client(streamable_http_client(url, http_client=unseen)) as y:
            await x.call_tool("get_forecast", {"city": "Lisbon"})  # recorded, not judged: an answer for id 2
            outcome = await tap.call_tool(y, "string_is_error", {})  # id 2 too, on a connection not recorded
        return outcome, tap.history[-1]

    outcome, call = anyio.run(scenario)
    assert (outcome.verdict.kind.value, [f.code for f in outcome.verdict.findings]) == (
        "unclassified", ["transport.error"])
    assert "cannot tell which connection" in outcome.verdict.findings[0].message
    assert call.conn is None and call.response is None


def test_closed_connections_are_forgotten_past_the_last_64() -> None:
    async def scenario() -> VerdictTap:
        tap = VerdictTap()
        async with demo.serve_http() as url:
            for _ in range(70):
                async with tap.http_client() as http, Client(streamable_http_client(url, http_client=http)) as client:
                    outcome = await tap.call_tool(client, "get_forecast", {"city": "Porto"})
                    assert outcome.verdict.kind.value == "normal_complete"
        return tap

    tap = anyio.run(scenario)
    assert len(tap._conns) == 64 and all(state.closed for state in tap._conns.values())
    assert len(tap.history) == 70


class FullDisk(FrameLogWriter):
    """A frame log whose disk fills after ``room`` lines."""

    room = 6

    def write_line(self, line: bytes) -> None:
        FullDisk.room -= 1
        if FullDisk.room < 0:
            raise OSError(28, "No space left on device")
        super().write_line(line)


def test_a_frame_log_that_cannot_be_written_stops_and_the_calls_go_on(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[Any], VerdictTap]:
        tap = VerdictTap(frame_log=FullDisk(tmp_path / "frames.jsonl"))
        async with Client(tap.stdio_transport(CRAFTED[0], CRAFTED[1:])) as client:
            return [await tap.call_tool(client, "plain", {}) for _ in range(3)], tap

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcomes, tap = anyio.run(scenario)
    assert [o.verdict.kind.value for o in outcomes] == ["normal_complete"] * 3
    assert tap.log is None and tap.log_error == "OSError: [Errno 28] No space left on device"
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == [
        "mcp-verdict tap: the frame log stopped: OSError: [Errno 28] No space left on device"]


def test_a_last_answer_without_its_line_end_is_judged() -> None:
    """A server that writes its answer without the LF that ends a line, then exits: the stream's
    end ends the line (the proxy and the client read it so), and the call is judged on it
    (basic/transports#stdio: messages are delimited by newlines; the bytes are the whole message)."""
    hostile = [sys.executable, "-m", "tests.servers.hostile_stdio", "no_lf"]

    async def scenario() -> Any:
        with anyio.fail_after(20), VerdictTap() as tap:
            async with Client(tap.stdio_transport(hostile[0], hostile[1:])) as client:
                return await tap.call_tool(client, "t", {}, call_options={"read_timeout_seconds": 10})

    outcome = anyio.run(scenario)
    assert (outcome.verdict.kind.value, [f.code for f in outcome.verdict.findings],
            outcome.decision.action.value) == ("normal_complete", [], "accept")
