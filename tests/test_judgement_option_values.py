"""Hostile option values at the judgement's public entry points (``evaluate``, ``check_output``,
``decide``, ``Outcome``, ``RetryPolicy``, ``Observe``, ``Suspect``): each an ``OptionError``
naming the option, its value written bounded, when it is given; never the value's own exception
or a TypeError at each call.

A predicate is held to the arguments it is documented to take, where its signature says it
cannot take them: an expectation and a ``Suspect.test`` take the verdict, ``Observe.until``
what the read returned (one argument each). Before, ``Observe(until=lambda: True)`` was made
and every read was recorded as ``the predicate raised TypeError`` (polling went on to the
end); an expectation of the wrong arity was an ``expect.error`` finding on every call (the
README: what is no expectation at all is the caller's mistake, a ValueError before anything
is checked); a ``Suspect`` of the wrong arity a match on every call. A callable whose signature
cannot be read (some builtins, a ``__signature__`` that raises) is taken, as before.

Before too: a tool mapping whose reading raises came out of ``evaluate`` and ``decide`` as its
own exception (``Boom``), as did ``Observe.tool_call``'s arguments of that kind, an ``expect``
list or ``suspects`` whose iteration raises, an int or float subclass whose comparisons
raise given to ``RetryPolicy``, ``Observe`` or ``decide``'s ``attempt``, and an outside outcome
whose ``verdict`` property raises, given to ``decide``. The messages are written by hand.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from mcp_verdict import (
    DEFAULT_SUSPECTS,
    Observe,
    OptionError,
    Outcome,
    RetryPolicy,
    Suspect,
    Verdict,
    check_output,
    classify,
    decide,
    evaluate,
    settle,
)

from .raising import RaisingDict, RaisingFloat, RaisingInt, RaisingList, RaisingMapping

OK = classify({"jsonrpc": "2.0", "id": 1, "result": {
    "resultType": "complete", "content": [{"type": "text", "text": "ok"}], "structuredContent": {"a": 1}}})
INTERNAL = classify({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "internal"}})
UNTIL = "Observe.until must be a plain (not async) callable returning True, False or a reason string, taking what " \
        "the read returned (one argument); "


async def read() -> Any:
    return OK


def nothing() -> bool:
    return True


def two(verdict: Verdict, tool: Any) -> bool:
    return True


def keyword_only(*, verdict: Verdict) -> bool:
    return True


class RaisingVerdict:
    """An outside outcome whose ``verdict`` property raises (caller code)."""

    @property
    def verdict(self) -> Verdict:
        raise RuntimeError("no verdict")


class Checker:
    def method_without_self(self) -> bool:  # taken as a bound method: no argument left for the verdict
        return True

    def right(self, verdict: Verdict) -> bool:
        return True


# the call → the OptionError's option, the start of its message and (for a predicate) its end (by hand)
WRONG: list[tuple[str, Callable[[], Any], str, str] | tuple[str, Callable[[], Any], str, str, str]] = [
    # 3. a predicate that cannot take its one documented argument
    ("Observe until taking nothing", lambda: Observe(read=read, until=nothing), "Observe.until",  # type: ignore[arg-type]
     UNTIL + "<function nothing at", "cannot take it: too many positional arguments"),
    ("Observe until taking two", lambda: Observe(read=read, until=two), "Observe.until",  # type: ignore[arg-type]
     UNTIL + "<function two at", "cannot take it: missing a required argument: 'tool'"),
    ("Observe.tool_call until taking two", lambda: Observe.tool_call("get", until=two), "Observe.until",  # type: ignore[arg-type]
     UNTIL + "<function two at", "cannot take it: missing a required argument: 'tool'"),
    ("expect taking two", lambda: check_output(OK, expect=two), "expect",
     "expect must be a callable taking the verdict (one argument); <function two at",
     "cannot take it: missing a required argument: 'tool'"),
    ("expect[1] keyword-only", lambda: evaluate(OK, expect=[{"type": "object"}, keyword_only]), "expect[1]",
     "expect[1] must be a callable taking the verdict (one argument); <function keyword_only at",
     "cannot take it: too many positional arguments"),
    ("expect a bound method taking nothing", lambda: check_output(OK, expect=Checker().method_without_self),
     "expect", "expect must be a callable taking the verdict (one argument); <bound method "
     "Checker.method_without_self of", "cannot take it: too many positional arguments"),
    ("expect, a tool error (checked whatever the verdict)", lambda: evaluate(INTERNAL, expect=nothing),
     "expect", "expect must be a callable taking the verdict (one argument); <function nothing at",
     "cannot take it: too many positional arguments"),
    ("Suspect test taking two", lambda: Suspect("x", "d", two), "Suspect.test",  # type: ignore[arg-type]
     "Suspect.test must be a plain (not async) callable taking the verdict; <function two at",
     "cannot take it: missing a required argument: 'tool'"),
    # 4. values whose own methods raise
    ("evaluate tool a mapping that raises", lambda: evaluate(OK, RaisingMapping()), "tool",
     "tool must be the tool as listed (a mapping) or None; reading <RaisingMapping object; its repr raised Boom> "
     "raised Boom: boom"),
    ("check_output tool a dict whose reading raises", lambda: check_output(OK, RaisingDict(name="t")), "tool",
     "tool must be the tool as listed (a mapping) or None; reading {'name': 't'} raised Boom: boom"),
    ("decide tool a mapping that raises", lambda: decide(INTERNAL, tool=RaisingMapping(), trusted_server=True),
     "tool", "tool must be the tool as listed (a mapping) or None; reading <RaisingMapping object; its repr raised "
     "Boom> raised Boom: boom"),
    ("Outcome tool a mapping that raises", lambda: Outcome(OK, None, tool=RaisingMapping()), "Outcome.tool",
     "Outcome.tool must be the tool as listed (a mapping) or None; reading <RaisingMapping object; its repr raised "
     "Boom> raised Boom: boom"),
    ("expect a list whose iteration raises", lambda: evaluate(OK, expect=RaisingList([{"type": "object"}])),
     "expect", "expect must be an expectation (a JSON Schema (a dict or a bool), a pydantic model class, a pydantic "
     "TypeAdapter or a plain (not async) callable taking the verdict), a list or tuple of them, or None; reading "
     "[{'type': 'object'}] raised Boom: boom"),
    ("suspects a list whose iteration raises", lambda: check_output(OK, suspects=RaisingList(DEFAULT_SUSPECTS)),
     "suspects", "suspects must be an iterable of Suspect values; reading [Suspect(id='structured.status_error', "
     "description='structuredContent has sta... raised Boom: boom"),
    ("Observe.tool_call arguments a mapping that raises",
     lambda: Observe.tool_call("get", RaisingMapping(), until=lambda v: True), "Observe.tool_call.arguments",
     "Observe.tool_call.arguments must be the read tool's arguments (a mapping) or None; reading <RaisingMapping "
     "object; its repr raised Boom> raised Boom: boom"),
    ("Observe tool arguments a dict whose reading raises",
     lambda: Observe(until=lambda v: True, tool=("get", RaisingDict(id=1))), "Observe.tool_call.arguments",
     "Observe.tool_call.arguments must be the read tool's arguments (a mapping) or None; reading {'id': 1} raised "
     "Boom: boom"),
    ("decide attempt an int subclass of 0", lambda: decide(INTERNAL, attempt=RaisingInt(0)), "attempt",
     "attempt counts from 1, not 0"),
    ("decide an outside outcome whose verdict raises", lambda: decide(RaisingVerdict()),  # type: ignore[arg-type]
     "verdict.verdict", "verdict.verdict must be a Verdict; reading <tests.test_judgement_option_values.RaisingVerdict "
     "object at 0x", " raised RuntimeError: no verdict"),
    ("RetryPolicy max_attempts an int subclass of 0", lambda: RetryPolicy(max_attempts=RaisingInt(0)),
     "RetryPolicy.max_attempts", "RetryPolicy.max_attempts must be a positive integer, not 0"),
    ("RetryPolicy base_delay a float subclass below 0", lambda: RetryPolicy(base_delay=RaisingFloat(-1.0)),
     "RetryPolicy.base_delay", "RetryPolicy.base_delay must be a finite number of seconds >= 0, not -1.0"),
    ("Observe attempts an int subclass of 0", lambda: Observe(read=read, until=bool, attempts=RaisingInt(0)),
     "Observe.attempts", "Observe.attempts must be a positive integer, not 0"),
    ("Observe backoff a float subclass below 1", lambda: Observe(read=read, until=bool, backoff=RaisingFloat(0.5)),
     "Observe.backoff", "Observe.backoff is out of range: 0.5 (it must be a finite number >= 1)"),
]


@pytest.mark.parametrize(("call", "option", "message", "end"), [(*row[1:4], row[4] if len(row) > 4 else None)
                                                                 for row in WRONG], ids=[row[0] for row in WRONG])
def test_a_hostile_option_is_an_option_error_naming_it(call: Callable[[], Any], option: str, message: str,
                                                       end: str | None) -> None:
    with pytest.raises(OptionError) as caught:
        call()
    assert caught.value.option == option
    if end is None:  # the whole message
        assert str(caught.value) == message
    else:  # its start and its end (a function's repr between them names its address)
        assert str(caught.value).startswith(message)
        assert str(caught.value).endswith(end)
    assert len(str(caught.value)) <= 500


class NoSignature:
    """A callable whose signature cannot be read (its ``__signature__`` raises): taken."""

    @property
    def __signature__(self) -> inspect.Signature:
        raise RuntimeError("no signature")

    def __call__(self, value: Any) -> bool:
        return True


# predicates whose signature allows one argument, or cannot be read: taken, and they answer
RIGHT: list[tuple[str, Any]] = [
    ("a plain function", lambda v: True),
    ("a function with a default second argument", lambda v, tool=None: True),
    ("a function of *args", lambda *args: True),
    ("a partial leaving one argument", functools.partial(two, tool=None)),
    ("a bound method", Checker().right),
    ("a builtin", operator.truth),
    ("a callable whose signature raises", NoSignature()),
]


@pytest.mark.parametrize(("case", "predicate"), RIGHT, ids=[row[0] for row in RIGHT])
def test_a_predicate_that_can_take_its_argument_is_taken(case: str, predicate: Any) -> None:
    assert check_output(OK, expect=predicate).passed is True
    assert Suspect("x", "d", predicate).id == "x"

    async def observed() -> str:
        outcome = await settle(OK, observe=Observe(read=read, until=predicate, attempts=1))
        assert outcome.observation is not None
        return outcome.observation.reason

    assert anyio.run(observed) == "observed on read 1"


def test_subclassed_numbers_are_held_as_plain_ones() -> None:
    """The policy and the observation hold the numbers' values: a decision and a poll never call
    the subclass's own comparisons (they raised, from inside ``decide``)."""
    policy = RetryPolicy(RaisingInt(3), RaisingFloat(0.5), RaisingFloat(4.0))
    assert [type(v) for v in (policy.max_attempts, policy.base_delay, policy.max_delay)] == [int, float, float]
    assert policy == RetryPolicy(3, 0.5, 4.0)
    assert decide(INTERNAL, request_sent=False, retry=policy).rule == "not_sent"
    assert decide(INTERNAL, request_sent=False, retry=policy, attempt=RaisingInt(3)).rule == "retries_exhausted"
    observe = Observe(read=read, until=bool, attempts=RaisingInt(2), interval=RaisingFloat(0.0),
                      backoff=RaisingFloat(1.0), timeout=RaisingFloat(5.0))
    assert [type(v) for v in (observe.attempts, observe.interval, observe.backoff, observe.timeout)] == [
        int, float, float, float]
