"""Each attempt at a call run again is judged as that attempt, on the tap's history and its spans:
``VerdictTap.judging`` and ``VerdictTap.call_tool`` take ``attempt=`` and ``retry=``, and the
Agents SDK's strict servers (``integrations._policy.run_judged``) pass them. Before, every
``TapCall.outcome`` on ``tap.history`` and every span said attempt 1 under ``DEFAULT_RETRY``
(``retry``), where the last attempt's decision is ``retries_exhausted`` (``investigate``).

A real Agents SDK server and the official SDK's ``Client`` on a crafted stdio server
(``crafted_answers``) answering -32603 to a read-only tool; OpenTelemetry's in-memory exporter
(the provider of ``test_otel``). The decisions are written by hand from the policy table
(README, "The next action").
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client
from opentelemetry.trace import StatusCode

from mcp_verdict import DEFAULT_RETRY, OptionError, RetryPolicy, VerdictTap
from mcp_verdict.integrations.openai_agents import AgentsVerdictError, StrictMCPServerStdio
from mcp_verdict.otel import instrument

from .crafted_answers import command
from .test_otel import EXPORTER, verdict_spans

INTERNAL_ERROR = '{"jsonrpc":"2.0","id":{id},"error":{"code":-32603,"message":"failed"}}'
READ_ONLY = {"annotations": {"readOnlyHint": True}, "raw": INTERNAL_ERROR}
RETRY = ("retry", "safe_retry")
EXHAUSTED = ("investigate", "retries_exhausted")
UNKNOWN = ("check_state", "unknown_effect")

# (trusted_server, max_retry_attempts) → per attempt, in order: (attempt, action, rule) on the
# history and the span (the SDK's own span: its status is the SDK's), and the last one's reason. By hand.
AGENTS: list[tuple[str, bool, int, list[tuple[int, tuple[str, str]]], str]] = [
    ("no retry", True, 0, [(1, EXHAUSTED)], "gave up after 1 attempt"),
    ("one retry", True, 1, [(1, RETRY), (2, EXHAUSTED)], "gave up after 2 attempts"),
    ("two retries", True, 2, [(1, RETRY), (2, RETRY), (3, EXHAUSTED)], "gave up after 3 attempts"),
    ("untrusted: runs once", False, 2, [(1, UNKNOWN)],
     "the request was sent and its effect is unknown: observe the state before anything else; never resend "
     "blindly"),
]


@pytest.mark.parametrize(("case", "trusted", "retries", "attempts", "reason"), AGENTS, ids=[c[0] for c in AGENTS])
def test_each_attempt_of_the_agents_servers_retries_is_judged_as_itself(
        case: str, trusted: bool, retries: int, attempts: list[tuple[int, tuple[str, str]]], reason: str) -> None:
    EXPORTER.clear()

    async def scenario() -> tuple[VerdictTap, AgentsVerdictError]:
        executable, *args = command({"tool": READ_ONLY})
        with anyio.fail_after(30):
            async with StrictMCPServerStdio({"command": executable, "args": args}, max_retry_attempts=retries,
                                            trusted_server=trusted, retry_backoff_seconds_base=0) as server:
                instrument(server.tap)
                await server.list_tools()
                with pytest.raises(AgentsVerdictError) as caught:
                    await server.call_tool("tool", {})
        return server.tap, caught.value

    tap, error = anyio.run(scenario)
    history = [(c.outcome.attempt, (c.outcome.decision.action.value, c.outcome.decision.rule)) for c in tap.history]
    assert history == attempts
    assert [c.outcome.retry.max_attempts for c in tap.history] == [retries + 1] * len(attempts)
    assert tap.history[-1].outcome == error.outcome
    spans = verdict_spans(EXPORTER)
    assert [dict(s.attributes or {})["mcp_verdict.decision"] for s in spans] == [a[1][0] for a in attempts]
    assert all(s.status.status_code is StatusCode.ERROR for s in spans)
    assert tap.history[-1].outcome.decision.reason == reason
    EXPORTER.clear()


# how the block is judged → (attempt, max_attempts, action, rule) of the call on the history, by hand
API: list[tuple[str, dict[str, Any], tuple[int, int, str, str]]] = [
    ("the defaults", {}, (1, 3, *RETRY)),
    ("attempt 2 of 3", {"attempt": 2}, (2, 3, *RETRY)),
    ("attempt 3 of 3", {"attempt": 3}, (3, 3, *EXHAUSTED)),
    ("attempt 1 of 1", {"retry": RetryPolicy(max_attempts=1)}, (1, 1, *EXHAUSTED)),
    ("attempt 2 of 5", {"attempt": 2, "retry": RetryPolicy(max_attempts=5)}, (2, 5, *RETRY)),
]


@pytest.mark.parametrize(("case", "given", "expected"), API, ids=[c[0] for c in API])
@pytest.mark.parametrize("way", ["judging", "call_tool"])
def test_a_judging_block_and_call_tool_take_the_attempt(case: str, given: dict[str, Any],
                                                        expected: tuple[int, int, str, str], way: str) -> None:
    async def scenario() -> tuple[VerdictTap, Any]:
        tap = VerdictTap(trusted_server=True)
        executable, *args = command({"tool": READ_ONLY})
        with anyio.fail_after(30):
            async with Client(tap.stdio_transport(executable, args)) as client:
                await client.list_tools()
                if way == "call_tool":
                    return tap, await tap.call_tool(client, "tool", {}, **given)
                async with tap.judging(client, **given) as judged:
                    with pytest.raises(Exception, match="failed"):
                        await client.call_tool("tool", {})
                return tap, judged.outcome

    tap, outcome = anyio.run(scenario)
    (call,) = tap.history
    for judged in (call.outcome, outcome):
        assert (judged.attempt, judged.retry.max_attempts, judged.decision.action.value,
                judged.decision.rule) == expected


class Touchy(int):
    """An int whose comparisons raise: caller code the check must not call."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    def __lt__(self, other: object) -> bool:
        raise RuntimeError("compared")

    __hash__ = int.__hash__


# a wrong attempt or policy → the OptionError's option and message, by hand
WRONG: list[tuple[dict[str, Any], str, str]] = [
    ({"attempt": 0}, "attempt", "attempt counts from 1, not 0"),
    ({"attempt": True}, "attempt", "attempt counts from 1, not True"),
    ({"attempt": 2.0}, "attempt", "attempt counts from 1, not 2.0"),
    ({"attempt": Touchy(0)}, "attempt", "attempt counts from 1, not 0"),
    ({"retry": 3}, "retry", "retry must be a RetryPolicy (mcp_verdict.RetryPolicy), not 3"),
    ({"retry": None}, "retry", "retry must be a RetryPolicy (mcp_verdict.RetryPolicy), not None"),
]


@pytest.mark.parametrize(("given", "option", "message"), WRONG)
def test_a_wrong_attempt_or_policy_is_an_option_error(given: dict[str, Any], option: str, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        VerdictTap().judging(**given)
    assert (caught.value.option, str(caught.value)) == (option, message)
    assert DEFAULT_RETRY.max_attempts == 3


def test_an_int_subclass_attempt_is_read_as_its_plain_value() -> None:
    judged = VerdictTap().judging(attempt=Touchy(2))
    assert judged._attempt is not None and type(judged._attempt[0]) is int and judged._attempt[0] == 2
