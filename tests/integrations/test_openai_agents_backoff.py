"""The strict servers' judged retries wait as the user set it on the stock server:
``retry_backoff_seconds_base`` doubled at each retry, at most ``retry_backoff_seconds_max``
(the Agents SDK's ``MCPServer*._retry_backoff_seconds``), times ``decide``'s jitter (0.5 to 1);
before, they waited ``RetryPolicy()``'s own 0.5 s base and 8 s cap whatever the user set. A bad
setting is a ValueError when it is set, never a crash at the first retry.

A real Agents SDK server on a crafted stdio server that answers -32603 for a read-only tool of a
trusted server (retry-safe: ``decide`` says retry until the attempts are spent); the outcome it
raises carries the policy its retries followed. No time is measured: the waits are the decisions'
``delay``, checked against bounds written by hand."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, RetryPolicy, decide
from mcp_verdict.integrations.openai_agents import AgentsVerdictError, StrictMCPServerStdio
from mcp_verdict.verdict._shown import shown

from .crafted_answers import command

INTERNAL_ERROR = '{"jsonrpc":"2.0","id":{id},"error":{"code":-32603,"message":"failed"}}'
READ_ONLY = {"annotations": {"readOnlyHint": True}, "raw": INTERNAL_ERROR}
LARGEST = sys.float_info.max

# (max_retry_attempts, retry_backoff_seconds_base, retry_backoff_seconds_max) →
# (the policy the retries followed, the bounds of the wait before each retry); by hand:
# retry n waits base * 2**(n - 1), at most the max, times 0.5 to 1
CASES: list[tuple[int, float, float | None, RetryPolicy, list[tuple[float, float]]]] = [
    (2, 0, None, RetryPolicy(3, 0.0, LARGEST), [(0, 0), (0, 0)]),
    (3, 0, 5.0, RetryPolicy(4, 0.0, 5.0), [(0, 0), (0, 0), (0, 0)]),
]
# the same settings without a retry (the waits would be long): the policy the outcome carries,
# and the wait decide() gives before each of four retries under it
DELAYS: list[tuple[float, float | None, RetryPolicy, list[tuple[float, float]]]] = [
    (1.0, None, RetryPolicy(1, 1.0, LARGEST), [(0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (4.0, 8.0)]),  # stock default
    (10.0, None, RetryPolicy(1, 10.0, LARGEST), [(5.0, 10.0), (10.0, 20.0), (20.0, 40.0), (40.0, 80.0)]),
    (2.0, 3.0, RetryPolicy(1, 2.0, 3.0), [(1.0, 2.0), (1.5, 3.0), (1.5, 3.0), (1.5, 3.0)]),
    (0.25, 0.25, RetryPolicy(1, 0.25, 0.25), [(0.125, 0.25)] * 4),
]


def runs(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


async def exhausted(counter: Path, **options: Any) -> AgentsVerdictError:
    executable, *args = command({"tool": READ_ONLY}, runs=str(counter))
    with anyio.fail_after(30):
        async with StrictMCPServerStdio({"command": executable, "args": args}, trusted_server=True,
                                        **options) as server:
            await server.list_tools()
            with pytest.raises(AgentsVerdictError) as caught:
                await server.call_tool("tool", {})
    return caught.value


@pytest.mark.parametrize(("retries", "base", "cap", "policy", "waits"), CASES)
def test_the_retries_follow_the_users_backoff(retries: int, base: float, cap: float | None, policy: RetryPolicy,
                                              waits: list[tuple[float, float]], tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    error = anyio.run(lambda: exhausted(counter, max_retry_attempts=retries, retry_backoff_seconds_base=base,
                                        retry_backoff_seconds_max=cap))
    assert (runs(counter), error.outcome.retry, error.decision.rule) == (retries + 1, policy, "retries_exhausted")
    delays = [decide(error.outcome, attempt=n).delay for n in range(1, retries + 1)]
    assert all(delay is not None and low <= delay <= high
               for delay, (low, high) in zip(delays, waits, strict=True)), delays


@pytest.mark.parametrize(("base", "cap", "policy", "waits"), DELAYS)
def test_the_wait_before_each_retry_is_the_users(base: float, cap: float | None, policy: RetryPolicy,
                                                 waits: list[tuple[float, float]], tmp_path: Path) -> None:
    error = anyio.run(lambda: exhausted(tmp_path / "runs", max_retry_attempts=0, retry_backoff_seconds_base=base,
                                        retry_backoff_seconds_max=cap))
    assert (error.outcome.retry, error.decision.reason) == (policy, "gave up after 1 attempt")
    longer = replace(error.outcome.retry, max_attempts=5)
    decisions = [decide(error.outcome, attempt=n, retry=longer) for n in range(1, 5)]
    assert [d.action for d in decisions] == [Action.RETRY] * 4
    delays = [d.delay for d in decisions]
    assert all(d is not None and low <= d <= high for d, (low, high) in zip(delays, waits, strict=True)), delays


BAD: list[tuple[str, object, str]] = [
    ("retry_backoff_seconds_base", -1, "retry_backoff_seconds_base must be a finite number of seconds >= 0, not -1"),
    ("retry_backoff_seconds_base", 10**5000, "retry_backoff_seconds_base must be a finite number of seconds >= 0, "
     "not <an integer of about 5000 digits>"),  # past the float range (OverflowError before)
    ("retry_backoff_seconds_base", float("inf"),
     "retry_backoff_seconds_base must be a finite number of seconds >= 0, not inf"),
    ("retry_backoff_seconds_base", float("nan"),
     "retry_backoff_seconds_base must be a finite number of seconds >= 0, not nan"),
    ("retry_backoff_seconds_base", "1", "retry_backoff_seconds_base must be a finite number of seconds >= 0, not '1'"),
    ("retry_backoff_seconds_base", True,
     "retry_backoff_seconds_base must be a finite number of seconds >= 0, not True"),
    ("retry_backoff_seconds_max", -2.5, "retry_backoff_seconds_max must be a finite number of seconds >= 0, not -2.5"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD, ids=[f"{row[0]}={shown(row[1])}" for row in BAD])
def test_a_bad_backoff_set_later_is_refused(name: str, value: object, message: str) -> None:
    server = StrictMCPServerStdio({"command": sys.executable, "args": ["-c", "pass"]})
    with pytest.raises(ValueError) as caught:
        setattr(server, name, value)
    assert (str(caught.value), server.retry_backoff_seconds_base, server.retry_backoff_seconds_max) == (
        message, 1.0, None)
