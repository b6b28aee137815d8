"""The HTTP host side on real sockets: what the host POSTs reaches the upstream whole, and what
the proxy keeps per session stays bounded."""

from __future__ import annotations

import contextlib
import gc
import json
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ._in_thread import http_host_in_thread
from ._peers import TIMEOUT, HttpHostPeer, call, demo_http, proxy_http, styled_http, wait_until

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]


def _len_call(request_id: int, size: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "len", "arguments": {"text": "x" * size}}}).encode()


def _post_in_pieces(url: str, body: bytes, cuts: tuple[int, ...]) -> bytes:
    """POST ``body`` on a raw socket, sent in pieces cut at ``cuts`` (a pause between pieces, so
    that each arrives on its own); the response's body."""
    address = url.split("//", 1)[1].split("/", 1)[0]
    host, _, port = address.rpartition(":")
    head = (f"POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode()
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        start = 0
        sock.sendall(head)
        for cut in (*cuts, len(body)):
            sock.sendall(body[start:cut])
            start = cut
            time.sleep(0.15)
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
    return response.partition(b"\r\n\r\n")[2]


def _text(raw: bytes | None) -> Any:
    assert raw is not None
    return json.loads(raw)["result"]["content"][0]["text"]


@pytest.mark.parametrize(("size", "cuts", "expected"), [
    (5_000, (100,), "5000"),  # the head and 100 bytes, then the rest
    (5_000, (1, 2000, 4000), "5000"),
    (1_000_000, (), "1000000"),
    (5_000_000, (), "5000000"),
])
def test_a_post_body_is_read_to_its_end(size: int, cuts: tuple[int, ...], expected: str) -> None:
    with proxy_http(["--", *SERVER]) as (url, _):
        body = _len_call(7, size)
        if cuts:
            assert _text(_post_in_pieces(url, body, cuts)) == expected
        else:
            peer = HttpHostPeer(url)
            try:
                assert _text(peer.post(body)[1]) == expected
            finally:
                peer.close()


# -- what the proxy holds per host conversation (HTTP upstream) --------------------------------
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "proxy-tests", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ROUNDS = 30


@contextlib.contextmanager
def _proxy_in_thread(upstream: str, max_sessions: int
                     ) -> Iterator[tuple[str, Callable[[], dict[str, int]], Callable[[], int]]]:
    """The HTTP host side served in this process (its own thread and event loop, on 127.0.0.1),
    what it holds once settled (relays, session relays, upstreams, and the Bridge objects still
    alive, after a collection), and the session relays it holds now."""
    from mcp_verdict.proxy._bridge import Bridge
    from mcp_verdict.proxy._run import ProxyOptions

    options = ProxyOptions(upstream=upstream, listen=("127.0.0.1", 0), otel=False)
    with http_host_in_thread(options, max_sessions=max_sessions) as served:
        def held() -> dict[str, int]:
            counts: dict[str, int] = served.run(served.host.settled())
            gc.collect()
            counts["bridge objects"] = sum(1 for o in gc.get_objects() if type(o) is Bridge)
            return counts

        async def sessions() -> int:
            return len(served.host.bridges)

        yield served.url, held, lambda: served.run(sessions())


def _sessions(peer: HttpHostPeer, delete: bool) -> None:
    """2025 sessions, one after another: initialize, initialized, tools/list, and DELETE."""
    for _ in range(ROUNDS):
        peer.session = None
        status, answer, _ = peer.post(INITIALIZE)
        assert status == 200 and answer is not None and b'"protocolVersion"' in answer
        headers = {"mcp-protocol-version": "2025-11-25"}
        assert peer.post(INITIALIZED, headers)[0] == 202
        status, answer, _ = peer.post(TOOLS_LIST, headers)
        assert status == 200 and answer is not None and b'"tools"' in answer
        if delete and peer.session is not None:
            assert peer.client.delete(peer.url, headers={"mcp-session-id": peer.session}).status_code == 200


def _unknown_sessions(peer: HttpHostPeer, _delete: bool) -> None:
    """A POST each with a new session id the proxy has never seen."""
    for n in range(ROUNDS):
        status, answer, _ = peer.post(TOOLS_LIST, {"mcp-session-id": f"unknown-{n}",
                                                   "mcp-protocol-version": "2025-11-25"})
        assert status == 200 and answer is not None and b'"tools"' in answer


def _unknown_gets(peer: HttpHostPeer, _: bool) -> None:
    """A GET each with a new session id the proxy has never seen (the upstream answers 405)."""
    for n in range(ROUNDS):
        response = peer.client.get(peer.url, headers={"accept": "text/event-stream", "mcp-session-id": f"get-{n}"})
        assert response.status_code == 405


def _stateless(peer: HttpHostPeer, _: bool) -> None:
    """2026-07-28 requests, no session."""
    for n in range(ROUNDS):
        answer = peer.post(call(n, "get_forecast", {"city": "Paris"}))[1]
        assert answer is not None and b'"result"' in answer


@pytest.mark.parametrize(("upstream", "script", "delete", "max_sessions", "expected"), [
    # the demo mints no session id: each initialize's relay serves that POST only; the rest is stateless
    ("demo", _sessions, True, 1000, {"relays": 1, "sessions": 0, "upstreams": 1, "bridge objects": 1}),
    ("demo", _unknown_sessions, False, 1000, {"relays": 0, "sessions": 0, "upstreams": 0, "bridge objects": 0}),
    ("demo", _stateless, False, 1000, {"relays": 1, "sessions": 0, "upstreams": 1, "bridge objects": 1}),
    # styled mints one per initialize: the session's relay lives until its DELETE
    ("styled", _sessions, True, 1000, {"relays": 0, "sessions": 0, "upstreams": 0, "bridge objects": 0}),
    # never deleted: the cap keeps the 4 most recent
    ("styled", _sessions, False, 4, {"relays": 4, "sessions": 4, "upstreams": 4, "bridge objects": 4}),
    ("styled", _unknown_gets, False, 1000, {"relays": 0, "sessions": 0, "upstreams": 0, "bridge objects": 0}),
], ids=["demo-initialize-delete", "demo-unknown-session-ids", "demo-stateless", "styled-initialize-delete",
        "styled-sessions-past-the-cap", "styled-get-unknown-session"])
def test_the_relays_held_stay_bounded(upstream: str, script: Callable[[HttpHostPeer, bool], None], delete: bool,
                                      max_sessions: int, expected: dict[str, int]) -> None:
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(demo_http() if upstream == "demo" else styled_http("plain"))
        proxy_url, held, _ = stack.enter_context(_proxy_in_thread(url, max_sessions))
        peer = HttpHostPeer(proxy_url)
        stack.callback(peer.close)
        script(peer, delete)
        assert held() == expected
        if upstream == "styled" and not delete:  # an evicted session's next request still gets its answer
            status, answer, _ = peer.post(TOOLS_LIST, {"mcp-session-id": "s-1-1",
                                                       "mcp-protocol-version": "2025-11-25"})
            assert status == 200 and answer is not None and b'"tools"' in answer


def test_the_session_relays_past_the_cap_are_those_in_use_and_closed_once_they_end() -> None:
    """Over an HTTP upstream (which holds the sessions: a relay is the proxy's cache of one), a
    session relay in use is not closed, and a new ``initialize`` is forwarded all the same: with
    ``max_sessions`` 2 and both sessions' calls in flight (``hang``), the third session's relay,
    the only idle one once its ``initialize`` is answered, is closed past the cap (its session
    goes on upstream: its next request gets a relay of its own); once the calls end (their hosts
    close their POSTs) at most 2 are held, and every session is still served."""
    from .test_proxy_http_edges import _address, _request_bytes

    headers = {"mcp-protocol-version": "2025-11-25"}
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(styled_http("plain"))
        proxy_url, held, sessions_now = stack.enter_context(_proxy_in_thread(url, 2))
        peer = HttpHostPeer(proxy_url)
        stack.callback(peer.close)
        opened: list[str] = []
        for _ in range(2):
            peer.session = None
            assert peer.post(INITIALIZE)[0] == 200 and peer.session is not None
            opened.append(peer.session)
        host, port, _ = _address(proxy_url)
        calls = []
        for session in opened:
            sock = socket.create_connection((host, port), timeout=TIMEOUT)
            calls.append(sock)
            body = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                               "params": {"name": "hang", "arguments": {}}}).encode()
            sock.sendall(_request_bytes(proxy_url, "POST", body, {**headers, "Mcp-Session-Id": session}))
        assert wait_until(lambda: sum(1 for row in httpx2_seen(url) if row[0] == "POST") == 4, TIMEOUT)
        peer.session = None
        third = peer.post(INITIALIZE)[0]
        assert peer.session is not None
        opened.append(peer.session)
        during = sessions_now()
        for sock in calls:
            sock.close()
        after = held()
        served = [peer.post(TOOLS_LIST, {**headers, "mcp-session-id": s})[0] for s in opened]
        last = held()
    assert (third, during, after["sessions"], served, last["sessions"]) == (200, 2, 2, [200, 200, 200], 2)


def httpx2_seen(url: str) -> list[list[str | None]]:
    """What styled_server.py has received: [method, Accept-Encoding] each."""
    import httpx2

    seen: list[list[str | None]] = httpx2.get(url.replace("/mcp", "/seen"), timeout=TIMEOUT).json()
    return seen
