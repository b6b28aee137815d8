"""A host request that arrives while the stdio upstream is being stopped for the last time (its
restart policy has no restart left), through the real proxy (a process) and a real stdio server
(``restart_server.py hang``): answered at once with -31004 under its id, ``the upstream is being
stopped (no restart left)`` (the process is still alive, waiting out ``--grace``: it read ``the
upstream is not running``, which is said once it has exited), never sent (the tool does not
run), its answer's record written by the proxy.

The window is made certain: the server exits mid-call (``exit``: -31001), is restarted (1 of at
most 1), is silent to its replayed ``initialize`` past ``--timeout`` and is then stopped, no
restart left; it exits only once the file ``exit`` exists (``--grace`` 30 s), so a request sent
once the stop is in the frame log arrives while the process is going away for good. The proxy
then ends with status 1 (README "The proxy": a forced stop is a failure)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ._peers import TIMEOUT, HttpHostPeer, host_through, wait_until
from ._restarting import EXIT, frame_records, host_message, initialise, server_received, write
from .test_proxy_replay_deadline import SERVER, _overdue

STOPPING = "the upstream is being stopped (no restart left)"
STARTS = ["2 initialize"]
"""What the server received past its first start: the replayed initialize, nothing more."""

# (the host; the request's HTTP status (None: stdio); its answer's error (code, message); the
# records after the request's own as (dir, kind, note); what the server received)
ROWS = [
    ("stdio", None, (-31004, f"mcp-verdict proxy: {STOPPING}"),
     [("s2c", "message", f"written by the proxy: {STOPPING}")], STARTS),
    ("http", 200, (-31004, f"mcp-verdict proxy: {STOPPING}"),
     [("s2c", "message", f"written by the proxy: {STOPPING}")], STARTS),
]


@pytest.mark.parametrize(("side", "status", "error", "records", "received"), ROWS, ids=[row[0] for row in ROWS])
def test_a_request_while_the_upstream_is_stopped_for_the_last_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, side: str, status: int | None, error: tuple[int, str],
        records: list[tuple[str, str, str]], received: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    options = ["--restart", "on-failure", "--max-restarts", "1", "--timeout", "3", "--grace", "30",
               "--log", str(log), "--log-payloads", "--", *SERVER]
    with host_through(side, options, tmp_path / "exit") as (peer, process):
        initialise(peer)
        assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == -31001
        assert wait_until(lambda: _overdue(log), TIMEOUT)  # (being stopped: no restart left)
        if isinstance(peer, HttpHostPeer):
            got, answer, _ = peer.post(write(7))
        else:
            got, answer = None, peer.exchange(write(7))
        every = frame_records(log)
        at = next(index for index, record in enumerate(every) if host_message('"write"')(record))
        (tmp_path / "exit").touch()  # (the stopped process may exit: the proxy ends)
        ended = process.wait(TIMEOUT)
    message: dict[str, Any] = json.loads(answer or b"null")
    assert (got, message["id"], (message["error"]["code"], message["error"]["message"])) == (status, 7, error)
    assert ([(r["dir"], r["kind"], r.get("note")) for r in every[at + 1:]], server_received(tmp_path)[-1:],
            ended) == (records, received, 1)
