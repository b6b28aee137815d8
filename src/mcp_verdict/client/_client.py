"""VerdictClient: calls tools and returns outcomes, judged from the bytes on the wire.

The official SDK (``mcp.Client``) is the protocol engine: transports, version negotiation
(``server/discover`` with the 2026-07-28 per-request ``_meta`` and headers, or the
``initialize`` handshake for 2025 servers), ``x-mcp-header`` handling and HTTP auth hooks.
Every frame passes through a recording transport first, and the verdict of each round is
``classify`` of the answer's raw bytes — never the SDK's leniently parsed objects, which turn
``isError: "false"`` into success and keep the last of duplicated keys.

Connecting (``mode``): ``auto`` probes ``server/discover`` and, when the probe fails in any
way, falls back to ``initialize`` — on the same connection when it is still up, else on a new
one (a stdio server that died on the probe is started again); ``modern`` insists on
``server/discover``; ``legacy`` only does ``initialize``. Each step is bounded by ``timeout``;
a failure to connect is one :class:`~mcp_verdict.client.CannotConnect` naming its cause.

``tools/list`` is sent raw and read from its bytes: tools are kept exactly as the server sent
them, a tool the SDK's models cannot hold becomes a warning (never a crash), and a call works
without a listing at all.

The client drives the multi round-trip pattern itself (one ``tools/call`` per round, through
the SDK's single-round call): each round is classified before any input is gathered, input
requests go to the application's handlers, and the retry carries ``inputResponses`` and the
exact ``requestState`` with a new JSON-RPC id, up to a rounds cap; an answer with an empty
``inputRequests`` and no ``requestState``, whose retry could carry nothing new, ends the call
(``input.unanswerable``). A task's input requests
(``input_required`` in ``tasks/get``) go the same way, answered with ``tasks/update``, each key
once. Calls are serialised on a client, so every frame between a call's start and end belongs
to it.

What a call records and the bounds of what it keeps are in ``_records``, the requests sent raw
through the SDK in ``_sdk``, the findings and warnings the client writes itself in
``_findings``, the constructor's options checked in ``_options``.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from pydantic import ValidationError

from .. import __version__
from ..frames._sendable import check_call
from ..judgement._check import Expectation
from ..judgement._outcome import Observe, Outcome, run_observation, settle
from ..verdict._classify import DEFAULT_LIMITS, AbsentResultType, Limits, OptionError, classify
from ..verdict._findings import Finding, finding, pointer, refused, refuses
from ..verdict._input import check_server_request, refused_findings
from ..verdict._judge import classify_options
from ..verdict._kind import Kind
from ..verdict._parser import parse
from ..verdict._peer_text import cut, neutral
from ..verdict._shown import shown
from ..verdict._task import STATUSES
from ..verdict._verdict import Verdict, make_verdict
from ..verdict._versions import TASKS_EXTENSION, VERSIONS
from ._connect import CannotConnect, check_url, diagnose
from ._findings import _asks_none, _noise_finding, _quoted, _warn_duplicates, _with
from ._handlers import HandlerError, Handlers
from ._http import RecordingTransport, recording_http_client
from ._options import _check_options
from ._records import _HISTORY, _HISTORY_BYTES, CallRecord, Round, _held, _shed_polls
from ._sdk import _ANY, _first_error, _Raw, _RawCall, _RawList, _sdk_checks
from ._stdio import StderrTail, recording_stdio, split_command
from ._wire import (
    Exchange,
    Frame,
    WireLog,
    exchange_of,
    not_messages,
    preview,
    requests,
    transport_failure,
    unsent,
)

Mode = Literal["auto", "modern", "legacy"]
MODES: Final = ("auto", "modern", "legacy")
_PAGES: Final = 100
"""The most tools/list pages followed (a server whose cursors never end is cut there, with a warning)."""
_LEGACY_TASKS: Final = "2025-11-25"
"""The one handshake-era version with tasks (task-augmented requests, tasks/get, tasks/result)."""
_SDK_DEFAULT_VERSION: Final = "2025-11-25"
"""The version the SDK's session reads a server request by before a handshake settles one (and
ours, for a version we do not know)."""
_TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
_ASKS: Final = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
"""The server-to-client requests a 2025 server asks for input with."""


class VerdictClient:
    """An MCP client that returns verdicts and outcomes. Use ``VerdictClient.stdio(...)`` or
    ``VerdictClient.http(...)`` as an async context manager."""

    def __init__(self, *, command: str | Sequence[str] | None = None, url: str | None = None,
                 env: Mapping[str, str] | None = None, cwd: str | None = None,
                 headers: Mapping[str, str] | None = None, auth: Any = None,
                 handlers: Handlers | None = None, tasks: bool = False, mode: Mode = "auto",
                 timeout: float = 30.0, connect_timeout: float | None = None, task_timeout: float = 120.0,
                 trusted_server: bool = False,
                 max_rounds: int = 10, limits: Limits = DEFAULT_LIMITS,
                 absent_result_type: AbsentResultType = "invalid",
                 client_info: tuple[str, str] = ("mcp-verdict", __version__)) -> None:
        if (command is None) == (url is None):
            raise ValueError("give exactly one of command (stdio) and url (Streamable HTTP)")
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer, not {max_rounds!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        _check_options(command=command, url=url, env=env, cwd=cwd, headers=headers, handlers=handlers, tasks=tasks,
                       timeout=timeout, connect_timeout=connect_timeout, task_timeout=task_timeout,
                       trusted_server=trusted_server, client_info=client_info)
        classify_options(absent_result_type=absent_result_type, limits=limits)  # classify's own ValueError
        self._command = split_command(command) if command is not None else None
        if self._command is not None and not self._command:
            raise ValueError("the server command is empty")
        self._url = url
        self._env = env
        self._cwd = cwd
        self._headers = dict(headers or {})
        self._auth = auth
        self.handlers = handlers if handlers is not None else Handlers()
        self.tasks = tasks
        self.mode: Mode = mode
        self.timeout = float(timeout)
        self.connect_timeout = float(connect_timeout if connect_timeout is not None else timeout)
        """Bounds each step of connecting (server/discover, initialize); ``timeout`` by default."""
        self.task_timeout = float(task_timeout)
        self.trusted_server = trusted_server
        self.max_rounds = max_rounds
        self.limits = limits
        self.absent_result_type: AbsentResultType = absent_result_type
        self._client_info = types.Implementation(name=client_info[0], version=client_info[1])
        self.capabilities: dict[str, Any] = self.handlers.capabilities(tasks=tasks)
        self.wire = WireLog()
        self.history: list[CallRecord] = []
        self.warnings: list[str] = []
        """What the client noticed that is no verdict: a fallback to initialize, tools the SDK
        cannot model, a tools/list that failed."""
        self.server_stderr = StderrTail()
        self._engine: Client | None = None
        self._stack: AsyncExitStack | None = None
        self._lock = anyio.Lock()
        self._tools: dict[str, dict[str, Any]] = {}
        self._listed = False
        self._discover_error: str | None = None
        self._handler_errors: list[HandlerError] = []
        self._refused_asks: list[Finding] = []
        """Findings on the server-to-client input requests of the call in progress that were refused."""
        self._recorder: RecordingTransport | None = None
        self._sdk_mode: Literal["auto", "legacy"] = "legacy" if mode == "legacy" else "auto"
        self._owner: int | None = None

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def stdio(cls, command: str | Sequence[str], **options: Any) -> VerdictClient:
        """Spawn ``command`` (a list, or one string split like a shell would) and talk over stdio."""
        return cls(command=command, **options)

    @classmethod
    def http(cls, url: str, **options: Any) -> VerdictClient:
        """Talk Streamable HTTP to ``url``."""
        return cls(url=url, **options)

    @property
    def target(self) -> str:
        """The server as the user named it: the URL, or the command line."""
        if self._url is not None:
            return self._url
        import shlex

        return shlex.join(self._command or [])

    async def __aenter__(self) -> VerdictClient:
        if self._url is not None and (why := check_url(self._url)) is not None:
            raise CannotConnect("bad_url", why, target=self.target, step="connect")
        mark, shed = self.wire.mark(), self.wire.shed_noise
        try:
            await self._held_open("legacy" if self.mode == "legacy" else "auto", mark)
            return self
        except Exception as exc:
            failure = self._diagnose(exc, mark, self.wire.shed_noise - shed)
            if not self._retry_legacy(failure, mark):
                raise failure from exc
        # auto: server/discover failed and took the connection with it; start again with initialize.
        why = self._discover_error or failure.detail
        mark, shed = self.wire.mark(), self.wire.shed_noise
        try:
            await self._held_open("legacy", mark)
        except Exception as exc:
            raise self._diagnose(exc, mark, self.wire.shed_noise - shed) from exc
        restarted = "restarted the server and " if self._command is not None else "reconnected and "
        self.warnings.append(f"server/discover failed ({why}): {restarted}connected with initialize")
        return self

    def _retry_legacy(self, failure: CannotConnect, mark: int) -> bool:
        if self.mode != "auto" or failure.cause in ("bad_url", "spawn", "refused", "timeout"):
            return False
        return any(r.method == "server/discover" for r in requests(self.wire.since(mark)))

    async def _held_open(self, sdk_mode: Literal["auto", "legacy"], mark: int) -> None:
        """Connect, the log keeping the negotiation's frames before any other: a server that floods
        its stdout while it should answer has its noise counted past the log's bound (shed), never
        its request or its first lines dropped for it — the failure names the step and the count."""
        self.wire.hold(mark)
        try:
            await self._open(sdk_mode)
        finally:
            self.wire.hold(None)

    def _diagnose(self, error: BaseException, mark: int, shed_noise: int = 0) -> CannotConnect:
        tail = self.server_stderr
        failure = diagnose(error, target=self.target, frames=self.wire.since(mark), timeout=self.connect_timeout,
                           exit_code=tail.returncode, stderr=tail.text(), stdio=self._command is not None,
                           stopped=tail.stopped, shed_noise=shed_noise)
        if failure.step == "initialize" and self._discover_error and failure.cause != "protocol":
            return CannotConnect(failure.cause, f"{failure.detail}; server/discover before it: "
                                 f"{self._discover_error}", target=failure.target, step=failure.step,
                                 status=failure.status, exit_code=failure.exit_code, stderr=failure.stderr)
        return failure

    async def _open(self, sdk_mode: Literal["auto", "legacy"]) -> None:
        stack = AsyncExitStack()
        self.server_stderr = StderrTail()
        self._discover_error = None
        try:
            if self._command is not None:
                transport: Any = recording_stdio(self._command, self.wire, env=self._env, cwd=self._cwd,
                                                 max_bytes=self.limits.max_bytes, stderr=self.server_stderr,
                                                 grace=min(2.0, self.connect_timeout))
            else:
                assert self._url is not None
                http, self._recorder = recording_http_client(
                    self.wire, headers=self._headers, auth=self._auth, timeout=max(self.timeout, self.connect_timeout),
                    max_bytes=self.limits.max_bytes)
                await stack.enter_async_context(http)
                # No event size cap of the SDK's own (1 MiB): the recording transport ends an event
                # past limits.max_bytes, recorded cut (json.too_large), as it does a JSON body.
                transport = streamable_http_client(self._url, http_client=http, max_sse_event_size=None)
            engine = Client(transport, mode=sdk_mode, cache=None, read_timeout_seconds=self.connect_timeout,
                            client_info=self._client_info, **self._sdk_callbacks(),
                            extensions=[advertise(TASKS_EXTENSION)] if self.tasks else None)
            engine._build_session = self._session_builder(engine._build_session)  # type: ignore[method-assign,assignment]
            # Each negotiation step is bounded by the timeout: initialize by the SDK's read timeout,
            # server/discover by bounded_discover (the SDK's own probe waits 10 s whatever it is told).
            await stack.enter_async_context(engine)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await stack.aclose()
            raise
        self._engine = engine
        self._stack = stack
        self._sdk_mode = sdk_mode
        self._owner = anyio.get_current_task().id  # the connection's task groups close in this task only

    def _session_builder(self, build: Callable[[AsyncExitStack], Awaitable[Any]],
                         ) -> Callable[[AsyncExitStack], Awaitable[Any]]:
        declared = types.ClientCapabilities.model_validate(self.capabilities)
        client = self

        async def build_session(exit_stack: AsyncExitStack) -> Any:
            session = await build(exit_stack)
            # The SDK declares elicitation form and url together for any elicitation callback;
            # the client must declare exactly what its handlers can serve.
            session._build_capabilities = lambda version: declared
            send_discover = session.send_discover
            initialize = session.initialize

            async def bounded_discover(version: str) -> Any:
                from mcp.shared.exceptions import MCPError

                try:
                    with anyio.fail_after(client.connect_timeout):
                        return await send_discover(version)
                except TimeoutError:
                    client._discover_error = f"no answer within {client.connect_timeout:g} s"
                    raise MCPError(types.REQUEST_TIMEOUT, client._discover_error) from None
                except Exception as exc:
                    client._discover_error = f"{type(exc).__name__}: {exc}"
                    raise

            async def refuse_initialize() -> Any:
                raise CannotConnect("protocol", f"the server did not accept server/discover "
                                    f"({client._discover_error or 'no modern version in common'}); "
                                    "mode 'modern' does not fall back to initialize",
                                    target=client.target, step="server/discover")

            async def checked_initialize() -> Any:
                result = await initialize()
                recorder = client._recorder
                if recorder is not None and recorder.bad_session is not None:
                    raise CannotConnect("protocol", "the server's Mcp-Session-Id "
                                        f"{neutral(cut(repr(recorder.bad_session), 120))} holds characters that are "
                                        "not visible ASCII (0x21-0x7E), which a session id MUST be made of (Streamable "
                                        "HTTP, session management): the client cannot send it back",
                                        target=client.target, step="initialize")
                return result

            on_request = getattr(session, "_on_request", None)  # (the SDK's own; another layout: the
            if on_request is not None:  # callbacks' check alone, after the SDK's models)
                session._on_request = functools.partial(client._check_asked, session, on_request)
            session.send_discover = bounded_discover
            session.initialize = refuse_initialize if client.mode == "modern" else checked_initialize
            return session

        return build_session

    async def __aexit__(self, *exc: object) -> None:
        stack, self._stack, self._engine = self._stack, None, None
        if stack is not None:
            await stack.aclose()  # the transports shield their own cleanup (the process is always reaped)

    def _sdk_callbacks(self) -> dict[str, Any]:
        """Callbacks for 2025 servers, which send input requests as server-to-client requests.
        Each request was checked (:meth:`_check_asked`, before the SDK reads it) and is checked
        again here as the SDK read it, before a handler sees it."""
        handlers = self.handlers
        failed = self._handler_errors

        def bridge(method: str, model: Any) -> Callable[..., Awaitable[Any]]:
            async def callback(context: Any, *params: Any) -> Any:
                raw = params[0].model_dump(by_alias=True, exclude_none=True, mode="json") if params else {}
                asked = self._asked(method, raw, self.version)
                if asked.kind is not Kind.INPUT_REQUIRED:
                    return self._refusal(method, asked)
                try:
                    answer = await handlers.answer(asked.input_requests[""])
                    try:
                        return model.model_validate(answer)
                    except ValidationError as exc:  # (the SDK would tell the server its request was invalid)
                        raise HandlerError(f"the {method} handler's answer is no {model.__name__} the SDK can send "
                                           f"({_first_error(exc)})") from None
                except HandlerError as exc:  # the server hears it failed; the call raises it after
                    failed.append(exc)
                    return types.ErrorData(code=types.INTERNAL_ERROR, message=str(exc))
            return callback

        callbacks: dict[str, Any] = {}
        if handlers.form is not None or handlers.url is not None:
            callbacks["elicitation_callback"] = bridge("elicitation/create", types.ElicitResult)
        if handlers.sampling is not None:
            callbacks["sampling_callback"] = bridge("sampling/createMessage", types.CreateMessageResult)
        if handlers.roots is not None:
            callbacks["list_roots_callback"] = bridge("roots/list", types.ListRootsResult)
        return callbacks

    def _asked(self, method: str, params: Any, version: str, *, given: bool = True) -> Verdict:
        """A 2025 server's input request checked as ``classify`` checks an input request of a
        result (the capabilities the client declared, the requested schema...), by the rules of
        the session's ``version`` (2025-11-25's elicitationId and params._meta, 2025-06-18's
        form-only elicitation and tool-less sampling...)."""
        options = classify_options(version, client_capabilities=self.capabilities, limits=self.limits)
        return check_server_request(method, params, options, given=given)

    def _refusal(self, method: str, asked: Verdict) -> types.ErrorData:
        """Record the findings of a refused 2025 input request (they make the call's verdict
        unclassified) and give the error the server hears: -32602."""
        self._refused_asks.extend(refused_findings(method, asked))
        return types.ErrorData(code=types.INVALID_PARAMS, message=f"{method} refused: " + "; ".join(
            f.message for f in asked.errors))

    async def _check_asked(self, session: Any, on_request: Callable[..., Awaitable[Any]], context: Any,
                           method: str, params: Any) -> Any:
        """A 2025 server's elicitation, sampling or roots request, checked from its params as they
        came, before the SDK reads them: the SDK's own models refuse some malformed requests
        (``requestedSchema.type: "array"``, no ``message``) with a -32602 of their own that no
        check of ours, no handler and no verdict would see. A request either check refuses is
        answered -32602 and its findings make the call's verdict unclassified; any other request
        (and every other method) goes to the SDK as before."""
        from mcp.shared.exceptions import MCPError

        if method not in _ASKS:
            return await on_request(context, method, params)
        version = session.protocol_version or _SDK_DEFAULT_VERSION
        sdk_problem: ValidationError | None = None
        try:
            from mcp_types import methods

            methods.parse_server_request(method, version, params)
        except ImportError:  # pragma: no cover - another SDK layout: our check alone
            pass
        except KeyError:  # no such request in this version: the SDK answers it (method not found)
            return await on_request(context, method, params)
        except ValidationError as exc:
            sdk_problem = exc
        asked = self._asked(method, params, version if version in VERSIONS else _SDK_DEFAULT_VERSION,
                            given=params is not None)
        if asked.kind is not Kind.INPUT_REQUIRED:
            raise MCPError.from_error_data(self._refusal(method, asked))
        if sdk_problem is not None:  # within what classify checks, but no request the SDK can read
            message = f"the SDK's model of {method} refuses it ({_first_error(sdk_problem)})"
            self._refused_asks.append(finding("", "input.params", f"the server's {method} request: {message}"))
            raise MCPError(types.INVALID_PARAMS, f"{method} refused: {message}")
        return await on_request(context, method, params)

    # -- state ------------------------------------------------------------------------------
    @property
    def version(self) -> str:
        """The negotiated protocol version."""
        version = self._session().protocol_version
        return version if version in VERSIONS else VERSIONS[-1]

    @property
    def server_info(self) -> Mapping[str, Any] | None:
        info = self._session().server_info
        return info.model_dump(exclude_none=True) if info is not None else None

    async def _send_request(self, *args: Any, **kwargs: Any) -> Any:
        """The session's send_request, of the session in force when it is sent (one renewed after
        the server ended the last)."""
        return await self._session().send_request(*args, **kwargs)

    def _session(self) -> Any:
        if self._engine is None:
            raise RuntimeError("use the client inside `async with`")
        return self._engine.session

    @property
    def extensions(self) -> tuple[str, ...]:
        """The extensions in force for a 2026-07-28 call (the tasks extension, when opted in)."""
        return (TASKS_EXTENSION,) if self.tasks and self.version not in _HANDSHAKE else ()

    # -- tools/list ---------------------------------------------------------------------------
    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists, exactly as it sent it (schemas verbatim), minus the ones
        the SDK drops on 2026-07-28 for an invalid ``x-mcp-header`` (a MUST of the spec). A
        listing that fails, or tools the SDK's models cannot hold, are reported in ``warnings``."""
        async with self._lock:
            return await self._list_tools()

    async def _list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        cursors: set[str] = set()
        for pages in range(1, _PAGES + 1):  # pagination, bounded
            params = {"cursor": cursor} if cursor else None
            send = functools.partial(self._send_request, _RawList(method="tools/list", params=params), _ANY,
                                     request_read_timeout_seconds=self.timeout)
            round_ = await self._exchange("tools/list", send, judge=False)
            page, cursor, problem = self._tool_page(round_)
            if problem is not None:
                self.warnings.append(f"tools/list: {problem}; calls go on without the tools' schemas")
                break
            tools.extend(page)
            if not cursor:
                break
            if cursor in cursors:
                self.warnings.append(f"tools/list: the server sent the cursor {_quoted(cursor)} a second time (a "
                                     f"loop): stopped after {pages} pages ({len(tools)} tools)")
                break
            cursors.add(cursor)
        else:
            self.warnings.append(f"tools/list: stopped after {_PAGES} pages ({len(tools)} tools) with more to come "
                                 f"(nextCursor {_quoted(cursor or '')}): the tools after them are not listed")
        _warn_duplicates(tools, self.warnings)
        self._tools = {tool["name"]: tool for tool in self._absorb(tools, complete=True)}
        self._listed = True
        return list(self._tools.values())

    def _tool_page(self, round_: Round) -> tuple[list[dict[str, Any]], str | None, str | None]:
        """The tools of one tools/list answer, its next cursor, or why it has none."""
        if round_.response is None:
            return [], None, round_.verdict.findings[0].message if round_.verdict.findings else "no answer"
        value, problem = parse(round_.response, self.limits.max_bytes, self.limits.max_depth)
        if problem is not None:
            return [], None, f"the answer cannot be read ({problem.code}: {problem.message})"
        result = value.get("result") if isinstance(value, dict) else None
        if not isinstance(result, dict):
            error = value.get("error") if isinstance(value, dict) else None
            if isinstance(error, dict):
                return [], None, f"the server answered error {error.get('code')!r}: {error.get('message')!r}"
            return [], None, "the answer holds no result object"
        listed = result.get("tools")
        if not isinstance(listed, list):
            return [], None, "the result holds no tools array"
        page = [t for t in listed if isinstance(t, dict) and isinstance(t.get("name"), str)]
        if len(page) != len(listed):
            self.warnings.append(f"tools/list: {len(listed) - len(page)} entries are not tools with a name")
        cursor = result.get("nextCursor")
        return page, cursor if isinstance(cursor, str) and cursor else None, None

    def _absorb(self, tools: list[dict[str, Any]], *, complete: bool) -> list[dict[str, Any]]:
        """Give the SDK the tools its models can hold (for x-mcp-header and its own schema
        cache); keep the rest as sent, with a warning; drop what the SDK must drop."""
        session = self._session()
        modelled: list[Any] = []
        for tool in tools:
            try:
                _sdk_checks(self.version, tool)
                modelled.append(types.Tool.model_validate(tool, by_name=False))
            except ValidationError as exc:
                first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": str(exc)}
                loc = tuple(first.get("loc", ()))
                where = ".".join(str(part) for part in (loc[2:] if loc[:2] == ("tools", 0) else loc))
                self.warnings.append(f"tool {tool['name']!r}: the SDK cannot model it ({where}: {first.get('msg')}); "
                                     "it is listed as sent and its calls are judged from the wire")
        try:
            kept = {t.name for t in session._absorb_tool_listing(types.ListToolsResult(tools=modelled),
                                                                  complete=complete).tools}
            schemas = session._tool_output_schemas
        except AttributeError:  # another SDK version: it keeps its own view; ours is the wire's
            return tools
        out = []
        modelled_names = {t.name for t in modelled}
        for tool in tools:
            name = tool["name"]
            if name in modelled_names and name not in kept:
                self.warnings.append(f"tool {name!r} dropped: its x-mcp-header annotations are invalid "
                                     "(2026-07-28: clients MUST drop such tools)")
                continue
            if name not in modelled_names:
                schemas[name] = None  # the SDK would list again on every call to learn it
            out.append(tool)
        return out

    def tool(self, name: str) -> dict[str, Any] | None:
        """The listed definition of a tool (after list_tools)."""
        return self._tools.get(name)

    # -- tools/call -------------------------------------------------------------------------
    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        expect: Expectation | Sequence[Expectation] | None = None,
                        observe: Observe | None = None) -> Outcome:
        """Call a tool and return where it ended: verdict, content check, observation, decision.
        A name or an argument no tool call can carry is an ``OptionError`` (``frames/_sendable``),
        and nothing is sent."""
        checked = check_call(name, arguments)
        resolved = self._resolve(observe)  # (its read tool's arguments checked before the call)
        async with self._lock:
            if not self._listed:
                await self._list_tools()
            record = CallRecord(name, checked)
            try:
                verdict = await self._call(name, record)
            finally:
                self._remember(record)
        outcome = await settle(verdict, self._tools.get(name), expect=expect, observe=resolved,
                               trusted_server=self.trusted_server)
        if not all(r.request_sent for r in record.rounds[-1:]):
            outcome = replace(outcome, request_sent=False)
        record.outcome = outcome
        return outcome

    def _remember(self, record: CallRecord) -> None:
        """Keep ``record`` on the history: the last :data:`_HISTORY` calls, within
        :data:`_HISTORY_BYTES` (the oldest go first, the newest always kept whole)."""
        self.history.append(record)
        del self.history[:-_HISTORY]
        sizes = [_held(kept) for kept in self.history]
        total, drop = sum(sizes), 0
        while total > _HISTORY_BYTES and drop < len(sizes) - 1:
            total -= sizes[drop]
            drop += 1
        del self.history[:drop]

    async def observe(self, outcome: Outcome, observe: Observe) -> Outcome:
        """Observe a write's completion after the call (when the read depends on its result,
        e.g. the new record's id). Runs only if the content check passed."""
        if not outcome.content_check or not outcome.content_check.passed:
            return replace(outcome, observe_requested=True)
        resolved = self._resolve(observe)
        assert resolved is not None and resolved.read is not None
        return replace(outcome, observe_requested=True, observation=await run_observation(resolved, resolved.read))

    def _resolve(self, observe: Observe | None) -> Observe | None:
        """Observe.tool_call(...) becomes a read through this client (anything else than an
        Observe or None is an OptionError, before the call it would observe is made)."""
        if observe is None:
            return None
        if not isinstance(observe, Observe):
            raise OptionError("observe", "an Observe or None", observe)
        if observe.read is not None or observe.tool is None:
            return observe
        read_name, read_args = observe.tool
        check_call(read_name, read_args, "Observe.tool_call.")

        async def read() -> Verdict:
            return await self.call_verdict(read_name, read_args)

        return Observe(until=observe.until, read=read, attempts=observe.attempts, interval=observe.interval,
                       backoff=observe.backoff, timeout=observe.timeout)

    async def call_verdict(self, name: str, arguments: Mapping[str, Any] | None = None) -> Verdict:
        """Call a tool and return only its verdict (rounds and tasks followed, no content check).
        A name or an argument no tool call can carry is an ``OptionError``, as for ``call_tool``."""
        checked = check_call(name, arguments)
        async with self._lock:
            if not self._listed:
                await self._list_tools()
            record = CallRecord(name, checked)
            try:
                return await self._call(name, record)
            finally:
                self._remember(record)

    async def _call(self, name: str, record: CallRecord) -> Verdict:
        self._handler_errors.clear()
        self._refused_asks.clear()
        verdict = await self._rounds(name, record)
        if self._handler_errors:  # a handler failed on a server-to-client request (2025 servers)
            raise self._handler_errors[0]
        if self._refused_asks:  # the server asked for what it must not (2025 servers): its fault
            verdict = make_verdict(Kind.UNCLASSIFIED, (*verdict.findings, *self._refused_asks), verdict.version,
                                   verdict.message)
        return verdict

    async def _rounds(self, name: str, record: CallRecord) -> Verdict:
        responses: dict[str, Any] | None = None
        state: str | None = None
        for number in range(1, self.max_rounds + 1):
            round_ = await self._round(name, record.arguments, responses, state)
            record.rounds.append(round_)
            verdict = round_.verdict
            if verdict.kind is Kind.TASK and self.tasks:
                return await self._follow_task(verdict, record)
            if verdict.kind is not Kind.INPUT_REQUIRED:
                return verdict
            requests_, state = verdict.input_requests, verdict.request_state
            if not requests_ and state is None:  # (an input_required answer without either has no verdict of that kind)
                # An empty inputRequests and no requestState: the retry would carry neither answers
                # nor state, the first request again unchanged (mrtr: each retry stands alone).
                ended = make_verdict(Kind.UNCLASSIFIED, (*verdict.findings, _asks_none(
                    "the answer", " and it has no requestState", "mrtr, client requirements: a retry answers the "
                    "inputRequests and echoes the requestState; with neither it would be the first request again, "
                    "unchanged, and could not move the call on")), verdict.version, verdict.message)
                record.rounds[-1] = replace(round_, verdict=ended)
                return ended
            if number == self.max_rounds:
                return self._local("transport.rounds", f"the server still asked for input after {number} rounds "
                                   "(the client's cap)")
            responses = {key: await self.handlers.answer(request) for key, request in requests_.items()} \
                if requests_ else None
            if not requests_:
                await anyio.sleep(min(0.05 * 2 ** (number - 1), 1.0))  # state-only: retry, gently
        raise AssertionError("unreachable")  # pragma: no cover

    def _augmented(self, name: str) -> bool:
        """A 2025-11-25 call sent as a task: tasks opted in and the tool supports them."""
        if not self.tasks or self.version != _LEGACY_TASKS:
            return False
        execution = (self._tools.get(name) or {}).get("execution")
        return isinstance(execution, dict) and execution.get("taskSupport") in ("optional", "required")

    async def _round(self, name: str, arguments: Mapping[str, Any], responses: dict[str, Any] | None,
                     state: str | None) -> Round:
        if self._augmented(name):
            params = {"name": name, "arguments": dict(arguments), "task": {"ttl": int(self.task_timeout * 1000)}}
            return await self._exchange("tools/call", lambda: self._session().send_request(
                _RawCall(method="tools/call", params=params), _ANY, request_read_timeout_seconds=self.timeout),
                extensions=(TASKS_EXTENSION,))
        return await self._exchange("tools/call", lambda: self._session().call_tool(
            name, dict(arguments), read_timeout_seconds=self.timeout, input_responses=responses,
            request_state=state, allow_input_required=True, allow_claimed=True), extensions=self.extensions)

    async def _exchange(self, method: str, send: Callable[[], Awaitable[Any]], *, judge: bool = True,
                        extensions: tuple[str, ...] = (), timeout: float | None = None) -> Round:
        """Send one request through the SDK and judge it from the frames it left in the wire log."""
        started = time.time()
        if self._renewable():
            renewed = await self._renew_session(method, started)
            if renewed is not None:
                return renewed
        mark = self.wire.mark()
        shed = self.wire.shed
        error: BaseException | None = None
        self.wire.hold(mark)  # the log keeps this call's frames before any older ones
        try:
            with anyio.fail_after(timeout or self.timeout):
                await send()
        except Exception as exc:  # the SDK's view is secondary: the recorded bytes decide
            error = exc
        finally:
            self.wire.hold(None)
        if self.wire.shed > shed:
            self.warnings.append(f"{method}: the wire log was full ({self.wire.max_frames} frames); "
                                 f"{self.wire.shed - shed} notifications and noise lines were not kept")
        if self.wire.lost_since(mark):
            return self._overflowed(method, self.wire.since(mark), error, started)
        return self._judge(method, self.wire.since(mark), error, started, judge=judge, extensions=extensions,
                           timeout=timeout or self.timeout)

    def _renewable(self) -> bool:
        """The server ended the session, and this task, the one that connected, can connect again
        (the SDK's task groups are closed by the task that opened them)."""
        return self._recorder is not None and self._recorder.ended_session is not None \
            and anyio.get_current_task().id == self._owner

    async def _renew_session(self, method: str, started: float) -> Round | None:
        """The server ended the session (a 404 to a request that carried its id): connect again,
        a new session without the old id, before the next request (MCP Streamable HTTP, session
        management: the client MUST). A failure to connect is this request's verdict, not sent."""
        assert self._recorder is not None
        ended = self._recorder.ended_session or ""
        stack, self._stack, self._engine, self._recorder = self._stack, None, None, None
        if stack is not None:
            await stack.aclose()  # the old connection (the SDK's DELETE for the ended session)
        mark = self.wire.mark()
        try:
            await self._open(self._sdk_mode)
        except Exception as exc:
            failure = self._diagnose(exc, mark)
            return Round(method, None, None, self._local("transport.error", f"the request was not sent: the server "
                                                         f"ended session {_quoted(ended)} and a new one could not be "
                                                         f"started: {failure.detail}"),
                         started, time.time(), request_sent=False, frames=tuple(self.wire.since(mark)))
        self.warnings.append(f"the server ended session {_quoted(ended)} (HTTP 404): connected again, "
                             "a new session")
        return None

    def _overflowed(self, method: str, frames: list[Frame], error: BaseException | None, started: float) -> Round:
        """The call's own frames passed the wire log's bound: its request was sent (it was
        recorded), but what answered it may be gone. Never "not sent", never a judged answer."""
        request = next((r for r in reversed(list(requests(frames))) if r.method == method), None)
        message = (f"the wire log overflowed during the call (more than {self.wire.max_frames} frames of it): "
                   "the request was sent, but its answer was not kept, so its effect is unknown")
        if error is not None:
            message += f" ({_describe(error)})"
        return Round(method, request.frame.data if request else None, None, self._local("transport.error", message),
                     started, time.time(), request_sent=True, frames=tuple(frames))

    def _judge(self, method: str, frames: list[Frame], error: BaseException | None, started: float, *,
               judge: bool, extensions: tuple[str, ...], timeout: float) -> Round:
        request = next((r for r in reversed(list(requests(frames))) if r.method == method), None)
        finished = time.time()
        if request is None:
            failure = transport_failure(frames, None)
            if failure is None and error is not None and not _is_transport_error(error):
                raise error  # it never left the client: the caller's own mistake (bad arguments)
            why = failure.data.decode("utf-8", "replace") if failure else \
                f"it waited {timeout:g} s behind messages the server has not read" if _is_timeout(error) else \
                _describe(error)
            return Round(method, None, None, self._local("transport.error", f"the request was not sent: {why}"),
                         started, finished, request_sent=False, frames=tuple(frames))
        seen = exchange_of(frames, request, shed_noise=self.wire.shed_noise)
        answer = seen.answer
        if answer is None and (failed := unsent(frames, request)) is not None:  # its write failed: never sent
            why = failed.data.decode("utf-8", "replace")
            verdict = self._local("transport.error", f"the request was not sent: {why}")
            return Round(method, request.frame.data, None, verdict, started, finished, request_sent=False,
                         frames=seen.frames, noise=seen.noise, noise_shed=seen.noise_shed)
        if answer is None:
            verdict = self._no_answer(seen, error, timeout)
            return Round(method, request.frame.data, None, verdict, started, finished, frames=seen.frames,
                         noise=seen.noise, noise_shed=seen.noise_shed)
        if judge:
            our_id = request.id if isinstance(request.id, (str, int)) else None  # the SDK's ids: integers
            verdict = classify(answer.data, version=self.version, request_id=our_id,
                               client_capabilities=self.capabilities, extensions=extensions,
                               limits=self.limits, absent_result_type=self.absent_result_type)
        else:  # not a tools/call answer: the caller reads it (a placeholder says only that it came)
            verdict = make_verdict(Kind.UNCLASSIFIED, (), self.version, None)
        if seen.noise_count:
            verdict = _with(verdict, _noise_finding(seen, answered=True))
        return Round(method, request.frame.data, answer.data, verdict, started, finished, frames=seen.frames,
                     noise=seen.noise, noise_shed=seen.noise_shed)

    def _no_answer(self, seen: Exchange, error: BaseException | None, timeout: float) -> Verdict:
        failure = seen.failure
        if _is_timeout(error):
            code, message = "transport.timeout", f"no response within {timeout:g} s"
        elif failure is not None:
            text = failure.data.decode("utf-8", "replace")
            code, message = ("transport.closed" if failure.kind == "eof" else "transport.error"), text
            if failure.status == 404 and self._recorder is not None and self._recorder.ended_session is not None:
                message += f"; the server ended session {_quoted(self._recorder.ended_session)}: " + (
                    "the client starts a new one before its next request" if self._renewable() else
                    "a new one needs the client opened again (calls from a task other than the one that opened it "
                    "cannot reconnect it)")
        else:
            code, message = "transport.error", _describe(error)
        ended = code == "transport.error" and failure is not None and failure.status == 404 \
            and self._recorder is not None and self._recorder.ended_session is not None
        if code == "transport.error" and failure is not None and failure.kind == "http_error" \
                and failure.status is not None and refuses(failure.status, failure.retry_after):
            # A status that says the server did not run the request (auth, rate limit, a gone
            # session...): not a write of unknown effect.
            code = "transport.refused"
            message = refused(failure.status, failure.retry_after, message, session_ended=ended).message
        events = sum(1 for frame in seen.frames if frame.kind == "event")
        if events:
            message += (f"; the server sent {events} event{'s' if events > 1 else ''} of a type other than "
                        "'message', which no MCP client reads as a message")
        if seen.noise_count:
            first = f" (first: {preview(seen.noise[0].data)})" if seen.noise else ""
            message += (f"; the server wrote {not_messages(seen.noise_count)}{first}:"
                        " the likely cause, if it meant to answer")
        verdict = self._local(code, message)
        return _with(verdict, _noise_finding(seen, answered=False)) if seen.noise_count else verdict

    def _local(self, code: str, message: str) -> Verdict:
        """A verdict for the client's own failure: nothing the server said can be trusted."""
        return make_verdict(Kind.UNCLASSIFIED, (finding("", code, message),), self.version, None)

    # -- tasks --------------------------------------------------------------------------------
    async def _follow_task(self, verdict: Verdict, record: CallRecord) -> Verdict:
        """Poll the task (honouring its poll interval) until it ends, then judge its result; a
        task that asks for input (2026-07-28: ``input_required`` with ``inputRequests``) has its
        new requests checked, answered by the handlers and sent with ``tasks/update``."""
        task = verdict.task
        assert task is not None
        legacy = self.version == _LEGACY_TASKS
        interval = (task.poll_interval_ms or 1000) / 1000
        deadline = time.monotonic() + self.task_timeout
        first_poll = len(record.rounds)  # (the place of the first poll's round)
        asked = _TaskInput()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._local("transport.timeout", f"task {task.task_id} did not finish within "
                                   f"{self.task_timeout:g} s (it may still be running)")
            # (a poll interval past the deadline: polled once at the deadline, not given up unpolled)
            await anyio.sleep(max(min(interval, left), 0.01))
            round_ = await self._raw_round("tasks/get", {"taskId": task.task_id})
            if round_.response is None:
                record.rounds.append(round_)
                return round_.verdict
            value, problem = parse(round_.response, self.limits.max_bytes, self.limits.max_depth)
            judged = self._task_state(value, problem, verdict, task.task_id, legacy=legacy)
            if isinstance(judged, Verdict):
                record.rounds.append(replace(round_, verdict=judged, status=_status_of(value)))
                return judged
            status, poll = judged
            record.rounds.append(replace(round_, verdict=verdict, status=status))
            if status == "input_required" and not legacy:
                assert isinstance(value, dict)  # (_task_state read its result object)
                ended = await self._task_input(value["result"], verdict, record, asked)
                if ended is not None:
                    return ended
                deadline += asked.handler_seconds  # (task_timeout bounds the server, not the user's answer)
                asked.handler_seconds = 0.0
            _shed_polls(record, first_poll, asked.pinned)
            if legacy and status in (*_TERMINAL, "input_required"):
                # 2025-11-25: the result (or the server's input requests) comes with tasks/result.
                return await self._task_result(task.task_id, record, deadline)
            if poll is not None:
                interval = poll / 1000

    async def _task_input(self, result: dict[str, Any], handle: Verdict, record: CallRecord,
                          asked: _TaskInput) -> Verdict | None:
        """Answer the new input requests of an ``input_required`` task (its tasks/get round is the
        last of the record): checked as ``classify`` checks the input requests of a result before
        any handler sees them, answered by the handlers, sent with ``tasks/update``. A key
        answered earlier is not answered again (ext-tasks, Task Update Requests: keys are unique
        over a task's life, and clients SHOULD deduplicate them across polls). The call's verdict
        when the input cannot go on (the poll's round then carries it), else None: polling goes on."""
        assert handle.task is not None
        task_id = handle.task.task_id
        polled = len(record.rounds) - 1
        new, checked = self._new_requests(result, handle, asked)
        if checked is None:  # every request already answered: the task has yet to show it
            return None
        if checked.kind is Kind.INPUT_REQUIRED and asked.updates >= self.max_rounds:
            return self._local("transport.rounds", f"task {_quoted(task_id)} still asked for input after "
                               f"{asked.updates} tasks/update requests (the client's cap)")
        if checked.kind is not Kind.INPUT_REQUIRED:  # refused before any handler, as a result's would be
            record.rounds[polled] = replace(record.rounds[polled], verdict=checked)
            return checked
        asked.pinned.add(id(record.rounds[polled]))
        started = time.monotonic()
        responses = {key: await self.handlers.answer(request) for key, request in checked.input_requests.items()}
        asked.handler_seconds += time.monotonic() - started
        update = await self._raw_round("tasks/update", {"taskId": task_id, "inputResponses": responses})
        failure = self._update_failure(update, task_id)
        if failure is not None:
            record.rounds.append(replace(update, verdict=failure))
            return failure
        record.rounds.append(replace(update, verdict=handle))
        asked.pinned.add(id(record.rounds[-1]))
        asked.updates += 1
        asked.answered.update((key, _canonical(new[key])) for key in responses)
        return None

    def _new_requests(self, result: dict[str, Any], handle: Verdict, asked: _TaskInput,
                      ) -> tuple[dict[str, Any], Verdict | None]:
        """The input requests of the poll not answered before, and their check: ``classify``'s
        verdict of them as a result's input requests (anything but an object judged as it came),
        or the verdict that ends the call (no inputRequests; an empty one, which asks for input
        and names none: no tasks/update could ever move the task on; a key answered earlier that
        now names another request), or None when every request listed was answered before."""
        assert handle.task is not None
        task_id = handle.task.task_id
        if "inputRequests" not in result:
            return {}, make_verdict(Kind.UNCLASSIFIED, (finding("/result", "task.field", (
                f"task {_quoted(task_id)} is input_required without inputRequests (ext-tasks, tasks/get: the server "
                "MUST return the outstanding requests)")),), self.version, None)
        requests_ = result["inputRequests"]
        if isinstance(requests_, dict) and not requests_:  # (not "every key answered": no key at all)
            return {}, make_verdict(Kind.UNCLASSIFIED, (_asks_none(
                f"task {_quoted(task_id)}", "", "ext-tasks, tasks/get: inputRequests MUST contain all the outstanding "
                "requests the task needs fulfilled before it can proceed", code="task.input"),), self.version, None)
        new = requests_
        if isinstance(requests_, dict):
            for key, request in requests_.items():
                if key in asked.answered and asked.answered[key] != _canonical(request):
                    reused = finding(pointer("/result/inputRequests", key), "task.input", (
                        f"the key {_quoted(key)}, answered earlier, now names another request (ext-tasks: a server "
                        "MUST NOT use the same key for two distinct requests over a task's life)"))
                    return {}, make_verdict(Kind.UNCLASSIFIED, (reused,), self.version, None)
            new = {key: request for key, request in requests_.items() if key not in asked.answered}
            if not new:
                return new, None
        checked = classify({"jsonrpc": "2.0", "id": handle.id, "result": {
            "resultType": "input_required", "inputRequests": new}}, version=self.version,
            request_id=handle.id, client_capabilities=self.capabilities, extensions=self.extensions,
            limits=self.limits, absent_result_type=self.absent_result_type)
        return (new if isinstance(new, dict) else {}), checked

    def _update_failure(self, update: Round, task_id: str) -> Verdict | None:
        """The call's verdict when tasks/update was not acknowledged (no answer, an unreadable one,
        an error, no result object), else None. Never a success: the answers may not have reached
        the task."""
        if update.response is None:
            return update.verdict
        value, problem = parse(update.response, self.limits.max_bytes, self.limits.max_depth)
        if problem is not None:
            return make_verdict(Kind.UNCLASSIFIED, (problem,), self.version, None)
        if isinstance(value, dict) and isinstance(value.get("result"), dict):
            return None
        error = value.get("error") if isinstance(value, dict) else None
        if isinstance(error, dict):
            said = f"error {shown(error.get('code'))}: {shown(error.get('message'))}"
        else:
            said = "no result object"
        return make_verdict(Kind.UNCLASSIFIED, (finding("", "task.input", (
            f"tasks/update (the answers to the input requests of task {_quoted(task_id)}) was answered with "
            f"{said}: the answers may not have reached the task, and its outcome is unknown")),), self.version, None)

    def _task_state(self, value: Any, problem: Finding | None, handle: Verdict, task_id: str, *,
                    legacy: bool) -> Verdict | tuple[str, float | None]:
        """A terminal task's verdict, or its status and the next poll interval in ms."""
        if problem is not None:
            return make_verdict(Kind.UNCLASSIFIED, (problem,), self.version, None)
        result = value.get("result") if isinstance(value, dict) else None
        if not isinstance(result, dict):
            error = value.get("error") if isinstance(value, dict) else None
            if isinstance(error, dict):  # tasks/get itself failed
                return classify({"jsonrpc": "2.0", "id": handle.id, "error": error}, version=self.version)
            return self._local("task.field", "the tasks/get response carries no result object")
        status = result.get("status")
        if result.get("taskId") != task_id or not isinstance(status, str) or status not in STATUSES:
            return self._local("task.field", f"tasks/get answered taskId {shown(result.get('taskId'))} with status "
                                             f"{shown(status)}")
        poll = result.get("pollInterval" if legacy else "pollIntervalMs")
        interval = float(poll) if isinstance(poll, int) and not isinstance(poll, bool) and poll >= 0 else None
        if legacy:
            if status == "cancelled":
                return self._local("task.status", f"task {task_id} was cancelled: its effect is unknown")
            return status, interval
        options: dict[str, Any] = {"version": self.version, "request_id": handle.id,
                                   "client_capabilities": self.capabilities, "extensions": self.extensions,
                                   "absent_result_type": self.absent_result_type}
        if status == "completed":
            final = classify({"jsonrpc": "2.0", "id": handle.id, "result": result.get("result")}, **options)
            if final.kind is Kind.TASK or final.kind is Kind.INPUT_REQUIRED:
                # A completed task inlines the request's final result (ext-tasks, Task Status): a
                # handle or a request for input there is none, and nothing would follow it up.
                return make_verdict(Kind.UNCLASSIFIED, (finding("/result/resultType", "task.field", (
                    f"task {_quoted(task_id)} completed with a{'n' if final.kind is Kind.INPUT_REQUIRED else ''} "
                    f"{final.kind.value} result, not the tool's final result")),), self.version, final.message)
            return final
        if status == "failed":
            return classify({"jsonrpc": "2.0", "id": handle.id, "error": result.get("error")}, **options)
        if status == "cancelled":
            return self._local("task.status", f"task {task_id} was cancelled: its effect is unknown")
        return status, interval

    async def _task_result(self, task_id: str, record: CallRecord, deadline: float) -> Verdict:
        """2025-11-25: ``tasks/result`` answers with the call's own result (or error), judged as
        the response it is; it waits for the task to end, input requests arriving meanwhile."""
        remaining = max(deadline - time.monotonic(), 0.1)
        round_ = await self._exchange("tasks/result", lambda: self._session().send_request(
            _Raw(method="tasks/result", params={"taskId": task_id}), _ANY, request_read_timeout_seconds=remaining),
            timeout=remaining)
        record.rounds.append(replace(round_, status="completed" if round_.response is not None else None))
        return round_.verdict

    async def cancel_task(self, task_id: str) -> bool:
        """Ask the server to cancel a task (cooperative: it may still finish). True if acknowledged."""
        async with self._lock:
            round_ = await self._raw_round("tasks/cancel", {"taskId": task_id})
        if round_.response is None:
            return False
        value, problem = parse(round_.response, self.limits.max_bytes, self.limits.max_depth)
        return problem is None and isinstance(value, dict) and isinstance(value.get("result"), dict)

    async def _raw_round(self, method: str, params: dict[str, Any]) -> Round:
        return await self._exchange(method, lambda: self._session().send_request(
            _Raw(method=method, params=params), _ANY, request_read_timeout_seconds=self.timeout), judge=False)


_HANDSHAKE: Final = frozenset(v for v in VERSIONS if v < "2026-07-28")


@dataclass
class _TaskInput:
    """What a task's input exchange has done so far."""

    answered: dict[str, str] = field(default_factory=dict)
    """The keys answered (tasks/update acknowledged), each with the request it named (as canonical JSON)."""
    updates: int = 0
    """tasks/update requests acknowledged (at most ``max_rounds``)."""
    pinned: set[int] = field(default_factory=set)
    """The rounds (their ids) never shed: the polls that brought new requests, and the updates."""
    handler_seconds: float = 0.0
    """Time spent in the handlers since the last poll (added to the task's deadline)."""


def _canonical(value: Any) -> str:
    """A JSON value as one text, whatever the order of its members (to compare two requests)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _status_of(value: Any) -> str | None:
    result = value.get("result") if isinstance(value, dict) else None
    status = result.get("status") if isinstance(result, dict) else None
    return status if isinstance(status, str) else None


def _is_timeout(error: BaseException | None) -> bool:
    if isinstance(error, TimeoutError):
        return True
    code = getattr(getattr(error, "error", None), "code", None)
    return code == types.REQUEST_TIMEOUT


def _is_transport_error(error: BaseException) -> bool:
    import httpx2
    from mcp.shared.exceptions import MCPError

    return isinstance(error, (MCPError, OSError, TimeoutError, httpx2.HTTPError, anyio.BrokenResourceError,
                              anyio.ClosedResourceError, anyio.EndOfStream))


def _describe(error: BaseException | None) -> str:
    if error is None:
        return "no response and no error"
    return f"{type(error).__name__}: {error}"
