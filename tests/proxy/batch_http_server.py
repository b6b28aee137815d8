"""A Streamable HTTP upstream of MCP 2025-03-26 (aiohttp) that answers JSON-RPC batches, its
answers those of ``tests/servers/batch_server.py`` (the same tools, byte for byte).

MCP 2025-03-26 basic/transports (Streamable HTTP, Sending Messages to the Server): a POST body
may be a batch of requests and notifications; holding requests, it is answered with one JSON
body or an SSE stream carrying the responses (one event each, or the batch in one); of
notifications and responses only, 202 Accepted. The ``initialize`` answer carries
``Mcp-Session-Id: b-1`` (Session Management). One behaviour per run (argv[1]):

- ``json``: every request, one or a batch, is answered with one JSON body (a batch's answers in
  one array, written ``[ answer , answer ]``);
- ``sse``: a request alone is answered with an SSE stream of one event; a batch with an SSE
  stream of one event per answer, in order (the answers one by one). A batch calling the tool
  ``held`` gets its events only once a later POST (a notification, say) has come;
- ``sse-one``: the same, a batch's answers in one event (one array, as ``json`` writes it).

Prints its port on its first line and stops when its stdin closes (``tests.processes.port_server``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ..servers.batch_server import answer
    from ._serve import run
else:
    sys.path.insert(1, str(Path(__file__).parents[1] / "servers"))
    from _serve import run
    from batch_server import answer

MODE = sys.argv[1]
SESSION = {"Mcp-Session-Id": "b-1"}
POSTS: list[asyncio.Future[None]] = []
"""The batches held (``held``), each released by the next POST."""
EARLY: list[None] = []
"""Cancellations that came before a held batch (the proxy sends each message in a POST of its own, which
may overtake another): each releases the next held batch at once."""


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.method != "POST":
        return web.Response(status=405)
    body = await request.read()
    message: Any = json.loads(body)
    batch = isinstance(message, list)
    if not POSTS and not batch and message.get("method") == "notifications/cancelled":
        EARLY.append(None)  # a cancellation that overtook the batch it follows (two POSTs race): kept for it
    for held in POSTS:  # (a POST after a held batch releases it)
        if not held.done():
            held.set_result(None)
    POSTS.clear()
    answers = [a for a in map(answer, message if batch else [message]) if a is not None]
    if not answers:
        return web.Response(status=202)
    headers = SESSION if not batch and message.get("method") == "initialize" else {}
    if MODE == "json":
        body = b"[ " + b" , ".join(answers) + b" ]" if batch else answers[0]
        return web.Response(body=body, content_type="application/json", headers=headers)
    response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream", **headers})
    await response.prepare(request)
    if batch and b'"held"' in body:
        if EARLY:  # released already, by a cancellation that came first
            EARLY.pop()
        else:
            POSTS.append(asyncio.get_running_loop().create_future())
            await POSTS[-1]
    events = [b"[ " + b" , ".join(answers) + b" ]"] if batch and MODE == "sse-one" else answers
    for one in events:
        await response.write(b"event: message\ndata: " + one + b"\n\n")
    await response.write_eof()
    return response


if __name__ == "__main__":
    run(handle, announce="port")
