"""The 2025 sessions an HTTP host side holds over a stdio server are bounded: at most
``max_sessions`` (``_http_host.MAX_SESSIONS``, 1,000). Past it the least recently used session
with no call in flight is forgotten (its host gets 404, 2025-11-25 basic/transports, Session
Management 3-4: it initialises again); when every one held has a call in flight, a new
``initialize`` is refused, unsent, with 503 Service Unavailable and ``Retry-After`` (RFC 9110
s15.6.4, s10.2.3) and a JSON-RPC error under its id (-31004, README "The proxy") — as a server at
capacity answers. Before, that ``initialize`` was sent upstream and its host given a session the
proxy forgot at once (it was the one idle): its next request got 404, and it initialised again.

The HTTP host side served in this process (``serve`` with a small ``max_sessions``) over a real
stdio server (``fault_server.py``: ``hang`` is never answered), raw sockets on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ._in_thread import http_host_in_thread
from ._peers import TIMEOUT, wait_until
from .test_proxy_http_edges import _address, _request, _request_bytes, _status
from .test_proxy_sessions import INIT, V2025, _body, _call, _open, _session

FAULT = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
UPSTREAM_UNAVAILABLE = -31004  # README "The proxy", the proxy's codes


@contextlib.contextmanager
def _proxy_in_thread(log: Path, max_sessions: int, mode: str = "observe",
                     timeout: float = 120.0) -> Iterator[tuple[str, Callable[[], int]]]:
    """The HTTP host side over fault_server.py in this process (its own thread and loop): its URL,
    and how many sessions it holds."""
    from mcp_verdict.proxy._run import ProxyOptions

    options = ProxyOptions(command=tuple(FAULT), listen=("127.0.0.1", 0), otel=False, log=str(log),
                           log_payloads=True, grace=0.5, mode=mode, timeout=timeout)  # type: ignore[arg-type]
    with http_host_in_thread(options, record=True, max_sessions=max_sessions) as served:
        async def count() -> int:
            return len(served.host._sessions)

        yield served.url, lambda: served.run(count())


@contextlib.contextmanager
def _call_in_flight(url: str, session: str) -> Iterator[None]:
    """A call of ``session`` the server never answers (``hang``), on a raw socket of its own,
    in flight until the host closes that socket (on the way out)."""
    host, port, _ = _address(url)
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        sock.sendall(_request_bytes(url, "POST", _call(5, "hang"), {**V2025, "Mcp-Session-Id": session}))
        yield


def _head(response: bytes, name: str) -> str | None:
    head = response.partition(b"\r\n\r\n")[0].decode("latin-1")
    found = [line.split(":", 1)[1].strip() for line in head.split("\r\n")[1:]
             if line.split(":", 1)[0].lower() == name.lower()]
    return found[0] if found else None


def _initializes(log: Path) -> int:
    """The host initializes the stdio server was sent (the frame log's c2s messages)."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    return sum(1 for r in records if r["dir"] == "c2s" and r["kind"] == "message"
               and '"initialize"' in r.get("data", ""))


# (sessions opened first, which of them then have a call in flight, max_sessions; what the next
# initialize gets: its status, Retry-After, its JSON-RPC error code or "session"; the sessions
# held after it; which of the first sessions still serve a request) — by hand from the bound
# above: a session is forgotten only when idle, the least recently used first
ROWS: list[tuple[str, int, tuple[int, ...], int, tuple[int, str | None, Any], int, list[bool]]] = [
    ("room-left", 1, (0,), 2, (200, None, "session"), 2, [True]),
    ("full-one-idle", 2, (1,), 2, (200, None, "session"), 2, [False, True]),  # the idle one forgotten
    ("full-lru-idle", 3, (1,), 3, (200, None, "session"), 3, [False, True, True]),
    # before: 200, the initialize sent upstream, and its session issued but forgotten at once
    # (the only one idle): the host's next request got 404, and it initialised again, in a loop
    ("full-all-busy", 2, (0, 1), 2, (503, "1", UPSTREAM_UNAVAILABLE), 2, [True, True]),
    ("full-all-busy-one", 1, (0,), 1, (503, "1", UPSTREAM_UNAVAILABLE), 1, [True]),
]


@pytest.mark.parametrize(("opened", "busy", "max_sessions", "expected", "held", "serving"),
                         [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_new_session_past_the_bound_with_every_session_busy_is_refused_503(
        tmp_path: Path, opened: int, busy: tuple[int, ...], max_sessions: int,
        expected: tuple[int, str | None, Any], held: int, serving: list[bool]) -> None:
    log = tmp_path / "f.jsonl"
    with contextlib.ExitStack() as stack:
        url, count = stack.enter_context(_proxy_in_thread(log, max_sessions))
        sessions = [_open(url) for _ in range(opened)]
        for n in busy:
            stack.enter_context(_call_in_flight(url, sessions[n]))
        assert wait_until(lambda: log.read_text().count('\\"hang\\"') == len(busy), TIMEOUT)
        before = _initializes(log)
        response = _request(url, "POST", json.dumps({**INIT, "id": "new"}).encode(), V2025)
        answer = _body(response)
        if _status(response) == 200:  # a session that serves (before, past the bound, it was forgotten at once: 404)
            served = _request(url, "POST", _call(8, "echo"), {**V2025, "Mcp-Session-Id": _session(response)})
            outcome: Any = "session" if _status(served) == 200 else f"session, then {_status(served)}"
        else:
            assert answer["id"] == "new" and answer["error"]["data"]["forwarded"] is False, answer
            outcome = answer["error"]["code"]
        got = (_status(response), _head(response, "Retry-After"), outcome)
        sent = _initializes(log) - before
        after = count()
        alive = [_status(_request(url, "POST", _call(9, "echo"), {**V2025, "Mcp-Session-Id": s})) == 200
                 for s in sessions]
    assert (got, sent, after, alive) == (expected, 1 if expected[0] == 200 else 0, held, serving)


def test_a_refused_initialize_is_in_the_frame_log_and_a_later_one_gets_its_session(tmp_path: Path) -> None:
    """The refusal is a ``refused`` record saying why; once the call in flight is over (its host
    closed its POST: cancelled upstream) the session is idle, and the next initialize gets a
    session in its place."""
    log = tmp_path / "f.jsonl"
    with _proxy_in_thread(log, 1) as (url, count):
        session = _open(url)
        with _call_in_flight(url, session):
            assert wait_until(lambda: '\\"hang\\"' in log.read_text(), TIMEOUT)
            refused = _status(_request(url, "POST", json.dumps(INIT).encode(), V2025))
        # (the host gave up its call, closing its POST: cancelled upstream, the session idle)
        assert wait_until(lambda: "notifications/cancelled" in log.read_text(), TIMEOUT)
        again = _request(url, "POST", json.dumps(INIT).encode(), V2025)
        held = count()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    notes = [r["note"] for r in records if r["dir"] == "c2s" and r["kind"] == "refused"]
    assert (refused, _status(again), _session(again) != session, held) == (503, 200, True, 1)
    assert notes == ["not forwarded: the proxy holds its most sessions (1), each with a call in flight: a new "
                     "session cannot be started until one of them is idle or ends"]


def test_an_initialize_under_way_keeps_its_sessions_room(tmp_path: Path) -> None:
    """With ``max_sessions`` 1 and no session yet, an ``initialize`` the server has not answered
    (``silent``) keeps the one room: a second ``initialize`` meanwhile is refused (503), and
    gets its session once the first one's host has given up (its POST closed: the room freed).
    Before, the second was sent and issued a session, and the first's, answered later, went
    past the bound."""
    log = tmp_path / "f.jsonl"
    silent = json.dumps({**INIT, "id": "silent", "params": {**INIT["params"],  # type: ignore[dict-item]
                                                            "clientInfo": {"name": "silent", "version": "0"}}})
    with _proxy_in_thread(log, 1) as (url, count):
        host, port, _ = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(_request_bytes(url, "POST", silent.encode(), V2025))
            assert wait_until(lambda: '\\"silent\\"' in log.read_text(), TIMEOUT)
            meanwhile = _request(url, "POST", json.dumps(INIT).encode(), V2025)
        # (the host of the first gave up: its POST closed, its room freed)
        assert wait_until(lambda: _status(_request(url, "POST", json.dumps(INIT).encode(), V2025)) == 200, TIMEOUT)
        held = count()
    refused = (_body(meanwhile) or {}).get("error", {}).get("code")
    assert (_status(meanwhile), _head(meanwhile, "Retry-After"), refused, held) == (
        503, "1", UPSTREAM_UNAVAILABLE, 1)


# (the initialize's clientInfo name — fault_server.py answers "t" at once, "refuse" with the
# JSON-RPC error -32602, "dup" with a member name given twice, "silent" never —, whether it asks
# for progress (a progress notification before its answer: an event stream), the mode; what the
# host gets: the status, whether it carries an Mcp-Session-Id, its JSON-RPC error code; the
# sessions held after it) — by hand: a session is issued for an initialize that succeeds only
# (2025-11-25 basic/lifecycle, Initialization; basic/transports, Session Management 1: a server
# MAY assign a session id at initialization time), not for a JSON-RPC error, the server's or the
# proxy's (README "The proxy": -31002 past --timeout, -31000 an answer enforce refuses). Before,
# each failed one was issued a session, which held a room under max_sessions until evicted.
FAILED: list[tuple[str, str, bool, str, tuple[int, bool, int | None], int]] = [
    ("initialised", "t", False, "observe", (200, True, None), 1),
    ("server-error", "refuse", False, "observe", (200, False, -32602), 0),
    ("proxy-timeout", "silent", False, "observe", (200, False, -31002), 0),
    ("refused-by-enforce", "dup", False, "enforce", (200, False, -31000), 0),
    ("dup-forwarded-by-observe", "dup", False, "observe", (200, True, None), 1),
    ("initialised-after-progress", "t", True, "observe", (200, True, None), 1),
    ("server-error-after-progress", "refuse", True, "observe", (200, False, -32602), 0),
]


def _answer(response: bytes) -> Any:
    """The JSON-RPC answer of a POST's response: its body, or its event stream's last event."""
    head, _, body = response.partition(b"\r\n\r\n")
    if b"text/event-stream" not in head.lower():
        return _body(response)
    lines = [line for line in body.split(b"\n") if line.startswith(b"data:")]
    return json.loads(lines[-1][5:])


@pytest.mark.parametrize(("client", "progress", "mode", "expected", "held"), [r[1:] for r in FAILED],
                         ids=[r[0] for r in FAILED])
def test_an_initialize_that_fails_is_issued_no_session(tmp_path: Path, client: str, progress: bool, mode: str,
                                                       expected: tuple[int, bool, int | None], held: int) -> None:
    params: dict[str, Any] = {**INIT["params"], "clientInfo": {"name": client, "version": "0"}}  # type: ignore[dict-item]
    if progress:
        params["_meta"] = {"progressToken": "p"}
    with _proxy_in_thread(tmp_path / "f.jsonl", 1, mode, timeout=1.0) as (url, count):
        response = _request(url, "POST", json.dumps({**INIT, "params": params}).encode(), V2025)
        sessions = count()
    answer = _answer(response)
    events = response.count(b"notifications/progress")
    got = (_status(response), _head(response, "Mcp-Session-Id") is not None, answer.get("error", {}).get("code"))
    assert (got, sessions, events) == (expected, held, 1 if progress else 0)
