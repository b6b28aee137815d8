"""What every adapter does with an outcome, in one place: the reason a model is shown, and when
a failed call may run again.

A call is run once through the tap and judged; then ``decide`` says what comes next. Only
``retry`` runs it again (after the decision's delay, up to the cap): a tool error, an input
request, or a write whose effect is unknown after the request was sent never runs again,
whatever a stack's own retry setting says. Nor does a stack get a failure in a form it re-runs
(pydantic-ai's ``ModelRetry`` makes the model call the tool again) unless the call may run again
(:func:`may_run_again`): every other failure leaves the state unknown or cannot succeed as it is.
The text a model sees for a failure names the verdict, its first finding and the next action,
so the model (or the person reading the trace) knows whether to correct the arguments, ask the
user, or check the state first; when the call must not run again, it says so.

The FastMCP, pydantic-ai and LangChain adapters never run a call again themselves (their stacks
do not): ``decide`` follows the ``retry`` policy the user gives the adapter (by default
``DEFAULT_RETRY``), at attempt 1, and a ``retry`` decision is the caller's to act on — the text
says nothing ran the call again and when it may be called again (:func:`refusal`). The Agents
SDK's strict servers run it again themselves (their stock servers retry), so their outcome
after the retries is never ``retry``.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import anyio

from ..judgement._check import prepared_expectations
from ..judgement._decide import Action, Decision, RetryPolicy
from ..judgement._outcome import Outcome
from ..judgement._schema import DEFAULT_SCHEMA_LIMITS
from ..tap._block import Judged
from ..tap._error import PEER_TEXT_SHOWN, describe
from ..tap._tap import VerdictTap
from ..verdict._classify import OptionError
from ..verdict._kind import Kind
from ..verdict._peer_text import cut, neutral
from ..verdict._shown import shown, unreadable

_RUN_AGAIN: Final = frozenset({Action.RETRY, Action.FIX_REQUEST, Action.RETURN_TO_MODEL})
TOOL_TEXT_SHOWN: Final = 4000
"""The most characters of a tool error's text :func:`model_message` shows (then the count of the
whole): the text is the tool's word to the model, so more of it than of a finding's message
(``tap._error.PEER_TEXT_SHOWN``), but a megabyte of it is never copied whole into an exception."""
_JUDGED: Final[weakref.WeakKeyDictionary[BaseException, tuple[Outcome, bytes | None]]] = weakref.WeakKeyDictionary()
"""The outcome of each stack error an adapter let through as it is (an SDK ``MCPError``), for a
stack built on that adapter that would otherwise re-run it (pydantic-ai over FastMCP's)."""


def may_run_again(outcome: Outcome) -> bool:
    """Whether a failed call may be handed to a stack in a form it runs again (a ``ModelRetry``):
    only when the decision is ``retry`` (nothing reached the server, or a trusted read-only or
    idempotent tool), ``fix_request`` (the server refused the request itself: nothing ran, and
    corrected arguments may pass) or ``return_to_model`` (the tool reported its own failure: the
    model corrects its arguments). Every other action leaves the call's effect unknown
    (``check_state``, ``investigate``) or names a step to take first (``fulfil_input``,
    ``renegotiate``, ``add_capability``, ``poll_task``): running it again blindly repeats a write or
    cannot succeed."""
    return outcome.decision.action in _RUN_AGAIN


def remember(error: BaseException, outcome: Outcome, response: bytes | None = None) -> None:
    """Note the outcome of a stack error an adapter raises as it is, and the answer's bytes (see
    :func:`judged_of`)."""
    _JUDGED[error] = (outcome, response)


def judged_of(error: BaseException) -> tuple[Outcome, bytes | None] | None:
    """The outcome and answer bytes noted for ``error``, or for an error it was raised from or
    wraps (a group)."""
    seen: set[int] = set()
    todo: list[BaseException] = [error]
    while todo:
        current = todo.pop()
        if id(current) in seen or len(seen) > 64:
            continue
        seen.add(id(current))
        known = _JUDGED.get(current)
        if known is not None:
            return known
        if isinstance(current, BaseExceptionGroup):
            todo.extend(current.exceptions)
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


def model_message(outcome: Outcome, decision: Decision | None = None) -> str:
    """What the model is told about a call that did not succeed (the message of the adapters'
    exceptions too, so logged and printed as well): the server's text in it is shown literally,
    its control, escape and bidi characters as visible escapes (``verdict._peer_text``). A call
    that must not run again (:func:`may_run_again`) says so. ``decision`` is the one the call
    ended on when it is not the outcome's own (``decide`` at attempt 1): an adapter that ran the
    call again decides at its last attempt, when no retry is left."""
    verdict = outcome.verdict
    decision = decision if decision is not None else outcome.decision
    if verdict.kind is Kind.TOOL_ERROR:  # the tool's own text, for the model: longer than a finding's, still bounded
        text = cut(verdict.text, TOOL_TEXT_SHOWN) if verdict.text else "(no text)"
        return neutral(f"The tool reported an error: {text}")
    line = describe(outcome, decision)
    if decision.action is Action.CHECK_STATE:
        return neutral(f"The tool call's effect is unknown ({line}). Do not call it again before "
                       "checking whether it took effect.")
    if decision.action in _RUN_AGAIN:
        return neutral(f"The tool call failed: {line}{not_run_again(decision)}")
    if decision.action is Action.INVESTIGATE and outcome.request_sent:
        advice = "Do not call it again before checking whether it took effect: it may have run."
    else:
        advice = f"Do not call it again as it is: {decision.action.value} first."
    return neutral(f"The tool call failed: {line}. {advice}")


def not_run_again(decision: Decision) -> str:
    """What a ``retry`` decision means where nothing runs the call again: the caller may, after
    the decision's delay ("" for any other decision)."""
    if decision.action is not Action.RETRY:
        return ""
    return f". Nothing ran it again: the caller may call it again after {decision.delay or 0:g} s"


def refusal(outcome: Outcome) -> str:
    """The message of an adapter's :class:`~mcp_verdict.VerdictError`: the outcome's one line, and
    for a ``retry`` decision that nothing ran the call again (the adapter does not)."""
    return describe(outcome) + not_run_again(outcome.decision)


def retry_policy(value: object) -> RetryPolicy:
    """An adapter's ``retry`` option, or an OptionError naming it (as the tap's ``judging`` does)."""
    if not isinstance(value, RetryPolicy):
        raise OptionError("retry", "a RetryPolicy (mcp_verdict.RetryPolicy)", value)
    return value


def checked_tap(value: object) -> VerdictTap | None:
    """An adapter's ``tap`` option (a VerdictTap, or None for one of its own), or an OptionError."""
    if value is not None and not isinstance(value, VerdictTap):
        raise OptionError("tap", "a VerdictTap or None", value)
    return value


def judge_options(trusted_server: object, expect: object) -> dict[str, Any]:
    """An adapter's ``trusted_server`` and ``expect``, checked when the adapter is made (each
    expectation as the judgement checks it: a JSON Schema that can be used, a pydantic model...),
    not by the first call judged: an OptionError naming the wrong one."""
    if trusted_server is not True and trusted_server is not False:
        raise OptionError("trusted_server", "True or False", trusted_server)
    if expect is not None:
        prepared_expectations(expect, DEFAULT_SCHEMA_LIMITS)
    return {"trusted_server": trusted_server, "expect": expect}


def one_of(option: str, value: object, choices: tuple[str, ...]) -> Any:
    """``value`` if it is one of ``choices`` (strings), or an OptionError naming ``option``."""
    if type(value) is not str or value not in choices:
        expected = " or ".join(repr(choice) for choice in choices)
        raise OptionError(option, expected, value, f"{option} is {expected}, not {shown(value)}")
    return value


def strings(option: str, value: object, *, paths: bool = False) -> list[Any]:
    """A list or tuple of strings (or path-like values, with ``paths``) as a list, or an
    OptionError naming ``option`` or its wrong member (``args[2]``): a string is no list of
    arguments, and no other iterable is read (one may never end)."""
    if not isinstance(value, (list, tuple)):
        raise OptionError(option, "a list or tuple of strings", value)
    items = list(value) if type(value) is list or type(value) is tuple else _members(option, value)
    for index, item in enumerate(items):
        if not (isinstance(item, str) or (paths and isinstance(item, os.PathLike))):
            raise OptionError(f"{option}[{index}]", "a string", item)
    return items


def _members(option: str, value: list[Any] | tuple[Any, ...]) -> list[Any]:
    """A list or tuple subclass's members, read once: one whose iteration raises (caller code)
    is an OptionError naming ``option``."""
    try:
        return list(value)
    except Exception as exc:
        raise unreadable(option, "a list or tuple of strings", value, exc) from None


def checked_cwd(option: str, value: object) -> Any:
    """A server's working directory: a path (a string or path-like) or None, or an OptionError
    naming ``option``."""
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise OptionError(option, "a path (a string or path-like) or None", value)
    return value


def text_mapping(option: str, value: object) -> Mapping[str, str] | None:
    """None, or a mapping of strings to strings (an environment, HTTP headers), or an
    OptionError naming ``option`` or its wrong member."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise OptionError(option, "a mapping of strings to strings or None", value)
    try:  # read once, as a dict: a mapping whose reading raises (caller code) is no option
        pairs = dict(value)
    except Exception as exc:
        raise unreadable(option, "a mapping of strings to strings or None", value, exc) from None
    for key, item in pairs.items():
        if not isinstance(key, str):
            raise OptionError(f"{option} key", "a string", key)
        if not isinstance(item, str):
            raise OptionError(f"{option}[{shown(key, 40)}]", "a string", item)
    return pairs


def refused(outcome: Outcome) -> bool:
    """Whether a call must reach the application as a refusal (a :class:`~mcp_verdict.VerdictError`
    or the stack's failure) rather than in the stack's own idiom: an ``unclassified`` answer, an
    unknown effect, and a complete answer that is not accepted (its content check failed:
    error-shaped, a failed expectation, a broken outputSchema). A tool error and any other
    protocol error stay the stack's own; an input request or a task goes back to the stack, which
    fulfils or polls it (its next round is judged in turn)."""
    kind, action = outcome.verdict.kind, outcome.decision.action
    if kind is Kind.UNCLASSIFIED or action is Action.CHECK_STATE:
        return True
    return kind is Kind.NORMAL_COMPLETE and action is not Action.ACCEPT


def _name_shown(name: object) -> str:
    """A tool's name in an exception's message: quoted, at most ``PEER_TEXT_SHOWN`` characters and
    the count, its control, escape, bidi and lone surrogate characters as visible escapes (the
    name is the model's or the caller's, taken from a server's listing: megabytes, terminal
    escapes, a surrogate a lenient read gave)."""
    text = name if isinstance(name, str) else shown(name)
    return f"'{neutral(cut(text, PEER_TEXT_SHOWN))}'"


async def run_judged(tap: VerdictTap, session: Any, name: str, send: Callable[[], Awaitable[Any]], *,
                     retry: RetryPolicy, run_again: bool,
                     judge_options: Mapping[str, Any]) -> tuple[Outcome, Any, Judged]:
    """Send a call through ``send`` (the stack's own call, on ``session``) inside the tap's judging;
    with ``run_again``, send it again on each ``retry`` decision (after its delay), at most
    ``retry.max_attempts`` times in all. Returns the final outcome, what ``send`` returned (or
    None) and the last judged block; each attempt is judged with its number and ``retry`` (the
    tap's history and its observers' spans carry them), so the outcome's ``decision`` is the one
    the call ended on. What ``send`` raises before anything reached the
    wire is raised as it is."""
    attempt = 1
    while True:
        result: Any = None
        async with tap.judging(session, attempt=attempt, retry=retry, **judge_options) as judged:
            try:
                result = await send()
            except Exception as exc:
                judged.error = exc
                if not judged.any_sent:
                    raise
        if not judged.any_sent:
            raise RuntimeError(f"the call of {_name_shown(name)} sent no tools/call request")
        outcome = judged.outcome  # judged at this attempt under ``retry``, as the tap's history and spans have it
        decision = outcome.decision
        if decision.action is not Action.RETRY or not run_again:
            return outcome, result if judged.error is None else None, judged
        attempt += 1
        await anyio.sleep(decision.delay or 0)
