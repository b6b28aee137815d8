"""langchain-mcp-adapters: the connection's ``httpx_client_factory``, a tool-call interceptor,
and a stdio session read as bytes (extra ``[langchain]``; the adapters pin ``mcp<2``, so this
runs beside the SDK's 1.x line)::

    tap = VerdictTap()
    client = MultiServerMCPClient(
        {"notes": {"transport": "streamable_http", "url": url, "httpx_client_factory": tap.httpx_client_factory}},
        tool_interceptors=[VerdictInterceptor(tap)])
    tools = await client.get_tools()

    async with stdio_session(tap, "python", ["server.py"]) as session:      # stdio, read as bytes
        tools = await load_mcp_tools(session, tool_interceptors=[VerdictInterceptor(tap)])

- an ``unclassified`` answer (``isError: "false"``, a duplicated ``isError``, an unknown
  ``resultType``, a broken frame, a timeout) reaches the model as ``ToolMessage(status="error")``
  with the reason — the adapters would hand it the content as a success;
  ``on_unclassified="raise"`` raises the :class:`~mcp_verdict.VerdictError` instead;
- a failure whose effect is unknown (a write that timed out after it was sent) says so: check the
  state before calling again;
- a complete answer the content check did not accept (text that reports a failure without
  ``isError``, a failed ``expect``, structuredContent that breaks the outputSchema) reaches the
  model as ``ToolMessage(status="error")`` with the reason too: only an accepted call is a success;
- a tool error stays the adapters' ``ToolMessage(status="error")``; any other protocol error
  stays the SDK's ``McpError``.

The adapters open a new session per tool call when given a connection: the interceptor judges
the call on the connection the factory opened for it; with a session (``stdio_session``), by the
request id the session gave the call.
"""

from __future__ import annotations

from .._extras import require

require("langchain", "mcp_verdict.integrations.langchain")

import importlib  # noqa: E402 - after the extra is checked
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence  # noqa: E402
from contextlib import asynccontextmanager  # noqa: E402
from typing import Any, Literal  # noqa: E402

from ..judgement._check import Expectation  # noqa: E402
from ..judgement._decide import DEFAULT_RETRY, RetryPolicy  # noqa: E402
from ..tap import VerdictError, VerdictTap  # noqa: E402
from ..verdict._classify import OptionError  # noqa: E402
from ._policy import (  # noqa: E402
    checked_cwd,
    judge_options,
    model_message,
    one_of,
    refusal,
    refused,
    retry_policy,
    run_judged,
    strings,
    text_mapping,
)

__all__ = ["VerdictInterceptor", "connection", "stdio_session"]


class VerdictInterceptor:
    """A langchain-mcp-adapters ``ToolCallInterceptor`` that judges each call through ``tap``.

    ``retry``: the policy ``decide`` follows (default ``DEFAULT_RETRY``: 3 attempts, 0.5 s
    doubled, at most 8 s); the interceptor runs each call once, as the adapters do, so a
    ``retry`` decision is the model's or the application's to act on (the message says nothing
    ran the call again, and when it may be called again); ``RetryPolicy(max_attempts=1)`` decides
    no retry."""

    def __init__(self, tap: VerdictTap, *, trusted_server: bool = False,
                 expect: Expectation | Sequence[Expectation] | None = None,
                 on_unclassified: Literal["error", "raise"] = "error", retry: RetryPolicy = DEFAULT_RETRY) -> None:
        self.on_unclassified = one_of("on_unclassified", on_unclassified, ("error", "raise"))
        self.retry = retry_policy(retry)
        self.tap = _tap(tap)
        self._judge = judge_options(trusted_server, expect)
        types = importlib.import_module("mcp.types")
        self._result, self._text = types.CallToolResult, types.TextContent

    async def __call__(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        outcome, result, judged = await run_judged(self.tap, None, request.name, lambda: handler(request),
                                                   retry=self.retry, run_again=False,
                                                   judge_options=self._judge)
        if refused(outcome):
            if self.on_unclassified == "raise":
                raise VerdictError(outcome, refusal(outcome), response=judged.calls[-1].response)
            return self._result(content=[self._text(type="text", text=model_message(outcome))], isError=True)
        if judged.error is not None:
            raise judged.error
        return result


def _tap(tap: object) -> VerdictTap:
    if not isinstance(tap, VerdictTap):
        raise OptionError("tap", "a VerdictTap", tap)
    return tap


def connection(tap: VerdictTap, url: str, **options: Any) -> dict[str, Any]:
    """A ``streamable_http`` connection for ``MultiServerMCPClient`` recorded by ``tap``. Its
    ``httpx_client_factory`` is the tap's: one given in ``options`` is an OptionError, never
    dropped (with its settings) without a word."""
    _tap(tap)
    if not isinstance(url, str):
        raise OptionError("url", "a string (the server's http(s):// URL)", url)
    if options.get("httpx_client_factory") is not None:
        raise OptionError("httpx_client_factory", "not given (the connection's HTTP clients are the tap's)",
                          options["httpx_client_factory"],
                          "httpx_client_factory, given to connection(), would be ignored: the connection's HTTP "
                          "clients are the tap's, which record each exchange (give the client's settings as "
                          "headers, timeout or auth)")
    return {"transport": "streamable_http", "url": url, **options, "httpx_client_factory": tap.httpx_client_factory}


@asynccontextmanager
async def stdio_session(tap: VerdictTap, command: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None,
                        *, cwd: str | None = None, **session_kwargs: Any) -> AsyncIterator[Any]:
    """An initialized ``ClientSession`` over the tap's stdio transport (for ``load_mcp_tools``)."""
    _tap(tap)
    if not isinstance(command, str):
        raise OptionError("command", "a string", command)
    arguments = strings("args", args, paths=True)
    env = text_mapping("env", env)
    checked_cwd("cwd", cwd)
    session_class = importlib.import_module("mcp").ClientSession
    async with tap.stdio_transport(command, arguments, env, cwd=cwd) as (read_stream, write_stream), \
            session_class(read_stream, write_stream, **session_kwargs) as session:
        await session.initialize()
        yield session
