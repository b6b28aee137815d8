"""A host request that waits for a restarting stdio upstream and is answered by the proxy
meanwhile (-31002 at ``--timeout``) is taken out of the queue unsent, through the real proxy (a
process) and a real stdio server (``restart_server.py hang``): the host was told the call timed
out, so the tool must not run afterwards on the new process; nor is the proxy's own
``notifications/cancelled`` for it sent (there is nothing to cancel). Its frame log says so: an
``error`` record (the request taken back unsent) and the cancellation's record noting it was
not sent. Before, the request stayed queued and the restarted process ran it (a write, after its
host gave up), followed by the proxy's cancellation.

README "The proxy": every frame in is forwarded, answered with an error, or noted as refused;
a call not answered within ``--timeout`` gets -31002. basic/utilities/cancellation: a
cancellation is sent for a request that was sent; JSON-RPC 2.0 s4: the id ``7`` and ``"7"`` are
two ids (the second request, ``"7"``, is still sent and answered).

The order is made certain by what happens first: the restarted process is silent to its
replayed ``initialize``; past the replay's deadline it is being stopped (it exits only once the
file ``exit`` exists), and the host's request, sent after the replay, reaches its own deadline
while it waits; once the host has its -31002, ``go`` (the next process answers its
``initialize``) and ``exit`` are made."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from ._peers import TIMEOUT, HttpHostPeer, LinePeer, host_through, proxy_http, wait_until
from ._restarting import (
    EXIT,
    INITIALIZE,
    INITIALIZED,
    LATE,
    after,
    cancellation_notes,
    frame_records,
    host_message,
    initialise,
    server_received,
    write,
)
from .test_proxy_replay_deadline import SERVER

TAKEN_BACK = ("the host's request: cancelled by the proxy (no answer within 3 s) while the upstream was being "
              "restarted: taken back unsent")
NOT_SENT = ("written by the proxy; not sent upstream: the request it cancels was taken back unsent (the upstream "
            "was being restarted)")
TIMED_OUT = (-31002, "mcp-verdict proxy: no answer within 3 s")
SENT_ONE = "sent the restarted upstream the 1 frame the host sent while it was down"
STARTS = ["1 notifications/initialized", "2 initialize", "3 initialize", "3 notifications/initialized"]


WRITE = host_message('"write"')
"""The host's first write."""


def _error(raw: bytes | None) -> tuple[int, str] | None:
    message = json.loads(raw or b"null")
    return (message["error"]["code"], message["error"]["message"]) if message and "error" in message else None


# (the host (its name: "http", else stdio); the id of the write answered at --timeout while
# queued; the id of a second write sent once that answer is in (None: none); the first write's
# answer (code, message); the second's (None: a result); the records after the first write's as
# (dir, kind, note); the proxy's cancellation records' notes; what the server received)
ROWS = [
    ("stdio", 7, None, TIMED_OUT, None,
     [("s2c", "error", LATE + ": stopping it (restarted next)"), ("c2s", "error", TAKEN_BACK)],
     [NOT_SENT], STARTS),
    ("stdio-id-types", 7, "7", TIMED_OUT, None,
     [("s2c", "error", LATE + ": stopping it (restarted next)"), ("c2s", "error", TAKEN_BACK),
      ("c2s", "open", SENT_ONE)],
     [NOT_SENT], [*STARTS, '3 tools/call write "7"']),
    ("stdio-string-id", "w", None, TIMED_OUT, None,
     [("s2c", "error", LATE + ": stopping it (restarted next)"), ("c2s", "error", TAKEN_BACK)],
     [NOT_SENT], STARTS),
    ("http", 7, "7", TIMED_OUT, None,
     [("s2c", "error", LATE + ": stopping it (restarted next)"), ("c2s", "error", TAKEN_BACK),
      ("c2s", "open", SENT_ONE)],
     [NOT_SENT], [*STARTS, '3 tools/call write "7"']),
]


@pytest.mark.parametrize(("side", "first", "second", "first_got", "second_got", "records", "notes", "received"),
                         ROWS, ids=[row[0] for row in ROWS])
def test_a_request_answered_at_the_timeout_while_queued_is_taken_back_unsent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, side: str, first: int | str, second: int | str | None,
        first_got: tuple[int, str], second_got: tuple[int, str] | None, records: list[tuple[str, str, str]],
        notes: list[str], received: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    options = ["--restart", "on-failure", "--max-restarts", "2", "--timeout", "3", "--grace", "30",
               "--log", str(log), "--log-payloads", "--", *SERVER]
    answers: list[bytes | None] = []

    def run(peer: LinePeer | HttpHostPeer) -> None:
        initialise(peer)
        assert _error(peer.exchange(EXIT))[0] == -31001  # type: ignore[index]
        assert wait_until(lambda: "2 initialize" in server_received(tmp_path), TIMEOUT)
        answers.append(peer.exchange(write(first)))  # (its -31002, the process being stopped)
        later = None
        if second is not None:
            if isinstance(peer, HttpHostPeer):
                later = threading.Thread(target=lambda: answers.append(peer.exchange(write(second))))
                later.start()
            else:
                peer.send(write(second))
            assert wait_until(lambda: sum('"write"' in r.get("data", "") for r in frame_records(log)) >= 2, TIMEOUT)
        (tmp_path / "go").touch()
        (tmp_path / "exit").touch()
        if later is not None:
            later.join(TIMEOUT)
        elif second is not None and isinstance(peer, LinePeer):
            answers.append(peer.recv())
        wait_until(lambda: len(server_received(tmp_path)) >= len(received) and len(after(log, WRITE)) >= len(records),
                   TIMEOUT)

    with host_through(side, options, tmp_path / "exit") as (peer, _):
        run(peer)
    got = (_error(answers[0]), _error(answers[1]) if second is not None else None)
    assert got == (first_got, second_got)
    assert (after(log, WRITE), cancellation_notes(log), server_received(tmp_path)) == (records, notes, received)


def test_a_queued_request_whose_http_host_closed_its_stream_is_taken_back_unsent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An HTTP host that closes its POST's stream while the request waits for the restarting
    server gives it up (its 1 s, before the proxy's 3 s): the proxy's cancellation takes it out of
    the queue unsent (it was sent to the restarted process later, then the cancellation)."""
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    options = ["--restart", "on-failure", "--max-restarts", "2", "--timeout", "3", "--grace", "30",
               "--log", str(log), "--log-payloads", "--", *SERVER]
    closed = ("the host's request: cancelled by the proxy (the host closed its stream) while the upstream was being "
              "restarted: taken back unsent")
    with proxy_http(options) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
            assert peer.post(INITIALIZED)[0] == 202
            assert _error(peer.exchange(EXIT))[0] == -31001  # type: ignore[index]
            assert wait_until(lambda: LATE in log.read_text(), TIMEOUT)  # (being stopped: restarted next)
            with pytest.raises(Exception, match="timed out"):  # (httpx's ReadTimeout: the stream closed)
                peer.post(write(7), timeout=1.0)
            assert wait_until(lambda: bool(cancellation_notes(log)), TIMEOUT)
            (tmp_path / "go").touch()
            (tmp_path / "exit").touch()
            wait_until(lambda: len(server_received(tmp_path)) >= len(STARTS), TIMEOUT)
        finally:
            (tmp_path / "exit").touch()
            peer.close()
    assert (after(log, WRITE), cancellation_notes(log), server_received(tmp_path)) == (
        [("c2s", "error", closed)], [NOT_SENT], STARTS)
