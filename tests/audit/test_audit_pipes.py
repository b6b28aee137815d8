"""The pipe an audit process sends its entries through holds 1 MiB where the system allows it
(Linux ``F_SETPIPE_SZ``, up to ``/proc/sys/fs/pipe-max-size``): a chunk of entries (~200 kB) is
written at once and the process goes on while the parent is busy. Where it cannot be widened,
the pipe is left as it is and the audit goes on."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mcp_verdict.audit import _workers

fcntl = pytest.importorskip("fcntl")
LINUX = sys.platform.startswith("linux") and hasattr(fcntl, "F_GETPIPE_SZ")
MAX = int(Path("/proc/sys/fs/pipe-max-size").read_text()) if LINUX else 0


@pytest.mark.skipif(not LINUX or MAX < 1024 * 1024, reason="needs Linux pipes that may hold 1 MiB")
def test_a_process_pipe_holds_one_mebibyte() -> None:
    read, write = os.pipe()
    try:
        assert fcntl.fcntl(read, fcntl.F_GETPIPE_SZ) == 65536  # the Linux default
        _workers._widen(read)
        assert (fcntl.fcntl(read, fcntl.F_GETPIPE_SZ), fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)) == (1048576, 1048576)
    finally:
        os.close(read)
        os.close(write)


def _file(tmp: Path) -> int:
    return os.open(tmp / "f", os.O_CREAT | os.O_RDWR)


def _closed(tmp: Path) -> int:
    fd = os.open(tmp / "g", os.O_CREAT | os.O_RDWR)
    os.close(fd)
    return fd


# (what the descriptor is, opened and closed by the test): none of them is a pipe to widen
NOT_PIPES = [("a regular file", _file), ("a closed descriptor", _closed)]


@pytest.mark.parametrize(("what", "opened"), NOT_PIPES, ids=[n[0] for n in NOT_PIPES])
def test_what_cannot_be_widened_is_left_as_it_is(tmp_path: Path, what: str, opened: object) -> None:
    fd = opened(tmp_path)  # type: ignore[operator]
    try:
        _workers._widen(fd)  # raises nothing
    finally:
        if what != "a closed descriptor":
            os.close(fd)
