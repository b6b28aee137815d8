"""A stdio server's process group, signalled and watched: the standard library's part of stopping
a server, shared by the edges that start one (the tap's transport and ``VerdictClient`` through
``tap/_process``, on anyio; the proxy's upstream, on asyncio).

A server is started in a session of its own on POSIX, so it leads a process group: a server
started through ``npx``, ``uvx`` or a shell is several processes, and what it starts stays in
its group. Signals go to the whole group. Once the server has ended, what it left running in
its group (a helper that outlived it, holding its pipes open) is ended too: a stopped server
leaves no process behind.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Awaitable, Callable, Iterator
from typing import Final

POSIX: Final = os.name == "posix"
"""Whether servers get a process group of their own (``start_new_session``)."""
SIGKILL: Final[signal.Signals] = getattr(signal, "SIGKILL", signal.SIGTERM)
_PROC: Final = "/proc" if os.path.isfile("/proc/self/stat") else None


def signal_group(pid: int, number: signal.Signals, alone: Callable[[signal.Signals], None]) -> None:
    """Send signal ``number`` to the group led by ``pid`` (POSIX: the leader's pid is the group's
    id, even once it is reaped), or ``alone(number)`` to the process itself where there are no
    process groups. A group or process already gone is no error."""
    try:
        if POSIX:
            os.killpg(pid, number)
        else:
            alone(number)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pid: int) -> bool:
    """Whether any process is left running in the group led by ``pid`` (POSIX; False elsewhere).
    Linux does not hand the group's id to a new process while the group has a member. A member
    that has ended but waits to be reaped (an orphan, reaped by PID 1, which in a container may
    take a second or more) still answers ``killpg``; on Linux such zombies are told apart
    through ``/proc``, so a stop does not wait for another process's reaping."""
    if not POSIX:
        return False
    try:
        os.killpg(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return _PROC is None or _running_in(pid)


def pauses(timeout: float) -> Iterator[float]:
    """The pauses between looks at a group being ended, ``timeout`` seconds in all: 20 ms, then
    twice as long each time up to 200 ms (on Linux a look may read ``/proc``, whose size grows
    with the machine's processes)."""
    delay, left = 0.02, timeout
    while left > 0:
        pause = min(delay, left)
        yield pause
        left -= pause
        delay = min(delay * 2, 0.2)


async def group_ended(pid: int, timeout: float, sleep: Callable[[float], Awaitable[object]]) -> bool:
    """Whether the group led by ``pid`` has no process left running (:func:`group_alive`) within
    ``timeout`` seconds: looked at once, then after each of :func:`pauses`, slept with ``sleep``
    (the caller's event loop's: ``anyio.sleep`` for the tap, ``asyncio.sleep`` for the proxy)."""
    for pause in pauses(timeout):
        if not group_alive(pid):
            return True
        await sleep(pause)
    return not group_alive(pid)


def _running_in(group: int) -> bool:
    """Whether a process of ``group`` that is no zombie is listed in ``/proc`` (Linux: each
    ``stat`` is ``pid (comm) state ppid pgrp ...``, the command name possibly holding spaces or
    parentheses, hence the last one)."""
    assert _PROC is not None
    wanted = str(group).encode()
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
            if len(fields) >= 3 and fields[2] == wanted and fields[0] != b"Z":
                return True
    return False
