"""An output the CLI cannot write: standard output closed (``>&-``) or full (``/dev/full``: ENOSPC,
as a full disk answers). README "The CLI": the command ends with one line on stderr saying why
and status 74 (EX_IOERR of sysexits.h), apart from every status a command gives — never a
traceback. Before, each of these was a Python traceback and status 1 (``conform``'s status for a
failing receiver), or, for ``classify`` and ``conform`` without ``--json`` on a closed stdout,
nothing at all and the verdict's status (0: success, with the output lost); ``call`` on a closed
stdout called the tool, then lost its verdict: it is now never called.

``audit`` the same (its module doc): ``--json`` on a full stdout said ``mcp-verdict audit: [Errno
28] ...`` with status 3 (its status for an input it cannot read), on a closed one it was an
AttributeError traceback; an ``--html`` page or a ``--parquet`` file whose write fails once
opened (a full disk, a file size limit) was an OSError traceback and status 1 (a naive false
success). One that cannot be opened (a directory, a path in a missing folder, a read-only file)
ends the same way, said before the audit runs: it was a usage error (2), and ``--parquet``'s said
pyarrow's sentences ("Failed to open local file ... Detail: [errno 2] ..."; on ``/dev/full``,
whose opening pyarrow writes to, "Error writing bytes to file. Detail: [errno 28] ...").
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

try:
    import resource
except ImportError:  # (not on Windows: the file size limit rows are skipped there)
    resource = None  # type: ignore[assignment]

from mcp_verdict.demo import stdio_command

CLI = [sys.executable, "-m", "mcp_verdict"]
OUTPUT_FAILED = 74
FULL = "mcp-verdict: cannot write the output: No space left on device\n"
CLOSED = "mcp-verdict: cannot write the output: standard output is closed\n"
RESPONSE = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [
    {"type": "text", "text": "x"}]}}


def _response(tmp: Path) -> str:
    path = tmp / "r.json"
    path.write_text(json.dumps(RESPONSE), "utf-8")
    return str(path)


# a call and its answer as JSON-RPC JSON Lines: one naive false success (audit's status 1)
CALLS = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\n'
         '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}\n')


def _calls(tmp: Path) -> str:
    path = tmp / "calls.jsonl"
    path.write_text(CALLS, "utf-8")
    return str(path)


def _server(tmp: Path) -> str:
    """The demo server, started by a shell that first leaves a mark: the server was started."""
    return shlex.join(["sh", "-c", f"touch {shlex.quote(str(tmp / 'started'))} && exec {shlex.join(stdio_command())}"])


# (the command's arguments, given a work folder)
COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "classify": lambda tmp: ["classify", _response(tmp)],
    "classify --json": lambda tmp: ["classify", "--json", _response(tmp)],
    "conform": lambda tmp: ["conform", "--builtin", "mcp-verdict", "--versions", "2026-07-28"],
    "conform --json": lambda tmp: ["conform", "--builtin", "mcp-verdict", "--versions", "2026-07-28", "--json"],
    "call": lambda tmp: ["call", "--stdio", _server(tmp), "get_forecast", '{"city": "Lisbon"}'],
    "call --json": lambda tmp: ["call", "--stdio", _server(tmp), "get_forecast", '{"city": "Lisbon"}', "--json"],
    "audit": lambda tmp: ["audit", _calls(tmp)],
    "audit --json": lambda tmp: ["audit", "--json", _calls(tmp)],
    "audit --html /dev/full": lambda tmp: ["audit", "--html", "/dev/full", _calls(tmp)],
    "audit --html FILE": lambda tmp: ["audit", "--html", str(tmp / "page.html"), _calls(tmp)],
    "audit --parquet FILE": lambda tmp: ["audit", "--parquet", str(tmp / "calls.parquet"), _calls(tmp)],
}
PAGE_FULL = "mcp-verdict: cannot write the output: /dev/full: No space left on device\n"
TOO_LARGE = "File too large"

# (command, stdout: "full" or "closed", or "null" with files limited to 64 bytes ("fsize": the
# --html or --parquet file's write fails, EFBIG) or not ("null"); exit status, stderr, whether the
# server was started)
CASES = [
    ("classify", "full", OUTPUT_FAILED, FULL, False),
    ("classify", "closed", OUTPUT_FAILED, CLOSED, False),
    ("classify --json", "full", OUTPUT_FAILED, FULL, False),
    ("classify --json", "closed", OUTPUT_FAILED, CLOSED, False),
    ("conform", "full", OUTPUT_FAILED, FULL, False),
    ("conform", "closed", OUTPUT_FAILED, CLOSED, False),
    ("conform --json", "full", OUTPUT_FAILED, FULL, False),
    ("conform --json", "closed", OUTPUT_FAILED, CLOSED, False),
    ("call", "full", OUTPUT_FAILED, FULL, True),  # (a full disk is only known once written to)
    ("call", "closed", OUTPUT_FAILED, CLOSED, False),  # the tool never called
    ("call --json", "full", OUTPUT_FAILED, FULL, True),
    ("call --json", "closed", OUTPUT_FAILED, CLOSED, False),
    ("audit", "full", OUTPUT_FAILED, FULL, False),
    ("audit", "closed", OUTPUT_FAILED, CLOSED, False),
    ("audit --json", "full", OUTPUT_FAILED, FULL, False),
    ("audit --json", "closed", OUTPUT_FAILED, CLOSED, False),
    ("audit --html /dev/full", "null", OUTPUT_FAILED, PAGE_FULL, False),
    ("audit --html FILE", "fsize", OUTPUT_FAILED, TOO_LARGE, False),
    ("audit --parquet FILE", "fsize", OUTPUT_FAILED, TOO_LARGE, False),
]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(("command", "stdout", "status", "stderr", "started"), CASES)
def test_an_output_that_cannot_be_written_is_said_with_status_74(tmp_path: Path, command: str, stdout: str,
                                                                  status: int, stderr: str, started: bool) -> None:
    args = [*CLI, *COMMANDS[command](tmp_path)]
    env = {**os.environ, "LC_ALL": "C", "COLUMNS": "100"}  # (strerror's words in the C locale)
    if stdout in ("null", "fsize"):
        if stdout == "fsize" and resource is None:
            pytest.skip("needs setrlimit (POSIX)")
        if "--parquet" in args:
            pytest.importorskip("pyarrow")
        limit = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))) if stdout == "fsize" else None
        run = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL, env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
                             preexec_fn=limit, timeout=300, check=False)
        if stderr == TOO_LARGE:  # (pyarrow's words for EFBIG are its own: the line is checked by its parts)
            path = args[args.index("--html" if "--html" in args else "--parquet") + 1]
            assert run.returncode == status
            assert run.stderr.startswith(f"mcp-verdict: cannot write the output: {path}: ")
            assert run.stderr.endswith(f"{TOO_LARGE}\n") and run.stderr.count("\n") == 1
            return
    elif stdout == "closed":
        run = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *args], stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL, env=env, timeout=300, check=False)
    else:
        with open("/dev/full", "wb") as full:
            run = subprocess.run(args, stdout=full, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                 env=env, timeout=300, check=False)
    assert (run.returncode, run.stderr) == (status, stderr)
    assert (tmp_path / "started").exists() is started


def test_a_closed_stderr_is_no_output_failure(tmp_path: Path) -> None:
    """Stderr carries prompts and warnings, no command's output: closed (a daemon's), it is passed
    over as rich does, and the command runs as ever."""
    run = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", *CLI, "classify", _response(tmp_path)],
                         stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                         env={**os.environ, "COLUMNS": "100"}, timeout=60, check=False)
    assert (run.returncode, run.stdout) == (0, "normal_complete  1 block(s) text\n")


def _read_only(tmp: Path, name: str) -> str:
    path = tmp / name
    path.write_bytes(b"")
    path.chmod(0o444)
    return str(path)


def _without_dac_override() -> None:
    """Run as root, the CLI's process loses CAP_DAC_OVERRIDE (prctl PR_CAPBSET_DROP), so that a
    read-only file is read-only to it as to any user."""
    import ctypes

    if os.geteuid() == 0 and ctypes.CDLL(None, use_errno=True).prctl(24, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE)")


# (where the --html or --parquet file is, given a work folder; the system's reason, C locale)
UNWRITABLE: dict[str, tuple[Callable[[Path, str], str], str]] = {
    "/dev/full": (lambda tmp, name: "/dev/full", "No space left on device"),
    "a directory": (lambda tmp, name: str(tmp), "Is a directory"),
    "in a missing folder": (lambda tmp, name: str(tmp / "missing" / name), "No such file or directory"),
    "a read-only file": (_read_only, "Permission denied"),
}
OPEN_CASES = [(option, where, OUTPUT_FAILED) for option in ("--html", "--parquet") for where in UNWRITABLE]


@pytest.mark.skipif(not os.path.exists("/dev/full") or not sys.platform.startswith("linux"), reason="Linux")
@pytest.mark.parametrize(("option", "where", "status"), OPEN_CASES)
def test_an_output_file_that_cannot_be_written_is_said_with_status_74(tmp_path: Path, option: str, where: str,
                                                                       status: int) -> None:
    if option == "--parquet":
        pytest.importorskip("pyarrow")
    path_of, why = UNWRITABLE[where]
    path = path_of(tmp_path, "out.html" if option == "--html" else "out.parquet")
    run = subprocess.run([*CLI, "audit", option, path, _calls(tmp_path)], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL,
                         env={**os.environ, "LC_ALL": "C", "COLUMNS": "100"}, preexec_fn=_without_dac_override,
                         timeout=300, check=False)
    assert (run.returncode, run.stderr) == (status, f"mcp-verdict: cannot write the output: {path}: {why}\n")
    if where != "/dev/full":  # said before the audit runs: no report
        assert run.stdout == ""
