"""A wrong option of the frame log's writers and readers is the caller's mistake: an
``OptionError`` (a ValueError naming the option, its value written bounded) when the writer is
made or the function called, before the file is opened. Before: ``max_bytes="1m"`` was a
``TypeError`` from a comparison, ``max_bytes=True`` or ``backups=10**5000`` were taken (the first
rotation then renamed files for ever), ``flush_each``/``payloads`` of no bool were taken, a
``path`` of no path a ``TypeError``; ``decode(5)`` a ``TypeError`` (it says it never raises),
``decode(line, 10**5000)`` a LogProblem whose repr raised; ``read(5)`` failed only when
iterated, a line of no text an ``AttributeError``. The messages are written by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import OptionError
from mcp_verdict.frames import FrameLogWriter, RotatingLines, decode, read

BIG = "<an integer of about 5000 digits>"
NUMBER = "a line number (an integer from 0 to 2**63 - 1)"

# how it is called (given the log's path) → the OptionError's option and message (by hand)
WRONG: list[tuple[str, Callable[[Path], Any], str, str]] = [
    ("max_bytes a string", lambda p: RotatingLines(p, max_bytes="1m"), "max_bytes",  # type: ignore[arg-type]
     "max_bytes must be an integer of at least 1024, not '1m'"),
    ("max_bytes True", lambda p: RotatingLines(p, max_bytes=True), "max_bytes",
     "max_bytes must be an integer of at least 1024, not True"),
    ("max_bytes below 1024", lambda p: FrameLogWriter(p, max_bytes=10), "max_bytes",
     "max_bytes must be an integer of at least 1024, not 10"),
    ("max_bytes a float", lambda p: RotatingLines(p, max_bytes=float("inf")), "max_bytes",  # type: ignore[arg-type]
     "max_bytes must be an integer of at least 1024, not inf"),
    ("backups past the digit limit", lambda p: RotatingLines(p, backups=10**5000), "backups",
     f"backups must be an integer from 0 to 1000, not {BIG}"),
    ("backups negative", lambda p: FrameLogWriter(p, backups=-1), "backups",
     "backups must be an integer from 0 to 1000, not -1"),
    ("backups None", lambda p: RotatingLines(p, backups=None), "backups",  # type: ignore[arg-type]
     "backups must be an integer from 0 to 1000, not None"),
    ("flush_each a string", lambda p: RotatingLines(p, flush_each="no"), "flush_each",  # type: ignore[arg-type]
     "flush_each must be True or False, not 'no'"),
    ("payloads None", lambda p: FrameLogWriter(p, payloads=None), "payloads",  # type: ignore[arg-type]
     "payloads must be True or False, not None"),
    ("path a number", lambda p: RotatingLines(5), "path",  # type: ignore[arg-type]
     "path must be a path (a string or path-like), not 5"),
    ("path None", lambda p: FrameLogWriter(None), "path",  # type: ignore[arg-type]
     "path must be a path (a string or path-like), not None"),
    ("decode a number", lambda p: decode(5), "line", "line must be bytes or a str, not 5"),  # type: ignore[arg-type]
    ("decode a line number past the digit limit", lambda p: decode(b"x", 10**5000), "number",
     f"number must be {NUMBER}, not {BIG}"),
    ("decode a line number a string", lambda p: decode(b"x", "1"), "number",  # type: ignore[arg-type]
     f"number must be {NUMBER}, not '1'"),
    ("read a number", lambda p: read(5), "lines",  # type: ignore[arg-type]
     "lines must be an iterable of lines (bytes or str), not 5"),
    ("read one str", lambda p: read("{}"), "lines",
     "lines must be an iterable of lines (bytes or str), not '{}'"),
    ("read a line of no text", lambda p: list(read([b"", None])), "lines[1]",  # type: ignore[list-item]
     "lines[1] must be bytes or a str, not None"),
]


@pytest.mark.parametrize(("case", "call", "option", "message"), WRONG, ids=[row[0] for row in WRONG])
def test_a_wrong_option_is_refused_before_the_file_is_opened(case: str, call: Callable[[Path], Any], option: str,
                                                             message: str, tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    with pytest.raises(OptionError) as caught:
        call(log)
    assert (caught.value.option, str(caught.value)) == (option, message)
    assert not log.exists()  # refused before any I/O


def test_a_write_of_no_record_is_refused_and_the_log_goes_on(tmp_path: Path) -> None:
    with FrameLogWriter(tmp_path / "frames.jsonl") as log:
        with pytest.raises(OptionError) as caught:
            log.write(b"{}")  # type: ignore[arg-type]
        with pytest.raises(OptionError) as line:
            log.write_line("text\n")  # type: ignore[arg-type]
        log.write_line(b"{}\n")
    assert (str(caught.value), str(line.value)) == ("record must be a FrameRecord, not b'{}'",
                                                    "line must be bytes, not 'text\\n'")
    assert (tmp_path / "frames.jsonl").read_bytes() == b"{}\n"
