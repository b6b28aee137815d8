"""The id scan's block size (``frames._structure._STEP``) made small for a test: a short frame then
has many block ends, where the scan's answer must stay the whole frame's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mcp_verdict.frames import _structure


@contextmanager
def scan_blocks(size: int) -> Iterator[None]:
    """The scan's blocks made ``size`` bytes (from 64 KiB) while the block runs."""
    was = _structure._STEP
    setattr(_structure, "_STEP", size)  # noqa: B010 (a Final name)
    try:
        yield
    finally:
        setattr(_structure, "_STEP", was)  # noqa: B010
