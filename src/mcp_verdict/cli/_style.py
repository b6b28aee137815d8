"""What every command shares: the exit status per kind, the colour per kind, and a reader gone."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Final

from ..verdict._kind import Kind

EXIT_CODES: Final[dict[Kind, int]] = {
    Kind.NORMAL_COMPLETE: 0,
    Kind.TASK: 10,
    Kind.INPUT_REQUIRED: 11,
    Kind.TOOL_ERROR: 12,
    Kind.PROTOCOL_ERROR: 13,
    Kind.UNCLASSIFIED: 20,
}
"""Exit status per kind; with several responses the highest one wins (unclassified is worst)."""

READER_GONE: Final = 141
"""The exit status of a command whose reader stopped reading (``| head``): 128 + SIGPIPE, what the
shell reports for a command the signal ended, apart from every status a command gives."""

INTERRUPTED: Final = 130
"""The exit status of a command interrupted by Ctrl-C (SIGINT): 128 + SIGINT, as the shell reports
it and as ``proxy`` gives it."""

OUTPUT_FAILED: Final = 74
"""The exit status of a command that cannot write its output (standard output closed, a full disk,
an I/O error): EX_IOERR of sysexits.h, apart from every status a command gives."""


class OutputFailed(Exception):
    """The command's output cannot be written: its stream is closed (``>&-``) or a write failed
    (ENOSPC, EIO...). A reader gone is no failure of this kind (``BrokenPipeError``: READER_GONE)."""


@contextlib.contextmanager
def output_errors() -> Iterator[None]:
    """A write to stdout inside that fails (a full disk, an I/O error) raises :class:`OutputFailed`
    saying why, never a traceback; a reader gone stays ``BrokenPipeError`` (READER_GONE, quietly)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed(exc.strerror or str(exc)) from None


def require_stdout() -> None:
    """Raise :class:`OutputFailed` when stdout is closed: said before a command does what it could
    never report (a tool called, a corpus run), not after."""
    if sys.stdout is None:
        raise OutputFailed("standard output is closed")


def stdout_gone() -> bool:
    """Stdout is a pipe or socket whose reader has closed it (a write raised ``BrokenPipeError``
    because of it, not because of another pipe: a worker's, a server's)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no fd (a test's capture), or no poll
        return False


def quiet_stdout() -> None:
    """Point stdout's descriptor at /dev/null, so that the interpreter's last flush of what is
    still buffered for the gone reader raises nothing (Python's documented way for SIGPIPE)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass

_STYLE: Final = {
    Kind.NORMAL_COMPLETE: "green",
    Kind.TOOL_ERROR: "yellow",
    Kind.INPUT_REQUIRED: "cyan",
    Kind.TASK: "blue",
    Kind.PROTOCOL_ERROR: "magenta",
    Kind.UNCLASSIFIED: "bold red",
}
