"""The stdio edge: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.

basic/transports/stdio (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio):

- one message per line, UTF-8, no embedded newlines; the server writes nothing else to stdout
  (except where a fault tool is built to break exactly that) and logs to stderr only;
- requests are independent (basic/index#statelessness): each is served as it arrives, and a
  slow one does not hold up the next — replies may come out of order;
- ``notifications/cancelled`` for an in-flight request stops it and nothing more is sent for
  it (#cancellation);
- the server exits promptly when stdin reaches end-of-file (#shutdown): requests still in
  flight (a slow one) get at most ``EOF_GRACE`` seconds to answer; the ``hang_up`` tool makes
  it exit at once without answering.

Each line goes to :meth:`DemoServer.handle_bytes`, the core entry point the HTTP edge uses for
each body. stdin is read with ``os.read`` in a daemon thread, so it works for pipes, files and terminals
alike and never holds a lock that would stall the interpreter's exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import sys
import threading
from typing import BinaryIO, Final

from ._core import Connection, DemoServer
from ._wire import PARSE_ERROR, Reply, RequestId, error_reply

log = logging.getLogger("mcp_verdict.demo")

MAX_LINE: Final = 64 * 1024 * 1024
"""A line longer than this is discarded (answered -32700)."""
EOF_GRACE: Final = 5.0
"""Seconds the server still spends answering in-flight (slow) requests after stdin ends."""


def _read_forever(fd: int, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[bytes | None]) -> None:
    """Thread body: push raw chunks of ``fd`` to ``queue``; ``None`` at end-of-file."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        try:
            loop.call_soon_threadsafe(queue.put_nowait, chunk or None)
        except RuntimeError:  # the loop is gone: the server has finished
            return
        if not chunk:
            return


class _StdioEdge:
    def __init__(self, server: DemoServer, stdout: BinaryIO) -> None:
        self.server = server
        self.stdout = stdout
        self.connection = Connection()
        self.inflight: dict[RequestId, asyncio.Task[None]] = {}
        self.hung_up = False

    def write(self, frames: tuple[bytes, ...]) -> None:
        try:
            for frame in frames:
                self.stdout.write(frame + b"\n")
            self.stdout.flush()
        except (BrokenPipeError, ValueError):  # the client went away (or closed our stdout)
            self.hung_up = True

    def on_line(self, line: bytes) -> None:
        reply = self.server.handle_bytes(line, self.connection)
        if reply.cancel is not None:
            self.cancel(reply.cancel)
        elif reply.delay > 0 and reply.request_id is not None and not reply.close:
            task = asyncio.create_task(self.later(reply))
            self.inflight[reply.request_id] = task
            task.add_done_callback(functools.partial(self._forget, reply.request_id))
        else:
            self.carry_out(reply)

    async def later(self, reply: Reply) -> None:
        await asyncio.sleep(reply.delay)
        self.carry_out(reply)

    def carry_out(self, reply: Reply) -> None:
        self.write(reply.frames)
        if reply.close:
            log.warning("hang_up: exiting without answering")
            self.hung_up = True

    def cancel(self, request_id: RequestId) -> None:
        task = self.inflight.get(request_id)
        if task is not None:
            log.info("request %r cancelled by the client", request_id)
            task.cancel()

    def _forget(self, key: RequestId, done: asyncio.Task[None]) -> None:
        if self.inflight.get(key) is done:
            del self.inflight[key]


async def serve_stdio(server: DemoServer | None = None, *, stdin_fd: int | None = None,
                      stdout: BinaryIO | None = None) -> int:
    """Serve ``server`` (a new :class:`DemoServer` by default) on stdin/stdout until stdin ends
    or a tool hangs up; returns the exit status (0)."""
    edge = _StdioEdge(server if server is not None else DemoServer(),
                      stdout if stdout is not None else sys.stdout.buffer)
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    fd = stdin_fd if stdin_fd is not None else sys.stdin.fileno()
    threading.Thread(target=_read_forever, args=(fd, loop, queue), name="demo-stdin", daemon=True).start()
    pending = b""
    while not edge.hung_up:
        chunk = await queue.get()
        if chunk is None:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.removesuffix(b"\r")
            if line.strip():
                edge.on_line(line)
            if edge.hung_up:
                break
        if len(pending) > MAX_LINE:
            pending = b""
            edge.write(error_reply(None, PARSE_ERROR, "Parse error: line too long").frames)
    if not edge.hung_up and pending.strip():  # a last line without its newline
        edge.on_line(pending.removesuffix(b"\r"))
    if edge.hung_up:
        for task in list(edge.inflight.values()):
            task.cancel()
    if edge.inflight:  # end of input: answer what is in flight, for at most EOF_GRACE seconds
        _, late = await asyncio.wait(list(edge.inflight.values()), timeout=EOF_GRACE)
        for task in late:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*late, return_exceptions=True)
    return 0
