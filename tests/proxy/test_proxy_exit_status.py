"""The proxy's exit status when it ends because its stdio upstream is gone for good, through the
real proxy (a process, stdio→stdio and HTTP→stdio) and a real stdio server
(``restart_server.py``): the upstream's own status when it exited non-zero; 1 when the proxy
stopped it (a restarted process silent to its replayed ``initialize`` within ``--timeout``, no
restart left), whatever status the stop left it — the server here exits 0 once its stdin is
closed —, and when a signal ended it (both sides alike: HTTP→stdio ended with 0 then). Before,
that forced stop ended the proxy with 0, as if nothing had failed.

README "The proxy": a restarted server that does not answer that ``initialize`` within
``--timeout`` is stopped and counts as a failure; ``_run``'s docstring states the rule (0 only
when the last process exited with status 0 by itself)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ._peers import TIMEOUT, HttpHostPeer, LinePeer, host_through, wait_until
from ._restarting import EXIT, LATE, SERVER, initialise


def _overdue(log: Path) -> bool:
    return log.exists() and LATE in log.read_text()


# (the host side; the server's mode; --restart; what ends the upstream for good; the proxy's exit
# status). "exit": the host's call makes the server exit 3 (no restart); "kill": it ends by
# SIGTERM; "silent": it exits 3, the restarted process is silent to its replayed initialize and
# stopped (stdin closed: it exits 0);
# "replay-exit": the restarted process exits 4 on its replayed initialize (no restart left).
ROWS = [
    ("stdio-exit", "stdio", "hang", "never", "exit", 3),
    ("stdio-silent-stopped", "stdio", "hang", "on-failure", "silent", 1),
    ("stdio-replay-exit", "stdio", "exit", "on-failure", "replay-exit", 4),
    ("stdio-killed", "stdio", "hang", "never", "kill", 1),
    ("http-exit", "http", "hang", "never", "exit", 3),
    ("http-killed", "http", "hang", "never", "kill", 1),
    ("http-silent-stopped", "http", "hang", "on-failure", "silent", 1),
    ("http-replay-exit", "http", "exit", "on-failure", "replay-exit", 4),
]


@pytest.mark.parametrize(("side", "mode", "restart", "how", "status"), [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_the_proxy_ends_non_zero_when_its_upstream_failed_for_good(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, side: str, mode: str, restart: str, how: str,
        status: int) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    if how == "replay-exit":
        (tmp_path / "go").touch()  # (the restarted process reads its initialize, then exits 4)
    options = ["--restart", restart, "--max-restarts", "1", "--timeout", "3", "--grace", "30", "--log", str(log),
               "--", *SERVER, mode]

    def run(peer: LinePeer | HttpHostPeer) -> None:
        initialise(peer)
        call = {**EXIT, "params": {"name": "kill", "arguments": {}}} if how == "kill" else EXIT
        answer: dict[str, Any] = json.loads(peer.exchange(call) or b"null")
        assert answer["error"]["code"] == -31001
        if how == "silent":
            assert wait_until(lambda: _overdue(log), TIMEOUT)
            (tmp_path / "exit").touch()  # (the stopped process exits 0 on its stdin's end)

    with host_through(side, options, tmp_path / "exit") as (peer, process):
        run(peer)
        try:
            got = process.wait(TIMEOUT)  # (it ends on its own: a stdio host's stdin stays open)
        except subprocess.TimeoutExpired:
            got = None
    assert got == status
