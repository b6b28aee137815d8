"""A Streamable HTTP upstream that records the headers of every request it receives, for the
proxy's header tests: ``GET /seen`` answers the list so far (method, headers as received, in
order) and is not recorded; a POST with an id is answered with an empty result in one JSON body
(for the method ``cookie/set``, with ``Set-Cookie: affinity=a1``, as a load balancer pins a
client to a backend), one without with 202; a GET is answered with an SSE stream that ends at
once (405 where it carries ``X-No-Stream``); a DELETE with 200. A POST of ``stream/resume`` is
answered with an SSE stream holding only a priming event (id ``p-1``, ``retry: 10``), closed
before its answer; a GET with ``Last-Event-ID: p-1`` then gets that answer (event ``p-2``), as a
server that resumes streams (2025-06-18 basic/transports, Resumability and Redelivery). Any
answer to a request that carries ``X-Set-Cookie`` (a header of the test's, forwarded as any
other) sets two cookies, :data:`COOKIES`, in two ``Set-Cookie`` fields. A POST of ``hang``
opens an event stream that never answers it; so does a batch (2025-03-26) that holds one.
``tools/list`` is answered with the tools of ``param_server.py`` (their ``x-mcp-header``
properties). ``GET /methods``: the JSON-RPC method of every POST so far (each member of a batch);
``GET /cancelled``: the ``requestId`` of every ``notifications/cancelled``.
Prints ``listening on URL``."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ._serve import run
    from .param_server import TOOLS
else:
    from _serve import run
    from param_server import TOOLS

SEEN: list[tuple[str, list[tuple[str, str]]]] = []
METHODS: list[object] = []
"""The JSON-RPC method of every POST, in order (``GET /methods``)."""
COOKIES = ("affinity=a1; Path=/", "theme=dark; Path=/; HttpOnly")
CANCELLED: list[object] = []
"""The ``requestId`` of every ``notifications/cancelled``, in order (``GET /cancelled``)."""
RESUMED: list[object] = []
"""The id of the last ``stream/resume`` request, answered on its stream's resume."""


def _cookies(request: web.BaseRequest, answer: web.StreamResponse) -> web.StreamResponse:
    if "X-Set-Cookie" in request.headers:
        for cookie in COOKIES:
            answer.headers.add("Set-Cookie", cookie)
    return answer


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.path == "/seen":
        return web.json_response(SEEN)
    if request.path == "/methods":
        return web.json_response(METHODS)
    if request.path == "/cancelled":
        return web.json_response(CANCELLED)
    SEEN.append((request.method, list(request.headers.items())))
    if request.method == "POST":
        message = json.loads(await request.read())
        members = message if isinstance(message, list) else [message]
        METHODS.extend(member.get("method") for member in members)
        CANCELLED.extend(member["params"]["requestId"] for member in members
                         if member.get("method") == "notifications/cancelled")
        if any(member.get("method") == "hang" for member in members):  # never answered: its stream stays open
            hang = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await hang.prepare(request)
            await asyncio.sleep(3600)
            return hang
        if "id" not in message:
            return _cookies(request, web.Response(status=202))
        if message.get("method") == "stream/resume":
            RESUMED[:] = [message["id"]]
            stream = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await stream.prepare(request)
            await stream.write(b"id: p-1\nretry: 10\ndata:\n\n")
            await stream.write_eof()
            return stream
        result = {"resultType": "complete", "tools": TOOLS} if message.get("method") == "tools/list" else {}
        answer = web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": result})
        if message.get("method") == "cookie/set":
            answer.headers["Set-Cookie"] = "affinity=a1; Path=/"
        return _cookies(request, answer)
    if request.method == "GET" and "X-No-Stream" in request.headers:  # (an upstream that offers none)
        return _cookies(request, web.Response(status=405, headers={"Allow": "POST, DELETE"}))
    if request.method == "GET":
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await _cookies(request, response).prepare(request)
        if request.headers.get("Last-Event-ID") == "p-1" and RESUMED:
            resumed = json.dumps({"jsonrpc": "2.0", "id": RESUMED[0], "result": {}})
            await response.write(f"id: p-2\nevent: message\ndata: {resumed}\n\n".encode())
        await response.write_eof()
        return response
    return _cookies(request, web.Response(status=200))


if __name__ == "__main__":
    run(handle, announce="url")
