"""The Agents SDK's strict servers and ``max_retry_attempts``: the setting bounds the judged
retries of a tool call (only when ``decide`` says ``retry``) and, as on the stock servers, the
retries of ``list_tools``; the stock blind retry is off for tool calls alone.

- After the retries of a trusted read-only tool are spent, the ``AgentsVerdictError`` says what
  to do now (``investigate``: ``retries_exhausted``), and so does the text the model is shown;
  before, both carried the decision of attempt 1: ``retry``, the model told to call again.
- ``list_tools`` retries a failed listing ``max_retry_attempts`` times, as the stock server does;
  before, the strict servers set the attribute to 0 and a listing failed at its first error.

Real Agents SDK servers (the SDK's own FunctionTool invoked as a run would) on crafted stdio
servers that count what they received."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from agents.mcp import MCPServerStdio, MCPUtil
from agents.tool_context import ToolContext

from mcp_verdict.integrations.openai_agents import AgentsVerdictError, StrictMCPServerStdio

from .crafted_answers import HANDSHAKE, command

INTERNAL_ERROR = '{"jsonrpc":"2.0","id":{id},"error":{"code":-32603,"message":"failed"}}'
READ_ONLY = {"annotations": {"readOnlyHint": True}, "raw": INTERNAL_ERROR}


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


# max_retry_attempts → (how many times the tool ran, the error's decision (action, rule, reason)), by hand:
# -32603 on a read-only tool of a trusted server is retried until the attempts run out
EXHAUSTED: list[tuple[int, int, tuple[str, str, str]]] = [
    (0, 1, ("investigate", "retries_exhausted", "gave up after 1 attempt")),
    (1, 2, ("investigate", "retries_exhausted", "gave up after 2 attempts")),
    (2, 3, ("investigate", "retries_exhausted", "gave up after 3 attempts")),
]


@pytest.mark.parametrize(("retries", "count", "decision"), EXHAUSTED)
def test_the_error_after_the_last_retry_says_what_to_do_now(retries: int, count: int,
                                                            decision: tuple[str, str, str], tmp_path: Path) -> None:
    counter = tmp_path / "runs"

    async def scenario() -> tuple[AgentsVerdictError, str]:
        executable, *args = command({"tool": READ_ONLY}, runs=str(counter))
        with anyio.fail_after(30):
            async with StrictMCPServerStdio({"command": executable, "args": args}, max_retry_attempts=retries,
                                            trusted_server=True, cache_tools_list=True) as server:
                (listed,) = await server.list_tools()
                with pytest.raises(AgentsVerdictError) as caught:
                    await server.call_tool("tool", {})
                tool = MCPUtil.to_function_tool(listed, server, convert_schemas_to_strict=False)
                seen = await tool.on_invoke_tool(ToolContext(context=None, tool_name="tool", tool_call_id="call-1",
                                                             tool_arguments="{}"), "{}")
        return caught.value, str(seen)

    error, seen = run(scenario)
    assert lines(counter) == 2 * count  # the direct call, then the model's
    assert (error.decision.action.value, error.decision.rule, error.decision.reason) == decision
    told = (f"The tool call failed: the tools/call answer is protocol_error (error -32603: failed); next: "
            f"investigate — {decision[2]}. Do not call it again before checking whether it took effect: it may "
            "have run.")
    assert (str(error), seen) == (told, told)


# a write that failed after it was sent is never run again, whatever max_retry_attempts says
def test_a_write_with_an_unknown_effect_still_runs_once(tmp_path: Path) -> None:
    counter = tmp_path / "runs"

    async def scenario() -> str:
        executable, *args = command({"tool": {"raw": INTERNAL_ERROR}}, runs=str(counter))
        with anyio.fail_after(30):
            async with StrictMCPServerStdio({"command": executable, "args": args}, max_retry_attempts=2,
                                            retry_backoff_seconds_base=0) as server:
                with pytest.raises(AgentsVerdictError) as caught:
                    await server.call_tool("tool", {})
        return caught.value.decision.action.value

    assert (run(scenario), lines(counter)) == ("check_state", 1)


# A stdio MCP server (2026-07-28 and 2025-11-25) whose first ``failures`` tools/list requests are
# answered with a -32603 error; it appends a line to the file ``listed`` per tools/list received.
FLAKY_LISTING = HANDSHAKE + r'''
failures, listed = int(sys.argv[1]), sys.argv[2]
META = meta("flaky-listing")
count = 0
for message, rid, method in requests():
    answer = {"jsonrpc": "2.0", "id": rid}
    hello = handshake(method, "flaky-listing")
    if hello is not None:
        answer["result"] = hello
    elif method == "tools/list":
        count += 1
        with open(listed, "a") as out:
            out.write("tools/list\n")
        if count <= failures:
            answer["error"] = {"code": -32603, "message": "listing failed"}
        else:
            tools = [{"name": "ping", "inputSchema": {"type": "object"}}]
            answer["result"] = {"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private",
                                "_meta": META}
    else:
        answer["error"] = {"code": -32601, "message": "no"}
    sys.stdout.buffer.write(json.dumps(answer).encode() + b"\n")
    sys.stdout.buffer.flush()
'''

# (the server: stock or strict, failed listings before a good one, max_retry_attempts) →
# (what list_tools ended with, how many tools/list the server received), by hand
LISTINGS: list[tuple[str, int, int, str, int]] = [
    ("stock", 2, 2, "ping", 3),   # the SDK's own behaviour: two retries
    ("strict", 2, 2, "ping", 3),  # the same on a strict server (before: failed at the first error)
    ("strict", 1, 1, "ping", 2),
    ("strict", 3, 2, "failed", 3),  # the retries run out
    ("strict", 1, 0, "failed", 1),  # no retry asked for, none made
    ("stock", 1, 0, "failed", 1),
]


@pytest.mark.parametrize(("kind", "failures", "retries", "ended", "count"), LISTINGS)
def test_list_tools_retries_as_the_user_set_it(kind: str, failures: int, retries: int, ended: str, count: int,
                                               tmp_path: Path) -> None:
    listed = tmp_path / "listed"
    cls: Any = StrictMCPServerStdio if kind == "strict" else MCPServerStdio

    async def scenario() -> str:
        params = {"command": sys.executable, "args": ["-c", FLAKY_LISTING, str(failures), str(listed)]}
        with anyio.fail_after(30):
            async with cls(params, max_retry_attempts=retries, retry_backoff_seconds_base=0) as server:
                try:
                    tools = await server.list_tools()
                except Exception:  # the SDK's own error for the failed listing
                    return "failed"
        return ",".join(tool.name for tool in tools)

    assert (run(scenario), lines(listed)) == (ended, count)


def test_the_setting_changed_later_holds_for_both(tmp_path: Path) -> None:
    listed, runs = tmp_path / "listed", tmp_path / "runs"

    async def scenario() -> tuple[str, str, int]:
        params = {"command": sys.executable, "args": ["-c", FLAKY_LISTING, "1", str(listed)]}
        with anyio.fail_after(30):
            async with StrictMCPServerStdio(params, retry_backoff_seconds_base=0) as server:
                server.max_retry_attempts = 1
                tools = await server.list_tools()
            executable, *args = command({"tool": READ_ONLY}, runs=str(runs))
            async with StrictMCPServerStdio({"command": executable, "args": args}, trusted_server=True) as strict:
                strict.max_retry_attempts = 1
                await strict.list_tools()  # the tool's annotations: read-only
                with pytest.raises(AgentsVerdictError) as caught:
                    await strict.call_tool("tool", {})
        return ",".join(tool.name for tool in tools), caught.value.decision.reason, strict.max_retry_attempts

    assert (*run(scenario), lines(listed), lines(runs)) == ("ping", "gave up after 2 attempts", 1, 2, 2)


BAD_SETTINGS: list[tuple[object, str]] = [
    (-1, "max_retry_attempts=-1 (retry forever) is not allowed on a strict server: give the most times a call may "
         "run again"),
    (-2, "max_retry_attempts must be a whole number of retries >= 0, not -2"),
    (1.5, "max_retry_attempts must be a whole number of retries >= 0, not 1.5"),
    ("2", "max_retry_attempts must be a whole number of retries >= 0, not '2'"),
    (True, "max_retry_attempts must be a whole number of retries >= 0, not True"),
]


@pytest.mark.parametrize(("value", "message"), BAD_SETTINGS)
def test_a_bad_setting_is_refused(value: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        StrictMCPServerStdio({"command": sys.executable, "args": ["-c", "pass"]}, max_retry_attempts=value)
    assert str(caught.value) == message
    server = StrictMCPServerStdio({"command": sys.executable, "args": ["-c", "pass"]})
    with pytest.raises(ValueError) as later:
        server.max_retry_attempts = value  # type: ignore[assignment]
    assert (str(later.value), server.max_retry_attempts) == (message, 0)

