"""A hand-written Streamable HTTP upstream (2025-11-25 sessions) for the proxy's tests of the
order in which a host's frames reach the upstream. It notes each message as it takes it: a
request at once; a notification or a response only once another POST has come or :data:`HOLD`
seconds have passed (a server slow to take them, as a busy one is: a later request sent beside
it would be taken first), then answers it 202; a ``notifications/roots/list_changed`` never (its
POST is left unanswered: a delivery that hangs).

``initialize`` answers with ``Mcp-Session-Id: o-1`` and the host's protocol version when it is
2025-03-26 (batches), else 2025-11-25; GET answers 405 (no stream); DELETE 200. ``tools/list``
answers ``{"tools": []}``. ``tools/call`` by name: ``ask`` answers with an event stream whose
first event is a ``roots/list`` request (id ``"r-1"``), its answer once the host's response to it
is taken (the text ``answered``); ``hold`` opens an event stream, sends a ``notifications/message``
(the host sees the stream is open) and never answers (its POST stays open until the client closes
it); ``held`` is never answered and opens no stream (a server answering with JSON, not yet);
``slow`` is taken :data:`TAKE_LATE` seconds after its POST came (a server slow to take it), then
is as ``hold`` (without the message); ``json`` is answered at once with a JSON body (the text
``answered``). A batch (a JSON array) is taken message by message, :data:`TAKE_LATE` seconds late
when it holds a ``slow`` call, and opens an event stream that answers nothing. ``GET /order``
answers what was taken, in order: each request's method, ``response <id>`` for a response, a
``notifications/cancelled`` as ``notifications/cancelled <requestId>``. Prints ``listening on URL``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ._serve import run
else:
    sys.path.insert(1, str(Path(__file__).parent))
    from _serve import run

HOLD = 0.5
"""Seconds a notification or a response is held when no other POST comes: with the proxy's
fault, the POST behind it comes within milliseconds (it is sent at once); a slower machine
could only hide the fault in one run, never fail the fixed proxy."""
TAKE_LATE = 1.0
"""Seconds after its POST came that a ``slow`` call is taken: more than :data:`HOLD`, so that a
cancellation sent beside it, not after it was taken, is taken first."""
ORDER: list[str] = []
LATER: list[asyncio.Event] = []
"""One event per notification or response held: set when another POST comes."""
ROOTS: dict[str, asyncio.Future[None]] = {}
"""The ``roots/list`` requests sent, by id: done once the host's answer is taken."""


def _taken(message: dict[str, Any]) -> str:
    method = message.get("method")
    if method is None:
        return f"response {message.get('id')}"
    if method == "notifications/cancelled":
        return f"{method} {(message.get('params') or {}).get('requestId')}"
    return str(method)


def _answer(message: dict[str, Any], result: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.path == "/order":
        return web.json_response(ORDER)
    if request.method == "GET":
        return web.Response(status=405)
    if request.method == "DELETE":
        return web.Response(status=200)
    message = json.loads(await request.read())
    for later in LATER:
        later.set()
    if isinstance(message, list):  # a 2025-03-26 batch
        if any((m.get("params") or {}).get("name") == "slow" for m in message):
            await asyncio.sleep(TAKE_LATE)
        ORDER.extend(map(_taken, message))
        batch = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await batch.prepare(request)
        await asyncio.Event().wait()
        return batch
    if "method" not in message or "id" not in message:  # a notification, a response
        if message.get("method") == "notifications/roots/list_changed":
            await asyncio.Event().wait()
        later = asyncio.Event()
        LATER.append(later)
        try:
            await asyncio.wait_for(later.wait(), HOLD)
        except TimeoutError:
            pass
        finally:
            LATER.remove(later)
        ORDER.append(_taken(message))
        asked = ROOTS.get(str(message.get("id")))
        if asked is not None and not asked.done():
            asked.set_result(None)
        return web.Response(status=202)
    name = (message.get("params") or {}).get("name")
    if name == "slow":
        await asyncio.sleep(TAKE_LATE)
    ORDER.append(_taken(message))
    method = message["method"]
    if method == "initialize":
        asked = (message.get("params") or {}).get("protocolVersion")
        result: dict[str, Any] = {"protocolVersion": "2025-03-26" if asked == "2025-03-26" else "2025-11-25",
                                  "capabilities": {"tools": {}, "logging": {}},
                                  "serverInfo": {"name": "order", "version": "0"}}
        return web.Response(body=_answer(message, result), content_type="application/json",
                            headers={"Mcp-Session-Id": "o-1"})
    if method != "tools/call":
        return web.Response(body=_answer(message, {"tools": []}), content_type="application/json")
    if name == "held":
        await asyncio.Event().wait()
    if name == "json":
        answer = _answer(message, {"content": [{"type": "text", "text": "answered"}], "isError": False})
        return web.Response(body=answer, content_type="application/json")
    stream = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await stream.prepare(request)
    if name in ("hold", "slow"):
        if name == "hold":
            log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "held"}}
            await stream.write(b"data: " + json.dumps(log).encode() + b"\n\n")
        await asyncio.Event().wait()
    if name == "ask":
        ROOTS["r-1"] = asyncio.get_running_loop().create_future()
        ask = {"jsonrpc": "2.0", "id": "r-1", "method": "roots/list"}
        await stream.write(b"data: " + json.dumps(ask).encode() + b"\n\n")
        await ROOTS["r-1"]
    text = "answered" if name == "ask" else "ok"
    answer = _answer(message, {"content": [{"type": "text", "text": text}], "isError": False})
    await stream.write(b"data: " + answer + b"\n\n")
    await stream.write_eof()
    return stream


if __name__ == "__main__":
    run(handle, announce="url")
