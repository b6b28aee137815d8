"""The adapters (FastMCP, pydantic-ai, the OpenAI Agents SDK) against a crafted server whose every
answer is written byte for byte, one way per tool (``crafted_answers``): what the application (or
the model) is handed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mcp_verdict import VerdictError, demo
from mcp_verdict.integrations.fastmcp import StrictTransport
from mcp_verdict.integrations.openai_agents import StrictMCPServerStdio
from mcp_verdict.integrations.pydantic_ai import strict_toolset

from .crafted_answers import answer, command

READ_ONLY = {"readOnlyHint": True}
COUNT_SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


def wrong_count(verdict: Any) -> bool | str:
    return "not the count I need"


# name → (the tool as listed, the answer, the options of the strict transport or server)
TOOLS: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "plain": ({}, answer('{"resultType":"complete","content":[{"type":"text","text":"42"}]}'), {}),
    # isError absent, the text reports a failure (content.suspect_error: never accepted)
    "error_shaped": ({}, answer('{"resultType":"complete","content":[{"type":"text",'
                                '"text":"Error: permission denied"}]}'), {}),
    # a read-only tool (trusted annotations) whose answer fails the caller's expectation
    "expectation_failed": ({"annotations": READ_ONLY},
                           answer('{"resultType":"complete","content":[{"type":"text","text":"7"}]}'),
                           {"trusted_server": True, "expect": wrong_count}),
    # structuredContent breaks the tool's outputSchema ("7" is no integer)
    "broken_contract": ({"outputSchema": COUNT_SCHEMA},
                        answer('{"resultType":"complete","content":[{"type":"text","text":"{}"}],'
                               '"structuredContent":{"count":"7"}}'), {}),
    "tool_error": ({}, answer('{"resultType":"complete","content":[{"type":"text","text":"declined"}],'
                              '"isError":true}'), {}),
    # a tool error whose text clears the screen (ESC [2J) and reverses what follows (U+202E)
    "tool_error_escapes": ({}, answer('{"resultType":"complete","content":[{"type":"text",'
                                      '"text":"bad \\u001b[2J \\u202e done"}],"isError":true}'), {}),
}


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def fastmcp_label(outcome: Any) -> str:
    if isinstance(outcome, VerdictError):
        return f"VerdictError ({outcome.decision.action.value})"
    if isinstance(outcome, BaseException):
        return type(outcome).__name__
    return "error result" if outcome.is_error else f"success {outcome.content[0].text}"


# name → what FastMCP's call_tool gives the application over a StrictTransport (by hand: the
# verdict's decision; only an accepted call is a success)
FASTMCP: list[tuple[str, str]] = [
    ("plain", "success 42"),
    ("error_shaped", "VerdictError (return_to_model)"),
    ("expectation_failed", "VerdictError (investigate)"),
    ("broken_contract", "VerdictError (investigate)"),
    ("tool_error", "ToolError"),
]


@pytest.mark.parametrize(("name", "expected"), FASTMCP)
def test_fastmcp_hands_back_only_accepted_calls_as_success(name: str, expected: str) -> None:
    listed, raw, options = TOOLS[name]

    async def scenario() -> str:
        async with Client(StrictTransport(command({name: {**listed, "raw": raw}}), **options)) as client:
            await client.list_tools()
            try:
                return fastmcp_label(await client.call_tool(name, {}))
            except (ToolError, VerdictError, RuntimeError) as exc:
                return fastmcp_label(exc)

    assert run(scenario) == expected


def caller(name: str) -> FunctionModel:
    """A model that calls ``name`` once and reports the tool return it was handed."""
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart(name, {})])
        return ModelResponse(parts=[TextPart(f"{returns[-1].outcome}|{str(returns[-1].content).split(' (')[0]}")])

    return FunctionModel(respond)


# name → the tool return the model is handed (outcome|the text before its details), by hand
PYDANTIC_AI: list[tuple[str, str]] = [
    ("plain", "success|42"),
    ("error_shaped", "failed|The tool call failed: the tools/call answer is normal_complete"),
    ("expectation_failed", "failed|The tool call failed: the tools/call answer is normal_complete"),
    ("broken_contract", "failed|The tool call failed: the tools/call answer is normal_complete"),
]


@pytest.mark.parametrize(("name", "expected"), PYDANTIC_AI)
def test_pydantic_ai_hands_the_model_only_accepted_calls_as_returns(name: str, expected: str) -> None:
    listed, raw, options = TOOLS[name]

    async def scenario() -> str:
        executable, *args = command({name: {**listed, "raw": raw}})
        toolset = strict_toolset(executable, args, **options)
        result = await Agent(caller(name), toolsets=[toolset]).run("go")
        return str(result.output)

    assert run(scenario) == expected


# (server options, tool) → what the Agents SDK's call_tool raises or returns, by hand
AGENTS: list[tuple[dict[str, Any], str, str]] = [
    ({}, "plain", "42"),
    ({}, "error_shaped", "AgentsVerdictError: The tool call failed: the tools/call answer is normal_complete"),
    # peer text in the reason is shown, never obeyed (verdict/_peer_text): visible escapes
    ({}, "tool_error_escapes", "AgentsVerdictError: The tool reported an error: bad \\x1b[2J \\u202e done"),
    # the answer is accepted, but the SDK refuses the tools/list it reads to validate the output:
    # its own error, as the stock server raises it (never a "failure" whose next step is "accept")
    ({"bare_list": True}, "plain", "ValidationError: 2 validation errors for ListToolsResult"),
]


@pytest.mark.parametrize(("server_options", "name", "expected"), AGENTS)
def test_agents_raise_the_stacks_own_error_when_the_answer_was_accepted(server_options: dict[str, Any], name: str,
                                                                         expected: str) -> None:
    listed, raw, options = TOOLS[name]

    async def scenario() -> str:
        executable, *args = command({name: {**listed, "raw": raw}}, **server_options)
        async with StrictMCPServerStdio({"command": executable, "args": args}, **options) as server:
            try:
                result = await server.call_tool(name, {})
            except Exception as exc:
                return f"{type(exc).__name__}: {str(exc).splitlines()[0].split(' (')[0]}"
            return str(result.content[0].text)

    assert run(scenario) == expected



def test_a_url_scheme_in_capitals_is_still_http() -> None:
    async def scenario() -> str:
        async with demo.serve_http() as url:
            assert url.startswith("http://")
            async with Client(StrictTransport("HTTP://" + url.removeprefix("http://"))) as client:
                return str((await client.call_tool("get_forecast", {"city": "Lisbon"})).structured_content["city"])

    assert run(scenario) == "Lisbon"


# odd options → the error the application is given at once (by hand), never an option dropped
ODD_OPTIONS: list[tuple[str, Callable[[], Any], str]] = [
    ("strict_toolset: a transport and options of one",
     lambda: strict_toolset(StrictTransport("http://127.0.0.1:1/mcp"), expect={"type": "object"}),
     "OptionError: expect, given with a StrictTransport, would be ignored: give it to the StrictTransport"),
    ("strict_toolset: a transport and its args",
     lambda: strict_toolset(StrictTransport("http://127.0.0.1:1/mcp"), ["--flag"], trusted_server=True),
     "OptionError: args, trusted_server, given with a StrictTransport, would be ignored: give them to the "
     "StrictTransport"),
    ("StrictTransport: a URL and a command's args",
     lambda: StrictTransport("http://127.0.0.1:1/mcp", ["--flag"], cwd="/tmp"),
     "OptionError: args, cwd are for a command; http://127.0.0.1:1/mcp is a URL"),
    ("StrictTransport: a command and HTTP headers",
     lambda: StrictTransport(["python", "server.py"], headers={"Authorization": "x"}, auth="bearer"),
     "OptionError: headers, auth are for a URL; the target is a command"),
    ("StrictMCPServerStdio: unlimited retries",
     lambda: StrictMCPServerStdio({"command": "python"}, max_retry_attempts=-1),
     "OptionError: max_retry_attempts=-1 (retry forever) is not allowed on a strict server: give the most "
     "times a call may run again"),
]


@pytest.mark.parametrize(("case", "make", "expected"), ODD_OPTIONS, ids=[case[0] for case in ODD_OPTIONS])
def test_odd_options_are_refused_with_a_clear_error(case: str, make: Callable[[], Any], expected: str) -> None:
    try:
        made = make()
    except Exception as exc:
        assert f"{type(exc).__name__}: {exc}" == expected
        return
    pytest.fail(f"{case}: accepted ({made!r})")
