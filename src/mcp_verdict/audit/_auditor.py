"""The audit of a recorded conversation, frame by frame (sans-I/O).

An :class:`Auditor` is fed every line of one recording (one log, or one family of rotated
logs) in order: messages with their connection, direction and time, the log's own records
(open, close, eof...), and lines that could not be read. It pairs requests and answers with
:class:`~mcp_verdict.frames.Tracker` (by connection and id with its JSON type; the version,
capabilities and extensions in force per request; rounds linked by requestState and task id),
follows each ``tools/call`` through its input rounds and task polls, and when a call is over
returns its :class:`~mcp_verdict.audit.CallRow`: the final verdict, the content check against
the tool's outputSchema when the connection's ``tools/list`` answer was recorded, the decision,
and what a naive ``"result" in response`` receiver concluded from the first answer.

A call the client cancelled (its ``notifications/cancelled``) that ends without an answer is
``transport.cancelled``. On an HTTP connection two requests waiting under one id (two sessions
over one client) each get the answer of their own HTTP exchange; an answer in neither's ends
both (``transport.error``, saying why) and is a stray line: never one's call judged by the
other's answer.

Bounded memory: the state kept is the tracker's (requests in flight), the calls still waiting
for a continuation (an input_required answer with a requestState, a running task: at most
``max_open``, the oldest ended early past it; of each call in flight its first
``_held.ROUNDS_FIRST`` and last ``_held.ROUNDS_LAST`` rounds, those between counted, and the
findings of its first ``_input.REFUSED_KEPT`` refused server requests), and per open connection
its server's name and tools (those of its last whole listing and the pages since, at most 10,000 and 64 MiB:
``frames._tools``) — for at most ``max_conns`` connections: a recording whose connections never close (a
gateway's log cut before their ``close`` records) would otherwise grow by each one. Past it, a
new connection's first line ends the least recently active one as a ``close`` would, its
requests and calls still waiting ended ``evicted``; a later line of it begins it again, as
if the connection began there (as a part of ``--jobs`` does). Every line is counted in exactly
one category (:data:`~mcp_verdict.audit.CATEGORIES`).

What an auditor holds of a call and of a connection (and hands over to another auditor) is in
``_held``; the JSON-RPC methods it follows a call by are in ``_methods``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

import msgspec
import orjson

from ..frames import Answered, Exchange, Peek, Stray, Tracker, Unanswered, id_key, peek
from ..frames._jsonrpc import is_batch, lenient_request, with_bytes_id
from ..frames._tasks import related_task, task_reused, task_taken
from ..frames._tools import TOOLS_BYTES, TOOLS_KEPT, ToolsBudget, problem_words
from ..judgement._decide import Action, decide
from ..judgement._outcome import evaluate_listed
from ..verdict._input import RefusedAsks, judge_server_request, refused_findings
from ..verdict._judge import OptionsMemo
from ..verdict._kind import Kind
from ..verdict._peer_text import cut, one_line, utf8_text
from ..verdict._verdict import Verdict, make_verdict
from ..verdict._versions import LATEST_VERSION
from ._held import Held, _Call, _Conn, _listed_schema, _Rounds
from ._judge import ambiguous, cancelled, judge_call, judge_task, naive, unanswered
from ._methods import _CALL_METHODS, _CANCELLED, _SERVER_METHODS, _TASK_METHODS
from ._rows import CATEGORIES, CallRow, End, Entry, Fidelity, FindingRow, Problem, RoundRow

Direction = Literal["c2s", "s2c"]
END_OF_INPUT: Final = 1 << 62
"""The order of what the end of the input completes (after every line)."""
_WAITING: Final = frozenset({Kind.INPUT_REQUIRED, Kind.TASK})
_ANSWERS: Final = frozenset({"response", "error", "unreadable", "invalid"})
_ASKING_KINDS: Final = frozenset({"request", "unreadable"})
"""The frame kinds a server's request is read as (one no strict parser reads, followed leniently)."""
_ANY_CALL: Final[tuple[int, None]] = (0, None)
"""A server request's entry in ``Auditor._asks`` when it was made during no call that could be
told: answered, its round is the call's waiting then, if one can be told (``Auditor._answered``)."""
_REASON_KEPT: Final = 200
"""The characters of a cancellation's ``reason`` quoted in the call's finding."""
MAX_CONNS: Final = 100_000
"""The connections an auditor holds the state of at once (:class:`Auditor`, ``max_conns``)."""
ALL_TOOLS_BYTES: Final = 256 * 1024 * 1024
"""What the tools kept by all the connections an auditor holds at once may count together (each
connection at most ``frames._tools.TOOLS_BYTES``): past it a listed tool is not kept."""
_WEIGHT: Final = ("call", "message", "notification", "stray", "unreadable")
"""The category a batch's line is counted in: the first its messages count."""


class Auditor:
    """Audits one recording (sans-I/O). Set :attr:`source` and :attr:`file_order` before
    feeding the lines of each file; call :meth:`end` once after the last line."""

    def __init__(self, *, input_format: str = "framelog", fidelity: Fidelity = "wire", family: int = 0,
                 trusted_server: bool = False, default_version: str = LATEST_VERSION,
                 max_open: int = 100_000, max_conns: int = MAX_CONNS, has_time: bool = True,
                 max_tools_bytes: int = ALL_TOOLS_BYTES) -> None:
        if max_conns < 1:
            raise ValueError("max_conns must be at least 1")
        self.input_format = input_format
        self.fidelity: Fidelity = fidelity
        self.family = family
        self.trusted_server = trusted_server
        self.max_open = max_open
        self.max_conns = max_conns
        self.has_time = has_time
        self.source = ""
        self.file_order = 0
        self.tally: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
        self._tracker = Tracker(default_version=default_version, pair_mismatched_ids=True, max_pending=max_open)
        self._options = OptionsMemo()  # classify's options per request context, checked once (of)
        self._conns: dict[str, _Conn] = {}
        """Each open connection's state, the least recently active first (:meth:`_active`)."""
        self.max_tools_bytes = max_tools_bytes
        self._tools = ToolsBudget(max_tools_bytes)
        """What the tools kept by the connections held count together (``frames._tools``'
        ``tool_size``): at most :attr:`max_tools_bytes`."""
        self._tools_told = False
        self._unread_told: set[str] = set()
        """The finding codes of the tools/list answers no strict parser reads that a warning told
        (one per code: :meth:`_learn`)."""
        self._recent: str | None = None
        """The connection of the last line (its place in :attr:`_conns` is the last)."""
        self._open: dict[tuple[str, int], _Call] = {}
        self._lines: dict[tuple[str, int], tuple[str, int]] = {}  # (conn, seq) of a waiting request -> position
        self._shared: dict[tuple[str, int], int] = {}
        """(conn, seq) of a batch whose requests wait -> how many wait (they share its position)."""
        self._batching: set[str] | None = None
        """While a batch's elements are fed: the categories its messages would count."""
        self._asked: dict[tuple[str, int], _Rounds] = {}  # a waiting call's server requests (2025 input)
        self._refused: dict[tuple[str, int], RefusedAsks] = {}
        self._asks: dict[tuple[str, int], tuple[int, RoundRow | None]] = {}
        """A 2025 server's input requests made during a call (:meth:`_seen_asking`) that still wait
        for the client's answer, by connection and the request's own call number on the tracker
        (:attr:`Exchange.call`: one per request, where ids and frames may repeat) -> (the call, the round the request
        is if it gets no answer while the call waits: its kind, no answer). Answered, the round is
        the answer's, the call's still (:meth:`_answered`); one the tracker gives up on (replaced,
        dropped past its bound, the connection closed) or still waiting when its call ends gives
        that call this round (:meth:`_ask_ended`, :meth:`_finish`). At most what the tracker holds
        waiting, per connection."""
        self._asks_of: dict[tuple[str, int], dict[tuple[str, int], None]] = {}
        """Per call (connection, call), the keys of :attr:`_asks` it was made during."""
        """A waiting call's server requests of :attr:`_asked` that were refused, until the call's
        answer gives them to its ``_Call``."""
        self._line = 0
        self._aside: dict[tuple[str, tuple[str, Any]], list[Exchange]] = {}
        """HTTP: (conn, id key) -> the client's requests waiting under that id besides the one the
        tracker holds, each sent in an HTTP exchange of its own (two sessions over one client
        number their ids apart): an answer goes to the request of the exchange it came in
        (:meth:`_by_exchange`)."""
        self._cancels: dict[tuple[str, int], tuple[str, int, str | None]] = {}
        """(conn, seq) of a tools/call request waiting -> where the client cancelled it
        (``notifications/cancelled``: source, line) and its reason."""
        self._calls: dict[str, dict[tuple[str, Any], Exchange]] = {}
        """Per connection, the client's tools/call requests the tracker holds waiting (and the
        polls of a running task: tasks/get, tasks/result...), by id key (:func:`id_key`): what
        :meth:`_asking` looks a server request's call up in, kept as the tracker's requests come
        and go (:meth:`_waits`, :meth:`_not_waiting`)."""
        self._calls_in: dict[str, dict[int, dict[tuple[str, Any], Exchange]]] = {}
        """Per connection, those of them by the HTTP exchange they were sent in (``http.exchange``)."""
        self._calls_odd: dict[str, dict[tuple[str, Any], Exchange]] = {}
        """Per connection, those of them whose ``http.exchange`` is no integer (no frame log says such
        a value: an :class:`Auditor` fed by a caller). While a connection has any, a server
        request's exchange is compared with each call's by a scan, as when its own is no integer
        (equal values match, ``3`` and ``3.0``, as they always did)."""

    # -- feeding -----------------------------------------------------------------------------
    def message(self, conn: str, direction: Direction | None, data: bytes, at: float, seq: int, line: int,
                http: Mapping[str, Any] | None = None, transport: str | None = None, *,
                element: bool = False) -> list[Entry]:
        """One JSON-RPC frame (``direction`` None: inferred, for logs that do not say it).

        A JSON-RPC batch the tracker follows (a 2025-03-26 session: ``Tracker.batch``) is read
        message by message, each element as a frame of its own with its exact bytes (the batch's
        line, time and seq): its calls are judged and its problems reported. Its line is counted
        once, in the category of its weightiest message (a call, another message, a
        notification, a stray, an unreadable one: :meth:`_batch`). One it does not follow is a
        stray line saying why."""
        self._line = line
        if conn != self._recent:
            evicted = self._active(conn)
            if evicted:
                return evicted + self.message(conn, direction, data, at, seq, line, http, transport, element=element)
        info = self._conns[conn]
        if transport is not None and info.transport is None:
            info.transport = transport
        look = peek(data)
        kind = look.kind
        if (kind == "batch" or (kind == "unreadable" and is_batch(data))) and not element:
            elements = self._tracker.batch(conn, data, http)
            if not isinstance(elements, str):  # (a stray batch is fed whole: the tracker says why)
                return self._batch(conn, direction, elements, at, seq, line, http)
        if kind == "unreadable":  # an id of bytes that are no UTF-8 compared as bytes; a request read leniently
            look = with_bytes_id(data, look)
            if (read := lenient_request(data, look)) is not None:  # (followed)
                look, kind = read, "request"
        batching = self._batching
        if kind == "notification":
            if batching is None:
                self.tally["notification"] += 1
            else:
                batching.add("notification")
            if look.method == _CANCELLED and direction != "s2c":
                self._cancel(conn, look, line, http)
            return []
        if direction is None:
            direction = self._direction(conn, look)
        if kind == "request" and batching is None:
            self._lines[(conn, seq)] = (self.source, line)
            if direction == "c2s" and http:
                ended: list[Entry] = []
                self._sent(conn, look, http, ended)
                if ended:
                    return ended + self._fed(conn, direction, data, at, seq, line, http, look, element)
        elif self._aside and direction == "s2c" and kind in _ANSWERS and look.has_id:
            unclear: list[Entry] = []
            if not self._by_exchange(conn, look, http, data, unclear):
                return unclear
        return self._fed(conn, direction, data, at, seq, line, http, look, element)

    def _fed(self, conn: str, direction: Direction, data: bytes, at: float, seq: int, line: int,
             http: Mapping[str, Any] | None, look: Peek, element: bool) -> list[Entry]:
        """A message given to the tracker, and what it completes (a request of a batch being
        read is put at the batch's line)."""
        events = self._tracker.feed(conn, direction, data, at=at, seq=seq, http=http, look=look, element=element)
        if events and self._calls:  # the calls it puts out of waiting (answered, an id reused, past the bound)
            for event in events:
                if isinstance(event, (Answered, Unanswered)):
                    self._not_waiting(event.exchange)
        if direction == "c2s" and look.kind == "request" and look.method in _CALL_METHODS:
            opened = self._tracker.opened(conn)
            if opened is not None and (opened.method == "tools/call" or (conn, opened.call) in self._open):
                self._waits(opened)  # (a tools/call, or a poll of a task running)
        elif direction == "s2c" and look.kind in _ASKING_KINDS:
            opened = self._tracker.opened(conn)
            if opened is not None and opened.origin == "server" and opened.method in _SERVER_METHODS:
                self._seen_asking(opened, line)
        batching = self._batching
        if batching is not None:
            opened = self._tracker.opened(conn)
            if opened is not None and opened.request.data is data:  # a request of the batch: at its line
                self._lines[(conn, seq)] = (self.source, line)
                self._shared[(conn, seq)] = self._shared.get((conn, seq), 0) + 1
                batching.add("call" if opened.method == "tools/call" or opened.method in _TASK_METHODS
                             else "message")
        if not events:  # a request waiting (most requests)
            return []
        out: list[Entry] = []
        for event in events:
            if type(event) is Answered:
                self._answered(event.exchange, out)
            elif type(event) is Unanswered:
                self._unanswered(event.exchange, event.reason, "evicted" if event.evicted else "reused_id", out)
            elif type(event) is Stray:
                self._stray(event, out)
        return out

    def _batch(self, conn: str, direction: Direction | None, elements: list[bytes], at: float, seq: int, line: int,
               http: Mapping[str, Any] | None) -> list[Entry]:
        """A batch followed: each element fed as a message (``element``: an array in it is a
        stray), its requests all at the batch's line (``_shared`` counts those waiting). What its
        messages would count is gathered (``_batching``) and the line counted once, in the
        weightiest category; a request of it answered alone, or an answer in it to a request
        that came alone, counts that other line as usual."""
        seen: set[str] = set()
        self._batching = seen
        out: list[Entry] = []
        try:
            for part in elements:
                out.extend(self.message(conn, direction, part, at, seq, line, http, element=True))
        finally:
            self._batching = None
        self.tally[next((c for c in _WEIGHT if c in seen), "message")] += 1
        return out

    def _take(self, exchange: Exchange) -> tuple[tuple[str, int] | None, bool]:
        """The position of a request, no longer kept (one of a batch: kept for its others), and
        whether it came in a batch (its line counted already)."""
        key = (exchange.conn, exchange.request.seq)
        left = self._shared.get(key) if self._shared else None
        if left is None:
            return self._lines.pop(key, None), False
        if left <= 1:
            del self._shared[key]
            return self._lines.pop(key, None), True
        self._shared[key] = left - 1
        return self._lines.get(key), True

    def _pair(self, category: str, batched: bool) -> None:
        """Count a request's line and its answer's (2): not a line of a batch (counted with it)."""
        batching = self._batching
        lines = (not batched) + (batching is None)
        if lines:
            self.tally[category] += lines
        if batching is not None:
            batching.add(category)

    def record(self, conn: str, kind: str, direction: Direction, *, line: int, note: str | None = None,
               transport: str | None = None) -> list[Entry]:
        """A frame log record that is no message (open, close, eof, error, noise, refused)."""
        self._line = line
        self.tally["transport"] += 1
        if conn != self._recent and kind == "close" and conn not in self._conns:
            return []  # (a connection never seen, or ended already: nothing to end)
        evicted = self._active(conn) if conn != self._recent else []
        info = self._conns[conn]
        if transport is not None and info.transport is None:
            info.transport = transport
        if kind == "close" or (kind == "eof" and direction == "s2c" and (transport or info.transport) != "http"):
            why = "the connection closed before an answer" if kind == "close" else \
                "the server's stream ended before an answer"
            return evicted + self.close(conn, why)
        return evicted

    def _active(self, conn: str) -> list[Entry]:
        """``conn`` has a line: it becomes the most recently active connection (made when new,
        the least recently active one ended first past :attr:`max_conns`: what that ends)."""
        conns = self._conns
        self._recent = conn
        info = conns.pop(conn, None)
        if info is not None:
            conns[conn] = info
            return []
        ended = []
        if len(conns) >= self.max_conns:
            oldest = next(iter(conns))
            ended = self.close(oldest, f"more than {self.max_conns} connections were open: the least recently active "
                                       "one was ended, its state dropped", "evicted")
        conns[conn] = _Conn()
        return ended

    def unreadable(self, line: int, reason: str, text: bytes = b"") -> Problem:
        """A line that is not a record of the input's format."""
        self.tally["unreadable"] += 1
        return Problem(self.source, line, "unreadable", reason, None, text[:200], self._order(line, "", 0))

    def count(self, category: str) -> None:
        """A line that needs nothing but counting (``blank``, ``redacted``)."""
        self.tally[category] += 1

    def close(self, conn: str, why: str = "the connection closed before an answer", end: End = "closed"
              ) -> list[Entry]:
        """End one connection: its waiting requests are unanswered, its waiting calls end."""
        out: list[Entry] = []
        for event in self._tracker.close(conn, why):
            if isinstance(event, Unanswered):
                self._unanswered(event.exchange, event.reason, end, out)
        if self._aside:
            for aside_key in [k for k in self._aside if k[0] == conn]:
                for exchange in self._aside.pop(aside_key):
                    self._unanswered(exchange, why, end, out)
        out.extend(self._finish(self._open.pop(key), end) for key in [k for k in self._open if k[0] == conn])
        info = self._conns.pop(conn, None)
        if info is not None:
            self._tools.release(info.listed.size)
        if conn == self._recent:
            self._recent = None
        for key in [k for k in self._asked if k[0] == conn]:
            del self._asked[key]
            self._refused.pop(key, None)
        if self._asks:
            for ask in [k for k in self._asks if k[0] == conn]:
                del self._asks[ask]
            for of in [k for k in self._asks_of if k[0] == conn]:
                del self._asks_of[of]
        self._forget_calls(conn)
        return out

    def end(self, tally_of: Callable[[str], dict[str, int]] | None = None) -> list[Entry]:
        """The input ended: every connection still open ends, in a stable order.

        ``tally_of`` gives the tally each connection's last lines are counted in (the audit's
        processes count a connection they may hand over apart); by default :attr:`tally`."""
        self._line = END_OF_INPUT
        out: list[Entry] = []
        tally = self.tally
        for conn in sorted(self._conns):
            if tally_of is not None:
                self.tally = tally_of(conn)
            for event in self._tracker.close(conn, "the log ends before an answer"):
                if isinstance(event, Unanswered):
                    self._unanswered(event.exchange, event.reason, "log_ended", out)
            for aside_key in [k for k in self._aside if k[0] == conn]:
                for exchange in self._aside.pop(aside_key):
                    self._unanswered(exchange, "the log ends before an answer", "log_ended", out)
        self.tally = tally
        out.extend(self._finish(self._open.pop(key), "log_ended") for key in sorted(self._open))
        self._conns.clear()
        self._tools.size = 0
        self._recent = None
        self._asked.clear()
        self._refused.clear()
        self._asks.clear()
        self._asks_of.clear()
        self._aside.clear()
        self._cancels.clear()
        self._forget_calls()
        out.sort(key=lambda e: e.order)
        return out

    @property
    def lines(self) -> int:
        return sum(self.tally.values())

    # -- handing connections over ------------------------------------------------------------
    def connections(self) -> list[str]:
        """The connections this auditor holds something of (open, or not closed yet)."""
        return list(self._conns)

    def holds(self, conn: str) -> bool:
        return conn in self._conns

    def export(self) -> list[tuple[str, Held]]:
        """Everything held of each connection, to continue it in another auditor of the same
        recording (:meth:`adopt`): the pairing state, the server and tools learnt, the calls
        waiting for a continuation, the lines of the requests waiting. The values pickle (the
        compiled outputSchemas are left out: they are compiled again when needed)."""
        held = {conn: Held(self._tracker.export(conn), msgspec.structs.replace(info, schemas={}), [], [], [])
                for conn, info in self._conns.items()}
        for name, table in self._tables():  # (each keyed by (conn, ...))
            for key, value in table.items():
                if key[0] in held:
                    getattr(held[key[0]], name).append((key, value))
        return list(held.items())

    def adopt(self, conn: str, held: Held) -> None:
        """Continue ``conn`` from what another auditor of the same recording held of it."""
        if held.tracker is not None:
            self._tracker.adopt(conn, held.tracker)
        self._forget_calls(conn)
        self._conns[conn] = held.info
        self._tools.size += held.info.listed.size  # (within its connection's budget; past the whole, none more)
        for name, table in self._tables():
            table.update(getattr(held, name))
        for exchange in self._tracker.pending(conn):  # (the calls waiting, kept as the tracker's feed keeps them:
            if exchange.origin == "client" and (exchange.method == "tools/call" or (  # a task's polls with them)
                    exchange.method in _TASK_METHODS and (conn, exchange.call) in self._open)):
                self._waits(exchange)

    def _tables(self) -> tuple[tuple[str, dict[Any, Any]], ...]:
        """The tables of what waits on a connection, each with the :class:`Held` member that
        carries it to another auditor (:meth:`export`, :meth:`adopt`)."""
        return (("open", self._open), ("asked", self._asked), ("lines", self._lines), ("aside", self._aside),
                ("cancels", self._cancels), ("shared", self._shared), ("refused", self._refused),
                ("asks", self._asks), ("asks_of", self._asks_of))

    # -- pairing results ---------------------------------------------------------------------
    def _direction(self, conn: str, look: Peek) -> Direction:
        if look.kind == "request":
            return "s2c" if look.method in _SERVER_METHODS else "c2s"
        if look.has_id:
            # the latest request waiting with that id: when a client's and a server's request share it
            # (each side numbers its own), the server's, made while the client's call waits on its answer
            # (an elicitation, a sampling), is answered first
            # (looked up by key: a scan of the requests waiting made each answer cost as many steps as
            # there were, quadratic in a file of requests answered late)
            key = id_key(look.id)
            client = self._tracker.waiting(conn, "client", key)
            server = self._tracker.waiting(conn, "server", key)
            if client is None or server is None:
                return "c2s" if server is not None else "s2c"
            if client.request.seq != server.request.seq:  # (a JSON-RPC file's seq is the line number)
                return "s2c" if client.request.seq > server.request.seq else "c2s"
            # one batch holds both: its later one, the one after the other in the requests waiting (as the
            # tracker noted: a copy and scan of the requests waiting made each such answer cost as many steps
            # as there were, quadratic in a file of such batches answered late)
            return "c2s" if self._tracker.latest(conn, key) == "server" else "s2c"
        return "s2c"

    def _answered(self, exchange: Exchange, out: list[Entry]) -> None:
        position, batched = self._take(exchange)  # (_position, written out)
        if self._cancels:  # an answer that came after all: judged on its bytes (what the server did)
            self._cancels.pop((exchange.conn, exchange.request.seq), None)
        source, line = position if position is not None else (self.source, self._line)
        method = exchange.method
        origin = exchange.origin
        key = (exchange.conn, exchange.call)
        if method == "tools/call" and origin == "client":
            self._pair("call", batched)
            verdict = judge_call(exchange, self._options.of(exchange.context))
            if verdict.kind is Kind.TASK and verdict.task is not None:
                verdict = self._created(exchange, verdict, verdict.task.task_id, out)
            call = self._open.pop(key, None) if self._open else None
            if call is None:
                call = _Call(exchange, source, line)
            rounds = call.rounds
            if self._asked:
                self._take_asked(key, call)
            rounds.add(self._round(exchange, verdict, None, line))
            call.verdict = verdict
            call.answered = True
            if call.first_verdict is None:
                call.first_verdict = verdict
                response = exchange.response
                look = exchange.response_peek
                # (naive's first case here: an answer the routing read found an object with "result")
                call.naive = "success" if response is not None and look is not None and look.kind == "response" \
                    else naive(look, response.data if response is not None else None)
            kind = verdict.kind
            if kind in _WAITING:
                if kind is Kind.TASK:
                    task = verdict.task
                    if task is not None:
                        call.task_id = task.task_id
                if _continues(verdict):
                    self._keep(key, call, out)
                    return
            out.append(self._finish(call, "answered"))
            return
        if origin == "client" and method in _TASK_METHODS and key in self._open:
            self._pair("call", batched)
            call = self._open.pop(key)
            if self._asked or self._refused:  # the server's requests made while the task ran, before this round
                self._take_asked(key, call)
            ended, status = judge_task(exchange, call.first.request_id, self._options.of(exchange.context))
            call.rounds.add(self._round(exchange, ended, status, line))
            if ended is not None:
                call.verdict = ended
                out.append(self._finish(call, "answered"))
            else:
                self._keep(key, call, out)
            return
        if exchange.origin == "server":
            seen = self._ask_ended(exchange) if method in _SERVER_METHODS else _ANY_CALL
            row = seen[1] if seen is not None else None
            if seen is not None and row is not None:  # a 2025 server's input request made during a call,
                self._pair("call", batched)  # answered while it waits (its kind and findings as judged when it
                key = (exchange.conn, seen[0])  # came: _seen_asking)
                held = self._asked.get(key)
                if held is None:
                    held = self._asked[key] = _Rounds()
                held.add(msgspec.structs.replace(self._round(exchange, None, None, line), kind=row.kind))
                return
            # made during no call that could be told (or a ping...): the call waiting now, if one can be told;
            # none when it was made during a call that has ended since (its round was given then: seen None)
            asking = self._asking(exchange) if seen is not None else None
            if asking is not None:
                self._pair("call", batched)
                key = (asking.conn, asking.call)
                asked = judge_server_request(exchange.request.data, method, self._options.of(asking.context)) \
                    if method in _SERVER_METHODS else None
                held = self._asked.get(key)
                if held is None:
                    held = self._asked[key] = _Rounds()
                held.add(self._round(exchange, asked, None, line))
                return
        self._pair("message", batched)
        if exchange.origin == "client" and (exchange.response_peek is not None or method == "tools/list"):
            self._learn(exchange)

    def _created(self, exchange: Exchange, verdict: Verdict, task_id: str, out: list[Entry]) -> Verdict:
        """``verdict``, the answer to the tools/call ``exchange`` that created the task ``task_id``,
        when another call of its connection created that task id earlier: while that call's task
        runs (its call open), ``unclassified`` naming the reuse (:func:`task_reused`: the tasks'
        polls and requests are neither call's), and the earlier call ends now, ``unclassified`` too
        (:meth:`_taken`); once it ended, the id is this call's (its polls and requests are)."""
        conn, calls = exchange.conn, self._open
        reused, first = self._tracker.task_reuse(conn, task_id, exchange.call, lambda call: (
            open_call if calls and (open_call := calls.get((conn, call))) is not None
            and open_call.task_id == task_id else None))
        if not reused:
            return verdict
        if first is None:  # created twice already, the first task not ended then: a reuse again
            return task_reused(verdict, task_id)
        self._taken(first, task_id, exchange.request_id, out)
        return task_reused(verdict, task_id, first.first.request_id)

    def _taken(self, call: _Call, task_id: str, request_id: Any, out: list[Entry]) -> None:
        """The task of ``call`` (open: its task not ended) was created again, by the answer to the
        tools/call ``request_id``: its outcome can no longer be known (the polls and requests naming
        the id cannot be told to be its task's), so it ends now (``reused_id``), ``unclassified``
        with a finding naming the reuse after its own and its refused requests' (:func:`task_taken`,
        as the tap judges it again). Its polls still waiting (sent before the reuse) are its rounds
        without an answer; an answer to one that comes later is a message line."""
        first = call.first
        conn, number = first.conn, first.call
        key = (conn, number)
        del self._open[key]
        if self._asked or self._refused:
            self._take_asked(key, call)
        refused = call.refused.findings() if call.refused is not None else ()
        call.refused = None
        waiting = self._calls.get(conn)
        if waiting:
            polls = sorted((e for e in waiting.values() if e.call == number and e.method in _TASK_METHODS),
                           key=lambda e: e.request.seq)
            for poll in polls:
                self._not_waiting(poll)
                position = self._lines.get((conn, poll.request.seq))
                call.rounds.add(self._round(poll, None, None, position[1] if position is not None else self._line))
        assert call.verdict is not None  # (a call open with a task id was answered its handle)
        call.verdict = task_taken(call.verdict, task_id, request_id, refused)
        out.append(self._finish(call, "reused_id"))

    def _seen_asking(self, request: Exchange, line: int) -> None:
        """A 2025 server's input request, as it comes (whether or not the client ever answers it:
        what the server sent is judged, whatever the client does): when it was made during a call
        (:meth:`_asking`), judged as mcp-verdict's client judges one; a refused one's findings go
        to that call (:attr:`_refused`, its first ``REFUSED_KEPT`` kept). Each request is judged
        here once; it is a round of that call, the client's answer's if the client answers it
        while the call waits, else without an answer (:attr:`_asks`)."""
        asking = self._asking(request)
        ask = (request.conn, request.call)
        if asking is None:
            self._asks[ask] = _ANY_CALL  # (answered, its round is the call's waiting then, if one can be told)
            return
        method = request.method
        asked = judge_server_request(request.request.data, method, self._options.of(asking.context))
        key = (asking.conn, asking.call)
        self._asks[ask] = (asking.call, self._round(request, asked, None, line))
        of = self._asks_of.get(key)
        if of is None:
            of = self._asks_of[key] = {}
        of[ask] = None
        if asked.kind is Kind.INPUT_REQUIRED:
            return
        refused = self._refused.get(key)
        if refused is None:
            refused = self._refused[key] = RefusedAsks()
        refused.add(refused_findings(method, asked))

    def _ask_ended(self, request: Exchange) -> tuple[int, RoundRow | None] | None:
        """A server request of :attr:`_asks` no longer waits (answered, or given up on): no longer
        kept; (its call, its round without an answer), :data:`_ANY_CALL` when it was made during
        no call that could be told, or None when it is not kept (its call ended first)."""
        ask = (request.conn, request.call)
        found = self._asks.pop(ask, None)
        if found is None or found[1] is None:
            return found
        key = (request.conn, found[0])
        of = self._asks_of.get(key)
        if of is not None:
            of.pop(ask, None)
            if not of:
                del self._asks_of[key]
        return found

    def _take_asked(self, key: tuple[str, int], call: _Call) -> None:
        """The server requests made while ``call`` waited become its rounds (and the refused
        ones' findings its)."""
        asked = self._asked.pop(key, None)
        if asked is not None:
            call.rounds.extend(asked)
        refused = self._refused.pop(key, None) if self._refused else None
        if refused is not None:
            if call.refused is None:
                call.refused = refused
            else:
                call.refused.extend(refused)

    def _asking(self, request: Exchange) -> Exchange | None:
        """The tools/call a server request belongs to: on 2025-11-25, the one whose task the request
        names in its ``io.modelcontextprotocol/related-task`` metadata (basic/utilities/tasks: a
        task's requests MUST carry it) while the task runs; else the one waiting on the same HTTP
        exchange, else the only one waiting on the connection — a running task's poll
        (``tasks/get``, ``tasks/result``...) waiting counting as its call waiting.

        Looked up in the calls waiting by connection and exchange (:attr:`_calls`,
        :attr:`_calls_in`): a scan of every request waiting made each server request cost as many
        steps as there were, quadratic in a log of many calls waiting while the server asks."""
        conn = request.conn
        calls = self._calls.get(conn)
        # a task's (2025-11-25), named by the request: its call's while it runs (read only where a task was made)
        task = related_task(request) if self._tracker.knows_tasks(conn) else None
        if task is not None:
            number = self._tracker.task_call(conn, task)
            running = self._open.get((conn, number)) if number is not None and self._open else None
            if running is not None:
                return running.first
            if number is None and (made := self._tracker.task_creator(conn, task)) is not None and made[1]:
                return None  # a task id two calls' answers created: its requests cannot be told apart
                # (whether or not a call is still open: the first ends at the reuse, _taken)
        if not calls:
            return None
        http = request.request.http
        number = http.get("exchange") if http else None
        if number is not None:
            if type(number) is int and conn not in self._calls_odd:
                same = self._calls_in.get(conn, {}).get(number)
                if same is not None and len(same) == 1:
                    for exchange in same.values():
                        return self._running(exchange)
            else:  # an exchange that is no integer (an Auditor fed by a caller): compared as values are
                found = [e for e in calls.values() if e.request.http and e.request.http.get("exchange") == number]
                if len(found) == 1:
                    return self._running(found[0])
        if len(calls) == 1:
            for exchange in calls.values():
                return self._running(exchange)
        return None

    def _running(self, exchange: Exchange) -> Exchange | None:
        """``exchange``, a tools/call waiting or a task's poll waiting, when its call is still
        followed (a poll's task call open); else None."""
        return exchange if exchange.method == "tools/call" or (exchange.conn, exchange.call) in self._open else None

    def _waits(self, exchange: Exchange) -> None:
        """A client's tools/call the tracker now holds waiting (in place of any request it held
        under that id): kept in :attr:`_calls`, and by its HTTP exchange."""
        conn = exchange.conn
        key = id_key(exchange.request_id)
        held = self._calls.get(conn, {}).get(key)
        if held is not None:
            self._not_waiting(held)
        self._calls.setdefault(conn, {})[key] = exchange
        http = exchange.request.http
        number = http.get("exchange") if http else None
        if number is not None:
            if type(number) is int:
                self._calls_in.setdefault(conn, {}).setdefault(number, {})[key] = exchange
            else:
                self._calls_odd.setdefault(conn, {})[key] = exchange

    def _not_waiting(self, exchange: Exchange) -> None:
        """A request the tracker no longer holds waiting (answered, replaced, dropped, put aside):
        a tools/call of the client's is no longer in :attr:`_calls` (nothing when the call kept
        under its id is another request's)."""
        if exchange.origin != "client" or exchange.method not in _CALL_METHODS:
            return
        conn = exchange.conn
        calls = self._calls.get(conn)
        if calls is None:
            return
        key = id_key(exchange.request_id)
        held = calls.get(key)
        if held is None or held.request is not exchange.request:  # (the same request: its frame, as seen)
            return
        del calls[key]
        if not calls:
            del self._calls[conn]
        http = held.request.http
        number = http.get("exchange") if http else None
        if number is None:
            return
        if type(number) is int:
            by_number = self._calls_in[conn]
            same = by_number[number]
            del same[key]
            if not same:
                del by_number[number]
                if not by_number:
                    del self._calls_in[conn]
        else:
            odd = self._calls_odd[conn]
            del odd[key]
            if not odd:
                del self._calls_odd[conn]

    def _forget_calls(self, conn: str | None = None) -> None:
        """The calls waiting on ``conn`` (None: on every connection) are no longer kept."""
        tables: tuple[dict[str, Any], ...] = (self._calls, self._calls_in, self._calls_odd)
        for table in tables:
            if conn is None:
                table.clear()
            else:
                table.pop(conn, None)

    def _unanswered(self, exchange: Exchange, why: str, end: End, out: list[Entry], *,
                    unclear: bool = False) -> None:
        """A request that got no answer (``unclear``: its answer cannot be told from another's,
        ``why`` says why)."""
        position, batched = self._take(exchange)
        source, line = position if position is not None else (self.source, self._line)
        lines = 0 if batched else 1  # (a request of a batch: its line is counted with the batch)
        key = (exchange.conn, exchange.call)
        cancel = self._cancels.pop((exchange.conn, exchange.request.seq), None) if self._cancels else None
        if exchange.origin == "client" and (exchange.method == "tools/call" or
                                           (exchange.method in _TASK_METHODS and key in self._open)):
            self.tally["call"] += lines
            call = self._open.pop(key, None) or _Call(exchange, source, line)
            if self._asked:
                self._take_asked(key, call)
            version = exchange.context.version
            if unclear:
                verdict = ambiguous(version, why)
            elif cancel is not None:
                where, at, reason = cancel
                verdict = cancelled(version, f"the client cancelled the call (notifications/cancelled, {where}:{at}"
                                    + (f", reason {reason!r}" if reason is not None else "")
                                    + ") before its answer arrived; the request was sent, so the tool may have run")
            else:
                verdict = unanswered(version, why)
            call.rounds.add(self._round(exchange, verdict, None, line))
            call.verdict = verdict
            if call.first_verdict is None:
                call.first_verdict = verdict
            out.append(self._finish(call, end))
            return
        if exchange.origin == "server" and self._asks:  # a request made during a call, never to be answered
            ended = self._ask_ended(exchange)  # (replaced, dropped, the connection closed): its round without one
            if ended is not None and ended[1] is not None:
                held = self._asked.get((exchange.conn, ended[0]))
                if held is None:
                    held = self._asked[(exchange.conn, ended[0])] = _Rounds()
                held.add(ended[1])
        self.tally["message"] += lines

    def _cancel(self, conn: str, look: Peek, line: int, http: Mapping[str, Any] | None) -> None:
        """The client's ``notifications/cancelled``: the tools/call waiting under its ``requestId``
        is marked cancelled; if it ends without an answer, its verdict says the client cancelled
        it. Of two sessions' requests waiting under that id on one HTTP client, the one of the
        notification's session (its ``Mcp-Session-Id``); none when that does not tell."""
        params = look.params
        request_id = params.get("requestId")
        if type(request_id) is not int and type(request_id) is not str:  # (none, or no id a request carries)
            return
        key = id_key(request_id)
        found = self._tracker.waiting(conn, "client", key)
        aside = self._aside.get((conn, key)) if self._aside else None
        if aside:
            found = _of_session([found, *aside] if found is not None else aside, http)
        if found is None or found.method != "tools/call":
            return
        reason = params.get("reason")
        self._cancels[(conn, found.request.seq)] = (self.source, line,
                                                    cut(reason, _REASON_KEPT) if isinstance(reason, str) else None)

    def _sent(self, conn: str, look: Peek, http: Mapping[str, Any], out: list[Entry]) -> None:
        """HTTP: a client request goes out under the id of a request still waiting on the same
        connection, in another exchange (two sessions over one HTTP client, the tap's
        ``http_client()``, each numbering its ids from 1): the waiting one is put aside, not
        ended, and each gets the answer that comes in its own exchange (:meth:`_by_exchange`)."""
        number = http.get("exchange")
        if not isinstance(number, int):
            return
        key = id_key(look.id)
        earlier = self._tracker.waiting(conn, "client", key)
        if earlier is None or _exchange_no(earlier) in (None, number):
            return
        self._tracker.forget(conn, "client", key)
        self._not_waiting(earlier)
        self._aside.setdefault((conn, key), []).append(earlier)
        held = sum(len(v) for v in self._aside.values()) if len(self._aside) > 1 else len(self._aside[(conn, key)])
        if held > self.max_open:  # bounded memory: the oldest put aside ends, as the tracker's own would
            oldest_key = next(iter(self._aside))
            waiting = self._aside[oldest_key]
            exchange = waiting.pop(0)
            if not waiting:
                del self._aside[oldest_key]
            self._unanswered(exchange, f"more than {self.max_open} requests were waiting: the oldest was dropped",
                             "evicted", out)

    def _by_exchange(self, conn: str, look: Peek, http: Mapping[str, Any] | None, data: bytes,
                     out: list[Entry]) -> bool:
        """An answer whose id several requests wait under (:meth:`_sent`): the request of the HTTP
        exchange it came in (else of the HTTP session it came in: a session's GET stream) is made
        the one the tracker pairs it with (True: feed it). When neither tells (an answer on a GET
        stream of no session or of both, or with no exchange), which one it answers cannot be told:
        each ends without an answer (``transport.error``, saying why) and the answer is a stray
        line (False)."""
        key = id_key(look.id)
        aside = self._aside.get((conn, key))
        if not aside:
            return True
        current = self._tracker.waiting(conn, "client", key)
        waiting = [current, *aside] if current is not None else list(aside)
        number = http.get("exchange") if http else None
        same = [e for e in waiting if _exchange_no(e) == number] if isinstance(number, int) else []
        target = same[0] if len(same) == 1 else None if same else _of_session(waiting, http)
        if target is not None:
            if target is not current:
                aside.remove(target)
                if current is not None:
                    self._tracker.forget(conn, "client", key)
                    self._not_waiting(current)
                    aside.append(current)
                self._tracker.restore(conn, "client", key, target)
                if target.origin == "client" and (target.method == "tools/call" or (
                        target.method in _TASK_METHODS and (conn, target.call) in self._open)):
                    self._waits(target)
            if not aside:
                del self._aside[(conn, key)]
            return True
        del self._aside[(conn, key)]
        if current is not None:
            self._tracker.forget(conn, "client", key)
            self._not_waiting(current)
        waiting.sort(key=lambda e: e.request.seq)
        sent = " and ".join(str(_exchange_no(e)) for e in waiting)
        came = f"in exchange {number}" if isinstance(number, int) else "with no HTTP exchange"
        several = (f"{len(waiting)} requests waiting under its id on one HTTP connection (sent in exchanges {sent}: "
                   "two sessions share one client)")
        why = f"an answer to one of {several} came {came}: which one it answers cannot be told"
        for exchange in waiting:
            self._unanswered(exchange, why, "reused_id", out, unclear=True)
        self.tally["stray"] += 1
        out.append(Problem(self.source, self._line, "stray", f"it answers one of {several}, and came {came}: "
                           "which one cannot be told", conn, data[:200], self._order(self._line, conn, 0)))
        return False

    def _stray(self, event: Stray, out: list[Entry]) -> None:
        unreadable = event.peek.kind == "unreadable" or (event.peek.kind == "invalid" and not event.peek.has_id)
        category: Literal["stray", "unreadable"] = "unreadable" if unreadable else "stray"
        if self._batching is None:
            self.tally[category] += 1
        else:
            self._batching.add(category)
        reason = event.reason if not event.peek.problem else f"{event.reason}; unreadable: {event.peek.problem}"
        out.append(Problem(self.source, self._line, category, reason, event.conn, event.seen.data[:200],
                           self._order(self._line, event.conn, 0)))

    def _keep(self, key: tuple[str, int], call: _Call, out: list[Entry]) -> None:
        self._open[key] = call
        while len(self._open) > self.max_open:
            oldest = next(iter(self._open))
            out.append(self._finish(self._open.pop(oldest), "evicted"))

    def _learn(self, exchange: Exchange) -> None:
        """What an answer tells about its connection: the server (initialize, server/discover)
        and its tools (tools/list, page by page: ``frames._tools``' rule; a failed answer stops
        following a listing; one no strict parser reads teaches nothing, and a ``RuntimeWarning``
        names its finding, once per finding code: the set of codes is bounded, the lines are not)."""
        if exchange.method == "tools/list":
            info = self._conns.setdefault(exchange.conn, _Conn())

            def dropped(name: str, tool: Any, size: int) -> None:
                info.dropped(name, tool, size)
                self._tools.dropped(name, tool, size)

            _, unkept, problem = info.listed.listed(exchange, self._tools.room, dropped)
            if problem is not None and problem.code not in self._unread_told:
                self._unread_told.add(problem.code)
                where = f"{one_line(cut(self.source, 200))} line {self._line}" if self.source else f"line {self._line}"
                warnings.warn(f"mcp-verdict audit: {where}: the tools/list answer of connection "
                              f"{one_line(cut(exchange.conn, 200))} is read by no strict parser "
                              f"({problem_words(problem)}): nothing of it was kept, so the calls of a tool "
                              "it lists are judged by the definition kept before, if any, else without outputSchema "
                              "and annotations; later answers with this finding are not told",
                              RuntimeWarning, stacklevel=2)
            if unkept and not self._tools_told:
                self._tools_told = True
                warnings.warn(f"mcp-verdict audit: tools listed past the audit's budget ({TOOLS_KEPT} tools and "
                              f"{TOOLS_BYTES // (1024 * 1024)} MiB per connection, "
                              f"{self.max_tools_bytes // (1024 * 1024)} MiB for the connections held at once) "
                              "were not kept: their calls are judged without their outputSchema and annotations",
                              RuntimeWarning, stacklevel=2)
            return
        look = exchange.response_peek
        result = look.result if look is not None else None
        if result is None:
            return
        info = self._conns.setdefault(exchange.conn, _Conn())
        if exchange.method in ("initialize", "server/discover"):
            server = result.get("serverInfo")
            meta = result.get("_meta")
            if not isinstance(server, Mapping) and isinstance(meta, Mapping):  # 2026-07-28 server/discover
                server = meta.get("io.modelcontextprotocol/serverInfo")
            if isinstance(server, Mapping):
                name, version = server.get("name"), server.get("version")
                info.server = name if isinstance(name, str) else info.server
                info.server_version = version if isinstance(version, str) else info.server_version

    # -- rows --------------------------------------------------------------------------------
    def _round(self, exchange: Exchange, verdict: Verdict | None, status: str | None, line: int) -> RoundRow:
        """The row of a round that is over (answered, or ended without an answer)."""
        request = exchange.request
        response = exchange.response
        timed = self.has_time
        kind = None if verdict is None else str(verdict.kind)
        request_id = exchange.request_id
        shown = str(request_id) if type(request_id) is int else _id_text(request_id)  # (_id_text's first case)
        if response is None:
            return RoundRow(exchange.method, shown, kind, status, request.at if timed else None, None,
                            len(request.data), None, line, None)
        return RoundRow(exchange.method, shown, kind, status, request.at if timed else None,
                        response.at if timed else None, len(request.data), len(response.data), line, self._line)

    def _order(self, line: int, conn: str, call: int) -> tuple[Any, ...]:
        if line >= END_OF_INPUT:
            return (self.family, END_OF_INPUT, 0, conn, call)
        return (self.family, self.file_order, line, conn, call)

    def _finish(self, call: _Call, end: End) -> CallRow:
        first = call.first
        conn = first.conn
        if self._asked or self._refused:  # (a task ended without its answer: its server requests still)
            self._take_asked((conn, first.call), call)
        if self._asks_of:  # the requests made during the call that the client has not answered: rounds all the same
            of = self._asks_of.pop((conn, first.call), None)
            if of is not None:
                for ask in of:
                    found = self._asks.pop(ask, None)
                    if found is not None and found[1] is not None:
                        call.rounds.add(found[1])
        info = self._conns.get(conn)
        verdict = call.verdict
        assert verdict is not None
        waiting = verdict.kind in _WAITING  # (the call's last answer left it waiting: not finished)
        refused = call.refused.findings() if call.refused is not None else None
        if refused:  # the server asked for what it must not (2025 servers): the call is not accepted
            verdict = make_verdict(Kind.UNCLASSIFIED, (*verdict.findings, *refused), verdict.version,
                                   verdict.message)
        name = first.tool
        tool = schema = None
        if info is not None and name is not None:
            tool = info.listed.tools.get(name)
            if tool is not None:
                schemas = info.schemas  # (_listed_schema's memo, read here: every call reads it)
                schema = schemas[name] if name in schemas else _listed_schema(info, name, tool)
        outcome = evaluate_listed(verdict, tool, schema, trusted_server=self.trusted_server)
        decision = decide(outcome)
        action = decision.action
        accepted = action is Action.ACCEPT
        findings = tuple([FindingRow(f.code, f.severity, f.path, f.message) for f in verdict.findings]) \
            if verdict.findings else ()
        checked = outcome.content_check
        if checked is not None and checked.findings:
            findings += tuple([FindingRow(f.code, f.severity, f.path, f.message) for f in checked.findings])
        rounds = call.rounds
        # the naive receiver took the first answer as the end: right only if it was the accepted one
        # (a 2025 server's own requests during the call are not answers; every round counted, kept or not)
        first_accepted = accepted and rounds.answers == 1
        kept = rounds.kept()
        context = first.context
        answered = call.answered
        first_verdict = call.first_verdict
        naive_said = call.naive
        number, request_id = first.call, first.request_id
        server = server_version = transport = None
        if info is not None:
            server, server_version, transport = info.server, info.server_version, info.transport
        at = self._line  # (_order, written out)
        order = (self.family, self.file_order, at, conn, number) if at < END_OF_INPUT else \
            (self.family, END_OF_INPUT, 0, conn, number)
        return CallRow(
            call.source, call.line, self.input_format, self.fidelity, conn, number, server, server_version, transport,
            utf8_text(name), str(request_id) if type(request_id) is int else _id_text(request_id), context.version,
            context.source, context.extensions,
            first.request.at if kept and kept[0].started_at is not None else None,  # (the call's request came first)
            kept[-1].ended_at if kept else None, kept, str(verdict.kind),
            None if first_verdict is None else str(first_verdict.kind), verdict.error_code, findings,
            str(action), decision.rule, decision.reason, outcome.stage, accepted,
            bool(checked and checked.schema_checked), naive_said, naive_said == "success" and not first_accepted,
            action is Action.CHECK_STATE, answered,
            answered and not waiting and end in ("answered", "closed", "log_ended"),
            end if not (end == "answered" and not answered) else "closed", call.task_id, order, rounds.shed,
            rounds.shed_request_bytes, rounds.shed_response_bytes)


def _exchange_no(exchange: Exchange) -> int | None:
    """The HTTP exchange (POST) a request came in, when the log says."""
    http = exchange.request.http
    number = http.get("exchange") if http else None
    return number if isinstance(number, int) else None


def _of_session(waiting: list[Exchange], http: Mapping[str, Any] | None) -> Exchange | None:
    """The one request of ``waiting`` sent in the HTTP session (``Mcp-Session-Id``) a frame came
    in (an answer on a session's GET stream, a resumed one: Streamable HTTP, "Resumability and
    Redelivery"; a cancellation POSTed on its own); None when no session, or not one request, says."""
    session = http.get("session") if http else None
    if not isinstance(session, str):
        return None
    same = [e for e in waiting if e.request.http and e.request.http.get("session") == session]
    return same[0] if len(same) == 1 else None


def _continues(verdict: Verdict) -> bool:
    """An answer the tracker can link a continuation to: an input request with a requestState,
    or a task handle (its id)."""
    if verdict.kind is Kind.INPUT_REQUIRED:
        return verdict.request_state is not None
    return verdict.task is not None


def _id_text(value: Any) -> str:
    """A request id as JSON text (``7`` and ``"7"`` stay apart; a string of bytes that are no
    UTF-8, held as those bytes, as written with each such byte ``\\xNN``)."""
    if type(value) is int:
        return str(value)  # what orjson writes, and past 64 bits what repr writes
    if type(value) is bytes:
        return value.decode("utf-8", "backslashreplace")
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:
        return repr(value)
