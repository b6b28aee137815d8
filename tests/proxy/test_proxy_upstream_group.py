"""A stdio upstream that leaves a process running in its group (a helper holding its stdout, as
servers that spawn workers and wrappers do): the proxy sees the upstream's exit anyway, answers
the call in flight with UPSTREAM_CLOSED at once (not at --timeout), and leaves no process behind
when it stops (``mcp_verdict._process``; MCP basic/transports/stdio: close stdin, SIGTERM,
SIGKILL). Before, the exit went unseen while the helper held the pipe (the call waited for
--timeout, and no restart came), and the helper outlived the proxy.

The upstream is ``fault_server.py`` started by a shell that first starts the helper; whether the
helper ended is read from ``/proc`` (Linux), independently of the code under test."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from mcp_verdict.proxy import UPSTREAM_CLOSED

from ..processes import gone
from ._peers import PROXY, LinePeer
from .test_proxy_faults import INIT, SERVER, tool

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

# (how the call ends, the helper started before the server, the error code the host gets)
CASES = [
    ("the server exits mid-call", "sleep 300 &", "exit", UPSTREAM_CLOSED),
    ("the server exits mid-call, its helper ignoring SIGTERM", "trap '' TERM; sleep 300 &", "exit",
     UPSTREAM_CLOSED),
    ("the host closes its stdin after an answer", "sleep 300 &", "echo", None),
]


@pytest.mark.parametrize(("name", "helper", "call", "code"), CASES, ids=[case[0] for case in CASES])
def test_an_upstreams_leftover_process_neither_hides_its_exit_nor_outlives_the_proxy(
        tmp_path: Path, name: str, helper: str, call: str, code: int | None) -> None:
    pid_file = tmp_path / "helper.pid"
    shell = f"{helper} echo $! > {shlex.quote(str(pid_file))}; exec {shlex.join(SERVER)}"
    peer = LinePeer([*PROXY, "--timeout", "60", "--", "sh", "-c", shell],
                    env={"FAULT_STARTS": str(tmp_path / "starts")})
    try:
        assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-06-18"
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        answer = json.loads(peer.exchange(tool(1, call), timeout=30) or b"{}")
        assert (answer.get("error") or {}).get("code") == code, answer
    finally:
        peer.close()
        pid = int(pid_file.read_text())
        ended = gone(pid)
        if not ended:
            subprocess.run(["kill", "-9", str(pid)], check=False)
    assert ended
