"""A stateless HTTP host's own ``notifications/cancelled`` for a request the proxy sent to its
stdio upstream under an id of its own, through the real proxy (a process) and a real stdio
server (``fault_server.py``: ``late`` answers only once its call is cancelled, under the id the
cancellation names).

Over a stdio upstream, which sees every host on one connection, a stateless request (no
``Mcp-Session-Id``) whose id another host has in flight is sent under an id of the proxy's
(``"mcp-verdict:<nonce>:<n>"``, README "The proxy", HTTP). Its host's cancellation names the
host's id (MCP basic/utilities/cancellation, 2025-11-25: ``params.requestId`` is "the ID of the
request to cancel", as its sender issued it). Before, it went upstream as written, naming an id
the server never saw for that request (the server ran on), and the proxy kept awaiting the
request (-31002 at ``--timeout``). Now it goes upstream naming the id the request was sent under
(only ``requestId``'s bytes replaced: its reason kept), the proxy stops awaiting the request
(its POST ends with no answer, as for any request its host cancels in flight), and the record
says both. A cancellation naming an id the proxy does not know, and one for a request sent
under its host's own id (in a session, or a 2025 request of no session alone with its id), goes
on as written; one naming only another host's request in flight (another session's; a
session's, for a stateless host) is not sent: the server would cancel that request (before, it
did, and the proxy stopped awaiting it: its host's POST ended with no answer). One of no session
that several requests of no session could be the target of (which host sent it cannot be told),
and a 2026-07-28 one: test_proxy_host_ids_shared.py.

The same holds between 2025 sessions, each its own connection whose ids are its own (MCP
basic/index: an id unique among the sender's requests in its session): a request of a session
whose id another host has in flight is sent under an id of the proxy's too. Before, it was sent
under its own id, answered -32600 (as if its host had reused an id in flight), and the first
answer to the id went to the other host: a session got another session's answer. So is an
``initialize`` whose id another host has in flight.

Hosts: ``a`` and ``b`` post with no session (each with the row's ``MCP-Protocol-Version``),
``s`` and ``t`` each in a 2025-06-18 session (initialised first), ``u`` initialises in a step.
Each row's last step is ``a``'s ``echo`` (id 6), answered."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from ._peers import TIMEOUT, HttpHostPeer, proxy_http, wait_until
from ._restarting import frame_records, host_message
from .test_proxy_faults import INIT, SERVER, tool
from .test_proxy_host_cancel_in_flight import INITIALIZED, LATE, NO_LONGER, NOTHING
from .test_proxy_host_cancel_queued import cancel

SENT_1 = "mcp-verdict:<nonce>:1"
"""The first id of the proxy's (its nonce is random: shown as ``<nonce>``)."""
RENAMED = (f'the host\'s requestId 5 is the id of its request sent upstream as "{SENT_1}": sent upstream naming '
           f"that id; {NO_LONGER}")
OTHERS = ("not sent upstream: no request of the host's with requestId 5 is in flight; another host's is, which the "
          "upstream would cancel")
UNWRITTEN = (f'not sent upstream: the host\'s requestId 5 is the id of its request sent upstream as "{SENT_1}", and '
             f"its cancellation could not be written naming that id (no requestId member shows as written in "
             f"{{size}} bytes)")
ESCAPED_REASON = 70_000
"""A cancellation whose ``requestId`` is named with an escape (``request\\u0049d``) and whose
reason is this long: past what ``_codes.with_request_id`` writes anew (64 KiB)."""
ECHOED = (200, 6, None)
"""The POST of ``echo`` (id 6): its answer, under the host's id."""

# (row; the stateless hosts' MCP-Protocol-Version; the steps: (host, "late" or "cancel" or
# "echo", id); what each POST of "late" got, in step order: (status, id, error code) or NOTHING;
# the cancellations sent upstream as (requestId, note); the refused records' notes)
ROWS: list[tuple[str, str, list[tuple[str, str, int]], list[Any], list[tuple[Any, str | None]], list[str]]] = [
    # (two hosts of no session with one id in flight: test_proxy_host_ids_shared.py — which
    # host's request a cancellation of no session names cannot be told)
    # not renumbered (unchanged): a session's request, a stateless one alone with its id
    ("2025-session", "2025-06-18",
     [("s", "late", 5), ("s", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, ECHOED], [(5, NO_LONGER)], [LATE]),
    ("2025-no-session-alone", "2025-06-18",
     [("a", "late", 5), ("a", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, ECHOED], [(5, NO_LONGER)], [LATE]),
    # two sessions: t's 5 is sent as the proxy's id (s's 5 is in flight)
    ("2025-two-sessions-renumbered", "2025-06-18",
     [("s", "late", 5), ("t", "late", 5), ("s", "cancel", 5), ("t", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, NOTHING, ECHOED], [(5, NO_LONGER), (SENT_1, RENAMED)], [LATE, LATE]),
    # t's answer to its 5 reaches t (it went to s, and t got -32600)
    ("2025-two-sessions-each-its-answer", "2025-06-18",
     [("s", "late", 5), ("t", "echo", 5), ("s", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, (200, 5, None), ECHOED], [(5, NO_LONGER)], [LATE]),
    # a stateless host's cancellation of its renumbered 5 while a session's 5 waits (no stateless
    # host's): under the proxy's id (it cancelled the session's); then the session's own
    ("2025-stateless-while-a-session-waits", "2025-06-18",
     [("s", "late", 5), ("a", "late", 5), ("a", "cancel", 5), ("s", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, NOTHING, ECHOED], [(SENT_1, RENAMED), (5, NO_LONGER)], [LATE, LATE]),
    # a cancellation naming only another host's request (t has no 5 in flight; a stateless host
    # none of no session): not sent, that request still awaited (it was cancelled, s's POST ended
    # with no answer, and s's own cancellation then went upstream unknown)
    ("2025-session-names-another-sessions-id", "2025-06-18",
     [("s", "late", 5), ("t", "cancel", 5), ("a", "cancel", 5), ("s", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, ECHOED], [(5, OTHERS), (5, OTHERS), (5, NO_LONGER)], [LATE]),
    # t's cancellation of its renumbered 5 names it with an escape, past 64 KiB: not sent (as
    # written it names s's 5 upstream); t's plain one then goes under the proxy's id
    ("2025-escaped-name-past-64-KiB", "2025-06-18",
     [("s", "late", 5), ("t", "late", 5), ("t", "escaped", 5), ("t", "cancel", 5), ("s", "cancel", 5),
      ("a", "echo", 6)],
     [NOTHING, NOTHING, ECHOED], [(5, "UNWRITTEN"), (SENT_1, RENAMED), (5, NO_LONGER)], [LATE, LATE]),
    # an initialize whose id another host has in flight gets its answer (it went to s)
    ("2025-initialize-renumbered", "2025-06-18",
     [("s", "late", 5), ("u", "init", 5), ("s", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, (200, 5, None), ECHOED], [(5, NO_LONGER)], [LATE]),
]


@pytest.mark.parametrize(("version", "steps", "posted", "cancellations", "refused"), [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_a_cancellation_names_the_id_its_request_was_sent_under(
        tmp_path: Path, version: str, steps: list[tuple[str, str, int]], posted: list[Any],
        cancellations: list[tuple[Any, str | None]], refused: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    options = ["--timeout", "10", "--log", str(log), "--log-payloads", "--", *SERVER]
    got: dict[int, Any] = {}
    calls: list[threading.Thread] = []
    with proxy_http(options) as (url, _):
        hosts = {name: HttpHostPeer(url) for name in ("a", "b", "s", "t", "u")}
        try:
            for name in ("s", "t"):
                assert json.loads(hosts[name].exchange(INIT) or b"null")["id"] == 0
                assert hosts[name].post(INITIALIZED)[0] == 202
            stateless = {"mcp-protocol-version": version}
            for index, (name, what, request_id) in enumerate(steps):
                peer = hosts[name]
                headers = stateless if name in ("a", "b") else None
                if what in ("cancel", "escaped"):
                    seen = len(_cancellations(log)) + 1
                    assert peer.post(cancel(request_id) if what == "cancel" else _escaped(request_id),
                                     headers=headers)[0] == 202
                    assert wait_until(lambda seen=seen: len(_cancellations(log)) >= seen, TIMEOUT)
                    continue
                message = {**INIT, "id": request_id} if what == "init" else tool(request_id, what)
                call = threading.Thread(target=_post, args=(peer, message, headers, got, index))
                call.start()
                calls.append(call)
                if what != "late":  # (answered at once: before the next step)
                    call.join(TIMEOUT)
                else:  # (in flight upstream before the next step)
                    count = sum(1 for s in steps[:index + 1] if s[1] == "late")
                    assert wait_until(lambda count=count: len([r for r in frame_records(log)
                                                               if host_message('"late"')(r)]) >= count, TIMEOUT)
            for call in calls:
                call.join(TIMEOUT)
            wait_until(lambda: len(_refused(log)) >= len(refused), TIMEOUT)
        finally:
            for peer in hosts.values():
                peer.close()
    size = len(_escaped(5))
    cancellations = [(named, UNWRITTEN.format(size=size) if note == "UNWRITTEN" else note)
                     for named, note in cancellations]
    assert ([got.get(index) for index, step in enumerate(steps) if step[1] not in ("cancel", "escaped")],
            _cancellations(log), _refused(log)) == (posted, cancellations, refused)


def _escaped(request_id: int) -> bytes:
    """A host's cancellation of ``request_id`` naming ``requestId`` with an escape, its reason
    :data:`ESCAPED_REASON` bytes long."""
    return (b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"request\\u0049d":%d,"reason":"%s"}}'
            % (request_id, b"x" * ESCAPED_REASON))


def _post(peer: HttpHostPeer, message: dict[str, Any], headers: dict[str, str] | None, got: dict[int, Any],
          index: int) -> None:
    status, body, events = peer.post(message, headers=headers)
    if body is None:
        got[index] = (status, body, events)
        return
    answer = json.loads(body)
    got[index] = (status, answer["id"], answer["error"]["code"] if "error" in answer else None)


def _nonce(text: Any) -> Any:
    return re.sub(r"mcp-verdict:[0-9a-f]+:", "mcp-verdict:<nonce>:", text) if isinstance(text, str) else text


def _cancellations(log: Path) -> list[tuple[Any, str | None]]:
    """The host's ``notifications/cancelled`` as they went upstream: (requestId, note)."""
    return [(_nonce(json.loads(r["data"])["params"]["requestId"]), _nonce(r.get("note")))
            for r in frame_records(log) if host_message("notifications/cancelled")(r)
            and "written by the proxy" not in (r.get("note") or "")]


def _refused(log: Path) -> list[str]:
    return [r.get("note", "") for r in frame_records(log) if r["kind"] == "refused"]
