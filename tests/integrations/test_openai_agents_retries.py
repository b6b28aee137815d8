"""The Agents SDK's strict servers and ``max_retry_attempts``: the setting bounds the judged
retries of a tool call (only when ``decide`` says ``retry``).

- After the retries of a trusted read-only tool are spent, the ``AgentsVerdictError`` says what
  to do now (``investigate``: ``retries_exhausted``), and so does the text the model is shown;
  before, both carried the decision of attempt 1: ``retry``, the model told to call again.

Real Agents SDK servers (the SDK's own FunctionTool invoked as a run would) on a crafted stdio
server that counts what it received."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from agents.mcp import MCPUtil
from agents.tool_context import ToolContext

from mcp_verdict.integrations.openai_agents import AgentsVerdictError, StrictMCPServerStdio

from .crafted_answers import command

INTERNAL_ERROR = '{"jsonrpc":"2.0","id":{id},"error":{"code":-32603,"message":"failed"}}'
READ_ONLY = {"annotations": {"readOnlyHint": True}, "raw": INTERNAL_ERROR}


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


# max_retry_attempts → (how many times the tool ran, the error's decision (action, rule, reason)), by hand:
# -32603 on a read-only tool of a trusted server is retried until the attempts run out
EXHAUSTED: list[tuple[int, int, tuple[str, str, str]]] = [
    (0, 1, ("investigate", "retries_exhausted", "gave up after 1 attempts")),
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
