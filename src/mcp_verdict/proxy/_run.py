"""Running a proxy: the options, and the four transport pairs wired to one relay each.

=====================  =================================================================
host side → upstream   what runs
=====================  =================================================================
stdio → stdio          :class:`StdioHost` and :class:`StdioUpstream` (one process, one session)
stdio → HTTP           :class:`StdioHost` and ``_http_upstream.HttpUpstream`` (one session)
HTTP → stdio           ``_http_host.HttpHost`` and :class:`StdioUpstream` (one process)
HTTP → HTTP            ``_http_host.HttpHost`` and ``_http_upstream.HttpUpstream``: a reverse
                       proxy, each host session on its own upstream session
=====================  =================================================================

The exit status: 0 when the proxy ends because its host went away (stdin closed; an HTTP host
side ends only by a stop) or on SIGTERM/SIGINT (the proxy ended the upstream: not the upstream's
failure). When it ends because its stdio upstream is gone for good (exited with no restart
left, or stopped by the proxy for its silence to the replayed ``initialize``) — stdio→stdio and
HTTP→stdio alike — it is ``StdioUpstream.exit_status``: 0 only when the last process exited
with status 0 by itself; its own status when it exited non-zero; else 1 (``FORCED_EXIT``: the
proxy stopped it, whatever status the stop left; a signal killed it; its status is unknown).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..frames._logfile import MAX_BACKUPS
from ..frames._tools import ToolsBudget
from ..verdict._classify import DEFAULT_LIMITS
from ..verdict._versions import LATEST_VERSION
from ._bridge import Bridge
from ._codes import RefuseAs
from ._record import Recorder
from ._relay import Mode, Relay, Telemetry
from ._shutdown import stop_signals, wind_down
from ._stdio import Restart, StdioHost, StdioUpstream


def _apart(log: str, verdicts: str, backups: int) -> None:
    """A ValueError when ``--log`` and ``--verdicts`` name one regular file, or one names a file
    the other's rotation makes (``NAME.1``...): both would write one file (verdict lines the audit
    reads as damaged frame-log lines), or a rotation would replace the other's file. One device
    or FIFO for both (``/dev/null``, ``/dev/stderr``) is the caller's choice: never rotated."""
    if "\0" in log or "\0" in verdicts:  # (the log's own check says what is wrong with it)
        return
    paths = {"--log": os.path.realpath(log), "--verdicts": os.path.realpath(verdicts)}
    given = f"--log {log!r} and --verdicts {verdicts!r}"
    first, second = paths.values()
    if first == second or (os.path.exists(first) and os.path.exists(second) and os.path.samefile(first, second)):
        if os.path.exists(first) and not stat.S_ISREG(os.stat(first).st_mode):
            return  # (a device or a FIFO, /dev/null or /dev/stderr: written as it comes, never rotated)
        raise ValueError(f"{given} name the same file: give each its own")
    for (option, path), (other_option, other) in zip(paths.items(), reversed(paths.items()), strict=True):
        if other in {f"{path}.{n}" for n in range(1, backups + 1)}:
            raise ValueError(f"{given}: {other_option} names a file {option} rotates into (with --log-backups "
                             f"{backups}): give each its own")


@dataclass(frozen=True)
class ProxyOptions:
    """Everything ``mcp-verdict proxy`` takes (the CLI's options, one to one)."""

    command: Sequence[str] = ()
    """The upstream server's command (stdio upstream)."""
    upstream: str | None = None
    """The upstream's Streamable HTTP URL (HTTP upstream)."""
    listen: tuple[str, int] | None = None
    """Serve Streamable HTTP to the host on (host, port) (HTTP host side); None: stdio."""
    path: str = "/mcp"
    mode: Mode = "observe"
    refuse_as: RefuseAs = "error"
    timeout: float = 120.0
    max_frame: int = DEFAULT_LIMITS.max_bytes
    restart: Restart = "never"
    max_restarts: int = 5
    grace: float = 5.0
    log: str | None = None
    verdicts: str | None = None
    log_payloads: bool = False
    log_max_bytes: int = 64 * 1024 * 1024
    log_backups: int = 3
    otel: bool = True
    default_version: str = LATEST_VERSION
    headers: tuple[tuple[str, str], ...] = ()
    """Extra headers for the upstream's HTTP requests (``--header``)."""
    env: dict[str, str] = field(default_factory=dict)
    allowed_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.command and self.upstream:
            raise ValueError("give either an upstream command (after --) or --upstream URL, not both")
        if not self.command and not self.upstream:
            raise ValueError("give the upstream: a command after -- (mcp-verdict proxy -- npx server) "
                             "or --upstream URL")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise ValueError(f"--timeout must be a positive number of seconds, not {self.timeout!r}")
        if not (math.isfinite(self.grace) and self.grace >= 0):
            raise ValueError(f"--grace must be 0 or a positive number of seconds, not {self.grace!r}")
        if self.max_frame < 1024:
            raise ValueError("--max-frame-bytes must be at least 1024")
        if self.max_restarts < 0:
            raise ValueError(f"--max-restarts must be 0 or more, not {self.max_restarts}")
        if self.log_max_bytes < 1024:
            raise ValueError(f"--log-max-bytes must be at least 1024, not {self.log_max_bytes}")
        if not 0 <= self.log_backups <= MAX_BACKUPS:
            raise ValueError(f"--log-backups must be from 0 to {MAX_BACKUPS}, not {self.log_backups}")
        if self.log is not None and self.verdicts is not None:
            _apart(self.log, self.verdicts, self.log_backups)
        if not self.path.startswith("/"):
            raise ValueError(f"--path must start with '/', not {self.path!r}")
        if self.listen is not None and not 0 <= self.listen[1] <= 65535:
            raise ValueError(f"--listen: the port {self.listen[1]} is not between 0 and 65535")


def make_recorder(options: ProxyOptions) -> Recorder | None:
    if options.log is None and options.verdicts is None:
        return None
    return Recorder(options.log, options.verdicts, payloads=options.log_payloads, max_bytes=options.log_max_bytes,
                    backups=options.log_backups)


def make_telemetry(options: ProxyOptions, transport: str) -> Telemetry | None:
    if not options.otel:
        return None
    from ._otel import telemetry

    return telemetry(transport)


def make_relay(options: ProxyOptions, conn: str, recorder: Recorder | None, telemetry: Telemetry | None,
               transport: Any, tools_budget: ToolsBudget | None = None) -> Relay:
    return Relay(conn, mode=options.mode, refuse_as=options.refuse_as, timeout=options.timeout,
                 max_frame=options.max_frame, default_version=options.default_version, recorder=recorder,
                 telemetry=telemetry, transport=transport, messages_in_refusals=True, tools_budget=tools_budget)


async def run(options: ProxyOptions, *, ready: asyncio.Event | None = None) -> int:
    """Run until the host goes away (stdio host) or until cancelled (HTTP host). Returns the exit
    status (the module's rule)."""
    recorder = make_recorder(options)
    try:
        if options.listen is None:
            return await _run_stdio_host(options, recorder, ready)
        from ._http_host import serve

        return await serve(options, recorder, ready)
    finally:
        if recorder is not None:
            recorder.close()


async def _run_stdio_host(options: ProxyOptions, recorder: Recorder | None, ready: asyncio.Event | None) -> int:
    telemetry = make_telemetry(options, "pipe")
    relay = make_relay(options, "stdio", recorder, telemetry, "stdio")
    bridge = Bridge(relay)
    host = StdioHost(bridge, limit=options.max_frame)
    upstream: Any
    if options.command:
        upstream = StdioUpstream(bridge, options.command, limit=options.max_frame, restart=options.restart,
                                 max_restarts=options.max_restarts, grace=options.grace,
                                 env=_env(options))
    else:
        from ._http_upstream import HttpUpstream

        assert options.upstream is not None
        upstream = HttpUpstream(bridge, options.upstream, headers=options.headers, limit=options.max_frame,
                                timeout=options.timeout)
        relay.one_line = host.stream.one_line = True  # an HTTP body may hold line breaks; stdout may not
    bridge.upstream = upstream
    # backpressure: a host that does not read its stdout stops the proxy reading the upstream
    host.stream.on_pause, host.stream.on_resume = upstream.pause_reading, upstream.resume_reading
    await upstream.start()
    await host.start()
    if ready is not None:
        ready.set()
    stop = asyncio.Event()
    with stop_signals(stop):
        eof = asyncio.ensure_future(host.eof.wait())
        finished = asyncio.ensure_future(upstream.wait())
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait({eof, finished, stopped}, return_when=asyncio.FIRST_COMPLETED)
        status = 0
        if host.eof.is_set() and not finished.done():
            if isinstance(upstream, StdioUpstream):
                upstream.close_input()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(finished), options.grace)
            else:  # the POSTs of the host's last notifications and responses finish (within the grace)
                await upstream.delivered(options.grace)
            if relay.in_flight:
                bridge.upstream_lost("the host closed its input and the upstream did not answer before shutdown")
        elif stop.is_set():  # a stop signal: the calls in flight get the grace
            await wind_down(lambda: (bridge,), options.grace, finished.done)
        for task in (eof, finished, stopped):
            task.cancel()
        await upstream.aclose()
        if isinstance(upstream, StdioUpstream) and finished.done() and not host.eof.is_set() \
                and not stop.is_set():  # (a stop signal ends the upstream itself: not its failure)
            status = upstream.exit_status()
        await host.drain()
        host.close()
        bridge.close()
        return status


def _env(options: ProxyOptions) -> dict[str, str] | None:
    from ._stdio import merge_env

    return merge_env(options.env)


async def _serve_settled(options: ProxyOptions) -> int:
    """:func:`run`, with the heap settled once the proxy is ready (:func:`_settle_heap`)."""
    ready = asyncio.Event()
    task = asyncio.ensure_future(run(options, ready=ready))
    waiter = asyncio.ensure_future(ready.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    if ready.is_set():
        _settle_heap()
    return await task


def _settle_heap() -> None:
    """Collect once, then move everything alive (modules, the HTTP stack, the tracker's tables)
    to the collector's permanent generation (``gc.freeze``).

    The calls themselves allocate short-lived containers only; without this, the collections of
    the older generations walk what the start-up left behind. Measured on HTTP→HTTP, 4,000
    sequential calls on the shared 2-core machine: a generation-1 pause every ~3 s took 1.2–1.4 ms
    (0.7 ms frozen), and a full collection 34 ms (the one made here, before the first call),
    against ~0.1 ms for generation 0 — pauses that land in a sequential run's p99.
    Frozen objects are still freed by their reference counts; only their cycles are not looked
    for. The CLI's process only: :func:`run` itself leaves the collector alone."""
    import gc

    gc.collect()
    gc.freeze()


def main(options: ProxyOptions) -> int:
    """Run the proxy on a fresh event loop (uvloop when installed, measured faster)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(_serve_settled(options))
    return uvloop.run(_serve_settled(options))


__all__ = ["ProxyOptions", "main", "run"]

