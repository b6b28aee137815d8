"""A receiver run in a process of its own, so that what its code does to a process ends one case,
not the run: a case it never answers (a loop, a lock, a read that waits for ever) is stopped at
the time limit, and a case during which its process ends (``os._exit``, a crash, a signal) is
said so with the status or the signal. Each is an ``error`` outcome naming what happened, and
the run goes on with the next case in a new process.

The process is a fork of the caller's (POSIX): it has the receiver, the cases and the labels
already, so a run costs one fork (and the spawn of a small shell, its keeper: below), and a case
the time of one short line through a pipe. The process answers case after case, each answer as
soon as it has it; a case's time starts when the answer before it arrives. Where there is no
``fork`` (Windows), the cases run in the caller's process, as :func:`~mcp_verdict.kit.run` runs
them, with no time limit.

The receiver's state (a cache, a counter) lasts from one case to the next as in one process,
until a case is stopped or its process ends: the next case starts in a new fork of the caller.

A receiver that hangs on every case would take the cases times the limit: after ``give_up_after``
cases in a row stopped at the limit, the run gives up (the cases left are not run); one that
hangs on every other case would take half of that, and the run gives up after ``give_up_total``
cases stopped in all, in a row or not.

The receiver's process is in a process group with what it starts (a server it talks to), and
when it is stopped, or it ends, or the run does, the group is killed. The group ends with the caller's
process even when that is killed and stops nothing itself (``conform`` killed, SIGKILL or
SIGTERM): its leader, a keeper spawned for it (a shell, which runs none of the receiver's code),
waits for the end of a pipe that only the caller holds, and kills the group then; on Linux
the receiver's process is also sent SIGKILL at once (``PR_SET_PDEATHSIG``). What the receiver
starts in a group or session of its own (``setsid``, ``start_new_session``) is not in it, and
is left to the receiver.

A fork copies one thread, the caller's: the caller is told of any other (a lock one of them held
at the fork stays held in the receiver's process, and a case that needs it hangs).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Final, NoReturn

from ..corpus import Case
from ..verdict._peer_text import one_line
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

_PR_SET_PDEATHSIG: Final = 1

_SHELL: Final = "/bin/sh"
_KEEPER: Final = "read _; kill -KILL 0"
"""The keeper's script (:meth:`_Worker._start_keeper`): its standard input is the pipe whose end
it waits for (nothing is written to it), then it kills its process group, itself included."""


def _load_prctl() -> Callable[..., int] | None:
    """Linux's ``prctl``, looked up once in this process (never in a fork: a lookup there may
    take a lock some other thread held at the fork); ``None`` elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):  # pragma: no cover - a libc without it
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    function.restype = ctypes.c_int
    prctl: Callable[..., int] = function
    return prctl


_PRCTL: Final = _load_prctl() if CAN_FORK else None

Notice = Callable[[str], None]
"""Where :func:`run_apart` says what happens as it happens (a case stopped, the run given up, a
thread besides the caller's at a fork): one line each, without an ending newline."""


@dataclass(frozen=True, slots=True)
class GaveUp:
    """Why :func:`run_apart` gave the run up: the count of cases stopped at the time limit that
    reached its limit."""

    stopped: int
    """The cases stopped: in a row (``give_up_after``'s), or in all (``give_up_total``'s)."""
    in_a_row: bool
    """Whether it is ``give_up_after``'s count (when both limits are reached at once, too)."""


def run_apart(receiver: Receiver, cases: Sequence[Case], labels: Labels, *, timeout: float,
              give_up_after: int = 0, give_up_total: int = 0,
              notice: Notice | None = None) -> Generator[Outcome, None, GaveUp | None]:
    """Each case's outcome, in order, the receiver run in a process of its own (:mod:`this
    module <mcp_verdict.kit._apart>`): a case not answered within ``timeout`` seconds, or during
    which the process ends, is an ``error`` outcome saying so, and the next case runs in a new
    process. After ``give_up_after`` cases in a row stopped at the limit, or ``give_up_total``
    in all, in a row or not (``0``: no such limit), no more outcomes come: the cases left are
    not run, and the generator returns why (``None``: every case ran). ``notice`` is told of
    each case stopped, of the run given up, and of threads besides the caller's when it forks.
    Without ``fork``, the cases run in this process (no time limit)."""
    if not CAN_FORK:
        for case in cases:
            yield _check_case(receiver, case, labels)
        return None
    start = 0
    in_a_row = total = 0
    warned = False
    while start < len(cases):
        if notice is not None and not warned:
            threads = _other_threads()
            if threads:
                notice(_threads_warning(threads, timeout))
                warned = True
        worker = _Worker(receiver, cases, labels, start)
        try:
            start = yield from worker.outcomes(timeout)
        finally:
            worker.stop()
        if worker.stopped is None:
            in_a_row = 0 if worker.answered else in_a_row
            continue
        in_a_row = (0 if worker.answered else in_a_row) + 1
        total += 1
        given_up = None
        if start < len(cases):
            if 0 < give_up_after <= in_a_row:
                given_up = GaveUp(in_a_row, in_a_row=True)
            elif 0 < give_up_total <= total:
                given_up = GaveUp(total, in_a_row=False)
        if notice is not None:
            case = worker.stopped
            if given_up is not None:
                then = (f"{given_up.stopped} in {'a row' if given_up.in_a_row else 'all'}: the run gives up, "
                        f"{len(cases) - start} cases not run")
            elif start < len(cases):
                then = "the run goes on in a new process" + _so_far(in_a_row, total, give_up_after, give_up_total)
            else:
                then = "it was the last case"
            notice(f"case {case.id} ({case.version}) gave no answer within {_seconds(timeout)}: stopped; {then}")
        if given_up is not None:
            return given_up
    return None


def _so_far(in_a_row: int, total: int, give_up_after: int, give_up_total: int) -> str:
    """The cases stopped so far, and the limit the run gives up at if every case from now on is
    stopped too, for a notice: `` (1 in a row; it gives up at 3)``, `` (1 in a row, 4 in all; it
    gives up at 3 in a row)``; nothing without a limit."""
    counts = [f"{in_a_row} in a row"] if give_up_after else []
    if give_up_total and (total != in_a_row or not give_up_after):
        counts.append(f"{total} in all")
    if not counts:
        return ""
    if give_up_after and (not give_up_total or give_up_after - in_a_row <= give_up_total - total):
        at = f"{give_up_after}" + (" in a row" if len(counts) > 1 else "")
    else:
        at = f"{give_up_total} in all"
    return f" ({', '.join(counts)}; it gives up at {at})"


def _other_threads() -> list[str]:
    """The threads of this process besides the one running (a fork copies that one alone): the
    names of Python's, and on Linux any other the system counts (a C library's own)."""
    me = threading.current_thread()
    names = [thread.name for thread in threading.enumerate() if thread is not me]
    with contextlib.suppress(OSError):
        native = len(os.listdir("/proc/self/task")) - 1
        names += ["(a thread of no Python name)"] * max(0, native - len(names))
    return names


def _threads_warning(threads: list[str], timeout: float) -> str:
    shown = ", ".join(one_line(name[:60]) for name in threads[:5]) + (", ..." if len(threads) > 5 else "")
    return (f"warning: this process runs {len(threads)} other thread{'s' if len(threads) > 1 else ''} ({shown}) "
            "as it forks the receiver's process, which gets none of them: a lock one of them held at the fork "
            "(logging's, an import's, a client's) stays held there, and a case that needs it hangs until the "
            f"time limit ({_seconds(timeout)}). Start such threads in the receiver, on its first call, not when "
            "its module is imported")


class _Worker:
    """One fork answering the cases from ``start`` on, one JSON line each, in a process group led
    by a keeper, which ends the group (the receiver's process and what it started) when this
    process ends, killed or not (:meth:`_start_keeper`)."""

    def __init__(self, receiver: Receiver, cases: Sequence[Case], labels: Labels, start: int) -> None:
        self._cases, self._labels, self._start = cases, labels, start
        for stream in (sys.stdout, sys.stderr):  # what this process has buffered is written once, by it
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.flush()
        self.pid: int | None = None
        self._keeper: int | None = None
        self._group: int | None = None
        self._read: int | None = None
        self._pidfd: int | None = None
        self._lifeline: int | None = None
        self.answered = 0
        """How many cases it answered (or ended its process during)."""
        self.stopped: Case | None = None
        """The case it was stopped at, at the time limit."""
        parent = os.getpid()
        try:
            gc.freeze()  # the child's collections pass over what it was forked with: its pages stay shared
            try:
                group = self._start_keeper()
                self._read, write = os.pipe()
                try:
                    pid = os.fork()
                    if pid == 0:  # pragma: no cover - the child (its coverage is not gathered)
                        try:
                            if self._lifeline is not None:  # (the keeper waits for every copy of it to be closed)
                                os.close(self._lifeline)
                            _die_with(parent)
                            os.close(self._read)
                            _answer(receiver, cases, labels, start, write, group)
                        finally:
                            os._exit(_WORKER_FAILED)  # (never on into the caller's code)
                finally:
                    os.close(write)
                self.pid = pid
                self._group = self._group or pid
                with contextlib.suppress(OSError):  # (the child does it too: whichever runs first)
                    os.setpgid(pid, group or pid)
                self._pidfd = _pidfd(pid)
            finally:
                gc.unfreeze()  # (in this process: collected again as ever)
        except BaseException:
            self.stop()
            raise

    def _start_keeper(self) -> int:
        """Start the keeper, the leader of the process group the receiver's process joins (its
        pid; ``0`` when it cannot start: the receiver's process then leads a group of its own):
        a shell that waits for the end of a pipe whose other end only this process holds (a
        pipe's ends are closed at an ``exec``), then kills its group, itself included. That
        comes when this process closes it (:meth:`stop`) or ends, even killed (SIGKILL, or a
        SIGTERM, which Python does not catch: no time to stop anything itself). The keeper runs
        no receiver code: nothing the receiver does (a loop, a lock, a signal mask) keeps it
        from it. It is spawned, not forked: it costs no copy of this process."""
        lifeline, kept = os.pipe()
        try:
            keeper = os.posix_spawn(_SHELL, ["sh", "-c", _KEEPER], {}, setpgroup=0, file_actions=[
                (os.POSIX_SPAWN_DUP2, lifeline, 0), (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, 1, 2)])
        except (AttributeError, OSError):  # (no posix_spawn, no shell)
            os.close(kept)
            return 0
        finally:
            os.close(lifeline)
        self._keeper = self._group = keeper
        self._lifeline = kept
        return keeper

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
                self.stopped = cases[index]
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
                        self.answered += 1
                        yield self._outcome(cases[index], line)
                        index += 1
                if lines:
                    deadline = time.monotonic() + timeout
                if not ended:
                    time.sleep(_GATHER)  # (then the answers of several cases are read at once)
                    break
            if (ended or gone) and index < len(cases):
                status = self._ended()
                self.answered += 1
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
        """End the process, what it started in its group (ended or not: what it left running is
        ended too) and the keeper, and let go of its pipes."""
        if self._group is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._group, signal.SIGKILL)
            self._group = None
        for pid in (self.pid, self._keeper):
            if pid is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):  # (one not in the group yet)
                    os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
        self.pid = self._keeper = None
        for fd in (self._read, self._pidfd, self._lifeline):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._read = self._pidfd = self._lifeline = None

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


def _die_with(parent: int) -> None:  # pragma: no cover - runs in the child
    """This process ends when ``parent`` does, even killed (SIGKILL leaves it no time to stop
    it): on Linux it is sent SIGKILL then; ``parent`` may have ended before that was asked, so
    it is looked for once after. Everywhere, the keeper ends it, and what it started
    (:meth:`_Worker._start_keeper`). (Linux sends
    it when the thread that forked ends: :func:`run_apart` is called from the thread that lasts,
    ``conform``'s main one.)"""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(_WORKER_FAILED)


def _answer(receiver: Receiver, cases: Sequence[Case], labels: Labels, start: int, write: int,
            group: int) -> NoReturn:  # pragma: no cover - runs in the child
    """The child's whole life: join the process ``group`` (``0``: one of its own), answer each
    case from ``start`` on, then end (never return into the caller's code)."""
    status = 0
    try:
        os.setpgid(0, group)  # the keeper's group (or its own): what the receiver starts is stopped with it
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


__all__ = ["CAN_FORK", "GaveUp", "Notice", "run_apart"]
