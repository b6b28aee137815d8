"""Ctrl-C (SIGINT) during a command: status 130 (128 + SIGINT) and one line on stderr, after the
server the command started is stopped (README "The CLI").

Before, click turned the KeyboardInterrupt into "Aborted!" and status 1: a status no command but
``audit`` documents (where it means a naive false success), and none a script can tell from a
failure. The signal is sent once the server has the ``tools/call`` (its stdin, teed to a file,
holds it) or once the demo has printed its first line: during the call, never during start-up.
The slow tool waits 30 s, its most: asked for 60 (as these cases did), the demo refuses the
arguments at once (-32602), so the command sometimes ended on its own before the signal came,
which then met the interpreter's exit (signal handlers back to the default) and ended it by
SIGINT, with no line: about 1 run in 12 of ``call --json``, once taken for CPython's doing.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "mcp_verdict"]
pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT to a process and sh -c are POSIX")


def _server(tmp: Path) -> str:
    """The demo server on stdio behind ``tee``: its stdin in ``tmp/in``, its process group's id in ``tmp/pid``."""
    demo = shlex.join([sys.executable, "-m", "mcp_verdict.demo", "stdio"])
    script = f"echo $$ > {shlex.quote(str(tmp / 'pid'))}; tee {shlex.quote(str(tmp / 'in'))} | {demo}"
    return shlex.join(["sh", "-c", script])


def _has_call(tmp: Path) -> Callable[[subprocess.Popen[bytes]], bool]:
    def ready(_: subprocess.Popen[bytes]) -> bool:
        path = tmp / "in"
        return path.exists() and b'"tools/call"' in path.read_bytes()

    return ready


def _printed(process: subprocess.Popen[bytes]) -> bool:
    assert process.stdout is not None
    return bool(process.stdout.readline())


# (case: the command's arguments given a work folder, and when the call is under way)
Ready = Callable[[subprocess.Popen[bytes]], bool]
CASES: dict[str, tuple[Callable[[Path], list[str]], Callable[[Path], Ready]]] = {
    "call --stdio, a slow tool": (
        lambda tmp: ["call", "--stdio", _server(tmp), "slow_echo", '{"seconds": 30}'], _has_call),
    "call --stdio --json": (
        lambda tmp: ["call", "--json", "--stdio", _server(tmp), "slow_echo", '{"seconds": 30}'], _has_call),
    "demo": (lambda tmp: ["demo"], lambda tmp: _printed),
}


@pytest.mark.parametrize("case", list(CASES))
def test_ctrl_c_ends_the_command_with_130_and_stops_the_server(tmp_path: Path, case: str) -> None:
    arguments, under_way = CASES[case]
    process = subprocess.Popen([*CLI, *arguments(tmp_path)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "100"})
    try:
        ready = under_way(tmp_path)
        deadline = time.monotonic() + 60
        while not ready(process):  # a wait for the call to be under way, not a timed assertion
            assert process.poll() is None and time.monotonic() < deadline, "the call never got under way"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (process.returncode, stderr) == (130, b"mcp-verdict: interrupted\n")
    pid_file = tmp_path / "pid"
    if pid_file.exists():  # the server's process group is gone: nothing left running
        with pytest.raises(ProcessLookupError):
            os.killpg(int(pid_file.read_text()), 0)
