"""A frame log (or the proxy's verdict lines) written to a file that is not a regular one: a
character device (``/dev/null``: records thrown away), a FIFO a process reads (``mkfifo``, then
``mcp-verdict proxy --log FIFO``). Rotation by size renames the file and starts a new one: done
to a device or a FIFO it renamed the node itself (as root, ``/dev/null`` became
``/dev/null.1`` and a regular file took its place once 64 MiB of records were thrown away; with
``backups=0`` it was deleted). Such a file is never rotated now. A FIFO no process reads made
the proxy hang at start, silently (``open`` waits for a reader): it is now a clear error naming
the path; one that is read gets every line."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from mcp_verdict.frames import RotatingLines

LINE = b'{"n":1}' + b" " * 100 + b"\n"


def _device(tmp_path: Path) -> Path:
    """A character device like /dev/null (major 1, minor 3) at a path of the test's own."""
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    return node


@pytest.mark.parametrize("backups", [0, 3])
def test_a_character_device_is_written_and_never_rotated(tmp_path: Path, backups: int) -> None:
    node = _device(tmp_path)
    lines = RotatingLines(node, max_bytes=1024, backups=backups)
    for _ in range(100):  # 10,800 bytes: ten times the size that rotates a regular file
        lines.write_line(LINE)
    lines.close()
    assert stat.S_ISCHR(os.stat(node).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    assert lines.records == 100


def test_a_fifo_that_is_read_gets_every_line_and_is_never_rotated(tmp_path: Path) -> None:
    fifo = tmp_path / "log"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # (its reader open first; 10,800 bytes fit in the pipe)
    try:
        lines = RotatingLines(fifo, max_bytes=1024, backups=3)
        for _ in range(100):
            lines.write_line(LINE)
        lines.close()
        os.set_blocking(reader, True)
        got = bytearray()
        while chunk := os.read(reader, 65536):
            got.extend(chunk)
    finally:
        os.close(reader)
    assert bytes(got) == LINE * 100
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log"]


def test_a_fifo_no_process_reads_is_a_clear_error_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "log"
    os.mkfifo(fifo)
    result: list[BaseException | None] = []

    def open_it() -> None:
        try:
            RotatingLines(fifo).close()
            result.append(None)
        except OSError as exc:
            result.append(exc)

    opener = threading.Thread(target=open_it, daemon=True)
    opener.start()
    opener.join(10)
    if opener.is_alive():  # (the old code: open() waits for a reader; one is opened to end it)
        with open(fifo, "rb"):
            opener.join(10)
        pytest.fail("opening a FIFO no process reads waited for a reader")
    assert len(result) == 1 and isinstance(result[0], OSError)
    assert str(result[0]) == (f"[Errno 6] cannot open the log '{fifo}' to append to it: it is a FIFO no process "
                              "reads (start its reader first)")
