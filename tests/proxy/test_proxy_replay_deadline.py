"""A restarted stdio upstream that never answers its replayed ``initialize``, through the real
proxy (a process) and a real stdio server (``restart_server.py hang``): past ``--timeout`` the
proxy notes it, stops the process (stdin closed, then SIGTERM, SIGKILL to its group) and applies
the restart policy (a failure, counted toward ``--max-restarts``); what waits for it waits for
the next process, or, when no restart is left, is dropped at once: a request gets -31004, an HTTP
host's notification 502 and -31004. Before, the process was kept: every request got -31002 at
``--timeout``, forever.

README "The proxy": every frame in is forwarded, answered with an error, or noted as refused;
faults never hang past ``--timeout``; a 2025 session is initialised again with the host's own
``initialize``. basic/transports/stdio: the client shuts a server down by closing its stdin, then
SIGTERM, then SIGKILL. basic/transports/streamable-http: a notification POST is answered 202
when accepted, else an HTTP error status whose body MAY be a JSON-RPC error with no id.

The HTTP host's own ``--timeout`` on its queued notification (504, the frame taken back) and the
replay's deadline race; the rows cover both orders, each made certain by what happens first: a
notification POSTed after the restarted process read its ``initialize`` waits past the replay's
deadline (502), one POSTed while the process is being stopped (before the next one's replay is
written) has its own deadline first (504)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ._peers import TIMEOUT, HttpHostPeer, LinePeer, host_through, proxy_http, wait_until
from ._restarting import (
    CHANGED,
    EXIT,
    INITIALIZE,
    INITIALIZED,
    LATE,
    after,
    frame_records,
    host_message,
    initialise,
    position,
    server_received,
)
from ._restarting import SERVER as RESTARTING

SERVER = [*RESTARTING, "hang"]
PING = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
NOTE = "the host's notification: "


def _hosts(method: str) -> Callable[[dict[str, Any]], bool]:
    """The host's frame naming ``method`` (not one the proxy wrote itself)."""
    return lambda r: host_message(method)(r) and "written by the proxy" not in (r.get("note") or "")


def _overdue(log: Path) -> bool:
    return any(LATE in (r.get("note") or "") for r in frame_records(log))


# (the host; --max-restarts; the host's frame; whether it is sent only once the first replay's
# deadline has passed (the process being stopped); the files made once the frame is in the log
# ("go": a later start answers its initialize; "exit": a stopped process may exit); what the host
# got: (HTTP status or None, JSON-RPC error code or None, its message or None); the records after
# the frame's as (dir, kind, note); what the server received)
ROWS = [
    ("http-deadline-first", "http", 1, CHANGED, False, [], (502, -31004, "mcp-verdict proxy: " + LATE),
     [("s2c", "error", LATE + ": stopping it (no restart left)"),
      ("c2s", "error", NOTE + LATE + ": dropped (answered HTTP 502)")],
     ["1 notifications/initialized", "2 initialize"]),
    ("http-host-timeout-first", "http", 2, CHANGED, True, ["exit"],
     (504, -31002, "mcp-verdict proxy: not sent within 3 s (the upstream was being restarted)"),
     [("c2s", "error", NOTE + "not sent within 3 s (the upstream was being restarted): dropped (answered HTTP 504)"),
      ("s2c", "error", LATE + ": stopping it (no restart left)")],
     ["1 notifications/initialized", "2 initialize", "3 initialize"]),
    ("stdio-restarted-next", "stdio", 2, CHANGED, False, ["go", "exit"], (None, None, None),
     [("s2c", "error", LATE + ": stopping it (restarted next)"),
      ("c2s", "open", "sent the restarted upstream the 1 frame the host sent while it was down")],
     ["1 notifications/initialized", "2 initialize", "3 initialize", "3 notifications/initialized",
      "3 notifications/roots/list_changed"]),
    ("stdio-request", "stdio", 1, PING, False, [], (None, -31004, "mcp-verdict proxy: " + LATE),
     [("s2c", "error", LATE + ": stopping it (no restart left)")],
     ["1 notifications/initialized", "2 initialize"]),
]


@pytest.mark.parametrize(("side", "restarts", "frame", "when_stopping", "then", "got", "records", "received"),
                         [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_a_restarted_upstream_silent_to_its_replayed_initialize_is_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, side: str, restarts: int, frame: dict[str, Any],
        when_stopping: bool, then: list[str], got: tuple[int | None, int | None, str | None],
        records: list[tuple[str, str, str]], received: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    options = ["--restart", "on-failure", "--max-restarts", str(restarts), "--timeout", "3", "--grace", "30",
               "--log", str(log), "--log-payloads", "--", *SERVER]
    method = str(frame["method"])
    answers: list[tuple[int | None, bytes | None]] = []

    def run(peer: LinePeer | HttpHostPeer) -> None:
        initialise(peer)
        assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == -31001
        assert wait_until(lambda: "2 initialize" in server_received(tmp_path), TIMEOUT)
        if when_stopping:
            assert wait_until(lambda: _overdue(log), TIMEOUT)
        if isinstance(peer, HttpHostPeer):
            post = threading.Thread(target=lambda: answers.append(peer.post(frame)[:2]))
            post.start()
        else:
            peer.send(frame)
        assert wait_until(lambda: position(log, _hosts(method)) is not None, TIMEOUT)
        for name in then:
            (tmp_path / name).touch()
        if isinstance(peer, HttpHostPeer):
            post.join(TIMEOUT)
        elif "id" in frame:
            answers.append((None, peer.recv()))
        wait_until(lambda: len(after(log, _hosts(method))) >= len(records)
                   and len(server_received(tmp_path)) >= len(received), TIMEOUT)
        (tmp_path / "exit").touch()

    with host_through(side, options, tmp_path / "exit") as (peer, _):
        run(peer)
    status, body = answers[0] if answers else (None, None)
    error = json.loads(body)["error"] if body else None
    assert (status, error["code"] if error else None, error["message"] if error else None) == got
    assert (after(log, _hosts(method)), server_received(tmp_path)) == (records, received)


# while the silent process is being stopped and no restart is left (it is still alive, waiting out
# --grace: it read "the upstream is not running"), an HTTP host's notification gets 502 and
# -31004 at once, the upstream being stopped, and the frame log says it was not sent
# — also for a message no parser reads (1e400: orjson reads no infinity), which the proxy reads
# before sending (it was noted for a readable one only): a response, whose id shows (an unreadable
# notification, which shows none, is refused at once over a stdio server: the server's parse error
# to it could not be told from the answer to another host's call, test_proxy_http_host_hostile).
# (the POSTed body; the records after its own as (dir, kind, note)). Outside the session (no
# Mcp-Session-Id) the host's frame is read before it is sent; an unreadable one is then sent on by
# the relay.
STOPPING = "the upstream is being stopped (no restart left)"
NOT_SENT = f"the host's notification: {STOPPING}: dropped (answered HTTP 502)"
UNREAD = f"the host's message: {STOPPING}: dropped (answered HTTP 502)"  # (not read)
INFINITE = b'{"jsonrpc":"2.0","id":"roots/list_changed","result":{"x":1e400}}'
DOWN_ROWS = [
    ("readable", json.dumps(CHANGED).encode(), True, [("c2s", "error", NOT_SENT)]),
    ("readable-no-session", json.dumps(CHANGED).encode(), False, [("c2s", "error", NOT_SENT)]),
    ("unreadable", INFINITE, True, [("c2s", "error", UNREAD)]),
    ("unreadable-no-session", INFINITE, False, [("c2s", "error", UNREAD)]),
]


@pytest.mark.parametrize(("body", "in_session", "records"), [row[1:] for row in DOWN_ROWS],
                         ids=[row[0] for row in DOWN_ROWS])
def test_an_http_hosts_notification_while_the_silent_upstream_is_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: bytes, in_session: bool,
        records: list[tuple[str, str, str]]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    options = ["--restart", "on-failure", "--max-restarts", "1", "--timeout", "3", "--grace", "30",
               "--log", str(log), "--log-payloads", "--", *SERVER]
    with proxy_http(options) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
            assert peer.post(INITIALIZED)[0] == 202
            assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == -31001
            assert wait_until(lambda: _overdue(log), TIMEOUT)
            if not in_session:
                peer.session = None
            status, answer, _ = peer.post(body)
            wait_until(lambda: len(after(log, _hosts("roots/list_changed"))) >= len(records), TIMEOUT)
        finally:
            (tmp_path / "exit").touch()  # (the stopped process may exit)
            peer.close()
    error = json.loads(answer or b"null")["error"]
    assert (status, error["code"], error["message"]) == (502, -31004, f"mcp-verdict proxy: {STOPPING}")
    assert after(log, _hosts("roots/list_changed")) == records
