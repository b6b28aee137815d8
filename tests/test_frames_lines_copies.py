"""``LineReader`` (frames/_lines.py, the client's stdio framing: MCP basic/transports#stdio,
newline-delimited messages): a line is taken out of the reader's buffer in one copy, and told
blank (RFC 8259 s2: space, tab, CR, LF only) without another. Before, a line was sliced out of
the buffer (a copy) and made bytes (a second), and a line ending in CR (the bytes as sent, CRLF
line ends) was stripped into a third to be told blank or not: a 16 MiB line peaked at 3x its
size on top of the buffer's bytes, now 2x.
"""

from __future__ import annotations

import tracemalloc

import pytest

from mcp_verdict.frames import Line, LineReader

# (chunks fed, then the stream closed; the lines out, in order): written by hand
CASES: list[tuple[list[bytes], list[Line]]] = [
    ([b'{"a":1}\r\n', b" \t\r\n", b"\n"], [Line(b'{"a":1}\r')]),  # a CR kept; blank lines are none
    ([b"\x0b\n", b"\x0c\n"], [Line(b"\x0b"), Line(b"\x0c")]),  # VT, FF: no JSON whitespace (noise)
    ([b" x \r\n", b"  "], [Line(b" x \r")]),  # the last line, blank: none
    ([b"a", b"b\r\n", b"c"], [Line(b"ab\r"), Line(b"c")]),
    # an unfinished line past the limit of 10: its first 11 bytes, cut, the rest skipped
    ([b"0123456789A", b"BC\n", b"ok\n"], [Line(b"0123456789A", True), Line(b"ok")]),
]


@pytest.mark.parametrize(("chunks", "lines"), CASES)
def test_lines(chunks: list[bytes], lines: list[Line]) -> None:
    reader = LineReader(10)
    out = [line for chunk in chunks for line in reader.feed(chunk)]
    assert [*out, *reader.close()] == lines


def test_a_long_line_is_taken_out_in_one_copy() -> None:
    size = 16 << 20
    chunk = b"{" + b"a" * (size - 4) + b"}\r\n"
    reader = LineReader(64 << 20)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        (line,) = reader.feed(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert line == Line(chunk[:-1])
    # the buffer and the line (2x); a slice of the buffer, or a stripped copy of the line, more
    assert peak - before < 2.5 * size, (peak - before) / size
