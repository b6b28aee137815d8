"""The one line of an outcome (``describe``) and :class:`~mcp_verdict.VerdictError` name the
decision they are given, built once from it: an adapter that ran a call again ends on another
decision than the outcome's own, and its error's ``decision``, message and pickled copy all
carry that one (before, ``describe`` always ended with the outcome's own decision, and the
adapters swapped the end of the string).

Outcomes of answers classified from their bytes; every expected line written by hand from the
policy table (README, "The next action")."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from mcp_verdict import RetryPolicy, VerdictError, classify, decide, evaluate
from mcp_verdict.tap._error import describe

INTERNAL = classify(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"failed"}}')
STRING_IS_ERROR = classify(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],'
                           b'"isError":"false"}}')
READ_ONLY = {"name": "get", "annotations": {"readOnlyHint": True}}
TRUSTED_READ = evaluate(INTERNAL, READ_ONLY, trusted_server=True)
WRITE = evaluate(INTERNAL, {"name": "put"})
FAILED = "the tools/call answer is protocol_error (error -32603: failed)"
STRING = ("the tools/call answer is unclassified (result.is_error at /result/isError: isError is the string "
          "'false'; only the JSON booleans true and false are allowed)")

# case → (outcome, the decide() options of the decision given (None: none given),
#         the line, the decision's rule); by hand
CASES: list[tuple[str, Any, dict[str, Any] | None, str, str]] = [
    ("own decision", TRUSTED_READ, None,
     f"{FAILED}; next: retry — a repeatable failure on a tool safe to repeat (attempt 1 of 3)", "safe_retry"),
    ("the last of three attempts", TRUSTED_READ, {"attempt": 3},
     f"{FAILED}; next: investigate — gave up after 3 attempts", "retries_exhausted"),
    ("a policy of two attempts, at the second", TRUSTED_READ, {"attempt": 2, "retry": RetryPolicy(max_attempts=2)},
     f"{FAILED}; next: investigate — gave up after 2 attempts", "retries_exhausted"),
    ("a policy of five attempts, at the second", TRUSTED_READ, {"attempt": 2, "retry": RetryPolicy(max_attempts=5)},
     f"{FAILED}; next: retry — a repeatable failure on a tool safe to repeat (attempt 2 of 5)", "safe_retry"),
    ("a write: no attempt changes it", WRITE, {"attempt": 3},
     f"{FAILED}; next: check_state — the request was sent and its effect is unknown: observe the state before "
     "anything else; never resend blindly", "unknown_effect"),
    ("unclassified", evaluate(STRING_IS_ERROR), {"attempt": 2},
     f"{STRING}; next: investigate — the response is not a valid tools/call response: quarantine "
     "and log it; never success", "unclassified"),
]


@pytest.mark.parametrize(("case", "outcome", "given", "line", "rule"), CASES, ids=[c[0] for c in CASES])
def test_the_line_and_the_error_name_the_decision_given(case: str, outcome: Any, given: dict[str, Any] | None,
                                                        line: str, rule: str) -> None:
    decision = decide(outcome, **given) if given is not None else None
    error = VerdictError(outcome, response=b"{}", decision=decision)
    assert describe(outcome, decision) == line
    assert (str(error), error.decision.rule, error.response) == (line, rule, b"{}")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.decision, copy.response, copy.outcome) == (
        VerdictError, line, error.decision, b"{}", outcome)


def test_a_message_given_is_kept_and_the_decision_too() -> None:
    last = decide(TRUSTED_READ, attempt=3)
    error = VerdictError(TRUSTED_READ, "told otherwise", decision=last)
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.decision.rule) == ("told otherwise", "retries_exhausted")
