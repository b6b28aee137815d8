"""Writing a frame log to disk, rotated by size (the one module of this layer that does I/O).

Used by the tap and the proxy; the audit reads what it writes. A line is written whole or not
at all (one ``write`` of one encoded record, under a lock, so threads and tasks may share a
writer); when the file would pass ``max_bytes`` it is closed and renamed ``NAME.1`` (older
files shift to ``NAME.2``..., the oldest beyond ``backups`` is removed) and a new file starts —
a regular file only: a device or a FIFO (``/dev/null``, a pipe to a log shipper) is written
without end, never renamed.
:class:`RotatingLines` is that file of whole lines, for any JSON Lines a recorder writes beside
the frame log (the proxy's verdict lines); :class:`FrameLogWriter` writes frame records to one.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path
from typing import IO, Final

from ..verdict._classify import OptionError
from ..verdict._shown import shown
from ._log import FrameRecord, encode, redact

MAX_BACKUPS: Final = 1000
"""The most rotated files kept (``NAME.1``...): each rotation renames every one of them."""


def _flag(option: str, value: object) -> None:
    if value is not True and value is not False:
        raise OptionError(option, "True or False", value)


_NAME_MAX: Final = 255
"""The longest file name most file systems hold, in bytes (where ``pathconf`` cannot say)."""


def _path(given: str | os.PathLike[str], backups: int) -> Path:
    """The log's path, checked before it is opened (an OptionError naming ``path``, its value
    written bounded): no NUL character (which ``open`` refuses with a ValueError of no name), and
    a file name short enough that the oldest rotated name (``NAME.3``) fits the file system's
    bound too, or the log would stop at its first rotation, in the middle of a run."""
    path = Path(given)
    text = os.fspath(path)
    if "\0" in text:
        raise OptionError("path", "a path without NUL characters", given)
    name = os.fsencode(path.name)
    try:
        longest = os.pathconf(path.parent, "PC_NAME_MAX")
    except (OSError, ValueError):  # no such directory (open says so), or no bound to ask for
        longest = _NAME_MAX
    rotated = len(name) + (1 + len(str(backups)) if backups else 0)
    if rotated > longest:
        suffix = f" with its rotated suffix (.{backups})" if backups else ""
        raise OptionError("path", f"a path whose file name has at most {longest} bytes{suffix}", given,
                          f"path's file name must have at most {longest} bytes{suffix}; {shown(path.name, 60)} "
                          f"has {len(name)}")
    return path


def _open(path: Path) -> IO[bytes]:
    """``path`` opened to append, or the OSError ``open`` raised (its kind and errno kept) with
    the path written bounded: the message of a path past the system's bound would hold it whole.
    A FIFO is opened without waiting for a reader (``open`` would wait, the proxy hanging at its
    start without a word): one no process reads is ENXIO, said so; once open, its writes wait
    for the reader as a pipe's do."""
    try:
        try:
            fifo = stat.S_ISFIFO(os.stat(path).st_mode)
        except FileNotFoundError:
            fifo = False
        if not fifo:
            return open(path, "ab")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "ab")
    except OSError as exc:
        why = "it is a FIFO no process reads (start its reader first)" if exc.errno == errno.ENXIO else exc.strerror
        raise OSError(exc.errno, f"cannot open the log {shown(os.fspath(path), 160)} to append to it: "
                                 f"{why}") from None


class RotatingLines:
    """Append whole lines to ``path``, rotated by size (``NAME.1``, ``NAME.2``...).

    ``flush_each=True`` flushes after every line (a crash loses nothing written).
    """

    def __init__(self, path: str | os.PathLike[str], *, max_bytes: int = 64 * 1024 * 1024, backups: int = 3,
                 flush_each: bool = True) -> None:
        # checked before the file is opened: an OptionError naming the option
        if not isinstance(path, (str, os.PathLike)):
            raise OptionError("path", "a path (a string or path-like)", path)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1024:
            raise OptionError("max_bytes", "an integer of at least 1024", max_bytes)
        if isinstance(backups, bool) or not isinstance(backups, int) or not 0 <= backups <= MAX_BACKUPS:
            raise OptionError("backups", f"an integer from 0 to {MAX_BACKUPS}", backups)
        _flag("flush_each", flush_each)
        self.path = _path(path, backups)
        self.max_bytes = max_bytes
        self.backups = backups
        self.flush_each = flush_each
        self._lock = threading.Lock()
        self._file: IO[bytes] | None = _open(self.path)
        self._regular = stat.S_ISREG(os.fstat(self._file.fileno()).st_mode)
        """Only a regular file is rotated: renaming a device or a FIFO (``/dev/null``, a pipe to a
        log shipper) would move the node itself and put a regular file in its place."""
        self._size = self._file.tell() if self._regular else 0
        self.records = 0

    def write_line(self, line: bytes) -> None:
        """Write one line (``line`` ends with its LF)."""
        if not isinstance(line, bytes):
            raise OptionError("line", "bytes", line)
        with self._lock:
            if self._file is None:
                raise ValueError(f"{self.path} is closed")
            if self._size and self._size + len(line) > self.max_bytes and self._regular:
                self._rotate()
            self._file.write(line)
            self._size += len(line)
            self.records += 1
            if self.flush_each:
                self._file.flush()

    def _rotate(self) -> None:
        assert self._file is not None
        self._file.close()
        if self.backups == 0:
            self.path.unlink(missing_ok=True)
        else:
            for n in range(self.backups, 0, -1):
                older = self.path.with_name(f"{self.path.name}.{n}")
                if n == self.backups:
                    older.unlink(missing_ok=True)
                newer = self.path.with_name(f"{self.path.name}.{n - 1}") if n > 1 else self.path
                if newer.exists():
                    newer.rename(older)
        self._file = _open(self.path)
        self._size = 0

    def flush(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> RotatingLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FrameLogWriter(RotatingLines):
    """Append frame records to ``path`` (JSON Lines, format v1).

    ``payloads=False`` writes each payload as its digest and size only (``redacted``).
    ``flush_each=True`` flushes after every record (a crash loses nothing written).
    """

    def __init__(self, path: str | os.PathLike[str], *, max_bytes: int = 64 * 1024 * 1024, backups: int = 3,
                 payloads: bool = True, flush_each: bool = True) -> None:
        _flag("payloads", payloads)
        super().__init__(path, max_bytes=max_bytes, backups=backups, flush_each=flush_each)
        self.payloads = payloads

    def write(self, record: FrameRecord) -> None:
        if not isinstance(record, FrameRecord):
            raise OptionError("record", "a FrameRecord", record)
        try:
            self.write_line(encode(record if self.payloads else redact(record)))
        except ValueError as exc:
            raise ValueError("the frame log is closed") from exc

    def __enter__(self) -> FrameLogWriter:
        return self
