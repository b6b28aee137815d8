"""Streamable HTTP, recorded at the byte level under the SDK's own transport.

The SDK's ``streamable_http_client`` takes any ``httpx2.AsyncClient``; this module gives it one
whose transport records each POST's body and tees every POST and GET response into the wire
log before the SDK parses anything: a JSON body becomes one frame, each server-sent event one
frame (read by :class:`mcp_verdict.frames.SSEParser`: an event with empty data is none; an
event whose type is not ``message`` is recorded as an ``event`` frame, no message: the SDK
does not read it, and it never stands for an answer).
``accept-encoding: identity`` asks for the message bytes as they are; a body the server
compresses anyway (``content-encoding: gzip``...) is decoded by httpx2 before it is recorded,
so the frames are the message bytes the SDK reads, and bounded as such. An event of a stream,
like a body, is bounded by ``max_bytes``: past it the event is recorded cut and the stream ends.
An event reaches the SDK once dispatched (the lines between events once ended), so one being
read is held once, here, and one past the bound never reaches the SDK. An answer past 1 MiB, a
body or an event, to a POST of a request the client reads the answer of from its bytes (a
``tools/call``, ``tools/list``, a task request: ``_wire.READ_FROM_BYTES``) reaches the SDK as a
small error with the answer's id (``_wire.stand_in``): the SDK's parse of it was dropped, and
cost two to three more copies of it.

The SDK reconnects a stream the server closed (the GET stream; a request's stream that ended
without its answer, resumed with ``Last-Event-ID``) after the server's ``retry`` field, in
milliseconds (MCP Streamable HTTP: the client MUST wait that long; WHATWG event-stream
interpretation: a ``retry`` whose value is not ASCII digits is ignored, and a user agent may wait
longer). The stream the SDK reads passes a ``retry`` line through :class:`_RetryGuard`: one that
is not ASCII digits is ignored (the SDK's ``int()`` took ``-5``, and its sleep raised, tearing the
client down), one under ``_RETRY_FLOOR_MS`` waits that long (``retry: 0`` reconnected the GET
stream in a loop, hundreds of times a second). The recorded frames are the bytes as they came.

A POST that cannot reach the server once it has answered before (it went away: connection
refused) fails its request alone, recorded ``send_failed`` (the request was not sent); before
any answer, it is the connection that fails (``CannotConnect``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator
from typing import Final

import httpx2

from ..frames import SSEEvent, SSEParser, peek_shape, retry_after
from ..tap._http import decoded
from ._wire import READ_FROM_BYTES, Frame, WireLog, stand_in

_NOT_SENT: Final = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.UnsupportedProtocol)
_ERROR_QUOTED: Final = 200
"""Bytes of an HTTP error body that is no JSON-RPC message quoted in its failure."""
_ERROR_COUNTED: Final = 1024 * 1024
"""Bytes of such a body read to count it (counted, not kept); past them it is "more than"."""
_ERROR_SECONDS: Final = 5.0
"""Seconds such a body is read for (half the request timeout if less): a body that trickles is
counted as far as it came."""
_RETRY_FLOOR_MS: Final = 100
"""The least wait, in milliseconds, before the SDK reconnects a stream, whatever ``retry`` says."""
_RETRY_LINE: Final = 32
"""Bytes of a ``retry`` line held to read its value: past them it is no number of milliseconds
(the SDK waited 10^30 ms for one) and is ignored."""
_BOM: Final = b"\xef\xbb\xbf"
_PART: Final = 64 * 1024
"""Bytes of a dispatched event past which it is passed to the SDK as a part of its own."""


class _LineEnds:
    """The next CR or LF of a chunk from a position, each searched for once per occurrence."""

    __slots__ = ("_chunk", "_cr", "_lf")

    def __init__(self, chunk: bytes) -> None:
        self._chunk = chunk
        self._cr = self._lf = -2  # not searched yet; -1: none left

    def next(self, at: int) -> int:
        if self._cr != -1 and self._cr < at:
            self._cr = self._chunk.find(b"\r", at)
        if self._lf != -1 and self._lf < at:
            self._lf = self._chunk.find(b"\n", at)
        found = [end for end in (self._cr, self._lf) if end >= 0]
        return min(found) if found else -1


class _RetryGuard:
    """The bytes of an event stream as the SDK reads them, its ``retry`` lines checked (module
    docstring): a line that may be one is held until its end (at most ``_RETRY_LINE`` bytes),
    every other byte passes at once. Lines end in CRLF, LF or CR (WHATWG); one BOM may open the
    stream."""

    __slots__ = ("_first", "_held", "_skipping", "_streaming")

    def __init__(self) -> None:
        self._held = bytearray()
        """The start of the current line, while it may be a ``retry`` line."""
        self._streaming = False
        """The current line is no ``retry`` line: its bytes pass up to its end."""
        self._skipping = False
        """The current line is a ``retry`` line past ``_RETRY_LINE``: dropped up to its end."""
        self._first = True

    def feed(self, chunk: bytes) -> bytes:
        if not self._held and not self._skipping and b"retry" not in chunk:
            # no retry line ends in this chunk: its lines pass whole, its unfinished last one is read
            last = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
            if last >= 0:
                self._line_ended()
                return chunk[:last + 1] + self._feed(chunk[last + 1:])
        return self._feed(chunk)

    def _feed(self, chunk: bytes) -> bytes:
        out = bytearray()
        at, size = 0, len(chunk)
        ends = _LineEnds(chunk)
        while at < size:
            if self._streaming or self._skipping:  # to the line's end at C speed
                end = ends.next(at)
                if end < 0:
                    if self._streaming:
                        out += chunk[at:]
                    break
                out += chunk[at:end + 1] if self._streaming else chunk[end:end + 1]
                self._line_ended()
                at = end + 1
                continue
            byte = chunk[at]
            at += 1
            if byte in (0x0A, 0x0D):  # the end of a held line (or an empty line)
                if self._held:
                    out += self._checked(bytes(self._held))
                out.append(byte)
                self._line_ended()
                continue
            self._held.append(byte)
            if not self._candidate():  # no retry line: what was held, and the rest of the line, pass
                out += self._held
                self._held.clear()
                self._streaming = True
            elif len(self._held) > _RETRY_LINE:
                out += b":"  # a comment: the line stays a line, its field ignored
                self._held.clear()
                self._skipping = True
        return bytes(out)

    def _line_ended(self) -> None:
        self._held.clear()
        self._streaming = self._skipping = False
        self._first = False

    def _candidate(self) -> bool:
        """Whether the held start of the line may still be a ``retry`` line."""
        held = bytes(self._held)
        if self._first and _BOM.startswith(held[:3]):
            if len(held) < 3:
                return True
            held = held[3:]
        return held.startswith(b"retry:") or b"retry:".startswith(held)

    def close(self) -> bytes:
        """The stream ended: a held line without its line end, checked as a whole one is."""
        held = bytes(self._held)
        self._held.clear()
        return self._checked(held) if held else b""

    @staticmethod
    def _checked(line: bytes) -> bytes:
        """A held ``retry`` line as the SDK may read it: its value ASCII digits at least the floor."""
        bom = line[:3] if line.startswith(_BOM) else b""
        name, colon, value = line[len(bom):].partition(b":")
        if name != b"retry" or not colon:
            return line  # (``retry`` without a colon: a field with no value, ignored by any reader)
        value = value[1:] if value.startswith(b" ") else value
        if not value or not value.isdigit():  # bytes.isdigit: ASCII digits only, as WHATWG asks
            return bom + b":"
        return line if int(value) >= _RETRY_FLOOR_MS else bom + b"retry: %d" % _RETRY_FLOOR_MS


class _TeeStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, log: WireLog, exchange: int, status: int,
                 content_type: str, max_bytes: int, wait: int | None = None, stand_ins: bool = False) -> None:
        self._inner = inner
        self._stand_ins = stand_ins
        """The exchange is a POST of a request the client reads the answer of from its bytes: a
        large answer is passed to the SDK as its stand-in (``_wire.stand_in``)."""
        self._wait = wait
        self._log = log
        self._exchange = exchange
        self._status = status
        self._sse = SSEParser() if content_type.startswith("text/event-stream") else None
        self._guard = _RetryGuard() if self._sse is not None else None
        self._json = content_type.startswith("application/json")
        self._body = bytearray()
        self._max = max_bytes
        self._done = False
        self._event: list[bytes] = []
        """The bytes of the event being read (its lines so far, in the pieces they came in: never
        one buffer grown, and copied as it grows), to bound it and record it cut, and to pass it
        to the SDK once dispatched."""
        self._event_size = 0
        self._unfed = 0
        """The first piece of ``_event`` not fed to the parser, that of the line not yet ended: its
        bytes are fed once it ends (or the stream does), so they are held once, here, not also
        in the parser's buffer."""
        self._error_size: int | None = None
        """An error body read ahead (its start in ``_body``): its size, as far as it was read."""
        self._error_whole = True
        """Whether the error body was read to its end (not past the byte or time bound)."""

    async def read_error_body(self, seconds: float) -> None:
        """Read an HTTP error body that the SDK never reads (it answers the request with a
        stand-in error): its start is kept for the failure, the rest only counted, within a
        byte and a time bound."""
        import anyio

        size = 0
        self._error_whole = False
        with anyio.move_on_after(seconds):
            try:
                async for chunk in self._inner:
                    if size < _ERROR_QUOTED:
                        self._body += chunk[: _ERROR_QUOTED - size]
                    size += len(chunk)
                    if size > _ERROR_COUNTED:
                        size = _ERROR_COUNTED + 1  # "more than" the bound, whatever the chunks
                        break
                else:
                    self._error_whole = True
            except (httpx2.TransportError, httpx2.DecodingError):
                self._error_whole = True  # what came before the break is all the server said
        self._error_size = size

    async def __aiter__(self) -> AsyncIterator[bytes]:
        # An event stream passes an event at a time, once dispatched (``_take``). A body (JSON,
        # which the SDK reads whole, or another type) is held here alone and passed once ended,
        # as the one bytes object the frame records: the SDK's read of it joins a single part,
        # which is that object, no copy. Passed as it came, every body was held three times over
        # (here, in the SDK's list of parts, in their join), and a body past max_bytes was
        # joined and parsed by the SDK all the same: an endless one peaked at 7x max_bytes.
        try:
            async for chunk in self._inner:
                parts = self._take(chunk)
                if parts is None:
                    # Past max_bytes: the body is recorded cut (json.too_large of its start) and the
                    # stream ends here, so this request fails at once and memory stays bounded
                    # (a body's start is never passed: the SDK reads an empty body, a parse error;
                    # nor an event's: the SDK never held it).
                    self._finish()
                    return
                if self._guard is not None:
                    for part in parts:
                        passed = self._guard.feed(part)
                        if passed:
                            yield passed
        except httpx2.TransportError as exc:
            # Recorded, then ended quietly: the SDK's own handling of a broken body escapes its
            # task group and tears the client down; a short body instead fails just this request
            # (the SDK reports a parse error or a closed stream), and the verdict comes from the
            # recorded frames (transport.closed).
            short = bytes(self._body) if self._sse is None else b""  # (what came: the SDK reads it as before)
            self._finish(broken=f"the response stream broke: {type(exc).__name__}: {exc}")
            if short:
                yield short
            return
        except httpx2.DecodingError as exc:  # a content coding that does not decode: no message bytes
            self._finish(undecodable=f"the response body does not decode as its content-encoding says: {exc}")
            return
        body = self._finish()
        rest = self._guard.close() if self._guard is not None else body
        if rest:
            yield rest

    def _take(self, chunk: bytes) -> list[bytes] | None:
        """Record ``chunk``; None once a body, or an event of a stream, passes max_bytes. Else, of
        a stream, the bytes the SDK may read now, in parts (none for a body, passed once ended)."""
        if self._sse is not None:
            # Fed a line at a time, so the event being read is known to the byte: past max_bytes it
            # is recorded cut (json.too_large, as a body is) and the stream ends, memory bounded.
            # An event's bytes reach the SDK once it is dispatched, or the lines between events
            # once they end: the SDK acts on nothing before (an event's fields count at its empty
            # line). An unfinished event is held here alone, in ``_event`` (its last line fed to
            # the parser once ended), never also in the parser's buffer nor in the SDK's line and
            # data buffers: an endless event line was held four times over, and copied again as
            # the SDK flushed it at the stream's end (16 MB added ~6x).
            parts: list[bytes] = []
            ready = bytearray()
            for piece in chunk.splitlines(keepends=True):  # after CRLF, LF or CR: the parser's line ends
                if piece[-1:] not in (b"\n", b"\r"):  # (the chunk's last piece) a line going on
                    if self._held(piece):
                        self._cut()
                        return None
                    continue
                self._feed_unfed()
                recorded = self._record(self._sse.feed(piece))
                if not self._sse.pending:  # between events
                    standin = stand_in(recorded[-1]) if recorded and self._stand_ins else None
                    if standin is not None:  # (the event the SDK reads: its lines, a data line alone)
                        self._event, self._event_size = [b"data: " + standin + b"\n"], len(standin) + 7
                    if self._event_size > _PART:  # (a long event passed as it is, not copied into ``ready``)
                        parts += [bytes(ready), b"".join(self._event)] if ready else [b"".join(self._event)]
                        ready.clear()
                    else:
                        for held in self._event:
                            ready += held
                    self._event, self._event_size, self._unfed = [], 0, 0
                    ready += piece
                    continue
                cut = self._held(piece)
                self._unfed = len(self._event)
                if cut:
                    self._cut()
                    return None
            if ready:
                parts.append(bytes(ready))
            return parts
        self._body += chunk[: self._max + 1 - len(self._body)]
        return [] if len(self._body) <= self._max else None

    def _held(self, piece: bytes) -> bool:
        """Hold ``piece`` as the event's (as far as max_bytes + 1); whether the event passed max_bytes."""
        if self._event_size + len(piece) > self._max:
            piece = piece[: self._max + 1 - self._event_size]
        self._event.append(piece)
        self._event_size += len(piece)
        return self._event_size > self._max

    def _feed_unfed(self) -> None:
        """Feed the parser the start of the line being read (held in ``_event`` until it ends)."""
        assert self._sse is not None
        for held in self._event[self._unfed:]:
            self._record(self._sse.feed(held))
        self._unfed = len(self._event)

    def _cut(self) -> None:
        """The event passed max_bytes: recorded cut (its first max_bytes + 1 bytes), the stream ended."""
        assert self._sse is not None
        self._sse.close()  # (the event's data lines, gone before the frame's copy is made)
        cut, self._event, self._event_size = self._event, [], 0
        self._log.add("in", "message", b"".join(cut), exchange=self._exchange, status=self._status, cut=True)
        self._done = True

    def _record(self, events: list[SSEEvent]) -> list[Frame]:
        return [self._log.add("in", "message" if event.event == "message" else "event", event.data,
                              exchange=self._exchange, status=self._status) for event in events]

    def _finish(self, broken: str | None = None, undecodable: str | None = None) -> bytes:
        """Record the end of the response; a body's bytes, as recorded (held no more here: the
        frame's bytes are the one copy), else empty."""
        if self._done:
            return b""
        self._done = True
        if undecodable:
            self._log.add("in", "http_error", f"HTTP {self._status}: {undecodable}".encode(), exchange=self._exchange,
                          status=self._status)
            return b""
        if self._sse is not None:
            self._feed_unfed()  # (a line the stream's end left unfinished: parsed as if fed as it came)
            self._record(self._sse.close())
            if broken or self._sse.dropped:
                self._log.add("in", "eof", (broken or "the event stream ended inside an event").encode(),
                              exchange=self._exchange, status=self._status)
            return b""
        if broken:
            self._log.add("in", "eof", broken.encode(), exchange=self._exchange, status=self._status)
            return b""
        body = bytes(self._body)
        self._body = bytearray()  # (the bytes above are the one copy held)
        blank = not body or body.isspace()  # (once, and no copy: strip() copied a body that ends in a newline)
        if self._json or (not blank and self._status < 400):
            frame = self._log.add("in", "message", body, exchange=self._exchange, status=self._status,
                                  cut=len(body) > self._max)
            standin = stand_in(frame) if self._stand_ins and self._error_size is None else None
            if standin is not None:
                return standin  # (the SDK reads the stand-in; the frame holds the body)
        elif self._status >= 400 or not blank:
            self._log.add("in", "http_error", self._error_text(body).encode(), exchange=self._exchange,
                          status=self._status, retry_after=self._wait)
        elif self._status == 202:
            self._log.add("in", "http_error", b"HTTP 202 Accepted without a response body",
                          exchange=self._exchange, status=self._status)
        return body if self._error_size is None else b""  # (an error body read ahead: the SDK never got it)

    def _error_text(self, body: bytes) -> str:
        """``HTTP 500: <the body's start>``, and its size when more of it was not quoted."""
        size = len(body) if self._error_size is None else self._error_size
        if size == 0 and self._error_whole:
            return f"HTTP {self._status} with an empty body"
        text = f"HTTP {self._status}: {body[:_ERROR_QUOTED].decode('utf-8', 'replace')}"
        if not self._error_whole:
            more = f"more than {_ERROR_COUNTED}" if size > _ERROR_COUNTED else f"at least {size}"
            return f"{text}… ({more} bytes: not read to its end)"
        return text + (f"… ({size} bytes in all)" if size > _ERROR_QUOTED else "")

    async def aclose(self) -> None:
        self._finish()
        await self._inner.aclose()


class RecordingTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that records every exchange's request and response bytes."""

    def __init__(self, log: WireLog, inner: httpx2.AsyncBaseTransport | None = None,
                 max_bytes: int = 64 * 1024 * 1024, error_seconds: float = _ERROR_SECONDS) -> None:
        self._log = log
        self._error_seconds = error_seconds
        self._inner = inner or httpx2.AsyncHTTPTransport()
        self._exchanges = itertools.count(1)
        self._max = max_bytes
        self.bad_session: str | None = None
        """A session id the server issued that is not visible ASCII (0x21-0x7E), which it MUST be:
        the client refuses the connection (``CannotConnect``, cause ``protocol``)."""
        self._answered = False
        """Whether the server has answered a request (any status) on this connection."""
        self.ended_session: str | None = None
        """The session id a POST carried when the server answered it 404: the server ended that
        session, and the client must start a new one (MCP Streamable HTTP, session management)."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        exchange = next(self._exchanges)
        stand_ins = False
        if request.method == "POST":
            body = await request.aread()  # a request rebuilt for a redirect has its body unread
            self._log.add("out", "message", body, exchange=exchange)
            look = peek_shape(body)  # (its method: no value of a request of many megabytes built)
            stand_ins = look.kind == "request" and look.method in READ_FROM_BYTES
        try:
            response = await self._inner.handle_async_request(request)
        except _NOT_SENT as exc:
            self._log.add("in", "send_failed", f"{type(exc).__name__}: {exc}".encode(), exchange=exchange)
            if request.method != "POST" or not self._answered:
                raise  # (connecting: the connection fails, CannotConnect says why)
            # The server answered before and cannot be reached now (it went away): raised, this
            # escaped the SDK's task group and tore the client down, the call's outcome lost. An
            # empty error response fails just this request; the recorded send_failed of its
            # exchange says it was not sent.
            return httpx2.Response(502, headers={"content-type": "text/plain"}, content=b"", request=request)
        except httpx2.TransportError as exc:
            self._log.add("in", "eof", f"{type(exc).__name__}: {exc}".encode(), exchange=exchange)
            if request.method != "POST":
                raise
            # The connection broke after the request went out (closed, a garbage status line):
            # raised, it escapes the SDK's task group and tears the client down. An empty error
            # response instead fails just this request; the recorded end of stream is its verdict
            # (transport.closed).
            return httpx2.Response(502, headers={"content-type": "text/plain"}, content=b"", request=request)
        except Exception as exc:
            self._log.add("in", "eof", f"{type(exc).__name__}: {exc}".encode(), exchange=exchange)
            raise
        self._answered = True
        if request.method not in ("POST", "GET"):
            return response
        session = request.headers.get("mcp-session-id")
        if request.method == "POST" and response.status_code == 404 and session:
            self.ended_session = session
        issued = response.headers.get_list("mcp-session-id") if request.method == "POST" else []
        if issued and not all(_VISIBLE_ASCII.fullmatch(value) for value in issued):
            # A session id MUST be visible ASCII (Streamable HTTP, session management): one that is
            # not cannot go back in a header (httpx2 refuses to encode it, or it would carry
            # control bytes to the server); it is kept for the connect step to refuse, not used.
            self.bad_session = next(v for v in issued if not _VISIBLE_ASCII.fullmatch(v))
            headers = response.headers.copy()
            del headers["mcp-session-id"]
            response = httpx2.Response(response.status_code, headers=headers, stream=response.stream,
                                       request=request, extensions=response.extensions)
        # GET opens the server's own SSE stream (server requests, notifications, and the answers
        # a resumed stream replays): its events are frames too, in their own exchange.
        # (compressed although identity was asked: the message bytes are the decoded ones)
        stream, headers = decoded("httpx2", request, response.status_code, response.stream, response.headers)
        content_type = response.headers.get("content-type", "").lower()
        tee = _TeeStream(stream, self._log, exchange, response.status_code, content_type, self._max,
                         retry_after(response.headers.get("retry-after")) if response.status_code >= 400 else None,
                         stand_ins)
        if response.status_code >= 400 and not content_type.startswith(("application/json", "text/event-stream")):
            # the SDK reads none of it: what the server said would be lost
            await tee.read_error_body(self._error_seconds)
        return httpx2.Response(response.status_code, headers=headers, stream=tee, request=request,
                               extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()


def recording_http_client(log: WireLog, *, headers: dict[str, str] | None = None,
                          auth: httpx2.Auth | None = None, timeout: float = 30.0,
                          max_bytes: int = 64 * 1024 * 1024) -> tuple[httpx2.AsyncClient, RecordingTransport]:
    """An ``httpx2.AsyncClient`` for ``streamable_http_client(url, http_client=...)``, and its
    recording transport."""
    merged = {"accept-encoding": "identity", **(headers or {})}
    transport = RecordingTransport(log, max_bytes=max_bytes, error_seconds=min(_ERROR_SECONDS, timeout / 2))
    return httpx2.AsyncClient(transport=transport, headers=merged, auth=auth,
                              timeout=httpx2.Timeout(timeout, read=max(timeout, 30.0))), transport


_VISIBLE_ASCII: Final = re.compile(r"[\x21-\x7e]+")
"""What a session id MUST consist of (Streamable HTTP, session management: visible ASCII)."""
