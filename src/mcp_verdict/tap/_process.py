"""A stdio server's process, started and stopped as the spec says (basic/transports/stdio): the
one place for it, used by the tap's stdio transport and by ``VerdictClient``.

Started in a session of its own on POSIX (so its whole process group can be signalled: a server
started through ``npx``, ``uvx`` or a shell is several processes). Stopped in the spec's order:
close its stdin, wait; terminate, wait; kill — each signal sent to the group. Then whatever the
server started and left running in its group (a helper that outlived it, holding its pipes open)
is terminated, then killed, the same way: a stopped server leaves no process behind. Last, the
pipes and the asyncio transport are closed now: left open, the transport is closed at garbage
collection, after the event loop, with an "Event loop is closed" traceback.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping, Sequence
from contextlib import suppress
from os import PathLike
from typing import Final

import anyio
import anyio.abc

POSIX: Final = os.name == "posix"
GRACE: Final = 2.0
"""Seconds given to each step of a stop."""
_SIGKILL: Final = int(getattr(signal, "SIGKILL", signal.SIGTERM))
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
            for number in (signal.SIGTERM, _SIGKILL):
                _signal_group(process, number)
                if await _exited(process, grace):
                    break
    if POSIX:
        for number in (signal.SIGTERM, _SIGKILL):  # what it left running in its group
            if not _group_alive(process):
                break
            _signal_group(process, number)
            if await _group_ended(process, grace):
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


def _group_alive(process: anyio.abc.Process) -> bool:
    """Whether any process is left running in the server's group (POSIX): the group's id is the
    leader's pid, which Linux does not hand to a new process while the group has a member. A
    member that has ended but waits to be reaped (an orphan, reaped by PID 1, which in a
    container may take a second or more) still answers ``killpg``; on Linux such zombies are
    told apart through ``/proc``, so a stop does not wait for another process's reaping."""
    try:
        os.killpg(process.pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return _PROC is None or _running_in(process.pid)


_PROC: Final = "/proc" if os.path.isfile("/proc/self/stat") else None


def _running_in(group: int) -> bool:
    """Whether a process of ``group`` that is no zombie is listed in ``/proc`` (Linux: each
    ``stat`` is ``pid (comm) state ppid pgrp ...``, the command name possibly holding spaces or
    parentheses, hence the last one)."""
    assert _PROC is not None
    with os.scandir(_PROC) as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"{_PROC}/{entry.name}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:  # it ended meanwhile
                continue
            fields = stat[stat.rfind(b")") + 2:].split(maxsplit=3)
            if len(fields) >= 3 and fields[2] == str(group).encode() and fields[0] != b"Z":
                return True
    return False


async def _group_ended(process: anyio.abc.Process, timeout: float) -> bool:
    with anyio.move_on_after(timeout):
        while _group_alive(process):
            await anyio.sleep(_POLL)
    return not _group_alive(process)


def _signal_group(process: anyio.abc.Process, number: int) -> None:
    """Signal the server's process group (it leads its own session), or the process alone where
    there are no process groups."""
    with suppress(ProcessLookupError, PermissionError):
        if POSIX:
            os.killpg(process.pid, number)  # the leader's pid is the group's id, even once reaped
        elif number == signal.SIGTERM:
            process.terminate()
        else:
            process.kill()


def _close_transport(process: anyio.abc.Process) -> None:
    """Close the asyncio subprocess transport now (module docstring). Not public, hence getattr."""
    close = getattr(getattr(getattr(process, "_process", None), "_transport", None), "close", None)
    if callable(close):
        with suppress(Exception):
            close()
