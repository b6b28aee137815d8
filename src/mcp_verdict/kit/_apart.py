"""A receiver run in a process of its own, so that what its code does to a process ends one case,
not the run: a case it never answers (a loop, a lock, a read that waits for ever) is stopped at
the time limit, and a case during which its process ends (``os._exit``, a crash, a signal) is
said so with the status or the signal. Each is an ``error`` outcome naming what happened, and
the run goes on with the next case in a new process.

The process is a fork of the caller's (POSIX): it has the receiver, the cases and the labels
already, so a run costs one fork, and a case the time of one short line through a pipe. The
process answers case after case, each answer as soon as it has it; a case's time starts when
the answer before it arrives. Where there is no ``fork`` (Windows), the cases run in the
caller's process, as :func:`~mcp_verdict.kit.run` runs them, with no time limit.

The receiver's state (a cache, a counter) lasts from one case to the next as in one process,
until a case is stopped or its process ends: the next case starts in a new fork of the caller.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import sys
import time
from collections.abc import Generator, Iterator, Sequence
from typing import Final

from ..corpus import Case
from ._labels import Labels
from ._receiver import Receiver
from ._run import STATUSES, Outcome, _check_case

CAN_FORK: Final = os.name == "posix" and hasattr(os, "fork")
"""Whether receivers can run apart (POSIX); elsewhere they run in the caller's process."""

_GATHER: Final = 0.002
"""Seconds the reader lets answers gather in the pipe after each read: woken once per case, the
reading cost the run as much again as the receiver (mcp-verdict's own classify, 20 µs a case)."""

_WORKER_FAILED: Final = 70
"""The status of the receiver's process when the kit's own part of it fails (EX_SOFTWARE)."""


def run_apart(receiver: Receiver, cases: Sequence[Case], labels: Labels, *, timeout: float) -> Iterator[Outcome]:
    """Each case's outcome, in order, the receiver run in a process of its own (:mod:`this
    module <mcp_verdict.kit._apart>`): a case not answered within ``timeout`` seconds, or during
    which the process ends, is an ``error`` outcome saying so, and the next case runs in a new
    process. Without ``fork``, the cases run in this process (no time limit)."""
    if not CAN_FORK:
        for case in cases:
            yield _check_case(receiver, case, labels)
        return
    start = 0
    while start < len(cases):
        worker = _Worker(receiver, cases, labels, start)
        try:
            start = yield from worker.outcomes(timeout)
        finally:
            worker.stop()


class _Worker:
    """One fork answering the cases from ``start`` on, one JSON line each."""

    def __init__(self, receiver: Receiver, cases: Sequence[Case], labels: Labels, start: int) -> None:
        self._cases, self._labels, self._start = cases, labels, start
        read, write = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # what this process has buffered is written once, by it
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.flush()
        gc.freeze()  # the child's collections pass over what it was forked with: its pages stay shared
        try:
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child (its coverage is not gathered)
                os.close(read)
                _answer(receiver, cases, labels, start, write)
        finally:
            gc.unfreeze()  # (in this process: collected again as ever)
        os.close(write)
        with contextlib.suppress(OSError):  # (the child does it too: whichever runs first)
            os.setpgid(pid, pid)
        self.pid: int | None = pid
        self._group: int | None = pid  # (its id once the process is reaped, while a member is left)
        self._read: int | None = read
        self._pidfd = _pidfd(pid)

    def outcomes(self, timeout: float) -> Generator[Outcome, None, int]:
        """The outcomes as they come; returns the index of the next case to run (past the one
        stopped or the one during which the process ended)."""
        cases, index = self._cases, self._start
        assert self._read is not None
        poller = select.poll()
        poller.register(self._read, select.POLLIN)
        if self._pidfd is not None:
            poller.register(self._pidfd, select.POLLIN)
        pending = b""
        deadline = time.monotonic() + timeout
        while index < len(cases):
            left = deadline - time.monotonic()
            if left > 0:
                events = poller.poll(max(1, int(left * 1000) + 1))
            elif _readable(self._read):  # an answer (or the process's end) this process was too busy to see
                events = [(self._read, select.POLLIN)]
            else:
                self.stop()
                yield self._stopped(cases[index], timeout)
                return index + 1
            ended = any(fd == self._pidfd for fd, _ in events)
            readable = any(fd == self._read for fd, _ in events)
            gone = False
            while True:  # what the pipe holds (once the process has ended: until it is empty)
                try:
                    chunk = os.read(self._read, 1 << 16) if readable or _readable(self._read) else None
                    readable = False
                except OSError:
                    chunk = b""
                if chunk is None:
                    break
                if not chunk:
                    gone = True
                    break
                pending += chunk
                lines = pending.split(b"\n")
                pending = lines.pop()
                for line in lines:
                    if index < len(cases):
                        yield self._outcome(cases[index], line)
                        index += 1
                if lines:
                    deadline = time.monotonic() + timeout
                if not ended:
                    time.sleep(_GATHER)  # (then the answers of several cases are read at once)
                    break
            if (ended or gone) and index < len(cases):
                status = self._ended()
                yield self._exited(cases[index], status)
                return index + 1
        self._finish(timeout)
        return index

    def _finish(self, timeout: float) -> None:
        """Every case answered: the process ends by itself (writing what the receiver printed and
        it still holds), within ``timeout`` seconds, else it is stopped."""
        if self.pid is None:
            return
        watched = self._pidfd if self._pidfd is not None else self._read  # (the pipe: its end once the process's)
        assert watched is not None
        poller = select.poll()
        poller.register(watched, select.POLLIN)
        poller.poll(max(1, int(timeout * 1000)))
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(self.pid, os.WNOHANG)[0] != 0:
                self.pid = None

    def stop(self) -> None:
        """End the process and what it started in its group (ended or not: what it left running
        is ended too), and let go of its pipe."""
        if self._group is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._group, signal.SIGKILL)
            self._group = None
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):  # (the group not made yet)
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None
        for fd in (self._read, self._pidfd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._read = self._pidfd = None

    def _ended(self) -> int:
        """The ended process's status, as ``subprocess`` gives it (``-N`` for signal N)."""
        assert self.pid is not None
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:  # pragma: no cover - reaped by someone else (a SIGCHLD handler)
            status = 0
        self.pid = None
        return os.waitstatus_to_exitcode(status)

    def _outcome(self, case: Case, line: bytes) -> Outcome:
        expected = self._labels[case.expect]
        try:
            status, got, reason = json.loads(line)
            if status not in STATUSES or not isinstance(reason, str) or not isinstance(got, (str, type(None))):
                raise ValueError(status)
        except ValueError:
            return Outcome(case, "error", expected, reason="the kit could not read the receiver process's answer "
                           f"for this case ({line[:80]!r})")
        return Outcome(case, status, expected, got, reason)

    def _stopped(self, case: Case, timeout: float) -> Outcome:
        return Outcome(case, "error", self._labels[case.expect],
                       reason=f"the receiver gave no answer within {_seconds(timeout)} (the time limit per case): "
                              "it was stopped, and the run went on with the next case")

    def _exited(self, case: Case, status: int) -> Outcome:
        if status < 0:
            number = -status
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = "?"
            how = f"was killed by signal {number} ({name})"
        else:
            how = f"exited with status {status} (os._exit, or a crash of its code)"
        return Outcome(case, "error", self._labels[case.expect],
                       reason=f"the receiver's process {how} during this case; the run went on with the next case")


def _answer(receiver: Receiver, cases: Sequence[Case], labels: Labels, start: int,
            write: int) -> None:  # pragma: no cover - runs in the child
    """The child's whole life: answer each case from ``start`` on, then end (never return into
    the caller's code)."""
    status = 0
    try:
        os.setpgid(0, 0)  # a group of its own: what the receiver starts is stopped with it
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the caller stops the run, and this process
        for case in cases[start:]:
            outcome = _check_case(receiver, case, labels)
            _flush()  # what the receiver printed is written before its process may be stopped
            line = json.dumps([outcome.status, outcome.got, outcome.reason]).encode("ascii") + b"\n"
            while line:
                line = line[os.write(write, line):]
    except BaseException:  # the kit's part failed (the caller gone: a broken pipe)
        status = _WORKER_FAILED
    finally:
        _flush()
        os._exit(status)


def _flush() -> None:  # pragma: no cover - runs in the child
    """Write what the receiver printed and Python still holds (a stdout that fails is passed over:
    what it says of it is the caller's)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()


def _readable(fd: int) -> bool:
    """Whether a read of ``fd`` would not wait (data, or its end)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def _pidfd(pid: int) -> int | None:
    """A descriptor readable once the process ``pid`` has ended (Linux 5.3+), so that its end is
    seen even while something it started holds its pipe open; ``None`` where there is none (its
    end is then seen as its pipe's)."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def _seconds(value: float) -> str:
    return f"{value:g} s"


__all__ = ["CAN_FORK", "run_apart"]
