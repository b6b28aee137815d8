"""A host's own ``notifications/cancelled`` for a request still waiting for a restarting stdio
upstream takes that request out of the queue unsent, through the real proxy (a process) and a
real stdio server (``restart_server.py hang``): MCP basic/utilities/cancellation — the receiver
should stop processing the request, the sender ignores any later response — so a cancelled
write must not run on the new process; nor is the cancellation sent (there is nothing to
cancel). Its frame log says so: an ``error`` record (the request taken back unsent, cancelled by
its host) and the cancellation's record noting it was not sent. The host is answered at once,
-31004 under the request's id (an HTTP host's POST ends; a stdio host ignores it, as MCP says),
and nothing more is awaited for it (no -31002 at ``--timeout``). Before, the request and then
the cancellation were sent to the restarted process, which ran the write and answered it.

JSON-RPC 2.0 s4: the id ``7`` and ``"7"`` are two ids (a cancellation of ``7`` leaves ``"7"``
queued: it is sent and runs).

The order is made certain by what happens first: the restarted process is silent to its
replayed ``initialize``; past the replay's deadline it is being stopped (it exits only once the
file ``exit`` exists), and the host's requests and cancellation, sent then, wait for the next
process; once the cancellation's record is in the frame log, ``go`` (the next process answers
its ``initialize``) and ``exit`` are made; once it has the host's ``notifications/initialized``
(the queue is sent right after), a last write (id 8) is answered."""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ._peers import TIMEOUT, HttpHostPeer, host_through, wait_until
from ._restarting import (
    EXIT,
    LATE,
    after,
    cancellation_notes,
    frame_records,
    initialise,
    server_received,
    write,
)
from .test_proxy_replay_deadline import SERVER
from .test_proxy_taken_back import STARTS, WRITE

TAKEN_BACK = ("the host's request: cancelled by its host while the upstream was being restarted: taken back "
              "unsent")
NOT_SENT = "not sent upstream: the request it cancels was taken back unsent (the upstream was being restarted)"
SENT_ONE = "sent the restarted upstream the 1 frame the host sent while it was down"
LAST = 8


def cancel(request_id: int | str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": request_id, "reason": "the user gave up"}}


def _answers(log: Path) -> list[Any]:
    """The ids (as JSON) of the answers the host was written, past the session's first two."""
    ids = [json.loads(r["data"]).get("id") for r in frame_records(log)
           if r["kind"] == "message" and r["dir"] == "s2c" and '"id"' in r.get("data", "")]
    return ids[2:]


# (the host; the ids of the writes queued; the id its host cancels; the records after the first
# write's as (dir, kind, note); the notes of the cancellations' records; the ids the host was
# answered (the proxy's log); what the server received)
ROWS = [
    ("stdio", [7], 7, [("c2s", "error", TAKEN_BACK)], [NOT_SENT], [7, LAST],
     [*STARTS, "3 tools/call write 8"]),
    ("stdio-id-types", [7, "7"], 7, [("c2s", "error", TAKEN_BACK), ("c2s", "open", SENT_ONE)], [NOT_SENT],
     [7, "7", LAST], [*STARTS, '3 tools/call write "7"', "3 tools/call write 8"]),
    ("stdio-string-id", ["w"], "w", [("c2s", "error", TAKEN_BACK)], [NOT_SENT],
     ["w", LAST], [*STARTS, "3 tools/call write 8"]),
    ("http", [7], 7, [("c2s", "error", TAKEN_BACK)], [NOT_SENT], [7, LAST],
     [*STARTS, "3 tools/call write 8"]),
]


@pytest.mark.parametrize(("side", "queued", "cancelled", "records", "notes", "answered", "received"), ROWS,
                         ids=[row[0] for row in ROWS])
def test_a_queued_request_its_host_cancels_is_taken_back_unsent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, side: str, queued: list[int | str], cancelled: int | str,
        records: list[tuple[str, str, str]], notes: list[str], answered: list[Any], received: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    options = ["--restart", "on-failure", "--max-restarts", "2", "--timeout", "3", "--grace", "30",
               "--log", str(log), "--log-payloads", "--", *SERVER]
    posts: list[threading.Thread] = []

    with host_through(side, options, tmp_path / "exit") as (peer, _):
        initialise(peer)
        assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == -31001
        assert wait_until(lambda: LATE in log.read_text(), TIMEOUT)  # (being stopped: restarted next)
        for number, request_id in enumerate(queued, 1):
            if isinstance(peer, HttpHostPeer):  # (its POST waits, answered once the host cancels)
                posts.append(threading.Thread(target=_post_gives_up, args=(peer, write(request_id))))
                posts[-1].start()
            else:
                peer.send(write(request_id))
            assert wait_until(lambda n=number: sum('"write"' in r.get("data", "") for r in frame_records(log)) >= n,
                              TIMEOUT)
        if isinstance(peer, HttpHostPeer):
            assert peer.post(cancel(cancelled))[0] == 202
        else:
            peer.send(cancel(cancelled))
        assert wait_until(lambda: bool(cancellation_notes(log)), TIMEOUT)
        (tmp_path / "go").touch()
        (tmp_path / "exit").touch()
        assert wait_until(lambda: "3 notifications/initialized" in server_received(tmp_path), TIMEOUT)
        if isinstance(peer, HttpHostPeer):
            assert json.loads(peer.exchange(write(LAST)) or b"null")["id"] == LAST
        else:
            peer.send(write(LAST))
            for _ in range(len(queued) + 1):
                if json.loads(peer.recv() or b"null").get("id") == LAST:
                    break
        wait_until(lambda: len(server_received(tmp_path)) >= len(received), TIMEOUT)
    for post in posts:
        post.join(TIMEOUT)
    assert (after(log, WRITE), cancellation_notes(log), _answers(log), server_received(tmp_path)) == (
        records, notes, answered, received)


def _post_gives_up(peer: HttpHostPeer, message: dict[str, Any]) -> None:
    with contextlib.suppress(httpx2.TransportError):  # (the host gives up the call it cancelled, or closes)
        peer.post(message, timeout=6.0)
