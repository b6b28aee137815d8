"""VerdictClient: calls tools and returns outcomes, judged from the bytes on the wire.

The official SDK (``mcp.Client``) is the protocol engine: transports, version negotiation
(``server/discover`` with the 2026-07-28 per-request ``_meta`` and headers, falling back to the
``initialize`` handshake for 2025 servers), ``x-mcp-header`` handling and HTTP auth hooks. Every
frame passes through a recording transport first, and the verdict of each round is
``classify`` of the response's raw bytes — never the SDK's leniently parsed objects, which turn
``isError: "false"`` into success and keep the last of duplicated keys.

The client drives the multi round-trip pattern itself (one ``tools/call`` per round, through
the SDK's single-round call): each round is classified before any input is gathered, input
requests go to the application's handlers, and the retry carries ``inputResponses`` and the
exact ``requestState`` with a new JSON-RPC id, up to a rounds cap. Calls are serialised on a
client, so every frame between a call's start and end belongs to it.
"""

from __future__ import annotations

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
from pydantic import ConfigDict

from .. import __version__
from ..judgement._check import Expectation
from ..judgement._outcome import Observe, Outcome, run_observation, settle
from ..verdict._classify import DEFAULT_LIMITS, AbsentResultType, Limits, classify
from ..verdict._findings import finding
from ..verdict._kind import Kind
from ..verdict._parser import parse
from ..verdict._task import STATUSES
from ..verdict._verdict import ElicitationRequest, InputRequest, RootsRequest, SamplingRequest, Verdict, make_verdict
from ..verdict._versions import TASKS_EXTENSION, VERSIONS
from ._handlers import HandlerError, Handlers
from ._http import recording_http_client
from ._stdio import StderrTail, recording_stdio, split_command
from ._wire import Frame, Request, WireLog, requests, response_to, transport_failure

Mode = Literal["auto", "legacy", "2026-07-28"]
_HISTORY: Final = 100


@dataclass(frozen=True, slots=True)
class Round:
    """One request/response exchange of a call."""

    method: str
    request: bytes | None
    response: bytes | None
    verdict: Verdict
    started_at: float
    finished_at: float
    request_sent: bool = True


@dataclass
class CallRecord:
    """Everything one call_tool did: its rounds (MRTR retries, task polls) and its outcome."""

    name: str
    arguments: Mapping[str, Any]
    rounds: list[Round] = field(default_factory=list)
    outcome: Outcome | None = None


class _Raw(types.Request[dict[str, Any], str]):
    """A request the SDK has no model for (the tasks extension's methods)."""

    name_param = "taskId"


class VerdictClient:
    """An MCP client that returns verdicts and outcomes. Use ``VerdictClient.stdio(...)`` or
    ``VerdictClient.http(...)`` as an async context manager."""

    def __init__(self, *, command: str | Sequence[str] | None = None, url: str | None = None,
                 env: Mapping[str, str] | None = None, cwd: str | None = None,
                 headers: Mapping[str, str] | None = None, auth: Any = None,
                 handlers: Handlers | None = None, tasks: bool = False, mode: Mode = "auto",
                 timeout: float = 30.0, task_timeout: float = 120.0, trusted_server: bool = False,
                 max_rounds: int = 10, limits: Limits = DEFAULT_LIMITS,
                 absent_result_type: AbsentResultType = "invalid",
                 client_info: tuple[str, str] = ("mcp-verdict", __version__)) -> None:
        if (command is None) == (url is None):
            raise ValueError("give exactly one of command (stdio) and url (Streamable HTTP)")
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer, not {max_rounds!r}")
        if not timeout > 0 or not task_timeout > 0:
            raise ValueError("timeouts must be positive numbers of seconds")
        self._command = split_command(command) if command is not None else None
        self._url = url
        self._env = env
        self._cwd = cwd
        self._headers = dict(headers or {})
        self._auth = auth
        self.handlers = handlers or Handlers()
        self.tasks = tasks
        self._mode = mode
        self.timeout = float(timeout)
        self.task_timeout = float(task_timeout)
        self.trusted_server = trusted_server
        self.max_rounds = max_rounds
        self.limits = limits
        self.absent_result_type: AbsentResultType = absent_result_type
        self._client_info = types.Implementation(name=client_info[0], version=client_info[1])
        self.capabilities: dict[str, Any] = self.handlers.capabilities(tasks=tasks)
        self.wire = WireLog()
        self.history: list[CallRecord] = []
        self.server_stderr = StderrTail()
        self._engine: Client | None = None
        self._stack: AsyncExitStack | None = None
        self._lock = anyio.Lock()
        self._tools: dict[str, dict[str, Any]] = {}
        self._listed = False

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def stdio(cls, command: str | Sequence[str], **options: Any) -> VerdictClient:
        """Spawn ``command`` (a list, or one string split like a shell would) and talk over stdio."""
        return cls(command=command, **options)

    @classmethod
    def http(cls, url: str, **options: Any) -> VerdictClient:
        """Talk Streamable HTTP to ``url``."""
        return cls(url=url, **options)

    async def __aenter__(self) -> VerdictClient:
        stack = AsyncExitStack()
        try:
            if self._command is not None:
                transport: Any = recording_stdio(self._command, self.wire, env=self._env, cwd=self._cwd,
                                                 max_bytes=self.limits.max_bytes, stderr=self.server_stderr)
            else:
                assert self._url is not None
                http = recording_http_client(self.wire, headers=self._headers, auth=self._auth,
                                             timeout=self.timeout, max_bytes=self.limits.max_bytes)
                await stack.enter_async_context(http)
                transport = streamable_http_client(self._url, http_client=http)
            engine = Client(transport, mode=self._mode, cache=None, read_timeout_seconds=self.timeout,
                            client_info=self._client_info, **self._sdk_callbacks(),
                            extensions=[advertise(TASKS_EXTENSION)] if self.tasks else None)
            declared = types.ClientCapabilities.model_validate(self.capabilities)
            build = engine._build_session

            async def build_session(exit_stack: AsyncExitStack) -> Any:
                session = await build(exit_stack)
                # The SDK declares elicitation form and url together for any elicitation
                # callback; the client must declare exactly what its handlers can serve.
                session._build_capabilities = lambda version: declared  # type: ignore[method-assign]
                return session

            engine._build_session = build_session  # type: ignore[method-assign]
            await stack.enter_async_context(engine)  # negotiation is bounded by read_timeout_seconds
        except BaseException:
            await stack.aclose()
            raise
        self._engine = engine
        self._stack = stack
        return self

    async def __aexit__(self, *exc: object) -> None:
        stack, self._stack, self._engine = self._stack, None, None
        if stack is not None:
            await stack.aclose()  # the transports shield their own cleanup (the process is always reaped)

    def _sdk_callbacks(self) -> dict[str, Any]:
        """Callbacks for 2025 servers, which send input requests as server-to-client requests."""
        handlers = self.handlers

        def bridge(build: Callable[..., InputRequest], model: Any) -> Callable[..., Awaitable[Any]]:
            async def callback(context: Any, *params: Any) -> Any:
                raw = params[0].model_dump(by_alias=True, exclude_none=True, mode="json") if params else {}
                try:
                    return model.model_validate(await handlers.answer(build(raw)))
                except HandlerError as exc:
                    return types.ErrorData(code=types.INTERNAL_ERROR, message=str(exc))
            return callback

        callbacks: dict[str, Any] = {}
        if handlers.form is not None or handlers.url is not None:
            callbacks["elicitation_callback"] = bridge(
                lambda raw: ElicitationRequest("", raw.get("mode", "form"), raw.get("message", ""),
                                               raw.get("requestedSchema"), raw.get("url"), raw),
                types.ElicitResult)
        if handlers.sampling is not None:
            callbacks["sampling_callback"] = bridge(
                lambda raw: SamplingRequest("", tuple(raw.get("messages", ())), raw.get("maxTokens", 0), raw),
                types.CreateMessageResult)
        if handlers.roots is not None:
            callbacks["list_roots_callback"] = bridge(lambda raw: RootsRequest("", {}), types.ListRootsResult)
        return callbacks

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

    def _session(self) -> Any:
        if self._engine is None:
            raise RuntimeError("use the client inside `async with`")
        return self._engine.session

    @property
    def extensions(self) -> tuple[str, ...]:
        return (TASKS_EXTENSION,) if self.tasks else ()

    # -- tools/list ---------------------------------------------------------------------------
    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists, exactly as it sent it (schemas verbatim), minus the ones
        the SDK refuses on Streamable HTTP for an invalid ``x-mcp-header``."""
        async with self._lock:
            return await self._list_tools()

    async def _list_tools(self) -> list[dict[str, Any]]:
        session = self._session()
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(100):  # pagination, bounded
            mark = self.wire.mark()
            with anyio.fail_after(self.timeout):
                listed = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor)
                                                  if cursor else None)
            kept = {tool.name for tool in listed.tools}
            raw = self._raw_result(self.wire.since(mark), "tools/list")
            page = raw.get("tools") if isinstance(raw, dict) else None
            if isinstance(page, list):
                tools.extend(t for t in page if isinstance(t, dict) and t.get("name") in kept)
            else:
                tools.extend(t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools)
            cursor = listed.next_cursor
            if not cursor:
                break
        self._tools = {tool["name"]: tool for tool in tools}
        self._listed = True
        return tools

    def _raw_result(self, frames: list[Frame], method: str) -> Any:
        for request in requests(frames):
            if request.method == method:
                frame = response_to(frames, request)
                if frame is not None:
                    value, problem = parse(frame.data, self.limits.max_bytes, self.limits.max_depth)
                    if problem is None and isinstance(value, dict):
                        return value.get("result")
        return None

    def tool(self, name: str) -> dict[str, Any] | None:
        """The listed definition of a tool (after list_tools)."""
        return self._tools.get(name)

    # -- tools/call -------------------------------------------------------------------------
    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        expect: Expectation | Sequence[Expectation] | None = None,
                        observe: Observe | None = None) -> Outcome:
        """Call a tool and return where it ended: verdict, content check, observation, decision."""
        async with self._lock:
            if not self._listed:
                await self._list_tools()
            record = CallRecord(name, dict(arguments or {}))
            verdict = await self._call(name, record)
        outcome = await settle(verdict, self._tools.get(name), expect=expect, observe=self._resolve(observe),
                               trusted_server=self.trusted_server)
        if not all(r.request_sent for r in record.rounds[-1:]):
            outcome = replace(outcome, request_sent=False)
        record.outcome = outcome
        self.history.append(record)
        del self.history[:-_HISTORY]
        return outcome

    async def observe(self, outcome: Outcome, observe: Observe) -> Outcome:
        """Observe a write's completion after the call (when the read depends on its result,
        e.g. the new record's id). Runs only if the content check passed."""
        if not outcome.content_check or not outcome.content_check.passed:
            return replace(outcome, observe_requested=True)
        resolved = self._resolve(observe)
        assert resolved is not None and resolved.read is not None
        return replace(outcome, observe_requested=True, observation=await run_observation(resolved, resolved.read))

    def _resolve(self, observe: Observe | None) -> Observe | None:
        """Observe.tool_call(...) becomes a read through this client."""
        if observe is None or observe.read is not None or observe.tool is None:
            return observe
        read_name, read_args = observe.tool

        async def read() -> Verdict:
            return await self.call_verdict(read_name, read_args)

        return Observe(until=observe.until, read=read, attempts=observe.attempts, interval=observe.interval,
                       backoff=observe.backoff, timeout=observe.timeout)

    async def call_verdict(self, name: str, arguments: Mapping[str, Any] | None = None) -> Verdict:
        """Call a tool and return only its verdict (rounds and tasks followed, no content check)."""
        async with self._lock:
            if not self._listed:
                await self._list_tools()
            record = CallRecord(name, dict(arguments or {}))
            verdict = await self._call(name, record)
            self.history.append(record)
            del self.history[:-_HISTORY]
            return verdict

    async def _call(self, name: str, record: CallRecord) -> Verdict:
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
            if number == self.max_rounds:
                return self._local("transport.rounds", f"the server still asked for input after {number} rounds "
                                   "(the client's cap)")
            requests_ = verdict.input_requests
            responses = {key: await self.handlers.answer(request) for key, request in requests_.items()} \
                if requests_ else None
            state = verdict.request_state
            if not requests_:
                await anyio.sleep(min(0.05 * 2 ** (number - 1), 1.0))  # state-only: retry, gently
        raise AssertionError("unreachable")  # pragma: no cover

    async def _round(self, name: str, arguments: Mapping[str, Any], responses: dict[str, Any] | None,
                     state: str | None) -> Round:
        session = self._session()
        return await self._exchange("tools/call", lambda: session.call_tool(
            name, dict(arguments), read_timeout_seconds=self.timeout, input_responses=responses,
            request_state=state, allow_input_required=True, allow_claimed=True))

    async def _exchange(self, method: str, send: Callable[[], Awaitable[Any]], *, classify_answer: bool = True,
                        ) -> Round:
        """Send one request through the SDK and judge it from the frames it left in the wire log."""
        mark = self.wire.mark()
        started = time.time()
        error: BaseException | None = None
        try:
            with anyio.fail_after(self.timeout):
                await send()
        except Exception as exc:  # the SDK's view is secondary: the recorded bytes decide
            error = exc
        return self._judge(method, self.wire.since(mark), error, started, classify_answer=classify_answer)

    def _judge(self, method: str, frames: list[Frame], error: BaseException | None, started: float, *,
               classify_answer: bool = True) -> Round:
        request = next((r for r in reversed(list(requests(frames))) if r.method == method), None)
        finished = time.time()
        if request is None:
            failure = transport_failure(frames, None)
            if failure is None and error is not None and not _is_transport_error(error):
                raise error  # it never left the client: the caller's own mistake (bad arguments)
            why = failure.data.decode("utf-8", "replace") if failure else _describe(error)
            return Round(method, None, None, self._local("transport.error", f"the request was not sent: {why}"),
                         started, finished, request_sent=False)
        answer = response_to(frames, request)
        if answer is not None and not classify_answer:  # not a tools/call response: the caller judges it
            placeholder = self._local("transport.error", f"a {method} response is not a tools/call response")
            return Round(method, request.frame.data, answer.data, placeholder, started, finished)
        if answer is not None:
            verdict = classify(answer.data, version=self.version, request_id=request.id,
                               client_capabilities=self.capabilities, extensions=self.extensions,
                               limits=self.limits, absent_result_type=self.absent_result_type)
            return Round(method, request.frame.data, answer.data, verdict, started, finished)
        return Round(method, request.frame.data, None, self._no_answer(frames, request, error), started, finished)

    def _no_answer(self, frames: list[Frame], request: Request, error: BaseException | None) -> Verdict:
        failure = transport_failure(frames, request)
        if _is_timeout(error):
            return self._local("transport.timeout", f"no response within {self.timeout:g} s")
        if failure is not None:
            text = failure.data.decode("utf-8", "replace")
            if failure.kind == "eof":
                return self._local("transport.closed", text)
            return self._local("transport.error", text)
        return self._local("transport.error", _describe(error))

    def _local(self, code: str, message: str) -> Verdict:
        """A verdict for the client's own failure: nothing the server said can be trusted."""
        return make_verdict(Kind.UNCLASSIFIED, (finding("", code, message),), self.version, None)

    # -- tasks --------------------------------------------------------------------------------
    async def _follow_task(self, verdict: Verdict, record: CallRecord) -> Verdict:
        """Poll tasks/get (honouring pollIntervalMs) until the task ends, then judge its result."""
        task = verdict.task
        assert task is not None
        original_id = verdict.id
        interval = (task.poll_interval_ms or 1000) / 1000
        deadline = time.monotonic() + self.task_timeout
        while True:
            if time.monotonic() + interval > deadline:
                return self._local("transport.timeout", f"task {task.task_id} did not finish within "
                                   f"{self.task_timeout:g} s (it may still be running)")
            await anyio.sleep(max(interval, 0.01))
            round_ = await self._raw_round("tasks/get", {"taskId": task.task_id})
            record.rounds.append(round_)
            if round_.response is None:
                return round_.verdict
            value, problem = parse(round_.response, self.limits.max_bytes, self.limits.max_depth)
            judged = self._task_state(value, problem, original_id, task.task_id)
            if isinstance(judged, Verdict):
                return judged
            if judged is not None:
                interval = judged / 1000

    def _task_state(self, value: Any, problem: Any, original_id: Any, task_id: str) -> Verdict | float | None:
        """A terminal task's verdict, or the next poll interval in ms (None: keep the interval)."""
        if problem is not None:
            return make_verdict(Kind.UNCLASSIFIED, (problem,), self.version, None)
        result = value.get("result") if isinstance(value, dict) else None
        if not isinstance(result, dict):
            error = value.get("error") if isinstance(value, dict) else None
            if isinstance(error, dict):  # tasks/get itself failed
                return classify({"jsonrpc": "2.0", "id": original_id, "error": error}, version=self.version)
            return self._local("task.field", "the tasks/get response carries no result object")
        status = result.get("status")
        if result.get("taskId") != task_id or not isinstance(status, str) or status not in STATUSES:
            return self._local("task.field", f"tasks/get answered taskId {result.get('taskId')!r} with status "
                                             f"{status!r}")
        options: dict[str, Any] = {"version": self.version, "request_id": original_id,
                                   "client_capabilities": self.capabilities, "extensions": self.extensions,
                                   "absent_result_type": self.absent_result_type}
        if status == "completed":
            return classify({"jsonrpc": "2.0", "id": original_id, "result": result.get("result")}, **options)
        if status == "failed":
            return classify({"jsonrpc": "2.0", "id": original_id, "error": result.get("error")}, **options)
        if status == "cancelled":
            return self._local("task.status", f"task {task_id} was cancelled: its effect is unknown")
        poll = result.get("pollIntervalMs")
        return float(poll) if isinstance(poll, int) and not isinstance(poll, bool) and poll >= 0 else None

    async def cancel_task(self, task_id: str) -> bool:
        """Ask the server to cancel a task (cooperative: it may still finish). True if acknowledged."""
        async with self._lock:
            round_ = await self._raw_round("tasks/cancel", {"taskId": task_id})
        if round_.response is None:
            return False
        value, problem = parse(round_.response, self.limits.max_bytes, self.limits.max_depth)
        return problem is None and isinstance(value, dict) and isinstance(value.get("result"), dict)

    async def _raw_round(self, method: str, params: dict[str, Any]) -> Round:
        session = self._session()
        return await self._exchange(method, lambda: session.send_request(
            _Raw(method=method, params=params), _ANY, request_read_timeout_seconds=self.timeout),
            classify_answer=False)


class _AnyResult(types.Result):
    """Accept any result object (the raw bytes are judged separately)."""

    model_config = ConfigDict(extra="allow")


_ANY: Final = _AnyResult


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
