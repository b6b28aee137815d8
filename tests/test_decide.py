"""The next-action policy: one test per row of POLICY, with fixed expected actions."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import (
    POLICY,
    TASKS_EXTENSION,
    Action,
    Observation,
    Outcome,
    RetryPolicy,
    Verdict,
    classify,
    decide,
    evaluate,
)
from mcp_verdict.frames._tasks import task_reused, task_taken
from mcp_verdict.verdict._findings import finding
from mcp_verdict.verdict._kind import Kind
from mcp_verdict.verdict._verdict import make_verdict


def ok(result: dict[str, Any]) -> Verdict:
    return classify({"jsonrpc": "2.0", "id": 1, "result": result})


def error(code: int, data: Any = None) -> Verdict:
    body: dict[str, Any] = {"code": code, "message": "m"}
    if data is not None:
        body["data"] = data
    return classify({"jsonrpc": "2.0", "id": 1, "error": body})


def transport(code: str) -> Verdict:
    return make_verdict(Kind.UNCLASSIFIED, (finding("", code, "simulated"),), "2026-07-28", None)


def refused(message: str) -> Verdict:
    return make_verdict(Kind.UNCLASSIFIED, (finding("", "transport.refused", message),), "2026-07-28", None)


NORMAL = ok({"resultType": "complete", "content": [], "structuredContent": {"id": "a", "state": "done"}})
READ_ONLY = {"name": "get", "annotations": {"readOnlyHint": True}}
IDEMPOTENT = {"name": "put", "annotations": {"idempotentHint": True}}
WRITE = {"name": "create", "annotations": {"readOnlyHint": False, "destructiveHint": True}}
TASK = {"resultType": "task", "taskId": "t", "status": "working", "createdAt": "c", "lastUpdatedAt": "u",
        "ttlMs": None}


def outcome(verdict: Verdict, **kwargs: Any) -> Outcome:
    return evaluate(verdict, **kwargs)


# row name → (subject, decide kwargs, expected action). Rows are tried top to bottom.
ROWS: dict[str, tuple[Any, dict[str, Any], Action]] = {
    "accept": (outcome(NORMAL), {}, Action.ACCEPT),
    "suspect_error": (outcome(ok({"resultType": "complete", "content": [], "structuredContent": {"status": "error"}})),
                      {}, Action.RETURN_TO_MODEL),
    "contract_broken": (outcome(NORMAL, tool={"name": "t", "outputSchema": {"required": ["count"]}}), {},
                        Action.INVESTIGATE),
    "expectation_failed_write": (outcome(NORMAL, expect=lambda v: "wrong state"), {"tool": WRITE},
                                 Action.CHECK_STATE),
    "expectation_failed_read": (outcome(NORMAL, expect=lambda v: "wrong count"),
                                {"tool": READ_ONLY, "trusted_server": True}, Action.INVESTIGATE),
    "not_observed": (Outcome(NORMAL, evaluate(NORMAL).content_check, Observation(False, "timeout", (), 0.0, 1.0),
                             observe_requested=True), {}, Action.CHECK_STATE),
    "normal_complete": (NORMAL, {}, Action.VERIFY_CONTENT),
    "tool_error": (ok({"resultType": "complete", "content": [], "isError": True}), {"tool": READ_ONLY,
                                                                                    "trusted_server": True},
                   Action.RETURN_TO_MODEL),
    "input_required": (ok({"resultType": "input_required", "requestState": "s"}), {}, Action.FULFIL_INPUT),
    "task": (classify({"jsonrpc": "2.0", "id": 1, "result": TASK}, extensions=[TASKS_EXTENSION]), {},
             Action.POLL_TASK),
    "unsupported_version": (error(-32022, {"supported": ["2025-11-25", "1999-01-01"], "requested": "2026-07-28"}),
                            {}, Action.RENEGOTIATE),
    "no_common_version": (error(-32022, {"supported": ["1999-01-01"], "requested": "2026-07-28"}), {},
                          Action.INVESTIGATE),
    "missing_capability": (error(-32021, {"requiredCapabilities": {"elicitation": {}}}), {}, Action.ADD_CAPABILITY),
    "bad_request": (error(-32602), {}, Action.FIX_REQUEST),
    "unwritable": (transport("transport.unwritable"), {"request_sent": False, "tool": READ_ONLY,
                                                       "trusted_server": True}, Action.FIX_REQUEST),
    "refused_auth": (refused("HTTP 401: the server refused the request, which it did not run (HTTP 401: no)"),
                     {"tool": WRITE}, Action.INVESTIGATE),
    "refused_too_large": (refused("HTTP 413: the server refused the request, which it did not run (HTTP 413: x)"),
                          {"tool": WRITE}, Action.FIX_REQUEST),
    "refused_retry": (refused("HTTP 429, Retry-After 3 s: the server refused the request, which it did not run "
                              "(HTTP 429: x)"), {"tool": WRITE}, Action.RETRY),
    "refused": (refused("HTTP 400: the server refused the request, which it did not run (HTTP 400: x)"),
                {"tool": WRITE}, Action.INVESTIGATE),
    "url_elicitation": (classify({"jsonrpc": "2.0", "id": 1, "error": {"code": -32042, "message": "m", "data": {
        "elicitations": [{"mode": "url", "elicitationId": "e", "url": "https://example.com/a", "message": "m"}]}}},
        version="2025-11-25"), {}, Action.FULFIL_INPUT),
    "not_sent": (transport("transport.error"), {"request_sent": False, "tool": WRITE}, Action.RETRY),
    "safe_retry": (error(-32603), {"tool": READ_ONLY, "trusted_server": True}, Action.RETRY),
    "retries_exhausted": (transport("transport.timeout"), {"tool": IDEMPOTENT, "trusted_server": True, "attempt": 3},
                          Action.INVESTIGATE),
    "unknown_effect": (transport("transport.closed"), {"tool": WRITE}, Action.CHECK_STATE),
    "task_id_reused": (task_taken(classify({"jsonrpc": "2.0", "id": 1, "result": TASK}, extensions=[TASKS_EXTENSION]),
                                  "t", 2), {"tool": WRITE}, Action.CHECK_STATE),
    "other_error": (error(-32000), {}, Action.INVESTIGATE),
    "unclassified": (classify(b"[]"), {}, Action.INVESTIGATE),
}


def test_every_policy_row_has_a_test() -> None:
    assert [row.name for row in POLICY] == list(ROWS)


@pytest.mark.parametrize("row", list(ROWS))
def test_policy_row(row: str) -> None:
    subject, kwargs, action = ROWS[row]
    decision = decide(subject, **kwargs)
    assert (decision.rule, decision.action) == (row, action), decision.reason


def test_a_retired_url_elicitation_code_asks_nothing_to_fulfil() -> None:
    """-32042 is URLElicitationRequiredError on 2025-11-25 alone; 2026-07-28 retired it (basic/index
    #error-codes: implementations MUST NOT emit it), so it names no elicitation to complete there."""
    decision = decide(error(-32042, {"elicitations": []}))
    assert (decision.rule, decision.action) == ("other_error", Action.INVESTIGATE), decision.reason


@pytest.mark.parametrize(("code", "reason"), [
    (-32000, "error -32000 has no defined recovery"),
    # a caller's parsed value may hold an integer past Python's limit for str() (4,300 digits): the
    # reason names its size, estimated from its 16,610 bits (x log10 2 = 5,000.1; the number has
    # 5,001 digits), where decide raised ValueError from its f-string before
    (10**5000, "error an integer of about 5000 digits has no defined recovery"),
    (-(10**5000), "error an integer of about 5000 digits has no defined recovery"),
], ids=["-32000", "10**5000", "-10**5000"])
def test_the_reason_names_any_error_code(code: int, reason: str) -> None:
    decision = decide(error(code))
    assert (decision.rule, decision.action, decision.reason) == ("other_error", Action.INVESTIGATE, reason)


def test_a_verdict_of_a_version_the_rules_do_not_know_still_decides() -> None:
    """A Verdict built by hand may name any version: the url_elicitation row reads the version's
    rules, and a version it does not know defines no error data (no KeyError)."""
    import msgspec

    hand_built = msgspec.structs.replace(error(-32042, {"elicitations": []}), version="1999-01-01")
    assert decide(hand_built).action is Action.INVESTIGATE


# The rows that read an Outcome, each given the bare verdict of its Outcome (and its kwargs): a bare
# verdict is never accepted nor failed by its content, so each ends on normal_complete.
OUTCOME_ROWS = ["accept", "suspect_error", "contract_broken", "expectation_failed_write", "expectation_failed_read",
                "not_observed"]


@pytest.mark.parametrize("row", OUTCOME_ROWS)
def test_the_bare_verdict_of_an_outcome_row_is_decided_as_normal_complete(row: str) -> None:
    subject, kwargs, _ = ROWS[row]
    decision = decide(subject.verdict, **kwargs)
    assert (decision.rule, decision.action) == ("normal_complete", Action.VERIFY_CONTENT), decision.reason


# Bare verdicts whose row reads their kind alone: the same row whatever else is given (decided once
# per kind), each case decided twice; a bad option is still refused after the kind's decision is made.
KIND_ROWS = [
    ("normal_complete", NORMAL, {}, Action.VERIFY_CONTENT),
    ("normal_complete", NORMAL, {"tool": WRITE, "attempt": 3}, Action.VERIFY_CONTENT),
    ("normal_complete", NORMAL, {"tool": READ_ONLY, "trusted_server": True, "request_sent": False},
     Action.VERIFY_CONTENT),
    ("tool_error", ok({"resultType": "complete", "content": [], "isError": True}), {}, Action.RETURN_TO_MODEL),
    ("tool_error", ok({"resultType": "complete", "content": [], "isError": True}),
     {"tool": IDEMPOTENT, "trusted_server": True, "attempt": 2}, Action.RETURN_TO_MODEL),
    ("input_required", ok({"resultType": "input_required", "requestState": "s"}), {"tool": WRITE},
     Action.FULFIL_INPUT),
    ("task", classify({"jsonrpc": "2.0", "id": 1, "result": TASK}, extensions=[TASKS_EXTENSION]),
     {"retry": RetryPolicy(max_attempts=1)}, Action.POLL_TASK),
]


@pytest.mark.parametrize(("row", "verdict", "kwargs", "action"), KIND_ROWS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(KIND_ROWS)])
def test_a_bare_verdict_decided_by_its_kind_alone(row: str, verdict: Verdict, kwargs: dict[str, Any],
                                                  action: Action) -> None:
    for _ in range(2):
        decision = decide(verdict, **kwargs)
        assert (decision.rule, decision.action) == (row, action), decision.reason
    with pytest.raises(ValueError, match="attempt"):
        decide(verdict, **{**kwargs, "attempt": 0})
    with pytest.raises(ValueError, match="tool"):
        decide(verdict, **{**kwargs, "tool": "not a mapping"})


def test_the_rows_a_bare_verdict_meets_first_read_its_kind() -> None:
    """The rows a bare verdict is tried against begin with the four that read its kind alone (a row
    put before them that reads anything else would make their decisions depend on it)."""
    bare = [row.name for row in POLICY if row.name not in OUTCOME_ROWS]
    assert bare[:5] == ["normal_complete", "tool_error", "input_required", "task", "unsupported_version"]


# --- the rules that matter most, stated again as plain cases ------------------------------------------

def test_tool_errors_are_never_retried_even_on_a_trusted_read_only_tool() -> None:
    verdict = ok({"resultType": "complete", "content": [{"type": "text", "text": "bad date"}], "isError": True})
    for attempt in (1, 2, 5):
        assert decide(verdict, tool=READ_ONLY, trusted_server=True, attempt=attempt).action is Action.RETURN_TO_MODEL


def test_annotations_are_untrusted_unless_the_server_is_trusted() -> None:
    assert decide(error(-32603), tool=READ_ONLY).action is Action.CHECK_STATE
    assert decide(error(-32603), tool=READ_ONLY, trusted_server=True).action is Action.RETRY


def test_a_timeout_after_sending_a_write_is_checked_never_resent() -> None:
    for trusted in (False, True):
        assert decide(transport("transport.timeout"), tool=WRITE, trusted_server=trusted).action is Action.CHECK_STATE
    assert decide(transport("transport.timeout"), tool=None).action is Action.CHECK_STATE


def test_unclassified_and_input_requests_never_retry() -> None:
    for verdict in (classify(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":0}}'),
                    ok({"resultType": "input_required", "requestState": ""})):
        for attempt in (1, 2):
            assert decide(verdict, tool=READ_ONLY, trusted_server=True, attempt=attempt).action is not Action.RETRY


def test_retry_backoff_grows_with_jitter_and_stops_at_the_cap() -> None:
    delays = [decide(error(-32603), tool=IDEMPOTENT, trusted_server=True, attempt=n).delay for n in (1, 2)]
    assert delays[0] is not None and delays[1] is not None
    assert 0.25 <= delays[0] <= 0.5 and 0.5 <= delays[1] <= 1.0
    assert decide(error(-32603), tool=IDEMPOTENT, trusted_server=True, attempt=3).action is Action.INVESTIGATE
    # same inputs, same decision: the jitter is derived, not drawn from hidden state
    assert decide(error(-32603), tool=IDEMPOTENT, trusted_server=True, attempt=2).delay == delays[1]


def test_renegotiate_names_the_newest_common_version_and_add_capability_the_missing_ones() -> None:
    decision = decide(error(-32022, {"supported": ["2025-06-18", "2025-11-25"], "requested": "2026-07-28"}))
    assert decision.version == "2025-11-25"
    decision = decide(error(-32021, {"requiredCapabilities": {"sampling": {}}}))
    assert decision.capabilities == {"sampling": {}}


def test_accept_only_through_an_outcome() -> None:
    assert decide(NORMAL).action is Action.VERIFY_CONTENT
    assert decide(outcome(NORMAL)).action is Action.ACCEPT
    assert outcome(NORMAL).decision.action is Action.ACCEPT


def test_attempt_must_count_from_one() -> None:
    with pytest.raises(ValueError, match="attempt"):
        decide(NORMAL, attempt=0)


# (transport.refused message, attempt, expected (action, rule, delay)); RetryPolicy() caps waits at 8 s
REFUSALS = [
    ("HTTP 429, Retry-After 8 s: x (HTTP 429: 'HTTP 429, Retry-After 1 s: ')", 1, ("retry", "refused_retry", 8.0)),
    ("HTTP 429, Retry-After 9 s: x", 1, ("investigate", "refused", None)),
    ("HTTP 503, Retry-After 0 s: x", 2, ("retry", "refused_retry", 0.0)),
    ("HTTP 503, Retry-After 0 s: x", 3, ("investigate", "refused", None)),  # attempts spent
    ("HTTP 404, session ended: x", 1, ("retry", "refused_retry", 0.457)),
    ("HTTP 404: x", 1, ("investigate", "refused", None)),
    ("HTTP 403: x", 1, ("investigate", "refused_auth", None)),
    ("the peer wrote HTTP 429, Retry-After 1 s: ", 1, ("investigate", "unclassified", None)),  # not the fixed form
]


@pytest.mark.parametrize(("message", "attempt", "expected"), REFUSALS)
def test_a_refusal_is_decided_by_its_status_and_wait(message: str, attempt: int,
                                                     expected: tuple[str, str, float | None]) -> None:
    decision = decide(refused(message), tool=WRITE, attempt=attempt)
    assert (decision.action.value, decision.rule, decision.delay) == expected


# --- a task id created again while a task with it ran ------------------------------------------------
# 2025-11-25 basic/utilities/tasks, Task ID Requirements: "Task IDs MUST be unique among all tasks controlled by
# the receiver"; ext-tasks: "Each task is uniquely identifiable by a server-generated task ID". Once a server
# creates an id again while the first task with it runs, the polls naming it cannot be told to be either task's:
# each call's task may have run, its effect unknown. README, the policy: check_state is "a write whose effect
# is unknown" ("observe the state before anything else; never resend blindly"); investigate is for what has no
# defined recovery. So a call so blamed is check_state on a tool that may write, as unknown_effect is; on a
# trusted read-only tool nothing was written: investigate (unclassified), never retry.
HANDLE_2026 = classify({"jsonrpc": "2.0", "id": 1, "result": TASK}, extensions=[TASKS_EXTENSION])
HANDLE_2025 = classify({"jsonrpc": "2.0", "id": 1, "result": {"task": {
    "taskId": "t", "status": "working", "createdAt": "2025-01-01T00:00:00Z", "lastUpdatedAt": "2025-01-01T00:00:00Z",
    "ttl": 60000}}}, version="2025-11-25", extensions=[TASKS_EXTENSION])
OTHER_TASK_FIELD = make_verdict(Kind.UNCLASSIFIED, (finding("/result/task", "task.field", "the task has no status"),),
                                "2025-11-25", None)
# (case, verdict, decide kwargs) → (rule, action), by hand from the table above
REUSE: list[tuple[str, Verdict, dict[str, Any], tuple[str, Action]]] = [
    ("the first call (2026-07-28), no tool known", task_taken(HANDLE_2026, "t", 2), {},
     ("task_id_reused", Action.CHECK_STATE)),
    ("the first call (2025-11-25), a write", task_taken(HANDLE_2025, "t", 2), {"tool": WRITE},
     ("task_id_reused", Action.CHECK_STATE)),
    ("the first call, its refused request's finding first",
     task_taken(HANDLE_2025, "t", 2, (finding("/params/requestedSchema", "elicitation.property", "x"),)),
     {"tool": WRITE}, ("task_id_reused", Action.CHECK_STATE)),
    ("the second call", task_reused(HANDLE_2025, "t", 1), {"tool": WRITE}, ("task_id_reused", Action.CHECK_STATE)),
    ("a third call", task_reused(HANDLE_2026, "t"), {}, ("task_id_reused", Action.CHECK_STATE)),
    ("read-only, untrusted annotations", task_taken(HANDLE_2026, "t", 2), {"tool": READ_ONLY},
     ("task_id_reused", Action.CHECK_STATE)),
    ("read-only, trusted", task_taken(HANDLE_2026, "t", 2), {"tool": READ_ONLY, "trusted_server": True},
     ("unclassified", Action.INVESTIGATE)),
    ("idempotent, trusted (it may write)", task_reused(HANDLE_2026, "t", 1), {"tool": IDEMPOTENT,
                                                                              "trusted_server": True},
     ("task_id_reused", Action.CHECK_STATE)),
    ("another task.field finding", OTHER_TASK_FIELD, {"tool": WRITE}, ("unclassified", Action.INVESTIGATE)),
]


@pytest.mark.parametrize(("name", "verdict", "kwargs", "expected"), REUSE, ids=[c[0] for c in REUSE])
def test_a_call_whose_task_id_was_created_again_is_an_unknown_effect(
        name: str, verdict: Verdict, kwargs: dict[str, Any], expected: tuple[str, Action]) -> None:
    decision = decide(verdict, **kwargs)
    assert (decision.rule, decision.action) == expected
    assert decide(evaluate(verdict, **{k: v for k, v in kwargs.items() if k == "tool"},
                           trusted_server=kwargs.get("trusted_server", False))).action is expected[1]
