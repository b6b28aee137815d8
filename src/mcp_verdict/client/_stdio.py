"""stdio, recorded at the byte level: the thinnest transport the SDK's Client accepts.

Why our own: the SDK's ``stdio_client`` decodes stdout as text and parses each line inside
its reader, with no hook for the raw bytes; invalid UTF-8 from the server escapes as an
exception that tears the client down, and an unparseable line leaves the request waiting
until its timeout. This transport reads bytes, records every line in the wire log before
anything parses it, and hands the SDK its messages. A line the SDK cannot take is one of two
things (read with :func:`mcp_verdict.frames.peek`, which recovers the id of a frame no parser
reads):

- a malformed answer: it carries the id of a request in flight (bad JSON, bad UTF-8, an
  oversized line cut at the limit), or it is a response without a readable id while exactly
  one request waits. That request is failed at once with a local JSON-RPC error, so the call
  ends promptly — its verdict comes from the recorded bytes (``json.syntax``...);
- noise: a debug print, a log line, anything that is not a JSON-RPC message and names no
  request in flight. It is recorded and nothing more: a matching answer that follows is still
  the answer (the client reports the noise on the call).

Shutdown follows the spec (basic/transports/stdio, lifecycle): close the server's stdin,
wait, terminate, kill. On POSIX the server leads its own session, and the signals go to its
whole process group, so a wrapper's child (``sh -c``, ``npx``, ``uv run``) ends with it, as does
whatever the server left running there (``tap._process``, shared with the tap's transport).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Final

import anyio
import anyio.abc
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from ..frames import LineReader, peek
from ..tap._process import GRACE, start, stop
from ._wire import WireLog

_STDERR_KEEP: Final = 64 * 1024
_LINES_PER_TURN: Final = 64
"""Lines handled before the reader lets the other tasks run: a 64 KiB read of short lines is
thousands of them, and a server that floods stdout (``yes``) would otherwise hold the event loop
for most of a second per read, past the timeouts (a 2 s one took 9 s to end)."""


class StderrTail:
    """The last bytes the server wrote to stderr (for diagnostics), and its process id and exit
    status once known."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.dropped = 0
        """Bytes not kept from the start: the tail holds the last ``_STDERR_KEEP``."""
        self._at_line_start = False
        self.pid: int | None = None
        self.returncode: int | None = None
        self.stopped = False
        """The client had to terminate or kill the process (it did not exit on end of stdin)."""

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > _STDERR_KEEP:
            cut = len(self.data) - _STDERR_KEEP
            self._at_line_start = self.data[cut - 1] == 0x0A
            del self.data[:cut]
            self.dropped += cut

    def text(self) -> str:
        """The kept bytes as text, after a line ``…`` when earlier lines were not kept, or ``…``
        first when the first kept line is the end of a longer one: a cut never passes for whole."""
        text = self.data.decode("utf-8", "replace")
        if not self.dropped:
            return text
        return ("…\n" if self._at_line_start else "…") + text


@asynccontextmanager
async def recording_stdio(
    command: Sequence[str], log: WireLog, *, env: Mapping[str, str] | None = None, cwd: str | None = None,
    max_bytes: int = 64 * 1024 * 1024, stderr: StderrTail | None = None, grace: float = GRACE,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception],
                         MemoryObjectSendStream[SessionMessage]]]:
    """Spawn ``command`` and yield the (read, write) streams the SDK's Client expects."""
    if not command:
        raise ValueError("the server command is empty")
    environment = get_default_environment() | dict(env or {})
    # Its own session (POSIX): the server and whatever it starts (a wrapper's child: sh -c, npx,
    # uv run) form one process group, ended together when it must be terminated.
    process = await start(command, environment, cwd)
    if stderr is not None:
        stderr.pid = process.pid
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](100)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](100)
    pending: set[str] = set()
    tail = stderr if stderr is not None else StderrTail()
    stdout_closed = anyio.Event()

    async def fail(request_id: str, reason: str) -> None:
        pending.discard(request_id)
        error = types.JSONRPCError(jsonrpc="2.0", id=_restore(request_id),
                                   error=types.ErrorData(code=types.PARSE_ERROR, message=reason))
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await to_client.send(SessionMessage(error))

    async def fail_pending(reason: str) -> None:
        for request_id in sorted(pending):
            await fail(request_id, reason)

    async def deliver(line: bytes) -> None:
        log.add("in", "message", line)
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:
            look = peek(line)
            # The SDK correlates "7" with 7 (it coerces), so in-flight ids are kept as text.
            named = str(look.id) if look.has_id and look.id is not None else None
            if named in pending:
                await fail(named, "the server answered with a frame that is not a valid JSON-RPC message")
            elif look.kind in ("response", "error") and not look.has_id and len(pending) == 1:
                await fail(next(iter(pending)), "the server answered with a response whose id cannot be read")
            return  # otherwise noise: recorded, and the answer may still come
        inner: Any = message
        if isinstance(inner, (types.JSONRPCResponse, types.JSONRPCError)) and inner.id is not None:
            pending.discard(str(inner.id))
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await to_client.send(SessionMessage(message))

    async def read_stdout() -> None:
        assert process.stdout is not None
        lines = LineReader(max_bytes)
        delivered = 0
        try:
            async for chunk in process.stdout:
                for line in lines.feed(chunk):
                    await deliver(line.data)  # a cut line: classify says json.too_large of its start
                    delivered += 1
                    if delivered % _LINES_PER_TURN == 0:  # a flood of noise never holds the loop
                        await anyio.lowlevel.checkpoint()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass
        finally:
            stdout_closed.set()
            code = process.returncode
            log.add("in", "eof", f"the server closed its stdout{'' if code is None else f' (exit {code})'}".encode())
            await fail_pending("the server closed the connection")
            to_client.close()

    async def read_stderr() -> None:
        assert process.stderr is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for chunk in process.stderr:
                tail.add(chunk)

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async for session_message in from_client:
                message: Any = session_message.message
                data = message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
                if isinstance(message, types.JSONRPCRequest):
                    pending.add(str(message.id))
                log.add("out", "message", data)
                await process.stdin.send(data + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            log.add("in", "send_failed", b"the server's stdin is closed")
            await fail_pending("the server's stdin is closed")
            to_client.close()

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(read_stderr)
        group.start_soon(write_stdin)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                to_server.close()
                # The server ended on its own when its stdout closed before the client stopped it;
                # otherwise the client ended it (its exit status is then no cause of anything).
                ended_first = stdout_closed.is_set()
                tail.stopped = await stop(process, grace) or not ended_first
                tail.returncode = process.returncode
            group.cancel_scope.cancel()


def _restore(request_id: str) -> str | int:
    return int(request_id) if request_id.lstrip("-").isdigit() else request_id


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command given as one string is split the way a POSIX shell splits words."""
    if isinstance(command, str):
        import shlex

        return shlex.split(command, posix=os.name != "nt")
    return list(command)
