"""The tap under the official SDK 1.x (run in .venvs/mcp1 by ../test_mcp1_suite.py).

The same contract as ``../test_tap.py`` on the 1.x line: ``ClientSession`` over the tap's stdio
transport and over ``streamablehttp_client`` with ``tap.httpx_client_factory`` (httpx), against
the demo server (which negotiates a 2025 session with a 1.x client) and server-everything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from mcp_verdict import Kind, VerdictTap, demo

from ..peers import DEMO_STDIO, LEGACY_CASES, everything_http, everything_stdio


@asynccontextmanager
async def session_over(tap: VerdictTap, transport: str, command: list[str] | None = None,
                       url: str | None = None) -> AsyncIterator[ClientSession]:
    if transport == "stdio":
        command = command or DEMO_STDIO
        async with tap.stdio_transport(command[0], command[1:]) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            yield s
        return
    async with contextlib_url(url) as where, \
            streamablehttp_client(where, httpx_client_factory=tap.httpx_client_factory) as (read, write, _), \
            ClientSession(read, write) as s:
        await s.initialize()
        yield s


@asynccontextmanager
async def contextlib_url(url: str | None) -> AsyncIterator[str]:
    if url is not None:
        yield url
        return
    async with demo.serve_http() as served:
        yield served


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def test_the_factory_makes_httpx_clients_for_the_1x_stack() -> None:
    import httpx

    tap = VerdictTap()
    assert isinstance(tap.httpx_client_factory(headers={"x": "1"}), httpx.AsyncClient)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_demo_outcome_through_a_1x_session(transport: str) -> None:
    async def scenario() -> list[Any]:
        tap = VerdictTap()
        async with session_over(tap, transport) as session:
            return [await tap.call_tool(session, name, args,
                                        call_options={"read_timeout_seconds": timedelta(seconds=10)})
                    for name, args, *_ in LEGACY_CASES]

    for outcome, (name, _, kind, why, action) in zip(run(scenario), LEGACY_CASES, strict=True):
        verdict = outcome.verdict
        assert (verdict.kind.value, outcome.decision.action.value) == (kind, action), (name, verdict.findings)
        if isinstance(why, int):
            assert verdict.error_code == why
        elif why is not None:
            assert why in [f.code for f in verdict.errors], (name, verdict.findings)
        assert verdict.version == "2025-11-25"  # what initialize negotiated, read from the wire


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_fifty_concurrent_calls_answered_out_of_order_on_1x(transport: str) -> None:
    count = 50

    async def scenario() -> dict[int, Any]:
        tap = VerdictTap()
        outcomes: dict[int, Any] = {}
        async with session_over(tap, transport) as session:
            async def one(i: int) -> None:
                outcomes[i] = await tap.call_tool(session, "slow_echo",
                                                  {"text": f"call {i}", "seconds": (count - i) * 0.02})

            async with anyio.create_task_group() as group:
                for i in range(count):
                    group.start_soon(one, i)
                    await anyio.sleep(0)
        return outcomes

    outcomes = run(scenario)
    assert sorted(outcomes) == list(range(count))
    assert all(o.succeeded and o.verdict.structured_content["text"] == f"call {i}" for i, o in outcomes.items())


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_timed_out_write_on_1x_ran_once(transport: str) -> None:
    async def scenario() -> tuple[Any, Any]:
        tap = VerdictTap()
        key = f"mcp1-{transport}"
        async with session_over(tap, transport) as session:
            late = await tap.call_tool(session, "slow_write", {"key": key, "seconds": 6},  # 20 times the timeout
                                       call_options={"read_timeout_seconds": timedelta(seconds=0.3)})
            count = await tap.call_tool(session, "write_count", {"key": key})
        return late, count

    late, count = run(scenario)
    assert [f.code for f in late.verdict.findings] == ["transport.timeout"]
    assert late.decision.action.value == "check_state"
    assert count.verdict.structured_content["executions"] == 1


def test_server_everything_through_a_1x_session() -> None:
    async def scenario() -> list[list[Any]]:
        tap = VerdictTap()
        out = []
        async with session_over(tap, "stdio", command=everything_stdio()) as session:
            out.append([await tap.call_tool(session, "echo", {"message": "hi"}),
                        await tap.call_tool(session, "nope", {})])
        with everything_http() as url:
            async with session_over(tap, "http", url=url) as session:
                out.append([await tap.call_tool(session, "echo", {"message": "hi"}),
                            await tap.call_tool(session, "nope", {})])
        return out

    for echo, nope in run(scenario):
        assert echo.succeeded and "hi" in echo.verdict.text
        assert nope.verdict.kind is Kind.TOOL_ERROR
