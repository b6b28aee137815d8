"""A stdio server's process on anyio, started and stopped as the spec says (basic/transports/stdio):
the one place for it, used by the tap's stdio transport and by ``VerdictClient`` (the group's
signals and watch: ``mcp_verdict._process``, shared with the proxy's asyncio upstream).

Started in a session of its own on POSIX (its whole process group is signalled). Stopped in the
spec's order: close its stdin, wait; terminate, wait; kill — each signal sent to the group. Then
whatever the server left running in its group is terminated, then killed, the same way. Last,
the pipes and the asyncio transport are closed now: left open, the transport is closed at
garbage collection, after the event loop, with an "Event loop is closed" traceback.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping, Sequence
from contextlib import suppress
from os import PathLike
from typing import Final

import anyio
import anyio.abc

from .._process import POSIX, SIGKILL, group_alive, group_ended, signal_group

GRACE: Final = 2.0
"""Seconds given to each step of a stop."""
_POLL: Final = 0.02


async def start(command: Sequence[str], env: Mapping[str, str], cwd: str | PathLike[str] | None) -> anyio.abc.Process:
    """The server's process, in a session of its own on POSIX (it leads its process group)."""
    return await anyio.open_process(list(command), env=dict(env), cwd=cwd, start_new_session=POSIX)


async def stop(process: anyio.abc.Process, grace: float = GRACE) -> bool:
    """Stop a process :func:`start` started (module docstring). True when the server itself had
    to be terminated or killed (not when only what it left behind was)."""
    forced = False
    if process.returncode is None:
        if process.stdin is not None:
            with suppress(Exception):
                await process.stdin.aclose()
        if not await _exited(process, grace):
            forced = True
            for number in (signal.SIGTERM, SIGKILL):
                signal_group(process.pid, number, process.send_signal)
                if await _exited(process, grace):
                    break
    for number in (signal.SIGTERM, SIGKILL):  # what it left running in its group
        if not group_alive(process.pid):
            break
        signal_group(process.pid, number, process.send_signal)
        if await group_ended(process.pid, grace, anyio.sleep):
            break
    for stream in (process.stdin, process.stdout, process.stderr):  # a descendant may hold a pipe open
        if stream is not None:
            with suppress(Exception):
                await stream.aclose()
    _close_transport(process)
    return forced


async def _exited(process: anyio.abc.Process, timeout: float) -> bool:
    """Whether the process exited within ``timeout``, polled: ``process.wait()`` also waits for
    the pipes to close, which a descendant holding them never does."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL)
    return process.returncode is not None


def _close_transport(process: anyio.abc.Process) -> None:
    """Close the asyncio subprocess transport now (module docstring). Not public, hence getattr."""
    close = getattr(getattr(getattr(process, "_process", None), "_transport", None), "close", None)
    if callable(close):
        with suppress(Exception):
            close()
