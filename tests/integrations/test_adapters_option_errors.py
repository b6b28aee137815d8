"""A wrong option of an adapter or of ``mcp_verdict.otel`` is the caller's mistake: an
``OptionError`` (a ValueError naming the option, its value written bounded) when the object is
made or the function is called, before any connection. Before, most of them were taken as given
and failed later, or failed at once with an error of no use to the caller:

- ``StrictTransport``'s and the Agents SDK servers' ``tap``, ``trusted_server`` and ``expect``
  were kept, and the first call judged raised (inside the transport) or an ``AttributeError``
  came out; a wrong ``target``, ``args`` or ``headers`` was a ``TypeError`` from unpacking, an
  ``args`` that never ends read forever, a string ``args`` split into one argument per character;
- the Agents servers' ``params`` not a mapping was a ``TypeError``, one without its
  ``command``/``url`` the SDK's ``KeyError``; ``retry_backoff_seconds_max`` of no number the SDK's
  ``TypeError``; an ``httpx_client_factory`` in the HTTP server's ``params`` was dropped without
  a word (the server's clients are its tap's), the caller's TLS, proxy and hook settings with it;
- ``on_unclassified`` written with ``repr``: a list nested deep raised ``RecursionError``, an
  integer past the digit limit a ValueError about the digit limit;
- ``otel.instrument`` took a tap of no kind (``AttributeError``) and a tracer provider of no kind,
  which failed when the first verdict's span was made, inside the transport's read.

The real libraries (FastMCP, pydantic-ai, the Agents SDK, OpenTelemetry); making the objects
needs no server. The messages and the options they name are written by hand.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from typing import Any

import pytest

from mcp_verdict import OptionError, VerdictTap, classify, evaluate
from mcp_verdict.integrations.fastmcp import StrictTransport
from mcp_verdict.integrations.openai_agents import StrictMCPServerStdio, StrictMCPServerStreamableHttp
from mcp_verdict.integrations.pydantic_ai import strict_toolset, verdict_process_tool_call
from mcp_verdict.otel import instrument, record

from ..hostile import nested_list

URL = "http://127.0.0.1:1/mcp"
PY = [sys.executable, "-c", "pass"]
TARGET = "an http(s):// URL or a command (a string, or a list or tuple of strings)"
DEEP = "[" * 77 + "..."
BIG = "<an integer of about 5000 digits>"
EXPECT = ("an expectation (a JSON Schema (a dict or a bool), a pydantic model class, a pydantic TypeAdapter or a "
          "plain (not async) callable taking the verdict), a list or tuple of them, or None")

# how the object is made → the OptionError's option and message (by hand)
OUTCOME = evaluate(classify(b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}', request_id=1,
                            version="2025-11-25"))
"""A judged call to record on a span."""

WRONG: list[tuple[str, Callable[[], Any], str, str]] = [
    ("StrictTransport: target a number", lambda: StrictTransport(5), "target",  # type: ignore[arg-type]
     f"target must be {TARGET}, not 5"),
    ("StrictTransport: target an integer past the digit limit", lambda: StrictTransport(10**5000),  # type: ignore[arg-type]
     "target", f"target must be {TARGET}, not {BIG}"),
    ("StrictTransport: a command holding a number", lambda: StrictTransport(["python", 3]),  # type: ignore[list-item]
     "target[1]", "target[1] must be a string, not 3"),
    ("StrictTransport: args a string", lambda: StrictTransport("python", "server.py"), "args",
     "args must be a list or tuple of strings, not 'server.py'"),
    ("StrictTransport: args that never end", lambda: StrictTransport("python", itertools.repeat("x")),  # type: ignore[arg-type]
     "args", "args must be a list or tuple of strings, not repeat('x')"),
    ("StrictTransport: args None", lambda: StrictTransport("python", None), "args",  # type: ignore[arg-type]
     "args must be a list or tuple of strings, not None"),
    ("StrictTransport: env a string", lambda: StrictTransport(PY, env="A=1"), "env",  # type: ignore[arg-type]
     "env must be a mapping of strings to strings or None, not 'A=1'"),
    ("StrictTransport: env holding a number", lambda: StrictTransport(PY, env={"A": 1}), "env['A']",  # type: ignore[dict-item]
     "env['A'] must be a string, not 1"),
    ("StrictTransport: cwd a number", lambda: StrictTransport(PY, cwd=3), "cwd",  # type: ignore[arg-type]
     "cwd must be a path (a string or path-like) or None, not 3"),
    ("StrictTransport: headers a number", lambda: StrictTransport(URL, headers=5), "headers",  # type: ignore[arg-type]
     "headers must be a mapping of strings to strings or None, not 5"),
    ("StrictTransport: headers a list", lambda: StrictTransport(URL, headers=[1]), "headers",  # type: ignore[arg-type]
     "headers must be a mapping of strings to strings or None, not [1]"),
    ("StrictTransport: tap a string", lambda: StrictTransport(URL, tap="tap"), "tap",  # type: ignore[arg-type]
     "tap must be a VerdictTap or None, not 'tap'"),
    ("StrictTransport: trusted_server a string", lambda: StrictTransport(URL, trusted_server="yes"),  # type: ignore[arg-type]
     "trusted_server", "trusted_server must be True or False, not 'yes'"),
    ("StrictTransport: trusted_server nested deep", lambda: StrictTransport(URL, trusted_server=nested_list()),  # type: ignore[arg-type]
     "trusted_server", f"trusted_server must be True or False, not {DEEP}"),
    ("StrictTransport: expect a number", lambda: StrictTransport(URL, expect=42), "expect",
     f"expect must be {EXPECT}, not 42"),
    ("StrictTransport: expect a schema that cannot be used", lambda: StrictTransport(URL, expect={"type": 7}),
     "expect", "expect is a JSON Schema that cannot be used: at /type: the schema is invalid: 7 is not valid under "
     "any of the schemas listed in the 'anyOf' keyword"),
    ("strict_toolset: trusted_server a string", lambda: strict_toolset(URL, trusted_server="no"),  # type: ignore[arg-type]
     "trusted_server", "trusted_server must be True or False, not 'no'"),
    ("strict_toolset: on_unclassified nested deep", lambda: strict_toolset(URL, on_unclassified=nested_list()),  # type: ignore[arg-type]
     "on_unclassified", f"on_unclassified is 'fail' or 'raise', not {DEEP}"),
    ("strict_toolset: on_unclassified past the digit limit",
     lambda: strict_toolset(URL, on_unclassified=10**5000),  # type: ignore[arg-type]
     "on_unclassified", f"on_unclassified is 'fail' or 'raise', not {BIG}"),
    ("strict_toolset: process_tool_call a string", lambda: strict_toolset(URL, process_tool_call="hook"),  # type: ignore[arg-type]
     "process_tool_call", "process_tool_call must be an async callable (a process_tool_call hook) or None, "
     "not 'hook'"),
    ("verdict_process_tool_call: inner a number", lambda: verdict_process_tool_call(5),  # type: ignore[arg-type]
     "process_tool_call", "process_tool_call must be an async callable (a process_tool_call hook) or None, not 5"),
    ("StrictMCPServerStdio: params a list", lambda: StrictMCPServerStdio([1]),  # type: ignore[arg-type]
     "params", "params must be a mapping of the server's parameters (with 'command'), not [1]"),
    ("StrictMCPServerStdio: params without a command", lambda: StrictMCPServerStdio({}), "params.command",
     "params must give 'command'"),
    ("StrictMCPServerStdio: tap a string", lambda: StrictMCPServerStdio({"command": "python"}, tap="t"),  # type: ignore[arg-type]
     "tap", "tap must be a VerdictTap or None, not 't'"),
    ("StrictMCPServerStdio: trusted_server None",
     lambda: StrictMCPServerStdio({"command": "python"}, trusted_server=None),  # type: ignore[arg-type]
     "trusted_server", "trusted_server must be True or False, not None"),
    ("StrictMCPServerStdio: expect a number", lambda: StrictMCPServerStdio({"command": "python"}, expect=1),
     "expect", f"expect must be {EXPECT}, not 1"),
    ("StrictMCPServerStreamableHttp: params None", lambda: StrictMCPServerStreamableHttp(None),  # type: ignore[arg-type]
     "params", "params must be a mapping of the server's parameters (with 'url'), not None"),
    ("StrictMCPServerStreamableHttp: params without a url", lambda: StrictMCPServerStreamableHttp({}),
     "params.url", "params must give 'url'"),
    # the strict server's HTTP clients are its tap's: a factory of the caller's was dropped
    # without a word, its settings (TLS, proxies, event hooks) with it, and the server connected anyway
    ("StrictMCPServerStreamableHttp: an httpx_client_factory of the caller's",
     lambda: StrictMCPServerStreamableHttp({"url": URL, "httpx_client_factory": VerdictTap().http_client}),
     "params.httpx_client_factory",
     "params.httpx_client_factory, given to a strict server, would be ignored: its HTTP clients are its tap's, "
     "which record each exchange (give the client's settings as params.headers, params.timeout or params.auth)"),
    ("StrictMCPServerStreamableHttp: tap a dict", lambda: StrictMCPServerStreamableHttp({"url": URL}, tap={}),  # type: ignore[arg-type]
     "tap", "tap must be a VerdictTap or None, not {}"),
    ("instrument: tap a string", lambda: instrument("tap"), "tap",  # type: ignore[arg-type]
     "tap must be a VerdictTap, not 'tap'"),
    ("instrument: tracer_provider a string", lambda: instrument(VerdictTap(), tracer_provider="otel"),
     "tracer_provider", "tracer_provider must be an OpenTelemetry TracerProvider or None, not 'otel'"),
    ("record: outcome None", lambda: record(None), "outcome",  # type: ignore[arg-type]
     "outcome must be an Outcome, not None"),
    # the span's jsonrpc.request.id is its text: an id whose text Python refuses to write raised
    # ValueError from inside the span's attributes; one of no id type was written as its repr
    ("record: request_id an int of 5000 digits", lambda: record(OUTCOME, request_id=10**5000), "request_id",
     "request_id must be an integer of at most Python's digit limit, not <an integer of about 5000 digits>"),
    ("record: request_id a float", lambda: record(OUTCOME, request_id=1.5), "request_id",
     "request_id must be a string, an integer or None, not 1.5"),
]


@pytest.mark.parametrize(("case", "make", "option", "message"), WRONG, ids=[row[0] for row in WRONG])
def test_a_wrong_option_is_refused_when_the_object_is_made(case: str, make: Callable[[], Any], option: str,
                                                           message: str) -> None:
    with pytest.raises(OptionError) as caught:
        make()
    assert (caught.value.option, str(caught.value)) == (option, message)


# settings the Agents SDK checks with a TypeError of its own → the strict server's ValueError (by hand)
WRONG_AGENTS: list[tuple[str, dict[str, Any], str]] = [
    ("retry_backoff_seconds_max a string", {"retry_backoff_seconds_max": "8"},
     "retry_backoff_seconds_max must be a finite number of seconds >= 0, not '8'"),
    ("max_retry_attempts nested deep", {"max_retry_attempts": nested_list()},
     f"max_retry_attempts must be a whole number of retries >= 0, not {DEEP}"),
]


@pytest.mark.parametrize(("case", "options", "message"), WRONG_AGENTS, ids=[row[0] for row in WRONG_AGENTS])
def test_a_wrong_agents_retry_setting_is_a_value_error(case: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        StrictMCPServerStdio({"command": sys.executable}, **options)
    assert str(caught.value) == message


# options that are right → made (the defaults of the other kind of target stay allowed)
RIGHT: list[tuple[str, Callable[[], Any]]] = [
    ("a URL with empty args", lambda: StrictTransport(URL, [])),
    ("a command tuple and env", lambda: StrictTransport(("python", "server.py"), env={"A": "1"}, cwd="/tmp")),
    ("a command with empty headers", lambda: StrictTransport(PY, headers={})),
    ("a shared tap and a schema", lambda: StrictTransport(URL, tap=VerdictTap(), expect={"type": "object"})),
]


@pytest.mark.parametrize(("case", "make"), RIGHT, ids=[row[0] for row in RIGHT])
def test_right_options_are_taken(case: str, make: Callable[[], Any]) -> None:
    assert make() is not None
