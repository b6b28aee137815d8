"""``--help`` and ``--version``: their output ends as every command's does (README "The CLI").

A stdout that cannot be written (full: ``/dev/full``, ENOSPC as a full disk answers; closed:
``>&-``) ends with one line on stderr saying why and status 74 (EX_IOERR of sysexits.h); a
reader gone (a pipe whose reader closed it, ``| head -c0``) ends quietly with 141 (128 + SIGPIPE).

Before, the group's ``--help`` and ``--version`` and a command's ``--help`` on a full stdout were
a click traceback and status 1; on a closed stdout they printed nothing and gave 0 (success, the
output lost); the group's for a reader gone gave click's status 1.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "mcp_verdict"]
OUTPUT_FAILED = 74
READER_GONE = 141
FULL = "mcp-verdict: cannot write the output: No space left on device\n"
CLOSED = "mcp-verdict: cannot write the output: standard output is closed\n"

ARGUMENTS = {
    "--help": ["--help"],
    "-h": ["-h"],
    "--version": ["--version"],
    "classify --help": ["classify", "--help"],
    "conform -h": ["conform", "-h"],
    "audit --help": ["audit", "--help"],
    "proxy --help": ["proxy", "--help"],
}

# (arguments, stdout: "full", "closed" or "gone", exit status, stderr)
CASES = [(name, stdout, status, stderr) for name in ARGUMENTS for stdout, status, stderr in (
    ("full", OUTPUT_FAILED, FULL), ("closed", OUTPUT_FAILED, CLOSED), ("gone", READER_GONE, ""))]


@pytest.mark.skipif(not os.path.exists("/dev/full") or os.name != "posix", reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(("arguments", "stdout", "status", "stderr"), CASES)
def test_help_and_version_end_as_every_output_does(arguments: str, stdout: str, status: int, stderr: str) -> None:
    args = [*CLI, *ARGUMENTS[arguments]]
    env = {**os.environ, "LC_ALL": "C", "COLUMNS": "100"}  # (strerror's words in the C locale)
    if stdout == "full":
        with open("/dev/full", "wb") as full:
            run = subprocess.run(args, stdout=full, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                 env=env, timeout=60, check=False)
    elif stdout == "closed":
        run = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *args], stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL, env=env, timeout=60, check=False)
    else:  # a pipe whose reader is gone before the first write
        read, write = os.pipe()
        os.close(read)
        try:
            run = subprocess.run(args, stdout=write, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                 env=env, timeout=60, check=False)
        finally:
            os.close(write)
    assert (run.returncode, run.stderr) == (status, stderr)


@pytest.mark.parametrize(("arguments", "first"), [
    ("--help", "Usage: python -m mcp_verdict [OPTIONS] COMMAND [ARGS]..."),
    ("classify --help", "Usage: python -m mcp_verdict classify [OPTIONS] [FILE]"),
])
def test_help_on_a_writable_stdout_is_unchanged(arguments: str, first: str) -> None:
    run = subprocess.run([*CLI, *ARGUMENTS[arguments]], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                         env={**os.environ, "COLUMNS": "100"}, timeout=60, check=False)
    assert (run.returncode, run.stdout.splitlines()[0], run.stderr) == (0, first, "")
