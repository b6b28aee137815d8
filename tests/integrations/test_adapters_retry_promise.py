"""The adapters that never run a call again (FastMCP's StrictTransport, pydantic-ai's
strict_toolset; LangChain's interceptor in ``mcp1/``) decide under the ``retry`` policy the user
gives them (default ``DEFAULT_RETRY``), and a ``retry`` decision no longer reads as a promise: the
error (and the text the model is handed) says nothing ran the call again and when it may be
called again. Before, the adapters took no policy, and the error said "next: retry ... (attempt
1 of 3)" though nothing in those stacks retries; ``RetryPolicy(max_attempts=1)`` could not be
asked for.

A real FastMCP ``Client`` and a real pydantic-ai ``Agent`` (a FunctionModel that calls the tool
once) on a stdio server that exits when its read-only tool is called (the connection closes
after the request was sent: ``transport.closed``; retry-safe only from a trusted server). The
expected texts written by hand from the policy table (README, "The next action")."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mcp_verdict import DEFAULT_RETRY, OptionError, RetryPolicy, VerdictError
from mcp_verdict.integrations.fastmcp import StrictTransport
from mcp_verdict.integrations.pydantic_ai import strict_toolset

from .gone_server import AGAIN, CHECK, GONE, RUN, SAFE, UNKNOWN, after_next, runs

# case → (trusted_server, the adapter's retry option (None: not given),
#         what the error says after "; next: " (DELAY: the decision's delay), the delay's bounds,
#         what the text handed to pydantic-ai's model adds); by hand:
# the delay of attempt 1 is base_delay times 0.5 to 1
CASES: list[tuple[str, bool, RetryPolicy | None, str, tuple[float, float], str]] = [
    ("the default policy", True, None, f"{SAFE} (attempt 1 of 3){AGAIN} DELAY s", (0.25, 0.5), ""),
    ("DEFAULT_RETRY given", True, DEFAULT_RETRY, f"{SAFE} (attempt 1 of 3){AGAIN} DELAY s", (0.25, 0.5), ""),
    ("five attempts, no wait", True, RetryPolicy(max_attempts=5, base_delay=0), f"{SAFE} (attempt 1 of 5){AGAIN} 0 s",
     (0, 0), ""),
    ("a longer wait", True, RetryPolicy(base_delay=4, max_delay=30), f"{SAFE} (attempt 1 of 3){AGAIN} DELAY s",
     (2, 4), ""),
    ("no retry", True, RetryPolicy(max_attempts=1), "investigate — gave up after 1 attempt", (0, 0), RUN),
    ("untrusted: a write, whatever the policy", False, RetryPolicy(max_attempts=5), UNKNOWN, (0, 0), CHECK),
]


@pytest.mark.parametrize(("case", "trusted", "retry", "expected", "bounds"), [c[:5] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_fastmcp_decides_under_the_users_policy_and_promises_no_retry(
        case: str, trusted: bool, retry: RetryPolicy | None, expected: str, bounds: tuple[float, float],
        tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    options: dict[str, Any] = {} if retry is None else {"retry": retry}

    async def scenario() -> VerdictError:
        transport = StrictTransport([sys.executable, "-c", GONE, str(counter)], trusted_server=trusted, **options)
        with anyio.fail_after(30):
            async with Client(transport) as client:
                await client.list_tools()
                with pytest.raises(VerdictError) as caught:
                    await client.call_tool("read", {})
        return caught.value

    error = anyio.run(scenario)
    assert (after_next(str(error), expected, bounds), runs(counter)) == (expected, 1)
    assert error.decision == error.outcome.decision


def calls_once() -> FunctionModel:
    """A model that calls ``read`` once, then reports the content of the tool return it was handed."""
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("read", {})])
        return ModelResponse(parts=[TextPart(f"{returns[-1].outcome}|{returns[-1].content}")])

    return FunctionModel(respond)


@pytest.mark.parametrize(("case", "trusted", "retry", "expected", "bounds", "advice"), CASES,
                         ids=[c[0] for c in CASES])
def test_pydantic_ai_decides_under_the_users_policy_and_promises_no_retry(
        case: str, trusted: bool, retry: RetryPolicy | None, expected: str, bounds: tuple[float, float], advice: str,
        tmp_path: Path) -> None:
    counter = tmp_path / "runs"

    async def scenario() -> str:
        toolset = strict_toolset(sys.executable, ["-c", GONE, str(counter)], trusted_server=trusted, retry=retry)
        with anyio.fail_after(30):
            result = await Agent(calls_once(), toolsets=[toolset]).run("go")
        return str(result.output)

    outcome, _, content = anyio.run(scenario).partition("|")
    assert (outcome, after_next(content, expected + advice, bounds), runs(counter)) == ("failed", expected + advice, 1)


def test_a_retry_option_that_is_no_policy_is_refused() -> None:
    with pytest.raises(OptionError) as caught:
        StrictTransport([sys.executable, "-c", "pass"], retry=3)  # type: ignore[arg-type]
    assert (caught.value.option, str(caught.value)) == (
        "retry", "retry must be a RetryPolicy (mcp_verdict.RetryPolicy), not 3")
    with pytest.raises(OptionError) as given:
        strict_toolset(StrictTransport([sys.executable, "-c", "pass"]), retry=DEFAULT_RETRY)
    assert (given.value.option, str(given.value)) == (
        "retry", "retry, given with a StrictTransport, would be ignored: give it to the StrictTransport")
