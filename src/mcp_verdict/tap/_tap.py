"""VerdictTap: the verdict of every ``tools/call`` a session makes, from the bytes its transport moved.

The tap sits under a connection the application already has (its ``httpx`` client, or its stdio
streams), records every frame before the SDK parses it, and follows each connection with the
shared :class:`~mcp_verdict.frames.Tracker` (pairing by connection and JSON-RPC id with its JSON
type, the version, capabilities and extensions in force for each request). A call is judged by
``classify`` on the exact answer bytes — never on the SDK's leniently parsed result.

Which answer belongs to which call: while a call is judged (:meth:`VerdictTap.call_tool`, or the
:meth:`VerdictTap.judging` context), the session's write stream is the tap's proxy; the proxy runs
in the caller's task when the SDK writes the request, so it learns the exact id the SDK gave that
request (a context variable says which judged call is running). The connection is known exactly
for the tap's own stdio transport and for sessions the adapters build; for a session built by the
application over :meth:`VerdictTap.http_client`, the proxy is linked to the connection whose
outgoing frames carry the same requests (method, id and params), which is exact as soon as the
two sessions differ in one request — and trivially so with one connection. 50 calls in flight,
answered in any order, each get the verdict of their own answer.

A judged block that is cancelled (the caller's ``anyio.move_on_after``, ``asyncio.wait_for``)
judges the calls it sent without their answers at once: ``unclassified``, ``transport.cancelled``,
their effect unknown (``check_state``), on the tap's history and its observers (a span of its own,
with error status, where the stack's span ended unset). An answer arriving later is that call's
late answer: judged on its own bytes and kept on the history (``TapCall.late``), so what the
server did with the cancelled request can be seen; never handed to the caller, never another
call's answer.
"""

from __future__ import annotations

import itertools
import sys
import time
import warnings
import weakref
from collections import OrderedDict, deque
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from decimal import Decimal
from os import PathLike
from typing import Any, Final, Literal

import msgspec

from ..frames import (
    Answered,
    Exchange,
    FrameLogWriter,
    FrameRecord,
    Peek,
    Seen,
    Stray,
    Tracker,
    Unanswered,
    answer_peek,
    id_key,
    names_method,
    peek,
)
from ..frames._jsonrpc import id_text
from ..frames._sendable import check_call
from ..frames._tasks import ends_task, related_task, task_reused, task_taken
from ..frames._tools import problem_words
from ..judgement._check import Expectation
from ..judgement._decide import DEFAULT_RETRY, RetryPolicy
from ..judgement._outcome import Observe, Outcome, evaluate_defaults, evaluate_listed, settle
from ..judgement._schema import DEFAULT_SCHEMA_LIMITS, CompiledSchema, SchemaLimits, compile_key, schema_key
from ..judgement._suspect import DEFAULT_SUSPECTS, Suspect
from ..verdict._classify import DEFAULT_LIMITS, AbsentResultType, Limits, OptionError, check_option, classify
from ..verdict._findings import Finding, refused, refuses
from ..verdict._input import RefusedAsks, judge_server_request, refused_findings
from ..verdict._judge import OptionsMemo, held_id, judge
from ..verdict._kind import Kind
from ..verdict._peer_text import utf8_text
from ..verdict._verdict import Verdict, make_verdict
from ..verdict._versions import LATEST_VERSION, VERSIONS
from ._block import _CURRENT, Judged, WriteProxy, _is_cancelled
from ._conn import (
    _ALL_TOOLS_BYTES,
    _CLOSED_KEPT,
    _KEEP,
    _NOISE_SHOWN,
    _TOOLS_BYTES,
    _TOOLS_KEPT,
    _UNCLAIMED,
    Attempt,
    _Conn,
    _Failure,
    _mark_noise,
    _sent_again,
    _with_noise,
    _with_refused,
)
from ._error import local_verdict
from ._history import _HISTORY_BIG, HISTORY_BYTES, TapCall, _bound_history, _Held, held_bytes
from ._options import _OPTIONS_CHECKED, _attempt, _checked_options
from ._sdk import request_of, session_of, write_stream_of

Direction = Literal["c2s", "s2c"]
_ASKS: Final = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
"""A 2025 server's own input requests (JSON-RPC requests to the client while a call waits)."""
_TASK_METHODS: Final = frozenset({"tasks/get", "tasks/result", "tasks/update", "tasks/cancel"})
"""A task's requests (2025-11-25 basic/utilities/tasks): the tracker gives them its call."""
_TASK: Final = Kind.TASK
_TASK_END_READ: Final = frozenset({"tasks/get", "tasks/result"})
"""The polls whose answer may say a task ended (:meth:`VerdictTap._task_polled`)."""


class _TaskCall:
    """A call the tap judged a task (:meth:`VerdictTap._task_judged`): the tools/call (its call
    on the tracker, its context), the call as first judged and as it is now, the requests refused
    while the task ran (:meth:`VerdictTap._task_refused`), and what it counts against the bound."""

    __slots__ = ("asks", "block", "ended", "exchange", "first", "index", "now", "size", "taken")

    def __init__(self, exchange: Exchange, call: TapCall, size: int) -> None:
        self.exchange = Exchange(exchange.conn, exchange.origin, exchange.method, exchange.request_id,
                                 Seen(b"", exchange.request.at, exchange.request.seq, exchange.request.http), None,
                                 exchange.context, exchange.call, exchange.round, exchange.tool, exchange.task_id)
        """The tools/call without its bytes (its context and call are read: the call holds them)."""
        self.first = self.now = call
        self.asks = RefusedAsks()
        self.size = size
        self.ended = False
        """The task's end was answered (:meth:`VerdictTap._task_polled`), or its id was created
        again (:meth:`VerdictTap._task_taken`): a request made afterwards is not the task's (it may
        still be the call's waiting then, by its exchange or alone)."""
        self.taken: tuple[str, Any] | None = None
        """(the task id, the request id of the tools/call whose answer created it again) once its
        id was created again while it ran (:meth:`VerdictTap._task_taken`)."""
        self.block: weakref.ref[Judged] | None = None
        """The judging block that holds the call (weakly), its ``index``-th: the call judged again
        is put in its place there too (:meth:`VerdictTap._judged_again`), so the block keeps it as
        it is now once the tap lets the task go (its bound)."""
        self.index = 0


_REUSED: Final = ("another request went out under the same id on this HTTP client while it waited (two sessions "
                  "share one tap.http_client(): give each its own); the tap cannot tell their answers apart")


class VerdictTap:
    """Records MCP connections at the byte level and judges their ``tools/call`` answers.

    ``frame_log``: a path (or a :class:`~mcp_verdict.frames.FrameLogWriter`) to write every frame
    to, in the frame log format v1 that the proxy writes and the audit reads; ``log_payloads=False``
    writes digests instead of bytes. ``trusted_server``, ``limits`` and ``absent_result_type`` are
    the defaults of every judgement (each call may override them).
    """

    def __init__(self, *, frame_log: str | PathLike[str] | FrameLogWriter | None = None,
                 log_payloads: bool = True, default_version: str = LATEST_VERSION,
                 trusted_server: bool = False, limits: Limits = DEFAULT_LIMITS,
                 absent_result_type: AbsentResultType = "invalid", name: str = "tap") -> None:
        # the defaults of every judgement, checked here (an OptionError before any connection),
        # not by the first answer judged, inside a transport's read loop
        if trusted_server is not True and trusted_server is not False:
            raise OptionError("trusted_server", "True or False", trusted_server)
        if log_payloads is not True and log_payloads is not False:
            raise OptionError("log_payloads", "True or False", log_payloads)
        check_option("limits", limits)
        check_option("absent_result_type", absent_result_type)
        if not isinstance(default_version, str) or default_version not in VERSIONS:
            expected = f"one of {', '.join(VERSIONS)}"
            raise OptionError("default_version", expected, default_version)
        if not isinstance(name, str):
            raise OptionError("name", "a string", name)
        self.tracker = Tracker(default_version=default_version)
        self._asks: list[Exchange] = []
        """The server requests the tracker saw in the frame being fed (``Tracker.server_requests``),
        judged and let go at once (:meth:`_asked`)."""
        self.tracker.server_requests = self._asks
        self._tasks: OrderedDict[tuple[str, int], _TaskCall] = OrderedDict()
        """The calls judged a task (2025-11-25: their answer the task's handle), by connection and
        call on the tracker (``Exchange.call``, which the task's polls share): the requests the
        server makes while the task runs are theirs (:meth:`_task_refused`). The last ``_KEEP``,
        and of them no more than :data:`HISTORY_BYTES` (each counted by :func:`held_bytes`; the
        newest kept whatever its size): a task's call no longer kept owns no request."""
        self._tasks_size = 0
        self._fresh: _TaskCall | None = None
        """The task call :meth:`_task_judged` kept last, until a judging block takes it (:meth:`_hold`)."""
        self._amended: dict[int, _TaskCall] = {}
        """id of a task's call as first judged -> its entry in ``_tasks``, once a request refused
        while the task ran judged it again (:meth:`_task_refused`): a judging block keeps its calls
        as first judged and reads them through this (:meth:`Judged._now`)."""
        self._options = OptionsMemo()  # classify's options per request context, checked once (of)
        self.default_version = default_version
        self.trusted_server = trusted_server
        self.limits = limits
        self.absent_result_type: AbsentResultType = absent_result_type
        self.name = name
        if isinstance(frame_log, FrameLogWriter) or frame_log is None:
            self.log = frame_log
        else:
            self.log = FrameLogWriter(frame_log, payloads=log_payloads)
        self._own_log = self.log is not None and not isinstance(frame_log, FrameLogWriter)
        self._conns: dict[str, _Conn] = {}
        self._held = _Held()
        """The answers the kept connections hold for blocks that judge late, within one byte bound."""
        self._tools_size = 0
        """What the kept connections' tools count together (each ``_Conn.listed.size``)."""
        self._closed: deque[str] = deque()
        self._numbers = itertools.count(1)
        self._unlinked: weakref.WeakSet[WriteProxy] = weakref.WeakSet()
        """The proxies not linked to a connection yet (a session the application built, until a
        recorded connection carries one of its requests), held weakly: the proxy of a session that
        ends unlinked (built over a client the tap does not record, or that sent nothing) goes with
        it, and the requests it noted (``WriteProxy.sent``, arguments included) with it."""
        self._claims: dict[tuple[str, tuple[str, Any]], tuple[Judged, int]] = {}
        """(connection, id key) of each tools/call a judging block sent -> (the block, the call's
        index in it): its answer is judged for that block when it arrives. A plain dict: a claim
        is set and popped once per judged call, which an OrderedDict makes cost ~1,600
        instructions more (its index of nodes is rebuilt each time the dict's table is); past
        ``_KEEP`` claims (blocks that never asked for calls whose answers never came) the oldest
        is dropped by a scan from the table's start, bounded by the table's size."""
        self.observers: list[Any] = []
        """Told of every judged call (``mcp_verdict.otel.instrument`` adds one): ``sent(name,
        request_id)`` in the caller's task when the request is written, returning a token, and
        ``judged(call, token)`` once the call is judged — when its answer arrives, if the
        connection is known then, so the stack's own span for the call is still open."""
        self.history: deque[TapCall] = deque(maxlen=100)
        """The last judged calls, oldest first: at most 100, and, once a call whose request or
        answer is over 16 KiB is kept, at most :data:`HISTORY_BYTES` of what they hold: per call
        its request's and answer's bytes and an upper bound of the parsed answer its verdict
        holds (:func:`held_bytes`; the newest call is always kept whole): 100 answers of 50 MB
        would otherwise hold 5 GB and their parsed answers as much again (JSON of small objects:
        up to 35 times its bytes)."""
        self.log_error: str | None = None
        """Why the frame log stopped (a write failed: a full disk...); the calls go on unlogged."""

    def _write(self, record: FrameRecord) -> None:
        """One record to the frame log; a failed write stops the log (once, with a warning), never
        the connection or its calls."""
        log = self.log
        if log is None:
            return
        try:
            log.write(record)
        except (OSError, ValueError) as exc:
            self.log = None
            self.log_error = f"{type(exc).__name__}: {exc}"
            warnings.warn(f"mcp-verdict tap: the frame log stopped: {self.log_error}", RuntimeWarning, stacklevel=2)

    # -- connections ----------------------------------------------------------------------------
    def _open(self, transport: Literal["stdio", "http"], note: str) -> str:
        conn = f"{self.name}-{next(self._numbers)}"
        state = self._conns[conn] = _Conn(conn, transport)
        judged = _CURRENT.get()
        if judged is not None:
            judged.opened.append(conn)
        if self.log is not None:
            self._write(FrameRecord(conn, next(state.seq), time.time(), "c2s", "open", note=note,
                                    transport=transport))
        return conn

    def _close(self, conn: str, reason: str) -> None:
        state = self._conns.get(conn)
        if state is None or state.closed is not None:
            return
        state.closed = reason
        for event in self.tracker.close(conn, reason):
            exchange = event.exchange if isinstance(event, Unanswered) else None
            if exchange is not None and exchange.origin == "client" and exchange.method == "tools/call":
                state.ended[id_key(exchange.request_id)] = exchange
                if len(state.ended) > _UNCLAIMED:
                    state.ended.popitem(last=False)
        if self.log is not None:
            self._write(FrameRecord(conn, next(state.seq), time.time(), "s2c", "close", note=reason,
                                    transport=state.transport))
        if state.proxy is not None:
            self._unlinked.discard(state.proxy)
        self._closed.append(conn)
        while len(self._closed) > _CLOSED_KEPT:
            forgotten = self._conns.pop(self._closed.popleft(), None)
            if forgotten is not None:
                self._held.forget(forgotten)
                self._forget_tools(forgotten)

    def _note(self, conn: str, direction: Direction, kind: Literal["eof", "error", "noise", "refused"],
              note: str, data: bytes | None = None, http: Mapping[str, Any] | None = None, *,
              status: int | None = None, retry_after: int | None = None) -> None:
        """One frame of ``conn`` that is no message; an ``error`` of an HTTP exchange is kept as its
        failure, with the ``status`` and ``retry_after`` of an HTTP error response (no JSON-RPC answer)."""
        state = self._conns.get(conn)
        if state is None:
            return
        seq = next(state.seq)
        if self.log is not None:
            self._write(FrameRecord(conn, seq, time.time(), direction, kind,
                                    data if kind in ("noise", "refused") else None, note=note,
                                    transport=state.transport, http=http or None))
        exchange = http.get("exchange") if http else None
        if kind == "error" and isinstance(exchange, int):
            state.failures[exchange] = _Failure(note, status, retry_after)
            if len(state.failures) > _KEEP:
                del state.failures[next(iter(state.failures))]
        elif kind == "noise" and data is not None:
            state.noise.append((seq, data[:_NOISE_SHOWN + 1]))  # what a verdict shows of it (_preview)
            if state.noise_from is None:
                state.noise_from = seq
            state.noise_count += 1

    def _id_reused(self, state: _Conn, key: tuple[str, Any], exchange: int) -> None:
        """HTTP: a request goes out in ``exchange`` under the id of a request still waiting on the
        same client: two sessions share one ``tap.http_client()``, and their ids are counted apart.
        An answer names its request by id alone, so neither answer can be told from the other's:
        the waiting request is judged now without its answer (``transport.error``, saying why) and
        no longer waited for, and the new one is once it is recorded (:meth:`_reused_sent`) —
        never one session's call judged by the other's answer."""
        earlier = state.exchange_of.get(key)
        if isinstance(earlier, int):
            self._ambiguous(state, key, earlier)
        state.reused[exchange] = key
        while len(state.reused) > _KEEP:
            del state.reused[next(iter(state.reused))]

    def _reused_sent(self, conn: str, exchange: int) -> None:
        """HTTP: the request of ``exchange`` is recorded; when its id was reused (:meth:`_id_reused`)
        it is judged now without its answer and no longer waited for."""
        state = self._conns.get(conn)
        if state is None or not state.reused:
            return
        key = state.reused.pop(exchange, None)
        if key is not None:
            self._ambiguous(state, key, exchange)

    def _ambiguous(self, state: _Conn, key: tuple[str, Any], exchange: int) -> None:
        state.failures[exchange] = _Failure(_REUSED)
        if len(state.failures) > _KEEP:
            del state.failures[next(iter(state.failures))]
        older = state.answered.pop(key, None)  # an older answer under this id is no answer to this request
        if older is not None:
            self._held.drop(older)
        claim = self._claims.pop((state.id, key), None)
        if claim is not None:
            judged, index = claim
            if index not in judged._eager and index >= len(judged._done):
                _, request_id, name = judged.sent[index]
                self._place(judged, index, self._judge(state, request_id, name, judged._options, None,
                                                       attempt=judged._attempt))
                return
        self.tracker.forget(state.id, "client", key)

    def _not_sent(self, conn: str, data: bytes) -> None:
        """A request recorded on its way out whose sending failed (HTTP: no connection; stdio:
        the server's stdin closed)."""
        look = peek(data)
        state = self._conns.get(conn)
        if look.kind == "request" and state is not None:
            self._unsent(state, id_key(look.id))

    def _not_written(self, conn: str, request_id: Any, why: str) -> None:
        """A request the SDK could not write (stdio): noted, and judged not sent, for ``why``."""
        self._note(conn, "c2s", "error", why)
        state = self._conns.get(conn)
        if state is None:
            return
        key = id_key(request_id)
        state.unwritten[key] = why
        state.unwritten.move_to_end(key)
        self._unsent(state, key)

    def _unsent(self, state: _Conn, key: tuple[str, Any]) -> None:
        """Mark request ``key`` not sent (the last ``_KEEP`` marks are kept, with why each was
        not written), and judge it now when a judging block waits for it: its mark is cleared
        when a request is sent again under its id, so it is judged before that can happen."""
        marks = state.not_sent
        marks[key] = None
        marks.move_to_end(key)
        if len(marks) > _KEEP:
            state.unwritten.pop(marks.popitem(last=False)[0], None)
        claim = self._claims.pop((state.id, key), None)
        if claim is None:
            return
        judged, index = claim
        if index in judged._eager or index < len(judged._done):
            return
        _, request_id, name = judged.sent[index]
        self._place(judged, index, self._judge(state, request_id, name, judged._options, None,
                                               attempt=judged._attempt))

    def _feed(self, conn: str, direction: Direction, data: bytes,
              http: Mapping[str, Any] | None = None) -> list[Any]:
        """One frame of ``conn``: log it, follow it, keep what judging needs. Never raises."""
        state = self._conns.get(conn)
        if state is None:  # a frame after the connection closed and was forgotten (_CLOSED_KEPT)
            return []
        seq = next(state.seq)
        at = time.time()
        if self.log is not None:
            self._write(FrameRecord(conn, seq, at, direction, "message", data, transport=state.transport,
                                    http=http or None))
        look = first = None
        if direction == "c2s":
            if state.noise_count:  # where a call's noise starts (a request)
                _mark_noise(state, seq)
            if http is not None or self._unlinked:
                look = peek(data)  # read once: the Tracker is given it
                if look.kind == "request":
                    key = id_key(look.id)
                    if look.method == "tools/call":
                        name = look.params.get("name")
                        state.tool_calls.append((look.id, name if isinstance(name, str) else None))
                    if http is not None and isinstance(http.get("exchange"), int):
                        if key in state.exchange_of and key not in state.not_sent \
                                and self.tracker.waiting(conn, "client", key) is not None:
                            self._id_reused(state, key, http["exchange"])  # two sessions over one client
                        state.exchange_of[key] = http["exchange"]
                        if len(state.exchange_of) > _KEEP:
                            state.exchange_of.popitem(last=False)
                    if self._unlinked and state.proxy is None:
                        self._link(state, look.method or "", key, look.params)
            if state.not_sent:  # a request sent again under an id that was not sent
                if look is None:
                    look = peek(data)
                if look.kind == "request":
                    _sent_again(state, id_key(look.id))
        elif self._claims:  # an answer, maybe a judged call's: judged first when its request can be guessed
            first = self._judge_first(conn, data)
            if first is not None:
                look = first[2]
        events = self.tracker.feed(conn, direction, data, at=at, seq=seq, http=http, look=look)
        if direction == "c2s" and state.calls_waiting is not None:
            opened = self.tracker.opened(conn)
            if opened is not None and (opened.method == "tools/call" or (
                    opened.method in _TASK_METHODS and self._tasks and (conn, opened.call) in self._tasks)):
                self._call_waits(state, opened)
        asks = self._asks
        if asks:  # a 2025 server's requests: judged when seen, whatever the client does with them
            for request in asks:
                if request.method in _ASKS:
                    self._asked(state, request)
            asks.clear()
        if first is not None and len(events) == 1:
            answered = events[0]
            if type(answered) is Answered:
                exchange = answered.exchange
                response = exchange.response
                if exchange.request is first[0].request and response is not None:
                    # the call _judge_first judged, paired with its request: what the loop below does
                    # with it, without its tests (_judge_first's passed, and nothing changed since the
                    # tracker is sans-I/O): ~1,600 instructions less per judged call (valgrind)
                    if state.noise_count:  # where the call's noise ends (its answer)
                        _mark_noise(state, seq)
                    judged = self._claims.pop(first[3])[0]
                    judged._done.append(self._judge_answered(state, exchange, response.data, first[1]))
                    if self._fresh is not None:  # (a task's handle: its block noted)
                        self._hold(judged, len(judged._done) - 1, judged._done[-1])
                    return events
        for event in events:
            if type(event) is Answered:
                exchange = event.exchange
                if exchange.origin != "client":  # (a server's request: judged when it came, _asked)
                    continue
                method = exchange.method
                if method != "tools/call":
                    if method == "tools/list":
                        self._tools(state, exchange)
                    elif method in _TASK_METHODS and self._tasks:
                        self._task_polled(state, exchange)
                    continue
                if state.noise_count:  # where the call's noise ends (its answer)
                    _mark_noise(state, seq)
                request_id = exchange.request_id
                key = ("int", request_id) if type(request_id) is int else id_key(request_id)  # (id_key's int here)
                claim = self._claims.pop((conn, key), None)
                if claim is not None:  # judged now, while the stack's span for the call is open
                    judged, index = claim
                    response = exchange.response
                    if index == len(judged._done) and not judged._eager and response is not None \
                            and not judged._options and judged._attempt is None and not self.observers:
                        # _judge_now's common case (the block's next call, judged with the tap's
                        # defaults: what _judge_first tests too), written out (the call costs ~1,000
                        # instructions per judged call, count_tap.py)
                        judged._done.append(self._judge_answered(
                            state, exchange, response.data,
                            first[1] if first is not None and first[0].request is exchange.request else None))
                        if self._fresh is not None:  # (a task's handle: its block noted)
                            self._hold(judged, index, judged._done[-1])
                    else:
                        self._judge_now(claim, exchange, state)
                    continue
                if state.cancelled and key in state.cancelled:  # cancelled before its request went out
                    self._late_answered(state, key, exchange)
                    continue
                self._held.answer(state, key, exchange)  # for a call whose block learns its id later
            elif isinstance(event, Stray) and direction == "s2c":
                self._held.stray(state, event)
                if state.cancelled:
                    self._late(state, event)
        return events

    def _asked(self, state: _Conn, request: Exchange) -> None:
        """A 2025 server's elicitation, sampling or roots request, as it comes (before the client
        answers it, if it ever does: what the server sent is judged, whatever the client does):
        judged as mcp-verdict's client judges one (``_input.judge_server_request``: its bytes, then
        the rules of the call's version and the client's declared capabilities) when it was made
        during a call (:meth:`_asking`); one it refuses gives that call's verdict its findings
        (:func:`_with_refused`; a task's call, judged already, is judged again with them:
        :meth:`_task_refused`), as the client's and the audit's do. Each request is judged once."""
        call = self._asking(state, request)
        if call is None:
            return
        method = request.method
        asked = judge_server_request(request.request.data, method,
                                     self._options.of(call.context, self.absent_result_type, self.limits))
        if asked.kind is Kind.INPUT_REQUIRED:
            return
        found = refused_findings(method, asked)
        task = self._tasks.get((state.id, call.call)) if self._tasks else None
        if task is not None:
            self._task_refused(task, found)
        else:
            state.refused.add(id_key(call.request_id), call.request.seq, found)

    def _task_judged(self, state: _Conn, exchange: Exchange, call: TapCall) -> None:
        """``call``, the tools/call ``exchange`` judged a task: the requests the server makes while
        the task runs are its (:meth:`_task_refused`); kept within ``_tasks``' bounds."""
        tasks = self._tasks
        key = (state.id, exchange.call)
        older = tasks.pop(key, None)
        if older is not None:
            self._forget_task(older)
        size = call.held or held_bytes(call)
        tasks[key] = self._fresh = _TaskCall(exchange, call, size)
        self._tasks_size += size
        self._bound_tasks()

    def _hold(self, judged: Judged, index: int, call: TapCall) -> None:
        """``call``, just judged, is the ``index``-th of the block ``judged``: when it is the task
        call :meth:`_task_judged` just kept, the task notes its block (:attr:`_TaskCall.block`)."""
        task, self._fresh = self._fresh, None
        if task is not None and task.first is call:
            task.block = weakref.ref(judged)
            task.index = index

    def _created(self, state: _Conn, exchange: Exchange, verdict: Verdict, task_id: str) -> Verdict:
        """``verdict``, the answer to the tools/call ``exchange`` that created the task ``task_id``,
        when another call of the connection created that task id earlier (the tracker's
        :meth:`~mcp_verdict.frames.Tracker.task_creator`, before or after it is fed this answer):
        while the tap keeps that call's task running, ``unclassified`` naming the reuse
        (:func:`task_reused`: the tasks' requests are neither call's, the first call's verdict its
        own), as the audit judges it; once that task ended (or the tap let it go), the id is this
        call's."""
        tasks = self._tasks
        reused, first = self.tracker.task_reuse(state.id, task_id, exchange.call, lambda call: (
            task if tasks and (task := tasks.get((state.id, call))) is not None and not task.ended else None))
        if not reused:
            return verdict
        if first is None:  # created twice already, the first task not ended then: a reuse again
            return task_reused(verdict, task_id)
        self._task_taken(first, task_id, exchange.request_id)
        return task_reused(verdict, task_id, first.exchange.request_id)

    def _task_taken(self, task: _TaskCall, task_id: str, request_id: Any) -> None:
        """``task``'s id, its task not ended, was created again by the answer to the tools/call
        ``request_id``: its call's outcome can no longer be known (the polls and requests naming
        the id cannot be told to be its task's). The call is judged again, ``unclassified`` with a
        finding naming the reuse after its own and its task's refused requests' (``task_taken``,
        as the audit ends it), on the history and in its judging block; its task owns no request
        from now on (``ended``)."""
        task.ended = True
        task.taken = (task_id, request_id)
        found = task_taken(task.first.verdict, task_id, request_id).findings[-1]
        grown = sys.getsizeof(found.message) + sys.getsizeof(found.path)
        task.size += grown
        self._tasks_size += grown
        self._judged_again(task)

    def _bound_tasks(self) -> None:
        """The oldest task calls let go past ``_KEEP`` of them or :data:`HISTORY_BYTES` (the newest
        kept whatever its size); a connection that lost one says so (``_Conn.tasks_forgotten``)."""
        tasks = self._tasks
        while len(tasks) > 1 and (len(tasks) > _KEEP or self._tasks_size > HISTORY_BYTES):
            (conn, _), task = tasks.popitem(last=False)
            self._forget_task(task)
            state = self._conns.get(conn)
            if state is not None:
                state.tasks_forgotten = True

    def _task_polled(self, state: _Conn, exchange: Exchange) -> None:
        """A poll of a task the tap judged (``exchange``, answered) that answers the task's end
        (:func:`~mcp_verdict.frames._tasks.ends_task`, as the audit reads it: a ``tasks/result``
        answered, a ``tasks/get`` terminal, failed or unreadable): the task no longer owns the
        requests the server makes (:meth:`_asking`)."""
        task = self._tasks.get((state.id, exchange.call))
        if task is None or task.ended or exchange.method not in _TASK_END_READ:
            return
        if ends_task(exchange):
            task.ended = True

    def _forget_task(self, task: _TaskCall) -> None:
        self._tasks_size -= task.size
        if self._fresh is task:
            self._fresh = None
        if self._amended.get(id(task.first)) is task:
            del self._amended[id(task.first)]

    def _task_refused(self, task: _TaskCall, found: tuple[Finding, ...]) -> None:
        """A request refused while ``task`` ran (after its call was judged: its answer was the
        task's handle): the call is judged again, ``unclassified`` with the findings of its task's
        refused requests after its answer's (the first ``REFUSED_KEPT``, then one counting the
        others), in place of what it was, on the history and in its judging block
        (:meth:`Judged.calls`). Observers were told of the call when its handle came: not again."""
        kept = len(task.asks.kept)
        task.asks.add(found)
        if len(task.asks.kept) > kept:  # its findings held (peer text: a path holds its names, bounded)
            grown = sum(sys.getsizeof(f.message) + sys.getsizeof(f.path) for f in found)
            task.size += grown
            self._tasks_size += grown
        self._judged_again(task)

    def _judged_again(self, task: _TaskCall) -> None:
        """``task``'s call judged again, as it is now (:meth:`_task_refused`, :meth:`_task_taken`):
        its findings, its task's refused requests', and the reuse of its id if its id was created
        again; in place of what it was, on the history and in its judging block."""
        first, before = task.first, task.now
        taken = task.taken
        verdict = task.asks.verdict(first.verdict) if taken is None else \
            task_taken(first.verdict, taken[0], taken[1], task.asks.findings())
        now = task.now = msgspec.structs.replace(first, verdict=verdict,
                                                 outcome=replace(first.outcome, verdict=verdict))
        self._amended[id(first)] = task
        block = task.block() if task.block is not None else None
        if block is not None:  # in its place in its block too: what the block keeps once the tap lets the task go
            index, done = task.index, block._done
            if index < len(done) and (done[index] is before or done[index] is first):
                done[index] = now
            else:
                eager = block._eager.get(index)
                if eager is not None and (eager is before or eager is first):
                    block._eager[index] = now
        if self._tasks_size > HISTORY_BYTES:
            self._bound_tasks()
        history = self.history
        response = first.response  # (the handle's bytes: the history's entry of the call holds them, as first
        for index in range(len(history) - 1, -1, -1):  # judged, or as kept since: a late answer's, a slimmed tool's)
            shown = history[index]
            if shown is before or (response is not None and shown.response is response):
                history[index] = task.now if shown is before or shown is first else msgspec.structs.replace(
                    shown, verdict=verdict, outcome=replace(shown.outcome, verdict=verdict))
                break

    def _current_of(self, call: TapCall) -> TapCall:
        """``call`` as it is now: judged again if it is a task's (:meth:`_task_refused`)."""
        task = self._amended.get(id(call))
        return task.now if task is not None and task.first is call else call

    def _call_waits(self, state: _Conn, exchange: Exchange) -> None:
        """The client's ``exchange`` (a tools/call, or a poll of a task the tap judged) began to
        wait: kept in ``state.calls_waiting`` (rebuilt past twice the requests waiting, and 64)."""
        calls = state.calls_waiting
        assert calls is not None  # (made by the connection's first server request: _asking)
        calls[id_key(exchange.request_id)] = exchange
        if len(calls) > 64 and len(calls) > 2 * self.tracker.waiting_count(state.id):
            waiting = self.tracker.waiting
            state.calls_waiting = {key: held for key, held in calls.items()
                                   if (found := waiting(state.id, "client", key)) is not None
                                   and found.request is held.request}

    def _calling(self, conn: str, exchange: Exchange) -> bool:
        """``exchange``, a client's request waiting, is one a server's request may be made during:
        a tools/call, or a poll of a task the tap judged that has not ended."""
        if exchange.method == "tools/call":
            return True
        if exchange.method not in _TASK_METHODS:
            return False
        task = self._tasks.get((conn, exchange.call))
        return task is not None and not task.ended

    def _asking(self, state: _Conn, request: Exchange) -> Exchange | None:
        """The client's request (its tools/call, or a poll of a task the tap judged) a server
        request was made during, as the audit finds it: on 2025-11-25, the task the request names
        in its ``io.modelcontextprotocol/related-task`` metadata (basic/utilities/tasks: a task's
        requests MUST carry it), when the tap judged the call that made it; else the one waiting on
        the HTTP exchange the request came in (Streamable HTTP: a server's requests about a call
        travel on that call's POST stream, or a task's poll's); else the only one waiting on the
        connection. None when none tells (several waiting, none in that exchange)."""
        tasks, conn = self._tasks, state.id
        named = related_task(request) if self.tracker.knows_tasks(conn) else None  # (read where a task was made)
        if named is not None:
            number = self.tracker.task_call(conn, named)
            task = tasks.get((conn, number)) if number is not None and tasks else None
            if task is not None and not task.ended:
                return task.exchange
            if task is None and number is not None and state.tasks_forgotten:
                return None  # a task of this connection the tap let go (its bound): its, not the call waiting's
            if number is None and (made := self.tracker.task_creator(conn, named)) is not None and made[1]:
                return None  # a task id two calls' answers created: its requests cannot be told apart
        tracker, calling = self.tracker, self._calling
        http = request.request.http
        number = http.get("exchange") if http else None
        if isinstance(number, int):  # (the requests of that exchange, looked up)
            same = [e for e in tracker.waiting_in(conn, "client", number) if calling(conn, e)]
            if len(same) == 1:
                return same[0]
        only: Exchange | None = None
        stale = []
        waiting = tracker.waiting
        calls = state.calls_waiting
        if calls is None:  # the connection's first server request: its calls waiting, kept from now on
            calls = state.calls_waiting = {
                id_key(e.request_id): e for e in tracker.pending(conn)
                if e.origin == "client" and (e.method == "tools/call" or e.method in _TASK_METHODS)}
        for key, exchange in calls.items():  # the only one waiting: the look-up stops at a second
            found = waiting(conn, "client", key)
            if found is None or found.request is not exchange.request:
                stale.append(key)  # (no longer waiting: let go)
            elif calling(conn, exchange):
                if only is not None:
                    only = None
                    break
                only = exchange
        for key in stale:
            del calls[key]
        return only

    def _late(self, state: _Conn, stray: Stray) -> None:
        """An answer to a call judged cancelled while it waited: judged as that call's late
        answer (on the history, ``late``), with the options of its block; no observer is told
        (the call's span has ended) and the SDK, which gave up on it, is handed what it always is."""
        look = stray.peek
        if look.kind not in ("response", "error") or not look.has_id:
            return
        key = id_key(look.id)
        found = state.cancelled.get(key)
        asked = found[0] if found is not None else None
        if found is None or asked is None:  # (a request not recorded going out answers nothing yet)
            return
        del state.cancelled[key]
        _, name, options, attempt = found
        answered = msgspec.structs.replace(asked, response=stray.seen, response_peek=look)
        call = self._judge(state, asked.request_id, name, options, None, answered, attempt=attempt)
        late = self.history[-1] = msgspec.structs.replace(call, late=True)
        task = self._tasks.get((state.id, asked.call)) if self._tasks else None
        if task is not None and task.first is call and call.verdict.task is not None:
            # a task's handle: the tracker, which no longer waited for it, learns its task (its polls and
            # requests are the call's), and the task's call is its late entry (judged again there: _task_refused)
            self.tracker.learn_task(state.id, call.verdict.task.task_id, asked.call)
            task.first = task.now = late

    def _late_answered(self, state: _Conn, key: tuple[str, Any], exchange: Exchange) -> None:
        """The answer to a call judged cancelled before the tap recorded its request going out (it
        went out afterwards, and was paired with it): that call's late answer, as :meth:`_late`
        judges one."""
        _, name, options, attempt = state.cancelled.pop(key)
        call = self._judge(state, exchange.request_id, name, options, None, exchange, attempt=attempt)
        late = self.history[-1] = msgspec.structs.replace(call, late=True)
        task = self._tasks.get((state.id, exchange.call)) if self._tasks else None
        if task is not None and task.first is call:  # a task's handle: its call is the late entry
            task.first = task.now = late

    def _judge_now(self, claim: tuple[Judged, int], exchange: Exchange, state: _Conn) -> None:
        judged, index = claim
        if index in judged._eager or index < len(judged._done):
            return
        response = exchange.response
        call = self._judge_answered(state, exchange, response.data) \
            if response is not None and not judged._options and judged._attempt is None \
            else self._judge(state, exchange.request_id, exchange.tool, judged._options, None, exchange,
                             attempt=judged._attempt)
        self._place(judged, index, call)

    def _place(self, judged: Judged, index: int, call: TapCall) -> None:
        """A call of ``judged`` (its ``index``-th tools/call) judged before the block asked for it."""
        if index == len(judged._done):
            judged._done.append(call)  # the next call of the block, in order: where ``calls`` would put it
        else:
            judged._eager[index] = call
        if self._fresh is not None:
            self._hold(judged, index, call)
        if self.observers:
            self._observe(call, judged.tokens[index] if index < len(judged.tokens) else [])

    def _observe(self, call: TapCall, tokens: list[Any]) -> None:
        if not self.observers:
            return
        for observer, token in zip(self.observers, tokens or [None] * len(self.observers), strict=False):
            try:
                observer.judged(call, token)
            except Exception:  # an observer's failure never changes a verdict
                continue

    def _tools(self, state: _Conn, exchange: Exchange) -> None:
        """Keep the tools a ``tools/list`` answer lists on ``state`` by the rule of
        ``frames._tools`` (a tool listed again replaces its earlier definition; a whole listing,
        from its first page to the page with no ``nextCursor``, replaces the tools kept: one it
        no longer lists is forgotten, its calls judged as a tool whose listing was not kept),
        within a budget: at most ``_TOOLS_KEPT`` tools and ``_TOOLS_BYTES``
        (:func:`frames._tools.tool_size`) per connection, and ``_ALL_TOOLS_BYTES`` for all the
        connections kept (the oldest closed connections' tools forgotten first). A tool past it
        is not kept: its calls are judged as a tool whose listing was not kept (no outputSchema,
        no annotations: a tool that may write), and a ``RuntimeWarning`` says how many were not.
        An answer no strict parser reads (a member name given twice: the SDK's reader and the
        tap's may keep different copies) teaches nothing (the tools kept before stay), and a
        ``RuntimeWarning`` names its finding, once per connection and finding code."""
        kept, unkept, problem = state.listed.listed(
            exchange, self._reserve_tools, lambda name, tool, size: self._dropped_tool(state, name, tool, size))
        if problem is not None:
            if problem.code not in state.unread_told:
                state.unread_told.add(problem.code)
                warnings.warn(f"mcp-verdict tap: {state.id}'s tools/list answer is read by no strict parser "
                              f"({problem_words(problem)}): nothing of it was kept, so the calls of a tool "
                              "it lists are judged by the definition kept before, if any, else as a tool whose "
                              "listing was not kept (no outputSchema, no annotations); this connection's later "
                              "answers with this finding are not told", RuntimeWarning, stacklevel=2)
            return
        tools, schemas = state.tools, state.schemas
        for name in kept:
            tool = tools.get(name)
            if tool is not None and "outputSchema" in tool:
                schemas[name] = schema_key(tool["outputSchema"])
        if unkept:
            state.tools_unkept += unkept
            warnings.warn(f"mcp-verdict tap: {state.id} listed {unkept} tool(s) past the tap's budget "
                          f"({_TOOLS_KEPT} tools, {_TOOLS_BYTES // (1024 * 1024)} MiB per connection, "
                          f"{_ALL_TOOLS_BYTES // (1024 * 1024)} MiB in all): their calls are judged as tools "
                          "whose listing was not kept (no outputSchema, no annotations)", RuntimeWarning, stacklevel=2)

    def _dropped_tool(self, state: _Conn, name: str, tool: dict[str, Any], size: int) -> None:
        """Forget what ``state`` made of tool ``name``, which its listed tools dropped (its schema,
        compiled schema and share of ``_ALL_TOOLS_BYTES``; a large one, the history's hold on it)."""
        state.schemas.pop(name, None)
        state.compiled.pop(name, None)
        self._tools_size -= size
        if size > _HISTORY_BIG:
            self._slim_history({id(tool): tool})

    def _forget_tools(self, state: _Conn) -> None:
        """Forget every tool ``state`` keeps (a forgotten connection, or a closed one making room)."""
        listed = state.listed
        large = {id(listed.tools[name]): listed.tools[name] for name, size in listed.sizes.items()
                 if size > _HISTORY_BIG and name in listed.tools}
        self._tools_size -= listed.size
        listed.clear()
        state.schemas.clear()
        state.compiled.clear()
        if large:
            self._slim_history(large)

    def _slim_history(self, forgotten: dict[int, dict[str, Any]]) -> None:
        """The calls on the history judged by a large tool the tap no longer keeps (``forgotten``,
        by id: a listing replaced it, or its connection's tools were forgotten) keep of it what
        their decision reads (:func:`_slim_tool`), so the history never holds more tools than the
        connections do: 100 calls would otherwise hold 100 listings of a huge schema."""
        history = self.history
        for index, call in enumerate(history):
            tool = call.outcome.tool
            listed = forgotten.get(id(tool)) if tool is not None else None
            if listed is not None and listed is tool:
                history[index] = msgspec.structs.replace(call, outcome=replace(call.outcome, tool=_slim_tool(listed)))

    def _reserve_tools(self, size: int) -> bool:
        """Whether a tool of ``size`` fits in ``_ALL_TOOLS_BYTES``, after forgetting the tools of
        the oldest closed connections as needed; when it does, it is counted there."""
        if not self._room_for_tools(size):
            return False
        self._tools_size += size
        return True

    def _room_for_tools(self, size: int) -> bool:
        """Whether a tool of ``size`` fits in ``_ALL_TOOLS_BYTES``, after forgetting the tools of
        the oldest closed connections as needed."""
        if self._tools_size + size <= _ALL_TOOLS_BYTES:
            return True
        for conn in self._closed:
            closed = self._conns.get(conn)
            if closed is not None and closed.listed.size:
                self._forget_tools(closed)
                if self._tools_size + size <= _ALL_TOOLS_BYTES:
                    return True
        return False

    @staticmethod
    def _listed_schema(state: _Conn, name: str, limits: SchemaLimits) -> CompiledSchema | None:
        """The outputSchema of tool ``name`` as the connection's tools/list gave it, compiled (once
        per listing and schema limits): what its calls are held to, whatever becomes of the dict
        :meth:`tool` returns. None when the listing had no outputSchema (or gave no JSON value)."""
        key = state.schemas.get(name)
        if key is None:
            return None
        known = state.compiled.get(name)
        if known is not None and known[0] is limits:
            return known[1]
        tool = state.tools.get(name)  # (as listed, unless a caller changed it: compile_key checks it against key)
        source = tool.get("outputSchema") if type(tool) is dict else None
        compiled = compile_key(key, "/outputSchema", limits, source)
        state.compiled[name] = (limits, compiled)
        return compiled

    def tool(self, name: str, conn: str | None = None) -> dict[str, Any] | None:
        """A tool's definition as a server listed it on the wire (the last seen, or on ``conn``)."""
        known = self._conns.get(conn) if conn is not None else None
        states = ([known] if known is not None else []) if conn is not None else reversed(list(self._conns.values()))
        for state in states:
            if name in state.tools:
                return state.tools[name]
        return None

    # -- linking proxies to connections -----------------------------------------------------------
    def _sent(self, proxy: WriteProxy, conn: str | None, item: Any) -> None:
        """``proxy`` sends ``item``; ``conn`` is the proxy's ``conn`` (read by ``send`` with the rest)."""
        judged = _CURRENT.get()
        if judged is None and conn is not None:
            return  # nothing to note: no judged call, and the connection is known
        request = request_of(item)
        if request is None:
            return
        method, request_id, params = request
        if judged is not None and method == "tools/call":
            name = params.get("name") if type(params) is dict else getattr(params, "name", None)
            if type(name) is not str and not isinstance(name, str):
                name = None
            sent = judged.sent
            sent.append((proxy, request_id, name))
            judged.tokens.append(self._sent_tokens(name, request_id) if self.observers else _NO_TOKENS)
            if conn is not None:
                claims = self._claims
                claims[(conn, ("int", request_id) if type(request_id) is int else id_key(request_id))] = \
                    (judged, len(sent) - 1)
                if len(claims) > _KEEP:
                    del claims[next(iter(claims))]
        if conn is None:
            plain = params if isinstance(params, Mapping) or params is None else _dump(params)
            proxy.sent.append((method, id_key(request_id), plain))

    def _sent_tokens(self, name: str | None, request_id: Any) -> list[Any]:
        """What each observer keeps of a tools/call sent (a span...); None for an observer that
        raised (its failure never stops the request's write, nor changes a verdict)."""
        tokens: list[Any] = []
        for observer in self.observers:
            try:
                tokens.append(observer.sent(name, request_id))
            except Exception:
                tokens.append(None)
        return tokens

    def _link(self, state: _Conn, method: str, key: tuple[str, Any], params: Mapping[str, Any]) -> None:
        matching = [p for p in self._unlinked if any(m == method and k == key for m, k, _ in p.sent)]
        if len(matching) > 1:
            matching = [p for p in matching if any(m == method and k == key and _same(ps, params)
                                                   for m, k, ps in p.sent)]
        if len(matching) == 1:
            self._bind(matching[0], state)

    def _bind(self, proxy: WriteProxy, state: _Conn) -> None:
        proxy.conn = state.id
        proxy.sent.clear()
        state.proxy = proxy
        self._unlinked.discard(proxy)

    def _conn_of(self, proxy: WriteProxy) -> _Conn | None:
        """The connection a proxy's requests went out on; None when no recorded connection carried
        them (a session built over a client the tap does not record): never a guess, which would
        judge the call by another session's answer."""
        if proxy.conn is not None:
            return self._conns.get(proxy.conn)
        return None

    def proxy(self, session: Any, conn: str | None = None) -> WriteProxy:
        """Put the tap's proxy in front of the stream ``session`` writes to (once); returns it."""
        found = write_stream_of(session_of(session))
        if found is None:
            raise TypeError(f"cannot find the write stream of {type(session).__name__}")
        holder, attribute = found
        current = getattr(holder, attribute)
        if isinstance(current, WriteProxy) and current._tap is self:
            if conn is not None and current.conn is None:
                self._bind(current, self._conns[conn])
            return current
        proxy = WriteProxy(current, self, conn)
        setattr(holder, attribute, proxy)
        if conn is None:
            self._unlinked.add(proxy)
        else:
            self._conns[conn].proxy = proxy
        return proxy

    def write_stream(self, inner: Any, conn: str | None) -> WriteProxy:
        """Wrap a write stream before a session is built on it (the adapters' way: no lookup)."""
        proxy = WriteProxy(inner, self, conn)
        if conn is None:
            self._unlinked.add(proxy)
        else:
            self._conns[conn].proxy = proxy
        return proxy

    # -- judging ------------------------------------------------------------------------------------
    def judging(self, session: Any = None, *, attempt: int = 1, retry: RetryPolicy = DEFAULT_RETRY,
                **judge_options: Any) -> Judged:
        """Judge every ``tools/call`` the code inside the block sends (in this task)::

            async with tap.judging(session) as judged:
                result = await session.call_tool("get_forecast", {"city": "Lisbon"})
            judged.outcome            # or judged.check(): raises VerdictError when unclassified

        ``session`` is needed once for a session the tap did not build the streams of; the
        options are those of :meth:`call_tool`. ``attempt`` (from 1) and ``retry`` are those of
        a call run again (an adapter's retries): every outcome of the block carries them (on the
        history and the observers' spans too), so its ``decision`` is that attempt's under that
        policy. A wrong one is an OptionError (a ValueError). (A plain ``with`` works as well as ``async with``.)
        """
        if judge_options:
            judge_options = _checked_options(judge_options)
        # _attempt's first test, here: every block but a retry's is (1, DEFAULT_RETRY), without a call
        again = None if type(attempt) is int and attempt == 1 and retry is DEFAULT_RETRY else _attempt(attempt, retry)
        if session is not None:
            self.proxy(session)
        return Judged(self, judge_options, again)

    async def call_tool(self, session: Any, name: str, arguments: Mapping[str, Any] | None = None, *,
                        expect: Expectation | Sequence[Expectation] | None = None, observe: Observe | None = None,
                        tool: Mapping[str, Any] | None = None, trusted_server: bool | None = None,
                        suspects: Iterable[Suspect] = DEFAULT_SUSPECTS,
                        schema_limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
                        absent_result_type: AbsentResultType | None = None, limits: Limits | None = None,
                        call_options: Mapping[str, Any] | None = None, attempt: int = 1,
                        retry: RetryPolicy = DEFAULT_RETRY) -> Outcome:
        """Call a tool through an SDK ``ClientSession`` or ``Client`` (1.x or 2.x, or FastMCP's
        ``Client``) and return its :class:`~mcp_verdict.Outcome`, judged from the answer's bytes.

        Server faults never raise: they are in the outcome (a timeout, a closed connection, an
        HTTP error are ``unclassified`` with a ``transport.*`` finding). A name or an argument no
        tool call can carry (NaN, a ``Decimal``, bytes, a key that is no string: ``frames._sendable``)
        is an ``OptionError`` naming where it sits, before anything is sent: the SDK would send some
        of them changed. What the SDK raises before anything reached the wire (a session not
        entered) is raised as it is.
        ``observe`` needs ``read=`` (an async callable). ``call_options`` go to ``call_tool``
        (``read_timeout_seconds``...). ``attempt`` and ``retry``: as for :meth:`judging` (a caller
        that runs the call again says which attempt this is, and under which policy).
        """
        checked = check_call(name, arguments)
        options = {"expect": expect, "tool": tool, "trusted_server": trusted_server, "suspects": suspects,
                   "schema_limits": schema_limits, "absent_result_type": absent_result_type, "limits": limits}
        judging = self.judging(session, attempt=attempt, retry=retry, **options)  # its options checked
        if observe is not None:  # settle's own check of it, before the call (nothing is read: no answer yet)
            await settle(_OPTIONS_CHECKED, observe=observe)
        async with judging as judged:
            try:
                await session.call_tool(name, checked, **dict(call_options or {}))
            except Exception as exc:
                judged.error = exc
                if not judged.any_sent:
                    raise
        if not judged.any_sent:
            raise RuntimeError(f"{type(session).__name__}.call_tool sent no tools/call request")
        outcome = judged.outcome
        if observe is not None:
            last = judged.calls[-1]
            outcome = await settle(outcome.verdict, outcome.tool, expect=expect, observe=observe,
                                   suspects=judged._options["suspects"], schema_limits=schema_limits,
                                   trusted_server=outcome.trusted_server)
            outcome = replace(outcome, request_sent=last.outcome.request_sent, attempt=attempt, retry=retry)
        return outcome

    def _tool_calls(self, conn: str) -> list[tuple[Any, str | None]]:
        state = self._conns.get(conn)
        return list(state.tool_calls) if state is not None else []

    def _listed_tool(self, state: _Conn | None, name: str, schema_limits: SchemaLimits
                     ) -> tuple[Any, CompiledSchema | None]:
        """The tool ``name`` as the connection listed it, with its compiled outputSchema (None
        when it declares none); a tool not listed there is the one the tap was told of, with none."""
        tool = state.tools.get(name) if state is not None else None
        if tool and state is not None:
            known = state.compiled.get(name)  # _listed_schema's memo, read here: every call reads it
            return tool, (known[1] if known is not None and known[0] is schema_limits
                          else self._listed_schema(state, name, schema_limits))
        return self.tool(name), None

    def _judge_first(self, conn: str, data: bytes) -> tuple[Exchange, Verdict, Peek | None, tuple[str, Any]] | None:
        """The verdict of an answer arriving on ``conn``, judged before the tracker reads it, when
        the request it answers can be guessed (:meth:`Tracker.guess`) and is the next call of a
        judging block judged with the tap's defaults (no options of the block's own, no attempt,
        no observer: ``_feed``'s common case, which it judges at once): (the request, the
        verdict, the routing read of the answer made from the message the judge read, or None
        when there is none to make: :func:`frames.answer_peek`, and the key of the call's claim).
        So a judged answer is parsed once, by the judge, not by the tracker's routing read as well.
        ``_feed`` uses the verdict only when the tracker pairs the answer with that very request;
        it is then what judging it after the pairing gives (the same bytes, request id and
        options). None otherwise (a frame that may be a request or a notification, one whose
        request is not guessed, a call with options of its own), with nothing judged."""
        if names_method(data):
            return None
        exchange = self.tracker.guess(conn, "client", data)
        if exchange is None or exchange.method != "tools/call":
            return None
        request_id = exchange.request_id
        if type(request_id) is int:
            key: tuple[str, Any] = ("int", request_id)  # (id_key's)
        elif type(request_id) is str:
            key = ("str", request_id)
        else:
            return None
        claimed = (conn, key)
        claim = self._claims.get(claimed)
        if claim is None:
            return None
        judged = claim[0]
        if claim[1] != len(judged._done) or judged._eager or judged._options or judged._attempt is not None \
                or self.observers:
            return None  # not the block's next call judged with the defaults
        verdict = judge(data, self._options.of(exchange.context, self.absent_result_type, self.limits), request_id)
        return exchange, verdict, answer_peek(verdict, request_id), claimed

    def _judge_answered(self, state: _Conn, exchange: Exchange, response: bytes,
                        verdict: Verdict | None = None) -> TapCall:
        """:meth:`_judge` of a call answered on ``state`` (``response`` is its answer's bytes),
        judged with the tap's defaults (a judging block given no options): what ``_judge`` does
        then, without its lookups of options and of the exchange. ``verdict``: the answer's
        verdict when :meth:`_judge_first` has it already."""
        request_id: Any = exchange.request_id  # what _judge is given (the SDK's id: a str or an int)
        name = exchange.tool
        tool: Any = None
        output_schema = None
        if name:
            tool = state.tools.get(name)
            if tool:  # _listed_tool, read here (its memo of the compiled schema first): every call reads it
                known = state.compiled.get(name)
                output_schema = known[1] if known is not None and known[0] is DEFAULT_SCHEMA_LIMITS \
                    else self._listed_schema(state, name, DEFAULT_SCHEMA_LIMITS)
            else:
                tool, output_schema = self._listed_tool(state, name, DEFAULT_SCHEMA_LIMITS)
                name = utf8_text(name)  # (a name read leniently is never listed: listings are read strictly)
        if verdict is None:
            verdict = judge(response, self._options.of(exchange.context, self.absent_result_type, self.limits),
                            request_id if type(request_id) is int or type(request_id) is str
                            else held_id(request_id))  # (held_id's answer for an exact int or str, without a call)
        task = verdict.kind is _TASK
        if task and verdict.task is not None:  # a task id another call created (its task running): not a task's
            verdict = self._created(state, exchange, verdict, verdict.task.task_id)
            task = verdict.kind is _TASK
        if state.noise:
            verdict = _with_noise(verdict, state, exchange.request.seq, exchange.response)
        if state.refused:
            verdict = _with_refused(verdict, state, exchange)
        outcome = evaluate_defaults(verdict, tool, output_schema, self.trusted_server)
        if state.not_sent and id_key(request_id) in state.not_sent:
            outcome = replace(outcome, request_sent=False)
        request = exchange.request.data
        call = TapCall(state.id, name, request_id, request, response, verdict, outcome, exchange.round)
        self.history.append(call)
        if len(response) > _HISTORY_BIG or len(request) > _HISTORY_BIG:
            call = self._keep_large(call)
        if task:  # a task's handle: the requests the server makes while it runs are this call's
            self._task_judged(state, exchange, call)
        return call

    def _keep_large(self, call: TapCall) -> TapCall:
        """The call just added to the history, whose request or answer is over ``_HISTORY_BIG``:
        it carries what the history counts of it (``held``), and the oldest calls past
        :data:`HISTORY_BYTES` are dropped."""
        call = msgspec.structs.replace(call, held=held_bytes(call))
        self.history[-1] = call
        _bound_history(self.history)
        return call

    def _judge(self, target: WriteProxy | str | _Conn, request_id: Any, name: str | None, options: Mapping[str, Any],
               error: BaseException | None, answered: Exchange | None = None, *, attempt: Attempt = None) -> TapCall:
        if type(target) is _Conn:
            state: _Conn | None = target
        else:
            state = self._conns.get(target) if isinstance(target, str) else self._conn_of(target)  # type: ignore[arg-type]
        key = id_key(request_id)
        if options:
            limits = options.get("limits") or self.limits
            absent = options.get("absent_result_type") or self.absent_result_type
            trusted = options.get("trusted_server")
            trusted = self.trusted_server if trusted is None else trusted
            schema_limits = options.get("schema_limits", DEFAULT_SCHEMA_LIMITS)
            tool = options.get("tool") or None
            expect, suspects = options.get("expect"), options.get("suspects", DEFAULT_SUSPECTS)
        else:  # a judging block without options: the tap's defaults (what each get above finds)
            limits, absent, trusted = self.limits, self.absent_result_type, self.trusted_server
            schema_limits, tool, expect, suspects = DEFAULT_SCHEMA_LIMITS, None, None, DEFAULT_SUSPECTS
        exchange = answered or (state.answered.get(key) if state is not None else None)
        output_schema = None
        if not tool and name:
            tool, output_schema = self._listed_tool(state, name, schema_limits)
        sent = not (state is not None and state.not_sent and key in state.not_sent)
        request_bytes = response = None
        number = 1
        if exchange is not None and exchange.response is not None:
            request_bytes, response = exchange.request.data, exchange.response.data
            number = exchange.round
            verdict = judge(response, self._options.of(exchange.context, absent, limits), held_id(request_id))
            task = exchange if verdict.kind is _TASK and state is not None else None
            if task is not None and state is not None and verdict.task is not None:  # (as _judge_answered)
                verdict = self._created(state, exchange, verdict, verdict.task.task_id)
                task = exchange if verdict.kind is _TASK else None
            if state is not None and state.noise:
                verdict = _with_noise(verdict, state, exchange.request.seq, exchange.response)
            if state is not None and state.refused:
                verdict = _with_refused(verdict, state, exchange)
        else:
            task = None
            waiting = self.tracker.waiting(state.id, "client", key) if state is not None else None
            ended = state.ended.pop(key, None) if state is not None and state.ended else None
            asked = waiting or ended  # the request, still waiting or waiting when the connection closed
            held = asked.context if asked is not None else None
            version = held.version if held is not None else self.default_version
            stray = self._loose_answer(state, request_id)
            if stray is not None:  # an answer whose id only matches once coerced (7 → "7"): judged as it came
                response = stray.seen.data
                verdict = classify(response, request_id=request_id, limits=limits, absent_result_type=absent,
                                   **(held.classify_options() if held is not None else {"version": version}))
            else:
                verdict = self._no_answer(state, key, error, version)
                if state is not None and state.noise and asked is not None:
                    verdict = _with_noise(verdict, state, asked.request.seq, None)
            if state is not None and state.refused and asked is not None:
                verdict = _with_refused(verdict, state, asked)
            if state is not None:  # judged without its answer: no longer waited for, nor claimed
                if waiting is not None:
                    self.tracker.forget(state.id, "client", key)
                if sent and _is_cancelled(error) and (waiting is not None or (asked is None and state.closed is None)):
                    # an answer may still come: it is this call's (a request not yet recorded going
                    # out may still go: its answer is paired with it, then judged as this call's)
                    state.cancelled[key] = (waiting, name, options, attempt)
                    if len(state.cancelled) > _UNCLAIMED:
                        state.cancelled.popitem(last=False)
                self._claims.pop((state.id, key), None)
        outcome = evaluate_listed(verdict, tool, output_schema, expect=expect, suspects=suspects,
                                  schema_limits=schema_limits, trusted_server=trusted)
        if not sent:
            outcome = replace(outcome, request_sent=False)
        if attempt is not None:  # a call run again: its outcome decides at its own attempt, under its policy
            outcome = replace(outcome, attempt=attempt[0], retry=attempt[1])
        call = TapCall(state.id if state is not None else None, utf8_text(name), request_id, request_bytes, response,
                       verdict, outcome, number)
        self.history.append(call)
        if (response is not None and len(response) > _HISTORY_BIG) or \
                (request_bytes is not None and len(request_bytes) > _HISTORY_BIG):
            call = self._keep_large(call)
        if task is not None and state is not None:  # a task's handle: the requests made while it runs are its
            self._task_judged(state, task, call)
        return call

    def _loosely_waiting(self, conn: str, stray: Stray) -> Exchange | None:
        """The one client request still waiting on ``conn`` whose id a stray answer carries as
        another JSON type (``3.0`` or ``"3"`` for ``3``), if exactly one; None otherwise."""
        look = stray.peek
        if look.kind not in ("response", "error") or not look.has_id or look.id is None:
            return None
        same = [e for e in self.tracker.pending(conn) if e.origin == "client" and _same_id(stray, e.request_id)
                and id_key(look.id) != id_key(e.request_id)]
        return same[0] if len(same) == 1 else None

    @staticmethod
    def _loose_answer(state: _Conn | None, request_id: Any) -> Stray | None:
        if state is None:
            return None
        for stray in reversed(state.strays):
            look = stray.peek
            if look.kind in ("response", "error") and look.has_id and look.id is not None \
                    and _same_id(stray, request_id) and id_key(look.id) != id_key(request_id):
                return stray
        return None

    def _no_answer(self, state: _Conn | None, key: tuple[str, Any], error: BaseException | None,
                   version: str) -> Verdict:
        if state is None:
            return local_verdict("transport.error", "the tap cannot tell which connection this session uses "
                                 "(build it over the tap's transports, or pass it to tap.judging first)", version)
        if key in state.not_sent:
            unwritten = state.unwritten.get(key)
            if unwritten is not None:  # resent unchanged, it fails the same way: fix_request, not retry
                return local_verdict("transport.unwritable", f"the request was not sent: {unwritten}", version)
            unsent = state.failures.get(state.exchange_of.get(key, -1))
            why = unsent.note if unsent is not None else _describe(error)
            return local_verdict("transport.error", f"the request was not sent: {why}", version)
        if error is not None and _is_cancelled(error):
            return local_verdict("transport.cancelled", f"the call was cancelled before its answer arrived "
                                 f"({type(error).__name__}); the request was sent, so the tool may have run", version)
        if _is_timeout(error):
            return local_verdict("transport.timeout", f"no answer before the SDK's timeout ({_describe(error)})",
                                 version)
        failure = state.failures.get(state.exchange_of.get(key, -1))
        if failure is not None and failure.status is not None and refuses(failure.status, failure.retry_after):
            # a status that says the server did not run the request (auth, rate limit...): not a
            # write of unknown effect (the client's rule, verdict._findings)
            return make_verdict(Kind.UNCLASSIFIED, (refused(failure.status, failure.retry_after, failure.note),),
                                version, None)
        if failure is not None:
            return local_verdict("transport.error", failure.note, version)
        if state.closed is not None:
            return local_verdict("transport.closed", state.closed, version)
        return local_verdict("transport.error", f"no answer was recorded ({_describe(error)})", version)

    # -- transports -----------------------------------------------------------------------------------
    def stdio_transport(self, command: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None, *,
                        cwd: str | PathLike[str] | None = None, max_bytes: int | None = None,
                        ) -> AbstractAsyncContextManager[tuple[Any, Any]]:
        """Spawn ``command args...`` and yield the (read, write) streams of an SDK session (1.x or
        2.x), reading the server's stdout as bytes. Every frame is recorded before the SDK parses
        it; a frame the SDK cannot read fails its own call at once (the verdict has the details)."""
        from ._stdio import stdio_transport

        return stdio_transport(self, command, list(args), env, cwd=cwd,
                               max_bytes=max_bytes or self.limits.max_bytes)

    def http_client(self, *, library: Literal["auto", "httpx2", "httpx"] = "auto",
                    headers: Mapping[str, str] | None = None, timeout: Any = None, auth: Any = None,
                    **options: Any) -> Any:
        """An ``httpx2.AsyncClient`` (or ``httpx`` for mcp 1.x; ``auto`` follows the installed
        SDK) whose every exchange is recorded: hand it to the SDK's Streamable HTTP transport."""
        from ._http import recording_client

        return recording_client(self, library, headers=headers, timeout=timeout, auth=auth, **options)

    def httpx_client_factory(self, headers: Mapping[str, str] | None = None, timeout: Any = None,
                             auth: Any = None, **options: Any) -> Any:
        """The factory the stacks call (``McpHttpClientFactory``: headers, timeout, auth): a new
        recorded client, one connection each, of the library the installed SDK uses."""
        return self.http_client(headers=headers, timeout=timeout, auth=auth, **options)

    def close(self) -> None:
        """Close the frame log (when the tap opened it)."""
        if self.log is not None and self._own_log:
            self.log.close()

    def __enter__(self) -> VerdictTap:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_NO_TOKENS: Final[list[Any]] = []
"""The tokens of a call sent while no observer is registered (shared, never written to)."""


def _slim_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """What a call's outcome keeps of a large tool the tap no longer keeps: its name and the
    annotations its decision reads (``readOnlyHint`` and ``idempotentHint``, when True or False):
    the decision stays the same, the rest (schemas, description) is let go."""
    slim: dict[str, Any] = {"name": tool.get("name")}
    annotations = tool.get("annotations")
    if isinstance(annotations, dict):
        slim["annotations"] = {key: annotations[key] for key in ("readOnlyHint", "idempotentHint")
                               if annotations.get(key) is True or annotations.get(key) is False}
    return slim


def _dump(params: Any) -> Any:
    dump = getattr(params, "model_dump", None)
    return dump(by_alias=True, mode="json", exclude_none=True) if callable(dump) else None


def _same_id(stray: Stray, asked: Any) -> bool:
    """A stray answer's id that is the request's once coerced: ``"7"`` for ``7``, ``1.0`` or
    ``1e0`` for ``1`` (numbers by their exact value as written, the rest as text): an id written
    as a float past 2**53 is read from its text, so ``18446744073709551617.0`` is 2**64+1's, and
    not 2**64's, which its float reading equals."""
    answered = stray.peek.id
    numbers = (int, float)
    if type(answered) in numbers and type(asked) in numbers:
        return bool(_exact(stray, answered) == asked)
    return str(answered) == str(asked)


def _exact(stray: Stray, value: Any) -> Any:
    """The exact value of a number id: a float's as the stray's bytes write it (a Decimal), when
    they do; the value otherwise."""
    if type(value) is not float:
        return value
    text = id_text(stray.seen.data)
    if text is None:
        return value
    try:
        return Decimal(text.decode("ascii"))
    except (ArithmeticError, ValueError):
        return value


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b in (None, {})
    return dict(a) == dict(b)


def _is_timeout(error: BaseException | None) -> bool:
    if error is None:
        return False
    if isinstance(error, TimeoutError) or "timeout" in type(error).__name__.lower():
        return True
    code = getattr(getattr(error, "error", None), "code", None)
    return code in (408, -32001) or "timed out" in str(error).lower()


def _describe(error: BaseException | None) -> str:
    return "no error was raised" if error is None else f"{type(error).__name__}: {error}"
