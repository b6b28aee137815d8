"""The stdio framing of a client's side (MCP basic/transports#stdio): newline-delimited
messages, read without I/O, with a bound on a line.

"Messages are delimited by newlines, and MUST NOT contain embedded newlines." A client reading a
server's stdout must not hold an unbounded line: when an unfinished line grows past the limit,
its first ``limit + 1`` bytes are handed out at once — so that the call waiting for it fails now
(``classify`` says ``json.too_large`` of them) instead of at its timeout — and the rest of that
line is skipped up to its newline; at the end of the stream, a last line without its newline is
still a line (:meth:`LineReader.close`). Blank lines are no messages: lines of JSON's whitespace only
(RFC 8259 s2: space, tab, CR, LF; a line of a form feed or a vertical tab is noise). (The proxy frames its two sides
itself: it relays, so it reports an oversized line with its size once the line has ended.)

A line that does not start with ``{`` (blanks aside) cannot be a JSON-RPC message: it is noise
(a debug print, a log line the server MUST NOT write to stdout), never a request's answer
(:func:`may_be_message`). A line that starts with ``{`` and does not parse is a broken message.
"""

from __future__ import annotations

import re
from typing import NamedTuple


def may_be_message(line: bytes) -> bool:
    """A stdio line that may be a JSON-RPC message: it starts with ``{``, blanks aside."""
    if line[:1] == b"{":
        return True
    return line.lstrip(b" \t\r")[:1] == b"{"


_BLANK = b" \t\r\n"
"""JSON's whitespace (RFC 8259 s2): ``bytes.strip`` alone also strips VT and FF (:func:`_blank`)."""


class Line(NamedTuple):
    """One line of the stream: ``data`` without its LF (a CR before it kept: the bytes as sent); ``cut`` when it is
    the first ``limit + 1`` bytes of a longer line whose rest is skipped."""

    data: bytes
    cut: bool = False


class LineReader:
    """Bytes in (``feed``), the stream's non-blank lines out, none held past ``limit`` bytes."""

    __slots__ = ("_buffer", "_scanned", "_skipping", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._scanned = 0  # the buffer's first bytes, known to hold no LF: each byte searched once
        self._skipping = False  # the rest of a cut line, up to its LF, is being dropped

    def feed(self, chunk: bytes) -> list[Line]:
        """The lines this chunk completes (and the cut start of an overlong one), in order."""
        buffer = self._buffer
        buffer += chunk
        out: list[Line] = []
        while True:
            cut = buffer.find(b"\n", self._scanned)
            if cut < 0:
                self._scanned = len(buffer)
                if self._skipping:
                    buffer.clear()
                    self._scanned = 0
                elif len(buffer) > self.limit:
                    out.append(Line(bytes(buffer[: self.limit + 1]), True))
                    self._skipping = True
                    buffer.clear()
                    self._scanned = 0
                return out
            self._scanned = 0
            with memoryview(buffer) as view:  # (one copy: a slice of the bytearray, then its bytes, made two)
                line = bytes(view[:cut])
            del buffer[: cut + 1]
            if self._skipping:
                self._skipping = False
                continue
            if not _blank(line):
                out.append(Line(line))

    def close(self) -> list[Line]:
        """The stream ended: its last line when no LF ended it (a last line without its LF is
        still a line, as the proxy reads its two sides), unless it is blank or the rest of a cut
        one."""
        rest = bytes(self._buffer)
        self._buffer.clear()
        self._scanned = 0
        skipping, self._skipping = self._skipping, False
        return [Line(rest)] if not _blank(rest) and not skipping else []


def _blank(line: bytes) -> bool:
    """A line of JSON's whitespace only (or empty), told without a copy: ``strip`` copied a line
    that ends in CR whole (the bytes as sent) to test it for emptiness."""
    return _BLANK_LINE.match(line) is not None


_BLANK_LINE = re.compile(rb"[ \t\r\n]*\Z")
