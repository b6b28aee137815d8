"""Stage 3 under faults: odd reads and predicates, odd options, cancellation; never a crash
from what a read returns or raises, never success for a non-success, a wrong option a ValueError."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from mcp_verdict import Observation, Observe, Verdict, classify, evaluate, settle

WRITE = classify({"jsonrpc": "2.0", "id": 1, "result": {
    "resultType": "complete", "content": [{"type": "text", "text": "ok"}], "structuredContent": {"id": "w"}}})


def observed(outcome: Any) -> Observation:
    observation: Observation | None = outcome.observation
    assert observation is not None
    return observation


class Counter:
    def __init__(self) -> None:
        self.reads = 0

    async def read(self) -> int:
        self.reads += 1
        return self.reads


def test_interval_zero_reads_every_attempt_without_waiting() -> None:
    counter = Counter()
    observe = Observe(read=counter.read, until=lambda n: n >= 3, attempts=5, interval=0, timeout=30)
    outcome = anyio.run(lambda: settle(WRITE, observe=observe))
    assert outcome.succeeded is True
    assert [a.passed for a in observed(outcome).attempts] == [False, False, True]
    assert counter.reads == 3


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for this exception")


class HugeError(Exception):
    def __str__(self) -> str:
        return "x" * 10_000_000


async def raise_unprintable() -> Any:
    raise UnprintableError


async def raise_huge() -> Any:
    raise HugeError


async def raise_timeout_at_once() -> Any:
    raise TimeoutError("the backend said so")


def unprintable_predicate(value: Any) -> bool:
    raise UnprintableError


class Weird(str):
    def __bool__(self) -> bool:
        raise RuntimeError("no truth")

    def __format__(self, spec: str) -> str:
        raise RuntimeError("no format")


class Unrepresentable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    def __bool__(self) -> bool:
        raise RuntimeError("no bool")

    __hash__ = None  # type: ignore[assignment]


async def return_unrepresentable() -> Any:
    return Unrepresentable()


async def return_one() -> Any:
    return 1


@pytest.mark.parametrize(("read", "until", "reason_start"), [
    (raise_unprintable, lambda v: True, "the read raised UnprintableError"),
    (raise_huge, lambda v: True, "the read raised HugeError: xxx"),
    (raise_timeout_at_once, lambda v: True, "the read raised TimeoutError: the backend said so"),
    (return_one, unprintable_predicate, "the predicate raised UnprintableError"),
    (return_one, lambda v: Weird("not yet"), "not yet"),
    (return_unrepresentable, lambda v: Unrepresentable(), "the predicate returned "),
])
def test_what_a_read_or_predicate_raises_or_returns_is_recorded(read: Any, until: Any, reason_start: str) -> None:
    observe = Observe(read=read, until=until, attempts=2, interval=0.001, timeout=30)
    outcome = anyio.run(lambda: settle(WRITE, observe=observe))
    assert outcome.succeeded is False and outcome.stage == "content_verified"
    assert len(observed(outcome).attempts) == 2
    reason = observed(outcome).attempts[0].reason
    assert type(reason) is str and reason.startswith(reason_start)
    assert len(reason) < 1000
    data = outcome.to_dict()  # serialises whatever the read returned
    assert data["observation"]["passed"] is False and len(str(data)) < 10_000


def test_a_recursive_or_huge_observed_value_serialises_bounded() -> None:
    loop: list[Any] = []
    loop.append(loop)
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    for value in (loop, deep, "y" * 10_000_000, {i: i for i in range(100_000)}):
        async def read(value: Any = value) -> Any:
            return value
        outcome = anyio.run(lambda: settle(WRITE, observe=Observe(read=read, until=lambda v: False, attempts=1)))
        observed = outcome.to_dict()["observation"]["attempts"][0]["observed"]
        assert type(observed) is str and len(observed) < 1000


async def sync_result_read() -> Any:
    return 1


def plain_read() -> int:
    return 1


async def async_until(value: Any) -> bool:
    return True


@pytest.mark.parametrize("kwargs", [
    {"read": 42, "until": lambda v: True},
    {"read": sync_result_read, "until": None},
    {"read": sync_result_read, "until": "done"},
    {"read": sync_result_read, "until": async_until},
    {"read": sync_result_read, "until": lambda v: True, "attempts": 2.0},
    {"read": sync_result_read, "until": lambda v: True, "timeout": float("inf")},
    {"read": sync_result_read, "until": lambda v: True, "interval": float("nan")},
    {"read": sync_result_read, "until": lambda v: True, "interval": True},
    {"read": sync_result_read, "until": lambda v: True, "interval": -0.1},
])
def test_a_wrong_observe_option_is_a_value_error_at_once(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="Observe"):
        Observe(**kwargs)


def test_a_read_that_is_not_async_is_a_value_error() -> None:
    observe = Observe(read=plain_read, until=lambda v: True, attempts=3, interval=0.001)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Observe\.read"):
        anyio.run(lambda: settle(WRITE, observe=observe))


def coroutine_answer(value: Any) -> Any:  # a plain function answering a coroutine
    return async_until(value)


def test_a_predicate_answering_an_awaitable_is_a_value_error() -> None:
    observe = Observe(read=return_one, until=coroutine_answer, attempts=3, interval=0.001)
    with pytest.raises(ValueError, match=r"Observe\.until"):
        anyio.run(lambda: settle(WRITE, observe=observe))


FAILED_WRITE = classify({"jsonrpc": "2.0", "id": 1, "result": {
    "resultType": "complete", "content": [], "structuredContent": {"status": "error"}}})


@pytest.mark.parametrize("verdict", [WRITE, FAILED_WRITE])
@pytest.mark.parametrize(("observe", "match"), [
    ({"read": return_one}, "Observe"),
    (Observe.tool_call("get", {}, until=lambda v: True), "Observe.tool_call"),
])
def test_a_wrong_settle_option_is_a_value_error_whatever_the_content(verdict: Verdict, observe: Any,
                                                                     match: str) -> None:
    with pytest.raises(ValueError, match=match):
        anyio.run(lambda: settle(verdict, observe=observe))


@pytest.mark.parametrize("trusted", ["no", 1, None])
def test_trust_is_a_bool(trusted: Any) -> None:
    with pytest.raises(ValueError, match="trusted_server"):
        evaluate(WRITE, trusted_server=trusted)
    with pytest.raises(ValueError, match="trusted_server"):
        anyio.run(lambda: settle(WRITE, trusted_server=trusted))


async def hang() -> Any:
    await anyio.sleep_forever()


def test_a_hanging_read_is_bounded_by_the_timeout() -> None:
    observe = Observe(read=hang, until=lambda v: True, attempts=3, interval=0.01, timeout=0.2)
    outcome = anyio.run(lambda: settle(WRITE, observe=observe))
    assert outcome.succeeded is False
    assert observed(outcome).attempts[0].reason.startswith("the read did not answer within")


def test_huge_timeout_and_interval_are_accepted_and_cancellable() -> None:
    async def main() -> str:
        observe = Observe(read=hang, until=lambda v: True, attempts=2, interval=1e308, timeout=1e308)
        with anyio.move_on_after(0.2) as scope:
            await settle(WRITE, observe=observe)
        return "cancelled" if scope.cancelled_caught else "finished"
    assert anyio.run(main) == "cancelled"


def test_cancellation_mid_wait_propagates() -> None:
    async def main() -> None:
        observe = Observe(read=return_one, until=lambda v: False, attempts=5, interval=30, timeout=60)
        await asyncio.wait_for(settle(WRITE, observe=observe), 0.2)
    with pytest.raises(TimeoutError):
        asyncio.run(main())


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_interrupts_from_a_read_propagate(error: type[BaseException]) -> None:
    async def read() -> Any:
        raise error
    with pytest.raises(error):
        anyio.run(lambda: settle(WRITE, observe=Observe(read=read, until=lambda v: True, attempts=2)))


def test_concurrent_observations_keep_their_own_attempts() -> None:
    async def main() -> list[int]:
        counters = [Counter() for _ in range(5)]
        outcomes: list[Any] = [None] * 5

        async def one(i: int) -> None:
            def until(n: int, i: int = i) -> bool:
                return n > i
            observe = Observe(read=counters[i].read, until=until, attempts=10, interval=0.001, timeout=30)
            outcomes[i] = await settle(WRITE, observe=observe)
        async with anyio.create_task_group() as tg:
            for i in range(5):
                tg.start_soon(one, i)
        return [len(observed(o).attempts) for o in outcomes]
    assert anyio.run(main) == [1, 2, 3, 4, 5]
