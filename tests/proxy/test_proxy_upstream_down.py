"""A host's notification while its stdio upstream is being restarted — written to the new
process, or dropped when it exits before it was sent, or (an HTTP host's) still waiting at
``--timeout`` — through the real proxy (a process) and a real stdio server
(``restart_server.py``).

README "The proxy": nothing is lost or reordered: every frame in is forwarded, answered with an
error, or noted as refused; an HTTP host's POST of its notification waits for the upstream's own
answer, and one whose upstream request fails gets 502 (504 past ``--timeout``) and the same codes
as a JSON-RPC error with a null id (-31004 the upstream cannot be reached, -31002 it did not
answer in time), each noted in the frame log; frames the host sends while the server is being
restarted wait for the new process. (An upstream that exits for good ends the proxy.)
basic/transports/streamable-http: a notification POST is answered 202 when accepted, else an
HTTP error status whose body MAY be a JSON-RPC error with no id."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from ._peers import PROXY, TIMEOUT, HttpHostPeer, LinePeer, proxy_http, wait_until
from ._restarting import CHANGED, EXIT, INITIALIZE, INITIALIZED, SERVER, after, frame_records, position

NOTE = "the host's notification: "


def _changed(record: dict[str, Any]) -> bool:
    """The host's notifications/roots/list_changed record."""
    return record["kind"] == "message" and "roots/list_changed" in record.get("data", "")


def _ping(record: dict[str, Any]) -> bool:
    return record["kind"] == "message" and '"ping"' in record.get("data", "")


# (the run's options; the restarted server's answer to its replayed initialize; whether it is let
# answer; the notification's status and JSON-RPC error code (None: no body); the frame log's
# error and queue records after the notification's as (dir, kind, note); what the server
# received as "<start> <method>")
ROWS = [
    ("restarted", ["--restart", "on-failure"], "answer", True, 202, None,
     [("c2s", "open", "sent the restarted upstream the 1 frame the host sent while it was down")],
     ["1 notifications/initialized", "2 notifications/initialized", "2 notifications/roots/list_changed"]),
    ("restart-exits", ["--restart", "on-failure", "--max-restarts", "1"], "exit", True, 502, -31004,
     [("c2s", "error", NOTE + "the restarted upstream exited (status 4) before it was sent: dropped "
                              "(answered HTTP 502)")],
     ["1 notifications/initialized"]),
    ("restart-slow", ["--restart", "on-failure", "--timeout", "1"], "answer", False, 504, -31002,
     [("c2s", "error", NOTE + "not sent within 1 s (the upstream was being restarted): dropped (answered HTTP 504)")],
     ["1 notifications/initialized", "2 notifications/initialized"]),
]


@pytest.mark.parametrize(("options", "second", "go", "status", "code", "records", "received"),
                         [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_an_http_hosts_notification_while_the_stdio_upstream_is_down(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: list[str], second: str, go: bool, status: int,
        code: int | None, records: list[tuple[str, str, str]], received: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    with proxy_http([*options, "--log", str(log), "--log-payloads", "--", *SERVER, second]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
            assert peer.post(INITIALIZED)[0] == 202
            answer = json.loads(peer.exchange(EXIT) or b"null")
            assert answer["error"]["code"] == -31001  # (the upstream exited mid-call)
            got: list[tuple[int, bytes | None]] = []
            post = threading.Thread(target=lambda: got.append(peer.post(CHANGED)[:2]))
            post.start()
            assert wait_until(lambda: position(log, _changed) is not None, TIMEOUT)
            if go:
                (tmp_path / "go").touch()  # the restarted server may answer its replayed initialize
            post.join(TIMEOUT)
            (tmp_path / "go").touch()
            wait_until(lambda: len((tmp_path / "received").read_text().splitlines()) >= len(received), TIMEOUT)
        finally:
            peer.close()
    assert len(got) == 1
    (answered, body) = got[0]
    error = json.loads(body)["error"] if body else None
    assert (answered, error["code"] if error else None, error["data"]["source"] if error else None) == \
        (status, code, "mcp-verdict proxy" if code else None)
    assert after(log, _changed) == records
    assert (tmp_path / "received").read_text().splitlines() == received


# a stdio host is not told (it pairs answers by id, and a notification has none), but the frame
# log says what became of its notification: (the restarted server's answer to its replayed
# initialize; the records after the notification's; what the server received)
STDIO_ROWS = [
    ("exit", [("c2s", "error", NOTE + "the restarted upstream exited (status 4) before it was sent: dropped "
                                      "(the host is not told: stdio)")],
     ["1 notifications/initialized"]),
    ("answer", [("c2s", "open", "sent the restarted upstream the 1 frame the host sent while it was down")],
     ["1 notifications/initialized", "2 notifications/initialized", "2 notifications/roots/list_changed"]),
]


@pytest.mark.parametrize(("second", "records", "received"), STDIO_ROWS, ids=[row[0] for row in STDIO_ROWS])
def test_a_stdio_hosts_notification_while_the_upstream_restarts_is_in_the_frame_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str, records: list[tuple[str, str, str]],
        received: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    peer = LinePeer([*PROXY, "--restart", "on-failure", "--max-restarts", "1", "--log", str(log), "--log-payloads",
                     "--", *SERVER, second])
    try:
        assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
        peer.send(INITIALIZED)
        assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == -31001
        peer.send(CHANGED)
        assert wait_until(lambda: position(log, _changed) is not None, TIMEOUT)
        (tmp_path / "go").touch()
        wait_until(lambda: len((tmp_path / "received").read_text().splitlines()) >= len(received)
                   and len(after(log, _changed)) >= len(records), TIMEOUT)
    finally:
        peer.close()
    assert (after(log, _changed), (tmp_path / "received").read_text().splitlines()) == (records, received)


# what waits for a restarting server is bounded (one that never answers its replayed initialize
# would hold the host's frames without end): 1,000 frames (or 64 MiB); past it a request gets
# -31004 at once and a notification is dropped and noted, in the host's order, none reordered
CHANGED_LINE = b'{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}'  # 61 bytes
FULL = "the upstream is being restarted and 1000 frames (61000 bytes) already wait for it"


def test_what_waits_for_a_restarting_upstream_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    peer = LinePeer([*PROXY, "--restart", "on-failure", "--log", str(log), "--log-payloads", "--",
                     *SERVER, "answer"])
    try:
        assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
        peer.send(INITIALIZED)
        assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == -31001
        peer.send_raw((CHANGED_LINE + b"\n") * 1001)
        refused = json.loads(peer.exchange({"jsonrpc": "2.0", "id": 9, "method": "ping"}) or b"null")
        (tmp_path / "go").touch()
        wait_until(lambda: len((tmp_path / "received").read_text().splitlines()) >= 1002, TIMEOUT)
        wait_until(lambda: len(after(log, _changed)) >= 2, TIMEOUT)
    finally:
        peer.close()
    assert (refused["id"], refused["error"]["code"], refused["error"]["message"]) == \
        (9, -31004, "mcp-verdict proxy: " + FULL)
    assert after(log, _changed) == [
        ("c2s", "error", NOTE + FULL + ": dropped (the host is not told: stdio)"),
        ("c2s", "open", "sent the restarted upstream the 1000 frames the host sent while it was down")]
    assert (tmp_path / "received").read_text().splitlines() == \
        ["1 notifications/initialized", "2 notifications/initialized"] + ["2 notifications/roots/list_changed"] * 1000


# the proxy's own notifications/cancelled (a request waiting for the restarted server past
# --timeout: -31002, and the cancellation the proxy writes) is not the host's: the request it
# cancels, still queued, is taken back unsent (the host was told it timed out; it was sent to
# the restarted server later, then the cancellation, or the cancellation was dropped and noted as
# the proxy's), and the cancellation is not sent either, its record says so
# (test_proxy_taken_back.py): (the restarted server's answer to its replayed initialize; the
# host's notifications queued after its request; the records after the request's as (dir, kind,
# note))
PING_LINE = b'{"jsonrpc":"2.0","id":9,"method":"ping"}'  # 40 bytes
TAKEN_BACK = ("the host's request: cancelled by the proxy (no answer within 1 s) while the upstream was being "
              "restarted: taken back unsent")
OWN_ROWS = [
    ("restart-exits", "exit", 0, [("c2s", "error", TAKEN_BACK)]),
    ("queue-full", "answer", 999,
     [("c2s", "error", TAKEN_BACK),
      ("c2s", "open", "sent the restarted upstream the 999 frames the host sent while it was down")]),
]


@pytest.mark.parametrize(("second", "filler", "records"), [row[1:] for row in OWN_ROWS],
                         ids=[row[0] for row in OWN_ROWS])
def test_the_proxys_own_cancellation_for_a_restarting_upstream_is_in_the_frame_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str, filler: int,
        records: list[tuple[str, str, str]]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    peer = LinePeer([*PROXY, "--restart", "on-failure", "--max-restarts", "1", "--timeout", "1", "--log", str(log),
                     "--log-payloads", "--", *SERVER, second])
    try:
        assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
        peer.send(INITIALIZED)
        assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == -31001
        peer.send_raw(PING_LINE + b"\n" + (CHANGED_LINE + b"\n") * filler)
        expired = json.loads(peer.recv() or b"null")  # (the restarted server waits for "go")
        assert wait_until(lambda: any("notifications/cancelled" in r.get("data", "") for r in frame_records(log)),
                          TIMEOUT)
        (tmp_path / "go").touch()
        wait_until(lambda: len(after(log, _ping)) >= len(records), TIMEOUT)
    finally:
        (tmp_path / "go").touch()
        peer.close()
    assert (expired["id"], expired["error"]["code"]) == (9, -31002)
    assert after(log, _ping) == records
