"""A Streamable HTTP upstream for the proxy's backpressure test: a ``tools/call`` named ``flood``
is answered on an SSE stream with ``arguments.n`` progress notifications of about 1 KB each (the
request's progress token), then the answer — the bytes notify_server.py writes on stdio; any
other request with an id is answered ``ok`` in one JSON body. ``GET /written`` answers the bytes
of events written so far (the test sees the server held up). Prints ``listening on URL``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ._serve import run
else:
    from _serve import run

WRITTEN = [0]


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.method == "GET":
        return web.Response(text=str(WRITTEN[0]))
    message = json.loads(await request.read())
    if "id" not in message or "method" not in message:
        return web.Response(status=202)
    rid = json.dumps(message["id"]).encode()
    answer = (b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"ok"}],'
              b'"isError":false}}')
    params = message.get("params") or {}
    if params.get("name") != "flood":
        return web.Response(body=answer, content_type="application/json")
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    token = json.dumps(params["_meta"]["progressToken"]).encode()
    pad = b"p" * 1000
    for n in range(int(params["arguments"]["n"])):
        event = (b'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":' + token
                 + b',"progress":%d,"message":"' % n + pad + b'"}}\n\n')
        await response.write(event)  # (waits while the client does not read)
        WRITTEN[0] += len(event)
    await response.write(b"data: " + answer + b"\n\n")
    await response.write_eof()
    return response


if __name__ == "__main__":
    run(handle, announce="url")
