"""The value a caller ends with: how far the call got, and whether it succeeded.

Three named stages, each visible:

- ``classified`` — the verdict is known (and, for anything but normal_complete, that is as far
  as a call can get);
- ``content_verified`` — a normal_complete result passed the content check;
- ``completion_observed`` — for writes, an observation (a read tool, or any async callable)
  saw the effect, polled with bounds for eventual consistency.

``succeeded`` is true only when every stage the caller asked for passed, and never for
anything but normal_complete. ``evaluate`` is pure; ``settle`` adds the (async) observation.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from ..verdict._classify import OptionError
from ..verdict._kind import Kind
from ..verdict._shown import described, shown, unreadable
from ..verdict._verdict import Verdict
from ._check import ContentCheck, Expectation, checked, judging_options
from ._decide import DEFAULT_RETRY, Decision, RetryPolicy, decide, finite, plain_number
from ._schema import DEFAULT_SCHEMA_LIMITS, CompiledSchema, SchemaLimits
from ._suspect import DEFAULT_SUSPECTS, Suspect, call_problem, is_async, readable_tool

Stage = Literal["classified", "content_verified", "completion_observed"]


@dataclass(frozen=True, slots=True)
class Observe:
    """How to observe a write's completion.

    ``read`` is an async callable returning what to look at — typically the verdict of a read
    tool (``Observe.tool_call(...)`` lets the client call one) — and ``until`` a predicate over it
    returning True when the effect is visible, or False or a reason string when not yet.
    Polling stops after ``attempts`` reads or ``timeout`` seconds, whichever comes first,
    waiting ``interval`` seconds (times ``backoff`` after each miss) between reads.
    """

    until: Callable[[Any], bool | str]
    read: Callable[[], Awaitable[Any]] | None = None
    attempts: int = 5
    interval: float = 0.2
    backoff: float = 1.5
    timeout: float = 5.0
    tool: tuple[str, Mapping[str, Any]] | None = None
    """(name, arguments) of a read tool for the client to call, when ``read`` is not given."""

    def __post_init__(self) -> None:
        if (self.read is None) == (self.tool is None):
            raise OptionError("Observe.read", "exactly one of read and tool", self.read,
                              "Observe needs exactly one of read (an async callable) and tool (via Observe.tool_call)")
        if self.read is not None and not callable(self.read):
            raise OptionError("Observe.read", "an async callable", self.read,
                              f"Observe.read must be an async callable, not {shown(self.read)}")
        if self.tool is not None:
            _check_tool(self.tool)
        if not callable(self.until) or is_async(self.until):
            raise OptionError("Observe.until", _UNTIL, self.until, f"Observe.until must be {_UNTIL}, "
                                                                   f"not {shown(self.until)}")
        problem = call_problem(self.until)
        if problem is not None:  # as an expectation that cannot take the verdict: known now, not at each read
            raise OptionError("Observe.until", _UNTIL, self.until,
                              f"Observe.until must be {_UNTIL}, taking what the read returned (one argument); "
                              f"{shown(self.until)} cannot take it: {problem}")
        # each number read as a plain one (plain_number) and held so: the polling never calls
        # an int or float subclass's own methods
        attempts = plain_number(self.attempts)
        if type(attempts) is not int or attempts < 1:
            raise OptionError("Observe.attempts", "a positive integer", self.attempts,
                              f"Observe.attempts must be a positive integer, not {shown(self.attempts)}")
        _SET_OBSERVE["attempts"](self, attempts)
        for name in ("interval", "timeout", "backoff"):
            given = getattr(self, name)
            value = plain_number(given)
            if value is None or not finite(value) \
                    or value < 0 or (name == "timeout" and value == 0) or (name == "backoff" and value < 1):
                raise OptionError(f"Observe.{name}", _RANGES[name], given,
                                  f"Observe.{name} is out of range: {shown(given)} (it must be {_RANGES[name]})")
            _SET_OBSERVE[name](self, value)

    @classmethod
    def tool_call(cls, name: str, arguments: Mapping[str, Any] | None = None, *,
                  until: Callable[[Any], bool | str], **options: Any) -> Observe:
        """Observe through a read tool the client calls (its verdict is passed to ``until``):
        ``name`` is the tool's name (a non-empty string), ``arguments`` its arguments (a mapping,
        copied, or None for none)."""
        _check_tool((name, arguments if arguments is not None else {}))
        return cls(until=until, tool=(name, {} if arguments is None else _read_arguments(arguments)), **options)


_SET_OBSERVE: Final = {name: Observe.__dict__[name].__set__ for name in ("attempts", "interval", "backoff", "timeout")}
"""Each number's slot setter (the dataclass is frozen): what ``__post_init__`` holds the plain value with."""
_UNTIL: Final = "a plain (not async) callable returning True, False or a reason string"
_RANGES: Final = {"interval": "a finite number of seconds >= 0", "timeout": "a finite number of seconds > 0",
                  "backoff": "a finite number >= 1"}


def _check_tool(tool: object) -> None:
    """``Observe.tool``: (the read tool's name, its arguments) as ``Observe.tool_call`` makes it."""
    if type(tool) is not tuple or len(tool) != 2:
        raise OptionError("Observe.tool", "a (name, arguments) pair", tool,
                          f"Observe.tool must be a (name, arguments) pair (Observe.tool_call makes it), "
                          f"not {shown(tool)}")
    name, arguments = tool
    if not isinstance(name, str) or not name:
        raise OptionError("Observe.tool_call.name", "the read tool's name (a non-empty string)", name,
                          f"Observe.tool_call's name must be the read tool's name (a non-empty string), "
                          f"not {shown(name)}")
    if not isinstance(arguments, Mapping):
        raise OptionError("Observe.tool_call.arguments", "the read tool's arguments (an object) or None", arguments,
                          f"Observe.tool_call's arguments must be the read tool's arguments (a mapping) or None, "
                          f"not {shown(arguments)}")
    if type(arguments) is not dict:
        _read_arguments(arguments)


def _read_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The read tool's arguments as a dict, read once here: a mapping whose reading raises (its
    ``__iter__``, ``__len__``, ``keys`` or ``__getitem__``: caller code) is an OptionError when
    the Observe is made, not an exception out of the client's call of the read tool."""
    try:
        return dict(arguments)
    except Exception as exc:
        raise unreadable("Observe.tool_call.arguments", "the read tool's arguments (a mapping) or None", arguments,
                         exc) from None


@dataclass(frozen=True, slots=True)
class Attempt:
    """One read while observing."""

    at: float
    """Wall-clock time of the read (seconds since the epoch)."""
    elapsed: float
    """Seconds since the observation started."""
    observed: Any
    """What the read returned (a Verdict for a read tool)."""
    passed: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Observation:
    passed: bool
    reason: str
    attempts: tuple[Attempt, ...]
    started_at: float
    finished_at: float

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "reason": self.reason, "started_at": self.started_at,
                "finished_at": self.finished_at,
                "attempts": [{"at": a.at, "elapsed": round(a.elapsed, 6), "passed": a.passed, "reason": a.reason,
                              "observed": a.observed.to_dict(payload=False) if isinstance(a.observed, Verdict)
                              else shown(a.observed, _SHOWN)} for a in self.attempts]}


_SHOWN: Final = 200
"""Characters of what a read returned kept in ``Observation.to_dict`` (its repr, cut)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where a call ended: its verdict, content check, observation, stage and success."""

    verdict: Verdict
    content_check: ContentCheck | None
    observation: Observation | None = None
    observe_requested: bool = False
    tool: Mapping[str, Any] | None = field(default=None, compare=False)
    trusted_server: bool = False
    request_sent: bool = True
    """False when the request never left the client (nothing can have happened on the server)."""
    attempt: int = 1
    """Which attempt at the call this is, counting from 1: an adapter that ran the call again
    gives its last outcome the number of that attempt, so ``decision`` is the one the call ended
    on (``retries_exhausted`` once the attempts are spent), never attempt 1's ``retry``."""
    retry: RetryPolicy = DEFAULT_RETRY
    """The retry policy ``decision`` follows (an adapter's own, when it was given one)."""

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            raise OptionError("Outcome.verdict", "a Verdict", self.verdict,
                              f"Outcome.verdict must be a Verdict, not {shown(self.verdict)}")
        for name, kind in (("content_check", ContentCheck), ("observation", Observation)):
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                raise OptionError(f"Outcome.{name}", f"a {kind.__name__} or None", value,
                                  f"Outcome.{name} must be a {kind.__name__} or None, not {shown(value)}")
        for name in ("observe_requested", "trusted_server", "request_sent"):
            value = getattr(self, name)
            if value is not True and value is not False:
                raise OptionError(f"Outcome.{name}", "True or False", value,
                                  f"Outcome.{name} must be True or False, not {shown(value)}")
        if self.tool is not None and not isinstance(self.tool, Mapping):
            raise OptionError("Outcome.tool", "the tool as listed (a mapping) or None", self.tool,
                              f"Outcome.tool must be the tool as listed (a mapping) or None, not {shown(self.tool)}")
        if self.tool is not None and type(self.tool) is not dict:
            readable_tool("Outcome.tool", self.tool)
        if isinstance(self.attempt, bool) or not isinstance(self.attempt, int) or self.attempt < 1:
            raise OptionError("Outcome.attempt", "an integer from 1", self.attempt,
                              f"Outcome.attempt counts from 1, not {shown(self.attempt)}")
        if not isinstance(self.retry, RetryPolicy):
            raise OptionError("Outcome.retry", "a RetryPolicy", self.retry,
                              f"Outcome.retry must be a RetryPolicy, not {shown(self.retry)}")

    @property
    def stage(self) -> Stage:
        if self.content_check is None or not self.content_check.passed:
            return "classified"
        if self.observation is not None and self.observation.passed:
            return "completion_observed"
        return "content_verified"

    @property
    def succeeded(self) -> bool:
        """True only for normal_complete with every requested check passed."""
        if self.verdict.kind is not _NORMAL_COMPLETE or self.content_check is None:
            return False
        if not self.content_check.passed:
            return False
        if self.observe_requested:
            return self.observation is not None and self.observation.passed
        return True

    @property
    def decision(self) -> Decision:
        """What to do next (``decide``), at this outcome's ``attempt`` under its ``retry`` policy."""
        return decide(self)

    def to_dict(self, *, payload: bool = False) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "succeeded": self.succeeded,
            "verdict": self.verdict.to_dict(payload=payload),
            "content_check": self.content_check.to_dict() if self.content_check is not None else None,
            "observation": self.observation.to_dict() if self.observation is not None else None,
            "decision": self.decision.to_dict(),
        }


def evaluate(
    verdict: Verdict,
    tool: Mapping[str, Any] | None = None,
    *,
    expect: Expectation | Sequence[Expectation] | None = None,
    suspects: Iterable[Suspect] = DEFAULT_SUSPECTS,
    schema_limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
    trusted_server: bool = False,
) -> Outcome:
    """Classified → content check (pure). Only normal_complete verdicts are content-checked;
    every option is checked whatever the verdict (an :class:`OptionError` for a bad one)."""
    return evaluate_listed(verdict, tool, None, expect=expect, suspects=suspects, schema_limits=schema_limits,
                           trusted_server=trusted_server)


_new: Final = object.__new__
_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE


class _Building:
    """An :class:`Outcome` being built: the same slots, in the same order, on a class that is
    not frozen. :func:`evaluate_listed` sets them as plain attributes, then makes the object an
    Outcome by assigning its ``__class__`` (which CPython allows between two classes laying out
    the same slots): the object is then an Outcome like any other, frozen, equal to the one
    ``Outcome(...)`` builds. Setting each slot through the frozen class's descriptors (a
    method-wrapper call each) cost ~4,500 instructions more per outcome (valgrind); the
    dataclass ``__init__`` (``object.__setattr__`` per field, as frozen) costs more still."""

    __slots__ = Outcome.__slots__  # (the dataclass's slots=True makes them)
    verdict: Verdict
    content_check: ContentCheck | None
    observation: Observation | None
    observe_requested: bool
    tool: Mapping[str, Any] | None
    trusted_server: bool
    request_sent: bool
    attempt: int
    retry: RetryPolicy


def evaluate_listed(
    verdict: Verdict,
    tool: Mapping[str, Any] | None,
    output_schema: CompiledSchema | None,
    *,
    expect: Expectation | Sequence[Expectation] | None = None,
    suspects: Iterable[Suspect] = DEFAULT_SUSPECTS,
    schema_limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
    trusted_server: bool = False,
) -> Outcome:
    """:func:`evaluate` with the tool's outputSchema compiled as listed (see ``check_listed``)."""
    if (expect is not None or suspects is not DEFAULT_SUSPECTS or schema_limits is not DEFAULT_SCHEMA_LIMITS
            or type(verdict) is not Verdict or (tool is not None and type(tool) is not dict)
            or (trusted_server is not False and trusted_server is not True)):  # else every option is right
        if trusted_server is not True and trusted_server is not False:
            raise OptionError("trusted_server", "True or False", trusted_server,
                              f"trusted_server must be True or False, not {shown(trusted_server)}")
        prepared, suspects = judging_options(verdict, tool, expect, suspects, schema_limits)
        check = checked(verdict, tool, output_schema, prepared, suspects, schema_limits) \
            if verdict.kind is _NORMAL_COMPLETE else None
        return _built(verdict, check, tool, trusted_server)
    return evaluate_defaults(verdict, tool, output_schema, trusted_server)


def evaluate_defaults(verdict: Verdict, tool: dict[str, Any] | None, output_schema: CompiledSchema | None,
                      trusted_server: bool) -> Outcome:
    """:func:`evaluate_listed` with ``expect``, ``suspects`` and ``schema_limits`` at their
    defaults, for a caller whose arguments are right as they are made (a Verdict, the tool as
    listed: a dict, or None; ``trusted_server`` True or False), which ``evaluate_listed`` then
    checks no further: the tap, once per judged call."""
    check = checked(verdict, tool, output_schema, None, DEFAULT_SUSPECTS, DEFAULT_SCHEMA_LIMITS) \
        if verdict.kind is _NORMAL_COMPLETE else None
    return _built(verdict, check, tool, trusted_server)


def _built(verdict: Verdict, check: ContentCheck | None, tool: Mapping[str, Any] | None,
           trusted_server: bool) -> Outcome:
    """``Outcome(verdict, check, tool=tool, trusted_server=trusted_server)``, built as the
    dataclass's ``__init__`` builds it (every field set once on a new instance; the arguments
    are checked already) in a fraction of its instructions (:class:`_Building`): one is built
    per judged call."""
    outcome = _new(_Building)
    outcome.verdict = verdict
    outcome.content_check = check
    outcome.observation = None
    outcome.observe_requested = False
    outcome.tool = tool
    outcome.trusted_server = trusted_server
    outcome.request_sent = True
    outcome.attempt = 1
    outcome.retry = DEFAULT_RETRY
    outcome.__class__ = Outcome  # type: ignore[assignment]
    return outcome  # type: ignore[return-value]


async def settle(
    verdict: Verdict,
    tool: Mapping[str, Any] | None = None,
    *,
    expect: Expectation | Sequence[Expectation] | None = None,
    observe: Observe | None = None,
    suspects: Iterable[Suspect] = DEFAULT_SUSPECTS,
    schema_limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
    trusted_server: bool = False,
) -> Outcome:
    """All three stages: classify's verdict, the content check, then (for writes) the
    observation — run only when the content check passed."""
    if observe is not None:
        if not isinstance(observe, Observe):
            raise OptionError("observe", "an Observe or None", observe,
                              f"observe must be an Observe, not {shown(observe)}")
        if observe.read is None:
            raise OptionError("observe", "an Observe with read=", observe,
                              "Observe.tool_call needs a client to call the read tool; pass read= instead")
    outcome = evaluate(verdict, tool, expect=expect, suspects=suspects, schema_limits=schema_limits,
                       trusted_server=trusted_server)
    if observe is None:
        return outcome
    outcome = replace(outcome, observe_requested=True)
    if not outcome.content_check or not outcome.content_check.passed or observe.read is None:
        return outcome
    return replace(outcome, observation=await run_observation(observe, observe.read))


_MONOTONIC: Final = time.monotonic


async def run_observation(observe: Observe, read: Callable[[], Awaitable[Any]]) -> Observation:
    """Poll ``read`` until ``observe.until`` holds, within the attempt and time bounds (on any
    event loop anyio supports; anyio loads on the first observation, not at import)."""
    if not isinstance(observe, Observe):
        raise OptionError("observe", "an Observe", observe, f"observe must be an Observe, not {shown(observe)}")
    if not callable(read):
        raise OptionError("read", "an async callable", read, f"read must be an async callable, not {shown(read)}")
    import anyio

    started_wall = time.time()
    start = _MONOTONIC()
    deadline = start + observe.timeout
    attempts: list[Attempt] = []
    wait = observe.interval
    for number in range(1, observe.attempts + 1):
        remaining = deadline - _MONOTONIC()
        if remaining <= 0:
            break
        observed: Any = None
        failure: str | None = None
        try:  # the read is caller code or a network call: what it raises is recorded, polling goes on
            pending = read()
        except Exception as exc:
            failure = f"the read raised {described(exc)}"
        else:
            if not inspect.isawaitable(pending):  # the caller's mistake, the same on every read
                raise OptionError("Observe.read", "an async callable", read,
                                  f"Observe.read must be an async callable; it returned {shown(pending)}")
            try:
                with anyio.move_on_after(remaining) as scope:
                    observed = await pending
            except Exception as exc:
                failure = f"the read raised {described(exc)}"
            else:
                if scope.cancelled_caught:
                    failure = f"the read did not answer within the remaining {remaining:.3f} s"
        passed, reason = (False, failure) if failure is not None else _judge(observe, observed)
        attempts.append(Attempt(time.time(), _MONOTONIC() - start, observed, passed, reason))
        if passed:
            return Observation(True, f"observed on read {number}", tuple(attempts), started_wall, time.time())
        if number < observe.attempts:
            left = deadline - _MONOTONIC()
            if left <= 0:
                break
            await anyio.sleep(min(wait, left))  # an interval of 0 still yields (and can be cancelled)
            wait *= observe.backoff
    why = attempts[-1].reason if attempts else "no time to read"
    return Observation(False, f"not observed after {len(attempts)} read(s): {why}", tuple(attempts),
                       started_wall, time.time())


def _judge(observe: Observe, observed: Any) -> tuple[bool, str]:
    if isinstance(observed, Verdict) and observed.kind is not Kind.NORMAL_COMPLETE:
        return False, f"the read returned a {observed.kind.value} verdict"
    try:
        answer = observe.until(observed)
    except Exception as exc:
        return False, f"the predicate raised {described(exc)}"
    if answer is True:
        return True, ""
    if answer is False:
        return False, "the predicate returned False"
    if isinstance(answer, str):  # as a plain str: a subclass may redefine its truth or formatting
        return False, str.__str__(answer) or "the predicate returned an empty reason"
    if inspect.isawaitable(answer):  # the caller's mistake, the same on every read
        if inspect.iscoroutine(answer):
            answer.close()  # never awaited: closed here rather than warned about at collection
        raise OptionError("Observe.until", _UNTIL, observe.until,
                          "Observe.until must be a plain (not async) callable; it returned an awaitable")
    return False, f"the predicate returned {shown(answer)}; expected True, False or a reason string"
