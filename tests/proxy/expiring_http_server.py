"""A 2025 Streamable HTTP upstream (aiohttp) whose sessions end, for the proxy's tests of a stdio
host's session started again (2025-11-25 basic/transports, Session Management: 3. the server MAY
terminate the session at any time, after which it MUST respond to requests containing that
session ID with HTTP 404 Not Found; 4. a client receiving 404 MUST start a new session).

``argv[1]`` is ``<behaviour>:<n>``: each session answers ``n`` ``tools/call`` requests, then ends
(the next request in it, and its GET stream, get 404 with the JSON-RPC error the official Python
SDK writes, a null id, ``Session not found``; its open GET streams end). Sessions are ``s-1``,
``s-2``, ... in the order of the ``initialize`` requests; ``initialize`` is answered with one JSON
body, the version the client asked for. The behaviours, for the ``initialize`` of every session
after the first:

- ``expire``: answered as the first;
- ``expire-version``: answered with ``protocolVersion`` 2025-03-26 whatever was asked;
- ``expire-refuse``: answered HTTP 503 without a body;
- ``expire-initialized``: answered as the first, but its ``notifications/initialized`` gets 400;
- ``expire-refuse-gather``: as ``expire-refuse``, and the first two requests past a session's end
  are answered together, once both came (each was sent before either 404), and a GET gets 405
  (no stream: the proxy's GET never meets the end).

``argv[1]`` may end in ``:late-get``: a session's open GET streams end not when it ends but when
the next ``initialize`` comes (the client's renewal under way), so the client's GET stream, opened
again in the ended session, meets its 404 only after the renewal began; or in ``:together``: the
request that ends a session gets its 404 once the session's GET stream, opened again in the ended
session, came, and both 404s are answered together (the client meets the end on both paths at once).

A ``tools/call`` is answered with one text block, ``<session> call <k>`` (its k-th call); a GET in
a session opens an event stream whose one event is a ``notifications/message`` with ``data``
``hello from <session>``, open until the session ends. ``GET /seen`` answers ``[HTTP method,
JSON-RPC method or null, JSON-RPC id or null, Mcp-Session-Id or null]`` of every request so far.
Prints ``listening on http://127.0.0.1:PORT/mcp`` and serves until terminated."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ._serve import run
else:
    from _serve import run

BEHAVIOUR, _, CALLS = sys.argv[1].partition(":")
CALLS, _, MODIFIER = CALLS.partition(":")
PER_SESSION = int(CALLS)
LATE_GET = MODIFIER == "late-get"
TOGETHER = MODIFIER == "together"
REOPENED: dict[str, asyncio.Event] = {}
"""``together``: set when a GET comes in the ended session."""
SEEN: list[list[Any]] = []
SESSIONS: dict[str, int] = {}
"""The sessions in force: the calls each has answered."""
ENDED: dict[str, asyncio.Event] = {}
STARTED: list[str] = []
GATHERED: list[asyncio.Event] = []
"""``expire-refuse-gather``: one event per request past a session's end (the first two wait for both)."""


def _not_found() -> web.Response:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Session not found"}}
    return web.Response(status=404, body=json.dumps(body).encode(), content_type="application/json")


def _json(message: dict[str, Any], **headers: str) -> web.Response:
    return web.Response(body=json.dumps(message).encode(), content_type="application/json", headers=headers)


async def _ended() -> web.Response:
    """The 404 of a request in an ended session (``expire-refuse-gather``: the first two together)."""
    if BEHAVIOUR == "expire-refuse-gather" and len(GATHERED) < 2:
        GATHERED.append(asyncio.Event())
        if len(GATHERED) == 2:
            GATHERED[0].set()
        else:
            await GATHERED[0].wait()
    return _not_found()


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.path == "/seen":
        return web.json_response(SEEN)
    session = request.headers.get("Mcp-Session-Id")
    if request.method == "GET":
        SEEN.append(["GET", None, None, session])
        if BEHAVIOUR == "expire-refuse-gather":
            return web.Response(status=405)
        if session not in SESSIONS:
            if TOGETHER and session in REOPENED:
                REOPENED[session].set()
            return _not_found()
        return await _stream(request, session)
    if request.method == "DELETE":
        SEEN.append(["DELETE", None, None, session])
        return web.Response(status=200 if session in SESSIONS else 404)
    message = json.loads(await request.read())
    method, request_id = message.get("method"), message.get("id")
    SEEN.append(["POST", method, request_id, session])
    if method == "initialize":
        again = bool(STARTED)
        if LATE_GET:  # the ended sessions' GET streams end now (after the client's renewal began)
            for ended, event in ENDED.items():
                if ended not in SESSIONS:
                    event.set()
        if again and BEHAVIOUR in ("expire-refuse", "expire-refuse-gather"):
            return web.Response(status=503)
        STARTED.append(new := f"s-{len(STARTED) + 1}")
        SESSIONS[new], ENDED[new], REOPENED[new] = 0, asyncio.Event(), asyncio.Event()
        version = "2025-03-26" if again and BEHAVIOUR == "expire-version" else message["params"]["protocolVersion"]
        result: dict[str, Any] = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "expiring", "version": "0"}}
        return _json({"jsonrpc": "2.0", "id": request_id, "result": result}, **{"Mcp-Session-Id": new})
    if session not in SESSIONS:
        return await _ended() if request_id is not None else _not_found()
    if method == "notifications/initialized":
        return web.Response(status=400 if BEHAVIOUR == "expire-initialized" and session != "s-1" else 202)
    if request_id is None:
        return web.Response(status=202)
    if SESSIONS[session] >= PER_SESSION:  # the session ends
        del SESSIONS[session]
        if not LATE_GET:
            ENDED[session].set()
        if TOGETHER:
            await REOPENED[session].wait()
        return await _ended()
    SESSIONS[session] += 1
    text = f"{session} call {SESSIONS[session]}"
    return _json({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}})


async def _stream(request: web.BaseRequest, session: str) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    hello = {"jsonrpc": "2.0", "method": "notifications/message",
             "params": {"level": "info", "data": f"hello from {session}"}}
    await response.write(b"event: message\ndata: " + json.dumps(hello).encode() + b"\n\n")
    await ENDED[session].wait()
    return response


if __name__ == "__main__":
    run(handle, announce="url")
