"""The host side over Streamable HTTP: the proxy serves the MCP endpoint (127.0.0.1 by default).

basic/transports/streamable-http, as a server:

- ``POST``: one message per request; a request is answered with one JSON body when its answer
  is the only frame, or an SSE stream (related notifications, then the answer) — mirroring the
  upstream's own choice when the upstream is HTTP; a 2025-03-26 batch holding requests gets every
  answer to them (basic/transports: the response to a POST of a batch carries the responses to
  its requests), as the upstream's one JSON body when it answers them in one, else as SSE events
  as they come, each within ``--timeout`` (``Bridge``: the batch's last answer ends the
  response); a notification or a response gets 202 — over
  an HTTP upstream, the upstream's own answer to it: its status (202, or an error status with its
  body), or 502/504 and the proxy's JSON-RPC error with a null id when the upstream cannot be
  reached or does not answer within ``--timeout`` (``_http_upstream.HttpUpstream.delivery``),
  each failure noted in the frame log; over a stdio upstream being restarted, 202 once it is
  written to the new process, 502 when it is dropped (the process exits first, or cannot be
  restarted), 504 past ``--timeout`` (``_stdio.StdioUpstream.delivery``);
- ``Origin`` is validated (DNS rebinding): a present Origin that is not a localhost one or one
  given with ``--allow-origin`` (each one, when a request carries several; one no URL parser
  reads too) is refused with 403; listening on a loopback address, so is the
  ``Host`` header (421): a page whose name was rebound to 127.0.0.1 sends its own name there, and
  no Origin on a same-origin GET (its GET stream would read the server's messages);
- a body that is no JSON-RPC message (empty, blanks, not UTF-8 JSON, a batch) gets 400 and a
  JSON-RPC error with a null id, and is not forwarded (logged as refused); over a stdio
  upstream, which serves every host on one connection, so does one the relay would forward
  without awaiting an answer although the server answers it — an object that is no request,
  notification or response, an id that is no string, number or null, a body no parser reads
  that shows no id (``_relay.unfollowed``), a 2026-07-28 JSON-RPC response (a client sends none
  over HTTP), a 2025 JSON-RPC response (or a 2025-03-26 batch holding one) that answers no
  server request sent to a GET stream of its session and not answered yet (``HttpHost._unasked``;
  a null id answers one no parser reads): the server's error to it, under a null id or its id,
  would be taken for the answer of another host's request in flight. A process that exits takes
  its requests with it (``StdioUpstream.on_exit``): a response to one is refused at once, and on
  any retry — before, it was written to the restarted process, which had not sent it and counts
  its ids afresh: its own request under that id, sent to another host, was taken as answered.
  Over an HTTP upstream a response is forwarded as it comes, the proxy keeping nothing a retry
  needs: one whose POST upstream failed (502, 504) may be sent again;
- over a stdio upstream the proxy is the HTTP server that processes the body: a 2026-07-28
  request (or notification) whose headers disagree with its body gets 400 and HeaderMismatch
  (-32020) under its id, unsent, logged as refused (:func:`header_mismatch`; 2026-07-28
  basic/transports/streamable-http, Server Validation) — a ``tools/call``'s ``Mcp-Param-*``
  headers too, against the tool's ``inputSchema`` from the upstream's last ``tools/list``
  (``_params``; a tool not listed through the proxy: unchecked); a body that gives a member
  name twice is checked as read both ways, its first and its last kept (the server's parser
  may keep either) — over an HTTP upstream the upstream checks its own;
- a POST's body comes whole within ``--timeout`` (the rest of one past ``--max-frame-bytes``
  too, read to tell its size): else 408 and a JSON-RPC error with a null id (past the limit:
  413 and TOO_LARGE, its size as far as it came), the connection closed, nothing forwarded, a
  note in the frame log; any answer given before the request's body came whole (these, 403,
  421, 404, 405, 406, a DELETE's) closes the connection once it is written, the rest of the body
  unread (:data:`_UNREAD`); a connection with no request under way (idle, or a head not finished)
  is closed after :data:`KEEPALIVE` seconds; a request aiohttp refuses before the proxy reads
  it (duplicate ``Content-Type``, a header line past 8190 bytes, a control character in one)
  gets its 400 and one stderr line, neutralised (:class:`_OneLine`);
- a 2026-07-28 request (its ``MCP-Protocol-Version``) that a stdio upstream answers with one of
  the JSON-RPC errors the transport gives a status (:data:`_ERROR_STATUS`: an unsupported
  version 400, an unknown method 404) gets that status — over an HTTP upstream, the
  upstream's own;
- a stream whose host does not read it holds at most :func:`backlog_limit` bytes of frames
  waiting: past it the frames that do not answer its request are dropped (each noted in the
  frame log), the answer never;
- 2025 sessions: over an HTTP upstream, ``Mcp-Session-Id`` passes through both ways (each host
  session is one upstream session and has its own relay, and the upstream's own 404 for a
  session it ended passes through); over a stdio upstream the proxy issues the id on the
  answer of an ``initialize`` that succeeds (a result: none for a JSON-RPC error, the server's
  or the proxy's own, which initialises no session; an answer after progress notifications is
  awaited before the response's headers, :meth:`PostStream.answer`) and holds it until the
  host's ``DELETE``: a request naming an id it does
  not hold (never issued, ended, empty) gets 404 Not Found and a JSON-RPC error with a null id,
  unforwarded (2025-11-25 Session Management 3: after termination, 404; 4: the host then
  initialises again), except a 2026-07-28 request, whose ``Mcp-Session-Id`` is ignored; a
  ``DELETE`` answers the session's calls in flight with UPSTREAM_CLOSED (cancelled upstream) and
  ends its GET streams, and leaves the process running (it serves every host on one
  connection: other sessions, stateless requests); a body with line breaks (pretty-printed) is
  written to the process as one line, each CR and LF a space; at most ``max_sessions``
  (:data:`MAX_SESSIONS`) such sessions are held: past it the least recently used one with no
  call in flight is forgotten (its host gets 404 and initialises again), and when every one
  held (with the ``initialize`` requests under way) has a call in flight a new ``initialize``
  is refused unsent, as a server at capacity answers: 503, ``Retry-After`` and
  UPSTREAM_UNAVAILABLE under its id (``HttpHost._room``, ``_at_capacity``) — forgetting a
  session with a call in flight would answer that call for another host's sake;
- ``GET`` (its ``Accept`` listing ``text/event-stream``, in any case, else 406) opens the
  stream for the server's own messages (2025), at most :data:`MAX_GETS` for one session (past
  it, the one opened first is ended): forwarded upstream with
  ``Last-Event-ID`` (event ids and priming events pass through; an answer without a stream, such
  as 405 or 406, is passed back with its status and body; the stream's end, by the upstream or
  broken, is noted in the frame log), or, over stdio, the stream the process's unrelated
  messages go to (the most recently opened of those still open);
  ``DELETE`` ends the session;
- a host that closes a POST's stream cancels its request upstream (the stream closed on HTTP,
  ``notifications/cancelled`` on stdio and under 2025 — for a request of no session over an
  HTTP upstream, when no other host's request of no session has its id in flight:
  ``_closed_cancels``; never for an ``initialize``, which a client MUST NOT cancel); a host's own
  ``notifications/cancelled`` for a request in flight ends that request's POST with no answer
  (an event stream with no event: ``Bridge.host_cancelled``) — one of no session only when it
  can be told to be of that request's host (never under 2026-07-28, whose cancellation over
  HTTP is the stream's close; under 2025 when one request of no session alone has that id in
  flight, sent through the stateless relay that request waits in): else it is not sent and no
  request is cancelled, its record saying why (``_cancelled_as_sent``, ``_stateless_cancel``);
- stateless requests (2026-07-28, no session) from different hosts may carry the same id at the
  same time (ids are unique per connection only, and each stateless POST stands alone): each
  answer still reaches the host that asked and is judged against its request. Over an HTTP
  upstream a request whose id is in flight goes through another stateless relay (the bytes
  unchanged, each relay its own frame-log connection); over a stdio upstream, one connection for
  every host, it is sent upstream under an id of the proxy's (``"mcp-verdict:<nonce>:<n>"``,
  what the frame log then shows; only the id's bytes are replaced), and the host's own id is
  put back in the answer as the host wrote it — so is a 2025 session's request (each session's
  ids are its own) or an ``initialize`` whose id another host has in flight, and a request that
  gives its id twice with two values (``_twice``) when either is one a request in flight holds (a
  server keeping the first answers under the first: before, that answer was taken for the other
  host's request). A session's
  request whose id a request of its session has in flight (sent under that id or under one of
  the proxy's: the host reused it, which MCP basic/index forbids) gets INVALID_REQUEST at once,
  unsent, as the relay answers one it finds in flight itself. A request no parser reads cannot
  be renumbered: with its id in flight it gets the JSON-RPC parse error at once (``Relay``),
  unsent. A host's ``notifications/cancelled`` naming the id of such a request of its session
  (none of its waits under that id as the host wrote it) goes upstream naming the id the
  request was sent under (only ``requestId``'s bytes replaced), and the proxy stops awaiting
  the request (``Bridge.host_cancelled``), its record noting both. What tells hosts of no
  session apart is only the HTTP exchange a request came in: a 2026-07-28 request is cancelled
  by closing its response stream (the proxy then cancels it upstream under the id it was sent
  under), and a ``notifications/cancelled`` of no session is never taken to be of the host of
  a request in flight — under 2026-07-28 one naming an id some request has in flight is not
  sent, under 2025 (where the notification is the cancellation) it is applied as in a session
  when one request of no session alone has that id, and not sent when several have
  (``_cancelled_as_sent``). One naming only another host's request in flight (another
  session's; a session's, for a host of no session) is not sent either (the server would
  cancel that request); each record not sent says why. One naming any other id goes on as
  the host wrote it;
- what it holds per host conversation stays bounded (HTTP upstream): a relay made for an
  ``initialize`` or for a session id it does not know serves that one POST (or GET) and is
  closed after it (its upstream POSTs still under way finished first), unless the answer carries
  an ``Mcp-Session-Id``: it is then that session's relay, until the host's DELETE. At most
  :data:`MAX_SESSIONS` session relays are kept: past that the least recently used idle one is
  closed (the upstream session is not ended; its next request starts a relay of its own). One
  in use (a POST, a GET stream) is kept while it is, and a new ``initialize`` is forwarded all
  the same: past the bound, the relays held beyond it are each used by a request under way and
  closed once it ends (``_trim``), as the connections themselves are; the upstream holds the
  sessions and answers at its own capacity (a relay is a cache of the proxy's: closing one
  costs its session nothing, unlike a stdio upstream's session, which the proxy holds). The
  stateless requests share one relay, and one more for each id in flight twice at once (closed
  once idle);
- SIGTERM and SIGINT stop it gracefully: the endpoint stops listening, the calls in flight get
  ``--grace`` seconds to be answered and each one still waiting then gets UPSTREAM_CLOSED (and
  its cancellation upstream), answers forwarded and not yet judged are judged, and the frame log
  and verdict lines are complete before it exits (status 0).

aiohttp serves it (its C HTTP parser; measured beside uvicorn with httptools: the same CPU per
request, and one library for both sides).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import secrets
import sys
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp import web
from multidict import CIMultiDict

from ..frames._jsonrpc import Peek, id_json, id_key, id_text, peek
from ..frames._routing_headers import stateless as _stateless
from ..frames._tools import ToolsBudget
from ..verdict._peer_text import cut, neutral
from ._batch import follows
from ._bridge import Bridge
from ._codes import (
    INVALID_REQUEST,
    UPSTREAM_TIMEOUT,
    UPSTREAM_UNAVAILABLE,
    cancelled_request,
    fault_frame,
    with_id,
    with_request_id,
)
from ._faults import failed, said, told
from ._headers import _error_status, header_mismatch
from ._http_posts import Posts, posts_for
from ._http_upstream import (
    HttpUpstream,
    Refused,
    capped,
    client_session,
    event_stream,
    given,
    host_status,
    passed_back,
    upstream_fault,
    upstream_headers,
)
from ._ids import as_written
from ._relay import Key, Telemetry, unfollowed
from ._shutdown import stop_signals, wind_down
from ._stdio import StdioUpstream, merge_env
from ._twice import read_two_ways

if TYPE_CHECKING:
    from ._record import Recorder
    from ._run import ProxyOptions

_PASS_BACK: Final = ("Mcp-Session-Id", "WWW-Authenticate", "Retry-After", "Location")
"""The upstream's headers an HTTP host gets with its answer (``Set-Cookie`` too: ``passed_back``);
``Location``: a redirect is passed back, never followed (RFC 9110 s15.4: the host decides)."""
_LOCAL: Final = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
_FIRST: Final = re.compile(rb"[ \t\r\n]*([^ \t\r\n])")
"""A body's first byte past JSON's whitespace."""
_BACKLOG: Final = 16 * 1024 * 1024


def backlog_limit(max_frame: int) -> int:
    """The bytes a host stream holds waiting, at most, before its host reads them (16 MiB, or
    ``--max-frame-bytes`` when smaller); one frame within the frame limit is always taken while
    the stream is under it, and the answer always."""
    return min(max_frame, _BACKLOG)


def _no_message(body: bytes) -> bool:
    """The body cannot be a JSON-RPC message: it does not start with ``{`` past JSON's blanks
    (empty, an array, a UTF-16 or UTF-8 byte order mark), or it is UTF-16 or UTF-32 (NUL bytes
    between its ASCII characters: no ``"jsonrpc"`` shows)."""
    first = _FIRST.match(body)
    if first is None or first.group(1) != b"{":
        return True
    return body.find(b"\x00") >= 0 and body.find(b'"jsonrpc"') < 0
"""The first protocol version without sessions (versions are dates: later ones compare greater)."""
MAX_SESSIONS: Final = 1000
"""The 2025 session relays an HTTP host keeps at most (HTTP upstream); past it the least recently
used idle one is closed (its upstream session goes on: its next request gets a new relay)."""
RETRY_AFTER: Final = 1
"""The seconds a host refused a new session at capacity (every session held has a call in
flight, stdio upstream) is told to wait (``Retry-After``): a call usually ends sooner than a
host retries; each one ends at the latest at ``--timeout``."""
MAX_ASKED: Final = 4096
"""The server requests awaiting a host's answer that the HTTP host side keeps (stdio upstream):
past it the oldest is forgotten (a host's late answer to it is refused). Those of a session are
forgotten when it ends."""
MAX_GETS: Final = 16
"""The GET streams one 2025 session (or the requests of none) keeps open at most: past it the
one opened first is ended (a server MAY close an SSE stream at any time, 2025-11-25
basic/transports; over a stdio upstream only the latest open one carries messages, over an HTTP
upstream each holds an upstream connection of the pool every host shares)."""
ALL_TOOLS_BYTES: Final = 256 * 1024 * 1024
"""What the tools kept by all the session relays of an HTTP host count together (each relay at
most ``frames._tools.TOOLS_BYTES``; a thousand sessions listing the same megabyte kept a gigabyte)."""


def _untold(count: int, named: str, version: str | None) -> str | None:
    """The note of a host's ``notifications/cancelled`` of no session (its POST's
    ``MCP-Protocol-Version`` ``version``) naming ``named``, the id ``count`` requests of no session
    have in flight, when it is not sent (it cannot be told to be of any one's host): under
    2026-07-28 or later (closing a request's response stream is its cancellation) when one is,
    under 2025 when several are; None when it may go on."""
    if count and _stateless(version):
        return (f"not sent upstream: it is of no session, and {count} request{'s' if count > 1 else ''} of no "
                f"session with requestId {named} {'are' if count > 1 else 'is'} in flight, which it cannot be "
                "told to be of (2026-07-28: closing a request's response stream is its cancellation)")
    if count > 1:
        return (f"not sent upstream: {count} requests of no session with requestId {named} are in flight; which "
                "one it cancels cannot be told")
    return None


def _fault(status: int, code: int, reason: str) -> web.Response:
    """An HTTP error with the proxy's JSON-RPC error (a null id: it answers no request)."""
    return web.Response(status=status, body=fault_frame(code, reason), content_type="application/json")


def _id_bytes(event_id: str) -> bytes:
    """An event id as the stream's bytes: the host's own ``Last-Event-ID`` (aiohttp reads a
    header's bytes that are no UTF-8 as lone surrogates, ``surrogateescape``) as the host sent it;
    any other lone surrogate as ``?`` (strict UTF-8 raised: the stream, already 200, was cut)."""
    try:
        return event_id.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return event_id.encode("utf-8", "replace")


def _sse(data: bytes, event_id: str | None = None) -> bytes:
    """One event of a host's stream: ``data`` (its line ends each a ``data:`` line), and ``id:``
    when ``event_id`` is given — only where the stream's last event id changes (WHATWG: the last
    event id is kept for every later event, so each event without one has the id before it; an
    upstream's long id set once is written once, not repeated on each event after it)."""
    body = data.rstrip(b"\r")
    if body.find(b"\r") >= 0:  # (a search for one byte, memchr; CPython 3.11's for the two of CRLF scans a 60 kB
        # frame in ~90 µs, where most frames hold no CR at all)
        body = body.replace(b"\r\n", b"\n")
    body = body.replace(b"\n", b"\ndata: ")  # (the same object when it holds no LF: a compact frame)
    named = b"id: " + _id_bytes(event_id) + b"\n" if event_id is not None else b""
    return b"".join((b"event: message\n", named, b"data: ", body, b"\n\n"))  # (one copy of the body, not two)


def _event(kind: str, data: bytes, event_id: str | None, written: str | None) -> tuple[bytes, str | None]:
    """The bytes of a host stream's item — a priming event (``data``: its ``retry``, or none),
    or a frame (:func:`_sse`, its ``id:`` only where it changes from ``written``) — and the
    stream's last event id after it."""
    if kind == "prime":
        retry = b"retry: " + data + b"\n" if data else b""
        return b"id: " + _id_bytes(event_id or "") + b"\n" + retry + b"data:\n\n", event_id
    return _sse(data, event_id if event_id != written else None), event_id if event_id is not None else written


async def _read_body(request: web.BaseRequest, limit: int) -> bytes:
    """The POST's body up to its end or ``limit`` bytes, whichever comes first (one ``read``
    returns only what has arrived: a body sent in several pieces takes several)."""
    content = request.content
    body = await content.read(limit)
    if len(body) >= limit or content.at_eof():
        return body
    chunks = [body]
    size = len(body)
    while size < limit:
        chunk = await content.read(limit - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


Item = tuple[str, bytes, bool, str | None]
"""(kind, data, final, event id): what a host stream's handler writes."""


class _Items:
    """The items of one host stream, for its one handler: an ``asyncio.Queue`` without the
    bound, the task counting and the Event it builds per instance (one per POST); ``size``, the
    bytes waiting."""

    __slots__ = ("_items", "_waiter", "size")

    def __init__(self) -> None:
        self._items: deque[Item] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self.size = 0

    def put_nowait(self, item: Item) -> None:
        self._items.append(item)
        self.size += len(item[1])
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def get_nowait(self) -> Item:
        item = self._items.popleft()
        self.size -= len(item[1])
        return item

    async def get(self) -> Item:
        while not self._items:
            await self.more()
        return self.get_nowait()

    async def more(self) -> None:
        """Wait until the next item is queued (none taken)."""
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


class PostStream:
    """The host stream of one POST (or GET): frames queue up until the handler writes them."""

    restore: tuple[bytes, bytes] | None = None
    """(the id the proxy sent upstream, the host's own id), both as JSON: the answer gets the
    host's id back (:func:`_restore_id`)."""
    renamed: tuple[tuple[str | None, Key], Key] | None = None
    """((its session or None, the id key of the host's own id), that of the id sent upstream) of a
    renumbered request: what :attr:`HttpHost._renamed` holds for it while its POST lasts."""
    opening = False
    """Its request is an ``initialize`` (stdio upstream) whose session's room is kept until its
    session is issued or its POST ends (``HttpHost._room``)."""
    reused = False
    """Its request's id is one a request of its session has in flight (the host reused it): it
    is answered INVALID_REQUEST, unsent (``HttpHost._renumber``)."""
    ending: Item | None = None
    """The item that ends its response, once queued: its answer (the last one, for a batch), or
    ``end`` (no answer comes)."""
    watch: Callable[[str | None, bytes], None] | None = None
    """Told of each frame queued to the host (its session, the frame): a stdio upstream's GET
    stream, whose server requests a host of that session may answer (``HttpHost._note_asked``)."""

    def __init__(self, limit: int = _BACKLOG) -> None:
        self.queue = _Items()
        self.limit = limit
        """The bytes waiting past which a frame that does not answer the request is dropped."""
        self.dropped_why = ""
        self.status: int | None = None
        self.headers: Mapping[str, str] | None = None
        self.sse: bool | None = None
        self.pending_id: str | None = None
        self.closed = False
        self.answered = False
        """Its answer (the last one, for a batch) is queued: the response ends with it, and a
        frame after it (an upstream's event after its answer) is dropped, not queued unsent."""
        self.session: str | None = None
        """The 2025 session of a GET stream (stdio upstream): it ends with the session."""

    def begin(self, status: int, headers: Mapping[str, str]) -> None:
        """The upstream's response started (HTTP upstream): mirror its status (``host_status``) and kind."""
        self.status = host_status(status)
        self.headers = headers
        self.sse = event_stream(headers.get("Content-Type", ""))

    def prime(self, event_id: str, retry: int | None) -> None:
        self.queue.put_nowait(("prime", str(retry) .encode() if retry is not None else b"", False, event_id))

    def send(self, data: bytes, *, final: bool, answer: bool = False) -> bool:
        if self.closed:
            self.dropped_why = "the host closed the stream"
            return False
        if self.answered:
            self.dropped_why = "the host's stream ends with its answer, already sent"
            return False
        self.answered = final
        if not final and not answer and self.queue.size > self.limit:
            self.dropped_why = f"the host does not read its stream ({self.queue.size} bytes wait)"
            return False
        event_id, self.pending_id = self.pending_id, None
        if final and self.restore is not None:
            data = _restore_id(data, *self.restore)
        item = ("frame", data, final, event_id)
        if final:
            self.ending = item
        self.queue.put_nowait(item)
        if self.watch is not None:
            self.watch(self.session, data)
        return True

    def end(self) -> None:
        """The request of this stream is no longer awaited and gets no answer (its host cancelled
        it with ``notifications/cancelled``): the response ends with none (an event stream with
        what came before, if anything)."""
        if not self.closed:
            item: Item = ("end", b"", True, None)
            if self.ending is None:
                self.ending = item
            self.queue.put_nowait(item)

    async def answer(self) -> Item:
        """The item that ends its response (:attr:`ending`), once queued; the items before it
        stay queued, none taken (the host's backlog still bounds them)."""
        while self.ending is None:
            await self.queue.more()
        return self.ending


def _initialized(answer: Item) -> bool:
    """``answer`` (what ends an ``initialize``'s response) is a JSON-RPC response holding a
    result object: the session was initialised (2025-11-25 basic/lifecycle, Initialization; a
    JSON-RPC error, or no answer, initialises none)."""
    if answer[0] != "frame":
        return False
    look = peek(answer[1])
    return look.kind == "response" and look.message is not None and type(look.message.get("result")) is dict


def _restore_id(data: bytes, sent: bytes, original: bytes) -> bytes:
    """``data`` (an answer to a request sent upstream with id ``sent``) with the id member put
    back to ``original``. The proxy's id is a random token no host or server writes otherwise;
    an answer that does not carry it as its id is left as it came."""
    match = re.search(rb'"id"\s*:\s*' + re.escape(sent), data)
    if match is None:
        return data
    return data[:match.start()] + b'"id":' + original + data[match.end():]


@dataclass(slots=True)
class _Held:
    """A relay of the HTTP upstream, as the host side holds it."""

    upstream: HttpUpstream
    users: int = 1
    """The handlers (POSTs, GETs) using it now."""
    session: str | None = None
    """The session it is the relay of (None: it serves the handlers using it, then is closed)."""
    stateless: bool = False


class HttpHost:
    """The MCP endpoint the host talks to."""

    def __init__(self, options: ProxyOptions, recorder: Recorder | None, *,
                 max_sessions: int = MAX_SESSIONS) -> None:
        self.options = options
        self.recorder = recorder
        self.max_sessions = max_sessions
        self.bridges: dict[str, Bridge] = {}
        """The session relays (HTTP upstream) by session id, least recently used first."""
        self._stateless: list[Bridge] = []
        """The relays of stateless requests (HTTP upstream): the first one where the request's id
        is not in flight takes it. The first is kept; the others are closed once idle."""
        self._live: dict[Bridge, _Held] = {}
        """Every relay of the HTTP upstream not yet released."""
        self._releasing: set[asyncio.Task[None]] = set()
        self._active = 0
        """The handlers running."""
        self._stdio: Bridge | None = None
        self._stdio_upstream: StdioUpstream | None = None
        self._client: aiohttp.ClientSession | None = None
        self._posts: Posts | None = None
        """The requests' POSTs of every relay, on connections of their own (``_http_posts``)."""
        self._tools_budget = ToolsBudget(ALL_TOOLS_BYTES)
        """What the tools kept by all the relays of the HTTP upstream count together (each
        relay's own budget is ``frames._tools``'): past it a listed tool is not kept."""
        self._count = 0
        self._exchange = 0
        self._upstreams: dict[Any, None] = {}
        """The upstreams not yet closed (an insertion-ordered set)."""
        self.telemetry: Telemetry | None = None
        self._nonce = secrets.token_hex(6)
        self._renumbered = 0
        self._renamed: dict[tuple[str | None, Key], dict[Key, bytes]] = {}
        """The requests sent to the stdio upstream under an id of the proxy's whose POST lasts,
        by their session (None: stateless) and the key of the host's own id: the key of the id
        sent upstream, and that id as JSON (a host's ``notifications/cancelled`` names the host's
        id: :meth:`_cancelled_as_sent`)."""
        self._backlog = backlog_limit(options.max_frame)
        self._asked: dict[tuple[str | None, tuple[str, Any]], bool] = {}
        """The server requests sent to a host's GET stream (stdio upstream) that no host answered
        yet, by (the stream's session or None, the request's id: ``("key", id_key)``, or
        ``("text", the id as written)`` when no parser holds it), the oldest first, at most
        :data:`MAX_ASKED`, none of a session that ended (``_forget_session``) nor of a process
        that exited (``StdioUpstream.on_exit``: the next one never sent them): whether no parser
        reads the request (its host may answer it with a null id). A host's response must answer
        one of its own session's (``_unasked``)."""
        self._unread_asks = 0
        self._open_gets: dict[str | None, deque[PostStream]] = {}
        """The GET streams open by the session they name (None: none), the first opened first:
        at most :data:`MAX_GETS` each."""
        self._gets: list[PostStream] = []
        self._opening = 0
        """The ``initialize`` POSTs under way (stdio upstream) whose session is not issued yet: each
        keeps room for it (:meth:`_room`)."""
        self._sessions: dict[str, set[Key]] = {}
        """The 2025 sessions the proxy issued (stdio upstream) and not ended, least recently used
        first: each one's calls in flight (the keys of its POSTs still answering)."""
        """The host's GET streams open (stdio upstream), the latest last: it is the standing one."""
        self._last_host: tuple[str, bool] | None = None
        """(the last Host header checked, whether it names the endpoint)."""
        self._host_names: frozenset[str] | None = None
        """The names the Host header may give (None: not checked, the endpoint is not on loopback)."""
        listen = options.listen[0] if options.listen is not None else ""
        with contextlib.suppress(ValueError):
            if listen == "localhost" or ipaddress.ip_address(listen.strip("[]")).is_loopback:
                self._host_names = _LOCAL | {urlsplit(o).hostname or "" for o in options.allowed_origins}

    # -- setup --------------------------------------------------------------------------------
    async def start(self) -> None:
        from ._run import make_relay, make_telemetry

        self.telemetry = make_telemetry(self.options, "tcp")
        if self.options.command:
            relay = make_relay(self.options, "http", self.recorder, self.telemetry, "http")
            bridge = Bridge(relay)
            upstream = StdioUpstream(bridge, self.options.command, limit=self.options.max_frame,
                                     restart=self.options.restart, max_restarts=self.options.max_restarts,
                                     grace=self.options.grace, env=merge_env(self.options.env))
            upstream.one_line = relay.upstream_one_line = True  # an HTTP body may hold line breaks
            relay.keeps_look = True  # (each answer's status read from the relay's reading: _respond)
            upstream.http_host = True
            upstream.on_exit = self._asked.clear  # (its requests die with it: ``_unasked``)
            bridge.upstream = upstream
            await upstream.start()
            self._stdio = bridge
            self._stdio_upstream = upstream
            self._upstreams[upstream] = None
        else:
            self._client = client_session(512, 30.0, cookies=False)
            assert self.options.upstream is not None
            self._posts = posts_for(self.options.upstream, self._client, limit=512, connect=30.0)

    # -- the relays of the HTTP upstream ---------------------------------------------------------
    def _acquire(self, session: str | None, initialize: bool, key: Key | None = None) -> Bridge:
        """The relay for one POST or GET, counted as used until :meth:`_release`: the session's,
        else (stateless) a shared one where the request's id is not in flight, else a new one."""
        if self._stdio is not None:
            return self._stdio
        bridge = None
        if session is not None:
            bridge = self.bridges.pop(session, None)
            if bridge is not None:
                self.bridges[session] = bridge  # (the most recently used last)
        elif not initialize:
            bridge = next((b for b in self._stateless if key is None or not b.relay.is_waiting(key)), None)
        if bridge is None:
            return self._new_bridge(stateless=not initialize and session is None)
        self._live[bridge].users += 1
        return bridge

    def _new_bridge(self, *, stateless: bool) -> Bridge:
        from ._run import make_relay

        self._count += 1
        relay = make_relay(self.options, f"http-{self._count}", self.recorder, self.telemetry, "http",
                           self._tools_budget)
        bridge = Bridge(relay)
        assert self.options.upstream is not None
        upstream = HttpUpstream(bridge, self.options.upstream, headers=self.options.headers,
                                limit=self.options.max_frame, timeout=self.options.timeout, client=self._client,
                                posts=self._posts, stdio_host=False)
        upstream.shared = stateless
        bridge.upstream = upstream
        self._upstreams[upstream] = None
        self._live[bridge] = _Held(upstream, stateless=stateless)
        if stateless:
            self._stateless.append(bridge)
        return bridge

    def _release(self, bridge: Bridge) -> None:
        """A handler is done with ``bridge``: a relay no session keeps (and not the first
        stateless one) is closed once no handler uses it."""
        held = self._live.get(bridge)
        if held is None:
            return
        held.users -= 1
        if held.users <= 0 and held.session is None and not (held.stateless and self._stateless[0] is bridge):
            self._drop(bridge)
        self._trim()

    def _adopt(self, session: str, bridge: Bridge) -> None:
        """The upstream's answer on ``bridge`` carries ``session``: it is that session's relay
        (unless the session has one already, or the relay serves stateless requests)."""
        held = self._live.get(bridge)
        if held is None or held.session is not None or held.stateless or session in self.bridges:
            return
        held.session = session
        self.bridges[session] = bridge
        self._trim()

    def _trim(self) -> None:
        """At most ``max_sessions`` session relays: the least recently used idle ones past it are
        closed (one in use is closed when it is no longer, if still past it)."""
        excess = len(self.bridges) - self.max_sessions
        if excess <= 0:
            return
        for bridge in list(self.bridges.values()):
            if self._live[bridge].users <= 0:
                self._drop(bridge)
                excess -= 1
                if excess <= 0:
                    return

    def _drop(self, bridge: Bridge) -> None:
        """No handler reaches ``bridge`` from now on; it is closed in the background: its upstream
        POSTs still under way (a notification's, after the host had its 202) finish first (at
        most ``--timeout`` seconds)."""
        held = self._live.pop(bridge)
        if held.session is not None and self.bridges.get(held.session) is bridge:
            del self.bridges[held.session]
        held.session = None
        if held.stateless:
            self._stateless.remove(bridge)
        task = asyncio.get_running_loop().create_task(self._close(bridge, held.upstream))
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def _close(self, bridge: Bridge, upstream: HttpUpstream) -> None:
        """:meth:`_drop`'s closing of ``bridge``. A fault of the proxy's in a step of it is said
        (stderr, the frame log) and the steps after it still run: its task never dies unseen,
        with the relays' tools budget or the upstream left held."""
        try:
            await upstream.settle(self.options.timeout)
        except Exception as exc:
            _closing_failed(bridge, exc)
        finally:
            # the verdicts still to write, the deadline timer stopped; the relay's share of the
            # relays' tools budget given back
            for step in (bridge.close, bridge.relay.forget_tools):
                try:
                    step()
                except Exception as exc:
                    _closing_failed(bridge, exc)
            with contextlib.suppress(Exception):
                await upstream.aclose()
            self._upstreams.pop(upstream, None)

    async def settled(self) -> dict[str, int]:
        """Once no handler runs and every relay let go is closed: how many relays, session relays
        and upstreams the host holds (the tests count them)."""
        while self._active or self._releasing:
            if self._releasing:
                await asyncio.wait(set(self._releasing))
            else:
                await asyncio.sleep(0.01)
        return {"relays": len(self._live), "sessions": len(self.bridges), "upstreams": len(self._upstreams)}

    def _renumber(self, body: bytes, look: Peek, stream: PostStream, session: str | None = None) -> bytes:
        """A request (``body``, read as ``look``; of ``session``, else stateless) for the stdio
        upstream whose id another host has in flight (an ``initialize`` too; either id of one that
        gives it twice with two values, :meth:`_first_id_held`): the same bytes with
        the id member's value replaced by an id of the proxy's (every other byte as the host wrote
        it: an integer past 64 bits, an escape); ``stream`` puts the host's id back, as the host
        wrote it. A session's request whose id a request of its session has in flight, sent under
        that id or under one of the proxy's, is not renumbered: the host reused the id (MCP
        basic/index: not while in flight in a session), ``stream.reused`` says so and it is
        answered INVALID_REQUEST, unsent (:meth:`_in_session`). Nor is a request no parser reads
        (the relay answers it, ``Relay._host_unreadable``)."""
        assert self._stdio is not None
        key = id_key(look.id)
        if look.message is None:
            return body
        if session is not None and self._in_session(session, key):
            stream.reused = True
            return body
        if not self._stdio.relay.holds_id(key) and not self._first_id_held(body):
            return body
        self._renumbered += 1
        proxy_id = f"mcp-verdict:{self._nonce}:{self._renumbered}"
        sent = orjson.dumps(proxy_id)
        stream.restore = (sent, id_json(as_written(look.id, body)))
        stream.renamed = ((session, key), id_key(proxy_id))
        self._renamed.setdefault(stream.renamed[0], {})[stream.renamed[1]] = sent
        return with_id(body, sent, look.message)

    def _first_id_held(self, body: bytes) -> bool:
        """The request ``body`` gives its id twice with two values (``_twice``) and the first, the
        one a server keeping the first answers under, is an id a request in flight holds (another
        host's): the server's answer to either would be taken for the other's. A body naming
        ``"id"`` once and holding no ``\\u`` escape (which may spell it) gives it once: not read."""
        assert self._stdio is not None
        relay = self._stdio.relay
        if not relay.in_flight or (body.count(b'"id"') < 2 and body.find(b"\\u") < 0):
            return False
        read = read_two_ways(body)
        return read is not None and read.first_id is not None and relay.holds_id(id_key(read.first_id))

    def _in_session(self, session: str, key: Key) -> bool:
        """A request of ``session`` with the host's id ``key`` is in flight on the stdio upstream:
        sent under that id, or under an id of the proxy's (its POST lasts and the relay awaits it:
        one answered is not, even before its POST's handler is done)."""
        assert self._stdio is not None
        relay = self._stdio.relay
        if key in self._sessions.get(session, ()) and relay.is_waiting(key):
            return True
        renamed = self._renamed.get((session, key))
        return renamed is not None and any(relay.is_waiting(sent) for sent in renamed)

    def _unrename(self, stream: PostStream) -> None:
        """The POST of a renumbered request is over: its host can no longer cancel it."""
        if stream.renamed is None:
            return
        host, sent = stream.renamed
        renamed = self._renamed.get(host)
        if renamed is not None:
            renamed.pop(sent, None)
            if not renamed:
                del self._renamed[host]

    def _cancelled_as_sent(self, body: bytes, session: str | None, version: str | None = None
                           ) -> tuple[bytes, str | None, bool]:
        """A host's ``notifications/cancelled`` for the stdio upstream (``body``; of ``session``,
        else of no session, its POST's ``MCP-Protocol-Version`` ``version``), naming the host's id
        of a request: (the body to send, the note of its record, whether to send it).

        In a session, whose ids are its own, it names the session's request with that id in
        flight: sent under that id, the body goes on unchanged; sent under an id of the proxy's
        (``_renumber``), the body names that id (``_codes.with_request_id``: only
        ``requestId``'s bytes replaced; not sent when no ``requestId`` member shows as written and
        the body is past what is written anew: as written it names the host's id, which upstream
        may be another request's). A POST of no session cannot be told to come from the host
        of any request (each stateless POST stands alone; ids are unique per host only), so a
        cancellation of no session is applied to no request it may not be of: under 2026-07-28
        (or later), where closing a request's response stream is its cancellation and no
        ``notifications/cancelled`` is expected over HTTP (basic/patterns/cancellation,
        basic/transports/streamable-http), it is not sent when any request in flight has that id;
        under a 2025 version (there the notification is the cancellation) it is applied as in a
        session when one request of no session alone has that id in flight, and not sent when
        several have (which host's it is cannot be told). Not sent either when the only request
        waiting under that id is another host's (another session's; a session's, for a host of
        no session): the server would cancel it (MCP basic/utilities/cancellation: a
        cancellation names a request of its sender's). One naming no request in flight goes on
        as the host wrote it (the server ignores an unknown id)."""
        cancel, request = cancelled_request(body)
        if not cancel or request is None or isinstance(request, bool) or not isinstance(request, (int, str)) \
                or self._stdio is None:
            return body, None, True
        key = id_key(request)
        relay = self._stdio.relay
        waiting = relay.is_waiting(key)
        own = waiting and (key in self._sessions.get(session, ()) if session is not None
                           else not any(key in calls for calls in self._sessions.values()))
        renamed = self._renamed.get((session, key))
        sent = [data for sent_key, data in renamed.items() if relay.is_waiting(sent_key)] if renamed else []
        named = cut(neutral(id_json(request).decode("utf-8", "replace")), 80)
        count = own + len(sent)
        untold = _untold(count, named, version) if session is None else None
        if untold is not None:
            return body, untold, False
        if own:
            return body, None, True
        if not sent:
            if waiting:
                return body, (f"not sent upstream: no request of the host's with requestId {named} is in flight; "
                              "another host's is, which the upstream would cancel"), False
            return body, None, True
        rewritten = with_request_id(body, sent[0])
        if rewritten is None:  # (as written it names the host's id: upstream, another request's, maybe)
            return body, (f"not sent upstream: the host's requestId {named} is the id of its request sent upstream "
                          f"as {sent[0].decode()}, and its cancellation could not be written naming that id "
                          f"(no requestId member shows as written in {len(body)} bytes)"), False
        return rewritten, (f"the host's requestId {named} is the id of its request sent upstream as "
                           f"{sent[0].decode()}: sent upstream naming that id"), True

    def _stateless_cancel(self, body: bytes, version: str | None) -> tuple[str | None, bool, Bridge | None]:
        """A host's ``notifications/cancelled`` of no session for the HTTP upstream (its POST's
        ``MCP-Protocol-Version`` ``version``): (the note of its record, whether to send it, the
        stateless relay to send it through: None for the first). Such a POST cannot be told to
        come from the host of any request (:meth:`_cancelled_as_sent`), and the relay it goes
        through would stop awaiting its own request with that id and close that request's
        upstream stream (``HttpUpstream.send``), whichever host's: with requests of no session
        with that id in flight it is not sent, its record saying why, under 2026-07-28 (closing
        the request's response stream is its cancellation) and under 2025 when several are;
        under 2025 with one alone it goes through that request's relay (whichever stateless
        relay holds it: the first is not always it), which stops awaiting it, as over a stdio
        upstream."""
        cancel, request = cancelled_request(body)
        if not cancel or request is None or isinstance(request, bool) or not isinstance(request, (int, str)):
            return None, True, None
        key = id_key(request)
        holding = [bridge for bridge in self._stateless if bridge.relay.is_waiting(key)]
        named = cut(neutral(id_json(request).decode("utf-8", "replace")), 80)
        untold = _untold(len(holding), named, version)
        if untold is not None:
            return untold, False, None
        return None, True, holding[0] if holding else None

    def _closed_cancels(self, bridge: Bridge, key: Key, version: str | None) -> bool:
        """A request of no session whose POST its host closed (HTTP upstream, ``bridge`` the
        relay it waits in; ``version`` its POST's ``MCP-Protocol-Version``) is cancelled
        upstream by the proxy's own ``notifications/cancelled`` through that relay, which closes
        its upstream stream (``HttpUpstream.send``; 2026-07-28: the close is the cancellation,
        the notification is not POSTed) — under 2025 (POSTed too) only when no other relay of
        requests of no session has that id in flight: the upstream could not tell which request
        it names (:meth:`_stateless_cancel`); then it is not sent, and the stream left to end."""
        return _stateless(version) or not any(other is not bridge and other.relay.is_waiting(key)
                                              for other in self._stateless)

    def _host_ok(self, request: web.BaseRequest) -> bool:
        """The Host header names the loopback endpoint (or a host of ``--allow-origin``): a page
        whose name was rebound to 127.0.0.1 gives its own name (DNS rebinding)."""
        names = self._host_names
        if names is None:
            return True
        host = request.headers.get("Host")
        if host is None:
            return True  # (HTTP/1.0 without one: no browser)
        last = self._last_host
        if last is not None and last[0] == host:
            return last[1]  # (a host sends the same Host header on each request)
        try:
            name = urlsplit("//" + host).hostname
        except ValueError:
            ok = False
        else:
            ok = name is not None and name in names
        self._last_host = (host, ok)
        return ok

    def _origin_ok(self, request: web.BaseRequest) -> bool:
        """Each ``Origin`` the request carries is a localhost one or one of ``--allow-origin``
        (a browser sends one; a request with two is refused unless both pass, as the upstream,
        which is sent both, may read the other)."""
        headers = request.headers
        return "Origin" not in headers or all(self._one_origin_ok(origin) for origin in headers.getall("Origin"))

    def _one_origin_ok(self, origin: str) -> bool:
        if origin in self.options.allowed_origins:
            return True
        try:
            host = urlsplit(origin).hostname
        except ValueError:
            return False
        return host is not None and host in _LOCAL

    # -- handlers -----------------------------------------------------------------------------
    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        if not self._origin_ok(request):
            return web.json_response({"jsonrpc": "2.0", "id": None,
                                      "error": {"code": -32600, "message": "Origin not allowed"}},
                                     status=403)
        if not self._host_ok(request):
            return web.json_response({"jsonrpc": "2.0", "id": None,
                                      "error": {"code": -32600, "message": "Host not allowed"}},
                                     status=421)
        self._active += 1
        try:
            if request.method == "POST":
                return await self._post(request)
            if request.method == "GET":
                return await self._get(request)
            if request.method == "DELETE":
                return await self._delete(request)
            return web.Response(status=405, headers={"Allow": "GET, POST, DELETE"})
        finally:
            self._active -= 1

    async def _post(self, request: web.BaseRequest) -> web.StreamResponse:
        timeout = self.options.timeout
        deadline = asyncio.get_running_loop().time() + timeout  # (the body's whole read: a slow host is not waited on)
        content = request.content
        if content.is_eof():  # (the body came whole with its head: read at once, nothing to wait for)
            body = content.read_nowait(self.options.max_frame + 1)
        else:
            try:
                async with asyncio.timeout_at(deadline):
                    body = await _read_body(request, self.options.max_frame + 1)
            except TimeoutError:
                return self._body_late(request)
        version = request.headers.get("MCP-Protocol-Version")  # (read once: asked all along the POST)
        session = request.headers.get("Mcp-Session-Id")
        if session is not None and _stateless(version):  # (as :meth:`_session_of`)
            session = None
        if session is not None and self._stdio is not None and not self._holds(session):
            if len(body) > self.options.max_frame:
                body = body[:65536]
            stream = PostStream(self._backlog)
            self._exchange += 1
            self._stdio.host_no_session(body, stream, {"exchange": self._exchange, "method": "POST",
                                                       "session": session, "protocol_version": version})
            return await self._answer_queued(stream, 404)
        # a session's requests are routed by its id: only initialize and stateless requests are
        # read — and every body for a stdio upstream, which serves every host on one connection
        # (one the relay would not await may draw an answer taken for another host's: ``unfollowed``)
        look = peek(body) if session is None or self._stdio is not None or body.find(b'"initialize"') >= 0 else None
        peeked = body  # (the bytes ``look`` reads: the relay is given it while the body is these)
        if self._stdio is not None and look is not None:  # (an HTTP upstream validates its own)
            whole = body if len(body) <= self.options.max_frame else None  # (else refused: too large)
            mismatch = header_mismatch(look, request.headers, self._stdio.relay.param_declared, whole)
            if mismatch is not None:
                named = look.kind == "request" or (look.kind == "unreadable" and look.has_id)
                return self._refused(request, body, session, mismatch, as_written(look.id, body) if named else None)
        initialize = look is not None and look.method == "initialize"
        if initialize and self._stdio is not None and not self._room():
            return self._at_capacity(request, body, session, look)
        stream = PostStream(self._backlog)
        # a frame no parser reads is read before a stdio upstream is sent it: the relay may answer
        # it instead (its id in flight, a number no int or float holds, a string that is not UTF-8)
        read_first = self._stdio is not None and look is not None and look.kind == "unreadable"
        if look is not None and session is None and not initialize and (
                look.kind == "request" or (look.kind == "unreadable" and look.has_id)):
            if self._stdio is not None:
                body = self._renumber(body, look, stream)
            bridge = self._acquire(session, initialize, id_key(look.id))
        else:
            if self._stdio is not None and self._stdio.relay.in_flight:
                # over one connection for every host: another host's request may have this id
                seen = look if look is not None else peek(body)
                if seen.kind == "request":
                    body = self._renumber(body, seen, stream, session)
                read_first = read_first or seen.kind == "unreadable"  # (its id in flight: answered, unsent)
            bridge = self._acquire(session, initialize)
        note = None
        send = True
        if body.find(b"notifications/cancelled") >= 0:
            if self._stdio is not None and self._stdio.relay.in_flight:
                body, note, send = self._cancelled_as_sent(body, session, version)
            elif self._stdio is None and session is None and not initialize:
                note, send, holder = self._stateless_cancel(body, version)
                if holder is not None and holder is not bridge:  # (the relay its request waits in)
                    self._release(bridge)
                    bridge = holder
                    self._live[bridge].users += 1
        if initialize and self._stdio is not None:
            stream.opening = True  # (its session's room kept until it is issued: ``_room``)
            self._opening += 1
        try:
            return await self._post_on(request, body, session, initialize, stream, bridge, read_first, note, send,
                                       look, deadline, version, body is peeked)
        finally:
            self._release(bridge)
            self._unrename(stream)
            self._opened(stream)  # (if no session was issued: refused, failed, its host gone)

    async def _post_on(self, request: web.BaseRequest, body: bytes, session: str | None, initialize: bool,
                       stream: PostStream, bridge: Bridge, read_first: bool = False,
                       note: str | None = None, send: bool = True, look: Peek | None = None,
                       deadline: float | None = None, version: str | None = None, read: bool = False
                       ) -> web.StreamResponse:
        """``version``: the POST's ``MCP-Protocol-Version``; ``read``: ``look`` reads ``body`` (the
        relay reads it no more)."""
        self._exchange += 1
        http = {"exchange": self._exchange, "method": "POST", "session": session, "protocol_version": version}
        if len(body) > self.options.max_frame:
            rest = len(body)
            whole = False  # (the rest of the body is read to tell its size, until the body's deadline)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(deadline):
                    while chunk := await request.content.read(65536):
                        rest += len(chunk)
                    whole = True
            bridge.host_too_large(body[:65536], rest, stream, whole=whole)
            response = await self._answer_queued(stream, 413)
            if not whole:
                response.force_close()  # (the rest of its body is not read)
            return response
        if _no_message(body) and not follows(bridge.relay, body, http):  # (a 2025-03-26 batch is accepted)
            bridge.host_no_message(body, stream, http)
            return await self._answer_queued(stream, 400)
        why = self._unfollowed(look, body, version) if self._stdio is not None else None
        if why is None and self._stdio is not None and look is not None and not _stateless(version):
            why = self._unasked(look, body, session)  # (a 2026-07-28 host sends no response: _unfollowed)
        if why is not None:  # (over one connection for every host, its answer could not be told)
            bridge.host_no_message(body, stream, http, why)
            return await self._answer_queued(stream, 400)
        headers = request.headers if self._stdio is None else None  # read-only: no copy
        upstream = bridge.upstream if headers is not None else None
        if isinstance(upstream, HttpUpstream):
            upstream.delivery = None
        stdio = self._stdio_upstream if self._stdio is not None else None
        if stdio is not None:
            stdio.delivery = None
            if stream.reused:  # (answered as the relay answers an id it finds in flight)
                bridge.host_reused(body, stream, http)
                return await self._answer_queued(stream, 200)
        key = bridge.from_host(body, stream, http=http, headers=headers, read_first=read_first,
                               note=note if send else None, withhold=None if send else note,
                               look=look if read else None)
        if key is None:
            if not stream.queue.empty():
                return await self._answer_queued(stream, 200)
            if stdio is not None and stdio.delivery is not None:
                return await self._delivered(stdio, stdio.delivery)
            if isinstance(upstream, HttpUpstream) and upstream.delivery is not None:
                # the upstream's answer to it (shielded: a host that goes away does not cut it off)
                delivery = await asyncio.shield(upstream.delivery)
                back = passed_back(delivery.headers, (*_PASS_BACK, "Content-Type") if delivery.body else _PASS_BACK)
                return web.Response(status=delivery.status, body=delivery.body or None, headers=back)
            return web.Response(status=202)
        calls = self._sessions.get(session) if session is not None and self._stdio is not None else None
        keys = bridge.batch_of(key)  # (a batch: every request it opened, answered on this POST)
        if calls is not None:
            calls.update(keys)  # (a DELETE of the session answers them)
        try:
            return await self._respond(request, stream, bridge, key, initialize, version)
        except (asyncio.CancelledError, ConnectionResetError):
            stream.closed = True
            for each in keys:
                if bridge.relay.is_waiting(each):
                    notify = self._stdio is not None or session is not None or self._closed_cancels(
                        bridge, each, version)
                    bridge.cancel(each, "the host closed its stream", notify=notify)
            raise
        finally:
            if calls is not None:
                calls.difference_update(keys)

    def _note_asked(self, session: str | None, data: bytes) -> None:
        """A frame queued to a GET stream of ``session`` (stdio upstream): each server request it
        is or holds (a 2025-03-26 batch) is noted in :attr:`_asked`, as one its hosts may answer
        — also one no parser reads, by the id it shows (or as answerable with a null id only)."""
        if data.find(b'"method"') < 0 or data.find(b'"id"') < 0:
            return
        first = _FIRST.match(data)
        if first is not None and first.group(1) == b"[":
            with contextlib.suppress(orjson.JSONDecodeError):
                members = orjson.loads(data)
                for member in members if type(members) is list else ():
                    if type(member) is dict and type(member.get("method")) is str \
                            and type(member.get("id")) in (str, int):
                        self._ask((session, ("key", id_key(member["id"]))), False)
            return
        look = peek(data)
        unread = look.kind == "unreadable"
        if look.kind != "request" and not unread:
            return
        if look.has_id:
            self._ask((session, ("key", id_key(look.id))), unread)
            return
        text = look.unheld if look.unheld is not None else id_text(data)
        if text is not None:
            self._ask((session, ("text", text)), True)
        elif unread:
            self._unread_asks += 1  # (answerable with a null id only)
            self._ask((session, ("text", b"#%d" % self._unread_asks)), True)

    def _ask(self, key: tuple[str | None, tuple[str, Any]], unread: bool) -> None:
        asked = self._asked
        asked.pop(key, None)
        asked[key] = unread
        if len(asked) > MAX_ASKED:
            del asked[next(iter(asked))]

    def _unasked(self, look: Peek, body: bytes, session: str | None) -> tuple[int, str] | None:
        """A host's JSON-RPC response (or a 2025-03-26 batch holding some; ``look``, ``body``) of
        ``session`` (stdio upstream) answering no server request sent to a GET stream of its
        session and not answered yet (:attr:`_asked`): (INVALID_REQUEST, why) to refuse the whole
        body with, unsent; else None, and the requests it answers are no longer awaited. The one
        process serves every host on one connection: its error to such a response (under a null
        id or that id) would be taken for the answer to another host's request in flight. A
        null id answers a server request no parser reads (the host could not read its id)."""
        answers: list[tuple[bool, Any, bytes | None]] = []  # (has an id, the id, the id's text)
        if look.kind in ("response", "error"):
            answers.append((look.has_id, look.id, look.unheld if look.unheld is not None else id_text(body)))
        elif look.kind == "batch":
            with contextlib.suppress(orjson.JSONDecodeError):
                members = orjson.loads(body)
                for member in members if type(members) is list else ():
                    if type(member) is dict and "method" not in member and ("result" in member or "error" in member):
                        value = member.get("id")
                        held = type(value) in (str, int) or value is None
                        answers.append(("id" in member and held, value if held else None, None))
        if not answers:
            return None
        asked = self._asked
        taken: list[tuple[str | None, tuple[str, Any]]] = []
        for has_id, value, text in answers:
            key: tuple[str | None, tuple[str, Any]] | None = None
            if has_id and value is None:
                key = next((k for k, unread in asked.items() if unread and k[0] == session and k not in taken), None)
            elif has_id:
                key = (session, ("key", id_key(value)))
            elif text is not None:
                key = (session, ("text", text))
            if key is None or key not in asked or key in taken:
                shown = "null" if has_id and value is None else neutral(cut(id_json(value).decode("utf-8", "replace"),
                                                                            60)) if has_id else "absent"
                return INVALID_REQUEST, (
                    f"a JSON-RPC response (id {shown}) that answers no request the server sent to "
                    f"{'this session' if session is not None else 'hosts of no session'} and still awaits: over "
                    "the stdio upstream, one connection for every host, the server's error to it would be taken "
                    "for another host's answer")
            taken.append(key)
        for key in taken:
            del asked[key]
        return None

    def _refused(self, request: web.BaseRequest, body: bytes, session: str | None, why: tuple[int, str],
                 answer_id: Any = None) -> web.Response:
        """A body refused before it reaches the stdio upstream's relay (``why``: the code and the
        reason): 400 and the JSON-RPC error under ``answer_id`` (null unless given), not
        forwarded, logged as refused."""
        assert self._stdio is not None
        self._exchange += 1
        http = {"exchange": self._exchange, "method": "POST", "session": session,
                "protocol_version": request.headers.get("MCP-Protocol-Version")}
        stream = PostStream(self._backlog)
        self._stdio.host_no_message(body, stream, http, why, answer_id)
        data = stream.queue.get_nowait()[1]
        return web.Response(body=data, status=400, content_type="application/json")

    @staticmethod
    def _unfollowed(look: Peek | None, body: bytes, version: str | None) -> tuple[int, str] | None:
        """A body for the stdio upstream (read as ``look``; its POST's ``MCP-Protocol-Version``
        ``version``) that is refused, unsent, with (the code, the reason), or None: one the relay
        would forward unawaited although the server answers it (``_relay.unfollowed``), and a
        JSON-RPC response under 2026-07-28, whose clients send none over HTTP (basic/transports/
        streamable-http, Sending Messages 4; a server may answer one with an error under its id,
        which another host's request in flight may have). The one process serves every host on
        one connection: such an answer would be taken for that request's."""
        if look is None:
            return None
        why = unfollowed(look, body)
        if why is None and look.kind in ("response", "error") and _stateless(version):
            why = INVALID_REQUEST, ("a JSON-RPC response: a 2026-07-28 client sends none over Streamable HTTP "
                                    "(basic/transports/streamable-http, Sending Messages 4)")
        return why

    def _body_late(self, request: web.BaseRequest) -> web.Response:
        """A POST whose body did not come whole within ``--timeout`` (a host that stalls, or sends
        it a byte at a time): 408 Request Timeout (RFC 9110 s15.5.9) and a JSON-RPC error with a
        null id, the connection closed (the rest is not read), nothing forwarded; noted in the
        frame log. The handler, its connection and what it read so far are let go: a host cannot
        hold them longer."""
        timeout = self.options.timeout
        reason = f"the request's body did not arrive within {timeout:g} s"
        session = self._session_of(request)
        self._exchange += 1
        http = {"exchange": self._exchange, "method": "POST", "session": session,
                "protocol_version": request.headers.get("MCP-Protocol-Version")}
        bridge = self._acquire(session, False) if self._stdio is None else self._stdio
        try:
            bridge.relay.note("error", "c2s", f"the host's POST: {reason} (answered HTTP 408; not forwarded)",
                              http=http)
        finally:
            if self._stdio is None:
                self._release(bridge)
        response = _fault(408, INVALID_REQUEST, reason)
        response.force_close()
        return response

    async def _delivered(self, upstream: StdioUpstream, fate: asyncio.Future[str | None]) -> web.Response:
        """A notification or a response the stdio upstream took while it was down: 202 once it is
        written to the (restarted) process; else, as over an HTTP upstream, 502 and
        UPSTREAM_UNAVAILABLE (it was dropped: the process is not running, or exited before it
        was sent, or could not be restarted), or 504 and UPSTREAM_TIMEOUT when it is still
        waiting after ``--timeout`` (taken out of the queue, unsent); each noted in the frame log
        (``StdioUpstream.undelivered``)."""
        timeout = self.options.timeout
        try:
            async with asyncio.timeout(timeout):
                reason = await asyncio.shield(fate)  # (a host that goes away does not cut it off)
        except TimeoutError:
            reason = f"not sent within {timeout:g} s (the upstream was being restarted)"
            if upstream.withdraw(fate, reason):
                return _fault(504, UPSTREAM_TIMEOUT, reason)
            reason = fate.result() if fate.done() else None
        if reason is None:
            return web.Response(status=202)
        return _fault(502, UPSTREAM_UNAVAILABLE, reason)

    async def _answer_queued(self, stream: PostStream, status: int) -> web.Response:
        """The answer the relay wrote at once (a refused request), or the bare status without one;
        the answers to a batch's requests it refused each (none awaited), as one JSON array
        (2025-03-26 basic/transports: the response to a batch carries the responses to its requests)."""
        if stream.queue.empty():
            return web.Response(status=status)
        answers = []
        while not stream.queue.empty():
            answers.append(stream.queue.get_nowait()[1])
        data = answers[0] if len(answers) == 1 else b"[" + b",".join(answers) + b"]"
        return web.Response(body=data, status=status, content_type="application/json")

    async def _respond(self, request: web.BaseRequest, stream: PostStream, bridge: Bridge, key: Key,
                       initialize: bool, version: str | None) -> web.StreamResponse:
        item = await stream.queue.get()
        headers: CIMultiDict[str] | None = None  # (none of its own: a stdio upstream's answer, mostly)
        if stream.headers is not None:
            headers = passed_back(stream.headers, _PASS_BACK)
            sid = stream.headers.get("Mcp-Session-Id")
            if sid:
                self._adopt(sid, bridge)
        elif initialize and self._stdio is not None:
            # a session for an initialize that succeeds only: not for a JSON-RPC error (the
            # server's, or the proxy's: a timeout, the server gone, its answer refused), nor for
            # none — a server creates none then, and its id would hold a room for nothing
            answer = item if item[0] == "end" or (item[0] != "prime" and item[2]) else await stream.answer()
            self._opened(stream)
            if _initialized(answer):
                headers = CIMultiDict({"Mcp-Session-Id": self._issue()})
        kind, data, final, event_id = item
        status = stream.status or 200
        if kind == "end":  # (no answer comes: its host cancelled it)
            status = 200
        if kind == "frame" and final and stream.queue.empty() and not stream.sse:
            read, bridge.relay.upstream_look = bridge.relay.upstream_look, None  # (the relay's reading of
            # this very frame, when it is: dropped here, the frame not held on)
            if stream.status is None and self._stdio is not None and _stateless(version):
                status = _error_status(data, read[1] if read is not None and read[0] is data else None)
                # (the HTTP server is the proxy: the status is its to give)
            return web.Response(body=data, status=status if status < 300 or data else 200,
                                content_type="application/json", headers=headers)
        if headers is None:
            headers = CIMultiDict()
        headers.update({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        response = web.StreamResponse(status=status if status < 300 else 200, headers=headers)
        response.content_type = "text/event-stream"
        await response.prepare(request)
        written: str | None = None  # (the stream's last event id so far: :func:`_event`)
        while kind != "end":
            event, written = _event(kind, data, event_id, written)
            await response.write(event)
            if kind != "prime" and final:
                break
            kind, data, final, event_id = await stream.queue.get()
        await response.write_eof()
        return response

    async def _get(self, request: web.BaseRequest) -> web.StreamResponse:
        # (media types are case-insensitive, RFC 9110 s8.3.1; each Accept header counts, s5.3)
        if "text/event-stream" not in ",".join(request.headers.getall("Accept", ())).lower():
            return web.Response(status=406)
        session = self._session_of(request)
        stream = PostStream(self._backlog)
        if self._stdio is not None:
            if session is not None and not self._holds(session):
                return web.json_response({"jsonrpc": "2.0", "id": None,
                                          "error": {"code": -32600, "message": "Session not found"}}, status=404)
            stream.session = session
            stream.watch = self._note_asked
            bridge = self._stdio
            self._gets.append(stream)
            bridge.standing = stream
            self._hold_get(session, stream)
            try:
                return await self._stream_to_host(request, stream, bridge)
            finally:
                self._let_go_get(session, stream)
        bridge = self._acquire(session, False)
        self._hold_get(session, stream)
        try:
            return await self._get_on(request, stream, bridge)
        finally:
            self._let_go_get(session, stream)
            self._release(bridge)

    def _hold_get(self, session: str | None, stream: PostStream) -> None:
        """A GET stream of ``session`` opens: past :data:`MAX_GETS` open for it, the first opened is ended."""
        gets = self._open_gets.get(session)
        if gets is None:
            gets = self._open_gets[session] = deque()
        gets.append(stream)
        while len(gets) > MAX_GETS:
            gets.popleft().end()

    def _let_go_get(self, session: str | None, stream: PostStream) -> None:
        gets = self._open_gets.get(session)
        if gets is None:
            return
        with contextlib.suppress(ValueError):
            gets.remove(stream)
        if not gets:
            del self._open_gets[session]

    async def _get_on(self, request: web.BaseRequest, stream: PostStream, bridge: Bridge) -> web.StreamResponse:
        upstream = bridge.upstream
        assert isinstance(upstream, HttpUpstream)
        task = asyncio.get_running_loop().create_task(upstream.forward_get(stream, request.headers))
        try:
            item = await stream.queue.get()
            if item[0] == "status":  # the upstream's answer without a stream, passed back
                return web.Response(status=stream.status or 502, body=item[1] or None, headers=stream.headers)
            if item[0] == "error":  # the upstream failed (its status and JSON-RPC error)
                return web.Response(status=stream.status or 502, body=item[1], content_type="application/json")
            stream.queue.put_nowait(item)
            return await self._stream_to_host(request, stream, bridge)
        finally:
            task.cancel()  # the host's stream ended: so does the upstream's

    async def _stream_to_host(self, request: web.BaseRequest, stream: PostStream, bridge: Bridge
                              ) -> web.StreamResponse:
        headers = CIMultiDict(stream.headers or ())  # (an upstream's GET stream: its cookies)
        headers.update({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        response = web.StreamResponse(status=200, headers=headers)
        response.content_type = "text/event-stream"
        await response.prepare(request)
        written: str | None = None  # (the stream's last event id so far: :func:`_event`)
        try:
            while True:
                kind, data, _, event_id = await stream.queue.get()
                if kind == "end":
                    break
                if kind == "open":
                    continue
                if kind in ("prime", "frame"):
                    event, written = _event(kind, data, event_id, written)
                    await response.write(event)
        finally:
            stream.closed = True
            if self._stdio is not None:
                self._gets.remove(stream)
                if bridge.standing is stream:  # the GET opened before it that is still open, if any
                    bridge.standing = self._gets[-1] if self._gets else None
        return response

    async def _delete(self, request: web.BaseRequest) -> web.StreamResponse:
        session = request.headers.get("Mcp-Session-Id")
        if self._stdio is not None:
            return self._end_session(session)
        if self._client is None:
            return web.Response(status=400)
        bridge = self._acquire(session, False)  # the session's relay, else one for this DELETE
        try:
            return await self._delete_on(request, session, bridge)
        finally:
            self._release(bridge)

    async def _delete_on(self, request: web.BaseRequest, session: str | None, bridge: Bridge) -> web.StreamResponse:
        """The host's DELETE, sent upstream once the session's notifications the host had 202 for
        have reached it; the upstream's answer passed back, and the session's relay closed. An
        upstream that fails (refused, reset, no HTTP answer, none within ``--timeout``) is the
        host's 502 or 504 with a JSON-RPC error (``_http_upstream.upstream_fault``), noted in the
        frame log; the session's relay is kept (the upstream may still hold the session). Its
        body is held to ``--max-frame-bytes`` as a GET's is: past it, 502 and
        UPSTREAM_UNAVAILABLE (the rest is not read)."""
        assert self.options.upstream is not None and self._client is not None
        held = self._live[bridge]
        headers = upstream_headers(request.headers, self.options.headers)
        await held.upstream.delivered(self.options.timeout)
        try:
            async with asyncio.timeout(self.options.timeout):
                async with self._client.delete(self.options.upstream, headers=headers,
                                               allow_redirects=False) as response:
                    read = await capped(response, self.options.max_frame)
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            status, fault, reason = upstream_fault(exc, self.options.timeout)
            bridge.relay.note("error", "s2c", f"the host's DELETE: {reason} (answered HTTP {status})")
            return web.Response(status=status, body=fault, content_type="application/json")
        body = given(response.status, read, self.options.max_frame)
        if isinstance(body, Refused):
            bridge.relay.note("error", "s2c", f"the host's DELETE: {body.reason} (answered HTTP 502)")
            return web.Response(status=502, body=body.frame, content_type="application/json")
        if session and self.bridges.get(session) is bridge:  # closed once no handler uses it
            del self.bridges[session]
            held.session = None
        return web.Response(status=response.status, body=body, headers=passed_back(response.headers, _PASS_BACK))

    # -- the 2025 sessions over a stdio upstream -------------------------------------------------
    def _session_of(self, request: web.BaseRequest) -> str | None:
        """The request's ``Mcp-Session-Id``; None also for a 2026-07-28 request (by its
        ``MCP-Protocol-Version``), which has no sessions: the header is ignored (2026-07-28
        basic/transports/streamable-http, Earlier Streamable HTTP Revisions)."""
        session = request.headers.get("Mcp-Session-Id")
        if session is not None and _stateless(request.headers.get("MCP-Protocol-Version")):
            return None
        return session

    def _opened(self, stream: PostStream) -> None:
        """``stream``'s ``initialize`` keeps its session's room no more (:meth:`_room`): its answer
        came, or its POST ended."""
        if stream.opening:
            stream.opening = False
            self._opening -= 1

    def _issue(self) -> str:
        """A new session's id (stdio upstream), held until the host's DELETE. Its room was kept
        when its ``initialize`` came (:meth:`_room`); should the sessions still be past
        ``max_sessions``, the least recently used ones with no call in flight are forgotten —
        never the new one (before, it was: the host was given an id that had already ended)."""
        while len(self._sessions) >= self.max_sessions and self._forget_idle():
            pass
        session = secrets.token_hex(16)
        self._sessions[session] = set()
        return session

    def _forget_idle(self) -> bool:
        """Forget the least recently used session with no call in flight (its host gets 404
        and initialises again); False when every one has a call in flight."""
        idle = next((s for s, calls in self._sessions.items() if not calls), None)
        if idle is None:
            return False
        self._forget_session(idle, "")
        return True

    def _room(self) -> bool:
        """Room for the session of a new ``initialize`` (stdio upstream): fewer than
        ``max_sessions`` sessions held and ``initialize`` requests under way (each keeps its
        room until its session is issued), else the least recently used session with no call in
        flight is forgotten for it; none is: no room (:meth:`_at_capacity`)."""
        if len(self._sessions) + self._opening < self.max_sessions:
            return True
        return self._forget_idle()

    def _at_capacity(self, request: web.BaseRequest, body: bytes, session: str | None,
                     look: Peek | None) -> web.Response:
        """An ``initialize`` with no room for its session (:meth:`_room`): refused unsent, as a
        server at capacity answers — 503 Service Unavailable with ``Retry-After`` (RFC 9110
        s15.6.4, s10.2.3: :data:`RETRY_AFTER` seconds) and UPSTREAM_UNAVAILABLE under its id,
        logged as refused. A session is forgotten only when idle (forgetting one with a call in
        flight would answer that call -31001 for another host's sake), and one issued past the
        bound was forgotten at once: its host, given an id that had ended, got 404 on its next
        request and initialised again, in a loop, its ``initialize`` each time sent upstream."""
        reason = (f"the proxy holds its most sessions ({self.max_sessions}), each with a call in flight: a new session "
                  "cannot be started until one of them is idle or ends")
        answer_id = as_written(look.id, body) if look is not None and look.kind == "request" else None
        response = self._refused(request, body, session, (UPSTREAM_UNAVAILABLE, reason), answer_id)
        response.set_status(503)
        response.headers["Retry-After"] = str(RETRY_AFTER)
        return response

    def _holds(self, session: str) -> bool:
        """``session`` is one the proxy issued and not ended (stdio upstream): now the most recently used."""
        calls = self._sessions.pop(session, None)
        if calls is None:
            return False
        self._sessions[session] = calls
        return True

    def _end_session(self, session: str | None) -> web.Response:
        """The host's DELETE (stdio upstream): the session ends — its later requests get 404, its
        calls still in flight UPSTREAM_CLOSED (cancelled upstream), its GET streams end. The
        process goes on: it serves every host (other sessions, stateless requests) on one
        connection; the next ``initialize`` reaches it as any new session's does."""
        if not session:
            return web.Response(status=400)
        if not self._holds(session):
            return web.json_response({"jsonrpc": "2.0", "id": None,
                                      "error": {"code": -32600, "message": "Session not found"}}, status=404)
        self._forget_session(session, "the host ended its session (HTTP DELETE) before the upstream answered")
        return web.Response(status=200)

    def _forget_session(self, session: str, reason: str) -> None:
        """The session ends (its host's DELETE, or past :data:`MAX_SESSIONS`): its calls in
        flight are stopped, its GET streams end, and the server requests sent to it that no host
        answered are forgotten (its hosts' answers to them are refused: 404, no session)."""
        calls = self._sessions.pop(session)
        asked = self._asked
        for key in [key for key in asked if key[0] == session]:
            del asked[key]
        if calls and self._stdio is not None:
            self._stdio.stopping(reason, calls)
        for stream in self._gets:
            if stream.session == session:
                stream.queue.put_nowait(("end", b"", True, None))

    def _all_bridges(self) -> list[Bridge]:
        return [self._stdio] if self._stdio is not None else list(self._live)

    async def unserved(self, grace: float) -> None:
        """The stdio upstream has exited for good (the proxy ends): its GET streams end, and the
        requests being received (a POST whose body is still coming) are read and answered —
        -31004, ``the upstream is not running`` — before the endpoint closes its connections,
        which drops what comes after (aiohttp: its handler would wait out the shutdown's 60 s
        for a body that never comes, and its host get no answer). At most ``grace`` seconds."""
        for stream in self._gets:
            stream.queue.put_nowait(("end", b"", True, None))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                while self._active:
                    await asyncio.sleep(0.01)

    async def stop(self, grace: float) -> None:
        """A stop signal, the endpoint no longer listening: the calls in flight get ``grace``
        seconds, then UPSTREAM_CLOSED on their streams (``_shutdown.wind_down``), so that no host
        is left waiting on a proxy that is gone."""
        await wind_down(self._all_bridges, grace)
        await asyncio.sleep(0.05)  # the response writers send those answers

    async def aclose(self) -> None:
        for task in list(self._releasing):
            task.cancel()  # (each closes its relay and upstream on its way out)
        if self._releasing:
            await asyncio.wait(set(self._releasing))
        for bridge in self._all_bridges():
            bridge.close()  # the verdicts still to write
        for upstream in list(self._upstreams):
            with contextlib.suppress(Exception):
                await upstream.aclose()
        if self._posts is not None:
            self._posts.close()
        if self._client is not None:
            await self._client.close()


def _closing_failed(bridge: Bridge, exc: Exception) -> None:
    """A fault of the proxy's as it closes ``bridge`` (:meth:`HttpHost._close`): said on stderr
    and in the relay's frame log."""
    said(bridge.relay, failed("closing a relay", exc))


KEEPALIVE: Final = 75.0
"""Seconds an HTTP connection is kept with no request under way: idle between requests, or
still sending a request's head (aiohttp's own bound for both, whose default is an hour); a
request's body has ``--timeout`` (``HttpHost._body_late``)."""
_UNREAD: Final = 0.0
"""aiohttp's ``lingering_time`` for the endpoint: seconds it reads on (and drops) the rest of a
request's body after its answer, when the handler answered before the body came whole — 408
(``HttpHost._body_late``), 413 past ``--timeout`` (``HttpHost._post_on``), 403 (Origin), 421
(Host), 404 (another path), 405, a GET's or a DELETE's body. None: the connection is closed once
the answer is written (the kernel resets it if bytes wait unread). aiohttp's default, 10 s, let
a host that sends on (a byte at a time, or as fast as it can) hold its connection and have the
proxy read it for 10 s after the answer."""


class _OneLine(logging.Handler):
    """aiohttp's server log (a host's request it cannot parse, answered 400 by it: duplicate
    ``Content-Type`` or ``Host`` headers, a line past 8190 bytes, a control character in a header
    value; a handler's exception, answered 500): one stderr line each, ``mcp-verdict proxy:``,
    the message and ``ExceptionType: message`` on one line, cut at 300 characters, every control
    character shown as its escape (the host's bytes are in it) — never a traceback."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            exc = record.exc_info[1] if record.exc_info else None
            if exc is not None:
                text = f"{text}: {type(exc).__name__}: {' '.join(str(exc).split())}"
            told(text)
        except Exception:  # a log line never stops the endpoint
            self.handleError(record)


def _endpoint_log() -> logging.Logger:
    """The logger the endpoint's aiohttp server writes to (:class:`_OneLine`; its own, not
    aiohttp's ``aiohttp.server``, which the application may configure)."""
    logger = logging.getLogger("mcp_verdict.proxy.endpoint")
    if not logger.handlers:
        logger.addHandler(_OneLine(logging.WARNING))
        logger.propagate = False
    return logger


async def serve(options: ProxyOptions, recorder: Recorder | None, ready: asyncio.Event | None,
                bound: list[str] | None = None, *, hosts: list[HttpHost] | None = None,
                max_sessions: int = MAX_SESSIONS, keepalive: float = KEEPALIVE) -> int:
    """Serve until cancelled. ``bound`` receives the URL the endpoint listens on, ``hosts`` the
    :class:`HttpHost` (the tests count what it holds); ``keepalive``: :data:`KEEPALIVE`."""
    assert options.listen is not None
    host = HttpHost(options, recorder, max_sessions=max_sessions)
    if hosts is not None:
        hosts.append(host)
    await host.start()
    # aiohttp's low-level server: one endpoint needs no application, router or middleware chain
    # (HTTP→stdio, alternating runs: 3–5% less proxy CPU per call without them)
    # lingering_time 0: an answer given before its request's body came whole closes the connection
    # once written, the rest unread (aiohttp's default reads it on for 10 s: _UNREAD)
    path = options.path

    async def endpoint(request: web.BaseRequest) -> web.StreamResponse:
        if request.path != path:
            return web.Response(status=404)
        return await host.handle(request)

    runner = web.ServerRunner(web.Server(endpoint, handler_cancellation=True, access_log=None,
                                         logger=_endpoint_log(), keepalive_timeout=keepalive,
                                         lingering_time=_UNREAD))
    await runner.setup()
    site = web.TCPSite(runner, options.listen[0], options.listen[1], reuse_address=True)
    await site.start()
    server: Any = site._server
    sockets = server.sockets if server is not None else ()
    port = sockets[0].getsockname()[1] if sockets else options.listen[1]
    name = options.listen[0]
    url = f"http://{'[' + name + ']' if ':' in name else name}:{port}{options.path}"  # an IPv6 address in brackets
    if bound is not None:
        bound.append(url)
    # SIGTERM and SIGINT stop the service (HttpHost.stop: the grace, then errors), the answers
    # forwarded and not judged yet are judged, and the records are written; the handlers are
    # set before the endpoint is announced
    stop = asyncio.Event()
    with stop_signals(stop):
        print(f"mcp-verdict proxy listening on {url}", file=sys.stderr, flush=True)
        if ready is not None:
            ready.set()
        stopped = asyncio.ensure_future(stop.wait())
        stdio = host._stdio_upstream
        finished = asyncio.ensure_future(stdio.wait()) if stdio is not None else None
        try:
            await asyncio.wait({stopped} if finished is None else {stopped, finished},
                               return_when=asyncio.FIRST_COMPLETED)
            if stopped.done():
                await site.stop()  # no new connection; the calls in flight get the grace
                await host.stop(options.grace)
            if finished is not None and finished.done() and not stopped.done():
                assert stdio is not None
                await site.stop()  # no new connection; a request being received is still answered
                await host.unserved(options.grace)
                return stdio.exit_status()  # (the rule: _run's docstring)
            return 0
        finally:
            for task in (stopped, finished):
                if task is not None:
                    task.cancel()
            await runner.cleanup()
            await host.aclose()
