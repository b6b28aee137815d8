"""Streamable HTTP, recorded at the byte level under the SDK's own transport (httpx2 or httpx).

The SDK's Streamable HTTP transport takes any ``AsyncClient`` (mcp 2.x: httpx2; mcp 1.x: httpx,
also through an ``httpx_client_factory``). The client made here has a transport that records each
POST body before it is sent, and tees every response before the SDK reads it: a JSON body is one
frame, each server-sent event one frame (read by the shared WHATWG parser,
:class:`~mcp_verdict.frames.SSEParser`); the GET stream of a 2025 session is recorded too.
``accept-encoding: identity`` keeps the recorded bytes the message bytes; a body a server
encodes all the same (gzip, deflate...) is decoded as the library decodes it before it is
recorded, and handed to the SDK decoded (without its ``content-encoding``): the verdict reads the
bytes the SDK reads, and a body that cannot be decoded is a broken stream (its call fails alone,
as below). One client is one connection of the tap.

The SDK is left to do what it does; four things are made prompt: a JSON body that is not JSON at
all (no SDK can read it; 1.x would leave its call waiting for the timeout) is handed to the SDK
as a JSON-RPC parse error for the request it answers, and an HTTP failure is recorded for the
exchange so the call's verdict says what it was (an error status whose body is no JSON-RPC
message, which the SDK never reads, is read at once within a byte and a time bound and noted
with its status and Retry-After: ``transport.refused`` when the status says the request was not
run, else ``transport.error``); a connection that breaks
before a POST's request is answered (the server hangs up, a reset, a read timeout) is recorded,
and the SDK is handed a JSON-RPC error for that request — where the SDK's transport would raise
out of its task group and end the whole session; and, for mcp 1.x (httpx),
a JSON-RPC error answering a request in an HTTP 4xx body (as 2026-07-28 servers send -32602) is
handed to the SDK with status 200 — 1.x raises any 4xx out of its transport task and ends the
whole session, where 2.x reads the error. The verdict always reads the recorded status and bytes.
"""

from __future__ import annotations

import functools
import importlib
import itertools
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

import anyio

from ..frames import Answered, SSEParser, error_json, id_key, peek, retry_after
from ._sdk import sdk

if TYPE_CHECKING:
    from ._tap import VerdictTap

_PARSE_ERROR: Final = -32700
_INTERNAL_ERROR: Final = -32603
_MAX_BODY: Final = 64 * 1024 * 1024
_ERROR_QUOTED: Final = 200
"""Bytes of an HTTP error body that is no JSON-RPC message quoted in its failure."""
_ERROR_READ: Final = 1024 * 1024
"""Bytes of such a body read (the rest is left unread: the SDK reads none of it)."""
_ERROR_SECONDS: Final = 5.0
"""Seconds such a body is read for before the SDK is handed the response (a body that trickles
is cut: the failure quotes what came)."""



def _stand_in(tap: VerdictTap, conn: str, body: bytes | None, why: str) -> bytes | None:
    """A JSON-RPC error answering the request a POST carried, when that request is still waiting
    (None: the POST carried no request, or it was answered): what the SDK is handed for an
    exchange that broke, so only that call fails, with the verdict from the wire."""
    if body is None:
        return None
    look = peek(body)
    if look.kind != "request" or tap.tracker.waiting(conn, "client", id_key(look.id)) is None:
        return None
    return error_json(look.id, _INTERNAL_ERROR, f"mcp-verdict tap: {why} (the verdict has the details)")


def _library(name: Literal["auto", "httpx2", "httpx"]) -> Any:
    if name == "auto":
        name = "httpx2" if sdk().major >= 2 else "httpx"
    try:
        return importlib.import_module(name)
    except ImportError:
        from .._extras import MissingExtra

        raise MissingExtra("client" if name == "httpx2" else "langchain", f"tap.http_client(library={name!r})",
                           f"module {name!r} is not installed") from None


def decoded(library: str, request: Any, status: int, stream: Any, headers: Any) -> tuple[Any, Any]:
    """A response's body stream and headers as they are recorded and handed to the SDK: as they
    came, or, for a body the server content-encoded although ``accept-encoding: identity`` was
    asked (gzip, deflate...), decoded by ``library``'s own decoders (what the SDK would read),
    without its ``content-encoding`` and ``content-length``: the recorded bytes are the message
    bytes. A body that cannot be decoded raises ``DecodingError`` as it is read. (The tap's
    transport and the client's recording one.)"""
    if not any(coding.strip().lower() not in ("", "identity")
               for coding in headers.get_list("content-encoding", split_commas=True)):
        return stream, headers
    lib = importlib.import_module(library)
    body = _decoded_stream(library)(lib.Response(status, headers=headers, stream=stream, request=request))
    headers = headers.copy()
    del headers["content-encoding"]
    headers.pop("content-length", None)
    return body, headers


@functools.cache
def _decoded_stream(library: str) -> type[Any]:
    """The body stream of a response decoded as its ``content-encoding`` says (:func:`decoded`),
    for ``library`` (``httpx`` or ``httpx2``: a stream of its own ``AsyncByteStream``)."""
    lib = importlib.import_module(library)

    class Decoded(lib.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, response: Any) -> None:
            self._response = response

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self._response.aiter_bytes():
                yield chunk

        async def aclose(self) -> None:
            await self._response.aclose()

    return Decoded


@functools.cache
def _classes(library: str) -> tuple[type[Any], type[Any]]:
    lib = importlib.import_module(library)
    not_sent = (lib.ConnectError, lib.ConnectTimeout, lib.UnsupportedProtocol)
    broken = (lib.TransportError, lib.DecodingError)
    """What breaks a response stream: the connection, or a body its content-encoding cannot decode."""

    class Tee(lib.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, tap: VerdictTap, conn: str, http: dict[str, Any], content_type: str,
                     answers_request: bool, request_body: bytes | None, wait: int | None = None) -> None:
            self._inner = inner
            self._wait = wait
            self._tap = tap
            self._conn = conn
            self._http = http
            self._sse = SSEParser() if content_type.startswith("text/event-stream") else None
            self._json = content_type.startswith("application/json")
            self._answers = answers_request
            self._request_body = request_body
            self._chunks: list[bytes] = []
            """A buffered body's chunks as they came, joined once at its end (the one copy: the
            bytes judged, kept and handed to the SDK, which reads them as they are)."""
            self._size = 0
            self._done = False
            self._early = False

        async def read_error(self) -> None:
            """Read an HTTP error body that is no JSON-RPC message now, within a byte and a time
            bound, and note the exchange's failure with its status and Retry-After: the SDK reads
            none of it and fails the request with a stand-in error at once, which the call is
            judged from (``transport.refused`` or ``transport.error``)."""
            self._early = True
            read = 0
            with anyio.move_on_after(_ERROR_SECONDS):
                try:
                    async for chunk in self._inner:
                        if self._size < _ERROR_QUOTED:
                            self._chunks.append(chunk[: _ERROR_QUOTED - self._size])
                            self._size += len(self._chunks[-1])
                        read += len(chunk)
                        if read > _ERROR_READ:
                            break
                except broken as exc:
                    self._finish(broken=f"the response stream broke: {type(exc).__name__}: {exc}")
            self._finish()

        async def __aiter__(self) -> AsyncIterator[bytes]:
            if self._early:  # read already (read_error): its quoted start
                yield b"".join(self._chunks)
                return
            try:
                async for chunk in self._inner:
                    if self._sse is not None:
                        for event in self._sse.feed(chunk):
                            self._event(event)
                        yield chunk
                    elif self._size <= _MAX_BODY:
                        self._chunks.append(chunk)
                        self._size += len(chunk)
            except broken as exc:
                why = f"the response stream broke: {type(exc).__name__}: {exc}"
                self._finish(broken=why)
                error = _stand_in(self._tap, self._conn, self._request_body, why) if self._answers else None
                if error is None:
                    raise
                # the SDK reads this instead of the exception that would end its session; a stream's
                # unfinished event is ended first (the SDK drops what it cannot read)
                yield b"\n\nevent: message\ndata: " + error + b"\n\n" if self._sse is not None else error
                return
            tail = self._finish()
            if tail is not None:
                yield tail

        def _event(self, event: Any) -> None:
            http = dict(self._http)
            if event.id:
                http["event_id"] = event.id
            self._tap._feed(self._conn, "s2c", event.data, http)

        def _finish(self, broken: str | None = None) -> bytes | None:
            """Record the end of the body; returns the bytes to hand the SDK (a buffered body)."""
            if self._done:
                return None
            self._done = True
            status = self._http.get("status", 0)
            if self._sse is not None:
                for event in self._sse.close():
                    self._event(event)
                if broken or self._sse.dropped:
                    self._tap._note(self._conn, "s2c", "error", broken or "the event stream ended inside an event",
                                    http=self._http)
                return None
            body = b"".join(self._chunks)  # (one chunk: that same object)
            self._chunks = []  # not held beside the body while the SDK reads it
            if broken:
                self._tap._note(self._conn, "s2c", "error", broken, http=self._http)
                return None
            if len(body) > _MAX_BODY:  # judged as json.too_large; the rest was not kept
                self._tap._note(self._conn, "s2c", "error", f"a body longer than {_MAX_BODY} bytes: its first "
                                                            f"{len(body)} bytes were judged, the rest skipped",
                                http=self._http)
            blank = not body or body.isspace()  # (strip() would copy a body that ends in a newline)
            if self._json or (not blank and status < 400):
                events = self._tap._feed(self._conn, "s2c", body, self._http)
                answered = [e.exchange for e in events if isinstance(e, Answered) and e.exchange.origin == "client"]
                if answered and answered[0].response_peek is not None \
                        and answered[0].response_peek.kind == "unreadable":
                    return error_json(answered[0].request_id, _PARSE_ERROR, "mcp-verdict tap: the server's answer "
                                      "is not JSON (the verdict has the details)")
                return body
            if status >= 400 or not blank:
                preview = body[:200].decode("utf-8", "replace")
                self._tap._note(self._conn, "s2c", "error", f"HTTP {status}: {preview}".rstrip(": "),
                                http=self._http, status=status if status >= 400 else None,
                                retry_after=self._wait)
            elif status == 202 and self._answers:
                self._tap._note(self._conn, "s2c", "error", "HTTP 202 Accepted without an answer to the request",
                                http=self._http)
            return body

        async def aclose(self) -> None:
            await self._inner.aclose()

    class Recording(lib.AsyncBaseTransport):  # type: ignore[misc,name-defined]
        def __init__(self, tap: VerdictTap, conn: str, inner: Any) -> None:
            self._tap = tap
            self._conn = conn
            self._inner = inner
            self._exchanges = itertools.count(1)

        async def handle_async_request(self, request: Any) -> Any:
            exchange = next(self._exchanges)
            http: dict[str, Any] = {"exchange": exchange, "method": request.method}
            version = request.headers.get("mcp-protocol-version")
            if version:
                http["protocol_version"] = version
            session = request.headers.get("mcp-session-id")
            if session:
                http["session"] = session
            body: bytes | None = None
            answers_request = False
            if request.method == "POST":
                body = bytes(request.content)
                answers_request = b'"method"' in body and b'"id"' in body
                self._tap._feed(self._conn, "c2s", body, http)
                self._tap._reused_sent(self._conn, exchange)
            try:
                response = await self._inner.handle_async_request(request)
            except not_sent as exc:
                self._tap._note(self._conn, "c2s", "error", f"not sent: {type(exc).__name__}: {exc}", http=http)
                if body is not None:
                    self._tap._not_sent(self._conn, body)
                raise
            except Exception as exc:
                why = f"the exchange broke before an answer: {type(exc).__name__}: {exc}"
                self._tap._note(self._conn, "s2c", "error", why, http=http)
                error = _stand_in(self._tap, self._conn, body, why) if answers_request else None
                if error is None:
                    raise
                return lib.Response(200, headers={"content-type": "application/json"}, content=error,
                                    request=request)
            if request.method not in ("POST", "GET"):
                return response
            content_type = response.headers.get("content-type", "").lower()
            info = {**http, "status": response.status_code}
            if content_type:
                info["content_type"] = content_type
            session = response.headers.get("mcp-session-id")
            if session:
                info["session"] = session
            status = response.status_code
            stream, headers = decoded(library, request, response.status_code, response.stream, response.headers)
            tee = Tee(stream, self._tap, self._conn, info, content_type, answers_request, body,
                      retry_after(response.headers.get("retry-after")) if status >= 400 else None)
            if status >= 400 and answers_request and not content_type.startswith(("application/json",
                                                                                  "text/event-stream")):
                await tee.read_error()
            if library == "httpx" and status >= 400 and answers_request and content_type.startswith("application/json"):
                status = 200  # mcp 1.x raises any 4xx out of its transport task, ending the session
            return lib.Response(status, headers=headers, stream=tee, request=request,
                                extensions=response.extensions)

        async def aclose(self) -> None:
            try:
                await self._inner.aclose()
            finally:
                self._tap._close(self._conn, "the HTTP client closed")

    return Tee, Recording


def recording_client(tap: VerdictTap, library: Literal["auto", "httpx2", "httpx"], *,
                     headers: Mapping[str, str] | None, timeout: Any, auth: Any, **options: Any) -> Any:
    lib = _library(library)
    _, recording = _classes(lib.__name__)
    inner = options.pop("transport", None) or lib.AsyncHTTPTransport()
    conn = tap._open("http", f"{lib.__name__} client")
    merged = {"accept-encoding": "identity", **dict(headers or {})}
    if timeout is None:
        timeout = lib.Timeout(30.0, read=300.0)  # the SDK's defaults: a server may hold a stream open
    client = lib.AsyncClient(transport=recording(tap, conn, inner), headers=merged, timeout=timeout, auth=auth,
                             **options)
    client.mcp_verdict_conn = conn
    return client
