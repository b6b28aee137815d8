"""The Streamable HTTP edge: a plain ASGI app, served by uvicorn on 127.0.0.1 only.

basic/transports/streamable-http
(https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http):

- one MCP endpoint (``/mcp``) accepting POST; GET and DELETE get 405 (#earlier-streamable-http-
  revisions: no GET stream, no sessions — ``Mcp-Session-Id`` is ignored, never minted);
- a request gets one JSON response (``Content-Type: application/json``; this server never
  streams SSE); a notification gets 202 with no body;
- errors carry their HTTP status (``_wire.HTTP_STATUS``): 400 for -32700/-32600/-32602 (e.g.
  missing ``_meta`` fields)/-32020/-32021/-32022, 404 for -32601 (#protocol-version-header);
- header validation (#server-validation, ``frames._routing_headers``, the proxy's rule too;
  applied by the core to every modern request): a required header (``Mcp-Method``;
  ``Mcp-Name`` on ``tools/call``, ``prompts/get``, ``resources/read`` and the tasks
  extension's requests) missing, a header given twice, holding a character outside visible
  ASCII, a Base64 sentinel that does not decode, or a value that is not the body's is 400
  -32020; a request without ``MCP-Protocol-Version`` is required no header (a server serving
  clients older than 2025-06-18 MAY take it as 2025-03-26's, #protocol-version-header), but
  one it gives must match;
- #security-endpoint: bound to 127.0.0.1 only, never another interface; an ``Origin`` or
  ``Host`` that is not loopback gets 403;
- closing the connection while a (slow) request is pending cancels it (#cancellation);
- a legacy client (``initialize``, then requests with a legacy ``MCP-Protocol-Version``
  header and no ``_meta``) is served with legacy semantics (see ``_core``).

The edge only carries bytes: the body goes to :meth:`DemoServer.handle_bytes` with the request
headers, the same core entry point the stdio edge uses for each line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from typing import IO, TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from ._core import Connection, DemoServer
from ._wire import HTTP_STATUS, INVALID_REQUEST, Reply, error_reply

if TYPE_CHECKING:
    import uvicorn

    from ..frames._routing_headers import FieldList

__all__ = ["DemoHttpApp", "run_http", "serve_http", "serve_http_in_thread"]

log = logging.getLogger("mcp_verdict.demo")

HOST: Final = "127.0.0.1"
"""The only address the demo server ever listens on."""
MCP_PATH: Final = "/mcp"
MAX_BODY: Final = 16 * 1024 * 1024
_LOOPBACK: Final = frozenset({"127.0.0.1", "localhost", "::1"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def _loopback(value: str | None, *, origin: bool) -> bool:
    if value is None:
        return True
    try:
        host = urlsplit(value if origin else f"//{value}").hostname
    except ValueError:
        return False
    return host in _LOOPBACK


class DemoHttpApp:
    """The ASGI application: ``POST /mcp`` → :meth:`DemoServer.handle` → one JSON response."""

    def __init__(self, server: DemoServer | None = None, *, path: str = MCP_PATH) -> None:
        self.server = server if server is not None else DemoServer()
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        from ..frames._routing_headers import FieldList  # (as the core: not loaded in a stdio demo)

        headers = FieldList((k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", []))
        if scope.get("path") != self.path:
            await _plain(send, 404, b"not found: the MCP endpoint is " + self.path.encode())
            return
        if scope.get("method") != "POST":
            await _plain(send, 405, b"method not allowed: POST only", [(b"allow", b"POST")])
            return
        if not (_loopback(headers.get("origin"), origin=True) and _loopback(headers.get("host"), origin=False)):
            await _respond(send, error_reply(None, INVALID_REQUEST, "Forbidden: not a loopback Origin or Host"),
                           status=403)
            return
        body = await _read_body(receive)
        if body is None:
            await _plain(send, 413, b"request body too large")
            return
        await self._post(body, headers, receive, send)

    async def _post(self, body: bytes, headers: FieldList, receive: Receive, send: Send) -> None:
        reply = self.server.handle_bytes(body, Connection(headers=headers))
        if reply.delay > 0 and not await _wait_unless_disconnected(reply.delay, receive):
            log.info("the client disconnected: request cancelled")
            return
        await _respond(send, reply)

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return b""
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not event.get("more_body", False):
            return b"".join(chunks)


async def _wait_unless_disconnected(delay: float, receive: Receive) -> bool:
    """Sleep ``delay`` seconds; False if the client disconnected first."""

    async def disconnected() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    sleeper = asyncio.ensure_future(asyncio.sleep(delay))
    watcher = asyncio.ensure_future(disconnected())
    done, _ = await asyncio.wait({sleeper, watcher}, return_when=asyncio.FIRST_COMPLETED)
    for task in (sleeper, watcher):
        task.cancel()
    return sleeper in done


async def _plain(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


async def _respond(send: Send, reply: Reply, *, status: int | None = None) -> None:
    """Carry out a reply: 202 for nothing, the first frame as a JSON body, or a hang-up."""
    if reply.close:
        log.warning("hang_up: dropping the connection without a response body")
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})
        return  # returning without the body: uvicorn closes the connection
    body = reply.body
    if body is None:
        await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})
        return
    if status is None:
        status = HTTP_STATUS.get(reply.error_code, 200) if reply.error_code is not None else 200
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


# --- serving ------------------------------------------------------------------------------


def _bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0: chosen by the OS)."""
    # proto=IPPROTO_TCP matters: asyncio only disables Nagle (TCP_NODELAY) on accepted sockets
    # whose proto says TCP; without it every keep-alive response waits ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def _uvicorn_server(app: DemoHttpApp, *, log_level: str, quiet_signals: bool) -> uvicorn.Server:
    import uvicorn

    # In process (quiet_signals), uvicorn leaves the host's logging alone (log_config=None): its
    # records go to the host's handlers, like every other library's.
    from uvicorn.config import LOGGING_CONFIG

    config = uvicorn.Config(app, host=HOST, lifespan="off", access_log=False, log_level=log_level, http="h11",
                            ws="none", timeout_graceful_shutdown=2,
                            log_config=None if quiet_signals else LOGGING_CONFIG)
    if not quiet_signals:
        return uvicorn.Server(config)

    class InProcessServer(uvicorn.Server):
        """Leaves the host process's signal handlers alone."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return InProcessServer(config)


async def _started(server: uvicorn.Server, task: asyncio.Task[None], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("the demo HTTP server stopped during startup")
        if loop.time() > deadline:
            raise TimeoutError("the demo HTTP server did not start")
        await asyncio.sleep(0.005)


@contextlib.asynccontextmanager
async def serve_http(server: DemoServer | None = None, *, port: int = 0, path: str = MCP_PATH,
                     log_level: str = "warning") -> AsyncIterator[str]:
    """Serve the demo server over HTTP on 127.0.0.1 in the running asyncio loop; yields the
    endpoint URL (``http://127.0.0.1:<port>/mcp``). Stops the server on exit.

    ``port`` 0 lets the OS choose. Needs ``uvicorn``.
    """
    sock = _bind(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}{path}"
    uv = _uvicorn_server(DemoHttpApp(server, path=path), log_level=log_level, quiet_signals=True)
    task = asyncio.create_task(uv.serve(sockets=[sock]))
    try:
        await _started(uv, task)
        yield url
    finally:
        uv.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await task
        sock.close()


@contextlib.contextmanager
def serve_http_in_thread(server: DemoServer | None = None, *, port: int = 0, path: str = MCP_PATH,
                         log_level: str = "warning", timeout: float = 10.0) -> Iterator[str]:
    """:func:`serve_http` on its own event loop in a background thread (for synchronous code,
    or a caller on another event loop); yields the URL. Stops and joins the thread on exit."""
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        stop = asyncio.Event()
        async with serve_http(server, port=port, path=path, log_level=log_level) as url:
            state.update(url=url, loop=asyncio.get_running_loop(), stop=stop)
            ready.set()
            await stop.wait()

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as err:
            state["error"] = err
        finally:
            ready.set()

    thread = threading.Thread(target=run, name="demo-http", daemon=True)
    thread.start()
    if not ready.wait(timeout) or "url" not in state:
        thread.join(timeout)
        raise RuntimeError("the demo HTTP server did not start") from state.get("error")
    thread.name = f"demo-http {state['url']}"
    try:
        yield state["url"]
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(timeout)


def run_http(port: int = 0, *, out: IO[str] | None = None, log_level: str = "warning") -> int:
    """The ``http`` command: serve until interrupted (SIGINT/SIGTERM stop it gracefully),
    after printing ``listening on http://127.0.0.1:<port>/mcp`` on ``out`` (stdout). A port it
    cannot listen on (taken, privileged) is one line on stderr and status 3, as ``proxy`` gives."""
    stream = out if out is not None else sys.stdout
    try:
        sock = _bind(port)
    except (OSError, OverflowError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"python -m mcp_verdict.demo http: cannot listen on {HOST}:{port}: {reason}", file=sys.stderr,
              flush=True)
        return 3

    async def main() -> None:
        uv = _uvicorn_server(DemoHttpApp(), log_level=log_level, quiet_signals=False)
        task = asyncio.create_task(uv.serve(sockets=[sock]))
        await _started(uv, task)
        print(f"listening on http://{HOST}:{sock.getsockname()[1]}{MCP_PATH}", file=stream, flush=True)
        await task

    asyncio.run(main())
    return 0
