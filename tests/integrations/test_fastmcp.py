"""FastMCP's Client over StrictTransport, and a FastMCP proxy with VerdictMiddleware, against the
demo server (stdio and HTTP) and server-everything; beside each, the stock transport on the same
server (the README's before/after row)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from fastmcp.server import create_proxy
from mcp.shared.exceptions import MCPError

from mcp_verdict import VerdictError, demo
from mcp_verdict.integrations.fastmcp import UPSTREAM_REFUSED, StrictTransport, VerdictMiddleware

from .peers import DEMO_STDIO, FIFTY, everything_http, everything_stdio, fifty_out_of_order
from .readme_table import CASES, cell, check_row


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def label(outcome: Any) -> str:
    if isinstance(outcome, VerdictError):
        return f"VerdictError ({outcome.decision.action.value})"
    if isinstance(outcome, BaseException):
        return type(outcome).__name__
    return "error result" if outcome.is_error else "success"


async def attempt(client: Client[Any], name: str, arguments: dict[str, Any], **options: Any) -> Any:
    try:
        return await client.call_tool(name, arguments, **options)
    except Exception as exc:
        return exc


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_what_the_application_gets_without_and_with_mcp_verdict(transport: str) -> None:
    async def scenario() -> dict[bool, tuple[list[str], int]]:
        out = {}
        async with demo.serve_http() as url:
            for strict in (False, True):
                target: Any = DEMO_STDIO if transport == "stdio" else url
                if strict:
                    target = StrictTransport(target)
                elif transport == "stdio":
                    from fastmcp.client.transports import StdioTransport

                    target = StdioTransport(DEMO_STDIO[0], DEMO_STDIO[1:])
                key = f"fastmcp-{transport}-{strict}"
                async with Client(target) as client:
                    seen = [label(await attempt(client, name, {"amount_cents": 5} if name == "charge_card" else {}))
                            for name in CASES]
                    seen.append(label(await attempt(client, "slow_write", {"key": key, "seconds": 6.0},
                                                      timeout=0.3)))  # an answer 20 times the timeout late
                    await anyio.sleep(0.9)
                    count = (await client.call_tool("write_count", {"key": key})).structured_content["executions"]
                out[strict] = (seen, count)
        return out

    observed = run(scenario)
    before, runs_before = observed[False]
    after, runs_after = observed[True]
    assert before == ["success", "success", "success", "ToolError", "MCPError"]
    assert after == ["VerdictError (investigate)"] * 3 + ["ToolError", "VerdictError (check_state)"]
    assert runs_before == runs_after == 1
    row = [cell(b, a) for b, a in zip(before[:4], after[:4], strict=True)]
    row.append(cell(f"{runs_before} run, {before[4]}", f"{runs_after} run, {after[4]}"))
    check_row("FastMCP `Client`", row)


def test_raise_on_error_false_still_raises_for_unclassified_answers() -> None:
    async def scenario() -> tuple[Any, Any, Any]:
        async with Client(StrictTransport(DEMO_STDIO)) as client:
            tool_error = await client.call_tool("charge_card", {"amount_cents": 5}, raise_on_error=False)
            broken = await attempt(client, "duplicate_is_error", {}, raise_on_error=False)
            fine = await client.call_tool("get_forecast", {"city": "Lisbon"})
            return tool_error, broken, fine

    tool_error, broken, fine = run(scenario)
    assert tool_error.is_error is True
    assert isinstance(broken, VerdictError) and "json.duplicate_key" in [f.code for f in broken.verdict.errors]
    assert broken.response is not None and b'"isError":true,"isError":false' in broken.response
    assert fine.structured_content["city"] == "Lisbon"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_input_required_goes_to_fastmcps_handlers_and_the_final_round_decides(transport: str) -> None:
    asked: list[str] = []

    async def elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        asked.append(message)
        return {"confirm": True}

    async def scenario() -> Any:
        async with demo.serve_http() as url:
            target = StrictTransport(DEMO_STDIO if transport == "stdio" else url)
            async with Client(target, elicitation_handler=elicit) as client:
                result = await client.call_tool("confirm_delete", {"path": "/tmp/report.txt"})
                return result, [call.verdict.kind.value for call in target.tap.history]

    result, rounds = run(scenario)
    assert asked and result.structured_content["deleted"] is True
    assert rounds == ["input_required", "normal_complete"]


def test_the_proxy_answers_a_refused_upstream_answer_with_a_json_rpc_error() -> None:
    async def scenario() -> tuple[Any, Any, Any]:
        async with demo.serve_http() as url:
            async with Client(create_proxy(url)) as laundering:
                laundered = await laundering.call_tool_mcp("string_is_error", {})
            proxy = create_proxy(StrictTransport(url))
            proxy.add_middleware(VerdictMiddleware())
            async with Client(proxy) as client:
                fine = await client.call_tool("get_forecast", {"city": "Lisbon"})
                refused = await attempt(client, "string_is_error", {})
            return laundered, fine, refused

    laundered, fine, refused = run(scenario)
    assert laundered.is_error is False  # FastMCP's proxy alone: a clean success downstream
    assert fine.structured_content["city"] == "Lisbon"
    # -31000: the proxy's code for a refused answer, outside JSON-RPC's reserved range
    # (basic/index#error-codes); the same ``data`` as the proxy writes, source aside.
    assert isinstance(refused, MCPError) and refused.error.code == -31000 == UPSTREAM_REFUSED
    data = refused.error.data
    assert data["source"] == "mcp-verdict fastmcp" and data["decision"] == "investigate"
    assert data["verdict"]["kind"] == "unclassified" and data["verdict"]["version"] == "2026-07-28"
    assert [f["code"] for f in data["verdict"]["findings"]] == ["result.is_error"]
    assert len(data["sha256"]) == 64 and data["size"] > 0


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_fifty_concurrent_calls_answered_out_of_order(transport: str) -> None:
    async def scenario() -> dict[int, str]:
        async with demo.serve_http() as url, Client(StrictTransport(DEMO_STDIO if transport == "stdio" else url)) \
                as client:
            async def echo(arguments: dict[str, Any]) -> str:
                text: str = (await client.call_tool("slow_echo", arguments)).structured_content["text"]
                return text

            return await fifty_out_of_order(echo)

    assert run(scenario) == FIFTY


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_server_everything(transport: str) -> None:
    async def calls(target: StrictTransport) -> tuple[Any, Any]:
        async with Client(target) as client:
            return await client.call_tool("echo", {"message": "hi"}), await attempt(client, "get-sum", {"a": 2})

    async def scenario() -> tuple[Any, Any]:
        if transport == "stdio":
            return await calls(StrictTransport(everything_stdio()))
        with everything_http() as url:
            return await calls(StrictTransport(url))

    echo, bad = run(scenario)
    assert "hi" in echo.content[0].text
    assert isinstance(bad, (ToolError, MCPError))  # missing argument: the server's own error, as FastMCP raises it
