"""The next action for every outcome: one policy table, read top to bottom, first match wins.

Tool errors go back to the model (never an automatic resend of the same arguments), input
requests are fulfilled, and a write whose effect is unknown is observed before anything else.
Only failures safe to repeat are retried: -32603 or a transport failure, when nothing reached
the server, or when the tool is read-only or idempotent by annotations from a trusted server
(annotations are untrusted unless ``trusted_server`` is set:
https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool). Retries back off
exponentially with jitter up to an attempt cap. ``accept`` is only ever reached through an
:class:`~mcp_verdict.Outcome` whose checks passed.

The same table is in the README; every row has a test.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Protocol, SupportsFloat

from ..verdict._classify import OptionError
from ..verdict._findings import integer_text, refusal, task_id_reused
from ..verdict._kind import Kind
from ..verdict._shown import shown, unreadable
from ..verdict._verdict import Verdict
from ..verdict._versions import RULES_BY_VERSION, VERSIONS


class Judged(Protocol):
    """What ``decide`` reads from an :class:`~mcp_verdict.Outcome` (defined in ``_outcome``,
    which builds on this module; the policy needs only these members)."""

    @property
    def verdict(self) -> Verdict: ...
    @property
    def succeeded(self) -> bool: ...
    @property
    def content_check(self) -> Any: ...
    @property
    def observation(self) -> Any: ...
    @property
    def tool(self) -> Mapping[str, Any] | None: ...
    @property
    def trusted_server(self) -> bool: ...
    @property
    def request_sent(self) -> bool: ...


class Action(StrEnum):
    VERIFY_CONTENT = "verify_content"
    ACCEPT = "accept"
    RETURN_TO_MODEL = "return_to_model"
    FULFIL_INPUT = "fulfil_input"
    POLL_TASK = "poll_task"
    RETRY = "retry"
    RENEGOTIATE = "renegotiate"
    ADD_CAPABILITY = "add_capability"
    FIX_REQUEST = "fix_request"
    CHECK_STATE = "check_state"
    INVESTIGATE = "investigate"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with jitter: attempt n waits base·2^(n-1), capped, times 0.5–1.0.

    ``max_delay`` caps every wait, the first one included: a ``base_delay`` above it waits
    ``max_delay`` from the first retry on (the stock OpenAI Agents servers' backoff, which the
    adapter maps here, is read the same way), never an error. ``max_attempts`` is a positive
    integer, each delay a finite number of seconds >= 0: anything else is an ``OptionError``."""

    max_attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0

    def __post_init__(self) -> None:
        # each read as a plain number (plain_number): an int or float subclass is held as its
        # value, so neither this check nor a decision calls its own methods
        attempts = plain_number(self.max_attempts)
        if type(attempts) is not int or attempts < 1:
            raise OptionError("RetryPolicy.max_attempts", "a positive integer", self.max_attempts,
                              f"RetryPolicy.max_attempts must be a positive integer, not {shown(self.max_attempts)}")
        _SET_POLICY["max_attempts"](self, attempts)
        for name in ("base_delay", "max_delay"):
            given = getattr(self, name)
            value = plain_number(given)
            if value is None or not finite(value) or value < 0:
                raise OptionError(f"RetryPolicy.{name}", "a finite number of seconds >= 0", given,
                                  f"RetryPolicy.{name} must be a finite number of seconds >= 0, not {shown(given)}")
            _SET_POLICY[name](self, value)


def plain_number(value: object) -> int | float | None:
    """``value`` as a plain ``int`` or ``float`` (a subclass's own value, read without calling its
    methods, which are caller code: a ``__lt__`` that raises), or None for anything else, a bool
    included: what an option that is a number is checked and held as."""
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[return-value]
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return None


_SET_POLICY: Final = {name: RetryPolicy.__dict__[name].__set__ for name in ("max_attempts", "base_delay", "max_delay")}
"""Each field's slot setter (the dataclass is frozen): what ``__post_init__`` holds the plain value with."""


def finite(value: SupportsFloat) -> bool:
    """A number a float holds and that is finite (an int past the float range is not: the
    delays are slept as floats)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


DEFAULT_RETRY: Final = RetryPolicy()


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    reason: str
    rule: str
    """The policy row that decided (see POLICY)."""
    delay: float | None = None
    """Seconds to wait before the retry (retry only)."""
    version: str | None = None
    """The protocol version to renegotiate to (renegotiate only)."""
    capabilities: Mapping[str, Any] | None = field(default=None)
    """The capabilities the server requires (add_capability only)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action.value, "reason": self.reason, "rule": self.rule}
        if self.delay is not None:
            out["delay"] = self.delay
        if self.version is not None:
            out["version"] = self.version
        if self.capabilities is not None:
            out["capabilities"] = dict(self.capabilities)
        return out


def _defines_data(version: str, code: int) -> bool:
    """The version defines the error ``code``'s data (``VersionRules.error_data``); False for a
    version the verdict layer does not know (a Verdict built by hand)."""
    rules = RULES_BY_VERSION.get(version)
    return rules is not None and code in rules.error_data


class _Situation:
    """What the policy rows read (built once per ``decide``; never changed after). A plain class
    with slots: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``,
    which cost a quarter of a decision's instructions."""

    __slots__ = ("accepted", "attempt", "codes", "observed", "outcome", "request_sent", "retry", "tool", "tool_option",
                 "trusted_server", "verdict")

    def __init__(self, verdict: Verdict, outcome: Judged | None, tool: Mapping[str, Any] | None, tool_option: str,
                 attempt: int, trusted_server: bool, request_sent: bool, retry: RetryPolicy,
                 read: tuple[bool, frozenset[str], bool | None]) -> None:
        self.verdict = verdict
        self.outcome = outcome
        self.tool = tool
        self.tool_option = tool_option
        self.attempt = attempt
        self.trusted_server = trusted_server
        self.request_sent = request_sent
        self.retry = retry
        self.accepted, self.codes, self.observed = read
        """What ``_judged`` read of an Outcome of a normal_complete verdict: whether it is
        accepted, its content check's codes, and whether its completion was observed (None: no
        observation was made)."""

    @property
    def code(self) -> int | None:
        return self.verdict.error_code

    @property
    def transport(self) -> str | None:
        for item in self.verdict.findings:
            if item.code.startswith("transport."):
                return item.code
        return None

    @property
    def refusal(self) -> tuple[int, int | None, bool] | None:
        """A transport.refused finding's HTTP status, Retry-After seconds and session end."""
        for item in self.verdict.findings:
            if item.code == "transport.refused":
                return refusal(item)
        return None

    def refused(self, *statuses: int) -> bool:
        return self.refusal is not None and self.refusal[0] in statuses

    @property
    def refused_retry(self) -> bool:
        """Refused for now, not for good: 429, 503 with Retry-After, a 404 that ended the session
        (the client starts a new one), with a Retry-After within the policy's cap."""
        refused = self.refusal
        if refused is None:
            return False
        status, wait, ended = refused
        return (status in (429, 503) or ended) and (wait is None or wait <= self.retry.max_delay)

    @property
    def annotations(self) -> Mapping[str, Any]:
        """The tool's annotations (a mapping; else none): a mapping that is no dict is read here
        once for the two hints the rows test, its reading (caller code) an OptionError."""
        value = self.tool.get("annotations") if self.tool is not None else None
        if type(value) is dict:
            return value
        if not isinstance(value, Mapping):
            return {}
        try:
            return {name: value.get(name) for name in ("readOnlyHint", "idempotentHint")}
        except Exception as exc:
            raise unreadable(f"{self.tool_option}.annotations", "the tool's annotations (a mapping)", value,
                             exc) from None

    @property
    def safe_to_repeat(self) -> bool:
        """Read-only or idempotent, and the server that says so is trusted."""
        hints = self.annotations
        return self.trusted_server and (hints.get("readOnlyHint") is True or hints.get("idempotentHint") is True)

    @property
    def read_only(self) -> bool:
        return self.trusted_server and self.annotations.get("readOnlyHint") is True

    @property
    def repeatable_failure(self) -> bool:
        """-32603 or a transport failure, a cancelled call's included (not the input-rounds cap,
        which is the server's doing)."""
        return self.code == -32603 or self.transport in ("transport.timeout", "transport.closed", "transport.error",
                                                         "transport.cancelled")


_NOT_READ: Final = (False, frozenset[str](), None)
"""What ``_Situation`` holds of an Outcome it did not read: none, or one of a verdict that is not
normal_complete (no row reads it then)."""


def _judged(outcome: Judged) -> tuple[bool, frozenset[str], bool | None]:
    """What the rows read of an Outcome of a normal_complete verdict, read once: whether every
    check passed (each member read as exactly True: an outside ``Judged`` may answer anything;
    ``Outcome.succeeded`` alone implies the rest, but a truthy string or a tool error saying it
    succeeded is no success), the codes of a content check that did not pass (the strings among
    them, as plain strings), and whether the completion was observed (None: no observation).
    A member of an outside object whose reading raises is an OptionError naming it (``_unread``)."""
    name = "succeeded"
    try:
        succeeded = outcome.succeeded
        name = "content_check"
        check = outcome.content_check
        name = "observation"
        observation = outcome.observation
    except Exception as exc:
        raise _unread(outcome, "verdict", name, exc) from None
    passed = None
    if check is not None:
        try:
            passed = check.passed
        except Exception as exc:
            passed = _unread(check, "verdict.content_check", "passed", exc, None)
    observed = None
    if observation is not None:
        try:
            observed = observation.passed is True
        except Exception as exc:
            observed = _unread(observation, "verdict.observation", "passed", exc, None) is True
    accepted = succeeded is True and passed is True and observed is not False
    if accepted or check is None:
        return accepted, _NOT_READ[1], observed
    try:
        codes = check.codes
    except Exception as exc:
        codes = _unread(check, "verdict.content_check", "codes", exc, ())
    return accepted, _strings(codes), observed


def _strings(codes: object) -> frozenset[str]:
    """The strings among a content check's codes (a tuple, list or set; else none), each as a
    plain str: a subclass's own ``__eq__``, ``__hash__`` or ``startswith`` is never called."""
    if type(codes) is tuple and all(type(code) is str for code in codes):  # a ContentCheck's
        return frozenset(codes)
    if not isinstance(codes, (tuple, list, frozenset, set)):
        return frozenset()
    try:  # a subclass's iteration is caller code
        return frozenset(str.__str__(code) for code in codes if isinstance(code, str))
    except Exception as exc:
        raise unreadable("verdict.content_check.codes", _EXPECTED["verdict.content_check.codes"], codes,
                         exc) from None


_EXPECTED: Final = {
    "verdict.verdict": "a Verdict",
    "verdict.succeeded": "True or False",
    "verdict.content_check": "a ContentCheck or None",
    "verdict.observation": "an Observation or None",
    "verdict.content_check.passed": "True or False",
    "verdict.content_check.codes": "the finding codes (a tuple of strings)",
    "verdict.observation.passed": "True or False",
    "verdict.attempt": "an integer from 1",
    "verdict.retry": "a RetryPolicy",
    "verdict.trusted_server": "True or False",
    "verdict.request_sent": "True or False",
    "verdict.tool": "the tool as listed (a mapping) or None",
}
"""What each member of an Outcome that ``decide`` reads is, in words (an OptionError's ``expected``)."""

_REQUIRED: Final = object()


def _unread(owner: object, where: str, name: str, exc: Exception, absent: Any = _REQUIRED) -> Any:
    """After reading ``owner.name`` raised ``exc``: ``absent`` when ``owner`` has no such member
    and ``absent`` is given; else the OptionError naming ``where.name`` (raised here) for an
    outside object (its property is caller code), or ``exc`` itself for an object of this
    library (``Outcome.succeeded``, ``ContentCheck.codes``: its own code, never wrapped)."""
    if absent is not _REQUIRED and isinstance(exc, AttributeError):
        return absent
    if _ours(owner):
        raise exc
    option = f"{where}.{name}"
    raise unreadable(option, _EXPECTED[option], owner, exc) from None


def _ours(owner: object) -> bool:
    """Whether ``owner`` is an Outcome, ContentCheck or Observation of this library (imported
    by the first reading that raises: ``_outcome`` and ``_check`` build on this module)."""
    from ._check import ContentCheck
    from ._outcome import Observation, Outcome

    return type(owner) in (Outcome, ContentCheck, Observation)


@dataclass(frozen=True, slots=True)
class PolicyRow:
    name: str
    when: str
    """The condition, in words (the README table's first column)."""
    action: Action
    applies: Callable[[_Situation], bool]
    reason: Callable[[_Situation], str]


def _supported(s: _Situation) -> str | None:
    data = s.verdict.error_data
    offered = data.get("supported") if isinstance(data, Mapping) else None
    if not isinstance(offered, list):
        return None
    common = [v for v in VERSIONS if v in offered]
    return common[-1] if common else None


def _status(s: _Situation) -> int:
    return s.refusal[0] if s.refusal is not None else 0


def _wait(s: _Situation) -> int | None:
    return s.refusal[1] if s.refusal is not None else None


def _outcome_failed(s: _Situation) -> bool:
    return s.outcome is not None and s.verdict.kind is _NORMAL_COMPLETE and not s.accepted


# The enum members the rows and ``decide`` test, held once: on Python 3.11 each ``Kind.X`` or
# ``Action.X`` goes through ``EnumType.__getattr__``'s hook (about a thousand instructions).
_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE
_TOOL_ERROR: Final = Kind.TOOL_ERROR
_INPUT_REQUIRED: Final = Kind.INPUT_REQUIRED
_TASK: Final = Kind.TASK
_PROTOCOL_ERROR: Final = Kind.PROTOCOL_ERROR
_UNCLASSIFIED: Final = Kind.UNCLASSIFIED
_RETRY: Final = Action.RETRY
_RENEGOTIATE: Final = Action.RENEGOTIATE
_ADD_CAPABILITY: Final = Action.ADD_CAPABILITY

_SCHEMA_CODES: Final = frozenset({"output.structured_missing", "output.schema", "output.dialect", "output.ref",
                                  "output.bounds", "output.budget", "output.schema_invalid"})
_FIX_CODES: Final = {-32700: "parse error", -32600: "invalid request", -32601: "method not found",
                     -32602: "invalid params", -32020: "header mismatch"}

POLICY: Final[tuple[PolicyRow, ...]] = (
    PolicyRow("accept", "an Outcome whose every requested check passed", Action.ACCEPT,
              lambda s: s.accepted,
              lambda s: "complete and content checked"
                        + (", completion observed" if s.observed else "")),
    PolicyRow("suspect_error", "Outcome: the content reads like a failure (content.suspect_error)",
              Action.RETURN_TO_MODEL,
              lambda s: _outcome_failed(s) and "content.suspect_error" in s.codes,
              lambda s: "isError is not set but the content reports a failure; hand it to the model as a tool error"),
    PolicyRow("contract_broken", "Outcome: structuredContent misses or breaks the outputSchema, or the schema "
              "cannot be used", Action.INVESTIGATE,
              lambda s: _outcome_failed(s) and bool(s.codes & _SCHEMA_CODES),
              lambda s: "the server broke its outputSchema contract; quarantine the result, never accept it"),
    PolicyRow("expectation_failed_write", "Outcome: a caller expectation failed and the tool may write",
              Action.CHECK_STATE,
              lambda s: _outcome_failed(s) and any(c.startswith("expect.") for c in s.codes)
              and not s.read_only,
              lambda s: "the write returned data the caller did not expect; observe its effect before anything else"),
    PolicyRow("expectation_failed_read", "Outcome: a caller expectation failed on a read-only tool",
              Action.INVESTIGATE,
              lambda s: _outcome_failed(s) and any(c.startswith("expect.") for c in s.codes),
              lambda s: "the read returned data the caller did not expect"),
    PolicyRow("not_observed", "Outcome: the write's completion was not observed in time", Action.CHECK_STATE,
              lambda s: _outcome_failed(s) and s.observed is False,
              lambda s: "the write's effect was not observed; check the state before resending"),
    PolicyRow("normal_complete", "normal_complete (decided from the verdict alone)", Action.VERIFY_CONTENT,
              lambda s: s.verdict.kind is _NORMAL_COMPLETE,
              lambda s: "complete is not business success yet: check the content (and observe writes)"),
    PolicyRow("tool_error", "tool_error", Action.RETURN_TO_MODEL,
              lambda s: s.verdict.kind is _TOOL_ERROR,
              lambda s: "the tool reported an execution error: give its content to the model to self-correct; "
                        "never resend the same arguments automatically"),
    PolicyRow("input_required", "input_required", Action.FULFIL_INPUT,
              lambda s: s.verdict.kind is _INPUT_REQUIRED,
              lambda s: "the server needs input: fulfil the requests and retry with inputResponses and the exact "
                        "requestState"),
    PolicyRow("task", "task", Action.POLL_TASK,
              lambda s: s.verdict.kind is _TASK,
              lambda s: "the work continues as a task: poll tasks/get honouring pollIntervalMs"),
    PolicyRow("unsupported_version", "protocol_error -32022 naming a version both sides support",
              Action.RENEGOTIATE,
              lambda s: s.code == -32022 and _supported(s) is not None,
              lambda s: f"the server does not support the request's version; renegotiate to {_supported(s)}"),
    PolicyRow("no_common_version", "protocol_error -32022 without a version both sides support",
              Action.INVESTIGATE,
              lambda s: s.code == -32022,
              lambda s: "the server supports no protocol version this client speaks"),
    PolicyRow("missing_capability", "protocol_error -32021", Action.ADD_CAPABILITY,
              lambda s: s.code == -32021,
              lambda s: "the server requires a client capability the request did not declare"),
    PolicyRow("bad_request", "protocol_error -32700, -32600, -32601, -32602, -32020", Action.FIX_REQUEST,
              lambda s: s.code in _FIX_CODES,
              lambda s: f"the request is wrong ({_FIX_CODES.get(s.code or 0)}): fix it; resending it unchanged "
                        "cannot help"),
    PolicyRow("unwritable", "transport.unwritable: the client could not write the request (a lone surrogate)",
              Action.FIX_REQUEST,
              lambda s: s.transport == "transport.unwritable",
              lambda s: "the request cannot be written as JSON text (a string in it holds a lone surrogate): fix "
                        "it; resending it unchanged fails the same way"),
    PolicyRow("refused_auth", "transport.refused: HTTP 401 or 403 (authorization), the request was not run",
              Action.INVESTIGATE,
              lambda s: s.refused(401, 403),
              lambda s: f"the server refused the request's authorization (HTTP {_status(s)}) and did not run it: "
                        "authorize (WWW-Authenticate says how) before sending it again"),
    PolicyRow("refused_too_large", "transport.refused: HTTP 413, the request was not run", Action.FIX_REQUEST,
              lambda s: s.refused(413),
              lambda s: "the server refused the request as too large (HTTP 413) and did not run it: make it "
                        "smaller; resending it unchanged is refused again"),
    PolicyRow("refused_retry", "transport.refused: HTTP 429, 503 with Retry-After, or a 404 that ended the "
              "session; any Retry-After within RetryPolicy.max_delay; attempts left", Action.RETRY,
              lambda s: s.refused_retry and s.attempt < s.retry.max_attempts,
              lambda s: f"the server refused the request for now (HTTP {_status(s)}) and did not run it: "
                        + ("send it again in the new session" if s.refusal and s.refusal[2] else
                           "send it again after the wait it asked for" if _wait(s) is not None else
                           "send it again after a backoff")),
    PolicyRow("refused", "transport.refused: any other status that says the request was not run (400, 404, 405, "
              "406, 415, 421, 431; a Retry-After past the cap; no attempts left)", Action.INVESTIGATE,
              lambda s: s.refusal is not None,
              lambda s: f"the server refused the request (HTTP {_status(s)}) and did not run it: "
                        + (f"it asks to wait {_wait(s)} s, more than RetryPolicy.max_delay ({s.retry.max_delay:g} s)"
                           if (_wait(s) or 0) > s.retry.max_delay else
                           f"gave up after {s.attempt} attempt{'' if s.attempt == 1 else 's'}" if s.refused_retry else
                           "sent again unchanged it is refused again")),
    PolicyRow("url_elicitation", "protocol_error -32042 (URL elicitation required, 2025-11-25)",
              Action.FULFIL_INPUT,
              lambda s: s.code == -32042 and _defines_data(s.verdict.version, -32042),
              lambda s: "the server needs a URL-mode elicitation completed first"),
    PolicyRow("not_sent", "-32603 or a transport failure, and the request never reached the server",
              Action.RETRY,
              lambda s: s.repeatable_failure and not s.request_sent and s.attempt < s.retry.max_attempts,
              lambda s: "nothing reached the server, so resending cannot repeat an effect"),
    PolicyRow("safe_retry", "-32603 or a transport failure, tool read-only or idempotent (trusted), "
              "attempts left", Action.RETRY,
              lambda s: s.repeatable_failure and s.safe_to_repeat and s.attempt < s.retry.max_attempts,
              lambda s: f"a repeatable failure on a tool safe to repeat (attempt {s.attempt} of "
                        f"{s.retry.max_attempts})"),
    PolicyRow("retries_exhausted", "-32603 or a transport failure, safe to repeat, attempt cap reached",
              Action.INVESTIGATE,
              lambda s: s.repeatable_failure and (s.safe_to_repeat or not s.request_sent),
              lambda s: f"gave up after {s.attempt} attempt{'' if s.attempt == 1 else 's'}"),
    PolicyRow("unknown_effect", "-32603 or a transport failure after the request was sent, on a tool that may "
              "write", Action.CHECK_STATE,
              lambda s: s.repeatable_failure,
              lambda s: "the request was sent and its effect is unknown: observe the state before anything else; "
                        "never resend blindly"),
    PolicyRow("task_id_reused", "unclassified: the call's task id was created again while a task with it ran "
              "(task.field), on a tool that may write", Action.CHECK_STATE,
              lambda s: s.verdict.kind is _UNCLASSIFIED and not s.read_only
              and any(task_id_reused(item) for item in s.verdict.findings),
              lambda s: "the task ran and its id was created again: its polls cannot be told to be its task's, so "
                        "its effect is unknown; observe the state before anything else; never resend blindly"),
    PolicyRow("other_error", "any other protocol_error", Action.INVESTIGATE,
              lambda s: s.verdict.kind is _PROTOCOL_ERROR,
              lambda s: f"error {integer_text(s.code) if isinstance(s.code, int) else s.code} has no defined "
                        "recovery"),
    PolicyRow("unclassified", "unclassified", Action.INVESTIGATE,
              lambda s: True,
              lambda s: "the response is not a valid tools/call response: quarantine and log it; never success"),
)

_READ_OUTCOME: Final = frozenset({"accept", "suspect_error", "contract_broken", "expectation_failed_write",
                                  "expectation_failed_read", "not_observed"})
"""The rows that read an Outcome (its acceptance, or its failure: :func:`_outcome_failed`): none
applies to a bare verdict, whose situation holds no outcome and is not accepted (``_NOT_READ``)."""
_ON_VERDICT: Final = tuple(row for row in POLICY if row.name not in _READ_OUTCOME)
"""POLICY without those rows, in order: what ``decide`` tries for a bare verdict (the row that
decides is the same; six tests fewer, eleven Python calls, per decision: the proxy's verdict line)."""
_KIND_ROWS: Final = frozenset({"normal_complete", "tool_error", "input_required", "task"})
"""The first rows of :data:`_ON_VERDICT`, each reading the verdict's kind alone (its test and its
reason): the decision of a bare verdict of one of their kinds is its row's whatever else is given
(the tool, the attempt, trust, the retry policy), made once per kind (:data:`_BY_KIND`)."""
_BY_KIND: Final[dict[Kind, Decision]] = {}
"""The decision of a bare verdict by its kind, for the kinds :data:`_KIND_ROWS` decide."""


def decide(
    verdict: Verdict | Judged,
    *,
    tool: Mapping[str, Any] | None = None,
    attempt: int | None = None,
    trusted_server: bool | None = None,
    request_sent: bool | None = None,
    retry: RetryPolicy | None = None,
) -> Decision:
    """The next action for a verdict (or an Outcome, which alone can lead to ``accept``).

    ``tool`` is the tool as listed (its annotations matter only with ``trusted_server``),
    ``attempt`` counts from 1, ``request_sent`` is False when the request never left the client.
    For an Outcome, ``tool``, ``trusted_server``, ``request_sent``, ``attempt`` and ``retry``
    default to what the Outcome carries (trust is given once; an adapter that ran the call again
    gives its outcome the attempt it ended on, and its policy); for a bare verdict, to no tool,
    untrusted, sent, attempt 1 and :data:`DEFAULT_RETRY`.
    """
    if type(verdict) is Verdict and attempt is None and trusted_server is None and request_sent is None \
            and retry is None and (tool is None or type(tool) is dict):  # (options none can refuse: checked)
        known = _BY_KIND.get(verdict.kind)
        if known is not None:
            return known
    if isinstance(verdict, Verdict):
        outcome: Judged | None = None
        plain = verdict
    else:  # an Outcome's members, each read once: an outside Judged's are caller code (_unread)
        outcome = verdict
        try:
            inner = verdict.verdict
        except Exception as exc:
            inner = _unread(verdict, "verdict", "verdict", exc, None)
        if not isinstance(inner, Verdict):
            raise OptionError("verdict", "a Verdict or an Outcome", verdict,
                              f"decide takes a Verdict or an Outcome, not {shown(verdict)}")
        plain = inner
    if attempt is None:  # an Outcome's own, read conservatively: a whole number from 1, else 1
        own: Any = 1
        if outcome is not None:
            try:
                own = getattr(outcome, "attempt")  # noqa: B009 - no member of Judged
            except Exception as exc:
                own = _unread(outcome, "verdict", "attempt", exc, 1)
        if type(own) is not int:  # an outside Judged's: its plain value (plain_number), its methods never called
            own = plain_number(own)
        attempt = own if type(own) is int and own >= 1 else 1
    else:
        given = attempt if type(attempt) is int else plain_number(attempt)
        if type(given) is not int or given < 1:
            raise OptionError("attempt", "an integer from 1, or None", attempt,
                              f"attempt counts from 1, not {shown(attempt)}")
        attempt = given
    if trusted_server is not None or request_sent is not None:
        for name, value in (("trusted_server", trusted_server), ("request_sent", request_sent)):
            if value is not None and value is not True and value is not False:
                raise OptionError(name, "True, False or None", value,
                                  f"{name} must be True, False or None, not {shown(value)}")
    if tool is not None and type(tool) is not dict:
        if not isinstance(tool, Mapping):
            raise OptionError("tool", "the tool as listed (a mapping) or None", tool,
                              f"tool must be the tool as listed (a mapping) or None, not {shown(tool)}")
        _readable_tool("tool", tool)
    if retry is None:
        policy = None
        if outcome is not None:
            try:
                policy = getattr(outcome, "retry")  # noqa: B009 - no member of Judged
            except Exception as exc:
                policy = _unread(outcome, "verdict", "retry", exc, None)
        retry = policy if isinstance(policy, RetryPolicy) else DEFAULT_RETRY
    elif not isinstance(retry, RetryPolicy):
        raise OptionError("retry", "a RetryPolicy or None", retry,
                          f"retry must be a RetryPolicy or None, not {shown(retry)}")
    # An Outcome's own members, read conservatively (an outside Judged may hold anything):
    # trusted only when exactly True, unsent only when exactly False, a tool only as a mapping
    # (a dict is one: tested by its exact type before the ABC's check, which costs more).
    tool_option, listed, name = "tool", None, "trusted_server"
    try:
        if trusted_server is None:
            trusted_server = outcome is not None and outcome.trusted_server is True
        name = "request_sent"
        if request_sent is None:
            request_sent = outcome is None or outcome.request_sent is not False
        name = "tool"
        if tool is None and outcome is not None:
            listed = outcome.tool
    except Exception as exc:
        raise _unread(outcome, "verdict", name, exc) from None
    if tool is None and outcome is not None:
        tool = listed if listed is not None and (type(listed) is dict or isinstance(listed, Mapping)) else None
        tool_option = "verdict.tool"
        if tool is not None and type(tool) is not dict:
            _readable_tool(tool_option, tool)
    if outcome is None:
        known = _BY_KIND.get(plain.kind)
        if known is not None:  # (a kind decided by its row alone: the decision made for it before)
            return known
    read = _judged(outcome) if outcome is not None and plain.kind is _NORMAL_COMPLETE else _NOT_READ
    situation = _Situation(plain, outcome, tool, tool_option, attempt, trusted_server, request_sent, retry, read)
    for row in POLICY if outcome is not None else _ON_VERDICT:
        if row.applies(situation):
            decision = _decision(row, situation)
            if outcome is None and row.name in _KIND_ROWS:
                _BY_KIND[plain.kind] = decision
            return decision
    raise AssertionError("the last policy row matches everything")  # pragma: no cover


def _readable_tool(option: str, tool: Mapping[str, Any]) -> None:
    """``_suspect.readable_tool``, imported by the first tool given as a mapping that is no dict
    (a decision of a dict's loads nothing more)."""
    from ._suspect import readable_tool

    readable_tool(option, tool)


def _decision(row: PolicyRow, s: _Situation) -> Decision:
    action = row.action
    if action is not _RETRY and action is not _RENEGOTIATE and action is not _ADD_CAPABILITY:
        # Its row's action and reason and nothing else: one Decision shared by every call that
        # ends on them (Decision is frozen), rather than an equal one built each time.
        reason = row.reason(s)
        key = (row.name, reason)
        known = _DECIDED.get(key)
        if known is None:
            known = Decision(action, reason, row.name)
            if len(_DECIDED) < _DECIDED_MAX:  # a reason may name a code or an attempt: bounded
                _DECIDED[key] = known
        return known
    delay = version = capabilities = None
    if action is _RETRY:
        try:  # base·2^(n-1) as a float: past the float range (a late attempt) it is the cap
            raw = math.ldexp(s.retry.base_delay, s.attempt - 1)
        except OverflowError:
            raw = math.inf
        backoff = min(s.retry.max_delay, raw)
        # Deterministic jitter in [0.5, 1.0): spreads clients apart without hidden state.
        seed = zlib.crc32(f"{s.verdict.id!r}:{s.attempt}".encode())
        delay = round(backoff * (0.5 + (seed % 1000) / 2000), 3)
        wait = _wait(s)
        if wait is not None:  # the server's Retry-After, within the cap (refused_retry): never sooner
            delay = float(wait)
    elif action is _RENEGOTIATE:
        version = _supported(s)
    else:  # add_capability
        data = s.verdict.error_data
        required = data.get("requiredCapabilities") if isinstance(data, Mapping) else None
        capabilities = required if isinstance(required, Mapping) else {}
    return Decision(action, row.reason(s), row.name, delay, version, capabilities)


_DECIDED: Final[dict[tuple[str, str], Decision]] = {}
"""The decisions of rows whose Decision holds only the row's action, its reason and its name,
by (row name, reason)."""
_DECIDED_MAX: Final = 256
