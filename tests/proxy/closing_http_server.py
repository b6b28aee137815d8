"""A Streamable HTTP upstream (aiohttp) that tells whether its client closed a request's stream:
a ``tools/call`` of the tool ``hang`` is never answered — noted as ``got <id>``, its response
is held until the client closes the connection, then noted as ``closed <id>``; a ``notifications/cancelled``
is noted as ``cancelled <requestId>`` (202); any other request is answered ``ok`` (one JSON body),
any other notification 202. No sessions (2026-07-28 stateless, or 2025 without sessions).
``GET /seen`` answers the notes so far, in order.

Prints its port on its first line and stops when its stdin closes (``tests/processes.port_server``).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ._serve import run
else:
    from _serve import run

SEEN: list[str] = []


async def _held(request: web.BaseRequest, request_id: object) -> web.StreamResponse:
    """Never answered: held until the client closes the connection (noted as it comes, and then)."""
    SEEN.append(f"got {request_id}")
    while request.transport is not None and not request.transport.is_closing():
        await asyncio.sleep(0.02)
    SEEN.append(f"closed {request_id}")
    return web.Response(status=200)


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.path == "/seen":
        return web.json_response(SEEN)
    if request.method != "POST":
        return web.Response(status=405)
    message = json.loads(await request.read())
    if message.get("method") == "notifications/cancelled":
        SEEN.append(f"cancelled {message['params']['requestId']}")
        return web.Response(status=202)
    if "id" not in message:
        return web.Response(status=202)
    if message.get("method") == "tools/call" and message["params"].get("name") == "hang":
        return await _held(request, message["id"])
    answer = {"jsonrpc": "2.0", "id": message["id"],
              "result": {"content": [{"type": "text", "text": "ok"}], "isError": False}}
    return web.Response(body=json.dumps(answer).encode(), content_type="application/json")


if __name__ == "__main__":
    run(handle, announce="port")
