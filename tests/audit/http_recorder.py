"""An httpx2 transport that records a frame log of Streamable HTTP traffic (the tests' HTTP
recording harness): each POST body is a c2s frame, each response a s2c frame (a JSON body) or
one frame per server-sent event (parsed with ``frames.SSEParser``, data bytes exact), with the
HTTP exchange number, method, status, content type, session and protocol-version headers and
the event id — the fields of the frame log format. Give the SDK's ``streamable_http_client``
an ``httpx2.AsyncClient(transport=RecordingTransport(...))``.

(Once the tap is merged, its ``tap.http_client()`` writes the same log.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2

from mcp_verdict.frames import SSEParser

from .recorder import Recorder


class _Tee(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, recorder: Recorder, http: dict[str, Any]) -> None:
        self._inner = inner
        self._recorder = recorder
        self._http = http
        self._sse = SSEParser() if http.get("content_type", "").startswith("text/event-stream") else None
        self._body = bytearray()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                if self._sse is not None:
                    for event in self._sse.feed(chunk):
                        http = dict(self._http, event_id=event.id) if event.id is not None else self._http
                        self._recorder.write("s2c", "message", event.data, transport="http", http=http)
                else:
                    self._body += chunk
                yield chunk
        finally:
            if self._sse is not None:
                self._recorder.write("s2c", "eof", note="the event stream ended", transport="http", http=self._http)
            elif self._body:
                self._recorder.write("s2c", "message", bytes(self._body), transport="http", http=self._http)

    async def aclose(self) -> None:
        await self._inner.aclose()


class RecordingTransport(httpx2.AsyncBaseTransport):
    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self._inner = httpx2.AsyncHTTPTransport()
        self._exchanges = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self._exchanges += 1
        http: dict[str, Any] = {"exchange": self._exchanges, "method": request.method}
        for header, field in (("mcp-session-id", "session"), ("mcp-protocol-version", "protocol_version")):
            if header in request.headers:
                http[field] = request.headers[header]
        body = await request.aread()
        if body:
            self._recorder.write("c2s", "message", body, transport="http", http=http)
        response = await self._inner.handle_async_request(request)
        answer = dict(http, status=response.status_code)
        content_type = response.headers.get("content-type")
        if content_type:
            answer["content_type"] = content_type
        session = response.headers.get("mcp-session-id")
        if session and "session" not in answer:
            answer["session"] = session
        return httpx2.Response(response.status_code, headers=response.headers,
                               stream=_Tee(response.stream, self._recorder, answer), extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()
