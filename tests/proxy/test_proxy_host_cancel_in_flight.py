"""A host's own ``notifications/cancelled`` for a request the proxy has already sent upstream:
the proxy sends it on, stops awaiting the request and sends the host nothing for it, through
the real proxy (a process) on each pair of transports, to real servers: ``fault_server.py``
(stdio: ``hang`` never answers, ``late`` answers only once its call is cancelled) and
``status_http_server.py sse`` (aiohttp, a 2025-06-18 session: ``hang`` holds its SSE stream open
with no answer).

MCP basic/utilities/cancellation (2025-11-25; 2026-07-28 basic/patterns/cancellation): the
receiver SHOULD stop processing the request and not send a response; the sender SHOULD ignore
any response that arrives afterward — a server may send none. Before, the proxy kept awaiting
it: the host got -31002 at ``--timeout`` (or -31001 when the upstream closed), and a late answer
was forwarded as the answer. Now the cancellation's record says the proxy no longer awaits the
request; a late answer is refused as late (a ``refused`` record, not forwarded, in observe as in
enforce); an HTTP host's POST of the request ends with no answer (an event stream with no event).

Each row's host then calls ``echo`` (id 6), answered; for a stdio host the proxy is then closed
and everything it wrote read to its end."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.processes import port_server

from ._peers import TIMEOUT, HttpHostPeer, LinePeer, host, wait_until
from ._restarting import cancellation_notes, frame_records, host_message
from .test_proxy_faults import INIT, SERVER, tool
from .test_proxy_host_cancel_queued import cancel

STATUS_SERVER = [sys.executable, str(Path(__file__).with_name("status_http_server.py"))]
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
NO_LONGER = "the proxy no longer awaits the request it cancels: nothing goes to the host for it"
LATE = "a late answer: the proxy no longer awaited it (its host cancelled it)"
NOTHING: tuple[int, None, list[Any]] = (200, None, [])
"""An HTTP host's POST that ends with no answer: an event stream with no event."""
CLOSED: tuple[int, None, list[Any]] = (0, None, [])
"""An HTTP host's POST whose stream the host closed (it sends no ``notifications/cancelled``)."""
LATE_CLOSED = "a late answer: the proxy no longer awaited it (the host closed its stream)"


def _through(side: str, upstream: str, options: list[str], bases: list[str]
             ) -> contextlib.AbstractContextManager[LinePeer | HttpHostPeer]:
    """The proxy (``options``) between a naive host on ``side`` and the upstream (the fault
    server, or the status server's ``sse`` mode, whose base URL goes to ``bases``)."""
    @contextlib.contextmanager
    def status_sse() -> Iterator[str]:
        with port_server([*STATUS_SERVER, "sse"]) as base:
            bases.append(base)
            yield base + "/mcp"

    return host(f"{side}-{upstream}", options, upstream=SERVER, http_upstream=status_sse)


def _seen_call(base: str) -> bool:
    """Whether the status server was sent a ``tools/call`` (its ``GET /seen``)."""
    return any(entry[1] == "tools/call" for entry in httpx2.get(base + "/seen", timeout=TIMEOUT).json())


def _answered(log: Path) -> list[Any]:
    """The ids of the answers the host was written (the proxy's log), past initialize's."""
    return [json.loads(r["data"])["id"] for r in frame_records(log)
            if r["kind"] == "message" and r["dir"] == "s2c" and '"id"' in r.get("data", "")][1:]


# (host, upstream, mode, tool; what the host's POST of the call got (None: a stdio host); the ids
# a stdio host read to the end past initialize's; the cancellation's record notes; the refused
# records' notes; the ids the host was answered (the log))
ROWS = [
    ("stdio", "stdio", "observe", "hang", None, [6], [NO_LONGER], [], [6]),
    ("stdio", "stdio", "observe", "late", None, [6], [NO_LONGER], [LATE], [6]),
    ("stdio", "stdio", "enforce", "late", None, [6], [NO_LONGER], [LATE], [6]),
    ("http", "stdio", "observe", "hang", NOTHING, None, [NO_LONGER], [], [6]),
    ("http", "stdio", "enforce", "late", NOTHING, None, [NO_LONGER], [LATE], [6]),
    ("stdio", "http", "observe", "hang", None, [6], [NO_LONGER], [], [6]),
    ("http", "http", "observe", "hang", NOTHING, None, [NO_LONGER], [], [6]),
    # the host closes the POST's stream instead: the proxy's own cancellation goes upstream, and
    # the late answer it brings is refused as late (it was paired, and forwarded to no stream)
    ("http", "stdio", "observe", "late", CLOSED, None, ["written by the proxy"], [LATE_CLOSED], [6]),
]


@pytest.mark.parametrize(("side", "upstream", "mode", "name", "posted", "read", "notes", "refused", "answered"),
                         ROWS, ids=["-".join(row[:4]) for row in ROWS])
def test_a_request_its_host_cancels_in_flight_is_no_longer_awaited(
        tmp_path: Path, side: str, upstream: str, mode: str, name: str, posted: tuple[int, Any, list[Any]] | None,
        read: list[Any] | None, notes: list[str], refused: list[str], answered: list[Any]) -> None:
    log = tmp_path / "frames.jsonl"
    options = ["--mode", mode, "--timeout", "4", "--grace", "2", "--log", str(log), "--log-payloads"]
    got: list[tuple[int, Any, list[Any]]] = []
    lines: list[Any] | None = None
    bases: list[str] = []
    with _through(side, upstream, options, bases) as peer:
        assert json.loads(peer.exchange(INIT) or b"null")["id"] == 0
        if isinstance(peer, HttpHostPeer):
            assert peer.post(INITIALIZED)[0] == 202
            call = threading.Thread(target=_post, args=(peer, tool(5, name), got, posted == CLOSED))
            call.start()
        else:
            peer.send(INITIALIZED)
            peer.send(tool(5, name))
        assert wait_until(lambda: any(host_message(f'"{name}"')(r) for r in frame_records(log)), TIMEOUT)
        if bases:  # in flight: the server has it (a stdio host's request is POSTed only once the POST
            # of the notification before it has its answer; cancelled before, it is never sent)
            assert wait_until(lambda: _seen_call(bases[0]), TIMEOUT)
        if isinstance(peer, HttpHostPeer):
            if posted == CLOSED:
                call.join(TIMEOUT)
                assert wait_until(lambda: any('"late"' in r.get("data", "") and r["dir"] == "s2c"
                                              for r in frame_records(log)), TIMEOUT)  # (the late answer came)
            else:
                assert peer.post(cancel(5))[0] == 202
                call.join(TIMEOUT)
            assert json.loads(peer.exchange(tool(6, "echo")) or b"null")["id"] == 6
        else:
            peer.send(cancel(5))
            peer.send(tool(6, "echo"))
            peer.process.stdin.close()  # type: ignore[union-attr]
            lines = [json.loads(line).get("id") for line in iter(peer.recv, None) if b'"id"' in line]
    assert (got[0] if got else None, lines) == (posted, read)
    assert (cancellation_notes(log), [r.get("note") for r in frame_records(log) if r["kind"] == "refused"],
            _answered(log)) == (notes, refused, answered)


def _post(peer: HttpHostPeer, message: dict[str, Any], got: list[tuple[int, Any, list[Any]]], closes: bool) -> None:
    """POST ``message``; ``closes``: the host gives up its stream after a second (CLOSED)."""
    if not closes:
        got.append(peer.post(message))
        return
    with contextlib.suppress(httpx2.TimeoutException):
        peer.post(message, timeout=1.0)
    got.append(CLOSED)
