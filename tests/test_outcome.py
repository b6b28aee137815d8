"""Outcomes: the three stages, success only when every requested stage passed, observation polling."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp_verdict import Action, Kind, Observe, Verdict, classify, evaluate, settle


def ok(result: dict[str, Any], id_: int = 1) -> Verdict:
    return classify({"jsonrpc": "2.0", "id": id_, "result": result})


WRITE = ok({"resultType": "complete", "content": [{"type": "text", "text": "created"}],
            "structuredContent": {"id": "item-1", "state": "created"}})


def run(coro: Any) -> Any:
    return anyio.run(lambda: coro)


@pytest.mark.parametrize(("verdict", "stage", "succeeded"), [
    (WRITE, "content_verified", True),
    (ok({"resultType": "complete", "content": [], "isError": True}), "classified", False),
    (ok({"resultType": "input_required", "requestState": "s"}), "classified", False),
    (classify(b"null"), "classified", False),
    (ok({"resultType": "complete", "content": [], "structuredContent": {"success": False}}), "classified", False),
])
def test_stages_without_observation(verdict: Verdict, stage: str, succeeded: bool) -> None:
    outcome = evaluate(verdict)
    assert (outcome.stage, outcome.succeeded) == (stage, succeeded)
    if verdict.kind is not Kind.NORMAL_COMPLETE:
        assert outcome.content_check is None


class Store:
    """An eventually consistent store: the write becomes visible on the third read."""

    def __init__(self, visible_after: int) -> None:
        self.reads = 0
        self.visible_after = visible_after

    async def read(self) -> Verdict:
        self.reads += 1
        state = "created" if self.reads >= self.visible_after else "pending"
        return ok({"resultType": "complete", "content": [], "structuredContent": {"id": "item-1", "state": state}},
                  id_=100 + self.reads)


def created(verdict: Verdict) -> bool | str:
    state = verdict.structured_content["state"]
    return state == "created" or f"state is {state}"


def test_completion_observed_after_polling() -> None:
    store = Store(visible_after=3)
    observe = Observe(until=created, read=store.read, attempts=5, interval=0.01, timeout=2)
    outcome = run(settle(WRITE, observe=observe))
    assert (outcome.stage, outcome.succeeded) == ("completion_observed", True)
    assert outcome.observation is not None
    assert [a.passed for a in outcome.observation.attempts] == [False, False, True]
    assert outcome.observation.attempts[0].reason == "state is pending"
    assert outcome.observation.attempts[0].at <= outcome.observation.attempts[2].at
    assert outcome.decision.action is Action.ACCEPT


def test_not_observed_within_the_attempts_is_not_success() -> None:
    store = Store(visible_after=99)
    outcome = run(settle(WRITE, observe=Observe(until=created, read=store.read, attempts=3, interval=0.001)))
    assert (outcome.stage, outcome.succeeded) == ("content_verified", False)
    assert store.reads == 3
    assert outcome.decision.action is Action.CHECK_STATE


def test_the_timeout_bounds_polling() -> None:
    async def slow() -> Verdict:
        await anyio.sleep(1)
        return WRITE

    outcome = run(settle(WRITE, observe=Observe(until=created, read=slow, attempts=10, timeout=0.05)))
    assert not outcome.succeeded
    assert outcome.observation is not None and "did not answer" in outcome.observation.attempts[0].reason


def test_a_raising_read_or_predicate_is_recorded_and_polling_goes_on() -> None:
    calls = []

    async def flaky() -> Verdict:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("reset")
        return WRITE

    outcome = run(settle(WRITE, observe=Observe(until=created, read=flaky, attempts=3, interval=0.001)))
    assert outcome.succeeded
    assert outcome.observation is not None
    assert outcome.observation.attempts[0].reason == "the read raised ConnectionError: reset"

    def broken(verdict: Verdict) -> bool:
        raise ZeroDivisionError

    outcome = run(settle(WRITE, observe=Observe(until=broken, read=flaky, attempts=2, interval=0.001)))
    assert not outcome.succeeded


def test_a_read_tool_returning_a_tool_error_does_not_count() -> None:
    async def failing() -> Verdict:
        return ok({"resultType": "complete", "content": [], "isError": True})

    outcome = run(settle(WRITE, observe=Observe(until=lambda v: True, read=failing, attempts=2, interval=0.001)))
    assert not outcome.succeeded
    assert outcome.observation is not None
    assert outcome.observation.attempts[0].reason == "the read returned a tool_error verdict"


def test_observation_runs_only_after_the_content_check_passed() -> None:
    store = Store(visible_after=1)
    bad = ok({"resultType": "complete", "content": [], "structuredContent": {"error": "quota"}})
    outcome = run(settle(bad, observe=Observe(until=created, read=store.read)))
    assert store.reads == 0 and outcome.observation is None and not outcome.succeeded


@pytest.mark.parametrize("kwargs", [
    {"attempts": 0}, {"interval": -1}, {"timeout": 0}, {"backoff": 0.5}, {"read": None},
])
def test_bad_observe_options(kwargs: dict[str, Any]) -> None:
    options: dict[str, Any] = {"until": created, "read": Store(1).read, **kwargs}
    with pytest.raises(ValueError, match="Observe"):
        Observe(**options)


def test_outcome_serialises() -> None:
    outcome = evaluate(WRITE)
    data = outcome.to_dict()
    assert data["stage"] == "content_verified" and data["decision"]["action"] == "accept"


TOOL = {"name": "t", "outputSchema": {"type": "object", "required": ["id"]}}


@pytest.mark.parametrize(("verdict", "tool", "trusted", "passed", "schema_checked"), [
    (WRITE, None, False, True, False),
    (WRITE, TOOL, True, True, True),
    (ok({"resultType": "complete", "content": [], "structuredContent": {}}), TOOL, False, False, True),
    (ok({"resultType": "complete", "content": [], "isError": True}), TOOL, False, None, False),
])
def test_evaluate_builds_the_outcome_its_constructor_builds(verdict: Verdict, tool: Any, trusted: bool,
                                                             passed: bool | None, schema_checked: bool) -> None:
    """The judged call's Outcome and ContentCheck are built without their dataclass ``__init__``
    (one per call, on the tap's path): each field as the constructor would set it, an Outcome
    exactly (its type), still frozen."""
    import dataclasses

    from mcp_verdict import Outcome

    outcome = evaluate(verdict, tool, trusted_server=trusted)
    built = Outcome(verdict, outcome.content_check, tool=tool, trusted_server=trusted)
    assert [getattr(outcome, f.name) for f in dataclasses.fields(Outcome)] \
        == [getattr(built, f.name) for f in dataclasses.fields(Outcome)]
    assert outcome == built and outcome.tool is tool and repr(outcome) == repr(built)
    assert type(outcome) is Outcome and hash(outcome) == hash(built)  # (built on a twin class of its slots)
    assert (outcome.observation, outcome.observe_requested, outcome.request_sent) == (None, False, True)
    check = outcome.content_check
    assert (check.passed, check.schema_checked) == (passed, schema_checked) if check else passed is None
    assert dataclasses.replace(outcome, request_sent=False).request_sent is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.trusted_server = not trusted  # type: ignore[misc]
