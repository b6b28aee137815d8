"""The upstream over Streamable HTTP: a POST per message, answers as JSON or server-sent events.

basic/transports/streamable-http (2026-07-28; 2025-03-26 … 2025-11-25 for sessions):

- every message is its own POST with ``Accept: application/json, text/event-stream``; a
  request is answered by one JSON body or an SSE stream (notifications, then the answer); a
  notification or a response by ``202 Accepted``;
- 2026-07-28: ``MCP-Protocol-Version`` (from the request's ``_meta``), ``Mcp-Method``,
  ``Mcp-Name`` and ``Mcp-Param-{name}`` (the tool's ``x-mcp-header`` properties, from the last
  ``tools/list``; none for a tool whose annotations break the spec's constraints) are written
  from the body when the host did not send them (a stdio host), with the Base64 sentinel for
  values that are not plain ASCII (``_params``); closing the response stream is the
  cancellation;
- 2025 sessions: the ``Mcp-Session-Id`` the ``initialize`` answer carries is sent on every
  later request, with ``MCP-Protocol-Version`` (2025-06-18 and later); a host's
  ``notifications/cancelled`` is POSTed (and the request's stream closed); a GET stream carries
  the server's own messages (a stdio host's: the proxy's own, reopened after each end or break,
  with ``Last-Event-ID`` once the server gave event ids, :meth:`HttpUpstream._listen`); an SSE
  stream that ends before its answer is resumed with a GET and ``Last-Event-ID`` (priming events
  give the id); the session is ended with DELETE; a stdio host's session that the server ends
  (404) is started again with the host's ``initialize`` and the refused requests sent again in
  it (:meth:`HttpUpstream._renew`: the proxy is the client that MUST start a new one);
- a host's own headers (HTTP host side) go upstream unchanged, ``Authorization`` included
  (never logged); ``--header`` adds headers of its own.

Every failure ends as a frame for the host: a connection refused or an HTTP error without a
JSON-RPC body is UPSTREAM_UNAVAILABLE for its request, a stream closed before the answer is
UPSTREAM_CLOSED, an oversized body is refused by the limit. An HTTP error whose JSON-RPC error
has a null id (the official SDK's way, e.g. its 406 for an Accept header it rejects) answers the
request of its exchange: an HTTP host gets it on that POST, with the status; a stdio host, which
pairs answers by id alone, gets UPSTREAM_UNAVAILABLE under its request's id first (the upstream's
message in it), then the upstream's error as any other frame.

A host frame that answers no request (a notification, a response) is POSTed and its HTTP answer
awaited (:meth:`HttpUpstream.delivery`: an HTTP host gets that status, not a 202 of the
proxy's); one the upstream refuses (an error status) or never gets (refused, reset, garbage, no
answer within ``--timeout``) is noted in the frame log (an ``error`` record after its
``message``), and the HTTP host gets the status, or 502/504 and the JSON-RPC error
(:func:`upstream_fault`).

A stdio host's frames reach the upstream in its order (each its own POST, maybe on its own
connection: the server takes them in the order they come): a frame it sends after a
notification or a response waits until that one's POST has its answer (a server's 202: it took
the message), so a request never overtakes the ``notifications/initialized``, the
``notifications/cancelled`` or the answer to a server request sent before it. Requests do not
wait for each other (an answer may be a long event stream). The wait is bounded: ``--timeout``
counts from the host's sending, the wait included, and when the frame waited for gets no
answer in that time, those waiting are not sent (a request gets UPSTREAM_TIMEOUT; a
cancellation of a request not sent is not sent either). A ``notifications/cancelled`` also
waits for the request it cancels to be taken (its POST's response head:
:meth:`HttpUpstream._follow`); frames after it do not wait for that. An HTTP host orders its own
POSTs: its notification's POST is answered once the upstream answered it
(:attr:`HttpUpstream.delivery`).

``--timeout`` bounds every upstream exchange, one way for each kind: a request's answer by the
relay's deadline (UPSTREAM_TIMEOUT, cancelled upstream), which also bounds the proxy's own
resume GET of its stream (``Last-Event-ID``); an exchange that answers no request (the POST of a
notification or a response, from its sending; the host's GET, resume or not, up to its response headers, and its
body when it opens no stream; the host's DELETE; the proxy's own GET stream for a stdio host, up
to its response headers) by ``asyncio.timeout`` (504 and UPSTREAM_TIMEOUT; for the proxy's own
GET, an ``error`` record and a reopening). An event stream once open is not bounded: a GET stream may stay quiet for
hours, and the host closes it when it wants. The host's GET stream ending is noted in the frame
log: ``eof`` when the upstream ended it, ``error`` when it broke (a reset, a truncated chunk).

aiohttp is the client: measured about 4× less CPU per request than httpx2 on this machine
(README, "The proxy"). A request's POST goes on aiohttp's own connection protocol and parser,
without a ``ClientSession`` request (``_http_posts``: the session's objects and bookkeeping
were about a fifth of the proxy's CPU per call on HTTP→HTTP); the session serves the rest (the
GETs, the DELETE, the POSTs of notifications and responses) and any POST that path cannot
take as the session would.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

import aiohttp
import orjson
from aiohttp.client_proto import ResponseHandler
from aiohttp.connector import Connection
from multidict import CIMultiDict

from ..frames import SSEParser, id_key
from ..frames._jsonrpc import peek
from ..frames._routing_headers import NAMED, header_value
from ..frames._routing_headers import PROTOCOL_VERSION_KEY as _META_VERSION
from ..frames._routing_headers import STATELESS as _STATELESS
from ..frames._routing_headers import stateless as _stateless
from ..verdict._peer_text import cut, neutral
from ._codes import (
    TOO_LARGE,
    UPSTREAM_CLOSED,
    UPSTREAM_TIMEOUT,
    UPSTREAM_UNAVAILABLE,
    cancelled_request,
    fault_frame,
    with_id,
)
from ._faults import failed, said, told
from ._http_posts import Answer, Posts, posts_for, silent
from ._params import exact_arguments, param_headers
from ._relay import Key

if TYPE_CHECKING:
    from aiohttp.tracing import Trace

    from ._bridge import Bridge, HostStream

_HOP: Final = frozenset({"connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade"})
"""Hop-by-hop (RFC 9110 s7.6.1; with every ``Proxy-*`` header and every name ``Connection`` lists):
never forwarded."""
_WRITTEN: Final = frozenset({"host", "content-length", "accept-encoding"})
"""Written by the proxy's client for its own request (``Accept-Encoding``: ``identity``)."""
_ACCEPT: Final = "application/json, text/event-stream"
_RESUMES: Final = 3
_LISTEN_FIRST: Final = 0.25
"""Seconds before the proxy's own GET stream is reopened the first time (no ``retry`` given)."""
_LISTEN_MOST: Final = 30.0
"""The longest wait between two openings of it (the wait doubles from :data:`_LISTEN_FIRST` after
each opening that ended soon: a server that ends it at once costs one GET per 30 s at most)."""
_LISTEN_RETRY_LEAST: Final = 100
_LISTEN_RETRY_MOST: Final = 60_000
"""The shortest and the longest ``retry`` (ms) honoured as is (a server's 0 would reopen in a loop)."""
_IDENTITY: Final = {"Accept-Encoding": "identity"}
"""On every upstream request: the bytes judged are the bytes the server wrote, uncompressed."""
_POST_HEADERS: Final = {"Content-Type": "application/json", "Accept": _ACCEPT}
"""The proxy's own headers on a POST (before ``--header``'s)."""
_FIRST: Final = re.compile(rb"[ \t\n\r\x0b\x0c]*([^ \t\n\r\x0b\x0c])")
"""The first byte that is not ASCII whitespace (what ``bytes.strip`` strips)."""
_GET_BACK: Final = ("Allow", "Content-Type", "Location", "Mcp-Session-Id", "Retry-After", "WWW-Authenticate")
"""The headers of an upstream's answer to a host's GET that opens no stream passed back with it
(``Set-Cookie`` too: :func:`passed_back`)."""
_SET_COOKIE: Final = "Set-Cookie"
_CONTROL: Final = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
"""A control character no header field value holds (RFC 9110 s5.5; HTAB allowed)."""
_JSON: Final = {"Content-Type": "application/json"}
_INITIALIZED: Final = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
"""Sent after a new session's ``initialize`` when the host's own was never seen."""
_BEHIND_LAPSED: Final = "not sent: the upstream did not answer the host's notification or response before it " \
                        "within {:g} s"
"""Why a stdio host's frame that waited for an earlier one was not sent (:meth:`HttpUpstream.send`)."""
_NEVER_SENT: Final = "not sent: the request it cancels was never sent (it waited for the upstream to answer the " \
                      "host's notification or response before it)"
"""Why a stdio host's cancellation that waited for its request's POST is not sent (:meth:`HttpUpstream._follow`)."""


class Delivery(NamedTuple):
    """The upstream's answer to a host frame that answers no request (a notification, a
    response), as the HTTP host passes it back: status, headers and body (a failure: 502 or 504
    and the proxy's JSON-RPC error, :func:`upstream_fault`)."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    lapsed: bool = False
    """The upstream did not answer it within ``--timeout``, or it was not sent, the one before it
    having lapsed: a stdio host's frames that waited behind it are not sent (:meth:`HttpUpstream.send`)."""


_HEAD: Final = 64 * 1024
"""The first bytes of a body past the limit kept for its id (``frames.recover_id``)."""


class _Past(NamedTuple):
    """What :func:`capped` read of a body past its limit."""

    head: bytes
    """Its first :data:`_HEAD` bytes (those read: the chunk that passed the limit included)."""
    size: int
    """The bytes read."""


async def capped(response: aiohttp.ClientResponse | Answer, limit: int) -> bytes | _Past:
    """The response's body, or past ``limit`` bytes what was read of it (:class:`_Past`; the
    rest is not read). A length known and within the limit: one read (of what is there, when
    the body came whole with its head on ``_http_posts``' connection); else chunks until the
    end or past the limit."""
    length = response.content_length
    if length is not None and length <= limit:
        if type(response) is Answer and response.content.is_eof():  # (came whole with its head: no wait)
            return response.content.read_nowait()
        return await response.read()
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        chunks.append(chunk)
        if size > limit:
            return _Past(_head(chunks), size)
    return b"".join(chunks)


def _head(chunks: list[bytes]) -> bytes:
    """The first :data:`_HEAD` bytes of ``chunks`` (joined up to there only)."""
    kept: list[bytes] = []
    size = 0
    for chunk in chunks:
        kept.append(chunk[:_HEAD - size])
        size += len(kept[-1])
        if size >= _HEAD:
            break
    return b"".join(kept)


def upstream_headers(host: Mapping[str, str] | None, extra: Sequence[tuple[str, str]],
                     own: Mapping[str, str] | None = None) -> CIMultiDict[str]:
    """The headers of every upstream request (POST, GET, DELETE): the host's, less the hop-by-hop
    ones and those the client writes; then ``own`` (the proxy's for this request), then
    ``--header``'s (``extra``), each replacing a header of its name; ``Accept-Encoding:
    identity`` last (even over a ``--header`` naming another encoding)."""
    items = list(host.items()) if host is not None else []
    named = {token.strip().lower() for name, value in items if name.lower() == "connection"
             for token in value.split(",")}
    out: CIMultiDict[str] = CIMultiDict(
        (name, value) for name, value in items
        if (lower := name.lower()) not in _HOP and lower not in _WRITTEN and lower not in named
        and not lower.startswith("proxy-"))
    for name, value in (*(own or {}).items(), *extra, *_IDENTITY.items()):
        out[name] = value
    return out


def upstream_fault(exc: BaseException, timeout: float) -> tuple[int, bytes, str]:
    """A host's GET or DELETE whose upstream request failed (``exc``): (the HTTP status the host
    gets, its body, the reason). 504 Gateway Timeout and UPSTREAM_TIMEOUT when the upstream did
    not answer within ``timeout`` seconds (RFC 9110 s15.6.5); else 502 Bad Gateway (s15.6.3) and,
    as for a POST (:meth:`HttpUpstream._post`), UPSTREAM_CLOSED for a connection the upstream
    closed before its answer, UPSTREAM_UNAVAILABLE for the rest (refused, reset, no HTTP answer).
    The body is the JSON-RPC error, with a null id (no request to answer)."""
    if isinstance(exc, TimeoutError):
        status, code, reason = 504, UPSTREAM_TIMEOUT, f"no answer within {timeout:g} s"
    elif isinstance(exc, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError)):
        status, code, reason = 502, UPSTREAM_CLOSED, f"the upstream closed the connection before answering: {exc}"
    else:
        status, code, reason = 502, UPSTREAM_UNAVAILABLE, f"the upstream request failed: {type(exc).__name__}: {exc}"
    return status, fault_frame(code, reason), reason


def event_stream(content_type: str) -> bool:
    """A ``Content-Type`` that is ``text/event-stream``, whatever its case and parameters (RFC 9110
    s8.3.1: type and subtype are case-insensitive; ``Text/Event-Stream`` is an event stream)."""
    return content_type.partition(";")[0].strip().lower() == "text/event-stream"


def host_status(status: int) -> int:
    """The status an HTTP host gets for the upstream's ``status``: the same, but 502 Bad Gateway
    for an informational one (1xx: RFC 9110 s15.2, no final response; a 101 switches to a
    protocol no request of the proxy's asks for), which the host's response, final, cannot carry."""
    return 502 if status < 200 else status


class Refused(NamedTuple):
    """An upstream's answer a host is not given as it came (:func:`given`): the JSON-RPC error
    with a null id the host's 502 carries instead, and why."""

    frame: bytes
    reason: str


def given(status: int, body: bytes | _Past, limit: int) -> bytes | Refused:
    """The body of the upstream's answer to a host's exchange that answers no request (a
    notification's POST, a GET that opens no stream, a DELETE), as the host is given it with the
    upstream's status; or, as :func:`upstream_fault` gives a failure, what the host's 502 carries
    instead: for a body past ``limit`` bytes (:func:`capped`: the rest not read), or an
    informational final status (:func:`host_status`)."""
    if not isinstance(body, bytes):
        reason = f"the upstream answered HTTP {status} with a body past {limit} bytes"
    elif status < 200:
        reason = f"the upstream answered HTTP {status}, no final status"
    else:
        return body
    return Refused(fault_frame(UPSTREAM_UNAVAILABLE, reason), reason)


class CheckedConnector(aiohttp.TCPConnector):
    """aiohttp's connector, whose idle kept-alive connections are checked as they are reused: one
    on which the upstream wrote while it was idle (a response no request asked for, which the next
    request would read as its own answer: RFC 9112 s9.3.2) is closed instead, and the next idle
    one taken, or a new one opened (aiohttp reuses any still open). ``_http_posts`` checks its own
    alike (:func:`silent`). A connection just opened is not checked: a server that writes first
    gets the request all the same, as from aiohttp, never a loop of connects.

    Done in ``connect``, the connector's coroutine each request's connection comes from
    (``(req, traces, timeout)`` from aiohttp 3.8 to 3.14, and overridden by other libraries too;
    not its private ``_get``), on what it returns (``Connection.protocol``: aiohttp's
    ``ResponseHandler``, whose ``should_close`` says bytes came), so on any aiohttp version: one
    set lookup and a coroutine frame per request. ``force_close`` would cost a connect per
    request instead: each notification's POST, and each of a stdio host's POSTs once the
    upstream set a cookie."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._used: weakref.WeakSet[ResponseHandler] = weakref.WeakSet()
        """The connections handed out before: those reused."""

    async def connect(self, req: aiohttp.ClientRequest, traces: list[Trace], timeout: aiohttp.ClientTimeout
                      ) -> Connection:
        while True:
            connection = await super().connect(req, traces, timeout)
            proto = connection.protocol
            if proto is None:
                return connection
            if proto not in self._used:  # (just opened)
                self._used.add(proto)
                return connection
            if silent(proto):
                return connection
            connection.close()  # (written on while idle: closed, never reused; the next one)


def client_session(limit: int, sock_connect: float, *, cookies: bool) -> aiohttp.ClientSession:
    """The proxy's HTTP client: no decompression, and ``Accept-Encoding: identity`` on every
    request (aiohttp would otherwise ask for gzip and deflate, and a compressed body, which is
    not decompressed here, would be taken as the message).

    ``cookies``: the client keeps the cookies its upstream sets and sends them back (RFC 6265
    s5.3, s5.4), those of an upstream given by its IP address too (aiohttp's jar takes none from
    those unless told: a load balancer reached at 10.0.0.5 pins its clients by a cookie as one
    reached by name does). That is the stdio host's client: the proxy is the only client of the
    upstream there. Else (the HTTP hosts' one client) it keeps none: each host keeps its own,
    passed back to it (:func:`passed_back`) and sent upstream on its requests as it wrote them,
    so that a cookie one host's answer set never goes out on another host's request."""
    return aiohttp.ClientSession(
        connector=CheckedConnector(limit=limit, enable_cleanup_closed=True),
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=sock_connect), auto_decompress=False,
        skip_auto_headers=("User-Agent",), headers=_IDENTITY,
        cookie_jar=aiohttp.CookieJar(unsafe=True) if cookies else aiohttp.DummyCookieJar())


def passed_back(headers: Mapping[str, str] | None, names: Sequence[str]) -> CIMultiDict[str]:
    """The headers of an upstream's answer that its host gets with it: ``names`` and
    ``Set-Cookie``, each with every value it has (a header that may repeat, RFC 9110 s5.3 and
    RFC 6265 s3: several cookies are several ``Set-Cookie`` fields), in the upstream's order; a
    value holding a control character other than HTAB is left out (RFC 9110 s5.5: no field value
    holds one; aiohttp refuses to write it, and the host's whole response would fail)."""
    out: CIMultiDict[str] = CIMultiDict()
    if headers is None:
        return out
    getall = getattr(headers, "getall", None)
    for name in (*names, _SET_COOKIE):
        values = getall(name, ()) if getall is not None else (headers[name],) if name in headers else ()
        for value in values:
            if _CONTROL.search(value) is None:
                out.add(name, value)
    return out


def _lapsed(ahead: asyncio.Task[Delivery]) -> bool:
    """The delivery ``ahead`` (done) lapsed: no answer within ``--timeout`` (:attr:`Delivery.lapsed`)."""
    return not ahead.cancelled() and ahead.exception() is None and ahead.result().lapsed


def _reading(task: asyncio.Task[None]) -> bool:
    """The POST ``task`` (:meth:`HttpUpstream._post`, maybe behind :meth:`HttpUpstream._post_behind`)
    has its response head: its coroutine is suspended in :meth:`HttpUpstream._read`, which it
    awaits once the head came (not before: a connection, the request's writing, a renewal)."""
    coro: Any = task.get_coro()
    while getattr(coro, "cr_code", None) in _POSTING:
        coro = coro.cr_await
    return getattr(coro, "cr_code", None) is _READING


def _moot(response: aiohttp.ClientResponse | Answer) -> str | None:
    """Why a stdio host's cancellation waiting for its request (:meth:`HttpUpstream._follow`) is not
    sent, the request's POST having this response head: the upstream answered the request (a
    JSON body, an error status, anything but an event stream: the exchange holds its whole
    answer); None for an event stream (the request under way: the cancellation is sent)."""
    ctype = response.headers.get("Content-Type", "")
    if 200 <= response.status < 300 and event_stream(ctype):
        return None
    shown = f", {neutral(cut(ctype, 100))}" if ctype else ""
    return f"not sent: the upstream answered the request it cancels (HTTP {response.status}{shown}) before the " \
           "request was taken: nothing is in progress to cancel"


def _answer_to(body: bytes, request_id: str, stream: bool) -> Mapping[str, Any] | None:
    """The message answering ``request_id`` in an answer's body (one JSON body, or the events of
    an event stream: :class:`SSEParser`); None when it holds none."""
    datas = [event.data for event in SSEParser().feed(body)] if stream else [body]
    for data in datas:
        look = peek(data)
        if look.kind in ("response", "error") and look.id == request_id and look.message is not None:
            return look.message
    return None


class HttpUpstream:
    """One upstream MCP endpoint over Streamable HTTP, for one host conversation."""

    def __init__(self, bridge: Bridge, url: str, *, headers: Sequence[tuple[str, str]] = (), limit: int,
                 timeout: float, client: aiohttp.ClientSession | None = None, posts: Posts | None = None,
                 stdio_host: bool = True) -> None:
        self.bridge = bridge
        self.url = url
        self.headers = tuple(headers)
        self.limit = limit
        self.timeout = timeout
        self.stdio_host = stdio_host
        """The host speaks stdio: the proxy holds the session and writes the MCP headers itself."""
        self.shared = False
        """Its relay serves the stateless requests of several HTTP hosts (an answer may answer only
        the request of the exchange it came on: :meth:`_exchange_of`)."""
        bridge.relay.withholds = self.withholds  # (the proxy's own cancellations' records)
        self._client = client
        self._own_client = client is None
        self._lean = posts
        """The requests' POSTs without the session's per-request work (``_http_posts``; None:
        through the session)."""
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._posts: dict[Key, asyncio.Task[None]] = {}
        self._host_of: dict[Key, Mapping[str, str]] = {}
        """The headers of the HTTP host's POST of each request in flight (each request of a
        2025-03-26 batch: :meth:`batch_opened`): the proxy's own ``notifications/cancelled`` of
        it goes under them (its session, its credentials)."""
        self._batch_of: dict[Key, tuple[Key, ...]] = {}
        """The requests of each batch POST in flight, by its first request (the POST's key)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self.delivery: asyncio.Task[Delivery] | None = None
        """The POST of the last host frame sent that answers no request (a notification, a
        response): its :class:`Delivery` (the HTTP host awaits it, for the status; a stdio
        host's frames sent after it wait for it: :meth:`_waits_for`, which drops it once done)."""
        self._held: set[Key] = set()
        """A stdio host's requests waiting for it, not yet sent (a cancellation of one is not sent
        either). (No more fields: past 29, CPython 3.11 keeps an instance's fields in a dict of
        its own, and every ``self.`` read on the request path costs more: ~1,000 instructions
        per request measured, callgrind.)"""
        self._get: asyncio.Task[None] | None = None
        self._exchange = 0
        self._finished = asyncio.Event()
        self._readable = asyncio.Event()
        """Set while the host takes frames: cleared, the response bodies are not read further
        (their bytes wait in the sockets; the server's writes block, as with a direct connection)."""
        self._readable.set()
        self._last_headers: tuple[tuple[tuple[str, str], ...] | None, CIMultiDict[str]] | None = None
        """(an HTTP host's headers, the upstream POST's headers made of them), for the next POST."""
        self._init: bytes | None = None
        self._initialized: bytes | None = None
        """A stdio host's ``initialize`` and ``notifications/initialized``: what starts a new
        session when the upstream ends the one they started (:meth:`_renew`)."""
        self._renewing = asyncio.Lock()
        self._renewals = 0
        """Renewals tried (:meth:`_renew`), each one initialize sent (its id: :meth:`_initialize_again`)."""
        self._untaken: dict[Key, list[asyncio.Future[str | None]]] = {}
        """A stdio host's cancellations that wait for the request they cancel to be taken by the
        upstream, by the key of the POST that carries it (:meth:`_follow`): each is told, when that
        POST has its response head, None (an event stream: the request is under way), or why it
        is not to be sent (the answer came whole; the request was never sent)."""
        self._failed_renewal: tuple[str, str] | None = None
        """Why the last renewal failed, and the ended session it was for (None once one succeeds):
        the GET stream meeting that end takes the failure and starts no renewal of its own (one
        end, one renewal)."""

    def pause_reading(self) -> None:
        """The host's pipe is full (a stdio host not reading): stop reading the upstream's bodies."""
        self._readable.clear()

    def resume_reading(self) -> None:
        self._readable.set()

    async def start(self) -> None:
        if self._client is None:
            self._client = client_session(256, min(self.timeout, 30.0), cookies=True)
            self._lean = posts_for(self.url, self._client, limit=256, connect=min(self.timeout, 30.0))

    async def wait(self) -> None:
        await self._finished.wait()

    # -- sending ---------------------------------------------------------------------------------
    routes_by_key = True  # each request is its own POST, its answer routed back by its key

    def send(self, data: bytes, *, key: Key | None = None, stream: HostStream | None = None,
             headers: Mapping[str, str] | None = None, own: bool = False) -> bool:
        if data.find(b"notifications/cancelled") >= 0 and key is None:
            cancel, request = cancelled_request(data)
            if cancel:
                cancels = id_key(request)
                if headers is None:  # (the proxy's own: under the headers of the host's POST of it)
                    headers = self._host_of.get(cancels)
                # closing the response stream is the cancellation — not of a 2025-03-26 batch's
                # stream that still carries the answers to its other requests
                unsent = self._unsent(cancels)
                notifies = unsent or self._cancels_by_notification(headers)
                # (the proxy's own, of a request it gave up --timeout after sending it: at once)
                carrier = self._untaken_post(cancels) if notifies and not unsent and self.stdio_host and not own \
                    else None
                if carrier is not None:  # (it follows the request once that is taken: closed then)
                    self._follow(data, headers, cancels, carrier)
                    return True
                if self._closes(cancels):
                    self._posts.pop(cancels).cancel()  # (its headers dropped as it ends: the
                    # cancellations of the batch's other requests, said next, go under them too)
                if unsent:
                    self._held.discard(cancels)  # (its task may never have run)
                    if self._untaken:  # (the cancellations of the batch's other requests: not sent either)
                        self._took(cancels, _NEVER_SENT)
                    return True  # (withholds said so)
                if not notifies:
                    return True  # 2026-07-28: no notification on HTTP (Bridge notes it: withholds)
        if key is None:
            loop = asyncio.get_running_loop()
            delivery = loop.create_task(self._deliver(data, headers, self._waits_for(), loop.time() + self.timeout))
            self.delivery = delivery
            self._tasks.add(delivery)
            delivery.add_done_callback(self._tasks.discard)
            return True
        if self.delivery is None or (ahead := self._waits_for()) is None:  # (one test when none is ahead)
            task = asyncio.get_running_loop().create_task(self._post(data, key, stream, headers))
        else:
            self._held.add(key)
            task = asyncio.get_running_loop().create_task(self._post_behind(ahead, data, key, stream, headers))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self._posts[key] = task
        if headers is not None and not self.stdio_host:
            self._host_of[key] = headers
        return True

    def _waits_for(self) -> asyncio.Task[Delivery] | None:
        """The stdio host's notification or response sent last, while it has no answer: what a
        frame it sends now waits for (:attr:`delivery`, dropped once done); None for an HTTP
        host, which orders its own POSTs."""
        ahead = self.delivery
        if ahead is not None and ahead.done() and self.stdio_host:
            ahead = self.delivery = None
        return ahead if self.stdio_host else None

    def _untaken_post(self, cancels: Key) -> Key | None:
        """The key of the POST that carries the request ``cancels`` (its own, or its 2025-03-26
        batch's, held by the batch's first request) while that POST has no response head yet
        (waiting for a notification before it, or sent and unanswered); None once it has one, or
        when none is in flight. Asked of a cancellation only: the POST's coroutine is looked at
        (:func:`_reading`), no mark is kept per request."""
        post = cancels if cancels in self._posts else self.bridge.batch_head(cancels)
        task = self._posts.get(post)
        return post if task is not None and not task.done() and not _reading(task) else None

    def _follow(self, data: bytes, host: Mapping[str, str] | None, cancels: Key, post: Key) -> None:
        """Send the stdio host's cancellation ``data`` of the request ``cancels`` once the upstream
        has taken it: once the POST that carries it (``post``: :meth:`_untaken_post`) has its
        response head, so that the server has the request before its cancellation (a server that
        gets the cancellation first ignores it, an unknown request, and runs the request to its
        end: MCP basic/utilities/cancellation). Frames the host sends after it do not wait for
        it: they would wait for a request (on a server that answers with JSON, its whole answer).
        Bounded by ``--timeout``: :meth:`_cancel_taken`. (The proxy's own cancellation, of a
        request it gave up ``--timeout`` after sending it, goes at once, as before.)"""
        loop = asyncio.get_running_loop()
        taken: asyncio.Future[str | None] = loop.create_future()
        self._untaken.setdefault(post, []).append(taken)
        task = loop.create_task(self._cancel_taken(data, host, cancels, post, self._posts[post], taken,
                                                   self._waits_for(), loop.time() + self.timeout))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _cancel_taken(self, data: bytes, host: Mapping[str, str] | None, cancels: Key, post: Key,
                            carrier: asyncio.Task[None], taken: asyncio.Future[str | None],
                            ahead: asyncio.Task[Delivery] | None, deadline: float) -> None:
        """:meth:`_follow`'s wait, up to ``deadline`` (``--timeout`` from the host's sending), for the
        POST ``carrier`` to have its response head (``taken``) or to end; then the request's POST is
        closed (unless another request of its batch is still awaited on it) and the cancellation
        sent, after ``ahead`` as any notification. When the head says the upstream answered the
        request (a JSON body, an error status: its processing is over) or the request was never
        sent, the cancellation is not sent: a cancellation names only a request its sender
        believes in progress (basic/utilities/cancellation, Behavior Requirements 1); it is
        noted in the frame log. A POST that ends without a head (refused, reset), or no head
        within the time (a server holding a JSON answer back: the request was sent ``--timeout``
        or more before), and the cancellation is sent. A fault of the proxy's or of its HTTP
        library's on the way is said (stderr, the frame log: not sent), as :meth:`_deliver` says
        one; it never ends the task unseen."""
        loop = asyncio.get_running_loop()
        try:
            try:
                await asyncio.wait((taken, carrier), timeout=max(0.0, deadline - loop.time()),
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting = self._untaken.get(post)
                if waiting is not None and taken in waiting:
                    waiting.remove(taken)
                    if not waiting:
                        del self._untaken[post]
            why = taken.result() if taken.done() else None
            if why is not None:
                self._undelivered(data, why, "")
                return
            if self._posts.get(post) is carrier and not any(
                    other != cancels and self.bridge.relay.is_waiting(other) for other in self.bridge.batch_of(post)):
                del self._posts[post]
                carrier.cancel()  # (closing its stream: a request under way is cancelled both ways)
            await self._deliver(data, host, ahead, loop.time() + self.timeout)
        except Exception as exc:  # (its task died unseen: the cancellation lost, nothing said)
            reason = failed("sending it upstream", exc)
            told(f"the host's frame: {reason}")
            self._undelivered(data, reason, "")

    def _took(self, post: Key, why: str | None) -> None:
        """The POST ``post`` has its response head (``why``: None for an event stream, the request
        under way; else why a cancellation of it is not sent), or never went: each cancellation
        waiting for it is told (:meth:`_cancel_taken`)."""
        for taken in self._untaken.pop(post, ()):
            if not taken.done():
                taken.set_result(why)

    def _closes(self, cancels: Key) -> bool:
        """A cancellation of the request ``cancels`` closes its POST: one in flight, unless it is
        a 2025-03-26 batch's whose stream still carries the answers to its other requests."""
        relay = self.bridge.relay
        return cancels in self._posts and not any(
            other != cancels and relay.is_waiting(other) for other in self.bridge.batch_of(cancels))

    def _unsent(self, cancels: Key) -> bool:
        """A cancellation of the request ``cancels`` takes it back before it was sent: its POST
        waits for an earlier notification or response of a stdio host's (:attr:`_held`)."""
        return cancels in self._held and self._closes(cancels)

    def batch_opened(self, keys: tuple[Key, ...]) -> None:
        """The host's frame just sent was a batch opening ``keys`` (one POST, held by the first):
        the POST's headers are each request's, for the proxy's own cancellation of any of them."""
        headers = self._host_of.get(keys[0])
        if headers is not None:
            self._batch_of[keys[0]] = keys
            for key in keys[1:]:
                self._host_of[key] = headers

    def withholds(self, data: bytes, own: bool, headers: Mapping[str, str] | None = None) -> str | None:
        """The frame-log note of a ``notifications/cancelled`` (the host's, or the proxy's
        ``own``) that :meth:`send` will not POST, said before it is recorded; None for any other
        frame. 2026-07-28 cancels a request by closing its stream; the proxy's own on behalf of
        an HTTP host goes under the headers of the host's POST of the request, and where the
        request is no longer in flight it knows no session to send it in
        (:meth:`_cancels_by_notification`); for a stdio host whose upstream gave neither a
        session nor a protocol version (no ``initialize`` answer), the note says just that:
        which revision the upstream speaks is not known."""
        if data.find(b"notifications/cancelled") < 0:
            return None
        cancel, request = cancelled_request(data)
        if not cancel:
            return None
        if self._held and self._unsent(id_key(request)):
            return "not sent upstream: the request it cancels was never sent (it waited for the upstream to " \
                   "answer the host's notification or response before it)"
        if headers is None:  # (as send finds them)
            headers = self._host_of.get(id_key(request))
        if self._cancels_by_notification(headers):
            return None
        closed = "its stream closed" if id_key(request) in self._posts else "no stream of it was open"
        if own and not self.stdio_host and headers is None:
            return f"not sent upstream: the proxy's own for an HTTP host whose request it no longer holds is not " \
                   f"POSTed; closing the request's stream is its cancellation ({closed})"
        if self.stdio_host and self.protocol_version is None:
            return f"not sent upstream: the upstream gave no session and no protocol version (no initialize " \
                   f"answer); closing the request's stream is its cancellation ({closed})"
        return f"not sent upstream: 2026-07-28 cancels a request by closing its stream ({closed})"

    def _cancels_by_notification(self, host: Mapping[str, str] | None) -> bool:
        """A ``notifications/cancelled`` is sent upstream (before 2026-07-28 closing a stream is
        no cancellation): a stdio host's in the proxy's 2025 session, or under a 2025 version the
        ``initialize`` answer gave (a server without sessions); an HTTP host's unless its
        ``MCP-Protocol-Version`` is 2026-07-28 or later (without one, 2025-03-26: basic/
        transports/streamable-http, Protocol Version Header); the proxy's own on behalf of an HTTP
        host (its stream closed, its session ended) alike, under the headers of the host's POST of
        the request (:attr:`_host_of`; none known: not sent, no session id to send it under)."""
        if self.stdio_host:  # (a session, or a 2025 version without one)
            known = self.protocol_version
            return self.session_id is not None or (known is not None and known < _STATELESS)
        if host is None:
            return False
        return not _stateless(host.get("MCP-Protocol-Version"))  # (the host side's test: _http_host)

    def _request_headers(self, data: bytes, host: Mapping[str, str] | None) -> CIMultiDict[str]:
        if not self.stdio_host:  # (an HTTP host's own headers: the same on most of its POSTs)
            seen = tuple(host.items()) if host is not None else None
            last = self._last_headers
            if last is not None and last[0] == seen:
                return last[1]  # (aiohttp copies a request's headers: this one is never changed)
            out = upstream_headers(host, self.headers, _POST_HEADERS)
            self._last_headers = (seen, out)
            return out
        out = upstream_headers(host, self.headers, _POST_HEADERS)
        # (a stdio host: its request's own version, method and name become the headers)
        look = peek(data)
        if look.kind in ("request", "notification") and look.method is not None:
            params = look.params
            meta = params.get("_meta")
            version = meta.get(_META_VERSION) if isinstance(meta, Mapping) else None
            if isinstance(version, str):
                out["MCP-Protocol-Version"] = version
                out["Mcp-Method"] = look.method
                source = NAMED.get(look.method)
                target = params.get(source) if source is not None else None
                if isinstance(target, str):
                    out["Mcp-Name"] = header_value(target)
                if look.method == "tools/call" and isinstance(target, str):
                    found = self.bridge.relay.param_declared(target)
                    if found is not None:
                        out.update(param_headers(found, params.get("arguments"), lambda: exact_arguments(data)))
            elif self.protocol_version is not None:
                out["MCP-Protocol-Version"] = self.protocol_version
        elif self.protocol_version is not None:
            out["MCP-Protocol-Version"] = self.protocol_version
        if self.session_id is not None:
            out["Mcp-Session-Id"] = self.session_id
        return out

    def stream_headers(self, last_event_id: str | None, host: Mapping[str, str] | None = None
                       ) -> CIMultiDict[str]:
        """The headers of a GET for an event stream (the listening one, or a POST's stream
        resumed after ``last_event_id``): the POSTs' own, in a copy of them (those of an HTTP
        host are kept for its next POSTs, which must not ask for an event stream). ``host``: the
        headers of the HTTP host whose POST's stream it resumes, whose credentials, cookies and
        session the resume carries as its POST did."""
        headers = CIMultiDict(self._request_headers(b"", host))
        headers.pop("Content-Type", None)
        headers["Accept"] = "text/event-stream"
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return headers

    async def _post_behind(self, ahead: asyncio.Task[Delivery], data: bytes, key: Key, stream: HostStream | None,
                           host: Mapping[str, str] | None) -> None:
        """:meth:`_post`, once ``ahead``, the stdio host's notification or response sent before the
        request (:meth:`_waits_for`), has its answer; not sent when that one lapses
        (UPSTREAM_TIMEOUT). Held (:attr:`_held`) until then."""
        try:
            await asyncio.wait((ahead,))
        finally:
            self._held.discard(key)
        try:
            if _lapsed(ahead):
                if self._posts.get(key) is asyncio.current_task():
                    del self._posts[key]  # (a stdio host's: no headers nor batch of it kept)
                if self._untaken:
                    self._took(key, _NEVER_SENT)
                self.bridge.fail(key, _BEHIND_LAPSED.format(self.timeout), UPSTREAM_TIMEOUT)
                return
        except Exception as exc:  # (its task died unseen: the request never sent, its host waited for --timeout)
            if self._posts.get(key) is asyncio.current_task():
                del self._posts[key]
            self._post_failed(key, exc)
            return
        await self._post(data, key, stream, host)

    def _post_failed(self, key: Key, exc: Exception) -> None:
        """A fault of the proxy's or of its HTTP library's as it sent the request ``key``: its host
        is answered now (it waited for ``--timeout``, and nothing said why) and the fault told on
        stderr."""
        why = failed("sending the request upstream", exc)
        self.bridge.fail(key, why, UPSTREAM_UNAVAILABLE)
        told(why)

    async def _post(self, data: bytes, key: Key, stream: HostStream | None,
                    host: Mapping[str, str] | None) -> None:
        assert self._client is not None
        answered = False
        sent_again = False
        try:
            while True:
                self._exchange += 1
                exchange = self._exchange
                renewals = self._renewals  # (a renewal begun after this is sent is this 404's)
                headers = self._request_headers(data, host)
                lean = await self._lean.post(data, headers) if self._lean is not None else None
                async with lean if lean is not None else self._client.post(
                        self.url, data=data, headers=headers, allow_redirects=False) as response:
                    if self.stdio_host and data.find(b'"initialize"') >= 0:
                        self._learn_session(response, data)
                    ended = None if sent_again else self._session_ended(response, headers, data)
                    if ended is None:
                        if self._untaken:  # (a cancellation waits for this request to be taken)
                            self._took(key, _moot(response))
                        answered = await self._read(response, key, stream, exchange, host=host)
                    else:
                        body = await capped(response, self.limit)
                if ended is None:
                    break
                why = await self._renew(ended, body, exchange, renewals)
                if why is not None:
                    self.bridge.fail(key, why, UPSTREAM_UNAVAILABLE)
                    return
                sent_again = True  # (once: a new session's 404 is the host's)
        except asyncio.CancelledError:
            raise
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError) as exc:
            # the request was sent; the upstream closed before answering
            self.bridge.fail(key, f"the upstream closed the connection before answering: {exc}", UPSTREAM_CLOSED)
            return
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            self.bridge.fail(key, f"the upstream request failed: {type(exc).__name__}: {exc}", UPSTREAM_UNAVAILABLE)
            return
        except Exception as exc:
            self._post_failed(key, exc)
            return
        finally:
            holds = self._posts.get(key)
            if holds is asyncio.current_task():
                del self._posts[key]
            if holds is None or holds is asyncio.current_task():  # (not a later request's, of the same id)
                for each in self._batch_of.pop(key, (key,)):
                    if each == key or each not in self._posts:
                        self._host_of.pop(each, None)
        if not answered:
            self.bridge.fail(key, "the upstream closed the response stream before answering", UPSTREAM_CLOSED)

    # -- a stdio host's session, ended upstream ----------------------------------------------------
    def _session_ended(self, response: aiohttp.ClientResponse | Answer, headers: Mapping[str, str],
                       data: bytes) -> str | None:
        """The session id a stdio host's request went under when the upstream answered it 404 Not
        Found (the session ended: 2025-11-25 basic/transports, Session Management 3), and the
        proxy holds what starts a new one (the host's ``initialize``, answered); else None (the
        404 is the request's answer, as any other status). An HTTP host starts its new session
        itself (its 404 is passed to it); a stdio host has no session to start: the proxy is
        the client that MUST start one (Session Management 4)."""
        if response.status != 404 or not self.stdio_host or self._init is None or self.protocol_version is None:
            return None
        session = headers.get("Mcp-Session-Id")
        if session is None or (data.find(b'"initialize"') >= 0 and peek(data).method == "initialize"):
            return None
        return session

    async def _renew(self, ended: str, body: bytes | _Past, exchange: int, tried: int, *,
                     listening: Callable[[str], None] | None = None) -> str | None:
        """A new session in place of ``ended`` (the upstream answered a request in it 404): None
        once there is one (this request is then sent again in it, once), else why not (the
        request gets UPSTREAM_UNAVAILABLE). ``tried``: the renewals tried when the request was
        sent. One renewal at a time: the requests sent before it that met the same 404 take its
        outcome; a request sent after it failed, answered 404 in the same session, tries again.
        ``listening``: the proxy's GET stream met the end, which asks for no session of its own:
        it takes the outcome of any renewal for this end, under way or over, and starts one only
        when none was (it would be a second renewal for one end, its failure a second report);
        called, once the lock is held, with what follows the stream's record of the 404: "" before
        a renewal of its own (whose record follows), else the outcome it takes."""
        shown = f": {neutral(cut(body.decode('utf-8', 'replace'), 200))}" if isinstance(body, bytes) and body \
            else ""
        async with self._renewing:
            if self.session_id != ended:  # (another request's renewal succeeded)
                if listening is not None:
                    listening(f"; reopened in the session a request's renewal started, "
                              f"{neutral(cut(self.session_id or '', 100))}")
                return None
            # (one failed while this request waited for it; for the GET stream, one for this end)
            last = self._failed_renewal
            if self._renewals != tried or (listening is not None and last is not None and last[1] == ended):
                if listening is not None:
                    listening("; not reopened: the renewal for this end failed (its record above); "
                              "the next request's renewal, when it starts a session, reopens it there")
                return last[0] if last is not None else None
            if listening is not None:
                listening("")
            self._renewals += 1
            why = await self._initialize_again(ended)
            http = {"exchange": exchange, "status": 404, "session": ended}
            if why is None:
                self._failed_renewal = None
                self.bridge.relay.note("open", "c2s", f"the upstream ended the session (HTTP 404{shown}): a new one "
                                       f"started with the host's initialize (its answer not forwarded), session "
                                       f"{neutral(cut(self.session_id or '', 100))}; the requests the ended one "
                                       f"refused are sent again in it", transport="http", http=http)
                return None
            failed = f"the upstream ended the session (HTTP 404{shown}) and a new one could not be started: {why}"
            self._failed_renewal = failed, ended
            self.bridge.relay.note("error", "s2c", failed, transport="http", http=http)
            return failed

    async def _initialize_again(self, ended: str) -> str | None:
        """Start a new session: the host's ``initialize`` (its bytes, under an id of the proxy's)
        without a session id, then its ``notifications/initialized`` (or the plain one when it
        sent none) in the session the answer names; each within ``--timeout``. The answer must
        give the protocol version the host's session has; None once the new session is in force
        (the proxy's GET stream follows it), else why not (the ended session stays: a later
        request's 404 tries again)."""
        assert self._client is not None and self._init is not None
        replay = f"mcp-verdict-session-{self._renewals}"
        init = with_id(self._init, orjson.dumps(replay), peek(self._init).message)
        headers = upstream_headers(None, self.headers, _POST_HEADERS)
        try:
            async with asyncio.timeout(self.timeout):
                async with self._client.post(self.url, data=init, headers=headers, allow_redirects=False) as response:
                    body = await capped(response, self.limit)
                    status, session = response.status, response.headers.get("Mcp-Session-Id")
                    stream = event_stream(response.headers.get("Content-Type", ""))
        except (aiohttp.ClientError, OSError, ValueError, TimeoutError) as exc:
            return f"its initialize failed: {self._failed(exc)}"
        if not isinstance(body, bytes):
            return f"its initialize was answered HTTP {status} with a body past {self.limit} bytes"
        answer = _answer_to(body, replay, stream)
        if status != 200 or answer is None:
            return f"its initialize was answered HTTP {status} without an answer to it"
        result = answer.get("result")
        version = result.get("protocolVersion") if isinstance(result, Mapping) else None
        if version != self.protocol_version:
            if session and _CONTROL.search(session) is None:
                await self._end_session(session)  # (not used: ended, not left open upstream)
            return f"its initialize was answered with protocolVersion {neutral(cut(repr(version), 100))} where " \
                   f"the host's session has {self.protocol_version}" if isinstance(result, Mapping) else \
                   "its initialize was answered with an error"
        if not session or _CONTROL.search(session) is not None:
            return "its initialize's answer named no session (no usable Mcp-Session-Id)"
        headers = self._request_headers(b"", None)  # (the ended session's; the new one's below)
        headers["Mcp-Session-Id"] = session  # (the host's requests take it once initialized: not before)
        initialized = self._initialized or _INITIALIZED
        try:
            async with asyncio.timeout(self.timeout):
                async with self._client.post(self.url, data=initialized, headers=headers,
                                             allow_redirects=False) as response:
                    await capped(response, self.limit)
                    status = response.status
        except (aiohttp.ClientError, OSError, ValueError, TimeoutError) as exc:
            status = 0
            reason = self._failed(exc)
        if not 200 <= status < 300:
            await self._end_session(session)  # (not used: ended, not left open upstream)
            return f"its notifications/initialized was {f'answered HTTP {status}' if status else reason}"
        self.session_id = session
        self.bridge.relay.session = session
        if self._get is None or self._get.done():
            self._get = asyncio.get_running_loop().create_task(self._listen())
        return None

    def _failed(self, exc: BaseException) -> str:
        """Why an exchange of the proxy's own got no answer: none within ``--timeout``, or the error."""
        if isinstance(exc, TimeoutError):
            return f"no answer within {self.timeout:g} s"
        return f"{type(exc).__name__}: {exc}"

    async def _end_session(self, session: str) -> None:
        """DELETE a session of the proxy's own (a stdio host's, at shutdown; one it started and will
        not use: 2025-11-25 Session Management 5), within 2 s; its failure changes nothing (the
        server ends it in its own time; a header aiohttp will not write, a session id holding a
        control character, is one)."""
        assert self._client is not None
        with contextlib.suppress(aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError):
            headers = upstream_headers(None, self.headers, {"Mcp-Session-Id": session})
            if self.protocol_version:
                headers["MCP-Protocol-Version"] = self.protocol_version
            async with self._client.delete(self.url, headers=headers, allow_redirects=False,
                                           timeout=aiohttp.ClientTimeout(total=2)) as response:
                await capped(response, self.limit)  # (not kept: held to the limit all the same)

    async def _deliver(self, data: bytes, host: Mapping[str, str] | None, ahead: asyncio.Task[Delivery] | None,
                       deadline: float) -> Delivery:
        """POST a host frame that answers no request (a notification, a response); its HTTP
        answer, by ``deadline`` (``--timeout`` from its sending). ``ahead``: a stdio host's
        notification or response sent before it and not yet answered, which it waits for (within
        that time; not sent when that one lapses). An error status, or no answer, is noted in the
        frame log."""
        assert self._client is not None
        posting = ahead is None
        try:  # (all of it: a fault out of the task was the HTTP host's 500, nothing in the frame log)
            if self.stdio_host and self._initialized is None and data.find(b"notifications/initialized") >= 0 \
                    and peek(data).method == "notifications/initialized":
                self._initialized = data
            async with asyncio.timeout_at(deadline):
                if ahead is not None:
                    await asyncio.wait((ahead,))
                    if _lapsed(ahead):
                        return self._not_sent(data)
                    posting = True
                self._exchange += 1
                async with self._client.post(self.url, data=data, headers=self._request_headers(data, host),
                                             allow_redirects=False) as response:
                    read = await capped(response, self.limit)
            body = given(response.status, read, self.limit)
            if isinstance(body, Refused):
                self._undelivered(data, body.reason, "answered HTTP 502")
                return Delivery(502, _JSON, body.frame)
            if response.status >= 300:
                self._undelivered(data, f"the upstream answered HTTP {response.status}", "passed to the host")
            return Delivery(response.status, response.headers, body)
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            if not posting:  # (the deadline came as it waited: its own and the earlier one's fell on one tick)
                return self._not_sent(data)
            status, fault, reason = upstream_fault(exc, self.timeout)
            self._undelivered(data, reason, f"answered HTTP {status}")
            return Delivery(status, _JSON, fault, lapsed=isinstance(exc, TimeoutError))
        except Exception as exc:  # a fault of the proxy's or of its HTTP library's: said, never lost unseen
            reason = failed("sending it upstream", exc)
            told(f"the host's frame: {reason}")
            self._undelivered(data, reason, "answered HTTP 502")
            return Delivery(502, _JSON, fault_frame(UPSTREAM_UNAVAILABLE, reason))

    def _not_sent(self, data: bytes) -> Delivery:
        """A stdio host's frame answering no request that waited for the one before it, which
        lapsed: not sent (noted in the frame log)."""
        reason = _BEHIND_LAPSED.format(self.timeout)
        self._undelivered(data, reason, "answered HTTP 504")
        return Delivery(504, _JSON, fault_frame(UPSTREAM_TIMEOUT, reason), lapsed=True)

    def _undelivered(self, data: bytes, reason: str, told: str) -> None:
        """Note in the frame log that the upstream did not take a host frame answering no request."""
        kind = peek(data).kind
        what = "notification" if kind == "notification" else "response" if kind in ("response", "error") \
            else "message"
        if self.stdio_host:
            told = "the host is not told: stdio"
        self.bridge.relay.note("error", "c2s", f"the host's {what}: {reason} ({told})")

    def _learn_session(self, response: aiohttp.ClientResponse | Answer, data: bytes) -> None:
        if peek(data).method == "initialize":
            self._init = data  # (what starts a new session when the upstream ends this one)
        session = response.headers.get("Mcp-Session-Id")
        if session:
            self.session_id = session
            self.bridge.relay.session = session

    async def _read(self, response: aiohttp.ClientResponse | Answer, key: Key, stream: HostStream | None,
                    exchange: int, method: str = "POST", host: Mapping[str, str] | None = None) -> bool:
        """Read one response; True when it held the answer to ``key`` (``host``: the headers of
        the HTTP host's request it answers, for a resume of its stream)."""
        ctype = response.headers.get("Content-Type", "")
        http = {"exchange": exchange, "method": method, "status": response.status, "content_type": ctype,
                "session": response.headers.get("Mcp-Session-Id") or self.session_id}
        begin = getattr(stream, "begin", None)
        if begin is not None:
            begin(response.status, response.headers)
        if event_stream(ctype):
            return await self._events(response, key, stream, http, host)
        body = await self._body(response, key, stream)
        if body is None:
            return True  # refused by the limit: the relay answered
        first = _FIRST.match(body)  # the first byte past ASCII whitespace (no stripped copies)
        if first is not None and first.group(1) == b"{":
            if response.status >= 400 and self.stdio_host:
                self._error_for_stdio(body, key, response.status)
            self.bridge.from_upstream(body, stream, http=http, on_exchange=self._exchange_of(key))
            self._after_answer(body, key)
            return not self.bridge.awaits(key)
        if response.status >= 400 or first is None:
            reason = f"the upstream answered HTTP {response.status} without a JSON-RPC body"
            self.bridge.fail(key, reason, UPSTREAM_UNAVAILABLE)
            return True
        self.bridge.from_upstream(body, stream, http=http, on_exchange=self._exchange_of(key))
        return not self.bridge.awaits(key)

    def _exchange_of(self, key: Key | None) -> tuple[Key, ...] | None:
        """The requests an answer on the exchange of ``key`` may answer when the relay serves the
        stateless requests of several hosts (:attr:`shared`): that request (each of its batch's),
        so that an answer reaches the host whose exchange it came on, or none. None (any request,
        by its id): one host's relay (a stdio host's, a session's), or a GET stream's."""
        return self.bridge.batch_of(key) if self.shared and key is not None else None

    def _error_for_stdio(self, body: bytes, key: Key, status: int) -> None:
        """An HTTP error whose JSON-RPC error has a null id (the SDK's 406, 404, 400), for a stdio
        host: it pairs answers by id, so its request gets UPSTREAM_UNAVAILABLE under its own id,
        with the upstream's message, before the upstream's error is relayed as it came."""
        look = peek(body)
        if look.kind != "error" or look.id is not None or look.message is None:
            return
        error = look.message.get("error")
        message = error.get("message") if isinstance(error, Mapping) else None
        shown = f": {neutral(cut(message, 200))}" if isinstance(message, str) else ""
        self.bridge.fail(key, f"the upstream answered HTTP {status}{shown}", UPSTREAM_UNAVAILABLE)

    async def _body(self, response: aiohttp.ClientResponse | Answer, key: Key, stream: HostStream | None
                    ) -> bytes | None:
        """An answer's body (:func:`capped`); past the limit, the rest is counted (not kept) and
        the relay refuses it (its first 64 KiB give the id): None."""
        body = await capped(response, self.limit)
        if isinstance(body, bytes):
            return body
        size = body.size
        async for rest in response.content.iter_any():
            size += len(rest)
        self._too_large(body.head, size, key, stream)
        return None

    def _too_large(self, head: bytes, size: int, key: Key | None, stream: HostStream | None) -> None:
        """A body (or an event stream's unfinished event) of the exchange of ``key`` past the
        limit, the exchange given up: refused (the relay answers the request whose id its first
        bytes show with TOO_LARGE); the request of this exchange gets TOO_LARGE too when it still
        waits (its id further in, or none read): its answer cannot come any more, and it got
        -31002 only at ``--timeout``."""
        self.bridge.upstream_too_large(head, size, stream)
        if key is not None and self.bridge.awaits(key):
            self.bridge.fail(key, f"the server's answer is {size} bytes or more; the proxy's limit is {self.limit} "
                                  "(its id was not in its first bytes)", TOO_LARGE)

    def _after_answer(self, body: bytes, key: Key) -> None:
        if self.stdio_host and self.protocol_version is None and body.find(b"protocolVersion") >= 0:  # (the
            # search last: ~20–30 µs over a 60 kB answer on CPython 3.11, once the version is known for nothing)
            result = peek(body).result
            version = result.get("protocolVersion") if result is not None else None
            if isinstance(version, str):
                self.protocol_version = version
                if self.session_id is not None and self._get is None:
                    self._get = asyncio.get_running_loop().create_task(self._listen())

    async def _events(self, response: aiohttp.ClientResponse | Answer, key: Key, stream: HostStream | None,
                      http: dict[str, Any], host: Mapping[str, str] | None) -> bool:
        parser = SSEParser()
        resumes = 0
        current = response
        while True:
            done = await self._pump(current, parser, key, stream, http)
            if done:
                return True
            if parser.last_event_id is None or resumes >= _RESUMES or self._client is None:
                return False
            resumes += 1  # the stream ended before its answer: resume it (2025 sessions)
            headers = self.stream_headers(parser.last_event_id, host)
            if parser.retry is not None:
                await asyncio.sleep(min(parser.retry, 5000) / 1000)
            try:
                current = await self._client.get(self.url, headers=headers, allow_redirects=False)
            except (aiohttp.ClientError, OSError):
                return False
            if current.status != 200 or not event_stream(current.headers.get("Content-Type", "")):
                # no stream (an HTTP error, a JSON body): read as a POST's answer is
                async with current:
                    return await self._read(current, key, stream, http["exchange"], "GET")

    async def _pump(self, response: aiohttp.ClientResponse | Answer, parser: SSEParser, key: Key | None,
                    stream: HostStream | None, http: dict[str, Any], broken: list[BaseException] | None = None,
                    seen: list[int] | None = None) -> bool:
        """Relay the events of ``response``; True when it held the answer to ``key`` (or none is
        due). A transport failure ends it; ``broken`` receives the exception; ``seen[0]`` counts
        the events (priming ones too)."""
        size = 0
        primed = parser.last_event_id
        exchange = self._exchange_of(key)
        try:
            async for chunk in response.content.iter_any():
                if not self._readable.is_set():
                    await self._readable.wait()
                size += len(chunk)
                answered = False
                for event in parser.feed(chunk):  # (each one read is relayed: those after the answer too)
                    size = 0
                    if seen is not None:
                        seen[0] += 1
                    if len(event.data) > self.limit:  # (a notification, maybe: the request waits on)
                        self.bridge.upstream_too_large(event.data[:_HEAD], len(event.data), stream)
                        continue
                    frame_http = {**http, "event_id": event.id} if event.id is not None else http
                    if stream is not None and hasattr(stream, "pending_id"):
                        stream.pending_id = event.id  # the host sees the upstream's event ids
                    self.bridge.from_upstream(event.data, stream, http=frame_http, on_exchange=exchange,
                                              during=key)
                    primed = parser.last_event_id
                    if not answered and key is not None and not self.bridge.awaits(key):  # (a batch: each request)
                        if self.stdio_host and self.protocol_version is None:
                            self._after_answer(event.data, key)  # (an initialize answered by an event)
                        answered = True
                if answered:
                    return True  # (the rest of the stream is not read)
                if parser.idle:
                    size = 0  # (comments, retry and id lines: no event held, whatever their bytes)
                if parser.last_event_id != primed:
                    primed = parser.last_event_id  # a priming event: an id, no data
                    if seen is not None:
                        seen[0] += 1
                    prime = getattr(stream, "prime", None)
                    if prime is not None and primed is not None:
                        prime(primed, parser.retry)
                if size > self.limit:
                    self._too_large(b"", size, key, stream)
                    return True
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            if broken is not None:
                broken.append(exc)
        finally:
            response.release()
        parser.close()
        return key is None or not self.bridge.awaits(key)

    async def _listen(self) -> None:
        """The GET stream of a 2025 session (a stdio host's): the server's own requests and
        notifications, for as long as the session lasts (cancelled by :meth:`aclose`).

        basic/transports/streamable-http (2025-06-18, 2025-11-25): the server MAY close the
        stream at any time, and the client MAY open it again; it resumes with ``Last-Event-ID``
        once the server gave event ids, after the server's ``retry`` when it sent one. Each
        response's headers come within ``--timeout`` (:meth:`_listen_once`). The stream is
        reopened after each end, break or failure for as long as the session lasts (a load
        balancer that cuts idle streams every few seconds ends it again and again, and each
        server message between two cuts must still reach the host) — after a backoff,
        :data:`_LISTEN_FIRST` seconds doubling up to :data:`_LISTEN_MOST` after each opening
        that ended soon (failed, refused, or a stream open for less than the backoff), back to
        the first once a stream carried an event or stayed open at least that long; the server's
        ``retry`` when it gave one (at least the backoff after an opening that ended soon). It
        is not reopened on 404 (the session ended) or 405 (the server offers no stream: the
        spec's answer for that); a 404 in the session it served starts a new session
        (:meth:`_renew`) unless a renewal for that end is under way (its outcome is taken) or
        failed already (a request's: not tried twice for one end; the stream stays closed until a
        later request's renewal starts a session, which opens it again). Each end and failure is
        an ``eof`` or ``error`` record of transport ``http`` in the frame log: the end of that
        stream, never the connection's (the audit ends a stdio connection's calls on an ``eof``
        of its own transport)."""
        last: str | None = None
        retry: int | None = None
        delay = _LISTEN_FIRST
        session = self.session_id
        served: str | None = None
        """The session whose GET stream last opened (its 404 then says the session ended)."""
        while True:
            try:  # (a fault of the proxy's: said, the stream opened again after the backoff; it ended the task
                # unseen, the stream never reopened: the server's messages lost for the session)
                if self.session_id != session:  # (a new session: the ended one's event ids mean nothing)
                    session, last, retry = self.session_id, None, None
                self._exchange += 1
                http: dict[str, Any] = {"exchange": self._exchange, "method": "GET", "session": session}
                parser = SSEParser()
                parser.last_event_id, parser.retry = last, retry
                events = [0]
                gone: list[bytes | _Past] = [b""]
                renewals = self._renewals  # (as a POST's: :meth:`_renew`)
                kind, why, final, lived = await self._listen_once(parser, http, events, gone)
                if http.get("status") == 200 and lived:
                    served = session
                if final and http.get("status") == 404 and session is not None and session == served \
                        and self._init is not None and self.protocol_version is not None:
                    # the stream worked in this session: the session ended (a new one, its stream
                    # opened; one renewal per end: :meth:`_renew`)
                    def noted(then: str, kind: Literal["eof", "error"] = kind, why: str = why,
                              http: dict[str, Any] = http) -> None:
                        self.bridge.relay.note(kind, "s2c", f"the proxy's GET stream: {why}{then}", transport="http",
                                               http=http)
                    if await self._renew(session, gone[0], http["exchange"], renewals, listening=noted) is None:
                        continue
                    return
                last, retry = parser.last_event_id, parser.retry
                soon = not events[0] and lived < delay
                if not soon:
                    delay = _LISTEN_FIRST
                wait, whose = delay, ""
                if retry is not None:
                    asked = min(max(retry, _LISTEN_RETRY_LEAST), _LISTEN_RETRY_MOST) / 1000
                    if not soon or asked >= delay:
                        wait, whose = asked, " (the server's retry)"
                if final:
                    then = "not reopened"
                else:
                    resume = f", Last-Event-ID {neutral(cut(last, 100))}" if last is not None else ""
                    then = f"reopened in {wait:g} s{whose}{resume}"
                self.bridge.relay.note(kind, "s2c", f"the proxy's GET stream: {why}; {then}", transport="http",
                                       http=http)
                if final:
                    return
                await asyncio.sleep(wait)
                if soon:
                    delay = min(delay * 2, _LISTEN_MOST)
            except Exception as exc:
                fault = f"the proxy's GET stream: {failed('keeping it open', exc)}"
                said(self.bridge.relay, fault, f"{fault}; reopened in {delay:g} s", transport="http")
                await asyncio.sleep(delay)
                delay = min(delay * 2, _LISTEN_MOST)

    async def _listen_once(self, parser: SSEParser, http: dict[str, Any], events: list[int],
                           gone: list[bytes | _Past]) -> tuple[Literal["eof", "error"], str, bool, float]:
        """Open the GET stream once and relay it to its end: (the record's kind, what happened,
        whether it is not to be reopened, the seconds the stream was open: 0 when none opened).
        ``events[0]`` counts the events it carried; ``gone[0]`` becomes a 404's body (read within
        ``--timeout`` and the limit; none when it fails), which a renewal's records show as a
        POST's 404 body (the same end, whichever path met it first)."""
        assert self._client is not None
        headers = self.stream_headers(parser.last_event_id)
        try:
            async with asyncio.timeout(self.timeout):  # to the response headers (RFC 9110: a response's start)
                response = await self._client.get(self.url, headers=headers, allow_redirects=False)
        except TimeoutError:
            return "error", f"no response headers within {self.timeout:g} s", False, 0.0
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            return "error", f"the upstream request failed: {type(exc).__name__}: {exc}", False, 0.0
        except Exception as exc:  # a fault of the proxy's or of its HTTP library's: said, and the stream
            # opened again after the backoff (its task died unseen: the server's messages lost for the session)
            why = failed("opening it", exc)
            told(f"the proxy's GET stream: {why}")
            return "error", why, False, 0.0
        ctype = response.headers.get("Content-Type", "")
        http.update(status=response.status, content_type=ctype or None)
        if response.status != 200 or not event_stream(ctype):
            if response.status == 404:
                with contextlib.suppress(aiohttp.ClientError, OSError, ValueError, TimeoutError):
                    async with asyncio.timeout(self.timeout):
                        gone[0] = await capped(response, self.limit)
            response.release()
            status = response.status
            if status in (404, 405):
                why = "the session ended" if status == 404 else "it offers no stream"
                return "error", f"the upstream answered HTTP {status} ({why})", True, 0.0
            return "error", f"the upstream answered HTTP {status} without an event stream", False, 0.0
        loop = asyncio.get_running_loop()
        opened = loop.time()
        broken: list[BaseException] = []
        await self._pump(response, parser, None, None, http, broken, events)
        lived = loop.time() - opened
        dropped = "; an unfinished event was dropped" if parser.dropped else ""
        if broken:
            cause = broken[0]
            return "error", f"the upstream broke it: {type(cause).__name__}: {cause}{dropped}", False, lived
        return "eof", f"the upstream ended it{dropped}", False, lived

    async def forward_get(self, stream: HostStream, host: Mapping[str, str]) -> None:
        """A host's GET (HTTP host side, 2025 sessions, a resume with ``Last-Event-ID`` too): the
        upstream's GET stream, mirrored. An upstream that fails before the stream starts (refused,
        reset, no HTTP answer, no answer within ``--timeout``) is the host's 502 or 504 with a
        JSON-RPC error (:func:`upstream_fault`); one that answers without a stream (an HTTP
        error, 405: it offers none) is passed back, status, body and :data:`_GET_BACK` headers;
        once the stream is open, its end is the host's. Each is noted in the frame log."""
        assert self._client is not None
        headers = upstream_headers(host, self.headers)
        queue = stream.queue  # type: ignore[attr-defined]
        note = self.bridge.relay.note
        read: bytes | _Past = b""
        try:
            async with asyncio.timeout(self.timeout):  # to the headers, and a body without a stream
                response = await self._client.get(self.url, headers=headers, allow_redirects=False)
                opened = response.status == 200 and event_stream(response.headers.get("Content-Type", ""))
                if not opened:
                    async with response:
                        read = await capped(response, self.limit)
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            status, fault, reason = upstream_fault(exc, self.timeout)
            note("error", "s2c", f"the host's GET: {reason} (answered HTTP {status})")
            stream.status = status  # type: ignore[attr-defined]
            queue.put_nowait(("error", fault, True, None))
            return
        except Exception as exc:  # a fault of the proxy's or of its HTTP library's: the host's GET is answered
            # (it waited for an item that never came) and the fault said
            reason = failed("opening the upstream's stream", exc)
            told(f"the host's GET: {reason}")
            note("error", "s2c", f"the host's GET: {reason} (answered HTTP 502)")
            stream.status = 502  # type: ignore[attr-defined]
            queue.put_nowait(("error", fault_frame(UPSTREAM_UNAVAILABLE, reason), True, None))
            return
        if not opened:
            body = given(response.status, read, self.limit)
            if isinstance(body, Refused):
                note("error", "s2c", f"the host's GET: {body.reason} (answered HTTP 502)")
                stream.status = 502  # type: ignore[attr-defined]
                queue.put_nowait(("error", body.frame, True, None))
                return
            note("error" if response.status >= 400 else "eof", "s2c",
                 f"the host's GET: the upstream answered HTTP {response.status} without an event stream "
                 "(passed to the host)")
            stream.status = response.status  # type: ignore[attr-defined]
            stream.headers = passed_back(response.headers, _GET_BACK)  # type: ignore[attr-defined]
            queue.put_nowait(("status", body, False, None))
            return
        broken: list[BaseException] = []
        parser = SSEParser()
        try:
            async with response:
                stream.headers = passed_back(response.headers, ())  # type: ignore[attr-defined]
                queue.put_nowait(("open", b"", False, None))
                http = {"exchange": 0, "method": "GET", "status": 200, "content_type": "text/event-stream",
                        "session": host.get("Mcp-Session-Id")}
                last = host.get("Last-Event-ID")
                if last is not None:
                    parser.last_event_id = last
                await self._pump(response, parser, None, stream, http, broken)
        except (aiohttp.ClientError, OSError) as exc:
            broken.append(exc)  # (the stream had started: it ends)
        dropped = "; an unfinished event was dropped" if parser.dropped else ""
        if broken:
            cause = broken[0]
            note("error", "s2c", f"the host's GET stream: the upstream broke it: {type(cause).__name__}: {cause}"
                 f"{dropped} (the host's stream ended)")
        else:
            note("eof", "s2c", f"the host's GET stream: the upstream ended it{dropped} (so did the host's)")
        queue.put_nowait(("end", b"", False, None))

    async def settle(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, for the POSTs still under way (a notification's, say,
        after the host had its 202), so that closing does not cut them off."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    async def delivered(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, for the POSTs under way that answer no request (a
        notification's, a response's: one whose HTTP host went away before its answer, a stdio
        host's), so that what the host sends after them reaches the upstream after them, in the
        host's order."""
        waiting = self._tasks.difference(self._posts.values())
        if waiting:
            await asyncio.wait(waiting, timeout=timeout)

    async def aclose(self) -> None:
        for task in list(self._tasks) + ([self._get] if self._get is not None else []):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._get is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._get
        if self.stdio_host and self.session_id is not None and self._client is not None:
            await self._end_session(self.session_id)
        if self._own_client and self._client is not None:
            if self._lean is not None:
                self._lean.close()
            await self._client.close()
        self._finished.set()


_POSTING: Final = (HttpUpstream._post.__code__, HttpUpstream._post_behind.__code__)
_READING: Final = HttpUpstream._read.__code__
"""The code objects :func:`_reading` looks for in a POST's coroutine."""
