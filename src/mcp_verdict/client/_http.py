"""Streamable HTTP, recorded at the byte level under the SDK's own transport.

The SDK's ``streamable_http_client`` takes any ``httpx2.AsyncClient``; this module gives it one
whose transport records each POST's body and tees every POST and GET response into the wire
log before the SDK parses anything: a JSON body becomes one frame, each server-sent event one
frame (read by :class:`mcp_verdict.frames.SSEParser`: an event with empty data is none).
``accept-encoding: identity`` keeps the recorded bytes the message bytes (no gzip).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx2

from ..frames import SSEParser
from ._wire import WireLog

_NOT_SENT: Final = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.UnsupportedProtocol)


class _TeeStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, log: WireLog, exchange: int, status: int,
                 content_type: str, max_bytes: int) -> None:
        self._inner = inner
        self._log = log
        self._exchange = exchange
        self._status = status
        self._sse = SSEParser() if content_type.startswith("text/event-stream") else None
        self._json = content_type.startswith("application/json")
        self._body = bytearray()
        self._max = max_bytes
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                if not self._take(chunk):
                    # Past max_bytes: the body is recorded cut (json.too_large of its start) and the
                    # stream ends here, so this request fails at once and memory stays bounded.
                    self._finish()
                    return
                yield chunk
        except httpx2.TransportError as exc:
            # Recorded, then ended quietly: the SDK's own handling of a broken body escapes its
            # task group and tears the client down; a short body instead fails just this request
            # (the SDK reports a parse error or a closed stream), and the verdict comes from the
            # recorded frames (transport.closed).
            self._finish(broken=f"the response stream broke: {type(exc).__name__}: {exc}")
            return
        self._finish()

    def _take(self, chunk: bytes) -> bool:
        """Record ``chunk``; False once a body (not an event stream) passes max_bytes."""
        if self._sse is not None:
            for event in self._sse.feed(chunk):
                self._log.add("in", "message", event.data, exchange=self._exchange, status=self._status)
            return True
        self._body += chunk[: self._max + 1 - len(self._body)]
        return len(self._body) <= self._max

    def _finish(self, broken: str | None = None) -> None:
        if self._done:
            return
        self._done = True
        if self._sse is not None:
            for event in self._sse.close():
                self._log.add("in", "message", event.data, exchange=self._exchange, status=self._status)
            if broken or self._sse.dropped:
                self._log.add("in", "eof", (broken or "the event stream ended inside an event").encode(),
                              exchange=self._exchange, status=self._status)
            return
        if broken:
            self._log.add("in", "eof", broken.encode(), exchange=self._exchange, status=self._status)
            return
        body = bytes(self._body)
        if self._json or (body.strip() and self._status < 400):
            self._log.add("in", "message", body, exchange=self._exchange, status=self._status)
        elif self._status >= 400 or body.strip():
            preview = body[:200].decode("utf-8", "replace")
            self._log.add("in", "http_error", f"HTTP {self._status}: {preview}".encode(),
                          exchange=self._exchange, status=self._status)
        elif self._status == 202:
            self._log.add("in", "http_error", b"HTTP 202 Accepted without a response body",
                          exchange=self._exchange, status=self._status)

    async def aclose(self) -> None:
        self._finish()
        await self._inner.aclose()


class RecordingTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that records every exchange's request and response bytes."""

    def __init__(self, log: WireLog, inner: httpx2.AsyncBaseTransport | None = None,
                 max_bytes: int = 64 * 1024 * 1024) -> None:
        self._log = log
        self._inner = inner or httpx2.AsyncHTTPTransport()
        self._exchanges = itertools.count(1)
        self._max = max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        exchange = next(self._exchanges)
        if request.method == "POST":
            body = await request.aread()  # a request rebuilt for a redirect has its body unread
            self._log.add("out", "message", body, exchange=exchange)
        try:
            response = await self._inner.handle_async_request(request)
        except _NOT_SENT as exc:
            self._log.add("in", "send_failed", f"{type(exc).__name__}: {exc}".encode(), exchange=exchange)
            raise
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
        if request.method not in ("POST", "GET"):
            return response
        # GET opens the server's own SSE stream (server requests, notifications, and the answers
        # a resumed stream replays): its events are frames too, in their own exchange.
        stream: Any = response.stream
        content_type = response.headers.get("content-type", "").lower()
        return httpx2.Response(
            response.status_code, headers=response.headers,
            stream=_TeeStream(stream, self._log, exchange, response.status_code, content_type, self._max),
            request=request, extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()


def recording_http_client(log: WireLog, *, headers: dict[str, str] | None = None,
                          auth: httpx2.Auth | None = None, timeout: float = 30.0,
                          max_bytes: int = 64 * 1024 * 1024) -> httpx2.AsyncClient:
    """An ``httpx2.AsyncClient`` for ``streamable_http_client(url, http_client=...)``."""
    merged = {"accept-encoding": "identity", **(headers or {})}
    return httpx2.AsyncClient(transport=RecordingTransport(log, max_bytes=max_bytes), headers=merged, auth=auth,
                              timeout=httpx2.Timeout(timeout, read=max(timeout, 30.0)))
