"""Server-sent events, read from bytes by the WHATWG rules, keeping each event's data bytes exact.

https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation:

- lines end in CRLF, LF or CR (a CR at the end of a chunk ends its line at once: an event it
  dispatches is not held back until the next byte, which may never come on a stream held open;
  a LF first in the next chunk is that CR's pair, skipped); one byte order mark at the very start
  of the stream is dropped;
- an empty line dispatches the event; a line starting with ``:`` is a comment; ``field:value``
  (one space after the colon dropped) or a bare ``field`` (empty value);
- ``data`` appends its value and a LF to the data buffer; ``event`` sets the type; ``id`` sets
  the last event id unless it holds NUL; ``retry`` sets the reconnection time when it is ASCII
  digits only; any other field is ignored;
- on dispatch the last event id is kept, and **an event whose data buffer is empty is not
  dispatched** — the 2025-11-25 Streamable HTTP transport's priming event (an id and an empty
  ``data``) is not a message; one trailing LF is removed from the data;
- an event not ended by an empty line when the stream ends is discarded.

One deliberate difference: WHATWG decodes the stream as UTF-8 with replacement characters
before parsing. This parser works on bytes and keeps each data field's bytes as they came, so
a message holding invalid UTF-8 reaches ``classify`` as it was sent (``json.encoding``), never
silently repaired. Field names and ``id``/``event`` values are decoded with replacement (they
only route). Feeding is linear in the input: each byte is scanned for a line end once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

_BOM: Final = b"\xef\xbb\xbf"
_LONG_LINE: Final = 1 << 16
"""A ``data`` line longer than this is copied out of the buffer once (:meth:`SSEParser._long_data`)."""


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event."""

    data: bytes
    """The data lines joined by LF, exactly as their bytes came (the message, for MCP)."""
    event: str = "message"
    id: str | None = None
    """The last event id when the event was dispatched (WHATWG keeps it across events)."""
    retry: int | None = None
    """The reconnection time in ms, if the stream has set one so far."""


class SSEParser:
    """Incremental event-stream parsing: ``feed`` bytes, get the events they complete."""

    __slots__ = ("_buffer", "_cr", "_data", "_event", "_scan", "_started", "dropped", "last_event_id", "retry")

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scan = 0  # bytes of _buffer already searched for a line end
        self._data: list[bytes] | None = None
        self._event = ""
        self._started = False
        self._cr = False
        """The last chunk ended in a CR (its line ended): a LF first in the next one is its pair."""
        self.last_event_id: str | None = None
        self.retry: int | None = None
        self.dropped = False
        """After ``close``: an unfinished event was dropped at the end of the stream."""

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[SSEEvent]:
        """Feed bytes; return every event they complete, in order."""
        buffer = self._buffer
        buffer += chunk
        if self._cr and buffer:
            self._cr = False
            if buffer[0] == 0x0A:  # (the CRLF split between two chunks: its line already ended)
                del buffer[:1]
        if not self._started:
            if len(buffer) < len(_BOM) and _BOM.startswith(bytes(buffer)):
                return []
            self._started = True
            if buffer.startswith(_BOM):
                del buffer[:len(_BOM)]
        events: list[SSEEvent] = []
        start = 0
        scan = self._scan
        end = len(buffer)
        while True:
            lf = buffer.find(b"\n", scan)
            cr = buffer.find(b"\r", scan, lf if lf >= 0 else end)
            cut = cr if cr >= 0 else lf
            if cut < 0:
                scan = end
                break
            step = 2 if cut == cr and buffer[cut + 1:cut + 2] == b"\n" else 1
            if cut == cr and cut + 1 == end:
                self._cr = True  # (the first half of a CRLF, maybe: a LF next is skipped)
            if cut - start > _LONG_LINE and buffer.startswith(b"data:", start):
                self._long_data(buffer, start, cut)
            else:
                self._line(bytes(buffer[start:cut]), events)
            start = scan = cut + step
        if start:
            del buffer[:start]
            scan -= start
        self._scan = scan
        return events

    def _long_data(self, buffer: bytearray, start: int, cut: int) -> None:
        """A long ``data`` line (``buffer[start:cut]``): its value copied out of the buffer once
        (what :meth:`_line` does with a line copied out first, then split: three copies more of a
        message that may be tens of megabytes)."""
        begin = start + 5
        if begin < cut and buffer[begin] == 0x20:
            begin += 1
        with memoryview(buffer) as view:  # (released before the buffer is resized)
            value = view[begin:cut].tobytes()
        if self._data is None:
            self._data = [value]
        else:
            self._data.append(value)

    def _line(self, line: bytes, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[:1] == b":":
            return
        name, colon, value = line.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            if self._data is None:
                self._data = [value]
            else:
                self._data.append(value)
        elif name == b"event":
            self._event = value.decode("utf-8", "replace")
        elif name == b"id":
            if value.find(b"\x00") < 0:
                self.last_event_id = value.decode("utf-8", "replace")
        elif name == b"retry" and value and value.isdigit():
            self.retry = int(value)

    def _dispatch(self, events: list[SSEEvent]) -> None:
        data, event = self._data, self._event
        self._data, self._event = None, ""
        if data is None:
            return  # no data field at all
        joined = b"\n".join(data)
        if not joined:
            return  # an empty data buffer is not dispatched (a priming event)
        events.append(SSEEvent(joined, event or "message", self.last_event_id, self.retry))

    @property
    def idle(self) -> bool:
        """Nothing is held: every byte fed so far ended its line, and no event waits for its
        empty line (a stream of comments, ``retry`` or ``id`` lines holds nothing). O(1)."""
        return not self._buffer and self._data is None and not self._event

    @property
    def pending(self) -> bool:
        """Bytes or fields of an unfinished event remain (discarded if the stream ends now)."""
        return bool(self._buffer.strip(b"\r\n") or self._data is not None or self._event)

    def close(self) -> list[SSEEvent]:
        """The stream ended: any unfinished event is dropped (``dropped`` says whether one was).
        Returns the events the end completes: none (every line end already ended its line, a CR
        at the end of a chunk too)."""
        self.dropped = self.pending
        self._buffer.clear()
        self._scan = 0
        self._cr = False
        self._data, self._event = None, ""
        return []


def sse_events(body: bytes) -> list[SSEEvent]:
    """Every complete event of a whole text/event-stream body."""
    parser = SSEParser()
    return parser.feed(body) + parser.close()
