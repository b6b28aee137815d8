"""The start-up the proxy tests' hand-written aiohttp upstreams share. They run as scripts
(``python tests/proxy/<name>.py``: ``sys.path[0]`` is this folder, so they import this module as
``_serve``): a low-level ``web.Server`` on 127.0.0.1 at a free port, announced on the first line
of stdout as the caller's tests read it, then served until the test ends it."""

from __future__ import annotations

import asyncio
import socket
import struct
import sys
from collections.abc import Awaitable, Callable
from typing import Literal

from aiohttp import web


def run(handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]], *,
        announce: Literal["port", "url"]) -> None:
    """Serve ``handler``. ``announce="port"``: print the port, serve until stdin closes
    (``tests.processes.port_server``); ``"url"``: print ``listening on http://127.0.0.1:PORT/mcp``,
    serve until the process is terminated (``_peers``)."""
    asyncio.run(_serve(handler, announce))


async def _serve(handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]],
                 announce: Literal["port", "url"]) -> None:
    runner = web.ServerRunner(web.Server(handler, access_log=None))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    if announce == "url":
        print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
        await asyncio.Event().wait()
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the test closes stdin
    # (no graceful cleanup: it would wait for the GET streams still open; asyncio.run cancels them)


def reset(request: web.BaseRequest) -> None:
    """End the request's connection with a TCP reset (SO_LINGER 0, then abort): what a server that
    breaks a stream mid-way does to its client."""
    transport = request.transport
    assert transport is not None
    sock = transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
