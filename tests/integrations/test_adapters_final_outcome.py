"""The outcome an application sees after an adapter ran a call again is the last attempt's, and
its ``decision`` is the one the call ended on: the Agents SDK's strict server's
``AgentsVerdictError.outcome`` and its ``outcomes`` history carry the attempt and the policy,
so ``outcome.decision`` (and ``decide(outcome)``, and ``to_dict()``) say ``retries_exhausted``
once the retries are spent; before, they said attempt 1's ``retry`` beside the error's own
``investigate``.

A real Agents SDK server on a crafted stdio server (``crafted_answers``) that counts the calls it
received; the expected values written by hand from the policy table (README, "The next action").
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import DEFAULT_RETRY, Outcome, RetryPolicy, classify, decide, evaluate
from mcp_verdict.integrations.openai_agents import AgentsVerdictError, StrictMCPServerStdio

from .crafted_answers import command

INTERNAL_ERROR = '{"jsonrpc":"2.0","id":{id},"error":{"code":-32603,"message":"failed"}}'
READ_ONLY = {"annotations": {"readOnlyHint": True}, "raw": INTERNAL_ERROR}


def runs(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


# (the tool, trusted_server, max_retry_attempts) →
# (runs, the outcome's attempt, its policy's max_attempts, its decision: rule, reason); by hand
CASES: list[tuple[str, dict[str, Any], bool, int, int, int, int, str, str]] = [
    ("read-only, no retry", READ_ONLY, True, 0, 1, 1, 1, "retries_exhausted", "gave up after 1 attempt"),
    ("read-only, two retries", READ_ONLY, True, 2, 3, 3, 3, "retries_exhausted", "gave up after 3 attempts"),
    # untrusted: the annotations do not count; a write whose effect is unknown runs once
    ("untrusted, two retries", READ_ONLY, False, 2, 1, 1, 3, "unknown_effect",
     "the request was sent and its effect is unknown: observe the state before anything else; never resend "
     "blindly"),
]


@pytest.mark.parametrize(("case", "tool", "trusted", "retries", "count", "attempt", "cap", "rule", "reason"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_outcome_after_the_retries_carries_the_decision_the_call_ended_on(
        case: str, tool: dict[str, Any], trusted: bool, retries: int, count: int, attempt: int, cap: int, rule: str,
        reason: str, tmp_path: Path) -> None:
    counter = tmp_path / "runs"

    async def scenario() -> tuple[AgentsVerdictError, list[Outcome]]:
        executable, *args = command({"tool": tool}, runs=str(counter))
        with anyio.fail_after(30):
            async with StrictMCPServerStdio({"command": executable, "args": args}, max_retry_attempts=retries,
                                            trusted_server=trusted, retry_backoff_seconds_base=0) as server:
                await server.list_tools()
                with pytest.raises(AgentsVerdictError) as caught:
                    await server.call_tool("tool", {})
        return caught.value, server.outcomes

    error, history = anyio.run(scenario)
    outcome = error.outcome
    assert runs(counter) == count
    assert (outcome.decision.rule, outcome.decision.reason) == (rule, reason)
    assert (outcome.attempt, outcome.retry.max_attempts) == (attempt, cap)
    assert error.decision == outcome.decision == decide(outcome)
    assert outcome.to_dict()["decision"]["rule"] == rule
    assert history == [outcome]
    assert pickle.loads(pickle.dumps(outcome)).decision == outcome.decision


INTERNAL = classify(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"failed"}}')
TRUSTED_READ = evaluate(INTERNAL, {"name": "get", "annotations": {"readOnlyHint": True}}, trusted_server=True)

# (attempt, policy) an outcome carries → its decision's (rule, reason); by hand
CARRIED: list[tuple[int, RetryPolicy, str, str]] = [
    (1, DEFAULT_RETRY, "safe_retry", "a repeatable failure on a tool safe to repeat (attempt 1 of 3)"),
    (2, DEFAULT_RETRY, "safe_retry", "a repeatable failure on a tool safe to repeat (attempt 2 of 3)"),
    (3, DEFAULT_RETRY, "retries_exhausted", "gave up after 3 attempts"),
    (1, RetryPolicy(max_attempts=1), "retries_exhausted", "gave up after 1 attempt"),
]


@pytest.mark.parametrize(("attempt", "policy", "rule", "reason"), CARRIED)
def test_an_outcome_decides_at_its_attempt_under_its_policy(attempt: int, policy: RetryPolicy, rule: str,
                                                            reason: str) -> None:
    outcome = replace(TRUSTED_READ, attempt=attempt, retry=policy)
    assert (outcome.decision.rule, outcome.decision.reason) == (rule, reason)
    assert decide(outcome) == outcome.decision
    # a caller's own attempt still decides when given
    assert decide(outcome, attempt=1, retry=DEFAULT_RETRY).rule == "safe_retry"


@pytest.mark.parametrize(("options", "message"), [
    ({"attempt": 0}, "Outcome.attempt counts from 1, not 0"),
    ({"attempt": True}, "Outcome.attempt counts from 1, not True"),
    ({"retry": 3}, "Outcome.retry must be a RetryPolicy, not 3"),
])
def test_a_wrong_attempt_or_policy_is_a_value_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        Outcome(INTERNAL, None, **options)
    assert str(caught.value) == message
