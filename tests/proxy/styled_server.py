"""A hand-written Streamable HTTP upstream for the proxy's tests, its answers in the style of
argv[1]:

- ``plain``: compact JSON bodies;
- ``gzip``: JSON bodies gzip-compressed whenever the client's Accept-Encoding allows gzip (as
  nginx or a GZip middleware do);
- ``pretty``: JSON bodies pretty-printed (``indent=2``: line breaks between the tokens).

2025 sessions: ``initialize`` answers with an ``Mcp-Session-Id`` (``s-<n>``); GET answers 405;
DELETE answers 200 and forgets the session. A ``tools/call`` of the tool ``hang`` is never
answered (its POST stays open until the client closes it). ``GET /seen`` answers the list of
``[method, Accept-Encoding or null]`` of every request so far. Prints ``listening on URL``.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sys
from typing import Any

from aiohttp import web

STYLE = sys.argv[1] if len(sys.argv) > 1 else "plain"
SEEN: list[list[str | None]] = []
SESSIONS: set[str] = set()


async def seen(request: web.Request) -> web.Response:
    return web.json_response(SEEN)


async def handle(request: web.Request) -> web.StreamResponse:
    SEEN.append([request.method, request.headers.get("Accept-Encoding")])
    if request.method == "GET":
        return web.Response(status=405)
    if request.method == "DELETE":
        SESSIONS.discard(request.headers.get("Mcp-Session-Id", ""))
        return web.Response(status=200)
    message = json.loads(await request.read())
    if "id" not in message or "method" not in message:
        return web.Response(status=202)
    headers = {}
    method = message["method"]
    result: dict[str, Any]
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "styled", "version": "0"}}
        session = f"s-{len(SESSIONS) + 1}-{len(SEEN)}"
        SESSIONS.add(session)
        headers["Mcp-Session-Id"] = session
    elif method == "tools/call":
        if (message.get("params") or {}).get("name") == "hang":
            await asyncio.Event().wait()
        result = {"content": [{"type": "text", "text": "ok\nline two"}], "isError": False}
    else:
        result = {"tools": []}
    answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    if STYLE == "pretty":
        return web.Response(body=json.dumps(answer, indent=2).encode(), content_type="application/json",
                            headers=headers)
    data = json.dumps(answer).encode()
    if STYLE == "gzip" and "gzip" in request.headers.get("Accept-Encoding", ""):
        headers.update({"Content-Type": "application/json", "Content-Encoding": "gzip"})
        return web.Response(body=gzip.compress(data), headers=headers)
    return web.Response(body=data, content_type="application/json", headers=headers)


async def main() -> None:
    app = web.Application()
    app.router.add_get("/seen", seen)
    app.router.add_route("*", "/mcp", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
