"""langchain-mcp-adapters with VerdictInterceptor (run in .venvs/mcp1 by ../test_mcp1_suite.py): each
tool is the adapters' own StructuredTool, invoked with ``ainvoke`` and a tool call as an agent
would, against the demo server (stdio through ``stdio_session``, HTTP through the connection's
``httpx_client_factory``) and server-everything, beside the stock adapters."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio
import pytest
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools

from mcp_verdict import VerdictError, VerdictTap, demo
from mcp_verdict.integrations.langchain import VerdictInterceptor, connection, stdio_session

from ..peers import DEMO_STDIO, FIFTY, everything_http, everything_stdio, fifty_out_of_order
from ..readme_table import CASES, cell, check_row

TIMEOUT = {"read_timeout_seconds": timedelta(seconds=2)}  # long enough for a server process to start


@asynccontextmanager
async def tools_for(strict: bool, transport: str, url: str, command: list[str] | None = None,
                    **interceptor: Any) -> AsyncIterator[dict[str, Any]]:
    command = command or DEMO_STDIO
    tap = VerdictTap(name="langchain")
    interceptors = [VerdictInterceptor(tap, **interceptor)] if strict else []
    if transport == "stdio":
        if strict:
            async with stdio_session(tap, command[0], command[1:], **TIMEOUT) as session:
                yield {t.name: t for t in await load_mcp_tools(session, tool_interceptors=interceptors)}
            return
        client = MultiServerMCPClient({"demo": {"transport": "stdio", "command": command[0], "args": command[1:],
                                                "session_kwargs": TIMEOUT}})
        async with client.session("demo") as session:
            yield {t.name: t for t in await load_mcp_tools(session)}
        return
    where: dict[str, Any] = connection(tap, url, session_kwargs=TIMEOUT) if strict else {
        "transport": "streamable_http", "url": url, "session_kwargs": TIMEOUT}
    client = MultiServerMCPClient({"demo": where}, tool_interceptors=interceptors)
    yield {t.name: t for t in await client.get_tools()}


async def invoke(tools: dict[str, Any], name: str, arguments: dict[str, Any]) -> Any:
    try:
        return await tools[name].ainvoke({"args": arguments, "id": "call-1", "name": name, "type": "tool_call"})
    except Exception as exc:
        return exc


def label(message: Any) -> str:
    if isinstance(message, ToolMessage):
        return f'status="{message.status}"'
    return type(message).__name__


def text(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_what_the_model_receives_without_and_with_mcp_verdict(transport: str) -> None:
    async def scenario() -> dict[bool, tuple[list[Any], int]]:
        out = {}
        async with demo.serve_http() as url:
            for strict in (False, True):
                key = f"langchain-{transport}-{strict}"
                async with tools_for(strict, transport, url) as tools:
                    seen = [await invoke(tools, name, {"amount_cents": 5} if name == "charge_card" else {})
                            for name in CASES]
                    seen.append(await invoke(tools, "slow_write", {"key": key, "seconds": 3.0}))
                    await anyio.sleep(1.2)
                    count = json.loads(text(await invoke(tools, "write_count", {"key": key})))["executions"]
                out[strict] = (seen, count)
        return out

    observed = run(scenario)
    before, runs_before = observed[False]
    after, runs_after = observed[True]
    assert [label(m) for m in before] == ['status="success"'] * 3 + ['status="error"', "McpError"]
    assert [label(m) for m in after] == ['status="error"'] * 5
    assert "result.is_error" in text(after[0]) and "json.duplicate_key" in text(after[1])
    assert "result.result_type_unknown" in text(after[2]) and "declined" in text(after[3])
    assert text(after[4]).startswith("The tool call's effect is unknown") and "check_state" in text(after[4])
    assert runs_before == runs_after == 1
    row = [cell(label(b), label(a)) for b, a in zip(before[:4], after[:4], strict=True)]
    row.append(cell(f"1 run, {label(before[4])}", f'1 run, {label(after[4])} (check state)'))
    check_row("langchain-mcp-adapters", row)


def test_on_unclassified_raise() -> None:
    async def scenario() -> Any:
        async with demo.serve_http() as url, tools_for(True, "http", url, on_unclassified="raise") as tools:
            return await invoke(tools, "duplicate_is_error", {})

    error = run(scenario)
    assert isinstance(error, VerdictError) and error.verdict.kind.value == "unclassified"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_fifty_concurrent_tool_calls_answered_out_of_order(transport: str) -> None:
    async def scenario() -> dict[int, str]:
        async with demo.serve_http() as url, tools_for(True, transport, url) as tools:
            async def echo(arguments: dict[str, Any]) -> str:
                message = await invoke(tools, "slow_echo", arguments)
                assert isinstance(message, ToolMessage) and message.status == "success", message
                echoed: str = json.loads(text(message))["text"]
                return echoed

            return await fifty_out_of_order(echo, step=0.002)

    assert run(scenario) == FIFTY


def test_server_everything() -> None:
    async def scenario() -> list[Any]:
        out = []
        async with tools_for(True, "stdio", "", command=everything_stdio()) as tools:
            out.append(await invoke(tools, "echo", {"message": "hi"}))
        with everything_http() as url:
            async with tools_for(True, "http", url) as tools:
                out.append(await invoke(tools, "echo", {"message": "hi"}))
        return out

    for message in run(scenario):
        assert isinstance(message, ToolMessage) and message.status == "success" and "hi" in text(message)
