"""Real peer processes for the tests: a free loopback port, waiting for a listener, stopping.

One place for what every test that starts a server needs, so that a server that does not start
fails the test with its name, and a server that does not stop is killed, never left behind.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:port now (one try)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
    except OSError:
        return False
    return True


def wait_listening(port: int, process: subprocess.Popen[bytes] | None, what: str, timeout: float = 30.0) -> None:
    """Block until the port accepts; RuntimeError naming `what` if the process exits or time runs out."""
    deadline = time.monotonic() + timeout
    while not listening(port):
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode} before listening on 127.0.0.1:{port}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:g} s")
        time.sleep(0.05)


def stop(process: subprocess.Popen[bytes] | subprocess.Popen[str], timeout: float = 10.0) -> None:
    """Terminate, wait, and kill only if it does not exit in time (never left running)."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)


@contextlib.contextmanager
def port_server(command: Sequence[str], cwd: Path | None = None) -> Iterator[str]:
    """Start a test server that picks its own port, prints it on its first line and stops when
    its stdin closes (tests/servers/_lines.py's ``serve_http``); yield its base URL
    (``http://127.0.0.1:PORT``); close its stdin and wait for it (killed if it does not stop)."""
    process = subprocess.Popen(list(command), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()
        if not port.isdigit():
            raise RuntimeError(f"{' '.join(command)} printed {port!r}, not its port")
        yield f"http://127.0.0.1:{port}"
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            stop(process)


@contextlib.contextmanager
def http_server(command: Sequence[str], port: int, what: str, *, env: Mapping[str, str] | None = None,
                cwd: Path | None = None, timeout: float = 30.0) -> Iterator[str]:
    """Start a Streamable HTTP server already told to listen on `port`; yield its /mcp URL; stop it."""
    process = subprocess.Popen(list(command), cwd=cwd, env=None if env is None else {**os.environ, **env},
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, process, what, timeout)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def require(path: Path, what: str, how: str) -> Path:
    """The peer at `path`, or a skip saying `how` to install it — a failure under ./run test, which sets
    MCP_VERDICT_REQUIRE_INTEROP=1 so that a missing peer cannot pass silently."""
    if path.exists():
        return path
    message = f"{what} is not installed at {path}: {how}"
    if os.environ.get("MCP_VERDICT_REQUIRE_INTEROP") == "1":
        pytest.fail(message)
    pytest.skip(message)


def gone(pid: int) -> bool:
    """The process has ended: no such process, or a zombie waiting for init to reap it (read
    from ``/proc``: Linux)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


# The peak memory of the one child it runs, read by a parent that runs nothing else (ru_maxrss:
# KiB on Linux); the child's standard output after the first line, or nothing (DEVNULL).
_PEAK = '''
import resource, subprocess, sys
keep = sys.argv[1] == "keep"
done = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE if keep else subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                      stdin=subprocess.DEVNULL, check=False)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
if keep:
    print(done.stdout.decode())
'''


def peak_run(command: Sequence[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None,
             keep_stdout: bool = True, timeout: float = 300) -> tuple[int, int, str]:
    """(exit status, peak resident set in KiB, standard output) of ``command``, run as the only
    child of a parent that runs nothing else (its standard output is not kept, so not read in the
    parent, unless ``keep_stdout``). Linux: ``ru_maxrss`` is in KiB there."""
    done = subprocess.run([sys.executable, "-c", _PEAK, "keep" if keep_stdout else "drop", *command],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=None if env is None else dict(env), check=True)
    first, _, out = done.stdout.partition("\n")
    status, peak = first.split()
    return int(status), int(peak), out
