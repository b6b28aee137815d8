"""The relay: one host↔upstream conversation, frame by frame, with no I/O of its own.

The transports (``_stdio``, ``_http_host``, ``_http_upstream``) hand it every frame they read
and send what it returns. For each frame it decides, in this order:

- **limits**: a frame longer than ``max_frame`` is never forwarded; it is logged as
  ``refused`` (its first bytes give the id, :func:`frames.recover_id`), and the request it is,
  or answers, gets a ``TOO_LARGE`` error;
- **pairing**: :class:`frames.Tracker` pairs answers with requests by connection and id with
  its JSON type, and says what is in force for each (version, capabilities, extensions);
- **judging**: every answer to ``tools/call`` and ``tasks/result`` is classified on its exact
  bytes, and a terminal ``tasks/get`` on the result it inlines; each round (input_required
  retries, task polls) is judged as it comes; a task id created again while its task runs makes
  both calls, and the polls' ends naming it, ``unclassified`` (``_tasks``);
- **mode**: ``observe`` forwards every frame unchanged. ``enforce`` forwards every frame
  unchanged **except**: an answer whose verdict is ``unclassified`` (it reaches the host as the
  REFUSED error of ``_codes``, or as a tool error); an answer to any other request, or a
  message from the server, that no strict parser reads (duplicate keys, NaN, invalid UTF-8,
  a truncated line: two parsers could read it two ways) — an answer becomes a REFUSED error, a
  server request gets an error upstream, a notification is dropped; an answer to no request
  the host is waiting for. Each refused frame is logged as ``refused`` with the reason;
- **unreadable requests**: a host request no parser reads (NaN, ``1e400``, a lone surrogate,
  invalid UTF-8) whose id shows (:func:`frames.recover_id`) is forwarded unchanged and awaited by
  that id like any other (its deadline, its faults), in a bounded table of the relay's own (the
  tracker cannot open it): its answer is the answer to ``tools/call`` when the request's bytes
  name ``"tools/call"`` (judged, in force the session's version, else the HTTP header's, else
  the default), else an answer to a method the proxy does not judge;
- **ids**: an id is held exactly as written (``frames.peek``: an integer past 64 bits, which
  orjson reads as a float, is read again from the bytes; a string escaping a lone surrogate is
  read by Python's json), and the proxy's own answers and cancellations carry it as the host
  wrote it, the text of the request's id member (``_ids.as_written``: ``1E2``, ``-0``,
  ``"\\u0041"``, which written anew would be ``100.0``, ``0``, ``"A"``); an upstream's answer is
  forwarded as the upstream wrote it. A host request the proxy cannot await gets its answer at
  once (JSON-RPC 2.0 s5.1), and is not forwarded unless the transport sent it already: one whose
  id the host has in flight on the connection (INVALID_REQUEST; PARSE_ERROR when no parser reads
  it: the two answers could not be told apart, and the earlier request keeps the id), one whose
  id is a number no int or float holds (``1e400``: INVALID_REQUEST, under the id as written),
  one whose id is a string that is not UTF-8 (PARSE_ERROR with a null id: the id cannot be
  told, JSON-RPC 2.0 s5; TOO_LARGE with a null id when it is also past the limit);
- **requests read two ways**: a host request whose ``method``, ``id``, ``params.name`` (a
  ``tools/call``) or ``params.taskId`` (a ``tasks/*`` request) is given twice with two values
  (``_twice``: the proxy reads the last, a server's parser may read the first) is answered by the
  proxy in enforce (INVALID_REQUEST naming the member; a null id when it is the id) and not
  forwarded (a transport with a pipe upstream reads such a frame before sending it:
  ``_bridge``); observe forwards it, its record noting the member (an element of a batch: the
  batch's record, ``_batch``); one whose two ids differ waits under the last, and an answer
  under the first is its answer too (:meth:`Relay._under_first_id`: judged against the id it
  carries, sent to the host as the request's answer);
- **faults**: an upstream that closes or exits answers every request in flight with
  UPSTREAM_CLOSED (:meth:`Relay.upstream_lost`), a request past ``timeout`` gets
  UPSTREAM_TIMEOUT and a ``notifications/cancelled`` upstream (:meth:`Relay.expire`; none for an
  ``initialize``, which a client MUST NOT cancel: each of the proxy's own cancellations), a late
  answer after that is refused (the host already has its answer), and a host that goes away
  cancels its requests upstream (:meth:`Relay.host_lost`). A request its host gives up (its
  HTTP stream closed; its own ``notifications/cancelled``, sent on as it came) is no longer
  awaited (:meth:`Relay.cancel`): the host is sent nothing for it, and a later answer is
  refused as late (MCP basic/utilities/cancellation: the sender ignores it).

So every frame in is forwarded, answered with an error, or logged as refused; frames are
returned in the order they came. What the host sees is what the frame log holds as
``message`` records (the proxy's own answers carry a note saying so).

What the host waits for: a transport may send a frame before the relay reads it when the relay
says what it will do with it — :meth:`Relay.forwards_unread` (observe: forwarded unchanged
whatever it holds) and :meth:`Relay.passes_early` (enforce: an answer to a judged request whose
verdict passes; the verdict is made first, the pairing, records and verdict line after the send).
"""

from __future__ import annotations

import gc
import hashlib
import json
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NamedTuple, Protocol, TypeVar

import msgspec

from ..frames import Answered, Context, Exchange, FrameRecord, Seen, Stray, Tracker, Unanswered, id_key
from ..frames._jsonrpc import NAMES_WHOLE, Id, Peek, answer_peek, is_batch, names_method, peek, shown_id
from ..frames._log import RecordKind
from ..frames._tools import ListedTools, ToolsBudget
from ..judgement._decide import decide
from ..verdict._classify import DEFAULT_LIMITS
from ..verdict._findings import Finding
from ..verdict._input import ASKED, RefusedCalls, judge_server_request, refused_findings
from ..verdict._judge import OptionsMemo, held_id, judge
from ..verdict._kind import Kind
from ..verdict._options import Options
from ..verdict._parser import parse
from ..verdict._peer_text import cut, neutral
from ..verdict._verdict import Verdict, make_verdict
from ..verdict._versions import LATEST_VERSION, VERSIONS
from ._batch import host_batch, upstream_batch
from ._codes import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    REFUSED,
    TOO_LARGE,
    UPSTREAM_CLOSED,
    UPSTREAM_TIMEOUT,
    UPSTREAM_UNAVAILABLE,
    RefuseAs,
    cancelled,
    digest,
    error_frame,
    refusal,
    verdict_data,
)
from ._faults import failed
from ._ids import _reply_id, _same_text, _shown, _unreadable_string_id, as_written, recover
from ._one_line import _ONE_LINE, _ONE_LINE_UP
from ._params import Declared, DeclaredCache
from ._tasks import Taken, Tasks
from ._twice import may_repeat, read_repeated
from ._twice import note as twice_note
from ._twice import reason as twice_reason

Mode = Literal["observe", "enforce"]
Side = Literal["host", "upstream"]
_JUDGED: Final = frozenset({"tools/call", "tasks/result"})
_TASK: Final = Kind.TASK
_ANSWER_KINDS: Final = frozenset({"response", "error"})
_ASKS: Final = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
"""A 2025 server's own input requests (JSON-RPC requests to the client while a call waits)."""
_REFUSED_CALLS: Final = 256
"""The calls whose refused server requests are held at once, at most (the oldest dropped past it:
a call the proxy answered itself, whose answer never comes)."""
_NO_ID_KINDS: Final = frozenset({"error", "unreadable"})
"""The answers with no id (null, or none read) that the tracker pairs by their HTTP exchange.
_unnumbered: the relay feeds the tracker an upstream's such answer without its exchange number:
the upstream's exchanges and the host's are numbered apart (a number is the same request on
neither side), and the tracker's pairing by exchange scans every request waiting; without it,
the answer is the only request waiting's (a scan that stops at a second)."""
_RECOVER_PREFIX: Final = 64 * 1024
_PAUSE_GC: Final = 256 * 1024
"""An upstream frame of this many bytes or more is read, judged and kept with Python's cyclic
garbage collector paused (:func:`_gc_paused`)."""
_MAX_UNREADABLE: Final = 10_000
"""The unreadable host requests awaited at once, at most (past it the oldest is paired no more:
its deadline still answers it)."""
_T = TypeVar("_T")
Key = tuple[str, Any]


class Out(NamedTuple):
    """A frame to send: to the host or the upstream (immutable; a tuple is built in one step)."""

    to: Side
    data: bytes
    answers: Key | None = None
    """For a frame to the host that answers one of its requests: that request's id key (the
    HTTP host side routes it to the POST it answers)."""
    related: Key | None = None
    """For a server message to the host that relates to one of its requests (progress): that
    request's id key."""
    also: tuple[Key, ...] = ()
    """For a batch to the host (2025-03-26): the id keys of the other requests it answers
    (``answers`` is the first's)."""


_tuple_new: Final = tuple.__new__
"""Builds a named tuple of all its fields in one step (``_tuple_new(Out, (...))``), where the
class's own ``__new__`` is a Python call."""


class Recorder(Protocol):
    """Where the relay records (``_record.Recorder``; tests may pass their own)."""

    def frame(self, record: FrameRecord) -> None: ...

    def verdict(self, line: Mapping[str, Any]) -> None: ...

    @property
    def wants_verdicts(self) -> bool: ...

    @property
    def redacts(self) -> bool:
        """It writes a payload's digest and size, not its bytes: the relay may give it a record
        with ``redacted`` set, the digest made once for the record and the answer's verdict line."""
        ...


class Telemetry(Protocol):
    """Spans and metrics per tools/call (``_otel``)."""

    def start(self, exchange: Exchange, session: str | None) -> object:
        """A token for ``end``, or None when nothing records the call (``end`` is then not called)."""

    def end(self, token: object, verdict: Verdict | None, action: str | None, error: str | None,
            refused: bool) -> None: ...

    def context(self, token: object) -> object:
        """The span context of the call ``token`` records (None: none), for a later span's link."""

    def reused(self, token: object, task_id: str, first_id: object, first: object, kind: str,
               action: str) -> None:
        """On the span of the call ``token`` records, whose task handle created ``task_id`` again:
        an event naming the call whose task held it (its request id ``first_id``, its verdict
        judged again, ``kind`` and ``action``) and a link to that call's span (its context
        ``first``; None: no link), whose span ended when its handle came (``_tasks``)."""


class _Waiting(msgspec.Struct):
    """A host request the relay awaits (a Struct: built in C, where a dataclass's ``__init__`` is
    a Python call per request)."""

    exchange: Exchange
    deadline: float
    started: float
    token: object = None
    progress: object = None


@dataclass(slots=True)
class Stats:
    """Counts of what crossed, for the soak test and the shutdown line."""

    host_frames: int = 0
    upstream_frames: int = 0
    forwarded: int = 0
    replaced: int = 0
    refused: int = 0
    proxy_answers: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


_READ_ONCE_BYTES: Final = 2048
"""The size from which observe judges an answer sent early before the relay reads it, the judge's
read serving the routing (:meth:`Relay.read_sent`): under it, guessing its request costs more than
the routing read it spares (callgrind, a 250 B answer: ~4,000 instructions more; at 60 kB, ~310,000
fewer, orjson's read of it)."""
_UNCLASSIFIED: Final = Kind.UNCLASSIFIED  # (an Enum member is slow to look up on its class)
_Early = tuple[bytes, "Peek | None", "Verdict | None", "Exchange | None"]
"""An answer judged before :meth:`Relay.from_upstream` read it (:meth:`Relay.passes_early`,
:meth:`Relay.read_sent`): its bytes, its routing read (None: ``from_upstream`` reads it), its
verdict and the request it was judged as the answer of (None: not judged). A plain tuple: a
named one costs ~2,000 instructions more per answer to make and read (callgrind)."""


def _unsaid(text: str) -> None:
    """:attr:`Relay.said` of a relay no transport holds: the fault is in the frame log's note only."""


class Relay:
    """One conversation between a host and its upstream (see the module docstring)."""

    __slots__ = ("_answered_by_proxy", "_asks_refused", "_declared", "_deferred", "_digested", "_early", "_first_ids",
                 "_listing", "_listing_read", "_option_memo", "_options_of", "_progress", "_refused_asks", "_retold",
                 "_seq", "_tasks", "_tools", "_tools_budget", "_unreadable", "_waiting", "batch_opened", "clock",
                 "conn", "enforce", "keeps_look", "last_opened", "max_frame", "messages", "mode", "one_line",
                 "recorder", "refuse_as", "said", "session", "stats", "telemetry", "timeout", "tracker", "transport",
                 "twice_note", "unrepeated", "upstream_look", "upstream_one_line", "withholds")
    # (slots: an instance of more than 30 attributes keeps them in a dict of its own, not the class's
    # shared keys, and on CPython 3.11 each read of one is a hinted dict lookup, ~16% slower in a loop)

    def __init__(self, conn: str = "proxy", *, mode: Mode = "observe", refuse_as: RefuseAs = "error",
                 timeout: float = 120.0, max_frame: int = DEFAULT_LIMITS.max_bytes,
                 default_version: str = LATEST_VERSION, recorder: Recorder | None = None,
                 telemetry: Telemetry | None = None, transport: Literal["stdio", "http"] | None = None,
                 messages_in_refusals: bool = True, clock: Callable[[], float] = time.monotonic,
                 tools_budget: ToolsBudget | None = None) -> None:
        if mode not in ("observe", "enforce"):
            raise ValueError(f"mode must be observe or enforce, not {mode!r}")
        if refuse_as not in ("error", "tool-error"):
            raise ValueError(f"refuse_as must be error or tool-error, not {refuse_as!r}")
        self.conn = conn
        self.mode = mode
        self.enforce = mode == "enforce"
        self.said: Callable[[str], None] = _unsaid
        """Where a fault of the proxy's own met while judging is said (the relay does no I/O: the
        transports' ``Bridge`` sets it to ``_faults.told``, its one stderr line); by default nowhere
        but the frame log's note."""
        self.refuse_as: RefuseAs = refuse_as
        self.timeout = timeout
        self.max_frame = max_frame
        self.tracker = Tracker(default_version=default_version, read_unreadable_requests=False)
        # (a host request no parser reads is awaited by the relay itself: _await_unreadable)
        self.recorder = recorder
        self.telemetry = telemetry
        self.transport = transport
        self.messages = messages_in_refusals
        self.clock = clock
        self.session: str | None = None
        """The upstream's Mcp-Session-Id, when it has one (for the spans)."""
        self.stats = Stats()
        self._seq = 0
        self._waiting: dict[Key, _Waiting] = {}
        self._tools = ListedTools()
        """The tools kept of the upstream's listings (``frames._tools``: a whole listing replaces
        them; at most 10,000 and 64 MiB), for the decisions and the ``Mcp-Param`` headers."""
        self._tools_budget = tools_budget
        """What the tools of every relay of the process count together (an HTTP host's sessions),
        or None: this relay's own budget alone."""
        self._declared = DeclaredCache()
        """The ``Mcp-Param`` headers each listed tool declares (:meth:`param_declared`)."""
        self._listing: tuple[Exchange, int] | None = None
        """A ``tools/list`` answered and forwarded whose tools are not kept yet (:meth:`_kept`)."""
        self._retold: tuple[Exchange, Taken, str, str] | None = None
        """The call judged again as an answer is judged (:meth:`_taken`): that answer's request, the
        call, the task id, the call's new decision, for the span of the call that answer ends
        (:meth:`_spans_of_tasks`)."""
        self._digested: tuple[bytes, str] | None = None
        """The bytes last digested for a record and their SHA-256 (hex) while their other record
        waits (:meth:`_sha256`): one reading of an answer's bytes for its verdict line and its
        frame log record, where there were two (~28 instructions a byte under callgrind)."""
        self._listing_read: tuple[int, Finding | None] | None = None
        """The last ``tools/list`` answer read strictly (:meth:`_listing_problem`; enforce:
        :meth:`_answer`'s reading), by its request's frame number, and why no strict parser
        reads it."""
        self._answered_by_proxy: dict[Key, str] = {}
        """The requests of the host no longer awaited (the proxy answered them itself, or stopped
        waiting: their host cancelled them or went away), each with the note its late answer's
        ``refused`` record carries."""
        self._unreadable: dict[Key, Exchange] = {}
        """The host's requests no parser reads, awaited by the id they show (the tracker does
        not know them: :meth:`_await_unreadable`)."""
        self._progress: dict[object, Key] = {}
        """The host's requests waiting by their progress token (:meth:`_track_progress`)."""
        self._deferred: deque[tuple[Exchange, _Waiting | None, bytes, Verdict | None]] = deque()
        self._option_memo = OptionsMemo()  # classify's options per request context, checked once (of)
        self._options_of: tuple[object, Any] = (None, None)  # (Any: None until a first context's)
        """The context :meth:`_options` gave options for last, and those options: consecutive
        calls of a connection share a context (the memo's own lookup, without its call)."""
        self._refused_asks = RefusedCalls(_REFUSED_CALLS)
        """The host's tools/call requests during which the server made a request the proxy refuses
        (:meth:`_asked`), the last :data:`_REFUSED_CALLS`."""
        self._asks_refused = False
        """Some server request was refused during a call (:meth:`_refuse_during`): until then
        ``_refused_asks`` is empty, and not asked (its ``__bool__`` is a call)."""
        self._early: _Early | None = None
        """The read of the frame :meth:`passes_early` or :meth:`read_sent` judged, for
        :meth:`from_upstream` of the same bytes next."""
        self.keeps_look = False
        """Keep :attr:`upstream_look` (an HTTP host over a stdio upstream: ``_http_host``)."""
        self.upstream_look: tuple[bytes, Peek] | None = None
        """With :attr:`keeps_look`, the last upstream frame :meth:`from_upstream` read, with its
        routing read: the HTTP host side gives a 2026-07-28 answer's status from it
        (``_headers._error_status``) when the frame it sends is that very one, where it searched
        the answer's bytes again, and drops it."""
        self._tasks = Tasks(self.tracker, conn)
        """The tasks running on the connection, for a task id created again (``_tasks``)."""
        self.one_line = False
        """The host reads one frame per line (stdio) from an upstream whose frames may hold line
        breaks (HTTP): a forwarded frame holding CR or LF is written to the host with each
        replaced by a space (:func:`one_line`), which its frame-log record notes."""
        self.upstream_one_line = False
        """The upstream reads one frame per line (stdio) from a host whose frames may hold line
        breaks (an HTTP body, pretty-printed): each CR and LF is written as a space, which the
        host frame's record notes."""
        self.last_opened: Key | None = None
        """The id key of the request the last host frame opened (None: it opened none)."""
        self.batch_opened: tuple[Key, ...] = ()
        """The id keys of the requests the last host batch opened, in order (``_batch.host_batch``;
        set by each batch followed, not cleared by other frames: its reader clears it)."""
        self.twice_note: str | None = None
        """The note of the last host request forwarded although it reads two ways (``_twice``; set
        by each such request, not cleared by other frames: its reader, ``_batch.host_batch``,
        clears it)."""
        self._first_ids: dict[Key, tuple[Key, int, Id]] = {}
        """The host's requests forwarded whose id two parsers read two ways (``_twice``), awaited
        under the last: by the key of the first, (the key they wait under, their frame number, the
        first id) — an answer under the first is theirs (:meth:`_under_first_id`); once the proxy
        stops awaiting one, its cancellation names the first id too and a late answer under it is
        refused as late (:meth:`_first_ids_of`). Entries whose request no longer waits are
        dropped lazily (:meth:`_first_id`)."""
        self.unrepeated: bytes | None = None
        """The host frame its caller found no routing name repeated in (``_twice.may_repeat`` said
        False: the bridge asks before it sends a frame in enforce): :meth:`from_host` of these
        same bytes, next, does not scan them again (the answer is the bytes'; cleared by that call)."""
        self.withholds: Callable[[bytes, bool], str | None] | None = None
        """The upstream's word on a ``notifications/cancelled`` it will not send on (an HTTP
        upstream: the request stream's close is the cancellation), with whether the proxy wrote
        it: the note its record carries (``HttpUpstream.withholds``)."""

    # -- the host's frames ----------------------------------------------------------------------
    def from_host(self, data: bytes, http: Mapping[str, Any] | None = None, forwarded: bool = False,
                  withheld: str | None = None, look: Peek | None = None) -> list[Out]:
        """A frame the host sent: what to send on.

        ``forwarded``: the caller sent it upstream already (a host frame within ``max_frame`` is
        always forwarded unchanged, so a transport may write it before the relay reads it: the
        upstream starts on it while the relay tracks it); nothing is returned for it then.
        ``withheld``: the note of this notification's record: the upstream takes it without sending
        it on (a 2026-07-28 ``notifications/cancelled`` over HTTP is the request stream's close),
        or the host side changed it (a cancellation of a request sent under an id of the proxy's).
        ``look``: ``peek(data)``, when the caller read it already (an HTTP host side reads each body)."""
        unrepeated, self.unrepeated = self.unrepeated, None  # (held for this call alone)
        if data[:1] != b"{" and len(data) <= self.max_frame and is_batch(data):  # (2025-03-26: followed message
            # by message; a frame starting with "{" is none, without a call)
            batch = host_batch(self, data, http, forwarded)
            if batch is not None:
                return batch
        self.stats.host_frames += 1
        if len(data) > self.max_frame:
            if forwarded:
                raise ValueError("a frame past max_frame is never forwarded")
            return self.host_too_large(data[:_RECOVER_PREFIX], len(data), http)
        at = time.time()
        if look is None:
            look = peek(data)
        if look.kind == "unreadable":
            return self._host_unreadable(data, look, http, at, forwarded, withheld)
        twice = None
        if look.kind == "request" and unrepeated is not data and may_repeat(data, look.message):  # (_twice)
            read = read_repeated(data)
            if read is not None:
                if self.enforce and not forwarded:
                    return self._read_two_ways(data, look, read.member, http, at)
                twice = self.twice_note = twice_note(read, forwarded and self.enforce)
                if read.first_id is not None and look.has_id:
                    self._first_id(read.first_id, look.id)
        seq = self._seq  # (the record is written once the frame is known to be forwarded)
        self._seq += 1
        tracker = self.tracker
        tracker.feed(self.conn, "c2s", data, at, seq, http, look)  # (positional: a call with keywords costs more)
        opened = tracker.opened(self.conn)
        if opened is not None and opened.origin == "client":
            request_id = opened.request_id
            key = ("int", request_id) if type(request_id) is int else id_key(request_id)  # (id_key's, without a call)
            pending = self._waiting
            if key in pending:  # the host reused an id in flight
                return self._id_in_flight(data, opened, key, seq, at, http, forwarded)
            if self.recorder is not None:
                self._log("c2s", "message", data, http=http, at=at, seq=seq, note=twice)
            now = self.clock()
            message = look.message  # its _meta.progressToken, from this read (its _meta first: most have none)
            params = message.get("params") if message is not None else None
            meta = params.get("_meta") if type(params) is dict else None
            token = None
            if type(meta) is dict:  # (a lookup, then the bytes searched only when it names a token: a
                # 2026-07-28 request's _meta is an object, its bytes ~330)
                token = meta.get("progressToken")
                if token is not None and data.find(b"progressToken") < 0:
                    token = None
            waiting = _Waiting(opened, now + self.timeout, now, None, token)
            if self.telemetry is not None and opened.method == "tools/call":
                waiting.token = self.telemetry.start(opened, self.session)
            pending[key] = waiting
            if waiting.progress is not None:
                self._track_progress(key, waiting.progress)
            if self._answered_by_proxy:
                self._answered_by_proxy.pop(key, None)
            self.last_opened = key
        else:
            if self.recorder is not None:
                self._log("c2s", "message", data, http=http, at=at, seq=seq, note=withheld if twice is None else twice)
            self.last_opened = None
        self.stats.forwarded += 1
        return [] if forwarded else [Out("upstream", data)]

    def _first_id(self, first: Id, last: Id) -> None:
        """The host request about to be read (the next frame number) gives its id twice, ``first``
        and ``last`` (``_twice``): it will wait under ``last``, and an answer under ``first`` is
        its answer too (a server whose parser keeps the first answers under it). Past twice the
        requests waiting (and 64) entries, those whose request no longer waits are dropped."""
        table = self._first_ids
        table[id_key(first)] = (id_key(last), self._seq, first)
        if len(table) > 2 * len(self._waiting) + 64:
            self._first_ids = {k: v for k, v in table.items() if self._awaits(v[0], v[1])}

    def _awaits(self, key: Key, seq: int) -> bool:
        waiting = self._waiting.get(key)
        return waiting is not None and waiting.exchange.request.seq == seq

    def _under_first_id(self, key: Key, look: Peek, data: bytes, seq: int, at: float, http: Mapping[str, Any] | None,
                        fed: Mapping[str, Any] | None, defer: bool, on_exchange: Collection[Key] | None
                        ) -> list[Out] | None:
        """An answer under the id ``key`` that no request waits under: when it is the first of
        the two ids a host request waiting under the other gave (:meth:`_first_id`; on its HTTP
        exchange when ``on_exchange`` says which), the answer to that request, judged against the
        id it carries (the tracker's request renamed to it) and sent to the host as its answer
        (``answers``: the key it waited under); None otherwise."""
        entry = self._first_ids.get(key)
        if entry is None or key in self._waiting or not self._awaits(entry[0], entry[1]):
            return None
        last = entry[0]
        if on_exchange is not None and last not in on_exchange:  # (not its exchange: its answer may yet come)
            return None
        del self._first_ids[key]
        if self.tracker.rename(self.conn, "client", last, look.id) is None:
            return None
        events = self.tracker.feed(self.conn, "s2c", data, at=at, seq=seq, http=fed, look=look)
        if not events or not isinstance(events[0], Answered):  # (cannot be: it waits under the id now)
            return None
        self._waiting[key] = self._waiting.pop(last)  # (_answer takes it under the request's id, now this)
        outs = self._answer(events[0].exchange, data, seq, at, http, defer)
        return [out._replace(answers=last) if out.answers == key else out for out in outs]

    def _read_two_ways(self, data: bytes, look: Peek, member: str, http: Mapping[str, Any] | None,
                       at: float) -> list[Out]:
        """enforce: a host request whose ``member`` (``method``, ``id``, ``params.name``,
        ``params.taskId``) two parsers read two ways (``_twice``): the proxy would pair and judge
        it as another request than the server may run, so it is not forwarded; it is logged as
        refused and answered INVALID_REQUEST (JSON-RPC 2.0 s5.1) naming the member, under its id
        as written, or a null id when the id is the member read two ways (s5: it cannot be told)."""
        seq = self._seq
        self._seq += 1
        self.last_opened = None
        reason = twice_reason(member)
        request_id = None if member == "id" else as_written(look.id, data)
        answer = error_frame(request_id, INVALID_REQUEST, f"mcp-verdict proxy: invalid request: {reason}; "
                             f"{_UNFOLLOWED[False]}", {"reason": reason, "member": member, "forwarded": False})
        self._log("c2s", "refused", data, http=http, at=at, seq=seq, note=f"not forwarded (enforce): {reason}")
        self.stats.refused += 1
        return [self._unsent_answer(answer, f"in answer to frame {seq}", http)]

    def _track_progress(self, key: Key, token: object) -> None:
        """The host's request ``key`` waits with the progress token ``token``: the server's
        progress notifications naming it relate to it (the oldest request waiting with it keeps
        it). Its entry goes when a notification finds its request answered, or when entries past
        twice the requests waiting (and 1024) are rebuilt from those waiting."""
        if not isinstance(token, (str, int)):
            return
        table = self._progress
        known = table.get(token)
        if known is None or (held := self._waiting.get(known)) is None or held.progress != token:
            table[token] = key
        if len(table) > 2 * len(self._waiting) + 1024:
            self._progress = {}
            for each, waiting in self._waiting.items():
                if isinstance(waiting.progress, (str, int)):
                    self._progress.setdefault(waiting.progress, each)

    def _id_in_flight(self, data: bytes, opened: Exchange, key: Key, seq: int, at: float,
                      http: Mapping[str, Any] | None, forwarded: bool) -> list[Out]:
        """A host request whose id is in flight on this connection (the host reused it before the
        answer came, which MCP basic/index#requests forbids): the earlier request keeps the id
        (it stays waiting, with its deadline: an HTTP host's POST for it is answered), this one is
        answered with INVALID_REQUEST at once and not forwarded — unless it was already (a pipe
        upstream), when the first answer to the id goes to the earlier request (over one pipe
        they cannot be told apart) and a second is dropped as late. One answer per request,
        in both modes."""
        earlier = self._waiting[key].exchange
        # the tracker took the new one in place of the earlier: undone
        if key in self._unreadable:
            self.tracker.forget(self.conn, "client", key)
        else:
            self.tracker.restore(self.conn, "client", key, earlier)
        self.last_opened = None
        reason = ("a request with the same id is in flight on this connection (the host reused the id before "
                  "its answer came)")
        answer = error_frame(as_written(opened.request_id, data), INVALID_REQUEST,
                             f"mcp-verdict proxy: invalid request: {reason}; {_UNRELAYED[forwarded]}",
                             {"reason": reason, "forwarded": forwarded})
        if forwarded:  # (a pipe upstream is sent each frame before the relay reads it)
            self._log("c2s", "message", data, http=http, at=at, seq=seq,
                      note=f"{reason}: the proxy answered it itself; a second answer to the id is dropped")
            self._remember_answered(key)
            self.stats.forwarded += 1
        else:
            self._log("c2s", "refused", data, http=http, at=at, seq=seq, note=f"not forwarded: {reason}")
            self.stats.refused += 1
        return [self._unsent_answer(answer, f"in answer to frame {seq}", http)]

    def _host_unreadable(self, data: bytes, look: Peek, http: Mapping[str, Any] | None, at: float,
                         forwarded: bool, withheld: str | None = None) -> list[Out]:
        """A host frame no parser reads. A request (its bytes name a method) whose id shows is
        awaited by that id (:meth:`_await_unreadable`); one the proxy cannot await is answered by
        the proxy at once, and not forwarded unless it was already: its id is in flight (the two
        answers could not be told apart: a parse error, JSON-RPC 2.0 s5.1), its id is a
        number the proxy cannot hold (``Peek.unheld``: an invalid request), or its id is a
        string no parser reads (invalid UTF-8: a parse error with a null id, s5)."""
        seq = self._seq  # the record is written once we know whether it is forwarded
        self._seq += 1
        note = f"the proxy could not read it: {look.problem}"
        events = self.tracker.feed(self.conn, "c2s", data, at=at, seq=seq, http=http, look=look)
        self.last_opened = None
        request = data.find(b'"method"') >= 0 and not (events and isinstance(events[0], Answered))
        if not request:
            self._log("c2s", "message", data, http=http, at=at, seq=seq,
                      note=note if withheld is None else f"{note}; {withheld}")
            self.stats.forwarded += 1
            return [] if forwarded else [Out("upstream", data)]
        answer = None
        key = id_key(look.id) if look.has_id else None
        if key is not None and key in self._waiting:
            reason = ("the proxy could not read the request, and a request with the same id is in flight: "
                      "their answers could not be told apart")
            answer = error_frame(as_written(look.id, data), PARSE_ERROR,
                                 f"mcp-verdict proxy: parse error ({look.problem}); a request with the same id is in "
                                 f"flight; {_UNRELAYED[forwarded]}", {"reason": reason, "forwarded": forwarded})
        elif not look.has_id:
            raw = look.unheld
            if raw is not None:
                reason = f"the request id {_shown(raw)} is a number the proxy cannot hold exactly"
                answer = error_frame(raw, INVALID_REQUEST, f"mcp-verdict proxy: invalid request: {reason} "
                                     f"(MCP request ids are strings or integers); {_UNFOLLOWED[forwarded]}",
                                     {"reason": reason, "forwarded": forwarded})
            elif _unreadable_string_id(data):  # (invalid UTF-8): no id to await, none to answer under
                reason = ("its id is a string no JSON parser reads (invalid UTF-8): the proxy cannot tell the id, so "
                          "its answer's id is null (JSON-RPC 2.0 s5)")
                answer = error_frame(None, PARSE_ERROR, f"mcp-verdict proxy: parse error ({look.problem}); {reason}; "
                                     f"{_UNFOLLOWED[forwarded]}", {"reason": reason, "forwarded": forwarded})
        if answer is None:
            self._log("c2s", "message", data, http=http, at=at, seq=seq, note=note)
            if key is not None:
                self.last_opened = self._await_unreadable(data, look.id, Seen(data, at, seq, http))
            self.stats.forwarded += 1
            return [] if forwarded else [Out("upstream", data)]
        if forwarded:  # (a pipe upstream is sent each frame before the relay reads it)
            self._log("c2s", "message", data, http=http, at=at, seq=seq,
                      note=f"{note}; the proxy answered it itself and does not follow it")
            if key is not None:
                self._remember_answered(key)  # (the upstream's second answer to the id: late)
            self.stats.forwarded += 1
        else:
            self._log("c2s", "refused", data, http=http, at=at, seq=seq, note=f"{note}; {reason}")
            self.stats.refused += 1
        return [self._unsent_answer(answer, f"in answer to frame {seq}", http)]

    def _await_unreadable(self, data: bytes, request_id: Id, seen: Seen) -> Key:
        """A host request no parser reads (it names a method) whose id shows: awaited by that id,
        with the usual deadline, so that the host gets its answer or an error, never silence.
        Its answer is judged as a ``tools/call`` answer when the bytes name ``"tools/call"``,
        under the version in force: the session's, else the HTTP header's, else the default."""
        key = id_key(request_id)
        state = self.tracker.export(self.conn)
        header = seen.http.get("protocol_version") if seen.http else None
        if state is not None and state.version is not None:
            context = Context(state.version, "initialize", None, state.capabilities)
        elif isinstance(header, str) and header in VERSIONS:
            context = Context(header, "header")
        else:
            context = Context(self.tracker.default_version, "default")
        method = "tools/call" if data.find(b'"tools/call"') >= 0 else ""
        exchange = Exchange(self.conn, "client", method, request_id, seen, None, context, 0, 1)
        table = self._unreadable
        table[key] = exchange
        if len(table) > _MAX_UNREADABLE:
            del table[next(iter(table))]
        now = self.clock()
        self._waiting[key] = _Waiting(exchange, now + self.timeout, now)
        if self._answered_by_proxy:
            self._answered_by_proxy.pop(key, None)
        return key

    def host_no_message(self, data: bytes, http: Mapping[str, Any] | None = None,
                        why: tuple[int, str] | None = None, answer_id: Id | bytes = None) -> list[Out]:
        """A host body that is no JSON-RPC message (an HTTP POST: empty, blanks only, not JSON,
        not UTF-8 JSON, or JSON that is no object — a batch the relay does not follow, its reason
        the tracker's: the version in force when it is not 2025-03-26, the only one with batches,
        :meth:`frames.Tracker.batch`): never forwarded, logged as refused, answered with a null id
        (JSON-RPC 2.0 s5.1: PARSE_ERROR for a body no parser reads, INVALID_REQUEST for JSON that
        is no object; no id can be told). ``why``: (the code, the reason) the caller found
        (:func:`unfollowed`; HEADER_MISMATCH, a 2026-07-28 request whose headers disagree with its
        body, answered under ``answer_id``, its id as written; UPSTREAM_UNAVAILABLE, an HTTP
        host's ``initialize`` with no room for its session, under its id)."""
        self.stats.host_frames += 1
        self.stats.refused += 1
        if why is not None:
            code, reason = why
        else:
            try:
                json.loads(data.decode())  # (as UTF-8; Python's json reads NaN, 1e400 and a lone surrogate)
            except (ValueError, RecursionError):
                code, reason = PARSE_ERROR, "the body is no JSON text (JSON is UTF-8, RFC 8259 s8.1)"
            else:
                batch = self.tracker.batch(self.conn, data, http) if is_batch(data) else None
                code, reason = INVALID_REQUEST, ("the body is JSON but no JSON-RPC message object (one message per "
                                                 "POST" + (f"; {batch})" if isinstance(batch, str) else ")"))
        self._log("c2s", "refused", data, note=f"not forwarded: {reason}", http=http)
        what = "parse error" if code == PARSE_ERROR else "header mismatch" if code == HEADER_MISMATCH \
            else "unavailable" if code == UPSTREAM_UNAVAILABLE else "invalid request"
        answer = error_frame(answer_id, code, f"mcp-verdict proxy: {what}: {reason}; the proxy does not relay it",
                             {"reason": reason, "forwarded": False})
        return [self._unsent_answer(answer, "refused the body: no JSON-RPC message", http)]

    def host_reused(self, data: bytes, http: Mapping[str, Any] | None = None) -> list[Out]:
        """A host request whose id a request of its session has in flight, which the host side
        found before sending it (over one connection for every host, the session's earlier
        request may wait under an id of the proxy's, so the relay cannot see it): never
        forwarded, logged as refused, answered INVALID_REQUEST under its id, as
        :meth:`_id_in_flight` answers one the relay finds (MCP basic/index: a request id is not
        reused in a session while in flight); the earlier request waits on."""
        self.stats.host_frames += 1
        self.stats.refused += 1
        reason = ("a request of the host's session with the same id is in flight (the host reused the id before "
                  "its answer came)")
        seq = self._log("c2s", "refused", data, note=f"not forwarded: {reason}", http=http)
        look = peek(data)
        answer = error_frame(as_written(look.id, data), INVALID_REQUEST,
                             f"mcp-verdict proxy: invalid request: {reason}; {_UNRELAYED[False]}",
                             {"reason": reason, "forwarded": False})
        return [self._unsent_answer(answer, f"in answer to frame {seq}", http)]

    def host_no_session(self, data: bytes, http: Mapping[str, Any] | None = None) -> list[Out]:
        """A host body whose ``Mcp-Session-Id`` names no session the proxy holds (never issued,
        or ended by the host's DELETE): never forwarded, logged as refused; its answer, HTTP 404
        with a JSON-RPC error of null id, tells the host to initialise a new session (2025-11-25
        basic/transports, Session Management 3 and 4)."""
        self.stats.host_frames += 1
        self.stats.refused += 1
        reason = "the session id is not one of a session the proxy holds (never issued, or ended)"
        self._log("c2s", "refused", data, note=f"not forwarded: {reason}", http=http)
        answer = error_frame(None, INVALID_REQUEST, "Session not found", {"reason": reason, "forwarded": False})
        return [self._unsent_answer(answer, "refused the body: session not found", http)]

    def host_too_large(self, prefix: bytes, size: int, http: Mapping[str, Any] | None = None, *,
                       whole: bool = True) -> list[Out]:
        """A host frame past the limit (a stdio line is cut off as it is read: ``prefix`` is its
        start, ``size`` its length; not ``whole``: the bytes that came before the host side
        stopped reading it, ``size`` then its least length). Logged as refused; a request gets
        TOO_LARGE."""
        self.stats.refused += 1
        shown = f"{size} bytes" if whole else f"at least {size} bytes (the rest was not read)"
        self._log("c2s", "refused", prefix, note=f"{shown}: past the limit of {self.max_frame} bytes",
                  http=http)
        found, request_id = recover(prefix)
        if found:
            request_id = as_written(request_id, prefix)
        elif prefix.find(b'"method"') >= 0 and _unreadable_string_id(prefix):  # a request with no id to answer under
            request_id = None
        else:
            return []
        reason = f"the request is {shown}; the proxy's limit is {self.max_frame}"
        answer = error_frame(request_id, TOO_LARGE, f"mcp-verdict proxy: {reason}",
                             {"reason": reason, "size": size, "limit": self.max_frame})
        # never forwarded nor awaited: a request of the host waiting with this id is another's
        return [self._unsent_answer(answer, "refused the request: too large", http)]

    # -- the upstream's frames ------------------------------------------------------------------
    def from_upstream(self, data: bytes, http: Mapping[str, Any] | None = None, defer: bool = False,
                      on_exchange: Collection[Key] | None = None, during: Key | None = None) -> list[Out]:
        """A frame the upstream sent: what to send on (a long one with the cyclic collector
        paused, :func:`_gc_paused`).

        ``defer`` (observe): an answer is forwarded before it is judged — the caller sends what
        this returns and calls :meth:`judge_deferred` later (the verdict cannot change what
        observe forwards, so the host does not wait for it).

        ``on_exchange``: the requests of the HTTP exchange the frame came on (an HTTP host's POST,
        whose stateless requests may share this relay with other hosts'): an answer naming
        another request waiting here (by its id, or its id's text) is not taken as that
        request's answer — it would reach a host it did not come for (:meth:`_elsewhere`).

        ``during``: the host's request whose HTTP exchange upstream the frame came on (a POST's
        stream): a 2025 server's own request there is made during that call (:meth:`_asked`)."""
        if len(data) >= _PAUSE_GC and gc.isenabled():  # (this, again, with the collector paused: most
            # frames are shorter, and read without a call through _gc_paused)
            return _gc_paused(len(data), self.from_upstream, data, http, defer=defer, on_exchange=on_exchange,
                              during=during)
        early = self._early  # (read early: this frame is no batch, _judge_early reads none)
        if (early is None or early[0] is not data) and data[:1] != b"{" and len(data) <= self.max_frame \
                and is_batch(data):  # (2025-03-26: followed message by message)
            batch = upstream_batch(self, data, http)
            if batch is not None:
                return batch
        self.stats.upstream_frames += 1
        if len(data) > self.max_frame:
            return self.upstream_too_large(data[:_RECOVER_PREFIX], len(data), http)
        at = time.time()
        seq = self._seq  # the record is written once we know whether it is forwarded
        self._seq += 1
        early, self._early = self._early, None
        judged = None
        guessed = None
        if early is not None and early[0] is data:  # passes_early or read_sent read it: its verdict
            _, look, judged, guessed = early
            if look is None:
                look = peek(data)
        else:
            look = peek(data)
        if self.keeps_look:
            self.upstream_look = (data, look)
        if on_exchange is not None and look.kind in _ANSWER_KINDS and look.has_id \
                and self._elsewhere(look.id, on_exchange):
            return self._elsewhere_answer(data, seq, at, http)
        fed = http
        if http is not None and look.id is None and "exchange" in http and look.kind in _NO_ID_KINDS:
            fed = {k: v for k, v in http.items() if k != "exchange"}  # (_unnumbered)
        events = self.tracker.feed(self.conn, "s2c", data, at, seq, fed, look)  # (positional: as from_host's)
        if not events:
            return self._server_message(data, seq, at, http, look, during)
        event = events[0]
        if type(event) is Unanswered:  # a server request that put another out of waiting: one of
            # the server's own under the same id (it reused the id), or past the tracker's bound on
            # requests waiting (a host request put out so is answered as a late one would be)
            return self._server_message(data, seq, at, http, look, during)
        if isinstance(event, Answered):
            exchange = event.exchange
            if exchange.origin == "client":  # (the early verdict only if it was made for this request: the
                # answered exchange is the waiting one with its response, its request the same)
                if judged is not None and (guessed is None or exchange.request is not guessed.request):
                    judged = None
                return self._answer(exchange, data, seq, at, http, defer, judged)
            return self._forward(data, seq, at, http)  # cannot happen on s2c; forward unchanged
        assert isinstance(event, Stray)
        key = id_key(event.peek.id) if event.peek.has_id else None
        kind = event.peek.kind
        # (an answer no parser reads either, with its id, answers one: it echoes a lone surrogate)
        if self._unreadable and (kind in _ANSWER_KINDS or (key is not None and kind == "unreadable")):
            unread = self._unread_answered(key, event.peek)
            if unread is not None:  # the answer to a request the proxy could not read
                return self._answer(unread, data, seq, at, http, defer)
        if self._first_ids and key is not None and kind in _ANSWER_KINDS:  # (a request that gave its id twice)
            first = self._under_first_id(key, event.peek, data, seq, at, http, fed, defer, on_exchange)
            if first is not None:
                return first
        if key is not None and key in self._answered_by_proxy:
            return self._refuse(data, seq, at, http, f"a late answer: {self._answered_by_proxy[key]}")
        if self.enforce:
            near = self._near_miss(event.peek.id) if key is not None and event.peek.kind in ("response", "error") \
                else None
            if near is not None:
                return self._mismatched(near, data, seq, at, http)
            return self._refuse(data, seq, at, http, f"enforce: {event.reason}")
        near = self._near_miss(event.peek.id) if key is not None and event.peek.kind in ("response", "error") \
            else None
        if near is not None:  # observe: delivered where a direct connection would have: as the answer
            near_key = id_key(near.exchange.request_id)
            self._forget(near_key, near, "answered with an id of another JSON type")
            return self._forward(data, seq, at, http, answers=near_key)
        return self._forward(data, seq, at, http)

    def _elsewhere(self, value: Id, on_exchange: Collection[Key]) -> bool:
        """An answer with the id ``value``, come on the HTTP exchange of the requests
        ``on_exchange``, names another request waiting here (its id, or one of another JSON type
        that reads the same, :meth:`_near_miss`)."""
        key = id_key(value)
        if key in on_exchange:
            return False
        if key in self._waiting:
            return True
        near = self._near_miss(value)
        return near is not None and id_key(near.exchange.request_id) not in on_exchange

    def _elsewhere_answer(self, data: bytes, seq: int, at: float, http: Mapping[str, Any] | None) -> list[Out]:
        """An answer that names another request than its exchange's (:meth:`_elsewhere`): paired
        with none. Enforce refuses it; observe forwards it unchanged on its own exchange's
        stream, as a frame that answers nothing there (what a direct connection shows)."""
        note = "an answer on the HTTP exchange of another request than the one its id names: not taken as that " \
               "request's answer (stateless requests of several hosts share this connection)"
        if self.enforce:
            return self._refuse(data, seq, at, http, f"enforce: {note}")
        return self._forward(data, seq, at, http, note=note)

    def _unread_answered(self, key: Key | None, look: Peek) -> Exchange | None:
        """The unreadable request of the host this answer answers (taken from the table): the one
        with its id; for an error with a null id (the server could not read the request either,
        JSON-RPC 2.0 s5), the only request waiting when it is one the proxy could not read."""
        if key is not None and key in self._unreadable:
            return self._unreadable.pop(key)
        if look.kind == "error" and look.id is None and len(self._unreadable) == 1 and len(self._waiting) == 1 \
                and next(iter(self._unreadable)) in self._waiting:  # (the tracker has none waiting: no scan)
            return self._unreadable.popitem()[1]
        return None

    def forwards_unread(self, data: bytes) -> bool:
        """``from_upstream`` will forward this frame unchanged whatever it holds: observe, within
        the limit, and no request answered by the proxy itself (a late answer to one is refused).
        A host with one stream may be sent it before the relay reads it."""
        return not self.enforce and not self._answered_by_proxy and len(data) <= self.max_frame

    def passes_early(self, data: bytes) -> bool:
        """enforce: this frame answers a judged request (``tools/call``, ``tasks/result``) that
        is waiting on this connection, and its verdict lets it through. A host with one stream
        may then be sent it before :meth:`from_upstream` reads it: what enforce forwards of such
        an answer depends on its verdict alone, and ``from_upstream`` of this same ``data``, next,
        reuses this read and this verdict (the bookkeeping, the frame log and the verdict line
        follow the send). False otherwise; what it read is kept for ``from_upstream`` of this same
        ``data`` all the same (the routing read of a frame that names ``"method"``; the verdict of
        an answer refused, when the tracker pairs it with the request it was judged for), which
        then does not read it again.

        A frame whose first and last 300 bytes name no ``"method"`` (no request or notification
        as SDKs write them; most answers; a long answer is not scanned whole) is not read for
        routing first: the request it answers is guessed (the only request waiting, else the one
        whose id the frame's first or last bytes show, :func:`frames.shown_id`) and the answer judged
        against that request's id; a verdict that passes holds the message the strict reader
        read, whose id is then compared, with its JSON type, to the guess's. So a passing answer
        is parsed once (by the judge), and a wrong guess only costs the usual read in
        :meth:`from_upstream` (a request or notification judged as an answer never passes: a
        ``method`` member is ``envelope.request_shape``). A frame that names one is read first,
        as any frame was. A long frame is read with the cyclic collector paused (:func:`_gc_paused`)."""
        if not self.enforce:
            return False
        if len(data) >= _PAUSE_GC and gc.isenabled():  # (this, again, with the collector paused)
            return _gc_paused(len(data), self.passes_early, data)
        early = self._early = self._judge_early(data)  # (whatever it read serves from_upstream)
        if early is None or early[1] is None:
            return False
        verdict, exchange = early[2], early[3]
        if verdict is None or verdict.kind is _UNCLASSIFIED or exchange is None:
            return False
        # a task's handle whose id this connection knows, or an answer naming a task id two tasks
        # hold: from_upstream reads it first (its verdict kept), whether the reuse refuses it (_tasks)
        return not ((verdict.kind is _TASK or exchange.task_id is not None) and self._task_known(exchange, verdict))

    def read_sent(self, data: bytes) -> None:
        """observe, a frame the host was sent before the relay read it (:meth:`forwards_unread`;
        or, for a host of many streams, one whose routing is read before it is sent):
        an answer to a judged request waiting here is judged now, its request guessed as
        :meth:`passes_early` guesses it, and :meth:`from_upstream` of this same ``data``, next,
        reuses that read for its routing (when the verdict's message confirms the guess) and
        the verdict (when the tracker pairs the answer with that request): so an answer is read
        once, by the judge, instead of once for routing and again, deferred, for its verdict.
        The verdict still goes to its records in the order the answers came
        (:meth:`judge_deferred`). A frame that names ``"method"`` is read by :func:`peek` here, as
        ``from_upstream`` would, and that read is kept for it too. A frame shorter than
        :data:`_READ_ONCE_BYTES` is left to ``from_upstream``: its routing read costs less than
        the guess."""
        self._early = None if self.enforce or len(data) < _READ_ONCE_BYTES \
            else _gc_paused(len(data), self._judge_early, data)

    def _judge_early(self, data: bytes) -> _Early | None:
        """The verdict of ``data`` as the answer of the judged request it is guessed to answer
        (:meth:`passes_early`), with the routing read its message gives (None when unclassified
        or its id is not the guess's); when no such request waits here or the frame is no answer
        to judge so, the routing read of a frame that names ``"method"`` alone, else None."""
        if len(data) > self.max_frame or (data[:1] != b"{" and is_batch(data)):  # (a batch: _batch reads it)
            return None
        pending = self._waiting
        if not pending:
            return None
        waiting: _Waiting | None = None
        look = None
        if data.find(b'"method"') >= 0 if len(data) <= NAMES_WHOLE else names_method(data):  # (names_method's,
            # without a call for a short frame) a server request or notification (or an answer holding
            # one, such as input_required's requests): read first, not judged as an answer (that read
            # kept for from_upstream)
            look = peek(data)
            if look.has_id and look.kind in _ANSWER_KINDS:
                waiting = pending.get(id_key(look.id))
        elif len(pending) == 1:
            waiting = next(iter(pending.values()))
        else:
            shown = shown_id(data)
            waiting = pending.get(id_key(shown)) if shown is not None else None
        unjudged = None if look is None else (data, look, None, None)
        if waiting is None:
            return unjudged
        exchange = waiting.exchange
        request_id = exchange.request_id
        if self._asks_refused and self._refused_asks and id_key(request_id) in self._refused_asks:
            return unjudged  # (its verdict takes the findings of a server request refused during it)
        held = request_id if type(request_id) is int or type(request_id) is str else held_id(request_id)  # (held_id's)
        if exchange.method not in _JUDGED or held is None:
            return unjudged
        key = ("int", request_id) if type(request_id) is int else id_key(request_id)  # (id_key's, without a call)
        # the tracker pairs it with this very request (so from_upstream will take it as its answer)
        if self.tracker.waiting(self.conn, "client", key) is not exchange:
            return unjudged
        context = exchange.context
        last = self._options_of
        verdict = judge(data, last[1] if last[0] is context else self._options(context), held)
        if look is None and verdict.kind is not _UNCLASSIFIED:
            look = answer_peek(verdict, request_id)  # (None: the message's id is not the guess's)
        return data, look, verdict, exchange

    def _options(self, context: Context) -> Options:
        """classify's options for a request of ``context`` (``OptionsMemo.of``), kept as the last
        given (:attr:`_options_of`)."""
        options = self._option_memo.of(context)
        self._options_of = (context, options)
        return options

    def _near_miss(self, value: Id) -> _Waiting | None:
        """The waiting request an answer means with an id of another JSON type (``7`` → ``"7"``):
        the only one whose id reads as the same text. Looked up by the few ids that text can be
        (:func:`_same_text`), never by a scan of the requests waiting: a batch of strays costs a
        few lookups each, however many requests wait."""
        text = str(value)
        waiting = self._waiting
        found = [w for key in _same_text(text) if (w := waiting.get(key)) is not None
                 and str(w.exchange.request_id) == text]
        return found[0] if len(found) == 1 else None

    def _mismatched(self, waiting: _Waiting, data: bytes, seq: int, at: float,
                    http: Mapping[str, Any] | None) -> list[Out]:
        """enforce: an answer whose id is the request's with another JSON type. It is judged as
        that request's answer (``envelope.id_mismatch``) and refused; the host gets its error."""
        exchange = waiting.exchange
        verdict = judge(data, self._option_memo.of(exchange.context), held_id(exchange.request_id))
        if verdict.kind is not Kind.UNCLASSIFIED:  # cannot be: the ids differ in type
            return self._refuse(data, seq, at, http, "enforce: it answers no request waiting on this connection")
        self._judged(exchange, waiting, verdict, data, True)
        waiting.token = None
        codes = ", ".join(sorted({f.code for f in verdict.errors}))
        self._log("s2c", "refused", data, note=f"enforce: the verdict is unclassified ({codes})", http=http,
                  seq=seq, at=at)
        self.stats.replaced += 1
        self.stats.refused += 1
        self._count(verdict)
        request_id = _reply_id(exchange)
        answer = refusal(request_id, verdict, data, refuse_as=self.refuse_as,
                         version=exchange.context.version, messages=self.messages) \
            if exchange.method in _JUDGED else error_frame(request_id, REFUSED, "mcp-verdict refused the "
                                                           f"server's answer ({codes})", verdict_data(verdict, data))
        return [self._own_answer(answer, id_key(exchange.request_id), f"in place of frame {seq}")]

    def upstream_too_large(self, prefix: bytes, size: int, http: Mapping[str, Any] | None = None) -> list[Out]:
        self.stats.refused += 1
        self._log("s2c", "refused", prefix, note=f"{size} bytes: past the limit of {self.max_frame} bytes",
                  http=http)
        found, request_id = recover(prefix)
        key = id_key(request_id) if found and not isinstance(request_id, bytes) else None
        waiting = self._waiting.get(key) if key is not None else None
        if key is None or waiting is None:
            return []
        reason = f"the server's answer is {size} bytes; the proxy's limit is {self.max_frame}"
        answer = error_frame(_reply_id(waiting.exchange), TOO_LARGE, f"mcp-verdict proxy: {reason}",
                             {"reason": reason, "size": size, "limit": self.max_frame})
        return [self._own_answer(answer, key, "the answer was too large")]

    def _server_message(self, data: bytes, seq: int, at: float, http: Mapping[str, Any] | None,
                        look: Peek, during: Key | None = None) -> list[Out]:
        """A request or notification from the server (or a frame the tracker took as one)."""
        if look.kind == "request" and look.has_id and look.method in _ASKS:
            return self._asked(data, seq, at, http, look, during)
        related = None
        if self._progress and look.method == "notifications/progress":
            token = look.params.get("progressToken")
            if isinstance(token, (str, int)):  # (MCP: a string or an integer; else related to none)
                key = self._progress.get(token)
                waiting = self._waiting.get(key) if key is not None else None
                if waiting is not None and waiting.progress == token:
                    related = key
                elif key is not None:
                    del self._progress[token]  # (its request is answered)
        if self.enforce:
            _, problem = parse(data, self.max_frame, DEFAULT_LIMITS.max_depth)
            if problem is not None:
                out = self._refuse(data, seq, at, http, f"enforce: a server {look.kind} no strict parser reads "
                                                        f"({problem.code}: {problem.message})")
                if look.kind == "request" and look.has_id:
                    out.append(Out("upstream", error_frame(as_written(look.id, data), INVALID_REQUEST,
                                                           "mcp-verdict proxy: the request is not strict JSON")))
                return out
        return self._forward(data, seq, at, http, related=related)

    def _asked(self, data: bytes, seq: int, at: float, http: Mapping[str, Any] | None, look: Peek,
               during: Key | None) -> list[Out]:
        """A 2025 server's own request (elicitation, sampling, roots), judged as mcp-verdict's client
        judges one (``_input.judge_server_request``: its bytes read strictly, then the rules of the
        version in force and the capabilities the host declared) under the options of the call it
        is made during (:meth:`_asking`), else of the connection, and recorded (its verdict line).
        One it refuses gives that call's verdict its findings (:meth:`_with_asked`: the call ends
        ``unclassified``, as the client's, the audit's and the tap's); enforce answers it upstream
        with INVALID_PARAMS in place of forwarding it (a request none of the host's may be sent:
        one the proxy cannot attribute to a call too). Any other is forwarded unchanged."""
        method = look.method or ""
        waiting = self._asking(during)
        if waiting is not None:
            context = waiting.exchange.context
        else:  # (the server's exchange, just opened: the version in force; the host's capabilities)
            opened = self.tracker.opened(self.conn)
            state = self.tracker.export(self.conn)
            context = opened.context if opened is not None else Context(self.tracker.version_in_force(self.conn),
                                                                         "default")
            if state is not None and state.capabilities is not None:
                context = Context(context.version, context.source, context.claimed, state.capabilities,
                                  context.extensions)
        judged = judge_server_request(data, method, self._option_memo.of(context))
        refused = judged.kind is not Kind.INPUT_REQUIRED
        if refused and waiting is not None:
            self._refuse_during(waiting.exchange, refused_findings(method, judged))
        # its findings' paths as pointers into the request (the core puts it at /result/inputRequests/"")
        inside = len(ASKED)
        asked = make_verdict(judged.kind, tuple(Finding(f.path[inside:] if f.path.startswith(ASKED) else f.path, f.code,
                                                        f.message, f.severity) for f in judged.findings),
                             judged.version, None) if judged.findings else judged
        stopped = refused and self.enforce
        recorder = self.recorder
        if recorder is not None and recorder.wants_verdicts:
            call = waiting.exchange if waiting is not None else None
            recorder.verdict({
                "conn": self.conn, "call": call.call if call is not None else None,
                "round": call.round if call is not None else None, "method": method, "id": look.id,
                "tool": call.tool if call is not None else None, "task": None, "version": asked.version,
                "kind": asked.kind.value,
                "findings": [{"code": f.code, "path": f.path, "severity": f.severity} for f in asked.findings],
                "decision": None, "forwarded": "refused" if stopped else "unchanged",
                "latency_ms": round((self.clock() - waiting.started) * 1000, 3) if waiting is not None else None,
                "origin": "server", **digest(data)})
        if not stopped:
            return self._forward(data, seq, at, http)
        codes = ", ".join(sorted({f.code for f in asked.errors}))
        self._refuse(data, seq, at, http, f"enforce: the server's {method} request is refused ({codes})"
                     + ("" if waiting is not None else "; made during no call the proxy can tell"))
        said = "; ".join(f.message for f in asked.errors) if self.messages else codes
        reason = f"the server's {method} request is refused ({codes})"
        answer = error_frame(as_written(look.id, data), INVALID_PARAMS, f"mcp-verdict proxy: {method} refused: {said}",
                             {"reason": reason, **verdict_data(asked, data, messages=self.messages)})
        return [self._to_upstream(answer)]

    def _asking(self, during: Key | None) -> _Waiting | None:
        """The host's tools/call a server request is made during: the one waiting on the HTTP
        exchange it came on (``during``: a server's requests about a call travel on that call's
        POST stream), else the only one waiting on the connection; None when neither tells
        (several waiting over stdio, or none)."""
        pending = self._waiting
        if during is not None:
            waiting = pending.get(during)
            if waiting is not None and waiting.exchange.method == "tools/call":
                return waiting
        found = None
        for waiting in pending.values():
            if waiting.exchange.method == "tools/call":
                if found is not None:
                    return None
                found = waiting
        return found

    def _refuse_during(self, call: Exchange, findings: tuple[Finding, ...]) -> None:
        """The findings of a server request refused during ``call``, held for its verdict
        (``_input.RefusedAsks``: the first requests', the others counted)."""
        self._asks_refused = True
        self._refused_asks.add(id_key(call.request_id), call.request.seq, findings)

    def _with_asked(self, exchange: Exchange, verdict: Verdict) -> Verdict:
        """``verdict`` of the answer to the tools/call ``exchange``, with the findings of the
        server requests refused during it (:meth:`_asked`): ``unclassified``, the answer's own
        findings first (the client's rule: the server asked for what it must not)."""
        return self._refused_asks.verdict(id_key(exchange.request_id), exchange.request.seq, verdict)

    def _answer(self, exchange: Exchange, data: bytes, seq: int, at: float,
                http: Mapping[str, Any] | None, defer: bool, judged: Verdict | None = None) -> list[Out]:
        request_id = exchange.request_id
        key = ("int", request_id) if type(request_id) is int else id_key(request_id)  # (id_key's, without a call)
        waiting = self._waiting.pop(key, None)
        if exchange.method == "tools/list":  # kept after the send (the host does not wait for it)
            self._kept()  # (the listing before it, if any: at most one waits)
            self._listing = (exchange, len(data))
        if not self.enforce:  # observe: forwarded unchanged whatever the verdict
            if defer:
                self._deferred.append((exchange, waiting, data, judged))
            else:
                self._observed(exchange, waiting, data, judged)
            if self.recorder is None:  # (_forward's, without a call: nothing to record)
                self.stats.forwarded += 1
                return [_tuple_new(Out, ("host", data, key, None, ()))]
            return self._forward(data, seq, at, http, answers=key)
        method = exchange.method
        verdict = judged if judged is not None and judged.kind is not _TASK and exchange.task_id is None \
            else self._verdict_of(exchange, data, judged)  # (_verdict_of's first case, without a call)
        if method not in _JUDGED:  # (a terminal tasks/get is judged on the result it inlines, read
            # by a lenient parser: its bytes must read strictly too, as every answer enforce forwards)
            _, problem = parse(data, self.max_frame, DEFAULT_LIMITS.max_depth)
            if method == "tools/list":  # (its tools are kept by that reading: _keep)
                self._listing_read = (exchange.request.seq, problem)
            if problem is not None:
                verdict = make_verdict(Kind.UNCLASSIFIED, (problem,), exchange.context.version, None)
        if verdict is not None:  # (_count's, without a call)
            kinds, name = self.stats.kinds, verdict.kind._value_
            kinds[name] = kinds.get(name, 0) + 1
        refuse = verdict is not None and verdict.kind is _UNCLASSIFIED
        if refuse and method == "tools/list":  # (its host gets an error: no listing to keep, nor follow)
            self._listing = None
            self._tools.unfollow()
        if waiting is not None and (waiting.token is not None or (
                verdict is not None and self.recorder is not None and self.recorder.wants_verdicts)):
            self._judged(exchange, waiting, verdict, data, refuse)  # (nothing to record otherwise)
        if not refuse:
            if self.recorder is None:  # (_forward's, without a call: nothing to record)
                self.stats.forwarded += 1
                return [_tuple_new(Out, ("host", data, key, None, ()))]
            return self._forward(data, seq, at, http, answers=key)
        assert verdict is not None
        codes = ", ".join(sorted({f.code for f in verdict.errors}))
        self._log("s2c", "refused", data, note=f"enforce: the verdict is unclassified ({codes})", http=http,
                  seq=seq, at=at)
        self.stats.refused += 1
        self.stats.replaced += 1
        if method in _JUDGED:
            answer = refusal(_reply_id(exchange), verdict, data, refuse_as=self.refuse_as,
                             version=exchange.context.version, messages=self.messages)
        else:
            answer = error_frame(_reply_id(exchange), REFUSED, f"mcp-verdict refused the server's answer to "
                                 f"{method} ({codes})", verdict_data(verdict, data, messages=self.messages))
        self._log("s2c", "message", answer, note=f"written by the proxy in place of frame {seq}", http=http)
        return [Out("host", answer, answers=key)]

    @property
    def deferred(self) -> int:
        """Answers forwarded and not judged yet (``from_upstream(defer=True)``), and a listing
        whose tools are not kept yet (:meth:`_kept`)."""
        return len(self._deferred) + (self._listing is not None)

    def judge_deferred(self) -> None:
        """observe, ``from_upstream(defer=True)``: judge the answers forwarded since the last call
        (their verdict lines, their spans), in the order they came; and, either mode, keep the
        tools of the last listing forwarded (:meth:`_kept`). Nothing when there are none."""
        if self._listing is not None:  # (_kept's first test, without a call)
            try:
                self._kept()
            except Exception as exc:  # (said: a traceback before, the listing's tools lost unsaid)
                self._judging_failed(None, exc, "keeping the listed tools", "the listing forwarded, no tool kept")
        deferred = self._deferred
        while deferred:
            exchange, waiting, data, judged = deferred.popleft()
            try:  # (no cost unless raised, 3.11)
                if judged is not None or len(data) < _PAUSE_GC:  # (_observed's first case, without a call)
                    self._observe(exchange, waiting, data, judged)
                else:
                    self._observed(exchange, waiting, data, judged)
            except Exception as exc:  # (the answers after it judged all the same)
                self._judging_failed(waiting, exc)

    def _judging_failed(self, waiting: _Waiting | None, exc: Exception, doing: str = "judging the upstream's answer",
                        then: str = "the answer forwarded, no verdict written") -> None:
        """A fault of the proxy's own as it judged an answer the host has (``waiting``: its call's
        state): said on one stderr line and in the frame log, its span ended with the fault as its
        error; no verdict line is written for it (``doing``, ``then``: what failed and what came
        of it, for another step of the judging). Before, the fault left the loop's callback (a
        traceback): that verdict lost with nothing in the frame log, its span never ended."""
        reason = failed(doing, exc)
        self.said(reason)
        try:
            self.note("error", "s2c", f"{reason} ({then})")
            if waiting is not None and waiting.token is not None and self.telemetry is not None:
                self.telemetry.end(waiting.token, None, None, reason, False)
        except Exception as again:
            self.said(failed("noting that fault", again))

    def _kept(self) -> ListedTools:
        """The tools kept (``frames._tools``), with those of the ``tools/list`` answer forwarded
        last, if not kept yet. A listing's answer is forwarded first and its tools kept after: by
        the caller's :meth:`judge_deferred` after the send (on the loop's next turn, or at once when
        the host was sent the frame before the relay read it), or by whatever looks at the
        tools first (:meth:`tool`, :meth:`param_declared`, a decision, the next listing), so a
        request after the listing always sees it. Keeping a listing of 10,000 tools takes each
        one's size (``frames._tools.tool_size``): about as long again as reading it."""
        listing = self._listing
        if listing is not None:
            self._listing = None
            exchange, size = listing
            _gc_paused(size, self._keep, exchange)
        return self._tools

    def _keep(self, exchange: Exchange) -> None:
        """Keep the tools of the ``tools/list`` answer to ``exchange`` (``frames._tools``: nothing
        of an answer no strict parser reads, which enforce refuses and observe forwards), read
        strictly once (:meth:`_listing_problem`: the reading its verdict line is made of)."""
        budget = self._tools_budget
        if budget is None:
            listed = self._tools.listed(exchange, strict=self._listing_problem)
        else:
            listed = self._tools.listed(exchange, budget.room, budget.dropped, self._listing_problem)
        if listed.problem is None:
            self._declared.clear()

    def _listing_problem(self, exchange: Exchange) -> Finding | None:
        """Why no strict parser reads the answer to the ``tools/list`` ``exchange`` (a member
        name given twice, which two parsers read two ways), None when one does: the strict read
        the tools kept follow (``frames._tools.listing_problem``'s, within the frame limit).
        Such an answer is refused in enforce (:meth:`_answer`, whose reading is kept here) and
        forwarded in observe, and the proxy learns nothing of it either way (:meth:`_keep`: no
        tool kept, the listing under way no longer followed); observe's verdict line is
        ``unclassified`` with that finding (:meth:`_verdict`). Read once per answer (the last
        one's finding kept by its request's frame number)."""
        seq = exchange.request.seq
        memo = self._listing_read
        if memo is not None and memo[0] == seq:
            return memo[1]
        response = exchange.response
        problem = None if response is None else parse(response.data, self.max_frame, DEFAULT_LIMITS.max_depth)[1]
        self._listing_read = (seq, problem)
        return problem

    def _observed(self, exchange: Exchange, waiting: _Waiting | None, data: bytes,
                  judged: Verdict | None = None) -> None:
        """observe: the verdict of an answer forwarded unchanged (``judged``: made already,
        :meth:`read_sent`), counted and recorded (a long one with the cyclic collector paused,
        :func:`_gc_paused`)."""
        if judged is not None or len(data) < _PAUSE_GC:
            self._observe(exchange, waiting, data, judged)
        else:
            _gc_paused(len(data), self._observe, exchange, waiting, data)

    def _observe(self, exchange: Exchange, waiting: _Waiting | None, data: bytes,
                 judged: Verdict | None = None) -> None:
        verdict = self._verdict(exchange, data) if judged is None else self._verdict_of(exchange, data, judged)
        if verdict is not None:  # (_count's, without a call)
            kinds, name = self.stats.kinds, verdict.kind._value_
            kinds[name] = kinds.get(name, 0) + 1
        if waiting is not None and (waiting.token is not None or (
                verdict is not None and self.recorder is not None)):  # (nothing to record otherwise: no call)
            self._judged(exchange, waiting, verdict, data, False)

    def _count(self, verdict: Verdict) -> None:
        kinds, name = self.stats.kinds, verdict.kind._value_  # (``.value``: two Python calls, a descriptor's)
        kinds[name] = kinds.get(name, 0) + 1

    def _verdict_of(self, exchange: Exchange, data: bytes, judged: Verdict | None) -> Verdict | None:
        """:meth:`_verdict`, or ``judged`` when the answer was judged before the relay read it
        (:meth:`passes_early`, :meth:`read_sent`), as the connection's tasks make it (``_tasks``)."""
        if judged is None:
            return self._verdict(exchange, data)
        return self._task_read(exchange, judged, data) if judged.kind is _TASK or exchange.task_id is not None \
            else judged

    def _verdict(self, exchange: Exchange, data: bytes) -> Verdict | None:
        """The verdict of an answer to a judged method (None: the method is not judged)."""
        method = exchange.method
        if method in _JUDGED:
            request_id = exchange.request_id  # (held_id's, without a call for a str or int id)
            held = request_id if type(request_id) is int or type(request_id) is str else held_id(request_id)
            context = exchange.context
            last = self._options_of
            verdict = judge(data, last[1] if last[0] is context else self._options(context), held)
            if self._asks_refused and self._refused_asks:
                verdict = self._with_asked(exchange, verdict)
            return verdict if verdict.kind is not _TASK and exchange.task_id is None else \
                self._task_read(exchange, verdict, data)
        if method == "tasks/get":
            return self._task_read(exchange, self._task_verdict(exchange), data)
        if method == "tools/list" and not self.enforce:  # (enforce: _answer reads it strictly)
            problem = self._listing_problem(exchange)
            return None if problem is None else make_verdict(_UNCLASSIFIED, (problem,), exchange.context.version,
                                                              None)
        return None

    def _task_read(self, exchange: Exchange, verdict: Verdict | None, data: bytes) -> Verdict | None:
        """``verdict`` of the answer to ``exchange`` as the connection's tasks make it (``_tasks``):
        a task's handle whose id a task still running holds is ``unclassified`` (the reuse named),
        and that task's call is judged again (:meth:`_taken`); a poll's naming such an id too."""
        if verdict is not None and verdict.kind is _TASK and exchange.method == "tools/call":
            recorder = self.recorder
            task = verdict.task
            verdict, taken = self._tasks.created(exchange, verdict, data,
                                                 recorder is not None and recorder.wants_verdicts)
            if taken is not None:
                self._taken(taken, exchange, task.task_id if task is not None else "")
            return verdict
        if exchange.task_id is not None and self.tracker.knows_tasks(self.conn):
            return self._tasks.polled(exchange, verdict)
        return verdict

    def _task_known(self, exchange: Exchange, verdict: Verdict) -> bool:
        """A task's handle whose task id this connection knows already, or an answer to a request
        naming a task id two tasks hold (:meth:`passes_early` lets neither pass unread)."""
        if not self.tracker.knows_tasks(self.conn):
            return False
        task = verdict.task
        task_id = task.task_id if task is not None and exchange.method == "tools/call" else exchange.task_id
        made = self.tracker.task_creator(self.conn, task_id) if task_id is not None else None
        return made is not None and (task is not None or made[1])

    def _taken(self, taken: Taken, by: Exchange, task_id: str) -> None:
        """The call whose task held a task id when another call's answer (to ``by``) created it
        again, judged again (``unclassified``, the reuse named last): counted again (its handle's
        ``task`` in ``stats.kinds`` becomes its new kind); a second verdict line for it, which
        supersedes the one its task's handle had (its answer was forwarded then); and, its span
        having ended then (an ended span cannot change), an event on the span of ``by``'s call
        naming it, with a link to its span (:meth:`_spans_of_tasks`)."""
        kinds = self.stats.kinds
        if kinds.get("task", 0) > 0:
            kinds["task"] -= 1
            if not kinds["task"]:
                del kinds["task"]
        name = taken.verdict.kind._value_
        kinds[name] = kinds.get(name, 0) + 1
        recorder = self.recorder
        wants = recorder is not None and recorder.wants_verdicts
        if not wants and self.telemetry is None:
            return
        verdict = taken.verdict
        decision = decide(verdict, tool=self._kept().tools.get(taken.tool or "")).action.value
        if self.telemetry is not None:
            self._retold = (by, taken, task_id, decision)
        if not wants:
            return
        assert recorder is not None
        recorder.verdict({
            "conn": self.conn, "call": taken.call, "round": taken.round, "method": "tools/call",
            "id": taken.request_id, "tool": taken.tool, "task": None, "version": verdict.version,
            "kind": verdict.kind.value,
            "findings": [{"code": f.code, "path": f.path, "severity": f.severity} for f in verdict.findings],
            "decision": decision, "forwarded": "unchanged", "latency_ms": None, **taken.answer})

    def _spans_of_tasks(self, exchange: Exchange, waiting: _Waiting, verdict: Verdict | None) -> None:
        """The spans of task-creating calls (``_tasks``): a task handle's call keeps its span's
        context with its task (for a later reuse's link); the call whose handle created a task id
        again (:meth:`_taken`) gets the event and the link naming the call whose task held it."""
        telemetry, token = self.telemetry, waiting.token
        retold, self._retold = self._retold, None
        if telemetry is None or token is None or exchange.method != "tools/call":
            return
        if retold is not None and retold[0] is exchange:
            _, taken, task_id, decision = retold
            telemetry.reused(token, task_id, taken.request_id, taken.span, taken.verdict.kind._value_, decision)
        elif verdict is not None and verdict.kind is _TASK and verdict.task is not None:
            self._tasks.spanned(verdict.task.task_id, exchange.call, telemetry.context(token))

    def _task_verdict(self, exchange: Exchange) -> Verdict | None:
        """A terminal tasks/get: the verdict of the result (or error) it inlines (tasks extension)."""
        look = exchange.response_peek
        result = look.result if look is not None else None
        if result is None:
            return None
        status = result.get("status")
        options = self._option_memo.of(exchange.context)
        request_id = held_id(exchange.request_id)
        if status == "completed" and isinstance(result.get("result"), dict):
            return judge({"jsonrpc": "2.0", "id": request_id, "result": result["result"]}, options, request_id)
        if status == "failed" and isinstance(result.get("error"), dict):
            return judge({"jsonrpc": "2.0", "id": request_id, "error": result["error"]}, options, request_id)
        return None

    def forget_tools(self) -> None:
        """The relay ends: its tools are let go (their share of the shared budget given back)."""
        self._listing = None
        if self._tools_budget is not None:
            self._tools_budget.release(self._tools.size)
        self._tools.clear()
        self._declared.clear()

    def tool(self, name: str) -> Mapping[str, Any] | None:
        """A tool as the upstream listed it (the last listing seen, within the budget of
        ``frames._tools``); None for a tool not listed, past the budget, or no longer listed."""
        return self._kept().tools.get(name)

    def param_declared(self, name: str) -> Declared | None:
        """The ``Mcp-Param`` headers the tool ``name`` declares (``_params.declared`` of its
        ``inputSchema``, worked out once per listing); None for a tool :meth:`tool` does not
        give, or whose annotations are invalid."""
        tool = self._kept().tools.get(name)
        return None if tool is None else self._declared.of(name, tool)

    def _judged(self, exchange: Exchange, waiting: _Waiting, verdict: Verdict | None, data: bytes,
                refused: bool) -> None:
        if self._retold is not None or (verdict is not None and verdict.kind is _TASK):
            self._spans_of_tasks(exchange, waiting, verdict)
        action = None
        recorder = self.recorder
        wants = recorder is not None and recorder.wants_verdicts
        if verdict is not None and (wants or waiting.token is not None):
            if self._listing is not None:  # (_kept's first test, without a call)
                self._kept()
            action = decide(verdict, tool=self._tools.tools.get(exchange.tool or "")).action._value_
        if wants and verdict is not None:  # (each enum's ``_value_``: ``.value`` is two Python calls)
            assert recorder is not None
            recorder.verdict({
                "conn": self.conn, "call": exchange.call, "round": exchange.round, "method": exchange.method,
                "id": exchange.request_id, "tool": exchange.tool, "task": exchange.task_id,
                "version": exchange.context.version, "kind": verdict.kind._value_,
                "findings": [{"code": f.code, "path": f.path, "severity": f.severity} for f in verdict.findings]
                if verdict.findings else [],  # (a comprehension is a Python call: most verdicts hold none)
                "decision": action, "forwarded": "refused" if refused else "unchanged",
                "latency_ms": round((self.clock() - waiting.started) * 1000, 3),
                "sha256": self._sha256(data, not refused and recorder.redacts),
                "size": len(data)})
        if waiting.token is not None and self.telemetry is not None:
            self.telemetry.end(waiting.token, verdict, action, None, refused)

    # -- faults ---------------------------------------------------------------------------------
    def upstream_lost(self, reason: str, code: int = UPSTREAM_CLOSED) -> list[Out]:
        """The upstream is gone: every request of the host in flight gets an error."""
        out = []
        for key, waiting in list(self._waiting.items()):
            answer = error_frame(_reply_id(waiting.exchange), code, f"mcp-verdict proxy: {reason}", {"reason": reason})
            out.append(self._own_answer(answer, key, reason))
        return out

    def fail(self, key: Key, reason: str, code: int = UPSTREAM_CLOSED) -> list[Out]:
        """One request of the host failed upstream (its HTTP exchange broke): its error."""
        waiting = self._waiting.get(key)
        if waiting is None:
            return []
        answer = error_frame(_reply_id(waiting.exchange), code, f"mcp-verdict proxy: {reason}", {"reason": reason})
        return [self._own_answer(answer, key, reason)]

    def expire(self, now: float | None = None) -> list[Out]:
        """Requests past their deadline: UPSTREAM_TIMEOUT to the host, cancelled upstream."""
        now = self.clock() if now is None else now
        out: list[Out] = []
        for key, waiting in list(self._waiting.items()):
            if waiting.deadline > now:
                break  # deadlines grow in insertion order
            request_id = _reply_id(waiting.exchange)
            reason = f"no answer within {self.timeout:g} s"
            out.append(self._own_answer(error_frame(request_id, UPSTREAM_TIMEOUT, f"mcp-verdict proxy: {reason}",
                                                    {"timeout": self.timeout}), key, reason))
            out.extend(self._cancelled(waiting, request_id, reason, key))
        return out

    def stopping(self, reason: str, keys: Collection[Key] | None = None) -> list[Out]:
        """The proxy is stopping: every request in flight (or those of ``keys``: their host
        session ended) gets UPSTREAM_CLOSED, cancelled upstream."""
        out: list[Out] = []
        for key, waiting in list(self._waiting.items()):
            if keys is not None and key not in keys:
                continue
            request_id = _reply_id(waiting.exchange)
            out.append(self._own_answer(error_frame(request_id, UPSTREAM_CLOSED, f"mcp-verdict proxy: {reason}",
                                                    {"reason": reason}), key, reason))
            out.extend(self._cancelled(waiting, request_id, reason, key))
        return out

    @property
    def next_deadline(self) -> float | None:
        for waiting in self._waiting.values():
            return waiting.deadline
        return None

    def host_lost(self, reason: str = "the host disconnected") -> list[Out]:
        """The host is gone: cancel its requests upstream (``notifications/cancelled``)."""
        out: list[Out] = []
        for key, waiting in list(self._waiting.items()):
            out.extend(self._cancelled(waiting, _reply_id(waiting.exchange), reason, key))
            self._forget(key, waiting, reason)
        return out

    def cancel(self, key: Key, reason: str, notify: bool = True) -> list[Out]:
        """The host gave up one request (its HTTP stream closed; its own ``notifications/cancelled``,
        ``notify`` False: it goes upstream itself): no longer awaited, nothing goes to the host for
        it (a later answer is refused as late), cancelled upstream when ``notify``."""
        waiting = self._waiting.get(key)
        if waiting is None:
            return []
        self._forget(key, waiting, reason)
        return self._cancelled(waiting, _reply_id(waiting.exchange), reason, key) if notify else []

    def _cancelled(self, waiting: _Waiting, request_id: Id | bytes, reason: str, key: Key) -> list[Out]:
        """The proxy's own ``notifications/cancelled`` for the host's request ``waiting`` (its id
        as the host wrote it), sent upstream — none for an ``initialize``, which a client MUST NOT
        cancel (basic/utilities/cancellation, 2024-11-05 to 2025-11-25): the server may answer it
        late, that answer is then refused as late, as any answer after the proxy gave up. A
        request that gave its id twice (observe: ``_twice``) is cancelled under each: under the
        last it waited under, then under the first unless another request waits under that one
        (a server keeping the first knows it by the first; each knows one of the two, and ignores
        a cancellation of an id it does not know: basic/utilities/cancellation, Error Handling)."""
        if waiting.exchange.method == "initialize":
            return []
        out = [self._to_upstream(cancelled(request_id, f"mcp-verdict proxy: {reason}"))]
        if self._first_ids:
            out += [self._to_upstream(cancelled(first, f"mcp-verdict proxy: {reason}"))
                    for first in self._first_ids_of(key, waiting)]
        return out

    def _first_ids_of(self, key: Key, waiting: _Waiting) -> list[Id]:
        """The first of the two ids the host's request ``waiting`` (awaited under ``key``) gave, when
        it gave its id twice (:meth:`_first_id`) and no other request waits under that one."""
        seq = waiting.exchange.request.seq
        return [entry[2] for first, entry in self._first_ids.items()
                if entry[0] == key and entry[1] == seq and first not in self._waiting]

    def _forget(self, key: Key, waiting: _Waiting, reason: str) -> None:
        """Stop awaiting the host's request ``key``: the tracker no longer pairs an answer with
        it (a late one is a stray, refused as late: the host ignores it, MCP
        basic/utilities/cancellation)."""
        self._waiting.pop(key, None)
        if self.tracker.waiting(self.conn, "client", key) is waiting.exchange:
            self.tracker.forget(self.conn, "client", key)
        if self._unreadable:
            self._unreadable.pop(key, None)
        late = f"the proxy no longer awaited it ({reason})"
        self._remember_answered(key, late)
        if self._first_ids:  # (a late answer under its first id too: _first_ids_of)
            for first in self._first_ids_of(key, waiting):
                self._remember_answered(id_key(first), late)
        if waiting.token is not None and self.telemetry is not None:
            self.telemetry.end(waiting.token, None, None, reason, False)

    @property
    def in_flight(self) -> int:
        return len(self._waiting)

    def waiting_keys(self) -> list[Key]:
        return list(self._waiting)

    def is_waiting(self, key: Key) -> bool:
        """The host's request ``key`` still waits for its answer."""
        return key in self._waiting

    def holds_id(self, key: Key) -> bool:
        """A request of the host waiting here holds the id ``key`` as a server may read it: it
        waits under it, or gave it as the first of two ids (``_twice``: a server keeping the first
        answers under it, :meth:`_under_first_id`)."""
        if key in self._waiting:
            return True
        first = self._first_ids.get(key) if self._first_ids else None
        return first is not None and self._awaits(first[0], first[1])

    # -- helpers --------------------------------------------------------------------------------
    def _own_answer(self, answer: bytes, key: Key, reason: str) -> Out:
        """An answer the proxy writes itself: fed to the tracker (the request is answered), logged."""
        seq = self._log("s2c", "message", answer, note=f"written by the proxy: {reason}")
        self.tracker.feed(self.conn, "s2c", answer, at=time.time(), seq=seq, look=peek(answer))
        waiting = self._waiting.pop(key, None)
        if waiting is not None and waiting.token is not None and self.telemetry is not None:
            self.telemetry.end(waiting.token, None, None, reason, False)
        if self._unreadable:
            self._unreadable.pop(key, None)
        self._remember_answered(key)
        if self._first_ids and waiting is not None:  # (a late answer under its first id too: _first_ids_of)
            for first in self._first_ids_of(key, waiting):
                self._remember_answered(id_key(first))
        self.stats.proxy_answers += 1
        return Out("host", answer, answers=key)

    def _unsent_answer(self, answer: bytes, reason: str, http: Mapping[str, Any] | None) -> Out:
        """The proxy's answer to a host request it did not await (refused, or not followed): logged;
        the tracker and the requests waiting are left alone (one waiting with the same id is
        another), and it goes to the host stream the request came on (``answers`` None)."""
        self._log("s2c", "message", answer, note=f"written by the proxy: {reason}", http=http)
        self.stats.proxy_answers += 1
        return Out("host", answer)

    def _remember_answered(self, key: Key, late: str = "the proxy already answered this request") -> None:
        self._answered_by_proxy[key] = late
        if len(self._answered_by_proxy) > 10_000:
            del self._answered_by_proxy[next(iter(self._answered_by_proxy))]

    def _to_upstream(self, data: bytes) -> Out:
        withheld = self.withholds(data, True) if self.withholds is not None else None
        seq = self._log("c2s", "message", data,
                        note="written by the proxy" if withheld is None else f"written by the proxy; {withheld}")
        self.tracker.feed(self.conn, "c2s", data, at=time.time(), seq=seq)
        return Out("upstream", data)

    def _forward(self, data: bytes, seq: int, at: float, http: Mapping[str, Any] | None, *,
                 answers: Key | None = None, related: Key | None = None, note: str | None = None) -> list[Out]:
        self.stats.forwarded += 1
        recorder = self.recorder
        if recorder is not None:
            if self.one_line and (data.find(b"\n") >= 0 or data.find(b"\r") >= 0):
                note = _ONE_LINE if note is None else f"{note}; {_ONE_LINE}"
            if recorder.redacts:  # (its digest, made once with its verdict line's)
                recorder.frame(FrameRecord(self.conn, seq, at, "s2c", "message", None,
                                           (self._sha256(data, answers is not None and recorder.wants_verdicts),
                                            len(data)), note, self.transport, _http(http) if http else None))
            else:
                recorder.frame(FrameRecord(self.conn, seq, at, "s2c", "message", data, None, note, self.transport,
                                           _http(http) if http else None))
        return [_tuple_new(Out, ("host", data, answers, related, ()))]  # (Out's, without its __new__: Python's)

    def _sha256(self, data: bytes, keep: bool) -> str:
        """The SHA-256 (hex) of ``data``, an answer's bytes, for its verdict line or its frame log
        record (payloads redacted): read once for both. The digest last kept answers for the very
        same bytes object (and is let go: its other record is written); ``keep``: this one is
        kept for the other record, which is to follow (the bytes held until then, or until the
        next digest kept: one frame at most; a frame between them that answers nothing, such as a
        notification, lets it be)."""
        held = self._digested
        if held is not None and held[0] is data:
            self._digested = None
            return held[1]
        made = hashlib.sha256(data).hexdigest()
        if keep:
            self._digested = (data, made)
        return made

    def _refuse(self, data: bytes, seq: int, at: float, http: Mapping[str, Any] | None, note: str) -> list[Out]:
        self.stats.refused += 1
        self._log("s2c", "refused", data, note=note, http=http, seq=seq, at=at)
        return []

    def _log(self, direction: Literal["c2s", "s2c"], kind: RecordKind, data: bytes | None,
             *, note: str | None = None, http: Mapping[str, Any] | None = None, seq: int | None = None,
             at: float | None = None) -> int:
        if seq is None:
            seq = self._seq
            self._seq += 1
        if self.recorder is not None:
            if self.upstream_one_line and direction == "c2s" and kind == "message" and data is not None \
                    and (data.find(b"\n") >= 0 or data.find(b"\r") >= 0):
                note = _ONE_LINE_UP if note is None else f"{note}; {_ONE_LINE_UP}"
            recorder = self.recorder
            if data is not None and recorder.redacts:  # (redact's record, made here once)
                recorder.frame(FrameRecord(self.conn, seq, time.time() if at is None else at, direction, kind, None,
                                           (hashlib.sha256(data).hexdigest(), len(data)), note, self.transport,
                                           _http(http) if http else None))
            else:
                recorder.frame(FrameRecord(self.conn, seq, time.time() if at is None else at, direction, kind, data,
                                           None, note, self.transport, _http(http) if http else None))
        return seq

    def noise(self, direction: Literal["c2s", "s2c"], line: bytes) -> bool:
        """A stdio line that is no JSON-RPC message (it does not start with ``{``): counted and
        logged as noise; True when it is to be forwarded (observe), False when dropped (enforce)."""
        if direction == "c2s":
            self.stats.host_frames += 1
        else:
            self.stats.upstream_frames += 1
        if self.enforce:
            self.stats.refused += 1
            self._log(direction, "noise", line, note="not a JSON-RPC message: dropped (enforce)")
            return False
        self._log(direction, "noise", line, note="not a JSON-RPC message: forwarded (observe)")
        self.stats.forwarded += 1
        return True

    def note(self, kind: Literal["open", "close", "eof", "error"], direction: Literal["c2s", "s2c"], note: str, *,
             transport: Literal["stdio", "http"] | None = None, http: Mapping[str, Any] | None = None) -> None:
        """Record a connection event (open, close, eof, a transport error) in the frame log.

        ``transport``: the record's own, when it is not the connection's (the HTTP GET stream a
        stdio host's proxy opens: its ``eof`` is that stream's end, not the connection's, which
        is how the audit reads an ``eof`` on an ``http`` record)."""
        if transport is None or transport == self.transport or self.recorder is None:
            self._log(direction, kind, None, note=note, http=http)
            return
        seq = self._seq
        self._seq += 1
        self.recorder.frame(FrameRecord(self.conn, seq, time.time(), direction, kind, None, None, note, transport,
                                        _http(http)))


def _gc_paused(size: int, work: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
    """``work(*args, **kwargs)``, the reading of an upstream frame of ``size`` bytes, with Python's
    cyclic garbage collector paused when it is :data:`_PAUSE_GC` bytes or more and the collector
    runs (enabled again after, whatever ``work`` raises).

    Reading a long frame (a listing of 10,000 tools: about a million objects, built by orjson
    and, in enforce, by the strict reader) triggers a collection of the youngest generation
    every 700 objects, and each time the next generations fill, a collection of them too, each
    of which traverses every object tracked so far, the ones just built and whatever the process
    already holds (other sessions' kept tools): measured, a 50,000-tool listing took twice as
    long with it, and the cost grows faster than the listing. JSON values hold no reference
    cycle, so the collector finds nothing in them; what it finds elsewhere waits for the next
    collection after the frame, which traverses the new objects once."""
    if size < _PAUSE_GC or not gc.isenabled():
        return work(*args, **kwargs)
    gc.disable()
    try:
        return work(*args, **kwargs)
    finally:
        gc.enable()


_UNRELAYED: Final = {
    False: "the proxy does not relay it",
    True: "it had reached the server before the proxy read it: the first answer to the id goes to the earlier "
          "request, a second is dropped"}
_UNFOLLOWED: Final = {
    False: "the proxy does not relay it",
    True: "it had reached the server before the proxy read it: the proxy does not follow its answer"}


def unfollowed(look: Peek, data: bytes) -> tuple[int, str] | None:
    """A host frame (``data``, read as ``look``) the relay would forward without awaiting an
    answer, although a server answers it: an error (JSON-RPC 2.0 s5: INVALID_REQUEST or
    PARSE_ERROR), with a null id when it cannot read one (paired then with the only request
    waiting, ``frames.Tracker``), else with the id it reads. Over one connection for every host
    (an HTTP host's stdio upstream) that answer would be taken for the answer of another host's
    request in flight: (the code, the reason) to refuse the frame with, unsent — an object that
    is no JSON-RPC request, notification or response (a ``method`` that is no string, both a
    ``method`` and a ``result``, neither); one whose ``id`` member is no string, number or null
    (JSON-RPC 2.0 s4: read as a notification); a frame no parser reads that shows no id to await
    it by and that the relay does not answer itself (:meth:`Relay._host_unreadable`). None for
    any other frame (a request is awaited by its id; a notification or response is not answered)."""
    kind = look.kind
    if kind == "invalid":
        return INVALID_REQUEST, "the body is a JSON object but no JSON-RPC request, notification or response"
    if kind == "unreadable":
        if look.has_id or look.unheld is not None or _unreadable_string_id(data):
            return None  # (awaited by its id, or answered by the relay)
        problem = neutral(cut(look.problem or "", 200))
        return PARSE_ERROR, f"no JSON parser reads the body ({problem}), and it shows no request id to await it by"
    if not look.has_id and look.message is not None and "id" in look.message:
        return INVALID_REQUEST, "its id is neither a string, a number nor null (JSON-RPC 2.0 s4)"
    return None


_HTTP_KEYS: Final = ("exchange", "method", "status", "content_type", "session", "protocol_version", "event_id")


def _http(http: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """Only the HTTP fields the frame log format names (never a header such as Authorization)."""
    if not http:
        return None
    return {k: http[k] for k in _HTTP_KEYS if k in http and http[k] is not None}


__all__ = ["Mode", "Out", "Recorder", "Relay", "Stats", "Telemetry"]
