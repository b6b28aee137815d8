"""Hostile option values at the adapters: each one an ``OptionError`` naming the option (or the
member of it) and its value written bounded, when the object is made, before any connection.

Before (the probe of each row against the code before this table):

- every adapter's ``retry`` that is no RetryPolicy was a plain ValueError naming only the
  value's type (``not int``), with no ``option``; so were the Agents servers' retry settings
  (``max_retry_attempts``, ``retry_backoff_seconds_*``), a StrictTransport given options of the
  other kind of target or an empty command, and ``strict_toolset``'s options given with a
  StrictTransport;
- the Agents stdio server's ``params`` of the wrong type (``command`` a number, ``args`` a
  string or holding a number, ``env`` a list or holding a number, ``cwd`` a number, ``encoding``
  a number, ``encoding_error_handler`` unknown) reached the SDK and came back as pydantic's
  ValidationError; the Streamable HTTP server's ``url``, ``headers`` and timeouts were taken and
  failed only when it connected, inside its transport;
- a ``process_tool_call`` hook that cannot take the toolset's four arguments was taken, and
  the toolset's first call raised a TypeError from inside it;
- an option whose own methods raise (a mapping whose reading raises, a value whose ``__eq__``
  raises) came out as that object's exception (``Boom``).

The real libraries (FastMCP, pydantic-ai, the Agents SDK); the messages are written by hand.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from mcp_verdict import OptionError, RetryPolicy
from mcp_verdict.integrations.fastmcp import StrictTransport
from mcp_verdict.integrations.openai_agents import StrictMCPServerStdio, StrictMCPServerStreamableHttp
from mcp_verdict.integrations.pydantic_ai import strict_toolset, verdict_process_tool_call

from ..raising import RaisingBool, RaisingDict, RaisingFloat, RaisingInt, RaisingList, RaisingMapping

URL = "http://127.0.0.1:1/mcp"
PY = [sys.executable, "-c", "pass"]
CMD = {"command": sys.executable}
POLICY = "retry must be a RetryPolicy (mcp_verdict.RetryPolicy), not "
SECONDS = "a finite number of seconds > 0 or a timedelta"


async def three(ctx: Any, call_tool: Any, name: str) -> Any:
    return None


async def five(ctx: Any, call_tool: Any, name: str, tool_args: dict[str, Any], extra: Any) -> Any:
    return None


async def hook(ctx: Any, call_tool: Any, name: str, tool_args: dict[str, Any], extra: Any = None) -> Any:
    return await call_tool(name, tool_args)


def stdio(**params: Any) -> Callable[[], Any]:
    return lambda: StrictMCPServerStdio({**CMD, **params})


def http(**params: Any) -> Callable[[], Any]:
    return lambda: StrictMCPServerStreamableHttp({"url": URL, **params})


# how the object is made → the OptionError's option and message (by hand)
WRONG: list[tuple[str, Callable[[], Any], str, str]] = [
    # 1. retry, and every adapter's other option checks: OptionError, never a plain ValueError
    ("StrictTransport: retry an int", lambda: StrictTransport(PY, retry=3), "retry", POLICY + "3"),  # type: ignore[arg-type]
    ("StrictTransport: retry a dict", lambda: StrictTransport(URL, retry={"max_attempts": 2}), "retry",  # type: ignore[arg-type]
     POLICY + "{'max_attempts': 2}"),
    ("strict_toolset: retry a string", lambda: strict_toolset(URL, retry="3"), "retry", POLICY + "'3'"),  # type: ignore[arg-type]
    ("strict_toolset: retry the class", lambda: strict_toolset(URL, retry=RetryPolicy), "retry",  # type: ignore[arg-type]
     POLICY + "<class 'mcp_verdict.judgement._decide.RetryPolicy'>"),
    ("strict_toolset: retry with a StrictTransport", lambda: strict_toolset(StrictTransport(URL), retry=RetryPolicy()),
     "retry", "retry, given with a StrictTransport, would be ignored: give it to the StrictTransport"),
    ("StrictTransport: a URL and args", lambda: StrictTransport(URL, ["--flag"], cwd="/tmp"), "args",
     f"args, cwd are for a command; {URL} is a URL"),
    ("StrictTransport: a command and headers", lambda: StrictTransport(PY, headers={"A": "b"}), "headers",
     "headers are for a URL; the target is a command"),
    ("StrictTransport: an empty command", lambda: StrictTransport([]), "target",
     "the server command is empty: target is []"),
    ("StrictTransport: an empty command string", lambda: StrictTransport(""), "target",
     "the server command is empty: target is ''"),
    ("Agents: max_retry_attempts -1", lambda: StrictMCPServerStdio(CMD, max_retry_attempts=-1),
     "max_retry_attempts", "max_retry_attempts=-1 (retry forever) is not allowed on a strict server: give the most "
     "times a call may run again"),
    ("Agents: max_retry_attempts a string", lambda: StrictMCPServerStdio(CMD, max_retry_attempts="2"),
     "max_retry_attempts", "max_retry_attempts must be a whole number of retries >= 0, not '2'"),
    ("Agents: retry_backoff_seconds_base inf",
     lambda: StrictMCPServerStdio(CMD, retry_backoff_seconds_base=float("inf")),
     "retry_backoff_seconds_base", "retry_backoff_seconds_base must be a finite number of seconds >= 0, not inf"),
    ("Agents: retry_backoff_seconds_max a string", lambda: StrictMCPServerStdio(CMD, retry_backoff_seconds_max="8"),
     "retry_backoff_seconds_max", "retry_backoff_seconds_max must be a finite number of seconds >= 0, not '8'"),
    ("strict_toolset: process_tool_call taking three", lambda: strict_toolset(URL, process_tool_call=three),  # type: ignore[arg-type]
     "process_tool_call", "process_tool_call must be an async callable (a process_tool_call hook) or None taking "
     "(ctx, call_tool, name, tool_args); <function three at"),
    ("verdict_process_tool_call: inner taking five", lambda: verdict_process_tool_call(five),  # type: ignore[arg-type]
     "process_tool_call", "process_tool_call must be an async callable (a process_tool_call hook) or None taking "
     "(ctx, call_tool, name, tool_args); <function five at"),
    # 2. the Agents servers' params: checked here, never the SDK's ValidationError
    ("Agents stdio: command a number", lambda: StrictMCPServerStdio({"command": 5}), "params.command",
     "params.command must be the command to run (a non-empty string), not 5"),
    ("Agents stdio: command empty", lambda: StrictMCPServerStdio({"command": ""}), "params.command",
     "params.command must be the command to run (a non-empty string), not ''"),
    ("Agents stdio: command a list", lambda: StrictMCPServerStdio({"command": ["python", "-V"]}), "params.command",
     "params.command must be the command to run (a non-empty string), not ['python', '-V']"),
    ("Agents stdio: args a string", stdio(args="-V"), "params.args",
     "params.args must be a list or tuple of strings, not '-V'"),
    ("Agents stdio: args holding a number", stdio(args=["-c", 1]), "params.args[1]",
     "params.args[1] must be a string, not 1"),
    ("Agents stdio: env a list", stdio(env=["A=1"]), "params.env",
     "params.env must be a mapping of strings to strings or None, not ['A=1']"),
    ("Agents stdio: env holding a number", stdio(env={"A": 1}), "params.env['A']",
     "params.env['A'] must be a string, not 1"),
    ("Agents stdio: cwd a number", stdio(cwd=5), "params.cwd",
     "params.cwd must be a path (a string or path-like) or None, not 5"),
    ("Agents stdio: encoding a number", stdio(encoding=8), "params.encoding",
     "params.encoding must be the name of a text encoding (a string such as 'utf-8'), not 8"),
    ("Agents stdio: encoding unknown", stdio(encoding="utf-9"), "params.encoding",
     "params.encoding must be the name of a text encoding (a string such as 'utf-8'), not 'utf-9'"),
    ("Agents stdio: encoding_error_handler unknown", stdio(encoding_error_handler="skip"),
     "params.encoding_error_handler",
     "params.encoding_error_handler is 'strict' or 'ignore' or 'replace', not 'skip'"),
    ("Agents HTTP: url a number", lambda: StrictMCPServerStreamableHttp({"url": 5}), "params.url",
     "params.url must be the server's http(s):// URL (a string), not 5"),
    ("Agents HTTP: url no http(s) URL", lambda: StrictMCPServerStreamableHttp({"url": "ftp://x"}), "params.url",
     "params.url must be the server's http(s):// URL (a string), not 'ftp://x'"),
    ("Agents HTTP: headers a list", http(headers=[("A", "b")]), "params.headers",
     "params.headers must be a mapping of strings to strings or None, not [('A', 'b')]"),
    ("Agents HTTP: headers holding a number", http(headers={"A": 1}), "params.headers['A']",
     "params.headers['A'] must be a string, not 1"),
    ("Agents HTTP: timeout a string", http(timeout="5"), "params.timeout",
     f"params.timeout must be {SECONDS}, not '5'"),
    ("Agents HTTP: timeout inf", http(timeout=float("inf")), "params.timeout", f"params.timeout must be {SECONDS}, "
     "not inf"),
    ("Agents HTTP: sse_read_timeout a negative timedelta", http(sse_read_timeout=timedelta(seconds=-1)),
     "params.sse_read_timeout", f"params.sse_read_timeout must be {SECONDS}, not datetime.timedelta(days=-1, "
     "seconds=86399)"),
    ("Agents HTTP: terminate_on_close a string", http(terminate_on_close="yes"), "params.terminate_on_close",
     "params.terminate_on_close must be True or False, not 'yes'"),
    # 4. values whose own methods raise: an OptionError, never the object's exception
    ("StrictTransport: env a mapping that raises", lambda: StrictTransport(PY, env=RaisingMapping()), "env",
     "env must be a mapping of strings to strings or None; reading <RaisingMapping object; its repr raised Boom> "
     "raised Boom: boom"),
    ("StrictTransport: headers a dict whose reading raises", lambda: StrictTransport(URL, headers=RaisingDict(a="b")),
     "headers", "headers must be a mapping of strings to strings or None; reading {'a': 'b'} raised Boom: boom"),
    ("StrictTransport: args a list whose iteration raises", lambda: StrictTransport("python", RaisingList(["x"])),
     "args", "args must be a list or tuple of strings; reading ['x'] raised Boom: boom"),
    ("strict_toolset: args whose __eq__ raises, with a StrictTransport",
     lambda: strict_toolset(StrictTransport(URL), RaisingList()), "args",
     "args, given with a StrictTransport, would be ignored: give it to the StrictTransport"),
    ("strict_toolset: trusted_server whose __eq__ and truth raise",
     lambda: strict_toolset(URL, trusted_server=RaisingBool()), "trusted_server",  # type: ignore[arg-type]
     "trusted_server must be True or False, not <tests.raising.RaisingBool object at"),
    ("Agents stdio: params a mapping that raises", lambda: StrictMCPServerStdio(RaisingMapping()), "params",
     "params must be a mapping of the server's parameters (with 'command'); reading <RaisingMapping object; its repr "
     "raised Boom> raised Boom: boom"),
    ("Agents stdio: env a mapping that raises", stdio(env=RaisingMapping()), "params.env",
     "params.env must be a mapping of strings to strings or None; reading <RaisingMapping object; its repr raised "
     "Boom> raised Boom: boom"),
    ("Agents: max_retry_attempts an int subclass whose comparisons raise",
     lambda: StrictMCPServerStdio(CMD, max_retry_attempts=RaisingInt(-2)), "max_retry_attempts",
     "max_retry_attempts must be a whole number of retries >= 0, not -2"),
    ("Agents: retry_backoff_seconds_base a float subclass whose comparisons raise",
     lambda: StrictMCPServerStdio(CMD, retry_backoff_seconds_base=RaisingFloat(-1.0)), "retry_backoff_seconds_base",
     "retry_backoff_seconds_base must be a finite number of seconds >= 0, not -1.0"),
]


@pytest.mark.parametrize(("case", "make", "option", "message"), WRONG, ids=[row[0] for row in WRONG])
def test_a_hostile_option_is_an_option_error_naming_it(case: str, make: Callable[[], Any], option: str,
                                                       message: str) -> None:
    with pytest.raises(OptionError) as caught:
        make()
    assert caught.value.option == option
    assert str(caught.value).startswith(message)
    assert len(str(caught.value)) <= 400  # bounded, whatever the value


# right values the checks must still take (the SDK's own forms included)
RIGHT: list[tuple[str, Callable[[], Any]]] = [
    ("Agents stdio: args a tuple, env, cwd, encoding and handler",
     stdio(args=("-c", "pass"), env={"A": "1"}, cwd="/tmp", encoding="latin-1", encoding_error_handler="replace")),
    ("Agents stdio: env None", stdio(env=None)),
    ("strict_toolset: a process_tool_call hook of four and a default",
     lambda: strict_toolset(URL, process_tool_call=hook)),
    ("Agents HTTP: timeouts as a timedelta and a number, headers", http(timeout=timedelta(seconds=5),
                                                                          sse_read_timeout=30, headers={"A": "b"},
                                                                          terminate_on_close=False)),
    ("Agents HTTP: an HTTPS URL in capitals", lambda: StrictMCPServerStreamableHttp({"url": "HTTPS://example.com/mcp"})),
    ("Agents: retry settings as int and float subclasses",
     lambda: StrictMCPServerStdio(CMD, max_retry_attempts=RaisingInt(2), retry_backoff_seconds_base=RaisingFloat(0.5))),
    ("StrictTransport: RetryPolicy of subclassed numbers",
     lambda: StrictTransport(PY, retry=RetryPolicy(RaisingInt(2), RaisingFloat(0.5), RaisingFloat(4.0)))),
]


@pytest.mark.parametrize(("case", "make"), RIGHT, ids=[row[0] for row in RIGHT])
def test_right_values_are_taken(case: str, make: Callable[[], Any]) -> None:
    assert make() is not None


def test_the_agents_stdio_server_holds_its_checked_params() -> None:
    """What the tap's stdio transport is given: the checked params, the args as a list."""
    server = StrictMCPServerStdio({**CMD, "args": ("-c", "pass"), "env": {"A": "1"}})
    assert (server._stdio["command"], server._stdio["args"], server._stdio["env"]) == (
        sys.executable, ["-c", "pass"], {"A": "1"})
    assert (server.max_retry_attempts, type(StrictMCPServerStdio(CMD, max_retry_attempts=RaisingInt(2))._retries)) == (
        0, int)
