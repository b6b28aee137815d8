"""The stdio sides' line splitter: reads in, whole lines out, a line past the limit never held
whole (basic/transports/stdio: one JSON-RPC message per line, no embedded newline) — fixed
reads in, fixed lines out."""

from __future__ import annotations

import pytest

from mcp_verdict.proxy._stdio import LineSplitter, _StdoutReader

KEEP = 64 * 1024  # the first bytes of a line past the limit that are kept (for its id)


CASES = [
    (100, [b'{"a":1}\n'], [b'{"a":1}'], [], b""),  # one whole line in one read
    (100, [b'{"a":1}\n{"b":2}\n'], [b'{"a":1}', b'{"b":2}'], [], b""),
    (100, [b'{"a"', b":1", b"}\n"], [b'{"a":1}'], [], b""),  # a line over three reads
    (100, [b'{"a":1}\n{"b"', b":2}\n"], [b'{"a":1}', b'{"b":2}'], [], b""),  # a read ends mid-line
    (100, [b'{"a":1}', b"\n", b'{"b":2}\n'], [b'{"a":1}', b'{"b":2}'], [], b""),  # the LF alone
    (100, [b"\n\n"], [b"", b""], [], b""),  # empty lines (the sides skip them)
    (100, [b'{"a":1}\n{"b"'], [b'{"a":1}'], [], b'{"b"'),  # the stream ends mid-line: the rest
    (100, [b'{"a"', b":1"], [], [], b'{"a":1'),
    (100, [b"x" * 100 + b"\n"], [b"x" * 100], [], b""),  # at the limit: a line
    (10, [b"0123456789A\n"], [], [(b"0123456789A", 11)], b""),  # past it, in one read
    (10, [b"0123456", b"789abcdef", b"gh\nxy\n"], [b"xy"], [(b"0123456789abcdef", 18)], b""),  # over reads
    (10, [b"01234\n0123456789A", b"BC\nok\n"], [b"01234", b"ok"], [(b"0123456789A", 13)], b""),
    (10, [b"0123456789A", b"BC"], [], [(b"0123456789A", 13)], b""),  # the stream ends while it is dropped
    (KEEP + 10, [b"x" * (KEEP + 5), b"y" * 6, b"\n"], [], [(b"x" * KEEP, KEEP + 11)], b""),  # its first 64 KiB
    (2 * KEEP, [b"x" * (KEEP + 1) + b"\n"], [b"x" * (KEEP + 1)], [], b""),
    # a shorter read after a longer one (the upstream's reader reads each into the same buffer)
    (100, [b'{"a":1}\n{"b":2}\n', b'{"c":3}\n'], [b'{"a":1}', b'{"b":2}', b'{"c":3}'], [], b""),
    (100, [b'{"a":1}\n{"b":2}\n', b'{"c"', b':3}\n'], [b'{"a":1}', b'{"b":2}', b'{"c":3}'], [], b""),
    (100, [b'{"a":1}\n\n', b'{"c":3}\n'], [b'{"a":1}', b"", b'{"c":3}'], [], b""),
]


@pytest.mark.parametrize(("limit", "reads", "lines", "too_large", "rest"), CASES)
def test_reads_become_whole_lines_and_a_line_past_the_limit_is_refused_by_its_start(
        limit: int, reads: list[bytes], lines: list[bytes], too_large: list[tuple[bytes, int]],
        rest: bytes) -> None:
    got: list[bytes] = []
    refused: list[tuple[bytes, int]] = []
    splitter = LineSplitter(limit, got.append, lambda prefix, size: refused.append((bytes(prefix), size)))
    for read in reads:
        splitter.feed(read)
    assert splitter.close() == rest
    assert got == lines
    assert all(type(line) is bytes for line in got)  # (never a view of a read)
    assert refused == too_large


class _Process:
    """What the upstream's stdout reader needs of its process's protocol: its line splitter."""

    def __init__(self, splitter: LineSplitter) -> None:
        self.splitter = splitter
        self.lost = False

    def stdout_lost(self, exc: Exception | None) -> None:
        self.lost = True


@pytest.mark.parametrize(("limit", "reads", "lines", "too_large", "rest"), CASES)
def test_the_upstreams_stdout_read_into_one_buffer_gives_the_same_lines(
        limit: int, reads: list[bytes], lines: list[bytes], too_large: list[tuple[bytes, int]],
        rest: bytes) -> None:
    """Each read lands in the reader's one buffer, over what the reads before left there: the
    lines are the splitter's own, each its own bytes (never a view of the buffer)."""
    got: list[bytes] = []
    refused: list[tuple[bytes, int]] = []
    splitter = LineSplitter(limit, got.append, lambda prefix, size: refused.append((bytes(prefix), size)))
    process = _Process(splitter)
    reader = _StdoutReader(process)  # type: ignore[arg-type]  # (its process's splitter, and stdout_lost)
    for read in reads:
        buffer = reader.get_buffer(len(read))
        buffer[:len(read)] = read
        reader.buffer_updated(len(read))
    reader.connection_lost(None)
    assert process.lost
    assert splitter.close() == rest
    assert got == lines
    assert all(type(line) is bytes for line in got)
    assert refused == too_large
