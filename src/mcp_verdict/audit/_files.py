"""The audit's inputs: which files, grouped into recordings (a log and the files it was rotated
into, read oldest first as one stream), each detected (:func:`plan`: a frame log, JSON-RPC lines
or an OTLP export) and read a line at a time within a length bound (:data:`MAX_LINE`: a longer
line is an unreadable line, skipped to its end), through gzip where a file is gzipped.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Final, cast

from ..verdict._classify import OptionError
from ._formats import FIDELITY_OF, Format, detect

MAX_LINE: Final = 256 * 1024 * 1024
"""The longest line read (a frame log line holds a frame of up to the classifier's 64 MiB,
escaped); a longer one is an unreadable line."""
_CHUNK: Final = 512
_BATCH: Final = 64 * 1024
"""The bytes of lines read in one go (:func:`_batches`)."""

_ROTATED: Final = re.compile(r"^(?P<base>.+)\.(?P<n>[0-9]+)(?:\.gz)?$")
"""A rotated file's name: ``NAME.N`` as the proxy and the tap rotate, or ``NAME.N.gz`` as
logrotate's ``compress`` (or ``gzip NAME.N``) leaves it."""


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
    note: str | None = None
    """Why nothing could be detected in it: ``empty: ...`` or ``unreadable: ...`` (:func:`plan`)."""

    @property
    def name(self) -> str:
        """The path as text any UTF-8 output holds: what the rows' ``source``, the reports and a
        JSON-RPC file's connection say (:func:`shown_path`)."""
        return shown_path(self.path)


def shown_path(path: str) -> str:
    """``path`` as valid UTF-8 text: a byte the file system's encoding could not decode (held
    as a lone surrogate by Python, PEP 383) is shown as its escape (``\\xff``), as is any other
    lone surrogate; the path as it is otherwise. (The lone surrogate itself would stop a UTF-8
    stream: the --json lines, the page, the Parquet strings.)"""
    if path.isascii():
        return path
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


def _open(path: str) -> IO[bytes]:
    """``path`` to read lines from: through gzip when it starts with gzip's magic bytes; else
    buffered by :data:`_BATCH` bytes (a line is read from the buffer, one read per batch: with
    the default 8 KiB buffer, reading a 100 MB log took ~0.01 s more CPU)."""
    handle = open(path, "rb", buffering=_BATCH)  # noqa: SIM115 - closed by the caller
    if handle.read(2) == b"\x1f\x8b":
        handle.close()
        return cast(IO[bytes], gzip.open(path, "rb"))
    handle.seek(0)
    return handle


def _batches(handle: IO[bytes], limit: int | None = None, *,
             at_start: bool = True) -> Iterator[tuple[list[bytes | str], int]]:
    """The lines of ``handle`` in batches of about :data:`_BATCH` bytes: (the lines, the bytes
    they took). Each item is one line, in order: the line as read, with its line end, or why it
    cannot be read (a ``str``, alone in its batch): longer than :data:`MAX_LINE` (skipped to its
    end), or the file cannot be read past it (a gzip stream cut off or corrupt, a read error:
    the last item, taking no bytes). With ``limit``, the lines that start within that many bytes.
    ``at_start``: ``handle`` is at the start of its file, whose UTF-8 byte order mark, if any, is
    not part of the first line (RFC 8259 section 8.1: a parser may ignore it; an editor or a
    Windows tool may have written it); the bytes taken still count it.

    A batch is what the audit loops over (a generator step per line costs about half of what
    ``frames.decode`` of the line does); memory stays bounded by the batch and one line."""
    left = limit
    bound = MAX_LINE + 1
    readline = handle.readline
    first = at_start
    while True:
        batch: list[bytes | str] = []
        size = 0
        while size < _BATCH:
            if left is not None and left <= size:
                if batch:
                    yield batch, size
                return
            try:
                line = readline(bound)
            except _READ_ERRORS as exc:
                if batch:
                    yield batch, size
                yield [_unreadable_rest(exc)], 0
                return
            if not line:
                if batch:
                    yield batch, size
                return
            if first:
                first = False
                if line.startswith(_BOM):
                    batch.append(line[len(_BOM):] or b"\n")  # (a BOM alone: a blank line)
                    size += len(line)
                    continue
            if len(line) == bound and line[-1] != 0x0A:  # longer than MAX_LINE
                if batch:
                    yield batch, size
                    if left is not None:
                        left -= size
                    batch, size = [], 0
                long = len(line)
                while True:  # skip the rest of the line, bounded reads
                    try:
                        rest = readline(MAX_LINE)
                    except _READ_ERRORS as exc:
                        yield [f"the line is longer than {MAX_LINE} bytes; {_unreadable_rest(exc)}"], long
                        return
                    long += len(rest)
                    if not rest or rest[-1] == 0x0A:
                        break
                yield [f"the line is longer than {MAX_LINE} bytes"], long
                if left is not None:
                    left -= long
                continue
            batch.append(line)
            size += len(line)
        yield batch, size
        if left is not None:
            left -= size


_BOM: Final = b"\xef\xbb\xbf"
_WIDE_BOMS: Final = ((b"\xff\xfe\x00\x00", "UTF-32LE"), (b"\x00\x00\xfe\xff", "UTF-32BE"),
                     (b"\xff\xfe", "UTF-16LE"), (b"\xfe\xff", "UTF-16BE"))
"""The byte order marks of UTF-32 and UTF-16 (UTF-32LE's first, as it begins as UTF-16LE's):
Windows PowerShell 5's ``>`` writes UTF-16LE with its mark."""


def _lines(handle: IO[bytes], first: int = 1, limit: int | None = None, *,
           at_start: bool = True) -> Iterator[tuple[int, bytes | str, int]]:
    """(number, the line without its end, bytes consumed) for every line, numbered from
    ``first``; with ``limit``, the lines that start within that many bytes; ``at_start``, a byte
    order mark at the start of the file is no part of its first line. A line that cannot
    be read is given as why (a ``str``): longer than :data:`MAX_LINE` (skipped to its end), or
    the file cannot be read past it (a gzip stream cut off or corrupt, a read error: the last
    item, its size unknown) (:func:`_batches`, line by line)."""
    number = first - 1
    for batch, size in _batches(handle, limit, at_start=at_start):
        for line in batch:
            number += 1
            if isinstance(line, str):
                yield number, line, size  # (alone in its batch)
            else:
                yield number, line.rstrip(b"\r\n"), len(line)


_READ_ERRORS: Final = (EOFError, OSError, zlib.error)
"""What reading a file can raise past its start: gzip raises EOFError for a stream cut off,
BadGzipFile (an OSError) for a bad header or checksum, zlib.error for corrupt data."""


def _unreadable_rest(exc: BaseException) -> str:
    """Why the rest of a file cannot be read, from what reading it raised."""
    if isinstance(exc, EOFError):
        why = "the gzip stream is cut off before its end"
    elif isinstance(exc, gzip.BadGzipFile | zlib.error):
        why = f"not a valid gzip stream ({exc})"
    else:
        why = f"a read error ({exc.strerror if isinstance(exc, OSError) and exc.strerror else exc})"
    return f"{why}: nothing from here to the end of the file can be read"


def _first_line(path: str) -> bytes | str | None:
    """The first line that holds anything; None when none does (an empty file, blank lines);
    why, when the file cannot be read that far (a ``str``)."""
    with _open(path) as handle:
        for _, line, _ in _lines(handle):
            if isinstance(line, str) or line.strip():
                return line
    return None


def _same_file_key(path: str) -> str:
    """A path as one name whatever its spelling (``./frames.jsonl``, ``frames.jsonl``, its absolute
    path, through a link to its directory): the files of a rotated log are told apart by name."""
    head, tail = os.path.split(path)
    return os.path.join(os.path.realpath(head or os.curdir), tail)


def plan(paths: Sequence[str], format: str = "auto") -> list[Input]:
    """The inputs in reading order, with their format (detected unless given) and recording.

    A file with no line to detect a format from — empty, blank lines only, or unreadable from
    its start (a corrupt gzip file) — is read as its recording's other files are (a frame log
    when it is alone), with a ``note`` saying so; the audit then counts its blank lines or
    reports it unreadable, and the other inputs are audited. A file whose first line is of no
    known format stops the plan: it was named by mistake, or needs ``format``. A file named
    twice (overlapping globs, another spelling, a link to it) is one input, by its first name."""
    if format != "auto" and format not in FIDELITY_OF:
        expected = f"auto or one of {', '.join(FIDELITY_OF)}"
        raise OptionError("format", expected, format)
    families: dict[str, list[tuple[int, str]]] = {}
    names = {_same_file_key(p) for p in paths}
    seen: set[tuple[int, int]] = set()
    for path in paths:
        if not os.path.isfile(path):
            raise AuditError(f"{shown_path(path)}: " + ("a directory (name the files in it)" if os.path.isdir(path) else
                                            "not a regular file (the audit reads files it can seek in)"
                                            if os.path.exists(path) else "no such file"))
        identity = os.stat(path)
        if (identity.st_dev, identity.st_ino) in seen:
            continue  # a file named twice (overlapping globs, another spelling, a link) is read once
        seen.add((identity.st_dev, identity.st_ino))
        key = _same_file_key(path)
        match = _ROTATED.match(key)
        base, n = (match["base"], int(match["n"])) if match and (
            match["base"] in names or any(p != key and (other := _ROTATED.match(p)) and other["base"] == match["base"]
                                          for p in names)) else (key, 0)
        families.setdefault(base, []).append((n, path))
    inputs = []
    for recording, members in enumerate(families.values()):
        found: dict[str, Format] = {}
        notes: dict[str, str] = {}
        for _, path in members:
            if format != "auto":
                found[path] = format  # type: ignore[assignment]
                continue
            try:
                first = _first_line(path)
            except OSError as exc:
                raise AuditError(f"{shown_path(path)}: {exc.strerror or exc}") from None
            if first is None:
                notes[path] = "empty: nothing to audit"
            elif isinstance(first, str):
                notes[path] = f"unreadable: {first}"
            else:
                detected = detect(first)
                wide = next((name for mark, name in _WIDE_BOMS if first.startswith(mark)), None)
                if detected is None and wide is not None:
                    raise AuditError(f"{shown_path(path)}: {wide} text (it begins with that byte order mark); JSON "
                                     f"Lines are UTF-8: convert it (iconv -f {wide[:6]} -t UTF-8)")
                if detected is None:
                    raise AuditError(f"{shown_path(path)}: not a frame log, JSON-RPC JSON Lines or an OTLP JSON export "
                                     "(its first line is none of them); name the format with --format")
                found[path] = detected
        family_format: Format = next(iter(found.values()), "framelog")
        for order, (_, path) in enumerate(sorted(members, key=lambda m: -m[0])):
            chosen = found.get(path, family_format)
            inputs.append(Input(path, chosen, FIDELITY_OF[chosen], recording, order, os.path.getsize(path),
                                notes.get(path)))
    return _otlp_together(inputs)


def _otlp_together(inputs: list[Input]) -> list[Input]:
    """The OTLP exports as one recording, read in turn where the first of them is: a call traced
    on both sides whose client span and server span are in two exports (each process with its
    own file exporter) is one call (:mod:`._otlp` merges them by trace, request id and tool)."""
    otlp = [item for item in inputs if item.format == "otlp"]
    if len(otlp) < 2:
        return inputs
    out: list[Input] = []
    recordings: dict[int, int] = {}
    for item in inputs:
        if item.format == "otlp" and item is not otlp[0]:
            continue
        for member in otlp if item is otlp[0] else (item,):
            recording = recordings.setdefault(-1 if member.format == "otlp" else member.recording, len(recordings))
            order = otlp.index(member) if member.format == "otlp" else member.order
            out.append(dataclasses.replace(member, recording=recording, order=order))
    return out
