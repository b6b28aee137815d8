"""The inputs cut into parts, one process each (``jobs > 1`` where the connections are not dealt):
a plain frame log at line boundaries into parts of at most :data:`_STRIPE` bytes, a gzip file and
a JSON-RPC file whole, an OTLP recording's exports together (:func:`parts`, :class:`Part`), and the
number of each part's first line, counted while the processes start (:func:`_first_lines`).
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from ._files import Input

_STRIPE: Final = 16 * 1024 * 1024
"""The largest part of a frame log one process audits at a time (with ``_AHEAD_PARTS``, it
bounds what the parent holds of the processes' results)."""


_COUNT_BLOCK: Final = 8 * 1024 * 1024
_SCAN_BLOCK: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class Part:
    """A run of whole lines of one input: bytes ``start`` to ``end`` (None: to the file's end),
    its first line numbered ``first_line``."""

    input: int
    start: int
    end: int | None
    first_line: int
    first: Input
    """The first file of its recording (which configures the recording's auditor)."""
    last_of_recording: bool
    through: int = -1
    """An OTLP recording is one part: its last input (-1: ``input`` alone)."""


def _gzipped(path: str) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _cut_points(path: str, targets: Sequence[int], size: int) -> list[int]:
    """The offset of the first line starting after the first line end at or past each target
    offset, without repeats, strictly inside the file."""
    cuts: list[int] = []
    with open(path, "rb") as handle:
        for target in targets:
            if cuts and target < cuts[-1]:
                continue
            handle.seek(target)
            at = target
            while True:
                block = handle.read(_SCAN_BLOCK)
                if not block:
                    return cuts
                found = block.find(b"\n")
                if found >= 0:
                    break
                at += len(block)
            cut = at + found + 1
            if cut >= size:
                return cuts
            if not cuts or cut > cuts[-1]:
                cuts.append(cut)
    return cuts


def _cut(inputs: Sequence[Input], jobs: int, stripe: int | None = None) -> list[Part]:
    """The parts (:func:`parts`), the first line of each part inside a file not counted yet (0)."""
    stripe = stripe or _STRIPE
    total = sum(item.size for item in inputs)
    pieces = max(jobs, -(-total // stripe))
    pieces = -(-pieces // jobs) * jobs
    target = max(1, total // pieces)
    firsts: dict[int, Input] = {}
    for item in inputs:
        firsts.setdefault(item.recording, item)
    out: list[Part] = []
    for index, item in enumerate(inputs):
        last = index + 1 == len(inputs) or inputs[index + 1].recording != item.recording
        if item.format == "otlp":  # the recording's exports in one part (their spans are merged across files)
            if firsts[item.recording] is item:
                through = index
                while through + 1 < len(inputs) and inputs[through + 1].recording == item.recording:
                    through += 1
                out.append(Part(index, 0, None, 1, item, True, through))
            continue
        n = max(1, round(item.size / target)) if item.format == "framelog" else 1
        cuts = [] if n == 1 or _gzipped(item.path) else _cut_points(
            item.path, [item.size * k // n for k in range(1, n)], item.size)
        bounds = [0, *cuts]
        for k, begin in enumerate(bounds):
            end = bounds[k + 1] if k + 1 < len(bounds) else None
            out.append(Part(index, begin, end, 1 if begin == 0 else 0, firsts[item.recording], last and end is None))
    return out


def _first_lines(inputs: Sequence[Input], cut: Sequence[Part]) -> Iterator[tuple[int, int]]:
    """(part, the number of its first line) in order: the line ends before each part counted,
    one read of each file cut in several parts (a part is known as soon as those before it are)."""
    handle: io.FileIO | None = None
    counted = at = 0
    block = bytearray(_COUNT_BLOCK)  # read into and counted in place, one block for the whole run
    view = memoryview(block)
    try:
        for number, part in enumerate(cut):
            if part.start == 0:
                if handle is not None:
                    handle.close()
                    handle = None
                yield number, 1
                continue
            if handle is None:
                handle = open(inputs[part.input].path, "rb", buffering=0)  # noqa: SIM115 - closed below
                counted = at = 0
            while at < part.start:
                got = handle.readinto(view[:min(_COUNT_BLOCK, part.start - at)])
                if not got:
                    break
                counted += block.count(b"\n", 0, got)
                at += got
            yield number, counted + 1
    finally:
        view.release()
        if handle is not None:
            handle.close()


def parts(inputs: Sequence[Input], jobs: int, stripe: int | None = None) -> list[Part]:
    """The inputs cut into parts for ``jobs`` processes: a plain frame log at line boundaries
    into parts of at most ``stripe`` bytes (at least one per process, a multiple of ``jobs``
    in all); a gzip file and a JSON-RPC file whole; the OTLP exports together, one part (their
    spans are merged across files)."""
    cut = _cut(inputs, jobs, stripe)
    return [dataclasses.replace(cut[number], first_line=first) for number, first in _first_lines(inputs, cut)]
