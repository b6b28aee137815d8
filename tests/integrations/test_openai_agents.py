"""The OpenAI Agents SDK with StrictMCPServerStdio / StrictMCPServerStreamableHttp, no model needed:
each tool is the Agents SDK's own FunctionTool (``MCPUtil.to_function_tool``), invoked with
``on_invoke_tool`` as a run would, against the demo server (stdio and HTTP) and server-everything.
Beside each strict server, the stock one on the same server: the README's before/after row."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp, MCPUtil
from agents.tool_context import ToolContext

from mcp_verdict import demo
from mcp_verdict.integrations.openai_agents import StrictMCPServerStdio, StrictMCPServerStreamableHttp

from .peers import DEMO_STDIO, FIFTY, everything_http, everything_stdio, fifty_out_of_order
from .readme_table import CASES, cell, check_row

OPTIONS: dict[str, Any] = {"max_retry_attempts": 2, "retry_backoff_seconds_base": 0.05}


@asynccontextmanager
async def server(strict: bool, transport: str, command: list[str] | None = None,
                 timeout: float = 2.0) -> AsyncIterator[Any]:
    options = {**OPTIONS, "client_session_timeout_seconds": timeout, "cache_tools_list": True}
    if transport == "stdio":
        command = command or DEMO_STDIO
        cls: Any = StrictMCPServerStdio if strict else MCPServerStdio
        async with cls({"command": command[0], "args": command[1:]}, **options) as stdio:
            yield stdio
        return
    cls = StrictMCPServerStreamableHttp if strict else MCPServerStreamableHttp
    async with demo.serve_http() as url, cls({"url": url, "timeout": 5}, **options) as http:
        yield http


async def invoke(target: Any, name: str, arguments: dict[str, Any]) -> Any:
    tools = {tool.name: tool for tool in await target.list_tools()}
    function = MCPUtil.to_function_tool(tools[name], target, convert_schemas_to_strict=False)
    data = json.dumps(arguments)
    return await function.on_invoke_tool(ToolContext(context=None, tool_name=name, tool_call_id="call-1",
                                                     tool_arguments=data), data)


def text(output: Any) -> str:
    return output["text"] if isinstance(output, dict) else str(output)


def seen(output: str) -> str:
    """What the model got, in the README's words."""
    if output.startswith("The tool reported an error:"):
        return "tool error"
    if output.startswith("The tool call's effect is unknown"):
        return "failure: check state"
    if output.startswith("The tool call failed: the tools/call answer is unclassified"):
        return "failure: unclassified"
    if output.startswith("An error occurred while running the tool"):
        return "failure"
    return "output"


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_what_the_model_sees_without_and_with_mcp_verdict(transport: str) -> None:
    async def scenario() -> dict[bool, tuple[list[str], int]]:
        out = {}
        for strict in (False, True):
            key = f"agents-{transport}-{strict}"
            async with server(strict, transport) as target:
                outputs = [text(await invoke(target, name, {"amount_cents": 5} if name == "charge_card" else {}))
                           for name in CASES]
                outputs.append(text(await invoke(target, "slow_write", {"key": key, "seconds": 4})))
                await anyio.sleep(4.2)  # every execution the stock retries caused has answered by now
                count = json.loads(text(await invoke(target, "write_count", {"key": key})))["executions"]
            out[strict] = ([seen(o) for o in outputs], count)
        return out

    observed = run(scenario)
    before, runs_before = observed[False]
    after, runs_after = observed[True]
    assert before == ["output", "output", "output", "output", "failure"]
    assert after == ["failure: unclassified"] * 3 + ["tool error", "failure: check state"]
    assert (runs_before, runs_after) == (3, 1)  # max_retry_attempts=2 ran the write three times
    row = [cell(b, a) for b, a in zip(before[:4], after[:4], strict=True)]
    row.append(cell(f"{runs_before} runs", f"{runs_after} run, {after[4]}"))
    check_row("openai-agents", row)


def test_success_and_the_reason_reach_the_model() -> None:
    async def scenario() -> tuple[Any, str, Any]:
        async with server(True, "stdio") as target:
            forecast = await invoke(target, "get_forecast", {"city": "Lisbon"})
            failure = text(await invoke(target, "string_is_error", {}))
            return forecast, failure, target.outcomes[-1]

    forecast, failure, outcome = run(scenario)
    assert json.loads(text(forecast))["city"] == "Lisbon"
    assert "result.is_error" in failure and "investigate" in failure
    assert outcome.verdict.kind.value == "unclassified"


def test_fifty_concurrent_tool_calls_answered_out_of_order() -> None:
    async def scenario() -> dict[int, str]:
        async with server(True, "stdio", timeout=20) as target:
            async def echo(arguments: dict[str, Any]) -> str:
                echoed: str = json.loads(text(await invoke(target, "slow_echo", arguments)))["text"]
                return echoed

            return await fifty_out_of_order(echo)

    assert run(scenario) == FIFTY


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_server_everything(transport: str) -> None:
    async def scenario() -> tuple[str, str]:
        if transport == "stdio":
            context: Any = server(True, "stdio", command=everything_stdio(), timeout=20)
        else:
            context = everything_server_over_http()
        async with context as target:
            return text(await invoke(target, "echo", {"message": "hi"})), text(await invoke(target, "get-sum",
                                                                                             {"a": 2, "b": 40}))

    echo, total = run(scenario)
    assert "hi" in echo and "42" in total


@asynccontextmanager
async def everything_server_over_http() -> AsyncIterator[Any]:
    with everything_http() as url:
        async with StrictMCPServerStreamableHttp({"url": url, "timeout": 20}, client_session_timeout_seconds=20,
                                                 cache_tools_list=True) as target:
            yield target
