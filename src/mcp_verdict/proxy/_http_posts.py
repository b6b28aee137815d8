"""The upstream POST of a request on a kept-alive connection, on aiohttp's own HTTP protocol
without its ``ClientSession``: the proxy's hot path over an HTTP upstream.

A ``ClientSession`` request costs 65–90 µs of CPU on this machine beyond the connection's own
work (its request and response objects, the connector's bookkeeping, the cookie jar, a task
writing the body under Python < 3.12): 100–125 µs per sequential POST in one process, against
35 µs for aiohttp's ``ResponseHandler`` driven directly; through the proxy, 16–22% of its CPU
per call on HTTP→HTTP (``benchmarks/compare_proxy.py --pair HTTP→HTTP``: README, "The
proxy"). :class:`Posts` drives it directly. What stays aiohttp's: the connection's
protocol (``client_proto.ResponseHandler``: its HTTP parser, the body's ``StreamReader`` with
its flow control, ``ServerDisconnectedError``, ``ClientOSError`` and ``ClientPayloadError`` for a
connection lost or a body cut), the request head's serialisation (``StreamWriter``'s own
``_serialize_headers``: a CR or LF in a header is refused, ``ValueError``), TCP_NODELAY, and the
parse error as ``ClientResponse.start`` raises it (``ClientResponseError``). Written here: the
head's fields as ``ClientRequest`` writes them (``Host`` first, the caller's headers,
``Content-Length``), written with the body in one ``write`` as ``StreamWriter.write_eof`` does
(the head's bytes kept for the next POST with the same headers: an HTTP host's POSTs mostly
carry the same, and building and serialising them was ~5% of the proxy's instructions per call
on HTTP→HTTP), and the idle connections kept.

It serves a POST only when it can do what the ``ClientSession`` would: a plain ``http`` URL
without credentials, a body of at most :data:`_LARGEST` bytes, and no cookie in the session's
jar (a cookie the upstream sets on a POST's answer goes into that jar, and every later request
goes through the session, which sends it: a load balancer's affinity cookie keeps working; the
HTTP hosts' session keeps no cookie, its hosts do: ``_http_upstream.client_session``).
Otherwise, and when it has no idle connection and cannot open one (refused, unreachable, no
connection within the session's connect timeout), :meth:`Posts.post` returns None and the caller
sends the POST through the session, which opens its own connection and fails as it did
(``ClientConnectorError``, its timeout). Idle connections are reused last in, first out, and closed
after :data:`_IDLE` seconds idle (aiohttp's keep-alive timeout), or when the upstream closed them;
a connection whose answer was not read to its end, or that the upstream asked to close, is closed,
never reused. It serves only on the aiohttp version it is tested with (:data:`_TESTED`): the
classes it drives are aiohttp's own, not its documented API. A POST that finds ``limit``
connections open, or POSTs already waiting, waits for one of them to be free, as the session's
connector waits at its own limit (it used to go through the session, which opened up to its own
limit beside them: twice the limit to the upstream): first come, first served — a connection
given back is handed to the POST waiting first, and the room of one closed or never opened (a
connect that failed or was cancelled) too, to open its own; a POST that comes meanwhile waits
behind it (it used to take what the first was woken for, and under sustained load a POST could
wait for ever). A waiting POST cancelled once its turn came passes it on to the next.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Mapping
from http.cookies import CookieError, SimpleCookie
from typing import Final

import aiohttp
from aiohttp.client_proto import ResponseHandler
from aiohttp.http import HttpProcessingError, StreamWriter
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

_serialised: Callable[[str, CIMultiDict[str]], bytes] | None
"""aiohttp's own serialiser of a head, not its documented API: another version may not have it,
and then no POST is sent here (:func:`posts_for`): the session sends them all."""
try:
    from aiohttp.http_writer import _serialize_headers as _serialised
except ImportError:
    _serialised = None

_IDLE: Final = 15.0
"""Seconds an idle connection is kept (aiohttp's ``TCPConnector`` keep-alive timeout)."""
_LARGEST: Final = 64 * 1024
"""The largest body sent here: written at once, it never waits for the upstream to read it
before its answer is read (a larger one goes through the session, which writes it beside the
reading of the answer: an upstream that answers early, 413 say, without reading it, is heard)."""


class Answer:
    """The upstream's response to a POST sent by :class:`Posts`: what ``HttpUpstream`` reads of
    an ``aiohttp.ClientResponse`` (status, headers, the body's stream); ``release`` gives the
    connection back when its body was read to the end."""

    __slots__ = ("_posts", "_proto", "content", "headers", "status")

    def __init__(self, status: int, headers: CIMultiDictProxy[str], content: aiohttp.StreamReader,
                 proto: ResponseHandler, posts: Posts) -> None:
        self.status = status
        self.headers = headers
        self.content = content
        self._proto: ResponseHandler | None = proto
        self._posts = posts

    @property
    def content_length(self) -> int | None:
        value = self.headers.get("Content-Length")
        return int(value) if value is not None else None

    async def read(self) -> bytes:
        return await self.content.read()

    def release(self) -> None:
        proto, self._proto = self._proto, None
        if proto is not None:
            self._posts._give_back(proto, self.content.is_eof())

    async def __aenter__(self) -> Answer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


class Posts:
    """The POSTs to one upstream URL on connections of their own (see the module's docstring)."""

    def __init__(self, url: str, client: aiohttp.ClientSession, *, limit: int, connect: float) -> None:
        parsed = URL(url)
        host = parsed.raw_host
        self.usable = parsed.scheme == "http" and bool(host) and not (parsed.raw_user or parsed.raw_password) \
            and parsed.port is not None
        self._client = client
        self._host = host or ""
        self._port = parsed.port or 80
        authority = f"[{self._host}]" if ":" in self._host else self._host
        self._authority = authority if parsed.is_default_port() else f"{authority}:{self._port}"
        self._line = f"POST {parsed.raw_path_qs} HTTP/1.1"
        self._url = parsed
        self._limit = limit
        self._connect = connect
        self._idle: list[tuple[ResponseHandler, float]] = []
        self._open = 0
        """The connections open: idle, or carrying a POST."""
        self._waiting: deque[asyncio.Future[ResponseHandler | bool]] = deque()
        """The POSTs waiting for a connection to be free (``limit`` open), in their order: each
        connection freed is handed to the first (:meth:`_wait`)."""
        self._closed = False
        self._head: tuple[tuple[tuple[str, str], ...], bytes] | None = None
        """(the headers of the last POST whose head was serialised, that head's bytes up to its
        ``Content-Length`` value): the next POST with the same headers writes them again without
        building and serialising its fields (the same bytes)."""

    async def post(self, data: bytes, headers: Mapping[str, str]) -> Answer | None:
        """POST ``data`` with ``headers``; its response once its head came (the body is read from
        :attr:`Answer.content`). None: send it through the session instead. A failure after the
        request was written raises as the session would."""
        if not self.usable or self._closed or len(data) > _LARGEST or len(self._client.cookie_jar):
            return None
        loop = asyncio.get_running_loop()
        proto = self._take(loop.time()) if not self._waiting else None
        if proto is None:
            proto = await self._open_one(loop)
            if proto is None:
                return None
        try:
            proto.set_response_params(read_until_eof=True, auto_decompress=False)
            fields = tuple(headers.items())
            kept = self._head
            if kept is not None and kept[0] == fields:  # (an HTTP host's POSTs: mostly the same headers)
                written = b"".join((kept[1], b"%d\r\n\r\n" % len(data), data))
            else:
                assert _serialised is not None  # (posts_for makes no Posts without it)
                written = _serialised(self._line, self._fields(headers, data))
                tail = b"Content-Length: %d\r\n\r\n" % len(data)
                if written.endswith(tail):  # (Content-Length last, as always but for a --header of that name)
                    self._head = fields, written[:len(written) - len(tail) + 16]
                written += data
            transport = proto.transport  # (StreamWriter.write_eof's one write of the head and the body)
            if transport is None or transport.is_closing():
                raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")
            transport.write(written)
            if proto.writing_paused:
                await StreamWriter(proto, loop).drain()
            while True:
                try:
                    message, payload = await proto.read()
                except HttpProcessingError as exc:  # (as ClientResponse.start raises it)
                    info = aiohttp.RequestInfo(self._url, "POST", CIMultiDictProxy(self._fields(headers, data)),
                                               self._url)
                    raise aiohttp.ClientResponseError(info, (), status=exc.code, message=exc.message,
                                                      headers=exc.headers) from exc
                if message.code < 100 or message.code > 199 or message.code == 101:
                    break
            cookies = message.headers.getall("Set-Cookie", ())
            if cookies:  # (kept as the session keeps them; its later requests send them)
                jar: SimpleCookie = SimpleCookie()
                for cookie in cookies:
                    with contextlib.suppress(CookieError):  # (one it cannot read is dropped, as aiohttp does)
                        jar.load(cookie)
                self._client.cookie_jar.update_cookies(jar, self._url)
        except BaseException:
            self._drop(proto)
            raise
        return Answer(message.code, message.headers, payload, proto, self)

    def _fields(self, headers: Mapping[str, str], data: bytes) -> CIMultiDict[str]:
        """The request head's fields, as ``ClientRequest`` writes them: ``Host`` first, the
        caller's headers, ``Content-Length``."""
        head: CIMultiDict[str] = CIMultiDict()
        head["Host"] = self._authority
        for name, value in headers.items():
            if name.lower() == "host":  # (as ClientRequest: a Host given replaces its own)
                head[name] = value
            else:
                head.add(name, value)
        head["Content-Length"] = str(len(data))
        return head

    def _take(self, now: float) -> ResponseHandler | None:
        """The most recently idle connection still open and silent (those idle too long, closed
        by the upstream, or on which it wrote while idle are closed on the way: RFC 9112 s9.3.2,
        a response with no request outstanding, which the next request would read as its own)."""
        idle = self._idle
        while idle and now - idle[0][1] > _IDLE:
            self._drop(idle.pop(0)[0])
        while idle:
            proto, _ = idle.pop()
            if silent(proto):
                return proto
            self._drop(proto)
        return None

    async def _open_one(self, loop: asyncio.AbstractEventLoop) -> ResponseHandler | None:
        """A connection of the POST's own: handed over by the one before it in the queue, or
        opened in the room handed over or free (None: none could be opened, or closed)."""
        if self._waiting or self._open >= self._limit:  # (behind those waiting, never before them)
            got = await self._wait(loop)
            if got is False:
                return None
            if self._closed:  # (closed as its turn came: through the session)
                if got is True:
                    self._free()
                else:
                    self._drop(got)
                return None
            if got is not True:
                if silent(got):
                    return got
                got.close()  # (the upstream wrote on it or closed it since: its room is this POST's)
        else:
            self._open += 1
        try:
            async with asyncio.timeout(self._connect):
                _, proto = await loop.create_connection(lambda: ResponseHandler(loop), self._host, self._port)
        except (OSError, TimeoutError):
            self._free()  # (its room is free again: the POST waiting first tries its own)
            return None
        except BaseException:
            self._free()
            raise
        return proto

    async def _wait(self, loop: asyncio.AbstractEventLoop) -> ResponseHandler | bool:
        """Wait in turn for a connection (given back idle by a POST: handed over), or for room to
        open one (a connection closed, or never opened: True, the room counted in ``_open``);
        False when closed. A POST cancelled as it waits leaves the queue; one cancelled once its
        turn came passes what it was handed to the next."""
        waiter: asyncio.Future[ResponseHandler | bool] = loop.create_future()
        self._waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if not waiter.done() or waiter.cancelled():
                with contextlib.suppress(ValueError):
                    self._waiting.remove(waiter)
            elif (got := waiter.result()) is True:
                self._free()
            elif got is not False:
                self._give_back(got, True)
            raise

    def _give_back(self, proto: ResponseHandler, read: bool) -> None:
        """A POST's connection, free: the POST waiting first gets it, else it is kept idle; one
        whose answer was not read to its end, or that cannot be reused, is closed."""
        if not (read and not self._closed and silent(proto)):
            self._drop(proto)
            return
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(proto)
                return
        self._idle.append((proto, asyncio.get_running_loop().time()))

    def _drop(self, proto: ResponseHandler) -> None:
        proto.close()
        self._free()

    def _free(self) -> None:
        """A connection closed or never opened: its room goes to the POST waiting first (it opens
        its own: ``_open`` unchanged), else it is free."""
        while self._waiting and not self._closed:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(True)
                return
        self._open -= 1

    def close(self) -> None:
        """Close the idle connections; those carrying a POST are closed as it ends; the POSTs
        waiting for a connection go through the session."""
        self._closed = True
        while self._idle:
            self._drop(self._idle.pop()[0])
        for waiter in self._waiting:
            if not waiter.done():
                waiter.set_result(False)
        self._waiting.clear()


def silent(proto: ResponseHandler) -> bool:
    """The connection is open and nothing came on it since its last answer (bytes that came: a
    response no request asked for, or a tail, which the next request would read as its own;
    RFC 9112 s9.3.2). Its session's connections are checked alike: ``_http_upstream.CheckedConnector``."""
    return proto.is_connected() and not proto.should_close


_TESTED: Final = (3, 14)
"""The aiohttp minor version this module is tested with: ``ResponseHandler``, its response
parameters and ``StreamWriter`` are aiohttp's own classes, not its documented API, so any
other version takes the session's path (the same answers, ~20% more CPU per call)."""


def _tested(version: str) -> bool:
    """``version`` is the tested one (:data:`_TESTED`) and the aiohttp imported has the head's
    serialiser this module calls (a private name: an install that lacks it imports this module
    all the same, and every POST goes through the session)."""
    parts = version.split(".")[:2]
    return (_serialised is not None and all(part.isdigit() for part in parts)
            and tuple(map(int, parts)) == _TESTED)


def posts_for(url: str, client: aiohttp.ClientSession, *, limit: int, connect: float,
              version: str = aiohttp.__version__) -> Posts | None:
    """A :class:`Posts` for ``url``, or None when it could not serve one POST (not plain http,
    or not a URL: the session's POST refuses it as it did; or an aiohttp ``version`` other than
    the one tested, :data:`_TESTED`)."""
    if not _tested(version):
        return None
    try:
        posts = Posts(url, client, limit=limit, connect=connect)
    except ValueError:
        return None
    return posts if posts.usable else None

