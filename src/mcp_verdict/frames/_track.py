"""Following MCP conversations frame by frame: which answer belongs to which request, under which
protocol version, capabilities and extensions, and which rounds make up one tool call.

A :class:`Tracker` is fed every frame of one or more connections, in the order each connection
saw them (``feed``), and returns what each frame completes: an :class:`Answered` exchange (a
request and the frame that answers it), or a :class:`Stray` frame (an answer to no request, a
second answer, a message that answers nothing). ``close`` ends a connection and returns an
:class:`Unanswered` exchange for every request still waiting. It is sans-I/O: the tap, the
proxy and the audit each feed it from their own source and act on the events.

Pairing is by connection and JSON-RPC id with its JSON type (sessions reuse ids, so there is
no process-wide map), the id exact (:func:`peek`: an integer past 64 bits is an ``int``, not the
float orjson reads). A frame no parser can read is paired by the id :func:`recover_id` finds
in it; without one (or with ``null``), by the HTTP exchange it came in, or by the only request
waiting — unless its id is a number no int or float holds (``1e400``: :attr:`Peek.unheld`),
which no request can carry: such a frame answers no request.

What is in force for a request (:class:`Context`), per the version's rules:

- 2026-07-28 and later: the request's own ``_meta`` (``io.modelcontextprotocol/protocolVersion``
  and ``io.modelcontextprotocol/clientCapabilities``; the extensions are the keys of its
  ``extensions`` member) — https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta;
- 2025 sessions: the ``initialize`` exchange (the version the server answered, the capabilities
  the client declared);
- otherwise the ``MCP-Protocol-Version`` header of the request's HTTP exchange, else the
  tracker's default. A version mcp-verdict does not know is kept as ``claimed`` and read as the
  default.
- 2025-11-25: a ``tools/call`` whose params hold ``task`` is task-augmented (the tasks extension
  is in force for it).

Rounds: a ``tools/call`` that echoes a ``requestState`` an earlier answer on its connection
gave continues that call (multi round-trip input); ``tasks/get``, ``tasks/result``,
``tasks/update`` and ``tasks/cancel`` for a task id an earlier answer created continue the call
that created it. A task id another call's answer created again (2025-11-25 basic/utilities/tasks:
"Task IDs MUST be unique among all tasks controlled by the receiver") is no call's: its requests
cannot be told apart (:meth:`Tracker.task_creator`; the caller, which knows whether the first task
ended, may hand it to the later call: :meth:`Tracker.learn_task`; :meth:`Tracker.task_reuse` makes
that decision with the caller's lookup of the first task). Each :class:`Exchange` says its
``call`` and ``round``.

Batches: a JSON-RPC batch (a JSON array) is followed where MCP has them — 2025-03-26 alone
(basic/index#batching; 2024-11-05 has none, 2025-06-18 removed them) in force on its connection
(:meth:`Tracker.version_in_force`: the version ``initialize`` negotiated there, else the HTTP
exchange's header, else the default) — element by element, each element a frame of its own with
its exact bytes (:meth:`Tracker.batch`). An element that is no object is a :class:`Stray` ("not
a JSON-RPC message"), as is an array inside the batch. Under another version a batch is one
stray naming the version; so is an empty batch (JSON-RPC 2.0 section 6: an invalid request). An
array no strict parser reads is paired as any unreadable answer (with the only request waiting).
A batch is the answer to a batch (JSON-RPC 2.0 section 6): a request sent alone that an element
of a batch answers is paired with the whole array (:attr:`Exchange.batched`), so its verdict reads
what the server sent in reply to it.

Requests no strict parser reads: with ``read_unreadable_requests`` (the default), a request
whose bytes are no strict JSON (bytes that are not UTF-8 in an argument, NaN) and whose id
shows is followed by a lenient read of its method and params (routing only:
:func:`lenient_request`); its answer is judged on its own bytes as any answer is. So is one
whose id is a string of bytes that are not UTF-8: the id is those bytes as written
(:func:`with_bytes_id`), and an answer that echoes them is paired with it.

A request whose id is still waiting on its connection replaces the earlier request, which is
returned as :class:`Unanswered` at once (it can no longer be told apart from the new one).
Past ``max_pending`` requests waiting on a connection (a peer that never answers), the oldest
is returned as :class:`Unanswered` with ``evicted`` set: memory stays bounded.
With ``pair_mismatched_ids=True`` (the audit's reading), an answer whose id matches no waiting
request by JSON type but equals, written as text, the id of the only waiting request with
that text (``"7"`` for ``7``) is paired with it; ``classify`` given the request id then finds
the mismatch (``envelope.id_mismatch``) instead of the call being left unanswered.

The values the tracker makes and returns are in ``_exchange``, what it holds of one connection
in ``_connection``, and what the frames say of tasks (a task's end, a task id created again) in
``_tasks``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from contextlib import suppress
from types import MappingProxyType
from typing import Any, Final, Literal

import msgspec

from ..verdict._versions import LATEST_VERSION, TASKS_EXTENSION, VERSIONS
from ._connection import _both_wait, _Connection, _exchange_no, _index_exchange, _remember_text
from ._exchange import _T, Answered, Context, Event, Exchange, Origin, Reuse, Seen, Stray, Unanswered, VersionSource
from ._jsonrpc import (
    Peek,
    batch_elements,
    id_key,
    is_batch,
    lenient_request,
    names_method_member,
    peek,
    shown_id,
    with_bytes_id,
)
from ._routing_headers import PROTOCOL_VERSION_KEY as _META_VERSION

_META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
_TASK_METHODS: Final = frozenset({"tasks/get", "tasks/result", "tasks/update", "tasks/cancel"})
_STATELESS: Final = frozenset(v for v in VERSIONS if v >= "2026-07-28")
_NO_META: Final[Mapping[str, Any]] = MappingProxyType({})
_ANSWERS: Final = frozenset({"response", "error", "unreadable", "invalid"})
"""The frame kinds that answer a request (or try to: an unreadable or invalid frame with its id)."""
_READS_RESULT: Final = frozenset({"initialize", "server/discover"})
"""The requests whose result the tracker reads (the version, capabilities and extensions)."""
_replace: Final = msgspec.structs.replace
_BATCHES: Final = frozenset({"2025-03-26"})
"""The versions whose messages may be JSON-RPC batches (2025-03-26 basic/index#batching; 2024-11-05
has none, 2025-06-18 removed them: its changelog)."""


class Tracker:
    """Follows the conversations of any number of connections (sans-I/O)."""

    def __init__(self, *, default_version: str = LATEST_VERSION, max_answered: int = 100_000,
                 max_pending: int = 100_000, pair_mismatched_ids: bool = False,
                 read_unreadable_requests: bool = True) -> None:
        if default_version not in VERSIONS:
            raise ValueError(f"unknown protocol version {default_version!r}")
        if max_pending < 1:
            raise ValueError("max_pending must be at least 1")
        self.default_version = default_version
        self.pair_mismatched_ids = pair_mismatched_ids
        self.read_unreadable_requests = read_unreadable_requests
        self._max_answered = max_answered
        self._max_pending = max_pending
        self._conns: dict[str, _Connection] = {}
        self.server_requests: list[Exchange] | None = None
        """None (the default), or a list the caller empties: each request a server sends (an
        elicitation, a sampling request...) is appended to it when it begins waiting, so the
        caller judges what the server sent when it is seen, whether or not the client ever
        answers it (the tap: a request the client ignores, or answers after the call ended)."""

    def pending(self, conn: str) -> list[Exchange]:
        """The requests of ``conn`` still waiting for an answer, oldest first."""
        state = self._conns.get(conn)
        return list(state.pending.values()) if state else []

    def waiting(self, conn: str, origin: Origin, key: tuple[str, Any]) -> Exchange | None:
        """The request ``origin`` sent on ``conn`` with the id ``key`` (:func:`id_key`) if it is
        still waiting: the one an answer with that id will be paired with (None: none waits)."""
        state = self._conns.get(conn)
        return state.pending.get((origin, key)) if state is not None else None

    def latest(self, conn: str, key: tuple[str, Any]) -> Origin | None:
        """Of the client's and the server's requests both waiting on ``conn`` under the id ``key``
        (:func:`id_key`), the side whose request began waiting the later: the one after the other
        in :meth:`pending` (None: not both wait). Looked up, not scanned: the tracker notes it when
        a request begins waiting while the other side's waits under its id."""
        state = self._conns.get(conn)
        if state is None:
            return None
        pending = state.pending
        if ("client", key) not in pending or ("server", key) not in pending:
            return None
        return state.both.get(key)

    def guess(self, conn: str, origin: Origin, data: bytes) -> Exchange | None:
        """The request ``origin`` sent on ``conn`` that the answer ``data`` is likely to answer,
        read without parsing it: the only request waiting on ``conn``, else the one waiting
        under the id the frame's first or last bytes show (:func:`shown_id`); None when neither
        finds one. A guess only, for a caller that judges an answer before feeding it (the
        answer is read once, by the judge: :func:`answer_peek`); ``feed`` pairs it for good."""
        state = self._conns.get(conn)
        if state is None:
            return None
        pending = state.pending
        if len(pending) == 1:
            for exchange in pending.values():
                return exchange if exchange.origin == origin else None
        shown = shown_id(data)
        return pending.get((origin, id_key(shown))) if shown is not None else None

    def version_in_force(self, conn: str, http: Mapping[str, Any] | None = None) -> str:
        """The protocol version in force on ``conn`` for a frame that carries none of its own (a
        batch): the one ``initialize`` negotiated there, else the HTTP exchange's
        ``MCP-Protocol-Version`` header (``http["protocol_version"]``), else the default; a version
        mcp-verdict does not know reads as the default (the module's Context rules)."""
        state = self._conns.get(conn)
        if state is not None and (state.version is not None or state.claimed is not None):
            return state.version or self.default_version
        header = http.get("protocol_version") if http else None
        return header if isinstance(header, str) and header in VERSIONS else self.default_version

    def batch(self, conn: str, data: bytes, http: Mapping[str, Any] | None = None) -> list[bytes] | str:
        """The elements of the JSON-RPC batch ``data`` (a JSON array), each as its exact bytes
        (:func:`batch_elements`), when the batch is followed on ``conn``: the version in force
        there (:meth:`version_in_force`) is 2025-03-26, the only one with batches
        (2025-03-26 basic/index#batching; 2024-11-05 has none; 2025-06-18 removed them). Else
        why it is a stray: the version, an empty batch (JSON-RPC 2.0 s6: an invalid request), an
        array no strict parser reads. ``feed`` follows a batch this way; a caller that handles
        each message itself (the audit's counts, the proxy's rewriting) feeds each element it
        returns, these very objects, in turn (an array among them with ``element=True``): a request
        so fed is one of the batch, an answer so fed to a request sent alone answers it with the
        whole batch."""
        version = self.version_in_force(conn, http)
        if version not in _BATCHES:
            return (f"a batch is not part of MCP {version} (JSON-RPC batches are 2025-03-26's only: 2024-11-05 "
                    "has none, 2025-06-18 removed them)")
        elements = batch_elements(data)
        if elements is None:
            return "no strict parser reads the batch (an array): its messages cannot be told apart"
        if not elements:
            return "an empty batch is an invalid request (JSON-RPC 2.0 section 6)"
        state = self._conns.get(conn)
        if state is None:
            state = self._conns[conn] = _Connection()
        state.batch = (bytes(data), elements, {id(part) for part in elements})
        return elements

    def feed(self, conn: str, direction: Literal["c2s", "s2c"], data: bytes, at: float, seq: int,
             http: Mapping[str, Any] | None = None, look: Peek | None = None, *,
             element: bool = False) -> list[Event]:
        """One frame of ``conn``: what it completes. Never raises for any ``data``.

        ``look`` is the frame's :func:`peek` when the caller already has it (it is not read again).

        A JSON-RPC batch (a JSON array) that :meth:`batch` follows is fed element by element,
        each element a frame of its own with its exact bytes (its :class:`Seen` has the batch's
        ``at``, ``seq`` and ``http``): the events are its elements' in order (a request waits for
        its answer, an answer pairs with its request, an element that is no object is a
        :class:`Stray`, "not a JSON-RPC message", as an array inside the batch is); ``opened``
        is then None. A batch it does not follow is one :class:`Stray`, with the reason.
        ``element``: ``data`` is an element of a batch (an array there is no batch to follow).

        A request no strict parser reads (bytes that are not UTF-8 in its params, NaN...) whose
        id shows is followed when ``read_unreadable_requests`` (the default): its method and
        params are read leniently, for routing (:func:`lenient_request`); its answer is then
        paired with it and judged strictly.
        """
        state = self._conns.get(conn)
        if state is None:
            state = self._conns[conn] = _Connection()
        if look is None:
            look = peek(data)
        seen = Seen(data if type(data) is bytes else bytes(data), at, seq, http)
        kind = look.kind
        whole = None
        if state.batch is not None:  # the elements of the batch batch() gave are fed (these very objects)
            if id(data) in state.batch[2]:
                whole = state.batch[0]
            else:
                state.batch = None
        if kind == "unreadable":
            if element is False and is_batch(seen.data) \
                    and not isinstance(self.batch(conn, seen.data, seen.http), str):
                kind = "batch"  # a batch whose elements are told apart (bytes that are no UTF-8 in one)
            elif self.read_unreadable_requests:
                look = with_bytes_id(seen.data, look)  # (an id of bytes that are no UTF-8: compared as bytes)
                if (read := lenient_request(seen.data, look)) is not None:
                    look, kind = read, "request"
            # (else paired as any unreadable answer: an array none reads too, with the only request waiting)
        if kind == "request":  # (it sets state.opened)
            events = self._request(conn, state, "client" if direction == "c2s" else "server", look, seen)
            if whole is not None and (opened := state.opened) is not None:  # a request of a batch
                key = (opened.origin, id_key(opened.request_id))  # (_request's)
                state.pending[key] = state.opened = _replace(opened, batched=True)
            return events
        state.opened = None
        if kind == "notification":
            return []
        if kind in _ANSWERS:
            other: Origin = "server" if direction == "c2s" else "client"
            target = None
            if look.has_id:  # the common case: the id finds the request waiting (under this key)
                request_id = look.id
                key = (other, ("int", request_id) if type(request_id) is int else id_key(request_id))
                target = state.pending.pop(key, None)
            if target is None:  # no id, or one no request waits under: the one _match finds, if any
                target = self._match(state, other, look, seen)
                if target is None:
                    return [self._stray(conn, direction, state, other, look, seen)]
                request_id = target.request_id
                key = (other, id_key(request_id))  # where it waits
                del state.pending[key]
            answered = state.answered
            answered.add(key)
            if len(answered) > self._max_answered:
                answered.clear()  # bounded memory on a long connection: only duplicate detection is lost
            if other == "client":
                message = look.message  # look.result, read here
                result = message.get("result") if message is not None else None
                # the members any other result is read for (a result holding none of them, most, is not
                # read): three lookups, where a set's isdisjoint makes an iterator over the result
                if isinstance(result, dict) and (target.method in _READS_RESULT
                                                 or "requestState" in result or "taskId" in result or "task" in result):
                    self._facts(state, target, result, key[1])
            if whole is not None and not target.batched:  # a request sent alone, answered in a batch:
                seen = Seen(whole, at, seq, http)  # its answer is the array (JSON-RPC 2.0 s6: a batch answers a batch)
                look = peek(whole)
            return [Answered(_replace(target, response=seen, response_peek=look))]
        return self._batch(conn, direction, state, seen, look, element)

    def _batch(self, conn: str, direction: Literal["c2s", "s2c"], state: _Connection, seen: Seen, look: Peek,
               element: bool) -> list[Event]:
        """A batch (``feed``): its elements' events, or one stray."""
        if element:
            return [Stray(conn, direction, seen, look, "an array inside a batch is not a JSON-RPC message (JSON-RPC "
                          "2.0 section 6: each element is one request, notification or response object)")]
        elements = self.batch(conn, seen.data, seen.http)
        if isinstance(elements, str):
            return [Stray(conn, direction, seen, look, elements)]
        events: list[Event] = []
        for part in elements:
            events.extend(self.feed(conn, direction, part, at=seen.at, seq=seen.seq, http=seen.http, element=True))
        state.opened = None
        return events

    @staticmethod
    def _stray(conn: str, direction: Literal["c2s", "s2c"], state: _Connection, other: Origin, look: Peek,
               seen: Seen) -> Stray:
        """An answer (or a try at one) that no request waiting on ``conn`` takes, and why."""
        kind = look.kind
        why = ("a second answer to the same request" if look.has_id and (other, id_key(look.id)) in state.answered
               else "it answers no request waiting on this connection")
        if kind == "invalid" and not look.has_id:
            why = "it is not a JSON-RPC message"
        elif look.unheld is not None:
            why = "its id is a number no integer or float holds, which no request can carry"
        elif kind == "unreadable" and names_method_member(seen.data):
            why = ("no strict parser reads it and its bytes name a method: a request or a notification "
                   "whose method and params cannot be read, which is not followed")
        return Stray(conn, direction, seen, look, why)

    def export(self, conn: str) -> _Connection | None:
        """What the tracker holds of ``conn`` (None: nothing), to continue it in another tracker
        with :meth:`adopt` (the audit's processes hand a connection that spans their parts of a
        log over this way; the value pickles)."""
        return self._conns.get(conn)

    def adopt(self, conn: str, state: _Connection) -> None:
        """Continue ``conn`` from what :meth:`export` gave (replacing what this tracker held of it)."""
        self._conns[conn] = state

    def opened(self, conn: str) -> Exchange | None:
        """The request the last frame fed on ``conn`` opened (None when that frame was no request):
        a relay registers its deadline without reading the frame a second time."""
        state = self._conns.get(conn)
        return state.opened if state is not None else None

    def task_call(self, conn: str, task_id: str) -> int | None:
        """The call (:attr:`Exchange.call`) whose answer on ``conn`` created the task ``task_id``
        (None: none this tracker still knows): what a 2025-11-25 server's request naming the task
        in its ``io.modelcontextprotocol/related-task`` metadata was made during."""
        state = self._conns.get(conn)
        call = state.tasks.get(task_id) if state is not None else None
        return call if call is not None and call > 0 else None

    def task_creator(self, conn: str, task_id: str) -> tuple[int, bool] | None:
        """(the call whose answer on ``conn`` first created the task ``task_id``, whether a later
        call's answer created it again), None when this tracker knows no such task. Created again
        (two calls' answers naming one task id: 2025-11-25 basic/utilities/tasks, "Task IDs MUST be
        unique among all tasks controlled by the receiver"), the task's polls and related requests
        are no call's (:meth:`task_call` is None: they cannot be told apart) until the caller hands
        the id to the later call (:meth:`learn_task`: the first task had ended), or for good
        (:meth:`unfollow_task`: the first task had not; then the call is 0)."""
        state = self._conns.get(conn)
        call = state.tasks.get(task_id) if state is not None else None
        return None if call is None else (-call, True) if call <= 0 else (call, False)

    def knows_tasks(self, conn: str) -> bool:
        """Whether a task id was created on ``conn`` that this tracker still knows (else a request
        naming a task names none of this connection's: :meth:`task_call` and
        :meth:`task_creator` are None whatever it names, and it need not be read for one)."""
        state = self._conns.get(conn)
        return state is not None and bool(state.tasks)

    def unfollow_task(self, conn: str, task_id: str) -> None:
        """The task id ``task_id``, created on ``conn`` by a call whose task had not ended when a
        later call's answer created it again, is no call's for good: its polls and related
        requests cannot be told to be either task's, nor those of a task created with it again
        later (the earlier tasks not known to have ended). :meth:`task_creator` says ``(0, True)``."""
        state = self._conns.get(conn)
        if state is not None:
            state.tasks_bytes = _remember_text(state.tasks, task_id, 0, self._max_answered, state.tasks_bytes)

    def task_reuse(self, conn: str, task_id: str, call: int, running: Callable[[int], _T | None]) -> Reuse[_T]:
        """Whether the answer to the tools/call ``call`` (:attr:`Exchange.call`) of ``conn``, which
        created the task ``task_id``, created an id still in use (2025-11-25 basic/utilities/tasks:
        "Task IDs MUST be unique among all tasks controlled by the receiver"; ext-tasks: each task
        is uniquely identifiable by its id), fed to the tracker before or after this is asked.
        ``running(earlier)`` is the caller's own record of the call ``earlier`` whose answer created
        the id first while its task runs (None: it ended, or the caller let it go): the tap's, the
        audit's and the proxy's, each its own lookup.

        - not in use (created by no other call, or by one whose task ended: the id is this call's
          from now on, :meth:`learn_task`): ``Reuse(False, None)``;
        - in use by the task of ``running``'s record, now no call's for good (:meth:`unfollow_task`):
          ``Reuse(True, record)``; the caller blames both calls;
        - created twice already, the earlier tasks not known to have ended: ``Reuse(True, None)``."""
        made = self.task_creator(conn, task_id)
        if made is None or made[0] == call:
            return Reuse(False, None)
        if made[0] == 0:  # created twice already, the first task not ended then: a reuse again
            return Reuse(True, None)
        first = running(made[0])
        if first is not None:
            self.unfollow_task(conn, task_id)
            return Reuse(True, first)
        self.learn_task(conn, task_id, call)
        return Reuse(False, None)

    def waiting_in(self, conn: str, origin: Origin, number: int) -> list[Exchange]:
        """The requests ``origin`` sent on ``conn`` in the HTTP exchange ``number`` that still
        wait, oldest first (looked up by exchange, not scanned)."""
        state = self._conns.get(conn)
        keys = state.by_exchange.get((origin, number)) if state is not None else None
        if not keys or state is None:
            return []
        pending = state.pending
        return [found for key in keys if (found := pending.get(key)) is not None and _exchange_no(found) == number]

    def waiting_count(self, conn: str) -> int:
        """How many requests (both sides') wait on ``conn``."""
        state = self._conns.get(conn)
        return len(state.pending) if state is not None else 0

    def learn_task(self, conn: str, task_id: str, call: int) -> None:
        """The task ``task_id`` was created on ``conn`` by the call ``call`` (:attr:`Exchange.call`),
        though the tracker did not pair its answer: an answer to a request the caller gave up on
        (:meth:`forget`), which came later (a stray here) and which the caller read as the call's.
        The task's polls and related requests are that call's from now on (:meth:`task_call`); so
        for a task id created again (:meth:`task_creator`) once the caller knows the first task ended."""
        state = self._conns.get(conn)
        if state is not None:
            state.tasks_bytes = _remember_text(state.tasks, task_id, call, self._max_answered, state.tasks_bytes)

    def forget(self, conn: str, origin: Origin, key: tuple[str, Any]) -> Exchange | None:
        """Stop waiting for the answer to the request ``origin`` sent on ``conn`` with the id
        ``key`` (a caller that gave up on it: a timeout); an answer that comes later is a
        :class:`Stray`. Returns the request (None: none was waiting)."""
        state = self._conns.get(conn)
        return state.pending.pop((origin, key), None) if state is not None else None

    def restore(self, conn: str, origin: Origin, key: tuple[str, Any], exchange: Exchange) -> None:
        """Make ``exchange`` again the request ``origin`` awaits on ``conn`` with the id ``key``,
        in place of whatever request the tracker took for that id since (a relay that refused a
        host's reuse of an id in flight: the earlier request keeps the id). Nothing when the
        tracker holds nothing of ``conn``."""
        state = self._conns.get(conn)
        if state is not None:
            pending = state.pending
            fresh = (origin, key) not in pending  # (then it begins waiting after every request waiting)
            pending[(origin, key)] = exchange
            if fresh and ("server" if origin == "client" else "client", key) in pending:
                _both_wait(state, key, origin)
            _index_exchange(state, (origin, key), exchange)

    def rename(self, conn: str, origin: Origin, key: tuple[str, Any], request_id: Any) -> Exchange | None:
        """The request ``origin`` awaits on ``conn`` under the id ``key`` (:func:`id_key`) waits
        under ``request_id`` from now on, as its id (a request that gave its id twice, which two
        parsers read two ways, answered under the one the tracker did not read: the proxy's
        ``_twice``). Returns it renamed; None (nothing changed) when none waits under ``key`` or
        a request of ``origin`` waits under ``request_id`` already."""
        state = self._conns.get(conn)
        if state is None:
            return None
        new = id_key(request_id)
        pending = state.pending
        if (origin, new) in pending or (origin, key) not in pending:
            return None
        renamed = _replace(pending.pop((origin, key)), request_id=request_id)
        pending[(origin, new)] = renamed
        if state.initialize_id == key and origin == "client":
            state.initialize_id = new
        if ("server" if origin == "client" else "client", new) in pending:
            _both_wait(state, new, origin)
        _index_exchange(state, (origin, new), renamed)
        return renamed

    def close(self, conn: str, reason: str = "the connection closed") -> list[Event]:
        """End ``conn``: every request still waiting is unanswered."""
        state = self._conns.pop(conn, None)
        if state is None:
            return []
        return [Unanswered(exchange, reason) for exchange in state.pending.values()]

    # -- requests ------------------------------------------------------------------------------
    def _request(self, conn: str, state: _Connection, origin: Origin, look: Peek, seen: Seen) -> list[Event]:
        """A request: it waits for its answer; the events are the requests it puts out of waiting
        (one whose id it reuses, the oldest past ``max_pending``)."""
        method = look.method or ""
        message = look.message  # look.params, read here
        params = message.get("params") if message is not None else None
        if type(params) is not dict and not isinstance(params, dict):
            params = {}
        request_id = look.id
        id_of = ("int", request_id) if type(request_id) is int else id_key(request_id)
        key = (origin, id_of)
        if origin == "client":
            if method == "initialize":
                state.initialize_id = id_of
                capabilities = params.get("capabilities")
                state.capabilities = capabilities if isinstance(capabilities, Mapping) else None
            read = state.context_meta  # _context's first test, here (a call less for most requests)
            meta = params.get("_meta")
            context = None
            if read is not None and type(meta) is dict and read[1] is state.server_extensions:
                try:
                    if read[0] == meta:  # the _meta the last context was read from (one compare in C)
                        context = state.context
                except RecursionError:  # nested past the interpreter's recursion limit: read as it is
                    pass
            elif meta is None and (plain := state.context_plain) is not None and plain[0] is state.version \
                    and plain[1] is state.claimed and plain[2] is state.capabilities \
                    and plain[3] is state.server_extensions and "task" not in params:
                context = state.context = plain[4]  # (_context's own effects on the state, as it would)
                state.context_meta = None
            if context is None:
                context = self._context(state, look, params, seen)
        else:
            context = Context(state.version or self.default_version, "initialize" if state.version else "default")
        tool = task_id = None
        call: int | None = None
        if method == "tools/call":
            name = params.get("name")
            tool = name if isinstance(name, str) else None
            if "requestState" in params and origin == "client" and isinstance(params["requestState"], str):
                call = state.states.get(params["requestState"])
        elif method in _TASK_METHODS:
            task = params.get("taskId")
            task_id = task if isinstance(task, str) else None
            if origin == "client" and task_id is not None:
                call = state.tasks.get(task_id)
                if call is not None and call <= 0:  # a task id two calls created: no call's (task_creator;
                    call = None  # 0: for good, unfollow_task), a call of its own as before the caller's word
        if call is None:  # a new call: its first round (not kept: a call in ``rounds`` has had a second)
            call = state.calls = state.calls + 1
            number = 1
        else:  # (the oldest calls forgotten past the cap)
            rounds = state.rounds
            number = rounds[call] = rounds.get(call, 1) + 1
            if len(rounds) > self._max_answered:
                rounds.popitem(last=False)
        exchange = Exchange(conn, origin, method, request_id, seen, None, context, call, number, tool, task_id)
        if origin == "server" and self.server_requests is not None:
            self.server_requests.append(exchange)
        pending = state.pending
        replaced = pending.pop(key, None)
        pending[key] = state.opened = exchange
        if len(pending) > 1 and ("server" if origin == "client" else "client", id_of) in pending:
            _both_wait(state, id_of, origin)  # (the other side's request waits under its id: this one is the later)
        if seen.http is not None:
            _index_exchange(state, key, exchange)
        state.answered.discard(key)  # an id reused after its answer is a new request
        if replaced is None and len(pending) <= self._max_pending:
            return []  # (the common case)
        events: list[Event] = []
        if replaced is not None:
            events.append(Unanswered(replaced, "a new request reused its id before it was answered"))
        if len(pending) > self._max_pending:  # a peer that never answers: bounded memory
            events.append(Unanswered(pending.pop(next(iter(pending))), f"more than {self._max_pending} requests "
                                     "were waiting on the connection: the oldest was dropped", evicted=True))
        return events

    def _context(self, state: _Connection, look: Peek, params: dict[str, Any], seen: Seen) -> Context:
        """What is in force for a client request (``_request`` first gives the connection's last
        context to a request whose ``_meta`` equals the one it was read from: ``context_meta``)."""
        meta = params.get("_meta")
        if type(meta) is not dict and (meta is None or not isinstance(meta, Mapping)):
            meta = _NO_META  # (None tested first: an ABC test of None is slow, and most requests have no _meta)
        claimed = meta.get(_META_VERSION)
        capabilities: Mapping[str, Any] | None
        if isinstance(claimed, str) and (claimed in _STATELESS or claimed not in VERSIONS):
            source: VersionSource = "request_meta"
            raw_caps = meta.get(_META_CAPABILITIES)
            capabilities = raw_caps if type(raw_caps) is dict or (
                raw_caps is not None and isinstance(raw_caps, Mapping)) else None
        elif state.version is not None or state.claimed is not None:
            source, claimed, capabilities = "initialize", state.version or state.claimed, state.capabilities
        else:
            header = seen.http.get("protocol_version") if seen.http else None
            if isinstance(header, str):
                source, claimed = "header", header
            else:
                source, claimed = "default", None
            capabilities = state.capabilities
        version = claimed if isinstance(claimed, str) and claimed in VERSIONS else self.default_version
        declared = capabilities.get("extensions") if capabilities else None
        task = params.get("task") if version == "2025-11-25" and look.method == "tools/call" else None
        tasks = task is not None and isinstance(task, Mapping)
        in_force: tuple[str, ...] = ()
        if declared is not None or tasks:
            extensions = set()
            if isinstance(declared, Mapping):
                extensions = {name for name in declared if isinstance(name, str)}
                if state.server_extensions is not None:
                    extensions &= state.server_extensions
            if tasks:
                extensions.add(TASKS_EXTENSION)
            in_force = tuple(sorted(extensions))
        state.context_meta = (meta, state.server_extensions) \
            if source == "request_meta" and claimed in _STATELESS and type(meta) is dict else None
        if claimed == version:
            claimed = None
        last = state.context
        context = None
        if (last is not None and last.version == version and last.source == source and last.claimed == claimed
                and last.extensions == in_force):
            held = last.client_capabilities
            if held is capabilities:
                context = last
            else:
                try:
                    if held == capabilities:  # the same JSON value (one compare in C)
                        context = last
                except RecursionError:  # nested past the interpreter's recursion limit: taken as another
                    pass
        if context is None:
            context = state.context = Context(version, source, claimed, capabilities, in_force)
        if meta is _NO_META and source == "initialize" and not tasks:
            state.context_plain = (state.version, state.claimed, state.capabilities, state.server_extensions, context)
        return context

    # -- answers -------------------------------------------------------------------------------
    def _match(self, state: _Connection, origin: Origin, look: Peek, seen: Seen) -> Exchange | None:
        if look.has_id and (look.id is not None or look.kind not in {"error", "unreadable"}):
            found = state.pending.get((origin, id_key(look.id)))
            if found is None and self.pair_mismatched_ids and look.id is not None:
                text = _id_text(look.id)  # (looked up under the keys of that text: a scan of every request
                pending = state.pending  # waiting made each answer to none cost as many steps as there were)
                same = [p for key in _keys_read_as(text)
                        if (p := pending.get((origin, key))) is not None and _id_text(p.request_id) == text]
                return same[0] if len(same) == 1 else None
            return found
        if look.kind != "unreadable" and not (look.kind == "error" and (look.message or {}).get("id") is None):
            return None
        if look.unheld is not None:  # an id no request can carry (1e400): it answers none
            return None
        # No readable id: an error without one or with a null id (the server could not read the
        # request id: JSON-RPC 2.0 section 5), or a frame no parser reads (without an id, or with
        # a null one). The HTTP exchange it came in pairs it; else the only request waiting.
        exchange_no = seen.http.get("exchange") if seen.http else None
        keys = state.by_exchange.get((origin, exchange_no)) if isinstance(exchange_no, int) else None
        if keys and isinstance(exchange_no, int):  # the requests of that exchange (a stale key dropped)
            pending = state.pending
            same = []
            for key in list(keys):
                found = pending.get(key)
                if found is not None and _exchange_no(found) == exchange_no:
                    same.append(found)
                else:
                    del keys[key]
                    state.indexed -= 1
            if not keys:
                del state.by_exchange[(origin, exchange_no)]
            if len(same) == 1:
                return same[0]
        only = None  # else the only one waiting: the scan stops at a second
        for (who, _), p in state.pending.items():  # (so a batch of such answers costs a step or two each)
            if who == origin:
                if only is not None:
                    return None
                only = p
        return only

    def _facts(self, state: _Connection, exchange: Exchange, result: dict[str, Any], id_of: tuple[str, Any]) -> None:
        """What the result answering ``exchange`` (a client's request, waiting under ``id_of``)
        puts in force on the connection: the version, capabilities and extensions of an
        ``initialize`` or ``server/discover``, a ``requestState``, a task id."""
        method = exchange.method
        initialized = method == "initialize" and state.initialize_id == id_of
        if initialized:
            version = result.get("protocolVersion")
            if isinstance(version, str):
                state.version = version if version in VERSIONS else None
                state.claimed = version
        if initialized or method == "server/discover":  # the server's extensions
            server_caps = result.get("capabilities")
            extensions = server_caps.get("extensions") if isinstance(server_caps, Mapping) else None
            if isinstance(extensions, Mapping):
                state.server_extensions = frozenset(n for n in extensions if isinstance(n, str))
        state_value = result.get("requestState")
        if isinstance(state_value, str):
            state.states_bytes = _remember_text(state.states, state_value, exchange.call, self._max_answered,
                                                state.states_bytes)
        task_id = result.get("taskId")
        if not isinstance(task_id, str):
            task = result.get("task")  # (an ABC test of None costs more than the rest of this)
            task_id = task.get("taskId") if task is not None and isinstance(task, Mapping) else None
        if isinstance(task_id, str):
            created = state.tasks.get(task_id)
            if created is not None and created != exchange.call:
                if created > 0 and exchange.method == "tools/call":
                    # created again by another call: its polls and related requests cannot be told apart
                    # (task ids MUST be unique: 2025-11-25 basic/utilities/tasks, Task ID Requirements)
                    # until the caller, which knows whether the first task ended, hands it on (learn_task)
                    state.tasks[task_id] = -created
                return  # (created twice already: it stays no call's; a poll's answer creates no task)
            state.tasks_bytes = _remember_text(state.tasks, task_id, exchange.call, self._max_answered,
                                               state.tasks_bytes)


def _id_text(value: Any) -> str:
    """An id as text, whatever its JSON type (``7`` and ``"7"`` both read ``7``)."""
    return value if isinstance(value, str) else repr(value)


_INT_TEXT: Final = re.compile(r"-?(?:0|[1-9][0-9]*)", re.ASCII)


def _keys_read_as(text: str) -> list[tuple[str, Any]]:
    """The keys (:func:`~mcp_verdict.frames.id_key`) of the ids that may read as ``text``
    (:func:`_id_text`): the string, and the number, boolean or null whose ``repr`` it may be."""
    keys: list[tuple[str, Any]] = [("str", text)]
    if _INT_TEXT.fullmatch(text):
        with suppress(ValueError):  # (past the digits int() reads: no such id)
            keys.append(("int", int(text)))
    else:
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is not None and repr(number) == text:
            keys.append(("float", number))
    if text in ("True", "False"):
        keys.append(("bool", text == "True"))
    elif text == "None":
        keys.append(("NoneType", None))
    return keys
