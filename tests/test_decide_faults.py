"""The next action under odd inputs: wrong caller options are a ValueError at once, an outside
``Judged`` object with odd members never reaches accept nor a blind retry, odd retry policies
never crash, and no combination of verdict, trust, annotations and attempt retries a write whose
effect is unknown."""

from __future__ import annotations

import itertools
import pickle
from dataclasses import dataclass
from typing import Any

import pytest

from mcp_verdict import TASKS_EXTENSION, Action, RetryPolicy, classify, decide, evaluate
from mcp_verdict.verdict._findings import finding
from mcp_verdict.verdict._kind import Kind
from mcp_verdict.verdict._verdict import make_verdict

from .test_decide import error, ok

NORMAL = ok({"resultType": "complete", "content": [], "structuredContent": {"id": "a"}})
TOOL_ERROR = ok({"resultType": "complete", "content": [], "isError": True})
INTERNAL = error(-32603)
READ_ONLY = {"name": "get", "annotations": {"readOnlyHint": True}}


@pytest.mark.parametrize("kwargs", [
    {"max_attempts": 0}, {"max_attempts": -1}, {"max_attempts": True}, {"max_attempts": 2.0},
    {"base_delay": float("nan")}, {"base_delay": -0.5}, {"base_delay": float("inf")}, {"base_delay": True},
    {"max_delay": float("nan")}, {"max_delay": -1.0}, {"max_delay": float("inf")}, {"max_delay": "8"},
])
def test_a_wrong_retry_policy_is_a_value_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="RetryPolicy"):
        RetryPolicy(**kwargs)


@pytest.mark.parametrize(("attempt", "low", "high"), [
    (1, 0.25, 0.5),          # 0.5 s, times the jitter in [0.5, 1)
    (5000, 4.0, 8.0),        # 0.5 * 2^4999 is past any float: the cap, 8 s
    (10**7, 4.0, 8.0),
])
def test_the_backoff_of_a_late_attempt_is_the_cap(attempt: int, low: float, high: float) -> None:
    decision = decide(INTERNAL, request_sent=False, attempt=attempt, retry=RetryPolicy(max_attempts=10**8))
    assert decision.action is Action.RETRY
    assert decision.delay is not None and low <= decision.delay <= high


def test_a_zero_base_delay_retries_at_once() -> None:
    decision = decide(INTERNAL, request_sent=False, attempt=2000, retry=RetryPolicy(max_attempts=10**4,
                                                                                     base_delay=0.0))
    assert (decision.action, decision.delay) == (Action.RETRY, 0.0)


@pytest.mark.parametrize(("subject", "kwargs", "match"), [
    (None, {}, "decide takes"),
    (42, {}, "decide takes"),
    ("verdict", {}, "decide takes"),
    (INTERNAL, {"request_sent": 0}, "request_sent"),
    (INTERNAL, {"request_sent": "no"}, "request_sent"),
    (INTERNAL, {"trusted_server": "no"}, "trusted_server"),
    (INTERNAL, {"trusted_server": 1}, "trusted_server"),
    (INTERNAL, {"tool": "get"}, "tool"),
    (INTERNAL, {"tool": [("annotations", {})]}, "tool"),
    (INTERNAL, {"retry": {"max_attempts": 3}}, "retry"),
    (INTERNAL, {"attempt": 0}, "attempt"),
])
def test_a_wrong_decide_option_is_a_value_error(subject: Any, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        decide(subject, **kwargs)


@dataclass
class Check:
    passed: Any
    codes: Any = ()


@dataclass
class Seen:
    passed: Any


@dataclass
class Outside:
    """A ``Judged`` built outside the library, with whatever members its author chose."""

    verdict: Any
    succeeded: Any = True
    content_check: Any = None
    observation: Any = None
    tool: Any = None
    trusted_server: Any = False
    request_sent: Any = True


@pytest.mark.parametrize(("judged", "action", "rule"), [
    (Outside(TOOL_ERROR, succeeded=True, content_check=Check(True)), Action.RETURN_TO_MODEL, "tool_error"),
    (Outside(error(-32602), succeeded=True, content_check=Check(True)), Action.FIX_REQUEST, "bad_request"),
    (Outside(NORMAL, succeeded="no", content_check=Check(True)), Action.VERIFY_CONTENT, "normal_complete"),
    (Outside(NORMAL, succeeded=1, content_check=Check(True)), Action.VERIFY_CONTENT, "normal_complete"),
    (Outside(NORMAL, succeeded=True, content_check=None), Action.VERIFY_CONTENT, "normal_complete"),
    (Outside(NORMAL, succeeded=True, content_check=Check("yes")), Action.VERIFY_CONTENT, "normal_complete"),
    (Outside(NORMAL, succeeded=True, content_check=Check(False, ("expect.failed",))), Action.CHECK_STATE,
     "expectation_failed_write"),
    (Outside(NORMAL, succeeded=True, content_check=Check(True), observation=Seen("no")), Action.CHECK_STATE,
     "not_observed"),
    (Outside(NORMAL, succeeded=True, content_check=Check(False, None)), Action.VERIFY_CONTENT, "normal_complete"),
    (Outside(NORMAL, succeeded=False, content_check=Check(False, 42)), Action.VERIFY_CONTENT, "normal_complete"),
    (Outside(NORMAL, succeeded=True, content_check=Check(True)), Action.ACCEPT, "accept"),
    (Outside(INTERNAL, trusted_server="yes", tool=READ_ONLY), Action.CHECK_STATE, "unknown_effect"),
    (Outside(INTERNAL, trusted_server=1, tool=READ_ONLY), Action.CHECK_STATE, "unknown_effect"),
    (Outside(INTERNAL, request_sent=0), Action.CHECK_STATE, "unknown_effect"),
    (Outside(INTERNAL, request_sent=None), Action.CHECK_STATE, "unknown_effect"),
    (Outside(INTERNAL, tool="get", trusted_server=True), Action.CHECK_STATE, "unknown_effect"),
    (Outside(INTERNAL, trusted_server=True, tool=READ_ONLY), Action.RETRY, "safe_retry"),
])
def test_an_outside_judged_with_odd_members(judged: Outside, action: Action, rule: str) -> None:
    decision = decide(judged)
    assert (decision.action, decision.rule) == (action, rule)


def test_a_pickled_verdict_or_outcome_decides_the_same() -> None:
    for subject in (INTERNAL, TOOL_ERROR, evaluate(NORMAL), evaluate(NORMAL, expect=lambda v: "no")):
        assert decide(pickle.loads(pickle.dumps(subject))) == decide(subject)


TASK = {"resultType": "task", "taskId": "t", "status": "working", "createdAt": "c", "lastUpdatedAt": "u",
        "ttlMs": None}
VERDICTS = [
    NORMAL, TOOL_ERROR, ok({"resultType": "input_required", "requestState": "s"}),
    classify({"jsonrpc": "2.0", "id": 1, "result": TASK}, extensions=[TASKS_EXTENSION]),
    *(error(code) for code in (-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022, -32042, -1, 7)),
    error(-32022, {"supported": ["2025-06-18"]}),
    *(make_verdict(Kind.UNCLASSIFIED, (finding("", code, "simulated"),), "2026-07-28", None)
      for code in ("transport.timeout", "transport.closed", "transport.error", "transport.rounds")),
    classify(b"null"),
]
TOOLS = [None, {"name": "w"}, READ_ONLY, {"name": "p", "annotations": {"idempotentHint": True}},
         {"name": "s", "annotations": {"readOnlyHint": "true", "idempotentHint": 1}},
         {"name": "x", "annotations": ["readOnlyHint"]}]


def test_no_combination_retries_an_unknown_effect_or_a_tool_error() -> None:
    for verdict, tool, trusted, sent, attempt in itertools.product(VERDICTS, TOOLS, (False, True), (False, True),
                                                                   (1, 2, 3, 4)):
        for subject in (verdict, evaluate(verdict, tool, trusted_server=trusted)):
            decision = decide(subject, tool=tool, trusted_server=trusted, request_sent=sent, attempt=attempt)
            if decision.action is Action.ACCEPT:
                assert subject is not verdict and verdict is NORMAL
            if decision.action is Action.RETRY:
                hints = (tool or {}).get("annotations")
                safe = trusted and isinstance(hints, dict) and (hints.get("readOnlyHint") is True
                                                                or hints.get("idempotentHint") is True)
                assert (not sent or safe) and attempt < 3
                assert verdict.kind in (Kind.PROTOCOL_ERROR, Kind.UNCLASSIFIED)
