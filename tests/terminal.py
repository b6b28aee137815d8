"""The CLI run as a person runs it: in a pseudo-terminal, answering each prompt once it shows."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "mcp_verdict"]


def in_a_terminal(args: list[str], answers: list[tuple[bytes, bytes]], *, cwd: Path | None = None,
                  timeout: float = 60, columns: int | None = None) -> tuple[int, bytes]:
    """Run ``mcp-verdict ARGS`` in a pseudo-terminal (TERM=dumb, COLUMNS=120; with ``columns``,
    a terminal that wide with no COLUMNS, TERM=xterm and no colour), typing each answer once
    its prompt is in the output; returns (exit status, everything shown). Every answer must
    have been typed."""
    import pty

    primary, secondary = pty.openpty()
    if columns is None:
        env = {**os.environ, "TERM": "dumb", "COLUMNS": "120"}
    else:
        import fcntl
        import struct
        import termios

        fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        env = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")},
               "TERM": "xterm", "NO_COLOR": "1"}
    process = subprocess.Popen([*CLI, *args], stdin=secondary, stdout=secondary, stderr=secondary, close_fds=True,
                               cwd=cwd, env=env)
    os.close(secondary)
    pending = list(answers)
    output = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(primary, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
            if pending and pending[0][0] in output:
                os.write(primary, pending.pop(0)[1])
            if process.poll() is not None and not ready:
                break
        status = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(primary)
    assert not pending, output
    return status, output
