"""An eventually consistent note store: the write of ``create_note``, read by ``get_note``.

server/tools#stateful-tools (https://modelcontextprotocol.io/specification/2026-07-28/server/tools):
state that spans calls is referenced by an explicit handle the creating tool returns — here the
note id. The store is per server process (all HTTP requests share one; one per stdio process).

A new note is invisible to reads until both its lags have passed: ``lag_reads`` reads of that
note have answered "not found", and ``lag_ms`` milliseconds have elapsed since the write. So a
client that wants to observe the write's completion has to poll.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(slots=True)
class _Note:
    text: str
    created: float
    lag_reads: int
    lag_s: float
    reads: int = 0


class NoteStore:
    """Notes of one server process, with a per-note visibility lag."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._notes: dict[str, _Note] = {}
        self._ids = itertools.count(1)

    def create(self, text: str, *, lag_reads: int, lag_ms: int) -> str:
        """Store a note; returns its id."""
        note_id = f"note-{next(self._ids)}"
        self._notes[note_id] = _Note(text, self._clock(), lag_reads, lag_ms / 1000)
        return note_id

    def read(self, note_id: str) -> str | None:
        """The note's text once it is visible, else ``None`` (unknown notes are never visible)."""
        note = self._notes.get(note_id)
        if note is None:
            return None
        visible = note.reads >= note.lag_reads and self._clock() - note.created >= note.lag_s
        if not visible:
            note.reads += 1
            return None
        return note.text
