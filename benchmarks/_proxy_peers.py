"""The upstream and the peers of bench_proxy.py: an echo MCP server (stdio or HTTP, 2025-06-18
initialize sessions, and 2026-07-28 stateless requests) and FastMCP's create_proxy, each run as
its own process.

The echo server answers a request whose ``params._meta`` names protocol version 2026-07-28 as a
server of that version must: its results carry ``resultType`` ("complete"), and a tools/list
result ``ttlMs`` and ``cacheScope`` (2026-07-28 schema: Result, CallToolResult, ListToolsResult).
Every other request gets the 2025-06-18 answer, byte for byte as before.

    python benchmarks/_proxy_peers.py echo-stdio
    python benchmarks/_proxy_peers.py echo-http PORT
    python benchmarks/_proxy_peers.py fastmcp stdio|http PORT TARGET   (TARGET: a URL or a JSON command list)
    python benchmarks/_proxy_peers.py floor COMMAND...   (a bare relay: the floor, not a proxy)

``floor`` moves bytes between its stdin/stdout and a child process's pipes on uvloop with the
same asyncio pipe protocols as mcp-verdict's stdio sides, and does nothing else: no line
splitting, no reading, no judging. What it adds is what any relay on this loop pays for the two
extra pipe hops and process wake-ups on this machine.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOL: dict[str, Any] = {"name": "echo", "description": "Answers with a text of `size` bytes.",
        "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}}


LATEST = "2026-07-28"


def stateless(message: dict[str, Any]) -> bool:
    """Whether the request is a 2026-07-28 one (its version in ``params._meta``, no session)."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and meta.get("io.modelcontextprotocol/protocolVersion") == LATEST


def answer(message: dict[str, Any]) -> bytes | None:
    method = message.get("method")
    if "id" not in message:
        return None
    rid = json.dumps(message["id"]).encode()
    latest = stateless(message)
    result: dict[str, Any]
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "tools/list":
        result = ({"resultType": "complete", "tools": [TOOL], "ttlMs": 0, "cacheScope": "public"} if latest
                  else {"tools": [TOOL]})
    elif method == "ping":
        result = {}
    elif method == "tools/call":
        size = int((message.get("params") or {}).get("arguments", {}).get("size", 100))
        return (b'{"jsonrpc":"2.0","id":' + rid + (b',"result":{"resultType":"complete","content":[{"type":"text",'
                                                   b'"text":"' if latest else
                                                   b',"result":{"content":[{"type":"text","text":"')
                + b"x" * size + b'"}],"isError":false}}')
    else:
        return b'{"jsonrpc":"2.0","id":' + rid + b',"error":{"code":-32601,"message":"Method not found"}}'
    return b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + json.dumps(result).encode() + b"}"


def echo_stdio() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        reply = answer(json.loads(line))
        if reply is not None:
            out.write(reply + b"\n")
            out.flush()


def echo_http(port: int) -> None:
    import uuid

    from aiohttp import web

    async def handle(request: web.Request) -> web.StreamResponse:
        if request.method == "DELETE":
            return web.Response(status=200)
        if request.method != "POST":
            return web.Response(status=405)
        message = json.loads(await request.read())
        reply = answer(message)
        if reply is None:
            return web.Response(status=202)
        headers = {"Mcp-Session-Id": uuid.uuid4().hex} if message.get("method") == "initialize" else {}
        return web.Response(body=reply, content_type="application/json", headers=headers)

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/mcp", handle)
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


def fastmcp(transport: str, port: int, target: str) -> None:
    from fastmcp.server import create_proxy

    if target.startswith("http"):
        backend: Any = target
    else:
        command = json.loads(target)
        backend = {"mcpServers": {"echo": {"command": command[0], "args": command[1:]}}}
    proxy = create_proxy(backend)
    if transport == "stdio":
        proxy.run(transport="stdio", show_banner=False)
    else:
        proxy.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="error")


def floor(command: list[str]) -> None:
    """A relay of bytes that reads nothing, on the pipes the proxy uses: the host's stdin and
    stdout, and a pipe of its own each way to the server (where uvloop's subprocess ``PIPE`` is a
    socket pair, libuv's), so that it costs what any relay on them must."""
    import asyncio
    import os

    import uvloop

    async def relay() -> None:
        loop = asyncio.get_running_loop()
        out, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(1, "wb", 0))
        done = loop.create_future()
        to_child, child_in = os.pipe()  # (the server's stdin: it reads to_child)
        from_child, child_out = os.pipe()

        class Exited(asyncio.SubprocessProtocol):
            def process_exited(self) -> None:
                if not done.done():
                    done.set_result(None)

        await loop.subprocess_exec(Exited, *command, stdin=to_child, stdout=child_out, stderr=None)
        os.close(to_child)
        os.close(child_out)
        stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(child_in, "wb", 0))

        class Child(asyncio.Protocol):
            def data_received(self, data: bytes) -> None:
                out.write(data)

        class Host(asyncio.Protocol):
            def data_received(self, data: bytes) -> None:
                stdin.write(data)

            def eof_received(self) -> bool:
                stdin.close()
                return False

        await loop.connect_read_pipe(Child, os.fdopen(from_child, "rb", 0))
        await loop.connect_read_pipe(Host, os.fdopen(0, "rb", 0))
        await done

    uvloop.run(relay())


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "floor":
        floor(sys.argv[2:])
    elif what == "echo-stdio":
        echo_stdio()
    elif what == "echo-http":
        echo_http(int(sys.argv[2]))
    else:
        fastmcp(sys.argv[2], int(sys.argv[3]), sys.argv[4])
