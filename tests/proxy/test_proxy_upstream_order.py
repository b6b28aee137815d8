"""A host's frames reach an HTTP upstream in the host's order (issue #13: every frame forwarded,
in order; nothing lost or reordered). Each frame is its own POST (basic/transports/
streamable-http), maybe on a connection of its own: a request the host sent after a
notification or a response must not be taken before it — a 2025 server takes a session's
``notifications/initialized``, a ``notifications/cancelled`` or its request's answer in the
order they come.

``order_http_server.py`` takes a notification or a response only once another POST has come or
a second has passed (a busy server's pace), and tells the order it took them in. A stdio host
writes its frames without waiting for anything in between (several in one write); the proxy
(its own process, under uvloop as the CLI runs it, or on plain asyncio) must give them to the
server in that order. An HTTP host orders its own POSTs: the proxy answers a notification's POST
only once the upstream answered it, so a POST the host sends after that answer reaches the
upstream after it (POSTs it sends at once, without waiting, have no order between them for
any server, the proxy's included).

A notification that the upstream never answers holds the frames sent after it for at most
``--timeout`` from their sending; past it, those are not sent: a request gets -31002 (the
upstream did not answer in time), a later frame goes as usual.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ._peers import PROXY, TIMEOUT, HttpHostPeer, LinePeer, proxy_http, script_http, wait_until

LOOPS = {"uvloop": PROXY,
         "asyncio": [sys.executable, "-c", "import sys; sys.modules['uvloop'] = None; "
                     "from mcp_verdict.cli import main; main()", "proxy"]}
"""The proxy's command under the CLI's loop (uvloop when installed) and on plain asyncio (an
import of uvloop fails: the CLI's fallback)."""
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                   "clientInfo": {"name": "order", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}


def _list(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}


def _call(request_id: int, name: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": {}}}


def _cancel(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


def _lines(*messages: dict[str, Any]) -> bytes:
    """Frames written to the proxy in one write: the host waits for nothing in between."""
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def _order(url: str) -> list[str]:
    taken: list[str] = httpx2.get(url.replace("/mcp", "/order"), timeout=TIMEOUT).json()
    return taken


def _shown(raw: bytes | None) -> tuple[Any, Any]:
    """(an answer's id, what it says: "listed", its text, or its error's code)."""
    assert raw is not None
    answer = json.loads(raw)
    if "error" in answer:
        return answer["id"], answer["error"]["code"]
    result = answer["result"]
    return answer["id"], "listed" if "tools" in result else result["content"][0]["text"]


def _answers(peer: LinePeer, count: int) -> set[tuple[Any, Any]]:
    return {_shown(peer.recv()) for _ in range(count)}


# -- a stdio host -------------------------------------------------------------------------------
def _initialized(peer: LinePeer, url: str) -> set[tuple[Any, Any]]:
    """``notifications/initialized``, then a request (the session's first)."""
    peer.send_raw(_lines(INITIALIZED, _list(1)))
    return _answers(peer, 1)


def _response(peer: LinePeer, url: str) -> set[tuple[Any, Any]]:
    """The host's answer to the server's ``roots/list`` (sent on a call's stream), then a request."""
    peer.send_raw(_lines(INITIALIZED, _call(2, "ask")))
    asked = json.loads(peer.recv() or b"{}")
    assert (asked.get("id"), asked.get("method")) == ("r-1", "roots/list")
    peer.send_raw(_lines({"jsonrpc": "2.0", "id": "r-1", "result": {"roots": []}}, _list(3)))
    return _answers(peer, 2)


def _cancelled(peer: LinePeer, url: str) -> set[tuple[Any, Any]]:
    """A ``notifications/cancelled`` of a call under way (its event stream open: the host got its
    first event), then a request."""
    peer.send_raw(_lines(INITIALIZED, _call(2, "hold")))
    assert json.loads(peer.recv() or b"{}").get("method") == "notifications/message"
    peer.send_raw(_lines(_cancel(2), _list(3)))
    return _answers(peer, 1)


TAKEN = ["initialize", "notifications/initialized"]
# (the host's frames, the order the server took them in, the answers the host got: (id, what))
STDIO: list[tuple[Callable[[LinePeer, str], set[tuple[Any, Any]]], list[str], set[tuple[Any, Any]]]] = [
    (_initialized, [*TAKEN, "tools/list"], {(1, "listed")}),
    (_response, [*TAKEN, "tools/call", "response r-1", "tools/list"], {(2, "answered"), (3, "listed")}),
    (_cancelled, [*TAKEN, "tools/call", "notifications/cancelled 2", "tools/list"], {(3, "listed")}),
]
ROWS = [(frames, taken, answers, mode, loop) for frames, taken, answers in STDIO
        for mode, loop in (("observe", "uvloop"), ("enforce", "uvloop"), ("observe", "asyncio"))]


@pytest.mark.parametrize(("frames", "taken", "answers", "mode", "loop"), ROWS,
                         ids=[f"{row[0].__name__[1:]}-{row[3]}-{row[4]}" for row in ROWS])
def test_a_stdio_hosts_frames_reach_the_http_upstream_in_its_order(
        frames: Callable[[LinePeer, str], set[tuple[Any, Any]]], taken: list[str], answers: set[tuple[Any, Any]],
        mode: str, loop: str) -> None:
    with script_http("order_http_server.py") as url:
        peer = LinePeer([*LOOPS[loop], "--mode", mode, "--upstream", url])
        try:
            assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
            got = frames(peer, url)
        finally:
            status = peer.close()
        assert (_order(url), got, status) == (taken, answers, 0)


def _records(log: Path) -> Iterator[dict[str, Any]]:
    for line in log.read_text().splitlines():
        yield json.loads(line)


HUNG = "the host's notification: no answer within 2 s (the host is not told: stdio)"


@pytest.mark.parametrize(("mode", "loop"), [("observe", "uvloop"), ("enforce", "uvloop"), ("observe", "asyncio")])
def test_a_notification_the_upstream_never_answers_holds_what_follows_at_most_the_timeout(
        tmp_path: Path, mode: str, loop: str) -> None:
    """``notifications/roots/list_changed``, never answered, then a request: the request is not
    sent and gets -31002 once the notification has had no answer for ``--timeout`` (2 s); a
    request sent after that is sent and answered."""
    log = tmp_path / "frames.jsonl"
    with script_http("order_http_server.py") as url:
        peer = LinePeer([*LOOPS[loop], "--mode", mode, "--timeout", "2", "--log", str(log), "--upstream", url])
        try:
            assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
            peer.send_raw(_lines(INITIALIZED, LIST_CHANGED, _list(1)))
            held = _answers(peer, 1)
            assert wait_until(lambda: any(r.get("note") == HUNG for r in _records(log)), TIMEOUT)
            after = {_shown(peer.exchange(_list(2)))}
        finally:
            status = peer.close()
        assert (_order(url), held, after, status) == ([*TAKEN, "tools/list"], {(1, -31002)}, {(2, "listed")}, 0)


TAKEN_BACK = ("not sent upstream: the request it cancels was never sent (it waited for the upstream to answer the "
              "host's notification or response before it); the proxy no longer awaits the request it cancels: "
              "nothing goes to the host for it")
"""The cancellation's record (the host's frames' only note)."""


@pytest.mark.parametrize(("mode", "loop"), [("observe", "uvloop"), ("enforce", "uvloop"), ("observe", "asyncio")])
def test_a_request_cancelled_while_it_waits_for_a_notification_is_never_sent(
        tmp_path: Path, mode: str, loop: str) -> None:
    """``notifications/initialized``, a call, its ``notifications/cancelled``, a request, in one
    write: the call waits for the notification's answer and is taken back before it is sent;
    neither it nor its cancellation reaches the server (MCP basic/utilities/cancellation: the
    host gets nothing for it), and the cancellation's record says why."""
    log = tmp_path / "frames.jsonl"
    with script_http("order_http_server.py") as url:
        peer = LinePeer([*LOOPS[loop], "--mode", mode, "--log", str(log), "--upstream", url])
        try:
            assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
            peer.send_raw(_lines(INITIALIZED, _call(2, "hold"), _cancel(2), _list(3)))
            got = _answers(peer, 1)
        finally:
            status = peer.close()
        notes = [r["note"] for r in _records(log) if r["kind"] == "message" and r["dir"] == "c2s" and "note" in r]
        assert (_order(url), got, status, notes) == ([*TAKEN, "tools/list"], {(3, "listed")}, 0, [TAKEN_BACK])


# -- an HTTP host -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_an_http_hosts_post_after_its_notifications_answer_reaches_the_upstream_after_it(mode: str) -> None:
    """The POST of ``notifications/initialized`` is answered once the upstream took it (its 202):
    the host's next POST, sent then, is taken after it (rows that pass before the fix too: the
    contract an HTTP host's order rests on)."""
    with script_http("order_http_server.py") as url, proxy_http(["--mode", mode, "--upstream", url]) as (proxy, _):
        host = HttpHostPeer(proxy)
        try:
            assert host.post(INIT)[0] == 200
            status = host.post(INITIALIZED)[0]
            listed = _shown(host.exchange(_list(1)))
        finally:
            host.close()
        assert (_order(url), status, listed) == ([*TAKEN, "tools/list"], 202, (1, "listed"))
