"""The connections of frame logs dealt to processes (``jobs > 1``): the first pass's estimate of
each connection's bytes (:func:`_scan_conns`, :data:`_FIRST_PASS`), whether dealing them costs less
than the byte cuts and to which process each goes (:func:`_dealing`), and one process's share of
the lines (:class:`_Share`: which lines are its connections', the others' left out at C speed).
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
import zlib
from collections.abc import Callable, Sequence
from typing import IO, Any, Final, cast

from ..frames._log import LINE_START
from ._auditor import MAX_CONNS
from ._files import _READ_ERRORS, Input, _open
from ._formats import framelog_conn
from ._parts import _COUNT_BLOCK, _cut, _gzipped

_FIRST_PASS: Final = re.compile(b"\n" + re.escape(LINE_START) + rb'([\x20\x21\x23-\x5b\x5d-\x7e]*)"')
"""The ``conn`` of a writer's line (printable ASCII, no escape) after the line end before it, for
the first pass's estimate of each connection's bytes (:func:`_dealing`; led by a literal, the
search runs ~8x faster than from ``^`` in MULTILINE mode: 0.02 s against 0.15-0.18 s per 30 MB)."""
_SAMPLE: Final = 256 * 1024
_SMALL_SAMPLE: Final = 64 * 1024
_SAMPLES: Final = 32
"""The first pass of a dealing reads a plain frame log over 2 MiB in 32 windows evenly spread,
each a 128th of the log (a quarter in all) from 64 KiB to 256 KiB (whole, it cost ~7.5% of one
process's audit: ~120 M instructions per 8 MB)."""
_SKIP_COST: Final = 0.2
"""What a process of a dealing spends on a line it skips (reads, and reads its ``conn``), as a
share of a line's audit: callgrind, a host's log of three connections (8 MB), the lines of one
and of the other two audited apart in one process: 0.47 and 0.77 of the whole audit's
instructions, 1.24x it together (each line skipped once: ~0.24 of a line's audit; ``mine``
alone ~2 µs a line of ~570 bytes, against ~22 µs for its audit). Since a batch's lines of the
other processes are left out in C and its own lines are not read for their ``conn`` again
(:meth:`_Share.lines`), the same measure on a 2 MB log gives 0.39 and 0.73, 1.11x; the rule is
left at 0.2 (a log whose lines are not all as the writer writes them is read line by line)."""
_CARRIED_COST: Final = 0.7
"""What a byte the cuts audit again in the parent costs the run, as a share of a byte audited
in a process (the parent's work overlaps the processes' in part: three connections open
throughout, two processes, half the lines audited again, gave 1.04-1.23x)."""


def _unmarked(position: tuple[Any, ...], read: int) -> None:
    """Where the reading is, told to no one (a :class:`_Share` before its process sets ``mark``)."""


_PLAIN_CONN: Final = re.compile(rb"[\x20\x21\x23-\x5b\x5d-\x7e]*")
"""A ``conn`` the writer writes as it is (printable ASCII, no quote nor backslash)."""
_SKIP_AT_MOST: Final = 32
"""The most connections of other processes whose lines :meth:`_Share.lines` skips (each line
is compared with the start of each one's lines)."""


class _Share:
    """One process's share of a dealing: the connections ``owners`` deals to ``index``, the
    others' by :func:`zlib.crc32` of their ``conn`` (one the first pass did not read); the lines
    with no ``conn`` (unreadable, blank) are the first process's. ``mark`` is told, after each
    batch, where the reading is: (recording, file order, line, 1) and the bytes read."""

    __slots__ = ("first", "index", "jobs", "mark", "others", "own", "owners")

    def __init__(self, index: int, jobs: int, owners: dict[bytes, int]) -> None:
        self.index = index
        self.jobs = jobs
        self.first = index == 0
        self.owners = owners
        self.mark: Callable[[tuple[Any, ...], int], None] = _unmarked
        starts: tuple[list[bytes], list[bytes]] = ([], [])
        for conn, owner in owners.items():
            if _PLAIN_CONN.fullmatch(conn) is not None:
                starts[owner == index].append(LINE_START + conn + b'"')
        self.others: Callable[[bytes], bool] | None = None
        """Whether a line begins as the writer begins a line of another process's connection."""
        self.own: Callable[[bytes], bool] | None = None
        """Whether a line begins as the writer begins a line of this process's connection."""
        if starts[0] and len(starts[0]) <= _SKIP_AT_MOST:
            self.others = operator.methodcaller("startswith", tuple(sorted(starts[0])))
            if starts[1] and len(starts[1]) <= _SKIP_AT_MOST:
                self.own = operator.methodcaller("startswith", tuple(sorted(starts[1])))

    def lines(self, batch: list[bytes | str]) -> tuple[list[bytes | str | None], bool]:
        """``batch`` (lines, each with its end but the file's last) less lines that :meth:`mine`
        says are not this process's, found at C speed (None in their place), and whether every
        line left in is this process's (else :meth:`mine` is asked of each).

        A line is left out where it begins as the writer writes a line (:data:`LINE_START`) of a
        connection of another process (:attr:`others`) and nothing follows that may name another
        (:func:`framelog_conn`, read in place): the lines left out between two left in hold one
        ``"conn"`` each and no ``\\u006`` (else the whole batch is left to :meth:`mine`). Every
        line left in is this process's where each begins as the writer begins a line of its
        connections (:attr:`own`) and the batch holds one ``"conn"`` a line and no ``\\u006``."""
        others = self.others
        if others is None or len(batch) < 2:  # (a str is alone in its batch)
            return cast(list[bytes | str | None], batch), False
        lines = cast(list[bytes], batch)
        n = len(lines)
        skipped = list(map(others, lines))
        picked = list(itertools.compress(range(n), map(operator.not_, skipped)))
        if len(picked) == n:
            return cast(list[bytes | str | None], batch), False
        kept: list[bytes | str | None] = [None] * n
        for k in picked:
            kept[k] = lines[k]
        own = self.own
        if own is not None and all(map(own, itertools.compress(lines, map(operator.not_, skipped)))):
            data = b"".join(lines)
            if data.count(b'"conn"') == n and data.find(b"\\u006") < 0:  # (each line holds one at its start)
                return kept, True
        after = 0  # the first line of a run of lines left out
        picked.append(n)
        for k in picked:
            if k > after:
                run = b"".join(lines[after:k]) if k - after > 1 else lines[after]
                if run.count(b'"conn"') != k - after or run.find(b"\\u006") >= 0:
                    return cast(list[bytes | str | None], batch), False
            after = k + 1
        return kept, False

    def mine(self, line: bytes) -> bool:
        """Whether this process audits ``line`` (its connection's, :func:`framelog_conn`)."""
        key = framelog_conn(line)
        if key is None:
            return self.first  # an unreadable line
        owner = self.owners.get(key)
        if owner is None:
            owner = zlib.crc32(key) % self.jobs
        return owner == self.index


def _scan_conns(handle: IO[bytes], length: int | None, base: int, sizes: dict[bytes, float],
                spans: dict[bytes, list[int]], *, whole: bool) -> int:
    """The writer's lines read from ``handle`` (``length`` bytes, or to its end), each one's bytes
    added to its connection's ``sizes`` (a line of no such ``conn`` counts with the line before;
    the first, partial line of a window is not counted) and each connection's first and last
    line's offset (``base``: the handle's place in the whole) in ``spans``; the bytes read.
    ``whole``: the handle is at its file's start (else its first line is cut: it starts no match)."""
    tail = b"\n" if whole else b"x"
    origin = base - 1  # the offset of data[0] in the whole
    last: bytes | None = None
    last_at = base
    read = 0
    while length is None or read < length:
        try:
            block = handle.read(_COUNT_BLOCK if length is None else min(_COUNT_BLOCK, length - read))
        except _READ_ERRORS:  # (a damaged gzip file: the processes report it)
            block = b""
        read += len(block)
        data = tail + block
        end = data.rfind(b"\n") if block else len(data)  # (the lines before the last line end are whole)
        for match in _FIRST_PASS.finditer(data, 0, end):
            start = origin + match.start() + 1
            if last is not None:
                sizes[last] += start - last_at
            last, last_at = match[1], start
            span = spans.get(last)
            if span is None:
                spans[last] = [start, start]
                sizes.setdefault(last, 0.0)
                if len(spans) > MAX_CONNS:
                    return read
            else:
                span[1] = start
                if last not in sizes:
                    sizes[last] = 0.0
        origin += end
        tail = data[end:]
        if not block:
            break
    if last is not None:
        sizes[last] += origin + len(tail) - last_at
    return read


def _dealing(inputs: Sequence[Input], jobs: int) -> dict[bytes, int] | None:
    """The connections of frame logs dealt to ``jobs`` processes, the largest first to the
    process with the fewest bytes; None where the byte cuts serve better: an input is no frame
    log, more than ``MAX_CONNS`` connections (a process holding fewer would end none where one
    process ends the least recently active), or the busiest process's bytes (plus
    ``_SKIP_COST`` of the lines it skips) are more than the cuts' estimate: the busiest
    process's parts (a gzip file is one part) plus ``_CARRIED_COST`` of the bytes the parent
    audits again (each connection open at a cut, from there to its last line, its bytes taken
    as spread evenly). One pass over the inputs reads the ``conn`` of the writer's lines
    (a line of no such ``conn`` counts with the line before)."""
    if not inputs or any(item.format != "framelog" for item in inputs):
        return None
    sizes: dict[bytes, float] = {}
    spans: dict[bytes, list[int]] = {}
    starts: list[int] = []
    at = 0
    for item in inputs:
        starts.append(at)
        gzipped = _gzipped(item.path)
        window = min(_SAMPLE, max(_SMALL_SAMPLE, item.size // (4 * _SAMPLES)))
        if gzipped or item.size <= _SAMPLES * window:
            windows: list[tuple[int, int | None]] = [(0, None)]
        else:
            step = (item.size - window) // (_SAMPLES - 1)
            windows = [(k * step, window) for k in range(_SAMPLES)]
        read = 0
        seen: dict[bytes, float] = {}
        with _open(item.path) as handle:
            for offset, length in windows:
                if offset:
                    handle.seek(offset)
                read += _scan_conns(handle, length, at + offset, seen, spans, whole=not offset)
        if len(spans) > MAX_CONNS:
            return None
        scale = 1.0 if windows[0][1] is None else item.size / read
        for conn, size in seen.items():
            sizes[conn] = sizes.get(conn, 0.0) + size * scale
        at += read if windows[0][1] is None else item.size
    starts.append(at)
    total = sum(sizes.values())
    if not total:
        return None
    loads = [0.0] * jobs
    owners: dict[bytes, int] = {}
    for conn, size in sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])):
        index = loads.index(min(loads))
        owners[conn] = index
        loads[index] += size
    dealt = max(load + (total - load) * _SKIP_COST for load in loads)
    busy = [0] * jobs  # the cuts: each process's parts (dealt in turn, as _processes does)
    cuts: list[int] = []
    for number, part in enumerate(_cut(inputs, jobs)):
        begin = starts[part.input] + part.start
        busy[number % jobs] += (starts[part.input + 1] if part.end is None else starts[part.input] + part.end) - begin
        if part.start:
            cuts.append(begin)
    carried = 0.0
    for conn, (first, last_seen) in spans.items():
        for k in range(bisect.bisect_right(cuts, first), bisect.bisect_left(cuts, last_seen)):
            carried += sizes[conn] * (last_seen - cuts[k]) / (last_seen - first)
    return owners if dealt < max(busy) + carried * _CARRIED_COST else None
