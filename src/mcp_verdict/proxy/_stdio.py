"""The stdio sides: the host on the proxy's own stdin/stdout, and an upstream server process.

basic/transports/stdio (2026-07-28 and the 2025 revisions): one JSON-RPC message per line,
UTF-8, no embedded newline; the server writes nothing else to stdout and logs to stderr (the
upstream's stderr is passed through to the proxy's own); the client shuts down by closing the
server's stdin, then SIGTERM, then SIGKILL. The upstream runs in a process group of its own
(POSIX): the signals go to the group, and once the upstream has exited, what it left running
there (a helper holding its stdout open, which would hide the exit) is ended too
(``mcp_verdict._process``, shared with the tap and the client).

Hot path: the pipes are asyncio protocols — a chunk read is split into lines in one
``bytes.find`` loop and each line goes to the bridge with no copy when the chunk is one
whole line; writes go to the transport's buffer (no await per frame). On POSIX the upstream's
stdout is a pipe of the proxy's own, read into a buffer of its own (a read that is one whole
line: one copy), not the subprocess transport's, whose reads uvloop hands over on the loop's
next turn.

- A line that does not start with ``{`` (after blanks) is not a JSON-RPC message: it is noise
  (logged as such), forwarded in ``observe`` and dropped in ``enforce``; an empty line is skipped.
- A line longer than the limit is never held whole: its first 64 KiB are kept (for the id),
  the rest is counted and dropped up to its line end, and the bridge refuses it.
- Backpressure: while more than 1 MiB waits for the host's stdout (a host that does not read
  its pipe), the upstream is not read (a process's stdout; an HTTP upstream's response bodies):
  the server blocks on its own writes, as with a direct connection; nothing is dropped.
- Host shutdown: the host closing stdin is passed on (the upstream's stdin is closed; answers
  still in flight are forwarded until the upstream exits or ``grace`` passes); the host closing
  stdout (a broken pipe) is a disconnect: every request in flight is cancelled upstream.
- Upstream exit: every request in flight gets UPSTREAM_CLOSED; the restart policy may start it
  again (``never``, ``on-failure``: a non-zero exit or a signal, ``always``), with backoff and at
  most ``max_restarts`` times; a 2025 session is initialised again with the host's own
  ``initialize`` (its bytes, under an id of the proxy's) and ``notifications/initialized`` (the
  replayed answer is logged, not forwarded; a process that does not answer it within
  ``--timeout`` is noted, stopped as at shutdown and counted a failure for the restart policy,
  and what waits for it waits for the next one, or is dropped when none follows; a frame the
  host sends while it is stopped for the last time is not sent, ``the upstream is being stopped
  (no restart left)``, and once it has exited ``the upstream is not running``), and frames
  the host sends meanwhile wait for the new process (their sending noted in the frame log), at
  most 1,000 frames or 64 MiB: past that, a frame is not sent (a request gets
  UPSTREAM_UNAVAILABLE). A queued request the proxy answers meanwhile (UPSTREAM_TIMEOUT at
  ``--timeout``, UPSTREAM_CLOSED at a stop, or its host gone) is taken out of the queue unsent,
  with its cancellation (:meth:`StdioUpstream.withholds`): its host was told it failed, the tool
  must not run after; so is one its host cancels (its own ``notifications/cancelled``, not sent
  either: its host is answered at once, UPSTREAM_UNAVAILABLE under its id, so an HTTP host's POST
  ends and a stdio host, which MCP has ignore it, waits for nothing); a process
  stopped for its silence does not answer UPSTREAM_CLOSED for the requests queued for the next
  one (they were never sent to it). Frames it never gets — it exits before they were sent, it
  cannot be restarted — are dropped: a request gets UPSTREAM_UNAVAILABLE (or has its
  UPSTREAM_CLOSED already), a notification or a response is noted as an ``error`` record,
  and an HTTP host, whose POST waits for its fate (:attr:`StdioUpstream.delivery`), gets
  502 and UPSTREAM_UNAVAILABLE, or 504 and UPSTREAM_TIMEOUT when it still waits after
  ``--timeout`` (taken out of the queue unsent), as over an HTTP upstream.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal, cast

import orjson

from .._process import POSIX, SIGKILL, group_alive, group_ended, signal_group
from ..frames._jsonrpc import id_key, is_batch, peek
from ..frames._lines import may_be_message
from ._bridge import Bridge, HostStream
from ._codes import UPSTREAM_CLOSED, UPSTREAM_UNAVAILABLE, cancelled_request, with_id
from ._faults import failed, said, told
from ._one_line import one_line
from ._relay import Key

_KEEP: Final = 64 * 1024
_HIGH_WATER: Final = 1024 * 1024
"""The bytes waiting for the host's stdout past which the upstream is no longer read."""
_STARTS: Final = frozenset(b"{")
_NOT_RUNNING: Final = "the upstream is not running"
_STOPPING: Final = "the upstream is being stopped (no restart left)"
"""Why a frame is not sent while the process is stopped for the last time (silent to its
replayed ``initialize``, no restart left): it is still alive, waiting out ``--grace``."""
_QUEUE_MOST: Final = 1000
_QUEUE_BYTES: Final = 64 * 1024 * 1024
"""The frames, and their bytes, that may wait for a restarted process (one that never answers
its replayed ``initialize`` would hold the host's frames without end); past either, a frame is
not sent: a request gets UPSTREAM_UNAVAILABLE, a notification or a response is dropped and noted."""
Restart = Literal["never", "on-failure", "always"]
FORCED_EXIT: Final = 1
"""The proxy's exit status when its stdio upstream is gone for good after a failure that left no
status of its own (:meth:`StdioUpstream.exit_status`)."""


_JOIN_MAX: Final = 8 * 1024
"""A frame up to this size is written with its LF appended (one small copy); a longer one is
handed to the pipe transport as two buffers (one ``writev``, no copy of the frame)."""


class LineSplitter:
    """Bytes in, whole lines out (without their LF), bounded by ``limit``.

    A line that spans reads is held as the pieces the reads gave (views of them, no copy) and
    joined once, at its end."""

    __slots__ = ("_dropping", "_held", "_kept", "_parts", "limit", "on_line", "on_too_large")

    def __init__(self, limit: int, on_line: Callable[[bytes], None], on_too_large: Callable[[bytes, int], None]
                 ) -> None:
        self.limit = limit
        self.on_line = on_line
        self.on_too_large = on_too_large
        self._parts: list[bytes | memoryview] = []  # the pieces of an unfinished line
        self._held = 0  # their bytes
        self._dropping = -1  # bytes of an oversized line counted so far (-1: not dropping)
        self._kept = b""

    def feed(self, chunk: bytes) -> None:
        if (self._dropping < 0 and not self._parts and chunk[-1:] == b"\n"  # (endswith's, without its
                # argument parsing)
                and chunk.find(b"\n") == len(chunk) - 1 and len(chunk) - 1 <= self.limit):
            self.on_line(chunk[:-1])  # one whole line: one copy
            return
        start = 0
        end = len(chunk)
        while start < end:
            cut = chunk.find(b"\n", start)
            if self._dropping >= 0:
                if cut < 0:
                    self._dropping += end - start
                    return
                size = self._dropping + cut - start
                self._dropping = -1
                self.on_too_large(self._kept, size)
                self._kept = b""
                start = cut + 1
                continue
            if cut < 0:
                self._parts.append(memoryview(chunk)[start:] if start else chunk)
                self._held += end - start
                if self._held > self.limit:
                    self._dropping = self._held
                    self._kept = b"".join(self._parts)[:_KEEP]
                    self._parts.clear()
                    self._held = 0
                return
            if self._parts:
                self._parts.append(memoryview(chunk)[start:cut])
                line = b"".join(self._parts)
                self._parts.clear()
                self._held = 0
            else:
                line = chunk[start:cut]
            start = cut + 1
            if len(line) > self.limit:
                self.on_too_large(line[:_KEEP], len(line))
            else:
                self.on_line(line)

    def close(self) -> bytes:
        """The stream ended: what is left of an unfinished line (b"" when none)."""
        rest = b"".join(self._parts)
        self._parts.clear()
        self._held = 0
        if self._dropping >= 0:
            self.on_too_large(self._kept, self._dropping)
            self._dropping = -1
        return rest


# -- the host on stdin/stdout ------------------------------------------------------------------------
class _WriterStream:
    """A host stream that writes lines to a pipe transport (the proxy's stdout).

    Backpressure: while the transport's buffer is past its high-water mark (the host does not
    read its pipe), ``on_pause`` stops reading the upstream — which then blocks on its own output,
    as with a direct connection — and ``on_resume`` reads it again once the buffer has drained
    below its low-water mark. What is held is one read of the upstream at most past the mark;
    nothing is dropped."""

    def __init__(self) -> None:
        self.transport: asyncio.WriteTransport | None = None
        self.broken = False
        self.on_broken: Callable[[], None] | None = None
        self.on_pause: Callable[[], None] | None = None
        self.on_resume: Callable[[], None] | None = None
        self.paused = False
        self.one_line = False
        """Frames may hold line breaks (an HTTP upstream): each CR and LF becomes a space."""

    def send(self, data: bytes, *, final: bool, answer: bool = False) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if self.one_line and (data.find(b"\n") >= 0 or data.find(b"\r") >= 0):
            data = one_line(data)
        try:
            if len(data) <= _JOIN_MAX:  # (_write_line's, without a call)
                transport.write(data + b"\n")
            else:
                transport.writelines((data, b"\n"))
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            self._broke()

    def _broke(self) -> None:
        if not self.broken:
            self.broken = True
            if self.on_broken is not None:
                self.on_broken()

    def pause(self) -> None:
        self.paused = True
        if self.on_pause is not None:
            self.on_pause()

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            if self.on_resume is not None:
                self.on_resume()


class _StdoutProtocol(asyncio.BaseProtocol):
    def __init__(self, stream: _WriterStream) -> None:
        self.stream = stream
        self.closed = asyncio.get_running_loop().create_future()

    def pause_writing(self) -> None:
        self.stream.pause()

    def resume_writing(self) -> None:
        self.stream.resume()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stream.resume()  # (an upstream paused for a host now gone: its frames are read, and cancelled)
        self.stream._broke()
        if not self.closed.done():
            self.closed.set_result(None)


class _StdinProtocol(asyncio.Protocol):
    def __init__(self, splitter: LineSplitter, on_eof: Callable[[bytes, Exception | None], None],
                 on_read: Callable[[bytes], None] | None = None) -> None:
        self.splitter = splitter
        self.on_eof = on_eof
        self.data_received = on_read or splitter.feed  # type: ignore[method-assign,assignment]  # (the class's,
        # without a call: each read to ``on_read``, else to the splitter)

    def data_received(self, data: bytes) -> None:
        self.splitter.feed(data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            rest = self.splitter.close()
        except Exception as fault:  # (out of the callback, the host's end went untaken: the proxy never ended)
            self.on_eof(b"", fault)
            return
        self.on_eof(rest, None)


def _pipe_like(fd: int) -> bool:
    """A pipe, a socket or a terminal: what the loop's pipe transports can wait on. Not a file,
    nor another character device: ``/dev/null`` cannot be polled (epoll refuses it), and a pipe
    transport on it aborted the process under uvloop (SIGABRT, no message) and logged a
    traceback under asyncio; such a device is read and written as a file is."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


class _FileWriter:
    """Blocking writes to a regular file standing in for stdout (a transport's small surface)."""

    def __init__(self, fd: int) -> None:
        self._file = os.fdopen(os.dup(fd), "wb", buffering=0)

    def write(self, data: bytes) -> None:
        self._file.write(data)

    def writelines(self, parts: Sequence[bytes]) -> None:
        self._file.write(b"".join(parts))

    def is_closing(self) -> bool:
        return self._file.closed

    def get_write_buffer_size(self) -> int:
        return 0

    def close(self) -> None:
        self._file.close()


class StdioHost:
    """The host side on the proxy's stdin and stdout."""

    def __init__(self, bridge: Bridge, *, limit: int, stdin: int | None = None, stdout: int | None = None) -> None:
        self.bridge = bridge
        self.limit = limit
        self.stream = _WriterStream()
        self.eof = asyncio.Event()
        self.gone = asyncio.Event()
        self._gone = False  # (gone.is_set(), without a call: set with it)
        self._splitter = LineSplitter(limit, self._line, self._too_large)
        self._stdin = sys.stdin.fileno() if stdin is None else stdin
        self._stdout = sys.stdout.fileno() if stdout is None else stdout

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.stream.on_broken = self._host_gone
        splitter = self._splitter
        if _pipe_like(self._stdout):
            out = os.fdopen(os.dup(self._stdout), "wb", buffering=0)
            transport, _ = await loop.connect_write_pipe(lambda: _StdoutProtocol(self.stream), out)
            transport.set_write_buffer_limits(high=_HIGH_WATER)
            self.stream.transport = transport
        else:
            self.stream.transport = _FileWriter(self._stdout)  # type: ignore[assignment]
        self.bridge.standing = self.stream
        self.bridge.one_stream = True
        if _pipe_like(self._stdin):
            inp = os.fdopen(os.dup(self._stdin), "rb", buffering=0)
            await loop.connect_read_pipe(lambda: _StdinProtocol(splitter, self._ended, self._read), inp)
        else:  # a regular file: read it on a thread
            loop.run_in_executor(None, self._read_file, loop, splitter)

    def _read_file(self, loop: asyncio.AbstractEventLoop, splitter: LineSplitter) -> None:
        with open(os.dup(self._stdin), "rb", buffering=0) as handle:
            while chunk := handle.read(65536):
                loop.call_soon_threadsafe(splitter.feed, chunk)
        loop.call_soon_threadsafe(lambda: self._ended(splitter.close(), None))

    def _read(self, chunk: bytes) -> None:
        """A read of stdin: one that is one whole line starting with ``{`` goes to the bridge at
        once (the splitter's first case and :meth:`_line`'s, in one call: most reads); any other
        to the splitter."""
        splitter = self._splitter
        try:
            if (chunk[:1] == b"{" and chunk[-1:] == b"\n" and splitter._dropping < 0 and not splitter._parts
                    and chunk.find(b"\n") == len(chunk) - 1 and len(chunk) - 1 <= splitter.limit and not self._gone):
                self.bridge.from_host(chunk[:-1], self.stream)
            else:
                splitter.feed(chunk)
        except Exception as exc:  # (out of the callback, it closed stdin: taken for the host's end)
            self.bridge.faulted(chunk, exc, self.stream)

    def _line(self, line: bytes) -> None:
        if not line or self._gone:
            return  # nothing more goes upstream once the host has gone
        try:
            if line[:1] != b"{" and not may_be_message(line) and not is_batch(line):  # (a batch: a message, MCP
                # 2025-03-26's; a line starting with "{" may be one, without a call)
                upstream = self.bridge.upstream
                if self.bridge.relay.noise("c2s", line) and upstream is not None:
                    upstream.send(line, key=None, stream=None, headers=None)
                return
            self.bridge.from_host(line, self.stream)
        except Exception as exc:  # (the lines after it, in its read, still relayed)
            self.bridge.faulted(line, exc, self.stream)

    def _too_large(self, prefix: bytes, size: int) -> None:
        self.bridge.host_too_large(prefix, size, self.stream)

    def _ended(self, rest: bytes, fault: Exception | None) -> None:
        """The host closed stdin; ``fault``: the proxy's own, met as it read the last line (lost,
        said on stderr and in the frame log)."""
        if rest.strip():
            self._line(rest)  # a last line without its LF is still a line
        self.eof.set()  # (first: the proxy ends on it whatever the note does)
        if fault is not None:
            reason = failed("reading the host's last line", fault)
            told(reason)
            self.bridge.relay.note("error", "c2s", reason)
        self.bridge.relay.note("eof", "c2s", "the host closed stdin")

    def _host_gone(self) -> None:
        self._gone = True
        self.gone.set()
        self.eof.set()
        self.bridge.relay.note("close", "s2c", "the host closed stdout")
        self.bridge.host_lost()

    async def drain(self) -> None:
        """Wait until what was written to stdout is flushed."""
        transport = self.stream.transport
        for _ in range(200):
            if transport is None or transport.is_closing() or not transport.get_write_buffer_size():
                return
            await asyncio.sleep(0.005)

    def close(self) -> None:
        self.stream.on_broken = None  # closing stdout is the proxy's own doing, not the host going away
        if self.stream.transport is not None:
            self.stream.transport.close()


# -- the upstream process ------------------------------------------------------------------------------
_PIPE_BYTES: Final = 256 * 1024
"""The capacity asked of the upstream's stdout pipe (Linux, ``F_SETPIPE_SZ``): about what the
socket pair the subprocess transport made held (~208 KiB), where a pipe holds 64 KiB: an answer
up to it comes in one read, and the upstream may write as much before it blocks. Also the size
of the buffer it is read into (:class:`_StdoutReader`), as uvloop's own was."""


def _close(transport: asyncio.BaseTransport | None) -> None:
    """Close ``transport`` unless there is none or it is closing already (the process's stdin)."""
    if transport is not None and not transport.is_closing():
        transport.close()


def _widen(fd: int) -> None:
    """Ask for a pipe of :data:`_PIPE_BYTES` (Linux; elsewhere, or refused, the pipe stays as it is)."""
    import fcntl

    option = getattr(fcntl, "F_SETPIPE_SZ", None)
    if option is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, option, _PIPE_BYTES)


class _StdoutReader(asyncio.BufferedProtocol):
    """The upstream's stdout, read into a buffer of the reader's own (:data:`_PIPE_BYTES`): a read
    that is one whole line goes to the bridge as one copy of it, where a read was a bytes object
    the line was then copied out of (a 60 kB answer: ~58,000 instructions fewer, callgrind; a
    250 B one ~1,900 more); any other read goes to its process's line splitter as a copy of the
    bytes read, as before."""

    def __init__(self, process: _ProcessProtocol) -> None:
        self.process = process
        self.splitter = process.splitter
        self._owner: StdioUpstream | None = getattr(process, "owner", None)
        """The upstream whose lines these are: a read that is one whole line starting with ``{``
        goes to its bridge at once, as its ``_line`` sends it, while no replayed ``initialize``
        waits for its answer (None: every line to the splitter's ``on_line``)."""
        self._buffer = bytearray(_PIPE_BYTES)
        self._view = memoryview(self._buffer)
        buffer = self._buffer
        self.get_buffer = collections.defaultdict(lambda: buffer).__getitem__  # type: ignore[method-assign,assignment]
        # (the buffer, whatever size is asked, without a Python call: a dict's lookup)

    def get_buffer(self, sizehint: int) -> bytearray:
        return self._buffer

    def buffer_updated(self, nbytes: int) -> None:
        splitter = self.splitter
        buffer = self._buffer
        # (LineSplitter.feed's first case; the first LF of the buffer is the read's last byte: none before it)
        try:
            if (buffer[nbytes - 1] == 10 and splitter._dropping < 0 and not splitter._parts
                    and buffer.find(b"\n") == nbytes - 1 and nbytes - 1 <= splitter.limit):
                owner = self._owner  # one whole line: one copy
                if buffer[0] == 123 and owner is not None and owner._replay_id is None:  # ("{": _line's, without a
                    # call)
                    owner.bridge.from_upstream(bytes(self._view[:nbytes - 1]))
                else:
                    splitter.on_line(bytes(self._view[:nbytes - 1]))
            else:
                splitter.feed(bytes(self._view[:nbytes]))
        except Exception as exc:  # (out of the callback, it closed the pipe: taken for the upstream's exit)
            self.process.owner.bridge.faulted(bytes(self._view[:nbytes]), exc)

    def data_received(self, data: bytes) -> None:
        """A read as asyncio's own loop hands it (its pipe transport takes no buffered protocol,
        where uvloop's does): to the splitter, as the subprocess transport's reads went."""
        self.splitter.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.process.stdout_lost(exc)


class _ProcessProtocol(asyncio.SubprocessProtocol):
    def __init__(self, owner: StdioUpstream) -> None:
        self.owner = owner
        self.splitter = LineSplitter(owner.limit, owner._line, owner._too_large)
        self.exited = asyncio.get_running_loop().create_future()
        self.stdout_closed = False
        self.stdout: asyncio.ReadTransport | None = None
        """The transport reading the process's stdout (POSIX): a pipe of the proxy's own, each
        read straight to the splitter (:class:`_StdoutReader`), where the subprocess transport's
        own pipe hands each read to the protocol on the loop's next turn (uvloop: a handle, a call
        and a turn of the loop per read; ~4,500 instructions per stdio call, callgrind). None: the
        subprocess transport's pipe (its reads come as ``pipe_data_received``)."""
        self.stdin: asyncio.WriteTransport | None = None
        """The transport writing the process's stdin (POSIX): a pipe of the proxy's own, which
        the subprocess transport neither holds nor closes. None: the subprocess transport's."""

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.splitter.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.stdout_closed:
            self.stdout_closed = True
            try:
                rest = self.splitter.close()
                if rest.strip():
                    self.owner._line(rest)  # the last line, cut off by the exit: still judged
            except Exception as fault:  # (out of the callback, the exit went untaken: each call waited for
                # --timeout, the proxy never ended)
                said(self.owner.bridge.relay, failed("reading the upstream's last line", fault))
            self.owner._stdout_closed(self)

    def stdout_lost(self, exc: Exception | None) -> None:
        self.pipe_connection_lost(1, exc)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)
        # What it left running in its group may hold its stdout open: the exit would go unseen
        # (no end of stdout), and the calls in flight would wait for --timeout.
        try:
            self.owner._end_leftovers()
        except Exception as fault:  # (out of the callback, a traceback: the exit unseen, as above)
            self.owner._let_go(fault)


class StdioUpstream:
    """An upstream MCP server started as a process, with a restart policy."""

    __slots__ = ("_closing", "_forced", "_init", "_initialized", "_input_closed", "_paused", "_protocol", "_queue",
                 "_queued", "_replay_id", "_replay_late", "_replay_timer", "_stdin", "_stopping", "_taken_back",
                 "_transport", "bridge", "command", "cwd", "delivery", "env", "exit_codes", "finished", "grace",
                 "http_host", "limit", "max_restarts", "on_exit", "one_line", "restart", "restarts", "unsent_why")
    # (slots: past 30 attributes an instance's own dict makes each read a hinted lookup: ``Relay``'s)

    def __init__(self, bridge: Bridge, command: Sequence[str], *, limit: int, restart: Restart = "never",
                 max_restarts: int = 5, grace: float = 5.0, env: Mapping[str, str] | None = None,
                 cwd: str | None = None) -> None:
        if not command:
            raise ValueError("the upstream command is empty")
        self.bridge = bridge
        self.command = list(command)
        self.limit = limit
        self.restart = restart
        self.max_restarts = max_restarts
        self.grace = grace
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.restarts = 0
        self.exit_codes: list[int | None] = []
        self.finished = asyncio.Event()
        self._transport: asyncio.SubprocessTransport | None = None
        self._protocol: _ProcessProtocol | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._queue: list[tuple[bytes, asyncio.Future[str | None], bool, Key | None]] | None = None
        """The frames waiting for a restarted process, each with its fate (:attr:`delivery`),
        whether the proxy wrote it (``own``) and, for a request, its id key: at most
        :data:`_QUEUE_MOST` frames and :data:`_QUEUE_BYTES` bytes (or one frame's limit)."""
        self._taken_back: bytes | None = None
        """The proxy's own ``notifications/cancelled`` whose request was taken out of the queue
        (:meth:`withholds`): :meth:`send` does not send it either."""
        self._forced = False
        """The last process was stopped by the proxy (silent to its replayed ``initialize``)."""
        self._queued = 0
        """The bytes of the frames in :attr:`_queue`."""
        self.unsent_why = _NOT_RUNNING
        """Why :meth:`send` last returned False."""
        self.http_host = False
        """The host speaks HTTP: a frame of its that answers no request and is not sent gets 502
        (504 past ``--timeout``), as its frame-log record says."""
        self.on_exit: Callable[[], None] | None = None
        """Told when a process has exited (before a restart, if any): the requests it sent its
        hosts can no longer be answered (``HttpHost``: its hosts' responses to them are refused,
        not written to the next process, which never sent them)."""
        self.delivery: asyncio.Future[str | None] | None = None
        """The fate of the last frame :meth:`send` took while the process was down: None once it
        is written to the restarted process, else why it was not (the HTTP host awaits it, for
        its status); None itself when the frame was written at once."""
        self._init: bytes | None = None
        self._initialized: bytes | None = None
        self._replay_id: str | None = None
        self._replay_timer: asyncio.TimerHandle | None = None
        self._replay_late: str | None = None
        """Why the process was stopped: it did not answer its replayed ``initialize`` in time."""
        self._stopping: asyncio.Task[None] | None = None
        """That stop (held: the loop keeps only a weak reference to a task)."""
        self._closing = False
        self._input_closed = False
        self._paused = False
        self.one_line = False
        """The host's frames may hold line breaks (an HTTP host's body, pretty-printed): each CR and
        LF is written as a space (:func:`one_line`), so that the server reads one line per frame."""
        bridge.relay.withholds = self.withholds  # (the proxy's own cancellations of queued requests)

    async def start(self) -> None:
        """Start the upstream process; an OSError names the command (``cannot start the upstream
        'srv --x': No such file or directory``)."""
        loop = asyncio.get_running_loop()
        # (POSIX: stdout is a pipe of the proxy's own, read by _StdoutReader; stdin one written by a
        # pipe transport of the proxy's own, where the subprocess transport's PIPE is a socket pair
        # under uvloop (libuv's): a write to it cost the proxy ~4 µs more of CPU a call, and a
        # stdio→stdio call ~4-9 µs more at p50, compare_proxy, both start orders)
        read_end, write_end = os.pipe() if POSIX else (-1, -1)
        in_read, in_write = os.pipe() if POSIX else (-1, -1)
        if POSIX:
            _widen(read_end)
            _widen(in_write)
        try:
            transport, protocol = await loop.subprocess_exec(
                lambda: _ProcessProtocol(self), *self.command, stdin=in_read if POSIX else asyncio.subprocess.PIPE,
                stdout=write_end if POSIX else asyncio.subprocess.PIPE, stderr=None, env=self.env, cwd=self.cwd,
                start_new_session=POSIX)
        except OSError as exc:
            if POSIX:
                os.close(read_end)
                os.close(in_write)
            import shlex

            why = exc.strerror or str(exc)
            raise OSError(exc.errno, f"cannot start the upstream {shlex.join(self.command)!r}: {why}") from exc
        finally:
            if POSIX:
                os.close(write_end)  # (the process has its own: its stdout)
                os.close(in_read)  # (and its stdin)
        if POSIX:
            protocol.stdout, _ = await loop.connect_read_pipe(lambda: _StdoutReader(protocol),
                                                              os.fdopen(read_end, "rb", buffering=0))
            self._stdin, _ = await loop.connect_write_pipe(asyncio.BaseProtocol,
                                                           os.fdopen(in_write, "wb", buffering=0))
            protocol.stdin = self._stdin
        else:
            self._stdin = transport.get_pipe_transport(0)  # type: ignore[assignment]
        self._transport, self._protocol = transport, protocol
        self.bridge.relay.note("open", "c2s", f"started the upstream (pid {transport.get_pid()})")
        if self._paused:
            self._reading(False)

    def pause_reading(self) -> None:
        """Stop reading the upstream's stdout (the host's pipe is full): the upstream blocks on it."""
        self._paused = True
        self._reading(False)

    def resume_reading(self) -> None:
        self._paused = False
        self._reading(True)

    def _reading(self, on: bool) -> None:
        # (uvloop's pipe transports have the methods but are no asyncio.ReadTransport)
        pipe = self._protocol.stdout if self._protocol is not None else None
        if pipe is None and self._transport is not None:  # (not POSIX: the subprocess transport's own pipe)
            pipe = cast("asyncio.ReadTransport | None", self._transport.get_pipe_transport(1))
        if pipe is not None and not pipe.is_closing():
            if on and not pipe.is_reading():
                pipe.resume_reading()
            elif not on and pipe.is_reading():
                pipe.pause_reading()

    @property
    def pid(self) -> int | None:
        return self._transport.get_pid() if self._transport is not None else None

    # -- frames to the upstream ------------------------------------------------------------------
    routes_by_key = False  # one pipe: frames are written as they come

    def send(self, data: bytes, *, key: Key | None = None, stream: HostStream | None = None,
             headers: Mapping[str, str] | None = None, own: bool = False) -> bool:
        if data is self._taken_back:
            self._taken_back = None  # (its request was taken back unsent: nothing to cancel)
            return True
        if self.one_line and (data.find(b"\n") >= 0 or data.find(b"\r") >= 0):
            data = one_line(data)
        if (self._init is None or self._initialized is None) and data.find(b"initialize") >= 0:
            # (one search for both: a stateless 2026-07-28 host never sends either, and each frame was
            # searched twice)
            if self._init is None and data.find(b'"initialize"') >= 0:
                self._remember_init(data)
            elif self._initialized is None and data.find(b"notifications/initialized") >= 0:
                self._initialized = data
        queue = self._queue
        if queue is not None and (len(queue) < _QUEUE_MOST and self._queued + len(data) <= max(_QUEUE_BYTES,
                                                                                                self.limit)):
            fate: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
            look = peek(data)
            queue.append((data, fate, own, id_key(look.id) if look.kind == "request" else None))
            self._queued += len(data)
            self.delivery = fate
            return True
        stdin = self._stdin
        if queue is not None or stdin is None or stdin.is_closing() or self._input_closed \
                or self._replay_late is not None:  # (being stopped: its stdin is closed next)
            if queue is not None:
                why = f"the upstream is being restarted and {len(queue)} frames ({self._queued} bytes) already " \
                      "wait for it"
            else:
                why = _STOPPING if self._replay_late is not None else _NOT_RUNNING
            self.unsent_why = why
            if key is not None:
                self.bridge.fail(key, why, UPSTREAM_UNAVAILABLE)
            else:
                self.delivery = asyncio.get_running_loop().create_future()
                self.delivery.set_result(why)
            return False
        self.delivery = None
        if len(data) <= _JOIN_MAX:  # (_write_line's, without a call)
            stdin.write(data + b"\n")
        else:
            stdin.writelines((data, b"\n"))
        return True

    def undelivered(self, data: bytes, reason: str, status: int = 502, *, own: bool = False) -> None:
        """Note in the frame log that a frame answering no request (a notification, a response)
        never reached the process, and what its host was told: an HTTP host ``status`` with
        UPSTREAM_UNAVAILABLE (UPSTREAM_TIMEOUT for 504), a stdio host nothing; ``own``: the
        proxy's own frame (its ``notifications/cancelled``), which no host waits for."""
        kind = peek(data).kind
        if kind == "request":
            return  # (answered by the relay: UPSTREAM_CLOSED or UPSTREAM_UNAVAILABLE under its id)
        what = "notification" if kind == "notification" else "response" if kind in ("response", "error") \
            else "message"
        if own:
            self.bridge.relay.note("error", "c2s", f"the proxy's {what}: {reason}: dropped")
            return
        told = f"answered HTTP {status}" if self.http_host else "the host is not told: stdio"
        self.bridge.relay.note("error", "c2s", f"the host's {what}: {reason}: dropped ({told})")

    def withdraw(self, fate: asyncio.Future[str | None], reason: str) -> bool:
        """Take the frame of ``fate`` out of the queue unsent (its HTTP host waited past
        ``--timeout``: 504); False when it is no longer queued (sent or dropped meanwhile)."""
        queue = self._queue
        if fate.done() or queue is None:
            return False
        for index, (data, waiting, _own, _key) in enumerate(queue):
            if waiting is fate:
                del queue[index]
                self._queued -= len(data)
                fate.set_result(reason)
                self.undelivered(data, reason, 504)
                return True
        return False

    def withholds(self, data: bytes, own: bool, headers: Mapping[str, str] | None = None) -> str | None:
        """The frame-log note of a ``notifications/cancelled`` for a host request still waiting
        for a restarting process, said before it is recorded and sent (the relay's hook,
        ``Relay.withholds``, for the proxy's own, ``own``; ``Bridge.from_host`` for the host's);
        None for any other frame. The request is taken out of the queue unsent, an ``error``
        record says so, and the cancellation is not sent either (:meth:`send`): the proxy's own
        follows its answer to the host (-31002 at ``--timeout``; -31001 at a stop; or its host
        went away): the host was told it failed, the tool must not run after; the host's own
        (MCP basic/utilities/cancellation: the receiver stops, the sender ignores a later
        response) is answered at once (UPSTREAM_UNAVAILABLE under the request's id: an HTTP host's
        POST ends; none is awaited later). Ids are compared with their JSON type (``frames.id_key``)."""
        queue = self._queue
        if not queue or data.find(b"notifications/cancelled") < 0:
            return None
        cancel, request = cancelled_request(data)
        if not cancel or request is None:
            return None
        wanted = id_key(request)
        for index, (queued, fate, _own, key) in enumerate(queue):
            if key == wanted:
                del queue[index]
                self._queued -= len(queued)
                if own:
                    reason = peek(data).params.get("reason")
                    why = reason.removeprefix("mcp-verdict proxy: ") if isinstance(reason, str) else "cancelled"
                    by = f"cancelled by the proxy ({why})"
                else:
                    why = by = "cancelled by its host"
                if not fate.done():
                    fate.set_result(why)
                self.bridge.relay.note("error", "c2s", f"the host's request: {by} while the upstream was being "
                                       "restarted: taken back unsent")
                if not own:  # its host is answered now: an HTTP host's POST ends (a stdio host ignores it)
                    self.bridge.fail(key, f"{why} while the upstream was being restarted: taken back unsent",
                                     UPSTREAM_UNAVAILABLE)
                self._taken_back = data
                return "not sent upstream: the request it cancels was taken back unsent (the upstream was being " \
                       "restarted)"
        return None

    def _drop_queue(self, reason: str) -> None:
        """The frames waiting for a restarted process that will not get them: a request's host
        gets UPSTREAM_UNAVAILABLE (none, when the relay answered it already), a notification's
        or a response's is told as :meth:`undelivered` says."""
        queued, self._queue, self._queued = self._queue, None, 0
        for data, fate, own, key in queued or ():
            if key is not None:
                self.bridge.fail(key, reason, UPSTREAM_UNAVAILABLE)
            else:
                self.undelivered(data, reason, own=own)
            if not fate.done():
                fate.set_result(reason)

    def _remember_init(self, data: bytes) -> None:
        look = peek(data)
        if look.kind == "request" and look.method == "initialize":
            self._init = data

    def close_input(self) -> None:
        """The host closed its input: close the upstream's stdin (the stdio shutdown)."""
        self._input_closed = True
        _close(self._stdin)

    # -- frames from the upstream ----------------------------------------------------------------
    def _line(self, line: bytes) -> None:
        try:
            if not line:
                return
            if self._replay_id is not None and self._replay_id.encode() in line:
                look = peek(line)
                if look.id == self._replay_id:
                    self._replay_id = None
                    if self._replay_late is not None:  # (past its deadline: the process is being stopped)
                        self.bridge.relay.note("error", "s2c", "the restarted upstream answered the replayed "
                                               "initialize after its deadline: dropped (it is being stopped)")
                        return
                    self._cancel_replay_timer()
                    self.bridge.relay.note("open", "s2c", "the restarted upstream answered the replayed initialize")
                    self._replayed()
                    return
            if line[:1] != b"{" and not may_be_message(line) and not is_batch(line):  # (a batch: a message, MCP
                # 2025-03-26's; a line starting with "{" may be one, without a call)
                standing = self.bridge.standing
                if self.bridge.relay.noise("s2c", line) and standing is not None:
                    standing.send(line, final=False)
                return
            self.bridge.from_upstream(line)
        except Exception as exc:  # (the lines after it, in its read, still relayed)
            self.bridge.faulted(line, exc)

    def _too_large(self, prefix: bytes, size: int) -> None:
        self.bridge.upstream_too_large(prefix, size)

    def _stdout_closed(self, protocol: _ProcessProtocol) -> None:
        asyncio.get_running_loop().create_task(self._after_exit(protocol))

    async def _after_exit(self, protocol: _ProcessProtocol) -> None:
        """:meth:`_exited`, whose fault (the proxy's own) is said (stderr, the frame log) and ends
        the upstream for good: the calls in flight get UPSTREAM_CLOSED, what waits for a restart
        is dropped, and the proxy ends as when no restart is left. Its task died unseen: the
        calls waited for ``--timeout``, and the proxy for an exit it never took in."""
        try:
            await self._exited(protocol)
        except Exception as exc:
            reason = failed("taking in the upstream's exit", exc)
            told(reason)
            steps: tuple[Callable[[], None], ...] = (
                lambda: self.bridge.relay.note("error", "s2c", f"{reason}: no restart"),
                lambda: self.bridge.upstream_lost(reason, UPSTREAM_CLOSED), lambda: self._drop_queue(reason))
            for step in steps:
                with contextlib.suppress(Exception):  # (the fault may be theirs: said on stderr already)
                    step()
            with contextlib.suppress(Exception):
                _close(self._stdin)
            self._stdin = None
            self.finished.set()

    async def _exited(self, protocol: _ProcessProtocol) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(protocol.exited), 2.0)
        code = self._transport.get_returncode() if self._transport is not None else None
        self.exit_codes.append(code)
        relay = self.bridge.relay
        relay.note("eof", "s2c", f"the upstream closed stdout (exit status {code})")
        if self.on_exit is not None:
            self.on_exit()
        late, self._replay_late, self._replay_id = self._replay_late, None, None
        self._forced = late is not None
        self._cancel_replay_timer()
        again = self._restarts_after(failed=code != 0 or late is not None)
        lost = f"the upstream exited (status {code}) before answering"
        if self._queue and late is not None and again:
            # a request queued for the next process was never sent to this one: it waits on
            # (answered UPSTREAM_CLOSED here, it was still sent to the next process, and run)
            queued = {key for *_, key in self._queue if key is not None}
            for key in relay.waiting_keys():
                if key not in queued:
                    self.bridge.fail(key, lost, UPSTREAM_CLOSED)
        else:
            self.bridge.upstream_lost(lost, UPSTREAM_CLOSED)
        if self._queue is not None and not (late is not None and again):
            # (it exited before its replayed initialize was answered; what waited for one stopped
            # for its silence waits for the next process, if one follows)
            self._drop_queue(late or f"the restarted upstream exited (status {code}) before it was sent")
        if self._transport is not None:
            self._transport.close()
        _close(self._stdin)  # (POSIX: a pipe of its own, which the subprocess transport's close leaves open)
        if not again:
            self._stdin = None
            self.finished.set()
            return
        self.restarts += 1
        if self._queue is None:
            self._queue, self._queued = [], 0
        await asyncio.sleep(min(0.1 * 2 ** (self.restarts - 1), 5.0))
        try:
            await self.start()
        except OSError as exc:
            relay.note("error", "c2s", f"the upstream could not be restarted: {exc}")
            self._drop_queue("the upstream could not be restarted")
            self._stdin = None
            self.finished.set()
            return
        relay.note("open", "c2s", f"restarted the upstream ({self.restarts} of at most {self.max_restarts})")
        if self._init is not None:
            self._replay_id = f"mcp-verdict-replay-{self.restarts}"
            assert self._stdin is not None
            # the host's bytes but the id's (re-serialised, its integers past 64 bits became floats)
            self._stdin.write(with_id(self._init, orjson.dumps(self._replay_id), peek(self._init).message) + b"\n")
            timeout = self.bridge.relay.timeout
            self._replay_timer = asyncio.get_running_loop().call_later(timeout, self._replay_overdue, timeout)
        else:
            self._replayed()

    def _restarts_after(self, *, failed: bool) -> bool:
        """Whether the restart policy starts the process again once it has exited."""
        return (not self._closing and not self._input_closed and self.restarts < self.max_restarts
                and (self.restart == "always" or (self.restart == "on-failure" and failed)))

    def _cancel_replay_timer(self) -> None:
        if self._replay_timer is not None:
            self._replay_timer.cancel()
            self._replay_timer = None

    def _replay_overdue(self, timeout: float) -> None:
        """The restarted process did not answer its replayed ``initialize`` within ``--timeout``:
        noted, and the process stopped (stdin closed, then SIGTERM and SIGKILL to its group) —
        a failure, for the restart policy. What waits for it waits for the next process; when no
        restart follows, it is dropped now (a request gets UPSTREAM_UNAVAILABLE, an HTTP host's
        notification 502), before its own ``--timeout`` (its wait began after the replay)."""
        self._replay_timer = None
        transport, protocol = self._transport, self._protocol
        if self._replay_id is None or transport is None or protocol is None:
            return
        why = f"the restarted upstream did not answer its replayed initialize within {timeout:g} s"
        self._replay_late = why
        again = self._restarts_after(failed=True)
        self.bridge.relay.note("error", "s2c", f"{why}: stopping it ("
                               f"{'restarted next' if again else 'no restart left'})")
        if not again:
            self._drop_queue(why)
        self._stopping = asyncio.get_running_loop().create_task(self._stop_silent(transport, protocol))

    async def _stop_silent(self, transport: asyncio.SubprocessTransport, protocol: _ProcessProtocol) -> None:
        """:meth:`_stop` of the process silent to its replayed ``initialize``. A fault of the
        proxy's in it is said (stderr, the frame log) and the process killed, its exit then taken
        in as the stop's would be (the restart policy applied). Its task died unseen: the process
        was kept, what waited for the next one waited for ever, and the proxy did not end."""
        try:
            await self._stop(transport, protocol)
        except Exception as exc:
            reason = failed("stopping the silent upstream", exc)
            said(self.bridge.relay, reason, f"{reason}: killing it")
            with contextlib.suppress(ProcessLookupError):  # (it exited meanwhile)
                transport.kill()

    def _replayed(self) -> None:
        assert self._stdin is not None
        if self._initialized is not None and self._init is not None:
            self._stdin.write(self._initialized + b"\n")
        queued, self._queue, self._queued = self._queue or [], None, 0
        for data, fate, _own, _key in queued:
            self._stdin.write(data + b"\n")
            if not fate.done():
                fate.set_result(None)
        if queued:
            count = len(queued)
            self.bridge.relay.note("open", "c2s", f"sent the restarted upstream the {count} frame"
                                   f"{'' if count == 1 else 's'} the host sent while it was down")

    async def aclose(self) -> None:
        """Stop the upstream: close its stdin, wait ``grace``, then SIGTERM, then SIGKILL."""
        self._closing = True
        self._cancel_replay_timer()
        transport, protocol = self._transport, self._protocol
        if transport is None or protocol is None:
            return
        self.close_input()
        await self._stop(transport, protocol)
        transport.close()
        if protocol.stdout is not None:
            protocol.stdout.close()

    async def _stop(self, transport: asyncio.SubprocessTransport, protocol: _ProcessProtocol) -> None:
        """Close the process's stdin, wait ``grace``, then SIGTERM its group, then SIGKILL; then
        end what it left running there."""
        _close(protocol.stdin or transport.get_pipe_transport(0))
        for sig in (None, signal.SIGTERM, SIGKILL):
            if sig is not None and transport.get_returncode() is None:
                signal_group(transport.get_pid(), sig, transport.send_signal)
            try:
                await asyncio.wait_for(asyncio.shield(protocol.exited), self.grace if sig is None else 2.0)
                break
            except TimeoutError:
                continue
        await self._leftovers(transport.get_pid())

    def _end_leftovers(self) -> None:
        """The upstream has exited: end what it left running in its process group."""
        if self._transport is not None and group_alive(self._transport.get_pid()):
            asyncio.get_running_loop().create_task(self._leftovers(self._transport.get_pid()))

    async def _leftovers(self, pid: int) -> None:
        """:func:`_leftovers_ended` for the exited process ``pid``. A fault of the proxy's there is
        said (stderr, the frame log) and the process's stdout let go of: what it left running may
        hold that pipe open, which hid the exit (the calls in flight waited for ``--timeout``,
        and the task died unseen)."""
        try:
            await _leftovers_ended(pid)
        except Exception as exc:
            self._let_go(exc)

    def _let_go(self, exc: Exception) -> None:
        """A fault of the proxy's as it ended what the exited upstream left running: said, and the
        process's stdout let go of (what it left may hold it open: the exit would go unseen)."""
        reason = failed("ending what the upstream left running", exc)
        said(self.bridge.relay, reason, f"{reason}: its stdout let go of")
        protocol, transport = self._protocol, self._transport
        pipe = protocol.stdout if protocol is not None else None
        if pipe is None and transport is not None:  # (not POSIX: the subprocess transport's own pipe)
            pipe = cast("asyncio.ReadTransport | None", transport.get_pipe_transport(1))
        if pipe is not None:
            pipe.close()

    async def wait(self) -> None:
        """Until the upstream has exited for good (no restart follows)."""
        await self.finished.wait()

    def exit_status(self) -> int:
        """The proxy's exit status when it ends because this upstream is gone for good (not the
        host's doing, nor a stop signal's): 0 when the last process exited with status 0 by
        itself (or none ran); its own status when it exited with a non-zero one; else
        :data:`FORCED_EXIT` — it was stopped by the proxy (silent to its replayed
        ``initialize``, whatever status the stop left), killed by a signal, or its status is
        unknown. Each is a failure, which must not end the proxy with 0."""
        if not self.exit_codes:
            return 0
        last = self.exit_codes[-1]
        if self._forced or last is None or last < 0:
            return FORCED_EXIT
        return last


async def _leftovers_ended(pid: int) -> None:
    """End what an exited upstream left running in its process group (``mcp_verdict._process``):
    SIGTERM, up to 2 s, then SIGKILL."""
    for sig in (signal.SIGTERM, SIGKILL):
        if not group_alive(pid):
            return
        signal_group(pid, sig, lambda _: None)  # (no group where there is no POSIX: nothing left to end)
        if await group_ended(pid, 2.0, asyncio.sleep):
            return


def merge_env(extra: Mapping[str, str] | None) -> dict[str, str] | None:
    if not extra:
        return None
    env = dict(os.environ)
    env.update(extra)
    return env


__all__ = ["LineSplitter", "Restart", "StdioHost", "StdioUpstream", "merge_env"]
