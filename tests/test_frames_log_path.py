"""A frame log's path that cannot be held is refused when the writer is made, with its name
written bounded: before, a name component of 300 characters or a path past PATH_MAX was the
OSError ``open`` raised, whose message held the whole name (thousands of characters), a NUL in
it a ValueError of no name (``embedded null byte``), and a name that fits alone but not with its
rotated suffix (``NAME.3``) was taken: the log stopped at its first rotation, in the middle of a
run. The messages are written by hand (Linux: 255-byte names, a 4096-byte PATH_MAX)."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import OptionError
from mcp_verdict.frames import FrameLogWriter, RotatingLines

# (id, the path's name under tmp_path, the writer and its options) → the option and the message
REFUSED: list[tuple[str, str, Callable[..., Any], dict[str, Any], str]] = [
    ("a name of 300 bytes", "x" * 300, RotatingLines, {},
     "path's file name must have at most 255 bytes with its rotated suffix (.3); '" + "x" * 56 + "... has 300"),
    ("a name of 254 bytes, 256 with .3", "y" * 254, FrameLogWriter, {},
     "path's file name must have at most 255 bytes with its rotated suffix (.3); '" + "y" * 56 + "... has 254"),
    ("a name of 252 bytes with .1000", "z" * 252, RotatingLines, {"backups": 1000},
     "path's file name must have at most 255 bytes with its rotated suffix (.1000); '" + "z" * 56 + "... has 252"),
    ("a name of 256 bytes without backups", "w" * 256, RotatingLines, {"backups": 0},
     "path's file name must have at most 255 bytes; '" + "w" * 56 + "... has 256"),
    ("a NUL in the name", "a\0b", FrameLogWriter, {}, "path must be a path without NUL characters, not "),
]


@pytest.mark.parametrize(("name", "writer", "options", "message"), [row[1:] for row in REFUSED],
                         ids=[row[0] for row in REFUSED])
def test_a_path_that_cannot_be_held_is_an_option_error(name: str, writer: Callable[..., Any], options: dict[str, Any],
                                                       message: str, tmp_path: Path) -> None:
    with pytest.raises(OptionError) as caught:
        writer(tmp_path / name, **options)
    assert caught.value.option == "path"
    assert str(caught.value).startswith(message)
    assert len(str(caught.value)) <= 200
    assert list(tmp_path.iterdir()) == []


def test_a_name_that_fits_with_its_suffix_is_taken_and_rotates(tmp_path: Path) -> None:
    path = tmp_path / ("v" * 253)  # 255 bytes as NAME.1
    with RotatingLines(path, max_bytes=1024, backups=1) as lines:
        for _ in range(3):
            lines.write_line(b"x" * 600 + b"\n")
    assert sorted(p.name[250:] for p in tmp_path.iterdir()) == ["vvv", "vvv.1"]


# (id, the path under tmp_path) → the OSError's errno and its message (by hand), the path bounded
UNOPENABLE: list[tuple[str, Callable[[Path], Path], int, str]] = [
    ("a path past PATH_MAX", lambda d: d.joinpath(*["d" * 200] * 30, "log"), errno.ENAMETOOLONG,
     "File name too long"),
    ("a directory component of 300 bytes", lambda d: d / ("c" * 300) / "log", errno.ENAMETOOLONG,
     "File name too long"),
    ("a missing directory", lambda d: d / "missing" / "log", errno.ENOENT, "No such file or directory"),
    ("a directory", lambda d: d, errno.EISDIR, "Is a directory"),
]


@pytest.mark.parametrize(("where", "number", "reason"), [row[1:] for row in UNOPENABLE],
                         ids=[row[0] for row in UNOPENABLE])
def test_a_path_that_cannot_be_opened_is_an_os_error_naming_it_bounded(where: Callable[[Path], Path], number: int,
                                                                      reason: str, tmp_path: Path) -> None:
    path = where(tmp_path)
    with pytest.raises(OSError) as caught:
        FrameLogWriter(path)
    text = str(caught.value)
    assert caught.value.errno == number
    assert text.startswith(f"[Errno {number}] cannot open the log '{str(path)[:20]}")
    assert text.endswith(f" to append to it: {reason}")
    assert len(text) <= 260
