"""The processes of an audit with ``jobs > 1``: how they start (``fork`` where it is safe,
:func:`_start_method`; each with a pipe for its messages, widened where the system allows, and one
for its go-ahead: :func:`_started`), a thread per pipe that drains its messages as they come
(:func:`_drained`), and their end (:func:`_ended`). What each process runs is the audit's
(``_run._worker``, ``_run._share_worker``).
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, Final

_PIPE_BYTES: Final = 1024 * 1024
"""The pipe a process sends its entries through holds this much where the system allows (Linux,
``F_SETPIPE_SZ``; 64 KiB by default): a chunk of entries (~200 kB) is written at once, and the
process goes on while the parent is busy, where it waited for the parent to read the rest."""


def _widen(fd: int) -> None:
    """Let the pipe of ``fd`` hold :data:`_PIPE_BYTES` where the system allows it (else as it is)."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


def _start_method() -> str:
    """``fork`` where it is safe: on Linux, from a process that runs no other thread (a forked
    child inherits no lock another thread held), starting in a few ms with the audit already
    imported and warm; else ``spawn``, a fresh interpreter that imports the audit (~0.3 s)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


def _started(context: Any, jobs: int, work: Callable[[int], tuple[Callable[..., None], tuple[Any, ...]]]
             ) -> tuple[list[Any], list[Any], list[Any]]:
    """``jobs`` processes started, the ``index``-th running ``work(index)``'s function on its
    arguments and then the two ends it is given (its messages' pipe, its go-ahead's): the
    parent's ends of those pipes, and the processes."""
    pipes, processes, gos = [], [], []
    for index in range(jobs):
        parent, child = context.Pipe(duplex=False)
        _widen(parent.fileno())
        go_child, go_parent = context.Pipe(duplex=False)
        target, args = work(index)
        process = context.Process(target=target, args=(*args, child, go_child), daemon=True)
        process.start()
        child.close()
        go_child.close()
        pipes.append(parent)
        processes.append(process)
        gos.append(go_parent)
    return pipes, processes, gos


def _drained(pipes: Sequence[Any]) -> list[queue.SimpleQueue[tuple[Any, ...]]]:
    """A queue per process's pipe, each filled by a thread of its own as the messages come, up to
    the process's last (``done``, ``error``, or ``("ended", None)`` when its pipe closed first)."""
    queues: list[queue.SimpleQueue[tuple[Any, ...]]] = [queue.SimpleQueue() for _ in pipes]

    def drain(index: int) -> None:
        pipe = pipes[index]
        while True:
            try:
                message = pipe.recv()
            except (EOFError, OSError):
                queues[index].put(("ended", None))
                return
            queues[index].put(message)
            if message[0] in ("done", "error"):
                return

    readers = [threading.Thread(target=drain, args=(i,), daemon=True) for i in range(len(pipes))]
    for reader in readers:
        reader.start()
    return queues


def _ended(processes: Sequence[Any], gos: Sequence[Any], finished: bool) -> None:
    """The processes waited for (up to 5 s each) when the audit ``finished``, and ended when
    still alive (the audit stopped, or one hung); their go-ahead pipes closed."""
    for process in processes:
        if finished:
            process.join(timeout=5)
        if process.is_alive():
            process.terminate()
    for go in gos:
        go.close()
