"""stdio, recorded at the byte level: the thinnest transport the SDK's Client accepts.

Why our own: the SDK's ``stdio_client`` decodes stdout as text and parses each line inside
its reader, with no hook for the raw bytes; invalid UTF-8 from the server escapes as an
exception that tears the client down, and an unparseable line leaves the request waiting
until its timeout. This transport reads bytes, records every line in the wire log before
anything parses it, and hands the SDK its messages. A line the SDK cannot take is one of two
things (read with :meth:`Frame.peek <mcp_verdict.client.Frame.peek>`, which recovers the id of a frame no parser
reads):

- a malformed answer: it carries the id of a request in flight (bad JSON, bad UTF-8, an
  oversized line cut at the limit), or it is a response without a readable id (none, or
  ``null``: an error the server could not pair, as JSON-RPC has it) while exactly one request
  waits. That request is failed at once with a local JSON-RPC error, so the call ends
  promptly — its verdict comes from the recorded bytes (``json.syntax``...);
- noise: a debug print, a log line, anything that is not a JSON-RPC message and names no
  request in flight. It is recorded and nothing more: a matching answer that follows is still
  the answer (the client reports the noise on the call).

A line past 1 MiB that answers a request the client reads from its recorded bytes (a
``tools/call``, ``tools/list``, a task request: ``_wire.READ_FROM_BYTES``) is not the SDK's to
read: it is handed a small error with the answer's id instead (``_wire.stand_in``), which ends
the request as the answer would, and the verdict reads the recorded line.

The last line of the stream is a line even without its LF. The connection ends when the
server's stdout closes, when its stdin breaks (the request being written then was not sent:
the server never read it whole), or when its process exits while something it left running
holds its stdout open (what it wrote is read first). Messages wait in order for the writer:
a request the SDK gives up on (it sends ``notifications/cancelled``) before the writer took it
— a server that does not read its stdin — is withdrawn, never written, and is "not sent".

Shutdown follows the spec (basic/transports/stdio, lifecycle): close the server's stdin,
wait, terminate, kill. On POSIX the server leads its own session, and the signals go to its
whole process group, so a wrapper's child (``sh -c``, ``npx``, ``uv run``) ends with it, as does
whatever the server left running there (``tap._process``, shared with the tap's transport).
"""

from __future__ import annotations

import os
from collections import deque
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

from ..frames import LineReader
from ..tap._process import GRACE, start, stop
from ._wire import READ_FROM_BYTES, STAND_IN_BYTES, FrameKind, WireLog, stand_in

_STDERR_KEEP: Final = 64 * 1024
_QUEUED: Final = 100
"""Messages the SDK wrote that wait for the writer (a server that does not read its stdin)."""
_EXIT_POLL: Final = 0.1
"""Seconds between two looks at whether the server's process has exited."""
_QUIET: Final = 0.2
"""Seconds without output after which a server that exited has been read whole (its stdout held
open by a process it left running)."""
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
    methods: dict[str, str] = {}
    """The method of each request in ``pending`` (by id, as text)."""
    tail = stderr if stderr is not None else StderrTail()
    stdout_closed = anyio.Event()
    ended = anyio.Event()
    """The connection is over: stdout closed, the server exited, or its stdin broke."""
    queue: deque[SessionMessage] = deque()
    """What the SDK wrote, in order, not yet taken by the writer (at most ``_QUEUED``)."""
    queued: dict[str, SessionMessage] = {}
    """The requests of the queue, by id (as text): one the SDK cancels before it is taken is withdrawn."""
    wake = [anyio.Event()]  # the writer waits on it for the queue
    room = [anyio.Event()]  # the taker waits on it for room in the queue
    taken_all = anyio.Event()  # the SDK closed its end: nothing more will be queued
    exited = anyio.Event()
    """The server exited and its stdout stayed open: what comes on it now is not the server's."""
    read = [0]  # chunks read from stdout, to tell when a server that exited has been read whole
    idle = [False]  # the reader waits for the pipe (all that came is read)

    def settled(request_id: str) -> None:
        pending.discard(request_id)
        methods.pop(request_id, None)

    async def fail(request_id: str, reason: str) -> None:
        settled(request_id)
        error = types.JSONRPCError(jsonrpc="2.0", id=_restore(request_id),
                                   error=types.ErrorData(code=types.PARSE_ERROR, message=reason))
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await to_client.send(SessionMessage(error))

    async def fail_pending(reason: str) -> None:
        for request_id in sorted(pending):
            await fail(request_id, reason)

    async def end(kind: FrameKind, said: str, reason: str) -> None:
        """The connection is over (once): recorded, the requests waiting failed with ``reason``."""
        if ended.is_set():
            return
        ended.set()
        wake[0].set()  # the writer stops, the taker drops: nothing more is written
        room[0].set()
        log.add("in", kind, said.encode())
        await fail_pending(reason)
        to_client.close()

    async def deliver(line: bytes) -> None:
        frame = log.add("in", "message", line)
        look = None
        if len(line) > STAND_IN_BYTES:  # a large answer the client reads from its bytes: not the SDK's to read
            look = frame.peek()
            named = str(look.id) if look.has_id and look.id is not None else None
            if named in pending and methods.get(named) in READ_FROM_BYTES:
                line = stand_in(frame, look) or line
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:
            if look is None:  # (a large one was read for its id and kind alone, above)
                look = frame.peek()
            # The SDK correlates "7" with 7 (it coerces), so in-flight ids are kept as text.
            named = str(look.id) if look.has_id and look.id is not None else None
            if named in pending:
                await fail(named, "the server answered with a frame that is not a valid JSON-RPC message")
            elif look.kind in ("response", "error") and look.id is None and len(pending) == 1:
                await fail(next(iter(pending)), "the server answered with a response whose id cannot be read")
            return  # otherwise noise: recorded, and the answer may still come
        inner: Any = message
        if isinstance(inner, (types.JSONRPCResponse, types.JSONRPCError)):
            if inner.id is not None:
                settled(str(inner.id))
            elif len(pending) == 1:
                # An error with a null id (JSON-RPC: the server could not read the request's id)
                # answers the one request waiting: it ends now, not at its timeout (the SDK
                # drops an answer it cannot pair); the verdict reads the frame.
                await fail(next(iter(pending)), "the server answered with an error whose id is null")
                return
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await to_client.send(SessionMessage(message))

    async def read_stdout() -> None:
        assert process.stdout is not None
        lines = LineReader(max_bytes)
        delivered = 0
        try:
            while True:
                idle[0] = True
                try:
                    chunk = await process.stdout.receive()
                except anyio.EndOfStream:
                    break
                finally:
                    idle[0] = False
                read[0] += 1
                if exited.is_set():
                    continue  # what a process the server left running writes: read, not the server's
                for line in lines.feed(chunk):
                    await deliver(line.data)  # a cut line: classify says json.too_large of its start
                    delivered += 1
                    if delivered % _LINES_PER_TURN == 0:  # a flood of noise never holds the loop
                        await anyio.lowlevel.checkpoint()
            for line in lines.close() if not exited.is_set() else ():
                await deliver(line.data)  # its last line, without its LF
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            stdout_closed.set()
            code = process.returncode
            await end("eof", f"the server closed its stdout{'' if code is None else f' (exit {code})'}",
                      "the server closed the connection")

    async def watch_exit() -> None:
        """The server's process exited while its stdout stays open (a process it started holds the
        pipe: a helper, a daemon, a background job of its shell): what it wrote is read to its
        end, then the connection ends, as if its stdout had closed (it waited for the call's
        timeout, which it then blamed, and connecting called the exit the client's doing)."""
        while process.returncode is None:
            await anyio.sleep(_EXIT_POLL)
            if stdout_closed.is_set():
                return
        while not stdout_closed.is_set():
            before = read[0]
            with anyio.move_on_after(_QUIET):
                await stdout_closed.wait()
            if idle[0] and read[0] == before:  # the reader waited on the pipe all along: all is read
                break
        if not stdout_closed.is_set():
            exited.set()
            await end("eof", f"the server exited (exit {process.returncode}), and a process it left running "
                             "holds its stdout open", "the server exited")

    async def read_stderr() -> None:
        assert process.stderr is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for chunk in process.stderr:
                tail.add(chunk)

    def withdraw(message: Any) -> bool:
        """Whether ``message`` cancels a request the writer has not taken: that request is taken
        out of the queue, never written, and the cancel is due to nobody (MCP cancellation: only
        a request issued may be cancelled). The SDK cancels a request it gives up on (its
        timeout, the call's) before it returns: a request queued behind a write the server does
        not read was reported not sent, and written later, when the server read again."""
        request_id = _cancelled(message)
        target = queued.pop(request_id, None) if request_id is not None else None
        if target is None:
            return False
        for at, item in enumerate(queue):
            if item is target:
                del queue[at]
                break
        room[0].set()
        return True

    def enqueue(session_message: SessionMessage) -> None:
        message: Any = session_message.message
        if withdraw(message):
            return
        queue.append(session_message)
        if isinstance(message, types.JSONRPCRequest):
            queued[str(message.id)] = session_message
        wake[0].set()

    async def take() -> None:
        """What the SDK writes, queued at once (its cancels read while the writer is blocked)."""
        try:
            async for session_message in from_client:
                while len(queue) >= _QUEUED and not ended.is_set():
                    room[0] = anyio.Event()
                    await room[0].wait()
                if not ended.is_set():  # (after the end nothing is written: the SDK's messages dropped)
                    enqueue(session_message)
        finally:
            taken_all.set()
            wake[0].set()

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            while True:
                # What the SDK wrote meanwhile first: a cancel handed to the taker, or still in the
                # stream, withdraws its request now, before the writer could take it.
                await anyio.lowlevel.checkpoint()
                with suppress(anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                    while len(queue) < _QUEUED:
                        enqueue(from_client.receive_nowait())
                if ended.is_set():  # the server is gone: what waits is not sent (its request fails)
                    return
                if not queue:
                    if taken_all.is_set():
                        return
                    wake[0] = anyio.Event()
                    await wake[0].wait()
                    continue
                session_message = queue.popleft()
                room[0].set()
                message: Any = session_message.message
                if isinstance(message, types.JSONRPCRequest):
                    queued.pop(str(message.id), None)
                    pending.add(str(message.id))
                    methods[str(message.id)] = message.method
                cancelled = _cancelled(message)
                if cancelled is not None:  # a request given up on: no answer is waited for
                    settled(cancelled)
                data = message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
                log.add("out", "message", data)
                await process.stdin.send(data + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await end("send_failed", "the server's stdin is closed", "the server's stdin is closed")

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(read_stderr)
        group.start_soon(take)
        group.start_soon(write_stdin)
        group.start_soon(watch_exit)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                to_server.close()
                # The server ended on its own when the connection ended before the client stopped
                # it (its stdout closed, it exited, its stdin broke); otherwise the client ended it
                # (its exit status is then no cause of anything).
                ended_first = ended.is_set()
                tail.stopped = await stop(process, grace) or not ended_first
                tail.returncode = process.returncode
            group.cancel_scope.cancel()


def _cancelled(message: Any) -> str | None:
    """The id (as text) of the request a ``notifications/cancelled`` names, else None."""
    if not isinstance(message, types.JSONRPCNotification) or message.method != "notifications/cancelled":
        return None
    params = message.params if isinstance(message.params, dict) else {}
    request_id = params.get("requestId")
    return str(request_id) if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) else None


def _restore(request_id: str) -> str | int:
    return int(request_id) if request_id.lstrip("-").isdigit() else request_id


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command given as one string is split the way a POSIX shell splits words."""
    if isinstance(command, str):
        import shlex

        return shlex.split(command, posix=os.name != "nt")
    return list(command)
