"""Host ids over one stdio upstream shared by several HTTP hosts: a cancellation that cannot be
told to be a host's, two requests renumbered from one host id, and a session reusing its own id,
through the real proxy (a process) and a real stdio server (``fault_server.py``: ``late`` answers
only once its call is cancelled, under the id the cancellation names; ``echo`` at once).

Over a stdio upstream, which sees every host on one connection, a request whose id another host
has in flight is sent under an id of the proxy's (``"mcp-verdict:<nonce>:<n>"``, README "The
proxy", HTTP). What tells hosts apart is their session (2025) — or, for a request of no session,
only the HTTP exchange it came in: a stateless POST stands alone, and ids are unique per host
only. So:

- a ``notifications/cancelled`` of no session cannot be told to be of the host of any request.
  Under 2026-07-28, closing a request's response stream is its cancellation and no
  notification is expected over HTTP (2026-07-28 basic/patterns/cancellation, Transport-Specific
  Cancellation; basic/transports/streamable-http, Cancellation): one naming an id some request
  has in flight is not sent (before: it was sent as written and cancelled whichever request
  waited under that id, possibly another host's, whose POST ended with no answer), and the
  stream's close cancels the request upstream under the id it was sent under. Under 2025 (the
  notification is the cancellation: 2025-11-25 basic/utilities/cancellation) one naming an id
  that several requests of no session have in flight is not sent either (before: as written, it
  cancelled the one sent under the host's id, or, with two renumbered from it, went on naming
  an id the server held for a session's request and cancelled that);
- a session's request whose id a request of its session has in flight gets -32600 and is not
  sent (MCP basic/index: an id is not reused while in flight in a session; JSON-RPC 2.0 s5.1),
  whether the earlier one went under its own id or under one of the proxy's. Before, the first
  was sent anyway (the server's answer to it went to the earlier request), the second
  renumbered again (two requests of one session under one id). Reused after its answer, an id
  is a plain new request (renumbered when another host's request has it in flight).

Over an HTTP upstream each request of no session whose id is in flight goes through a relay of
its own; a cancellation of no session went through the first, which stopped awaiting its request
with that id and closed its upstream stream, whichever host's (its POST ended with no answer).
Now, with requests of no session with that id in flight, none is taken to be the one it
cancels: it is not sent, under 2026-07-28 and under 2025 when several are, and each request is
still awaited (here: -31002 at ``--timeout``); under 2025 one alone is cancelled as before.

Hosts ``a`` and ``b`` post with no session (the row's ``MCP-Protocol-Version``); ``s`` is in a
2025-06-18 session (initialised first). Each row's last step (stdio upstream) is ``a``'s
``echo`` (id 6)."""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from mcp_verdict.frames import sse_events
from tests.processes import port_server

from ._peers import TIMEOUT, HttpHostPeer, proxy_http, wait_until
from ._restarting import frame_records, host_message
from .test_proxy_faults import INIT, SERVER, tool
from .test_proxy_host_cancel_in_flight import INITIALIZED, LATE, LATE_CLOSED, NO_LONGER, STATUS_SERVER
from .test_proxy_host_cancel_queued import cancel
from .test_proxy_http_edges import _routing

SENT_1 = "mcp-verdict:<nonce>:1"
SENT_2 = "mcp-verdict:<nonce>:2"
"""The proxy's first ids (its nonce is random: shown as ``<nonce>``)."""
PROXY = "written by the proxy"
"""The note of the proxy's own cancellation (its host closed the request's stream)."""
RENAMED = (f'the host\'s requestId 5 is the id of its request sent upstream as "{SENT_1}": sent upstream naming '
           f"that id; {NO_LONGER}")
STATELESS_1 = ("not sent upstream: it is of no session, and 1 request of no session with requestId 5 is in flight, "
               "which it cannot be told to be of (2026-07-28: closing a request's response stream is its "
               "cancellation)")
STATELESS_2 = ("not sent upstream: it is of no session, and 2 requests of no session with requestId 5 are in flight, "
               "which it cannot be told to be of (2026-07-28: closing a request's response stream is its "
               "cancellation)")
SEVERAL = ("not sent upstream: 2 requests of no session with requestId 5 are in flight; which one it cancels cannot "
           "be told")
REUSED = ("not forwarded: a request of the host's session with the same id is in flight (the host reused the id "
          "before its answer came)")
NOTHING = "nothing"
"""A POST that ended with no answer (its host's cancellation was applied)."""
CLOSED = "closed"
"""A POST whose stream its host closed."""
ECHOED = (200, 6, None)
IN_FLIGHT = (200, 5, -32600)

# (row; the hosts' of no session MCP-Protocol-Version; the steps: (host, "late" | "echo" |
# "cancel" | "close", id); what each POST of "late" and "echo" got, in step order: (status, id,
# error code), NOTHING or CLOSED; the cancellations sent upstream as (requestId, note); the
# refused records' notes)
ROWS: list[tuple[str, str, list[tuple[str, str, int]], list[Any], list[tuple[Any, str | None]], list[str]]] = [
    # 2026-07-28: a's 5 under 5, b's under the proxy's id; neither cancellation is sent (before:
    # b's cancelled a's request, a's then b's), each stream's close cancels its own request
    ("2026-two-hosts-one-id", "2026-07-28",
     [("a", "late", 5), ("b", "late", 5), ("b", "cancel", 5), ("a", "cancel", 5), ("b", "close", 5),
      ("a", "close", 5), ("a", "echo", 6)],
     [CLOSED, CLOSED, ECHOED], [(5, STATELESS_2), (5, STATELESS_2), (SENT_1, PROXY), (5, PROXY)],
     [LATE_CLOSED, LATE_CLOSED]),
    # alone with its id: not sent either (it cannot be told to be a's); the close cancels it
    ("2026-alone", "2026-07-28",
     [("a", "late", 5), ("a", "cancel", 5), ("a", "close", 5), ("a", "echo", 6)],
     [CLOSED, ECHOED], [(5, STATELESS_1), (5, PROXY)], [LATE_CLOSED]),
    # an id no request has in flight: as written (the server ignores it)
    ("2026-unknown-id", "2026-07-28",
     [("a", "late", 5), ("b", "cancel", 7), ("a", "close", 5), ("a", "echo", 6)],
     [CLOSED, ECHOED], [(7, None), (5, PROXY)], [LATE_CLOSED]),
    # 2025, two hosts of no session with one id in flight: which one is cancelled cannot be told
    # (before: a's cancellation was sent as written, and b's named b's renumbered request; a
    # cancellation from b first would have cancelled a's)
    ("2025-no-session-two-hosts-one-id", "2025-06-18",
     [("a", "late", 5), ("b", "late", 5), ("a", "cancel", 5), ("b", "cancel", 5), ("a", "close", 5),
      ("b", "close", 5), ("a", "echo", 6)],
     [CLOSED, CLOSED, ECHOED], [(5, SEVERAL), (5, SEVERAL), (5, PROXY), (SENT_1, PROXY)],
     [LATE_CLOSED, LATE_CLOSED]),
    # two requests renumbered from one host id (s's 5 under 5): a's cancellation is not sent
    # (before: it went on naming 5, and cancelled s's request); s's own then cancels s's
    ("2025-two-renumbered-from-one-id", "2025-06-18",
     [("s", "late", 5), ("a", "late", 5), ("b", "late", 5), ("a", "cancel", 5), ("s", "cancel", 5),
      ("a", "close", 5), ("b", "close", 5), ("a", "echo", 6)],
     [NOTHING, CLOSED, CLOSED, ECHOED], [(5, SEVERAL), (5, NO_LONGER), (SENT_1, PROXY), (SENT_2, PROXY)],
     [LATE, LATE_CLOSED, LATE_CLOSED]),
    # a session reusing its id in flight (sent under its own id): -32600, not sent (before: sent,
    # and the server's answer to it went to the earlier request)
    ("session-reuses-its-id-in-flight", "2025-06-18",
     [("s", "late", 5), ("s", "echo", 5), ("s", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, IN_FLIGHT, ECHOED], [(5, NO_LONGER)], [REUSED, LATE]),
    # ... sent under the proxy's id (a's 5 in flight): -32600, not sent (before: renumbered again,
    # two requests of the session under one id)
    ("session-reuses-its-renumbered-id-in-flight", "2025-06-18",
     [("a", "late", 5), ("s", "late", 5), ("s", "echo", 5), ("s", "cancel", 5), ("a", "cancel", 5),
      ("a", "echo", 6)],
     [NOTHING, NOTHING, IN_FLIGHT, ECHOED], [(SENT_1, RENAMED), (5, NO_LONGER)], [REUSED, LATE, LATE]),
    # reused once answered: a plain new request, renumbered again while a's 5 is in flight
    ("session-reuses-its-renumbered-id-after-its-answer", "2025-06-18",
     [("a", "late", 5), ("s", "echo", 5), ("s", "echo", 5), ("a", "cancel", 5), ("a", "echo", 6)],
     [NOTHING, (200, 5, None), (200, 5, None), ECHOED], [(5, NO_LONGER)], [LATE]),
    ("session-reuses-its-id-after-its-answer", "2025-06-18",
     [("s", "echo", 5), ("s", "echo", 5), ("a", "echo", 6)],
     [(200, 5, None), (200, 5, None), ECHOED], [], []),
]


@pytest.mark.parametrize(("version", "steps", "posted", "cancellations", "refused"), [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_host_ids_over_one_stdio_upstream(
        tmp_path: Path, version: str, steps: list[tuple[str, str, int]], posted: list[Any],
        cancellations: list[tuple[Any, str | None]], refused: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    options = ["--timeout", "10", "--log", str(log), "--log-payloads", "--", *SERVER]
    got: dict[int, Any] = {}
    calls: list[threading.Thread] = []
    open_posts: dict[tuple[str, int], http.client.HTTPConnection] = {}
    with proxy_http(options) as (url, _):
        hosts = {name: HttpHostPeer(url) for name in ("a", "b", "s")}
        try:
            assert json.loads(hosts["s"].exchange(INIT) or b"null")["id"] == 0
            assert hosts["s"].post(INITIALIZED)[0] == 202
            for index, (name, what, request_id) in enumerate(steps):
                peer = hosts[name]
                headers = {"mcp-protocol-version": version} if name != "s" else {"mcp-session-id": peer.session or ""}
                if what in ("cancel", "close"):
                    seen = len(_cancellations(log)) + 1
                    if what == "cancel":
                        assert peer.post(cancel(request_id), headers=headers if name != "s" else None)[0] == 202
                    else:  # (the host gives up the POST's stream: the connection's end)
                        sock = open_posts.pop((name, request_id)).sock
                        assert sock is not None
                        sock.shutdown(socket.SHUT_RDWR)
                    assert wait_until(lambda seen=seen: len(_cancellations(log)) >= seen, TIMEOUT)
                    continue
                connection = http.client.HTTPConnection(urlsplit(url).netloc, timeout=TIMEOUT)
                open_posts[(name, request_id)] = connection
                call = threading.Thread(target=_post, args=(connection, urlsplit(url).path,
                                                            tool(request_id, what), headers, got, index))
                call.start()
                calls.append(call)
                if what != "late":  # (answered at once: before the next step)
                    call.join(TIMEOUT)
                    open_posts.pop((name, request_id)).close()
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
            for connection in open_posts.values():
                connection.close()
    assert ([got.get(index) for index, step in enumerate(steps) if step[1] not in ("cancel", "close")],
            _cancellations(log), _refused(log)) == (posted, cancellations, refused)


TIMED_OUT = (200, 5, -31002)

# (row; the MCP-Protocol-Version of hosts a and b; the steps: (host, "hang", "wait", "release" or
# "cancel", id); what each POST of a tool got, in step order; the host's cancellations as (requestId, note))
HTTP_ROWS: list[tuple[str, str, list[tuple[str, str, int]], list[Any], list[tuple[Any, str | None]]]] = [
    # before: b's cancellation went through a's relay, and a's POST ended with no answer
    ("2026-two-hosts-one-id", "2026-07-28", [("a", "hang", 5), ("b", "hang", 5), ("b", "cancel", 5)],
     [TIMED_OUT, TIMED_OUT], [(5, STATELESS_2)]),
    ("2026-alone", "2026-07-28", [("a", "hang", 5), ("a", "cancel", 5)], [TIMED_OUT], [(5, STATELESS_1)]),
    ("2025-two-hosts-one-id", "2025-06-18", [("a", "hang", 5), ("b", "hang", 5), ("b", "cancel", 5)],
     [TIMED_OUT, TIMED_OUT], [(5, SEVERAL)]),
    # one alone: applied (as before)
    ("2025-alone", "2025-06-18", [("a", "hang", 5), ("a", "cancel", 5)], [NOTHING], [(5, NO_LONGER)]),
    # one alone in a stateless relay other than the first (b's went through a second relay while
    # a's 5 was in flight; a's is answered since): applied there (before: it went through the
    # first relay, which awaits no 5, and b's POST got -31002 at --timeout)
    ("2025-alone-in-a-second-relay", "2025-06-18",
     [("a", "wait", 5), ("b", "hang", 5), ("a", "release", 7), ("b", "cancel", 5)],
     [(200, 5, None), NOTHING, (200, 7, None)], [(5, NO_LONGER)]),
]


@pytest.mark.parametrize(("version", "steps", "posted", "cancellations"), [row[1:] for row in HTTP_ROWS],
                         ids=[row[0] for row in HTTP_ROWS])
def test_a_cancellation_of_no_session_over_an_http_upstream(
        tmp_path: Path, version: str, steps: list[tuple[str, str, int]], posted: list[Any],
        cancellations: list[tuple[Any, str | None]]) -> None:
    log = tmp_path / "frames.jsonl"
    got: dict[int, Any] = {}
    calls: list[threading.Thread] = []
    connections: list[http.client.HTTPConnection] = []
    options = ["--timeout", "3", "--log", str(log), "--log-payloads"]
    with port_server([*STATUS_SERVER, "sse"]) as base, proxy_http([*options, "--upstream", base + "/mcp"]) as (url, _):
        peer = HttpHostPeer(url)
        headers = {"mcp-protocol-version": version}
        try:
            for index, (_name, what, request_id) in enumerate(steps):
                if what == "cancel":
                    assert peer.post(cancel(request_id), headers=headers)[0] == 202
                    continue
                connection = http.client.HTTPConnection(urlsplit(url).netloc, timeout=TIMEOUT)
                connections.append(connection)
                call = threading.Thread(target=_post, args=(connection, urlsplit(url).path,
                                                            tool(request_id, what), headers, got, index))
                call.start()
                calls.append(call)
                if what == "release":  # (answered at once, and so is every "wait" before it)
                    for earlier, step in zip(calls, [s for s in steps if s[1] != "cancel"], strict=False):
                        if step[1] in ("wait", "release"):
                            earlier.join(TIMEOUT)
                    continue
                count = len(calls)
                assert wait_until(lambda count=count: len([r for r in frame_records(log)
                                                           if host_message('"tools/call"')(r)]) >= count, TIMEOUT)
            for call in calls:
                call.join(TIMEOUT)
        finally:
            peer.close()
            for connection in connections:
                connection.close()
    assert ([got.get(index) for index, step in enumerate(steps) if step[1] != "cancel"],
            [c for c in _cancellations(log) if not (c[1] or "").startswith(PROXY)]) == (posted, cancellations)


def _post(connection: http.client.HTTPConnection, path: str, message: dict[str, Any], headers: dict[str, str],
          got: dict[int, Any], index: int) -> None:
    """POST ``message`` on a connection of its own (the test may end it: CLOSED); its answer as
    (status, id, error code), or NOTHING for an event stream with no event."""
    body = json.dumps(message).encode()
    routing = _routing(body) if any(k.lower() == "mcp-protocol-version" and v >= "2026" for k, v in headers.items()) \
        else {}  # (the Mcp-Method and Mcp-Name headers a 2026-07-28 host sends)
    sent = {"content-type": "application/json", "accept": "application/json, text/event-stream", **routing, **headers}
    try:
        connection.request("POST", path, body, sent)
        response = connection.getresponse()
        body = response.read()
    except (OSError, http.client.HTTPException):
        got[index] = CLOSED
        return
    if (response.getheader("content-type") or "").startswith("text/event-stream"):
        events = [e.data for e in sse_events(body)]
        if not events:
            got[index] = NOTHING
            return
        body = events[-1]
    answer = json.loads(body)
    got[index] = (response.status, answer["id"], answer["error"]["code"] if "error" in answer else None)


def _nonce(text: Any) -> Any:
    return re.sub(r"mcp-verdict:[0-9a-f]+:", "mcp-verdict:<nonce>:", text) if isinstance(text, str) else text


def _cancellations(log: Path) -> list[tuple[Any, str | None]]:
    """Every ``notifications/cancelled`` toward the server, the host's and the proxy's own, as
    (requestId, note)."""
    return [(_nonce(json.loads(r["data"])["params"]["requestId"]), _nonce(r.get("note")))
            for r in frame_records(log) if host_message("notifications/cancelled")(r)]


def _refused(log: Path) -> list[str]:
    return [r.get("note", "") for r in frame_records(log) if r["kind"] == "refused"]
