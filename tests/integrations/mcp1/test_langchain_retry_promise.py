"""LangChain's VerdictInterceptor decides under the ``retry`` policy the user gives it (default
``DEFAULT_RETRY``); it never runs a call again (the adapters do not), so a ``retry`` decision no
longer reads as a promise: the tool message (and the VerdictError of ``on_unclassified="raise"``)
says nothing ran the call again and when it may be called again. Before, the interceptor took
no policy, and said "next: retry ... (attempt 1 of 3)" though nothing retries.

The adapters' own StructuredTool over ``stdio_session``, invoked with a tool call as an agent
would, on a stdio server that exits when its read-only tool is called (``transport.closed``
after the request was sent; retry-safe only from a trusted server). The expected texts written
by hand from the policy table (README, "The next action")."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.tools import load_mcp_tools

from mcp_verdict import DEFAULT_RETRY, OptionError, RetryPolicy, VerdictError, VerdictTap
from mcp_verdict.integrations.langchain import VerdictInterceptor, stdio_session

from ..gone_server import AGAIN, CHECK, GONE, RUN, SAFE, UNKNOWN, after_next, runs

# case → (trusted_server, the interceptor's retry option (None: not given), what the error says after
#         "; next: " (DELAY: the decision's delay), the delay's bounds, what the tool message adds); by hand:
# the delay of attempt 1 is base_delay times 0.5 to 1
CASES: list[tuple[str, bool, RetryPolicy | None, str, tuple[float, float], str]] = [
    ("the default policy", True, None, f"{SAFE} (attempt 1 of 3){AGAIN} DELAY s", (0.25, 0.5), ""),
    ("DEFAULT_RETRY given", True, DEFAULT_RETRY, f"{SAFE} (attempt 1 of 3){AGAIN} DELAY s", (0.25, 0.5), ""),
    ("five attempts, no wait", True, RetryPolicy(max_attempts=5, base_delay=0), f"{SAFE} (attempt 1 of 5){AGAIN} 0 s",
     (0, 0), ""),
    ("no retry", True, RetryPolicy(max_attempts=1), "investigate — gave up after 1 attempt", (0, 0), RUN),
    ("untrusted: a write, whatever the policy", False, RetryPolicy(max_attempts=5), UNKNOWN, (0, 0), CHECK),
]


async def invoke(counter: Path, trusted: bool, retry: RetryPolicy | None, on_unclassified: str) -> Any:
    tap = VerdictTap(name="langchain")
    options: dict[str, Any] = {} if retry is None else {"retry": retry}
    interceptor = VerdictInterceptor(tap, trusted_server=trusted, on_unclassified=on_unclassified,  # type: ignore[arg-type]
                                     **options)
    with anyio.fail_after(30):
        async with stdio_session(tap, sys.executable, ["-c", GONE, str(counter)],
                                 read_timeout_seconds=timedelta(seconds=10)) as session:
            tools = {t.name: t for t in await load_mcp_tools(session, tool_interceptors=[interceptor])}
            try:
                return await tools["read"].ainvoke({"args": {}, "id": "call-1", "name": "read", "type": "tool_call"})
            except Exception as exc:
                return exc


@pytest.mark.parametrize(("case", "trusted", "retry", "expected", "bounds", "advice"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_tool_message_decides_under_the_users_policy_and_promises_no_retry(
        case: str, trusted: bool, retry: RetryPolicy | None, expected: str, bounds: tuple[float, float], advice: str,
        tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    message = anyio.run(invoke, counter, trusted, retry, "error")
    assert isinstance(message, ToolMessage), message
    content = message.content if isinstance(message.content, str) else \
        " ".join(b.get("text", "") for b in message.content)
    assert (message.status, after_next(content, expected + advice, bounds), runs(counter)) == (
        "error", expected + advice, 1)


@pytest.mark.parametrize(("case", "trusted", "retry", "expected", "bounds"), [c[:5] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_the_error_raised_decides_under_the_users_policy_and_promises_no_retry(
        case: str, trusted: bool, retry: RetryPolicy | None, expected: str, bounds: tuple[float, float],
        tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    error = anyio.run(invoke, counter, trusted, retry, "raise")
    assert isinstance(error, VerdictError), error
    assert (after_next(str(error), expected, bounds), runs(counter)) == (expected, 1)
    assert error.decision == error.outcome.decision


def test_a_retry_option_that_is_no_policy_is_refused() -> None:
    with pytest.raises(OptionError) as caught:
        VerdictInterceptor(VerdictTap(), retry=RetryPolicy)  # type: ignore[arg-type]
    assert (caught.value.option, str(caught.value)) == (
        "retry", "retry must be a RetryPolicy (mcp_verdict.RetryPolicy), not "
        "<class 'mcp_verdict.judgement._decide.RetryPolicy'>")
