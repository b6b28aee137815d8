"""A 2025 Streamable HTTP upstream (aiohttp) whose GET stream — the one a client opens for the
server's own messages — behaves one way per run (argv[1]), for the proxy's own GET stream (a
stdio host's session):

- ``end``: the first GET sends one event (id ``e-1``, a ``notifications/message`` ``"one"``)
  and, once a ``tools/call`` has come (at most 20 s), ends the stream cleanly; every later GET
  sends ``"two"`` (id ``e-2``) and stays open;
- ``reset``: the same, but the first stream is reset (an RST) after its event;
- ``retry``: the same as ``end``, the first stream giving ``retry: 300`` before its event;
- ``no-ids``: the same as ``end``, with no event ids;
- ``cut:<n>``: a load balancer cutting idle streams: each of the first ``n`` GETs opens a stream
  that ends after 0.5 s with no event; the next one sends ``"one"`` (no event id) and stays open;
- ``stall``: no GET is ever answered (no response headers);
- ``status:<n>``: every GET is answered HTTP ``n`` with the official Python SDK's JSON-RPC error
  body (a null id, -32600), e.g. 405 as a server offering no stream, 404 for a session it ended.

POSTs: ``initialize`` is answered with ``protocolVersion`` 2025-06-18 and ``Mcp-Session-Id:
s-1`` (one JSON body); a notification gets 202; a ``tools/call`` is answered ``ok`` — in
``end``, ``reset``, ``retry`` and ``no-ids`` only once a second GET has come (at most 20 s), so
that the first stream's end lies between the call and its answer. ``GET /seen`` answers the
``Last-Event-ID`` of every GET so far (null when absent).

Prints its port on its first line and stops when its stdin closes (``tests/processes.port_server``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ._serve import reset, run
else:
    from _serve import reset, run

MODE = sys.argv[1]
SEEN: list[str | None] = []
SECOND = asyncio.Event()
CALLED = asyncio.Event()
HELD = ("end", "reset", "retry", "no-ids")


def _event(text: str, event_id: str | None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    data = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": text}})
    return f"{head}event: message\ndata: {data}\n\n".encode()


async def _get(request: web.BaseRequest) -> web.StreamResponse:
    SEEN.append(request.headers.get("Last-Event-ID"))
    if MODE == "stall":
        await asyncio.Event().wait()  # never answered (cancelled when the client gives up)
    if MODE.startswith("status:"):
        status = int(MODE.split(":", 1)[1])
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": f"HTTP {status} from the server"}}
        return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")
    ids = MODE != "no-ids"
    response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    if MODE.startswith("cut:"):
        if len(SEEN) <= int(MODE.split(":", 1)[1]):
            await asyncio.sleep(0.5)  # (idle: cut)
            await response.write_eof()
            return response
        await response.write(_event("one", None))
        await asyncio.Event().wait()  # open until the client closes it
    if len(SEEN) > 1:
        SECOND.set()
        await response.write(_event("two", "e-2" if ids else None))
        await asyncio.Event().wait()  # open until the client closes it
    if MODE == "retry":
        await response.write(b"retry: 300\n\n")
    await response.write(_event("one", "e-1" if ids else None))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(CALLED.wait(), 20)  # (the stream ends while a call is in flight)
    if MODE == "reset":
        reset(request)
        return response
    await response.write_eof()
    return response


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.path == "/seen":
        return web.json_response(SEEN)
    if request.method == "GET":
        return await _get(request)
    if request.method == "DELETE":
        return web.Response(status=200)
    message = json.loads(await request.read())
    if "id" not in message or "method" not in message:
        return web.Response(status=202)
    result: dict[str, object] = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "listen", "version": "0"}}
    elif message["method"] == "tools/call" and MODE in HELD:
        CALLED.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(SECOND.wait(), 20)
    answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
    return web.Response(body=answer.encode(), content_type="application/json", headers={"Mcp-Session-Id": "s-1"})


if __name__ == "__main__":
    run(handle, announce="port")
