"""The stdio host's ends as a host or a shell may give them: ``/dev/null`` for stdin (a proxy
started with nothing to read) or for stdout (answers thrown away, the verdict lines kept), and
the start-up failures a person reads: no upstream, an upstream that cannot be started.

Before: a character device other than a terminal was taken for a pipe, and the loop's pipe
transport on ``/dev/null`` (which epoll refuses) aborted the proxy under uvloop, status -6 (134
in a shell) with no message; an upstream that could not be started was ``[Errno 2] No such
file or directory``, naming nothing; with neither a command nor ``--upstream`` the usage error
said "not both"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..processes import free_port
from ._peers import PROXY

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
CALL = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"len","arguments":{"text":"abc"}}}\n')
ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}],"isError":false}}\n'


def _run(args: list[str], stdin: Any, stdout: Any, given: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*PROXY, *args], input=given, stdin=stdin if given is None else None, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=60, check=False)


# (stdin, stdout, what the host writes, upstream) -> (exit status, what reaches stdout, verdicts);
# by hand: the host's end of input ends the proxy with status 0 (README, the proxy's exit status),
# its request is judged whatever becomes of the answer (as 2025-06-18, the fault server's version:
# the call comes with no initialize).
DEVICE_CASES: list[tuple[str, str, str, str, int, bytes | None, list[str]]] = [
    ("/dev/null", "pipe", "nothing", "stdio", 0, b"", []),
    ("/dev/null", "pipe", "nothing", "http", 0, b"", []),
    ("pipe", "/dev/null", "a call", "stdio", 0, None, ["normal_complete"]),
    ("/dev/null", "/dev/null", "nothing", "stdio", 0, None, []),
    ("pipe", "pipe", "a call", "stdio", 0, ANSWER, ["normal_complete"]),  # (the pipes, as before)
]


@pytest.mark.parametrize(("stdin", "stdout", "writes", "upstream", "status", "shown", "kinds"), DEVICE_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in DEVICE_CASES])
def test_dev_null_as_the_host_side(tmp_path: Path, stdin: str, stdout: str, writes: str, upstream: str, status: int,
                                   shown: bytes | None, kinds: list[str]) -> None:
    verdicts = tmp_path / "v.jsonl"
    target = ["--", *SERVER] if upstream == "stdio" else ["--upstream", f"http://127.0.0.1:{free_port()}/mcp"]
    with open("/dev/null", "rb") as null_in, open("/dev/null", "wb") as null_out:
        done = _run(["--verdicts", str(verdicts), "--default-version", "2025-06-18", *target],
                    null_in if stdin == "/dev/null" else subprocess.PIPE,
                    null_out if stdout == "/dev/null" else subprocess.PIPE, CALL if writes == "a call" else None)
    assert (done.returncode, done.stderr) == (status, b"")
    if shown is not None:
        assert done.stdout == shown
    lines = verdicts.read_text().splitlines() if verdicts.exists() else []
    assert [json.loads(line)["kind"] for line in lines] == kinds


# (the proxy's arguments, its exit status, the last line of its stderr) - by hand
START_CASES: list[tuple[list[str], int, str]] = [
    ([], 2, "Error: give the upstream: a command after -- (mcp-verdict proxy -- npx server) or --upstream URL"),
    (["--upstream", "http://127.0.0.1:9/mcp", "--", *SERVER], 2,
     "Error: give either an upstream command (after --) or --upstream URL, not both"),
    (["--", "no-such-server-mcp-verdict", "--port", "1"], 3,
     "mcp-verdict proxy: cannot start the upstream 'no-such-server-mcp-verdict --port 1': No such file or directory"),
    (["--", "{tmp}/server.py"], 3, "mcp-verdict proxy: cannot start the upstream '{tmp}/server.py': Permission denied"),
]


@pytest.mark.parametrize(("args", "status", "says"), START_CASES, ids=["none", "both", "not-found", "not-executable"])
def test_an_upstream_the_proxy_cannot_use_is_named(tmp_path: Path, args: list[str], status: int, says: str) -> None:
    (tmp_path / "server.py").write_text("print('a script without its executable bit')\n")  # mode 644
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    says = says.replace("{tmp}", str(tmp_path))
    with open("/dev/null", "rb") as null_in:
        done = _run(args, null_in, subprocess.PIPE)
    err = done.stderr.decode()
    assert (done.returncode, err.strip().splitlines()[-1], "Traceback" in err) == (status, says, False), err
