"""What the frame log says of an HTTP host's ``notifications/cancelled`` through the real proxy (a
process) to a real aiohttp upstream (``headers_server.py``, which records what it receives) or a
raw-socket one that never answers (``broken_http_server.py stall``).

basic/utilities/cancellation: before 2026-07-28 a request is cancelled by the notification;
2026-07-28 over HTTP, by closing the request's stream: no notification goes upstream. README "The
proxy": the frame log says what really happened to each frame. The host's frame keeps its
``message`` record (the audit counts it as a notification, as before), with a note when it was
not sent on; it had none, so the log showed it forwarded. One of no session naming a request in
flight is not applied either (it cannot be told to come from that request's host: the stream's
close is the cancellation)."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from mcp_verdict.audit import audit_files
from tests.processes import port_server

from ._peers import TIMEOUT, proxy_http, wait_until
from ._restarting import frame_records
from .test_proxy_upstream_headers import _headers_server

BROKEN = [sys.executable, str(Path(__file__).with_name("broken_http_server.py"))]
CANCEL = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}'
PING = b'{"jsonrpc":"2.0","id":3,"method":"ping"}'
WITHHELD = "not sent upstream: 2026-07-28 cancels a request by closing its stream ("


@contextlib.contextmanager
def _upstream(kind: str) -> Iterator[str]:
    if kind == "headers":
        with _headers_server() as url:
            yield url
    else:
        with port_server([*BROKEN, "stall"]) as base:
            yield base + "/mcp"


_records = frame_records  # (its complete lines: the proxy may be writing the next)


# (the upstream; the host's MCP-Protocol-Version; whether a request (ping, id 3) is in flight;
# whether the host cancels it; the notes of the cancellations' records, the host's and the proxy's
# own at --timeout, in order; the POSTs the upstream received (None: not recorded); the audit's
# lines (each line of the log) and notifications)
OWN = "written by the proxy; " + WITHHELD  # (a 2025 host's: POSTed, test_proxy_upstream_headers)
UNTOLD = ("not sent upstream: it is of no session, and 1 request of no session with requestId 3 is in flight, which "
          "it cannot be told to be of (2026-07-28: closing a request's response stream is its cancellation)")
ROWS = [
    ("2026-no-stream", "headers", "2026-07-28", False, True, [WITHHELD + "no stream of it was open)"], [], 1, 1),
    # (a POST of no session cannot be told to come from the host of the request it names: not
    # applied either, the request awaited until the host closes its stream, here --timeout)
    ("2026-stream-open", "stall", "2026-07-28", True, True, [UNTOLD, OWN + "its stream closed)"], None, 4, 2),
    ("2025-sent", "headers", "2025-11-25", False, True, [None], ["POST"], 1, 1),
    ("own-at-timeout", "stall", "2026-07-28", True, False, [OWN + "its stream closed)"], None, 3, 1),
]


@pytest.mark.parametrize(("upstream_kind", "version", "in_flight", "cancels", "notes", "seen", "lines",
                          "notifications"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_an_http_hosts_cancellation_is_recorded_as_what_became_of_it(
        tmp_path: Path, upstream_kind: str, version: str, in_flight: bool, cancels: bool, notes: list[str | None],
        seen: list[str] | None, lines: int, notifications: int) -> None:
    log = tmp_path / "frames.jsonl"
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": version}
    with _upstream(upstream_kind) as upstream, \
            proxy_http(["--upstream", upstream, "--timeout", "2", "--log", str(log), "--log-payloads"]) as (url, _), \
            httpx2.Client(timeout=TIMEOUT) as client:
        if in_flight:
            request = threading.Thread(target=lambda: client.post(url, content=PING, headers=headers))
            request.start()
            assert wait_until(lambda: any(r.get("data") == PING.decode() for r in _records(log)), TIMEOUT)
        status = client.post(url, content=CANCEL, headers=headers).status_code if cancels else 202
        if in_flight:
            request.join(TIMEOUT)
        got = [method for method, _ in client.get(upstream.replace("/mcp", "/seen")).json()] \
            if upstream_kind == "headers" else None
    cancelled = [(r["dir"], r["kind"], r.get("note")) for r in _records(log)
                 if "notifications/cancelled" in r.get("data", "")]
    assert (status, cancelled, got) == (202, [("c2s", "message", note) for note in notes], seen)
    _, totals, entries = audit_files([str(log)])
    list(entries)
    assert (totals.lines, totals.tally["notification"]) == (len(log.read_text().splitlines()), notifications)
    assert totals.lines == lines
