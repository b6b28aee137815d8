"""The reason of ``retries_exhausted`` counts the attempts in words a person reads: "after 1
attempt", "after 2 attempts" (it said "after 1 attempts"). Verdicts classified from their bytes;
the reasons written by hand."""

from __future__ import annotations

import pytest

from mcp_verdict import RetryPolicy, classify, decide

INTERNAL = classify(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"failed"}}')
READ_ONLY = {"name": "get", "annotations": {"readOnlyHint": True}}

# (attempt, max_attempts, request_sent) → (rule, reason); by hand
CASES: list[tuple[int, int, bool, str, str]] = [
    (1, 1, True, "retries_exhausted", "gave up after 1 attempt"),
    (1, 1, False, "retries_exhausted", "gave up after 1 attempt"),  # nothing sent: not_sent needs attempts left
    (2, 2, True, "retries_exhausted", "gave up after 2 attempts"),
    (3, 3, False, "retries_exhausted", "gave up after 3 attempts"),
    (11, 3, True, "retries_exhausted", "gave up after 11 attempts"),
    (1, 2, True, "safe_retry", "a repeatable failure on a tool safe to repeat (attempt 1 of 2)"),
]


@pytest.mark.parametrize(("attempt", "cap", "sent", "rule", "reason"), CASES)
def test_the_attempts_are_counted_in_words(attempt: int, cap: int, sent: bool, rule: str, reason: str) -> None:
    decision = decide(INTERNAL, tool=READ_ONLY, trusted_server=True, request_sent=sent, attempt=attempt,
                      retry=RetryPolicy(max_attempts=cap))
    assert (decision.rule, decision.reason) == (rule, reason)
