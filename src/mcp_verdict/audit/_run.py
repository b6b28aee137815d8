"""Auditing files (the edge of the audit: opens and reads them, runs processes).

Files are grouped into *recordings*: a log and the files it was rotated into (``NAME``,
``NAME.1``, ``NAME.2``... — a connection may span them, so they are read oldest first as one
stream); every other file is a recording of its own. Each line is read with a length bound
(a longer line is an unreadable line, skipped to its end), so memory stays bounded whatever
the file holds. gzip files are read through gzip.

``jobs > 1`` starts that many processes (forked where that is safe, :func:`_start_method`).
Each reads every frame log but decodes only the lines it owns: a frame log's connections are
shared among them by a hash of the connection id, read from the line's bytes before any JSON
is decoded (a connection's frames stay in one process, in order), lines without a connection
by line number; a JSON-RPC or OTLP file (one conversation, or spans that need no pairing) goes
to one process whole and the others do not open it. Their entries come back as MessagePack
chunks in the order they were completed (file, line, connection, call), merged, so the output
is the same whatever ``jobs`` is.
"""

from __future__ import annotations

import gzip
import heapq
import multiprocessing
import os
import queue
import re
import sys
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, cast

from ._auditor import Auditor
from ._formats import _CONN_PREFIX, FIDELITY_OF, Format, detect, feed_framelog, feed_jsonrpc, framelog_conn
from ._otlp import OtlpReader
from ._rows import CATEGORIES, DECODE, ENCODE, Entry

MAX_LINE: Final = 256 * 1024 * 1024
"""The longest line read (a frame log line holds a frame of up to the classifier's 64 MiB,
escaped); a longer one is an unreadable line."""
_CHUNK: Final = 512
_PROGRESS_EVERY: Final = 4 * 1024 * 1024
"""Bytes read between two progress reports."""
_AHEAD: Final = 64
"""Chunks of entries a worker may send before the merge takes them."""
_ROTATED: Final = re.compile(r"^(?P<base>.+)\.(?P<n>[0-9]+)$")


class AuditError(Exception):
    """An input that cannot be audited at all (missing, unreadable, of no known format)."""


@dataclass(frozen=True, slots=True)
class Input:
    path: str
    format: Format
    fidelity: str
    recording: int
    order: int
    size: int


@dataclass
class Totals:
    """What the whole audit read: lines per category (they add up to ``lines``)."""

    tally: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    bytes_read: int = 0

    @property
    def lines(self) -> int:
        return sum(self.tally.values())

    def add(self, other: dict[str, int]) -> None:
        for key, value in other.items():
            self.tally[key] = self.tally.get(key, 0) + value


def _open(path: str) -> IO[bytes]:
    handle = open(path, "rb")  # noqa: SIM115 - closed by the caller
    if handle.read(2) == b"\x1f\x8b":
        handle.close()
        return cast(IO[bytes], gzip.open(path, "rb"))
    handle.seek(0)
    return handle


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes | None, int]]:
    """(number, line without its end or None when too long, bytes consumed) for every line."""
    number = 0
    while True:
        line = handle.readline(MAX_LINE + 1)
        if not line:
            return
        number += 1
        size = len(line)
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:  # skip the rest of the line, bounded reads
                rest = handle.readline(MAX_LINE)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None, size
            continue
        yield number, line.rstrip(b"\r\n"), size


def _first_line(path: str) -> bytes:
    with _open(path) as handle:
        for _, line, _ in _lines(handle):
            if line is None or line.strip():
                return line or b""
    return b""


def plan(paths: Sequence[str], format: str = "auto") -> list[Input]:
    """The inputs in reading order, with their format (detected unless given) and recording."""
    families: dict[str, list[tuple[int, str]]] = {}
    names = set(paths)
    for path in paths:
        if not os.path.isfile(path):
            raise AuditError(f"{path}: no such file")
        match = _ROTATED.match(path)
        base, n = (match["base"], int(match["n"])) if match and (
            match["base"] in names or any(_ROTATED.match(p) and p != path and p.rsplit(".", 1)[0] == match["base"]
                                          for p in names)) else (path, 0)
        families.setdefault(base, []).append((n, path))
    inputs = []
    for recording, members in enumerate(families.values()):
        for order, (_, path) in enumerate(sorted(members, key=lambda m: -m[0])):
            if format == "auto":
                try:
                    found = detect(_first_line(path))
                except OSError as exc:
                    raise AuditError(f"{path}: {exc.strerror or exc}") from None
                if found is None:
                    raise AuditError(f"{path}: not a frame log, JSON-RPC JSON Lines or an OTLP JSON export "
                                     "(its first line is none of them); name the format with --format")
                chosen: Format = found
            else:
                chosen = format  # type: ignore[assignment]
            inputs.append(Input(path, chosen, FIDELITY_OF[chosen], recording, order, os.path.getsize(path)))
    return inputs


_CONN_AT: Final = len(_CONN_PREFIX)
_OWNERS_KEPT: Final = 1 << 16
"""Connections whose process is remembered per file (forgotten past it: memory stays bounded)."""


def _owner(entry_format: str, line: bytes | None, number: int, key: str, jobs: int) -> int:
    """The process (of ``jobs``) that audits a line: a frame log's line goes with its
    connection (hashed with the recording's key), a line without one by its number; any other
    format's file goes whole to one process."""
    if entry_format != "framelog":
        return zlib.crc32(key.encode("utf-8", "surrogatepass")) % jobs
    conn = framelog_conn(line) if line else None
    if conn is None:
        return number % jobs
    return zlib.crc32(key.encode("utf-8", "surrogatepass") + b"\0" + conn) % jobs


def _audit(inputs: Sequence[Input], totals: Totals, *, jobs: int = 1, index: int = 0, trusted_server: bool = False,
           progress: Callable[[int], None] | None = None) -> Iterator[Entry]:
    """The entries of every input this process owns, recording by recording, in order.

    One loop per file, with no generator between the line and its audit (a layer per line
    costs about what ``orjson.loads`` of a whole line does). With ``jobs > 1`` a frame log's
    line is owned as :func:`_owner` says, its connection's process hashed once per file."""
    by_recording: dict[int, list[Input]] = {}
    for item in inputs:
        by_recording.setdefault(item.recording, []).append(item)
    report_at = _PROGRESS_EVERY
    crc32 = zlib.crc32
    for recording, members in by_recording.items():
        first = members[0]
        auditor = Auditor(input_format=first.format, fidelity="wire", family=recording,
                          trusted_server=trusted_server, has_time=first.format != "jsonrpc")
        key = Path(members[-1].path).as_posix()
        prefix = key.encode("utf-8", "surrogatepass") + b"\0"
        for item in members:
            auditor.source = item.path
            auditor.file_order = item.order
            if jobs > 1 and item.format != "framelog" and _owner(item.format, None, 0, key, jobs) != index:
                totals.bytes_read += item.size  # another process reads this file whole
                continue
            otlp = OtlpReader(auditor) if item.format == "otlp" else None
            feed = feed_framelog if item.format == "framelog" else feed_jsonrpc
            shared = jobs > 1 and item.format == "framelog"
            owners: dict[bytes, int] = {}
            with _open(item.path) as handle:
                for number, line, size in _lines(handle):
                    totals.bytes_read += size
                    if progress is not None and totals.bytes_read >= report_at:
                        report_at = totals.bytes_read + _PROGRESS_EVERY
                        progress(totals.bytes_read)
                    if shared:
                        conn = None
                        if line is not None and line.startswith(_CONN_PREFIX):  # framelog_conn, inlined
                            end = line.find(b'"', _CONN_AT)
                            if end > 0:
                                conn = line[_CONN_AT:end]
                                if b"\\" in conn:
                                    conn = framelog_conn(line)
                        if conn is None and line:
                            conn = framelog_conn(line)
                        if conn is None:
                            if number % jobs != index:
                                continue
                        else:
                            owner = owners.get(conn)
                            if owner is None:
                                if len(owners) >= _OWNERS_KEPT:
                                    owners.clear()
                                owner = owners[conn] = crc32(prefix + conn) % jobs
                            if owner != index:
                                continue
                    if line is None:
                        yield auditor.unreadable(number, f"the line is longer than {MAX_LINE} bytes")
                    elif not line.strip():
                        auditor.count("blank")
                    elif otlp is not None:
                        yield from otlp.line(number, line)
                    else:
                        entries = feed(auditor, number, line)
                        if entries:
                            yield from entries
            if otlp is not None:
                yield from otlp.end()
        yield from auditor.end()
        totals.add(auditor.tally)
    if progress is not None:
        progress(totals.bytes_read)


def _packed(chunk: list[Entry]) -> tuple[str, Any]:
    """A chunk of entries as one message: MessagePack (encoded and decoded in C, a few µs a row),
    or pickled when a value does not fit it (an error code past 64 bits)."""
    try:
        return ("entries", ENCODE.encode(chunk))
    except (OverflowError, TypeError):
        return ("pickled", chunk)


def _worker(inputs: Sequence[Input], jobs: int, index: int, trusted_server: bool, pipe: Any) -> None:
    totals = Totals()
    chunk: list[Entry] = []
    try:
        for entry in _audit(inputs, totals, jobs=jobs, index=index, trusted_server=trusted_server,
                            progress=lambda n: pipe.send(("progress", n))):
            chunk.append(entry)
            if len(chunk) >= _CHUNK:
                pipe.send(_packed(chunk))
                chunk = []
        if chunk:
            pipe.send(_packed(chunk))
        pipe.send(("totals", totals.tally))
    except Exception as exc:  # reported to the parent, which raises it
        pipe.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        pipe.close()


def _start_method() -> str:
    """``fork`` where it is safe: on Linux, from a process that runs no other thread (a forked
    child inherits no lock another thread held), starting in a few ms with the audit already
    imported and warm; else ``spawn``, a fresh interpreter that imports the audit (~0.3 s)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


def audit(inputs: Sequence[Input], totals: Totals, *, jobs: int = 1, trusted_server: bool = False,
          progress: Callable[[int], None] | None = None) -> Iterator[Entry]:
    """Every entry of the inputs, in a stable order (the same for any ``jobs``); ``totals`` is
    filled in as the lines are read (complete once the iterator is exhausted)."""
    if jobs <= 1:
        yield from _audit(inputs, totals, trusted_server=trusted_server, progress=progress)
        return
    context = multiprocessing.get_context("fork") if _start_method() == "fork" else multiprocessing.get_context("spawn")
    pipes, processes = [], []
    for index in range(jobs):
        parent, child = context.Pipe(duplex=False)
        process = context.Process(target=_worker, args=(list(inputs), jobs, index, trusted_server, child),
                                  daemon=True)
        process.start()
        child.close()
        pipes.append(parent)
        processes.append(process)
    read = [0] * jobs
    queues: list[queue.Queue[tuple[str, Any]]] = [queue.Queue(maxsize=_AHEAD) for _ in range(jobs)]

    def drain(index: int) -> None:
        """Receive a worker's messages as they come, so it never waits for the merge (up to
        _AHEAD chunks ahead: memory stays bounded)."""
        pipe = pipes[index]
        while True:
            try:
                message = pipe.recv()
            except (EOFError, OSError):
                queues[index].put(("ended", None))
                return
            queues[index].put(message)
            if message[0] in ("totals", "error"):
                return

    readers = [threading.Thread(target=drain, args=(i,), daemon=True) for i in range(jobs)]
    for reader in readers:
        reader.start()

    def stream(index: int) -> Iterator[Entry]:
        while True:
            kind, value = queues[index].get()
            if kind == "entries":
                yield from DECODE.decode(value)
            elif kind == "pickled":
                yield from value
            elif kind == "progress":
                read[index] = value
                if progress is not None:
                    progress(sum(read) // jobs)
            elif kind == "totals":
                totals.add(value)
                return
            elif kind == "ended":
                raise AuditError(f"audit process {index} ended without its results")
            else:
                raise AuditError(f"audit process {index} failed: {value}")

    try:
        yield from heapq.merge(*(stream(i) for i in range(jobs)), key=lambda e: e.order)
        totals.bytes_read = sum(item.size for item in inputs)
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()


def audit_files(paths: Iterable[str], *, format: str = "auto", jobs: int = 1,
                trusted_server: bool = False) -> tuple[list[Input], Totals, Iterator[Entry]]:
    """Plan and audit files: (the inputs, the totals filled in as the entries are read, the entries)."""
    inputs = plan(list(paths), format)
    totals = Totals()
    return inputs, totals, audit(inputs, totals, jobs=jobs, trusted_server=trusted_server)
