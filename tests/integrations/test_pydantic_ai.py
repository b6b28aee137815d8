"""pydantic-ai's Agent with strict_toolset, no model needed: a FunctionModel calls one tool, does
what a model asked to retry does (calls it once more), and reports what it was handed. Against
the demo server (stdio and HTTP) and server-everything, beside the stock MCPToolset."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mcp_verdict import VerdictError, demo
from mcp_verdict.integrations.pydantic_ai import strict_toolset

from .peers import DEMO_STDIO, everything_http, everything_stdio
from .readme_table import CASES, cell, check_row

WORDS = {"success": "return", "retried": "ModelRetry", "failed": "failed return"}


def caller(name: str, arguments: dict[str, Any]) -> FunctionModel:
    """A model that calls ``name``, calls it again when asked to retry (once), then says what it got:
    the outcomes of the tool returns it was handed, and the last content."""
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns or (returns[-1].outcome == "retried" and len(returns) < 2):
            return ModelResponse(parts=[ToolCallPart(name, arguments)])
        seen = ", ".join(WORDS[str(p.outcome)] for p in returns)
        return ModelResponse(parts=[TextPart(f"{seen}|{returns[-1].content}")])

    return FunctionModel(respond)


async def ask(toolset: Any, name: str, arguments: dict[str, Any]) -> tuple[str, str]:
    result = await Agent(caller(name, arguments), toolsets=[toolset]).run("go")
    seen, _, content = str(result.output).partition("|")
    return seen, content


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_what_the_model_receives_without_and_with_mcp_verdict(transport: str) -> None:
    async def scenario() -> dict[bool, tuple[list[tuple[str, str]], int]]:
        out = {}
        async with demo.serve_http() as url:
            for strict in (False, True):
                if strict:
                    toolset: Any = strict_toolset(url if transport == "http" else DEMO_STDIO, read_timeout=2,
                                                  max_retries=2)
                else:
                    toolset = MCPToolset(url if transport == "http" else StdioTransport(DEMO_STDIO[0], DEMO_STDIO[1:]),
                                         read_timeout=2, max_retries=2)
                key = f"pydantic-{transport}-{strict}"
                async with toolset:  # one connection (one stdio server process) for the whole scenario
                    seen = [await ask(toolset, name, {"amount_cents": 5} if name == "charge_card" else {})
                            for name in CASES]
                    seen.append(await ask(toolset, "slow_write", {"key": key, "seconds": 4}))
                    await anyio.sleep(4.2)  # every execution has answered by now
                    count = (await toolset.direct_call_tool("write_count", {"key": key}))["executions"]
                out[strict] = (seen, count)
        return out

    observed = run(scenario)
    before, runs_before = observed[False]
    after, runs_after = observed[True]
    assert [s for s, _ in before] == ["return", "return", "return", "ModelRetry, ModelRetry", "ModelRetry, ModelRetry"]
    assert [s for s, _ in after] == ["failed return"] * 3 + ["ModelRetry, ModelRetry", "failed return"]
    assert "result.is_error" in after[0][1] and "json.duplicate_key" in after[1][1]
    assert "result.result_type_unknown" in after[2][1]
    assert after[4][1].startswith("The tool call's effect is unknown") and "check_state" in after[4][1]
    assert (runs_before, runs_after) == (2, 1)  # asked to retry, the model ran the write again
    row = [cell(first_seen(b), first_seen(a)) for (b, _), (a, _) in zip(before[:4], after[:4], strict=True)]
    row.append(cell(f"ModelRetry, {runs_before} runs", f"failed return (check state), {runs_after} run"))
    check_row("pydantic-ai `MCPToolset`", row)


def first_seen(seen: str) -> str:
    return seen.split(", ", maxsplit=1)[0]


def test_on_unclassified_raise_raises_the_verdict_error_out_of_the_run() -> None:
    async def scenario() -> BaseException | None:
        try:
            await ask(strict_toolset(DEMO_STDIO, on_unclassified="raise"), "duplicate_is_error", {})
        except BaseException as exc:
            return exc
        return None

    error = run(scenario)
    assert isinstance(error, VerdictError) and error.verdict.kind.value == "unclassified"


def test_a_process_tool_call_of_your_own_still_runs() -> None:
    called: list[str] = []

    async def mine(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        called.append(name)
        return await call_tool(name, args)

    async def scenario() -> tuple[str, str]:
        return await ask(strict_toolset(DEMO_STDIO, process_tool_call=mine), "string_is_error", {})

    seen, _ = run(scenario)
    assert called == ["string_is_error"] and seen == "failed return"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_server_everything(transport: str) -> None:
    async def scenario() -> tuple[str, str]:
        if transport == "stdio":
            return await ask(strict_toolset(everything_stdio()), "echo", {"message": "hi"})
        with everything_http() as url:
            return await ask(strict_toolset(url), "echo", {"message": "hi"})

    seen, content = run(scenario)
    assert seen == "return" and "hi" in content


def test_fifty_tool_calls_in_one_model_response_answered_out_of_order() -> None:
    """pydantic-ai runs the tool calls of one model response concurrently."""
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("slow_echo", {"text": f"call {i}", "seconds": (50 - i) * 0.005},
                                                     tool_call_id=f"c{i}") for i in range(50)])
        texts: list[tuple[str, Any]] = [(p.tool_call_id, p.content) for p in returns]
        return ModelResponse(parts=[TextPart("|".join(f"{call}={content['text']}" for call, content in texts))])

    async def scenario() -> str:
        result = await Agent(FunctionModel(respond), toolsets=[strict_toolset(DEMO_STDIO)]).run("go")
        return str(result.output)

    pairs = dict(item.split("=") for item in run(scenario).split("|"))
    assert pairs == {f"c{i}": f"call {i}" for i in range(50)}


# pydantic-ai warns that a modern (2026-07-28) session cannot ask for input; FastMCP's client answers
# input_required results (multi round-trip) with the same handler, as this test shows.
@pytest.mark.filterwarnings("ignore:`elicitation_handler` will never be called")
def test_input_required_goes_to_the_toolsets_elicitation_handler() -> None:
    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        return {"confirm": True}

    async def scenario() -> tuple[str, str]:
        return await ask(strict_toolset(DEMO_STDIO, elicitation_handler=elicit), "confirm_delete",
                         {"path": "/tmp/report.txt"})

    seen, content = run(scenario)
    assert seen == "return" and "'deleted': True" in content
