"""The OpenAI Agents SDK: drop-in MCP servers whose every tool call is judged from its bytes.

``StrictMCPServerStdio`` and ``StrictMCPServerStreamableHttp`` take the parameters of the Agents
SDK's ``MCPServerStdio`` and ``MCPServerStreamableHttp`` (plus ``tap=``, ``trusted_server=`` and
``expect=``) and behave the same, except:

- their transport is the tap's (stdio read as bytes; Streamable HTTP through the tap's
  ``httpx_client_factory``), so each answer is judged by ``classify`` on its exact bytes;
- a tool error reaches the model as an error (the stock server hands the model the error text as
  plain output, the flag dropped); an unclassified answer (``isError: "false"``, a duplicated
  ``isError``, an unknown ``resultType``...) reaches the model as a failure with the reason, never
  as output; a write whose effect is unknown tells the model to check the state;
- a call runs again only when ``decide()`` says ``retry`` (nothing reached the server, or the
  server is trusted and says the tool is read-only or idempotent), at most ``max_retry_attempts``
  times: the stock servers re-run a call after any exception, so a write that timed out after it
  was sent runs again — three times with ``max_retry_attempts=2``. The stock retry is turned off
  for tool calls alone: ``list_tools`` retries ``max_retry_attempts`` times as the stock servers do.
  A judged retry waits as the stock servers do, ``retry_backoff_seconds_base`` doubled at each
  retry and at most ``retry_backoff_seconds_max``, times ``decide``'s jitter (0.5 to 1); a
  negative, infinite or non-number setting is an OptionError (a ValueError) when it is set.

Failures are raised as :class:`AgentsVerdictError` (both a :class:`~mcp_verdict.VerdictError` and
the Agents SDK's ``UserError``); its ``outcome`` is the last attempt's (``attempt``, and the
``retry`` policy of these settings) and its ``decision`` the one reached there (after the
retries are spent, ``retries_exhausted``: never ``retry``); ``outcomes`` keeps those outcomes.
The servers' default ``failure_error_function`` shows the model its reason (the SDK's own
default hides every reason). An accepted answer the SDK then fails on (say, the ``tools/list``
it reads to validate the output is refused) raises the SDK's own error, as the stock servers do.
"""

from __future__ import annotations

from .._extras import require

require("openai-agents", "mcp_verdict.integrations.openai_agents")

import codecs  # noqa: E402
import sys  # noqa: E402
from collections.abc import Mapping, Sequence  # noqa: E402
from contextvars import ContextVar  # noqa: E402
from datetime import timedelta  # noqa: E402
from typing import Any, Final  # noqa: E402

from agents.exceptions import UserError  # noqa: E402
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp  # noqa: E402
from agents.tool import default_tool_error_function  # noqa: E402

from ..judgement._check import Expectation  # noqa: E402
from ..judgement._decide import Action, Decision, RetryPolicy, finite, plain_number  # noqa: E402
from ..judgement._outcome import Outcome  # noqa: E402
from ..tap import VerdictError, VerdictTap  # noqa: E402
from ..verdict._classify import OptionError  # noqa: E402
from ..verdict._kind import Kind  # noqa: E402
from ..verdict._shown import unreadable  # noqa: E402
from ._policy import (  # noqa: E402
    checked_cwd,
    checked_tap,
    judge_options,
    model_message,
    one_of,
    run_judged,
    strings,
    text_mapping,
)

__all__ = ["AgentsVerdictError", "StrictMCPServerStdio", "StrictMCPServerStreamableHttp", "verdict_error_message"]


class AgentsVerdictError(VerdictError, UserError):
    """A tool call that did not succeed, as the Agents SDK's failure pipeline takes it.
    ``decision`` is the one the call ended on: at its last attempt, when the strict server ran it
    again (the outcome's own ``decision`` is decided at attempt 1)."""

    def __init__(self, outcome: Outcome, message: str | None = None, decision: Decision | None = None, *,
                 response: bytes | None = None) -> None:
        final = decision if decision is not None else outcome.decision
        VerdictError.__init__(self, outcome, message or model_message(outcome, final), response=response,
                              decision=final)


def verdict_error_message(context: Any, error: Exception) -> str:
    """A ``failure_error_function`` that shows the model the verdict's reason for our failures."""
    if isinstance(error, VerdictError):
        return str(error)
    return default_tool_error_function(context, error)


_CALLING: Final[ContextVar[object]] = ContextVar("mcp_verdict_agents_calling", default=None)
"""The strict server whose stock ``call_tool`` runs in this context (it reads no retries)."""


class _Strict:
    """What both strict servers add to the Agents SDK's ClientSession-based servers."""

    tap: VerdictTap
    session: Any
    _retries: int
    _base: float
    _cap: float | None
    _trusted: bool
    _expect: Expectation | Sequence[Expectation] | None
    outcomes: list[Outcome]

    @property
    def max_retry_attempts(self) -> int:
        """The user's setting, as every stock method reads it (``list_tools`` retries that many
        times), but 0 for the stock ``call_tool`` of this server's own judged call: its loop
        re-runs a call after any exception (HTTP's too, on a new session), where ``decide()``
        says when a call may run again, at most this many times."""
        return 0 if _CALLING.get() is self else self._retries

    @max_retry_attempts.setter
    def max_retry_attempts(self, value: int) -> None:
        number = plain_number(value)
        if number == -1 and type(number) is int:  # the stock servers' "retry forever": no bound on time
            raise OptionError("max_retry_attempts", _RETRIES, value,
                              "max_retry_attempts=-1 (retry forever) is not allowed on a strict server: give the "
                              "most times a call may run again")
        if type(number) is not int or number < 0:
            raise OptionError("max_retry_attempts", _RETRIES, value)
        self._retries = number

    @property
    def retry_backoff_seconds_base(self) -> float:
        """The user's setting, read as the stock servers read it: the wait before retry ``n`` is
        ``base * 2**(n - 1)`` seconds, at most ``retry_backoff_seconds_max``; a strict server's
        judged retries wait that times ``decide``'s jitter (0.5 to 1)."""
        return self._base

    @retry_backoff_seconds_base.setter
    def retry_backoff_seconds_base(self, value: float) -> None:
        self._base = _seconds("retry_backoff_seconds_base", value)

    @property
    def retry_backoff_seconds_max(self) -> float | None:
        """The user's setting: the longest wait between retries (None: no bound but the doubling's)."""
        return self._cap

    @retry_backoff_seconds_max.setter
    def retry_backoff_seconds_max(self, value: float | None) -> None:
        self._cap = None if value is None else _seconds("retry_backoff_seconds_max", value)

    def _retry_policy(self) -> RetryPolicy:
        """The policy of this server's judged retries: the user's settings, as the stock servers
        use them (``max_retry_attempts`` retries, ``retry_backoff_seconds_base`` doubled at each,
        at most ``retry_backoff_seconds_max``)."""
        cap = self._cap if self._cap is not None else sys.float_info.max
        return RetryPolicy(max_attempts=self._retries + 1, base_delay=self._base, max_delay=cap)

    def _setup(self, tap: VerdictTap | None, judge: Mapping[str, Any]) -> None:
        self.tap = tap if tap is not None else VerdictTap(name="agents")
        self._trusted = judge["trusted_server"]
        self._expect = judge["expect"]
        self.outcomes = []

    async def call_tool(self, tool_name: str, arguments: dict[str, Any] | None,
                        meta: dict[str, Any] | None = None) -> Any:
        if not self.session:
            raise UserError("Server not initialized. Make sure you call `connect()` first.")
        stock = super().call_tool  # type: ignore[misc]

        async def send() -> Any:
            calling = _CALLING.set(self)
            try:
                return await (stock(tool_name, arguments) if meta is None else stock(tool_name, arguments, meta=meta))
            finally:
                _CALLING.reset(calling)

        policy = self._retry_policy()
        outcome, result, judged = await run_judged(
            self.tap, self.session, tool_name, send, retry=policy, run_again=True,
            judge_options={"trusted_server": self._trusted, "expect": self._expect})
        self.outcomes.append(outcome)
        del self.outcomes[:-100]
        if outcome.verdict.kind is Kind.NORMAL_COMPLETE and outcome.decision.action is Action.ACCEPT:
            if judged.error is not None:  # the answer is fine, the stack failed after it: its own error
                raise judged.error
            if result is not None:
                return result
        # the outcome of the attempt run_judged stopped at: its decision is what to do now, never retry
        raise AgentsVerdictError(outcome, response=judged.calls[-1].response)  # the last attempt's bytes


_RETRIES: Final = "a whole number of retries >= 0"


def _seconds(name: str, value: object) -> float:
    """A number of seconds a strict server waits: finite and >= 0, or an OptionError naming it
    (the stock servers take a negative base and sleep no time, or an infinite one and never wake)."""
    number = plain_number(value)
    if number is None or not finite(number) or number < 0:
        raise OptionError(name, "a finite number of seconds >= 0", value)
    return float(number)


def _failure_function(options: dict[str, Any]) -> None:
    options.setdefault("failure_error_function", verdict_error_message)


def _checked(params: object, needed: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """A strict server's ``params`` (a mapping holding ``needed``) as a dict, read once, and the
    retry settings the Agents SDK checks with a TypeError of its own: an OptionError naming the
    option, before the stock server is made."""
    expected = f"a mapping of the server's parameters (with {needed!r})"
    if not isinstance(params, Mapping):
        raise OptionError("params", expected, params)
    try:  # caller code: a mapping whose reading raises is no parameters
        given = dict(params)
    except Exception as exc:
        raise unreadable("params", expected, params, exc) from None
    if needed not in given:
        raise OptionError(f"params.{needed}", "given", params, f"params must give {needed!r}")
    cap = options.get("retry_backoff_seconds_max")
    if cap is not None:
        _seconds("retry_backoff_seconds_max", cap)
    return given


_ERROR_HANDLERS: Final = ("strict", "ignore", "replace")


def _stdio_params(params: dict[str, Any]) -> dict[str, Any]:
    """``MCPServerStdio``'s parameters checked as the SDK's ``StdioServerParameters`` (pydantic)
    would check them, each wrong one an OptionError naming it (``params.args[1]``), not the SDK's
    ValidationError: ``command`` a non-empty string, ``args`` a list or tuple of strings, ``env``
    a mapping of strings to strings, ``cwd`` a path, ``encoding`` a codec's name and
    ``encoding_error_handler`` one of the SDK's three."""
    command = params["command"]
    if not isinstance(command, str) or not str.__len__(command):
        raise OptionError("params.command", "the command to run (a non-empty string)", command)
    checked = {**params, "command": str.__str__(command)}
    if "args" in params:
        checked["args"] = strings("params.args", params["args"])
    if params.get("env") is not None:
        checked["env"] = text_mapping("params.env", params["env"])
    checked_cwd("params.cwd", params.get("cwd"))
    if "encoding" in params:
        encoding = params["encoding"]
        try:
            known = isinstance(encoding, str) and codecs.lookup(encoding) is not None
        except LookupError:
            known = False
        if not known:
            raise OptionError("params.encoding", "the name of a text encoding (a string such as 'utf-8')", encoding)
    if "encoding_error_handler" in params:
        checked["encoding_error_handler"] = one_of("params.encoding_error_handler", params["encoding_error_handler"],
                                                   _ERROR_HANDLERS)
    return checked


def _http_params(params: dict[str, Any]) -> dict[str, Any]:
    """``MCPServerStreamableHttp``'s parameters the SDK reads only when it connects (inside its
    transport), checked now: ``url`` an ``http(s)://`` URL string, ``headers`` a mapping of
    strings to strings, ``timeout`` and ``sse_read_timeout`` a finite number of seconds > 0 or a
    ``timedelta``, ``terminate_on_close`` True or False; each wrong one an OptionError naming it.
    ``httpx_client_factory`` is refused: the server's HTTP clients are its tap's (they record each
    exchange), so a factory of the caller's would be dropped, its settings (TLS, proxies, hooks) with it."""
    if params.get("httpx_client_factory") is not None:
        raise OptionError("params.httpx_client_factory", "not given (the strict server's HTTP clients are its tap's)",
                          params["httpx_client_factory"],
                          "params.httpx_client_factory, given to a strict server, would be ignored: its HTTP clients "
                          "are its tap's, which record each exchange (give the client's settings as params.headers, "
                          "params.timeout or params.auth)")
    url = params["url"]
    text = str.__str__(url) if isinstance(url, str) else ""
    if not text[:8].lower().startswith(("http://", "https://")):
        raise OptionError("params.url", "the server's http(s):// URL (a string)", url)
    checked = {**params, "url": text}
    if params.get("headers") is not None:
        checked["headers"] = text_mapping("params.headers", params["headers"])
    for name in ("timeout", "sse_read_timeout"):
        if name in params:
            value = params[name]
            seconds = value.total_seconds() if type(value) is timedelta else plain_number(value)
            if seconds is None or not finite(seconds) or seconds <= 0:
                raise OptionError(f"params.{name}", "a finite number of seconds > 0 or a timedelta", value)
    if "terminate_on_close" in params and params["terminate_on_close"] is not True \
            and params["terminate_on_close"] is not False:
        raise OptionError("params.terminate_on_close", "True or False", params["terminate_on_close"])
    return checked


class StrictMCPServerStdio(_Strict, MCPServerStdio):
    """``MCPServerStdio`` whose calls are judged (see the module docstring)."""

    def __init__(self, params: Mapping[str, Any], *args: Any, tap: VerdictTap | None = None,
                 trusted_server: bool = False, expect: Expectation | Sequence[Expectation] | None = None,
                 **options: Any) -> None:
        given = _stdio_params(_checked(params, "command", options))
        chosen, judge = checked_tap(tap), judge_options(trusted_server, expect)
        _failure_function(options)
        super().__init__(given, *args, **options)  # type: ignore[arg-type]
        self._setup(chosen, judge)
        self._stdio = given

    def create_streams(self) -> Any:
        params = self._stdio
        return self.tap.stdio_transport(params["command"], params.get("args", []), params.get("env"),
                                        cwd=params.get("cwd"))


class StrictMCPServerStreamableHttp(_Strict, MCPServerStreamableHttp):
    """``MCPServerStreamableHttp`` whose calls are judged (see the module docstring)."""

    def __init__(self, params: Mapping[str, Any], *args: Any, tap: VerdictTap | None = None,
                 trusted_server: bool = False, expect: Expectation | Sequence[Expectation] | None = None,
                 **options: Any) -> None:
        given = _http_params(_checked(params, "url", options))
        own, judge = checked_tap(tap), judge_options(trusted_server, expect)
        _failure_function(options)
        chosen = own if own is not None else VerdictTap(name="agents")
        merged: Any = {**given, "httpx_client_factory": chosen.httpx_client_factory}
        super().__init__(merged, *args, **options)
        self._setup(chosen, judge)
