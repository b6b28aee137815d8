"""A Streamable HTTP upstream (aiohttp) for the proxy's HTTP-fault tests, one behaviour per run
(argv[1]):

- ``status:<n>``: every POST (request or notification) and every GET is answered HTTP ``n``
  with the JSON-RPC error body the official Python SDK writes for its HTTP errors (its
  ``_create_error_response``: a null id, ``-32600``), e.g. ``status:406`` as the SDK answers an
  Accept header it rejects;
- ``slow-status:<n>``: the same, each answer written half a second after its request was read
  (a host's last notification is still under way when the host closes);
- ``get-reset``: a GET opens an SSE stream, sends one event (id ``e-1``, a
  ``notifications/message``), then resets the connection (an RST mid-stream);
- ``get-end``: the same event, then the stream ends cleanly;
- ``resume-stall``: a POST of a request is answered with an SSE stream holding a priming event
  (id ``p-1``, ``retry: 10``) and nothing more, closed before the answer; a GET (the resume,
  with ``Last-Event-ID``) is read and never answered; a GET without ``Last-Event-ID`` too;
- ``resume-status:<n>``: the same POST stream; a GET is answered as ``status:<n>`` answers;
- ``sse``: a 2025 server that answers every request with an SSE stream (the SDK's default):
  ``initialize`` with ``protocolVersion`` 2025-06-18 and ``Mcp-Session-Id: s-1``; a GET opens
  a stream that sends one ``notifications/message`` (``"one"``) and stays open. ``GET /seen``
  answers ``[method, the JSON-RPC method or null, MCP-Protocol-Version or null]`` of every
  request so far; a ``tools/call`` of the tool ``hang`` is never answered (its SSE stream stays
  open until the client closes it); one of ``wait`` is answered (``ok``) once a call of
  ``release`` has come (``release`` is answered at once);
- ``big:<n>``: every POST (a request or a notification) is answered with a JSON body of ``n``
  bytes (for a request, its answer: ``ok`` padded with spaces before its last brace) with its
  ``Content-Length``; ``big-chunked:<n>``: the same body chunked (no length), written in 4 KiB
  chunks; a notification's answer is 202 with that body; ``big-id-last:<n>``: the same as
  ``big:<n>``, the answer's ``id`` written last; ``big-event:<n>``: a request is answered with an
  SSE stream holding one unfinished event, ``data: `` and ``n`` bytes of ``x`` in one write and
  no line end, the stream then held open (a notification gets 202);
- ``json``: the same server, answering each request with one JSON body; ``json-stateless``: that
  server without sessions (no ``Mcp-Session-Id``).
- ``first``: a 2026-07-28 server without sessions whose JSON reader keeps the first of a member
  name given twice (as cJSON and many other parsers do): each request answered as one JSON body
  under the id it read, a ``tools/call`` with the text ``called <name> <arguments>`` (the
  arguments as compact JSON), any other request with an empty result; a notification gets 202;
- ``conn-close``: each request answered ``ok`` with ``Connection: close`` (the connection ends
  after each answer); ``idle-close``: answered ``ok`` on a kept-alive connection that the server
  closes a twentieth of a second after the answer (as servers end idle keep-alive connections).

Any other POST of a request is answered ``ok`` as one JSON body; a notification gets 202.
Prints its port on its first line and stops when its stdin closes (``tests/processes.port_server``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:  # (run as a script: sys.path[0] is this folder; checked as tests.proxy)
    from ._serve import reset, run
else:
    from _serve import reset, run

MODE = sys.argv[1]
EVENT = b'id: e-1\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message",' \
        b'"params":{"level":"info","data":"one"}}\n\n'


def _error(status: int) -> web.Response:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": f"HTTP {status} from the server"}}
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


SEEN: list[list[str | None]] = []
RELEASED: list[asyncio.Event] = []
"""Set by a call of ``release``: the calls of ``wait`` are answered (made on the first request)."""


async def handle(request: web.BaseRequest) -> web.StreamResponse:
    if request.path == "/seen":
        return web.json_response(SEEN)
    if MODE == "first":
        return await _first(request)
    if MODE in ("sse", "json", "json-stateless"):
        return await _sse(request)
    if MODE.startswith("big"):
        return await _big(request)
    if MODE.startswith("status:") or (MODE.startswith("resume-status:") and request.method == "GET"):
        await request.read()
        return _error(int(MODE.split(":", 1)[1]))
    if MODE.startswith("slow-status:"):
        await request.read()
        await asyncio.sleep(0.5)
        return _error(int(MODE.split(":", 1)[1]))
    if request.method == "GET":
        if MODE == "resume-stall":
            await asyncio.Event().wait()  # never answered (cancelled when the proxy gives up)
        response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(EVENT)
        if MODE == "get-reset":
            reset(request)
            return response
        await response.write_eof()
        return response
    message = json.loads(await request.read())
    if "id" not in message or "method" not in message:
        return web.Response(status=202)
    if MODE.startswith("resume-"):
        response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b"id: p-1\nretry: 10\ndata:\n\n")
        await response.write_eof()
        return response
    answer = {"jsonrpc": "2.0", "id": message["id"],
              "result": {"content": [{"type": "text", "text": "ok"}], "isError": False}}
    if MODE == "conn-close":
        return web.json_response(answer, headers={"Connection": "close"})
    if MODE == "idle-close" and request.transport is not None:
        asyncio.get_running_loop().call_later(0.05, request.transport.close)
    return web.json_response(answer)


def _first_kept(pairs: list[tuple[str, object]]) -> dict[str, object]:
    kept: dict[str, object] = {}
    for name, value in pairs:
        kept.setdefault(name, value)
    return kept


async def _first(request: web.BaseRequest) -> web.StreamResponse:
    message = json.loads(await request.read(), object_pairs_hook=_first_kept)
    if "id" not in message or "method" not in message:
        return web.Response(status=202)
    params = message.get("params") or {}
    result: dict[str, object] = {}
    if message["method"] == "tools/call":
        arguments = json.dumps(params.get("arguments"), separators=(",", ":"))
        result = {"resultType": "complete", "content": [{"type": "text", "text": f"called {params.get('name')} "
                                                         f"{arguments}"}], "isError": False}
    return web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": result})


async def _big(request: web.BaseRequest) -> web.StreamResponse:
    message = json.loads(await request.read())
    size = int(MODE.split(":", 1)[1])
    if MODE.startswith("big-event:"):
        if "id" not in message:
            return web.Response(status=202)
        response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b"data: " + b"x" * size)
        await asyncio.Event().wait()  # never finished (open until the client closes it)
    result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    if MODE.startswith("big-id-last:"):
        answer = json.dumps({"jsonrpc": "2.0", "result": result}).encode()
        tail = b',"id":' + json.dumps(message.get("id")).encode() + b"}"
        body = answer[:-2] + b" " * (size - len(answer) - len(tail) + 1) + b"}" + tail
    else:
        answer = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": result}).encode()
        body = answer[:-1] + b" " * (size - len(answer)) + b"}"
    status = 200 if "id" in message else 202
    assert len(body) == size and json.loads(body)["id"] == message.get("id")
    if not MODE.startswith("big-chunked:"):
        return web.Response(status=status, body=body, content_type="application/json")
    response = web.StreamResponse(status=status, headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    for start in range(0, len(body), 4096):
        await response.write(body[start:start + 4096])
    await response.write_eof()
    return response


async def _sse(request: web.BaseRequest) -> web.StreamResponse:
    message = json.loads(await request.read()) if request.method == "POST" else {}
    SEEN.append([request.method, message.get("method"), request.headers.get("MCP-Protocol-Version")])
    if request.method == "GET":
        response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(EVENT)
        await asyncio.Event().wait()  # open until the client closes it
    if "id" not in message or "method" not in message:
        return web.Response(status=202)
    if message["method"] == "tools/call" and message["params"].get("name") == "hang":
        response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream",
                                                           "Mcp-Session-Id": "s-1"})
        await response.prepare(request)
        await asyncio.Event().wait()  # never answered (open until the client closes it)
    if not RELEASED:
        RELEASED.append(asyncio.Event())
    if message["method"] == "tools/call" and message["params"].get("name") == "release":
        RELEASED[0].set()
    if message["method"] == "tools/call" and message["params"].get("name") == "wait":
        await RELEASED[0].wait()
    result: dict[str, object] = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "sse", "version": "0"}}
    answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
    if MODE.startswith("json"):
        return web.Response(body=answer.encode(), content_type="application/json",
                            headers={} if MODE == "json-stateless" else {"Mcp-Session-Id": "s-1"})
    response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream", "Mcp-Session-Id": "s-1"})
    await response.prepare(request)
    await response.write(b"event: message\ndata: " + answer.encode() + b"\n\n")
    await response.write_eof()
    return response


if __name__ == "__main__":
    run(handle, announce="port")
