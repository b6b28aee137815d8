"""FastMCP: a strict transport for ``fastmcp.Client``, and a middleware for FastMCP proxies.

``StrictTransport(url_or_command, ...)`` is a FastMCP client transport (Streamable HTTP for an
``http(s)://`` URL, else stdio for a command) whose sessions judge every ``tools/call`` from its
exact bytes through the tap::

    async with fastmcp.Client(StrictTransport("http://127.0.0.1:8000/mcp")) as client:
        await client.call_tool("get_forecast", {"city": "Lisbon"})   # VerdictError if unclassified

- an ``unclassified`` answer (``isError: "false"``, a duplicated ``isError``, an unknown
  ``resultType``, a broken frame, a timeout) raises :class:`~mcp_verdict.VerdictError` from
  ``call_tool`` and ``call_tool_mcp`` — also with ``raise_on_error=False``, which would hand the
  application the lenient parse as a plain result;
- so does a protocol error whose effect is unknown (-32603 after a write was sent: the decision is
  ``check_state``), and a complete answer the content check did not accept (text that reports a
  failure without ``isError``, a failed ``expect``, structuredContent that breaks the
  outputSchema): only an accepted call is a success; a tool error stays FastMCP's ``ToolError``,
  any other protocol error the SDK's ``MCPError`` (its outcome known to the pydantic-ai adapter,
  which re-runs it only when ``decide`` allows);
- ``input_required`` goes to FastMCP's own handlers (elicitation, sampling) as before: each round
  is judged, and the final round decides.

FastMCP's proxy (``create_proxy``) re-serialises what the upstream answered, so a malformed
upstream answer reaches its clients as a clean success. ``create_proxy(StrictTransport(...))``
refuses it upstream, and :class:`VerdictMiddleware` on the proxy turns the refusal into a
JSON-RPC error for the downstream client (code :data:`UPSTREAM_REFUSED`, -31000, the proxy's
code for the same thing, and the same ``data``: the verdict's kind, version and findings, the
decision and the digest of the upstream bytes) instead of the
``isError`` text FastMCP would make of it.
"""

from __future__ import annotations

from .._extras import require

require("fastmcp", "mcp_verdict.integrations.fastmcp")

import contextlib  # noqa: E402 - after the extra is checked
import dataclasses  # noqa: E402
from collections.abc import AsyncIterator, Mapping, Sequence  # noqa: E402
from typing import Any, Final  # noqa: E402

from fastmcp.client.transports import ClientTransport, StreamableHttpTransport  # noqa: E402
from fastmcp.client.transports.base import TransportOptions  # noqa: E402
from fastmcp.server.middleware import Middleware  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from ..frames._refusal import REFUSED, verdict_data  # noqa: E402
from ..judgement._check import Expectation  # noqa: E402
from ..judgement._decide import DEFAULT_RETRY, RetryPolicy  # noqa: E402
from ..tap import VerdictError, VerdictTap  # noqa: E402
from ..tap._block import WriteProxy  # noqa: E402
from ..verdict._classify import OptionError  # noqa: E402
from ..verdict._shown import shown  # noqa: E402
from ._policy import (  # noqa: E402
    checked_cwd,
    checked_tap,
    judge_options,
    refusal,
    refused,
    remember,
    retry_policy,
    run_judged,
    strings,
    text_mapping,
)

__all__ = ["UPSTREAM_REFUSED", "StrictTransport", "VerdictMiddleware"]

UPSTREAM_REFUSED: Final = REFUSED
"""The JSON-RPC error code the middleware answers with: -31000, the code the proxy answers a
refused upstream answer with (``frames/_refusal``: outside the range JSON-RPC reserves, as the MCP
spec asks of codes an implementation allocates)."""
_SOURCE: Final = "mcp-verdict fastmcp"
_TARGET: Final = "an http(s):// URL or a command (a string, or a list or tuple of strings)"


def _strict_session(base: type[Any], tap: VerdictTap, conn: dict[str, str], judge_options: Mapping[str, Any],
                    retry: RetryPolicy) -> type[Any]:
    """``base`` (FastMCP's session class for this connection) judging its tools/call."""

    class StrictSession(base):  # type: ignore[misc]
        def __init__(self, read_stream: Any, write_stream: Any, *args: Any, **kwargs: Any) -> None:
            if not isinstance(write_stream, WriteProxy):
                write_stream = tap.write_stream(write_stream, conn.get("id"))
            super().__init__(read_stream, write_stream, *args, **kwargs)

        async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> Any:
            stock = super().call_tool
            outcome, result, judged = await run_judged(tap, self, name, lambda: stock(name, arguments, *args,
                                                                                    **kwargs),
                                                       retry=retry, run_again=False,
                                                       judge_options=judge_options)
            if refused(outcome):
                raise VerdictError(outcome, refusal(outcome), response=judged.calls[-1].response)
            if judged.error is not None:
                remember(judged.error, outcome, judged.calls[-1].response)  # for a stack over this client
                raise judged.error  # a protocol error: the SDK's own MCPError, as FastMCP expects
            return result

    StrictSession.__name__ = StrictSession.__qualname__ = f"Strict{base.__name__}"
    return StrictSession


def _given(value: object) -> bool:
    """Whether an option of the other kind of target was given: not None, nor empty (as its
    default is); read without calling the value's own ``__bool__`` or ``__len__``."""
    if value is None:
        return False
    return not (type(value) in (str, list, tuple, dict) and not value)


class StrictTransport(ClientTransport):
    """A FastMCP client transport whose calls are judged (see the module docstring).

    ``target``: an ``http(s)://`` URL (Streamable HTTP; ``headers`` and ``auth`` are for it) or a
    command (a string, then ``args``, or a list; ``env`` and ``cwd`` are for it): an option of the
    other kind is an ``OptionError`` (a ValueError), never dropped. ``tap``: share one tap (a frame log, several
    transports); by default each transport has its own. ``trusted_server`` and ``expect`` go to
    every judgement. ``retry``: the policy ``decide`` follows (default ``DEFAULT_RETRY``: 3
    attempts, 0.5 s doubled, at most 8 s); the transport runs each call once, as FastMCP does, so
    a ``retry`` decision is the application's to act on (the error says nothing ran the call
    again, and when it may be called again); ``RetryPolicy(max_attempts=1)`` decides no retry.
    """

    def __init__(self, target: str | Sequence[str], args: Sequence[str] = (), *, env: Mapping[str, str] | None = None,
                 cwd: str | None = None, headers: Mapping[str, str] | None = None, auth: Any = None,
                 tap: VerdictTap | None = None, trusted_server: bool = False,
                 expect: Expectation | Sequence[Expectation] | None = None,
                 retry: RetryPolicy = DEFAULT_RETRY) -> None:
        # every option checked here, before any connection (an OptionError naming it), never by
        # the first call judged or inside the transport
        self.retry = retry_policy(retry)
        chosen = checked_tap(tap)
        self._judge = judge_options(trusted_server, expect)
        self.url: str | None = None
        self.command: list[str] = []
        if isinstance(target, str) and target[:8].lower().startswith(("http://", "https://")):  # schemes: any case
            scheme, rest = target.split(":", 1)
            self.url = f"{scheme.lower()}:{rest}"  # FastMCP's HTTP transport reads the scheme in lower case
            given = {name: value for name, value in (("args", args), ("env", env), ("cwd", cwd)) if _given(value)}
            if given:
                shown_url = target if len(target) <= 200 else shown(target, 200)
                first = next(iter(given))
                raise OptionError(first, "not given with a URL (it is for a command)", given[first],
                                  f"{', '.join(given)} are for a command; {shown_url} is a URL")
            self._headers = dict(text_mapping("headers", headers) or {})
            held_env = None
        else:
            given = {name: value for name, value in (("headers", headers), ("auth", auth)) if _given(value)}
            if given:
                first = next(iter(given))
                raise OptionError(first, "not given with a command (it is for a URL)", given[first],
                                  f"{', '.join(given)} are for a URL; the target is a command")
            if not isinstance(target, str) and not isinstance(target, (list, tuple)):
                raise OptionError("target", _TARGET, target)
            self.command = [target, *strings("args", args, paths=True)] if isinstance(target, str) \
                else [*strings("target", target, paths=True), *strings("args", args, paths=True)]
            if not self.command or (isinstance(self.command[0], str) and not str.__len__(self.command[0])):
                raise OptionError("target", _TARGET, target, f"the server command is empty: target is {shown(target)}")
            held_env = text_mapping("env", env)
            checked_cwd("cwd", cwd)
            self._headers = {}
        self.tap = chosen if chosen is not None else VerdictTap(name="fastmcp")
        self._env, self._cwd = held_env, cwd
        self._auth = auth

    @contextlib.asynccontextmanager
    async def connect_session(self, *, transport_options: TransportOptions | None = None,
                              **session_kwargs: Any) -> AsyncIterator[Any]:
        options = transport_options or TransportOptions()
        conn: dict[str, str] = {}
        session_class = _strict_session(options.session_class, self.tap, conn, self._judge, self.retry)
        options = dataclasses.replace(options, session_class=session_class)
        if self.url is not None:
            def factory(headers: Any = None, timeout: Any = None, auth: Any = None, **kwargs: Any) -> Any:
                client = self.tap.httpx_client_factory(headers=headers, timeout=timeout, auth=auth, **kwargs)
                conn["id"] = client.mcp_verdict_conn
                return client

            inner = StreamableHttpTransport(self.url, headers=self._headers, auth=self._auth,
                                            httpx_client_factory=factory)
            async with inner.connect_session(transport_options=options, **session_kwargs) as session:
                yield session
            return
        async with self.tap.stdio_transport(self.command[0], self.command[1:], self._env, cwd=self._cwd) \
                as (read_stream, write_stream), session_class(read_stream, write_stream, **session_kwargs) as session:
            yield session

    def __repr__(self) -> str:
        return f"<StrictTransport({self.url or ' '.join(self.command)!r})>"


def _verdict_error(error: BaseException) -> VerdictError | None:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, VerdictError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


class VerdictMiddleware(Middleware):
    """On a FastMCP proxy over :class:`StrictTransport`: an upstream answer the verdict refused
    reaches the downstream client as a JSON-RPC error naming the verdict, never as a result."""

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        try:
            return await call_next(context)
        except Exception as exc:
            refused = _verdict_error(exc)
            if refused is None:
                raise
            data = verdict_data(refused.verdict, refused.response, source=_SOURCE,
                                decision=refused.decision.action.value)
            raise MCPError(code=UPSTREAM_REFUSED, message=f"mcp-verdict refused the upstream answer: {refused}",
                           data=data) from exc

