"""Real MCP servers over real stdio and HTTP on loopback: verdict and decision per kind of tool.

- @modelcontextprotocol/server-everything (npm; speaks 2025-11-25 only, so the client falls back
  to the initialize handshake and elicitation/sampling arrive as server-to-client requests);
- mcp-server-time (PyPI; negotiates 2026-07-28);
- an official-SDK MCPServer (tests/servers/sdk_server.py) with tools that succeed, raise and
  elicit, over stdio and over Streamable HTTP on 127.0.0.1.
Expected kinds and actions are stated by hand from each server's documented behaviour.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, ElicitationRequest, Kind
from mcp_verdict.client import ElicitAnswer, Handlers, VerdictClient

from ..processes import free_port, http_server
from .conftest import EVERYTHING, NODE, need
from .traffic import name_form, sample

ROOT = Path(__file__).resolve().parents[2]
SDK_SERVER = [sys.executable, "-m", "tests.servers.sdk_server"]

asked: list[str] = []


async def form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    asked.append(request.message)
    return await name_form(request, problems)


HANDLERS = Handlers(form=form, sampling=sample)

# (tool, arguments) → (kind, action, a substring of the text)
EVERYTHING_CASES: list[tuple[str, dict[str, Any], Kind, Action, str]] = [
    ("echo", {"message": "hi there"}, Kind.NORMAL_COMPLETE, Action.ACCEPT, "hi there"),
    ("get-sum", {"a": 2, "b": 40}, Kind.NORMAL_COMPLETE, Action.ACCEPT, "42"),
    ("get-structured-content", {"location": "New York"}, Kind.NORMAL_COMPLETE, Action.ACCEPT, ""),
    ("get-tiny-image", {}, Kind.NORMAL_COMPLETE, Action.ACCEPT, ""),
    ("trigger-sampling-request", {"prompt": "answer?", "maxTokens": 10}, Kind.NORMAL_COMPLETE, Action.ACCEPT, "42"),
    ("nope", {}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL, "not found"),
]


def run(coro: Any) -> Any:
    return anyio.run(lambda: coro)


def test_server_everything_over_stdio() -> None:
    node = need(NODE, "npm's node@22")
    server = need(EVERYTHING, "@modelcontextprotocol/server-everything")

    async def scenario() -> list[tuple[str, Any]]:
        out = []
        async with VerdictClient.stdio([str(node), str(server), "stdio"], handlers=HANDLERS, timeout=20) as client:
            assert client.version == "2025-11-25"
            names = {tool["name"] for tool in await client.list_tools()}
            assert {"echo", "get-sum", "trigger-elicitation-request"} <= names
            for name, arguments, *_ in EVERYTHING_CASES:
                out.append((name, await client.call_tool(name, arguments)))
            out.append(("trigger-elicitation-request", await client.call_tool("trigger-elicitation-request", {})))
        return out

    outcomes = dict(run(scenario()))
    for name, _, kind, action, text in EVERYTHING_CASES:
        outcome = outcomes[name]
        assert (outcome.verdict.kind, outcome.decision.action) == (kind, action), (name, outcome.verdict.findings)
        assert text in outcome.verdict.text
    structured = outcomes["get-structured-content"]
    assert structured.verdict.has_structured_content and structured.content_check.schema_checked
    assert "image" in [block.type for block in outcomes["get-tiny-image"].verdict.content]
    # A 2025 server elicits with a server-to-client request; the form handler answered it.
    assert outcomes["trigger-elicitation-request"].verdict.kind is Kind.NORMAL_COMPLETE
    assert asked


TIME_CASES: list[tuple[dict[str, Any], Kind, Action]] = [
    ({"timezone": "UTC"}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    ({"timezone": "Mars/Olympus_Mons"}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL),
    ({"timezone": ""}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL),
]


def test_mcp_server_time_over_stdio() -> None:
    command = shutil.which("mcp-server-time", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.fail("mcp-server-time is not installed in this environment (pip install -e .[test] installs it)")

    async def scenario() -> tuple[str, list[Any], Any, Any]:
        async with VerdictClient.stdio([command, "--local-timezone", "UTC"], timeout=20) as client:
            tools = await client.list_tools()
            outcomes = [await client.call_tool("get_current_time", args) for args, _, _ in TIME_CASES]
            unknown = await client.call_tool("no_such_tool", {})
            converted = await client.call_tool("convert_time", {"source_timezone": "UTC", "time": "12:00",
                                                                "target_timezone": "Asia/Tokyo"})
            return client.version, outcomes, unknown, (tools, converted)

    version, outcomes, unknown, (tools, converted) = run(scenario())
    assert version == "2026-07-28"
    for outcome, (args, kind, action) in zip(outcomes, TIME_CASES, strict=True):
        assert (outcome.verdict.kind, outcome.decision.action) == (kind, action), args
    assert outcomes[0].verdict.structured_content["timezone"] == "UTC"
    assert outcomes[0].content_check.schema_checked  # checked against its outputSchema
    assert (unknown.verdict.kind, unknown.verdict.error_code, unknown.decision.action) == (
        Kind.PROTOCOL_ERROR, -32602, Action.FIX_REQUEST)
    assert converted.succeeded
    assert all(tool["annotations"]["readOnlyHint"] is True for tool in tools)


SDK_CASES: list[tuple[str, dict[str, Any], Kind, Action, str]] = [
    ("add", {"a": 2, "b": 3}, Kind.NORMAL_COMPLETE, Action.ACCEPT, "5"),
    ("explode", {"reason": "disk full"}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL, "disk full"),
    ("greet", {}, Kind.NORMAL_COMPLETE, Action.ACCEPT, "hello, Ada"),
]


def _check_sdk_outcomes(client: VerdictClient, outcomes: list[Any]) -> None:
    for outcome, (name, _, kind, action, text) in zip(outcomes, SDK_CASES, strict=True):
        assert (outcome.verdict.kind, outcome.decision.action) == (kind, action), (name, outcome.verdict.findings)
        assert text in outcome.verdict.text, name
    greet = client.history[-1]
    assert [r.verdict.kind for r in greet.rounds] == [Kind.INPUT_REQUIRED, Kind.NORMAL_COMPLETE]
    first, retry = (r.request for r in greet.rounds)
    assert first is not None and retry is not None
    assert b'"inputResponses"' not in first and b'"inputResponses"' in retry and b'"requestState"' in retry


async def _sdk_calls(client: VerdictClient) -> list[Any]:
    await client.list_tools()
    return [await client.call_tool(name, args) for name, args, *_ in SDK_CASES]


def test_sdk_server_over_stdio() -> None:
    async def scenario() -> tuple[VerdictClient, list[Any]]:
        async with VerdictClient.stdio(SDK_SERVER, cwd=str(ROOT), handlers=HANDLERS, timeout=20) as client:
            assert client.version == "2026-07-28"
            assert client.capabilities == {"elicitation": {"form": {}}, "sampling": {}}
            return client, await _sdk_calls(client)

    client, outcomes = run(scenario())
    _check_sdk_outcomes(client, outcomes)


@pytest.fixture
def sdk_http_server() -> Iterator[str]:
    port = free_port()
    with http_server([*SDK_SERVER, "http", str(port)], port, "the SDK server", cwd=ROOT, timeout=20) as url:
        yield url


def test_sdk_server_over_http(sdk_http_server: str) -> None:
    async def scenario() -> tuple[VerdictClient, list[Any]]:
        async with VerdictClient.http(sdk_http_server, handlers=HANDLERS, timeout=20) as client:
            assert client.version == "2026-07-28"
            return client, await _sdk_calls(client)

    client, outcomes = run(scenario())
    _check_sdk_outcomes(client, outcomes)
    assert all(frame.exchange is not None for frame in client.wire.frames)
