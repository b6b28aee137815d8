"""An HTTP upstream's answers written by hand on a raw socket (``hostile_http_server.py``), the
bytes no framework writes but the specs allow or a broken server sends, through the real proxy
(a process) with a stdio host and an HTTP host.

WHATWG HTML, server-sent events, event stream interpretation: lines end in CRLF, LF or CR alone;
an empty line dispatches the event. basic/transports/streamable-http: a request's answer MAY be
an event stream. README "The proxy": every frame in is forwarded, answered with an error, or
logged as refused; -31001 only for an upstream that closed before answering, -31002 only for one
that did not answer in time."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.processes import port_server

from ._peers import PROXY, TIMEOUT, HttpHostPeer, LinePeer, call, proxy_http, wait_until
from ._restarting import frame_records
from .test_proxy_upstream_headers import _headers_server, _seen

SERVER = [sys.executable, str(Path(__file__).with_name("hostile_http_server.py"))]
OK = {"content": [{"type": "text", "text": "ok"}], "isError": False}


@contextlib.contextmanager
def _answer_of(side: str, behaviour: str, options: tuple[str, ...] = ()) -> Iterator[Any]:
    """A function sending a call to the proxy (``side``: ``stdio`` or ``http`` host) in front of
    the hostile upstream (``behaviour``), giving the JSON of its answer."""
    with port_server([*SERVER, behaviour]) as base:
        args = ["--timeout", "20", *options, "--upstream", base + "/mcp"]
        if side == "stdio":
            peer = LinePeer([*PROXY, *args])
            try:
                yield lambda message: json.loads(peer.exchange(message) or b"null")
            finally:
                peer.close()
            return
        with proxy_http(args) as (url, _):
            host = HttpHostPeer(url)
            try:
                yield lambda message: json.loads(host.post(message)[1] or b"null")
            finally:
                host.close()


# (the upstream's behaviour, the host side; the answer the host gets)
CR_ROWS = [
    ("sse-cr", "stdio", {"jsonrpc": "2.0", "id": 1, "result": OK}),  # was -31001: the last CR waited for a LF
    ("sse-cr", "http", {"jsonrpc": "2.0", "id": 1, "result": OK}),
    ("sse-cr-open", "stdio", {"jsonrpc": "2.0", "id": 1, "result": OK}),  # was -31002 at --timeout
    ("sse-cr-open", "http", {"jsonrpc": "2.0", "id": 1, "result": OK}),
]


@pytest.mark.parametrize(("behaviour", "side", "expected"), CR_ROWS)
def test_an_event_stream_with_lines_ended_by_cr_alone_answers_its_call(behaviour: str, side: str,
                                                                      expected: dict[str, Any]) -> None:
    with _answer_of(side, behaviour) as answer:
        assert answer(call(1, "t")) == expected


PAST = "the upstream answered HTTP 200 with a body past 4096 bytes"
# (the DELETE's body size, the upstream's; the host's status, its body, the frame log's notes)
DELETE_ROWS = [
    (1000, 200, b"x" * 1000, []),
    (4096, 200, b"x" * 4096, []),  # at the limit: passed back whole
    (4097, 502, {"jsonrpc": "2.0", "id": None, "error": {"code": -31004, "message": f"mcp-verdict proxy: {PAST}",
                                                         "data": {"source": "mcp-verdict proxy", "reason": PAST}}},
     [f"the host's DELETE: {PAST} (answered HTTP 502)"]),
    (1_000_000, 502, {"jsonrpc": "2.0", "id": None, "error": {"code": -31004, "message": f"mcp-verdict proxy: {PAST}",
                                                              "data": {"source": "mcp-verdict proxy", "reason": PAST}}},
     [f"the host's DELETE: {PAST} (answered HTTP 502)"]),  # was: read whole and passed back (1 GB: 1 GB held)
]


@pytest.mark.parametrize(("size", "status", "body", "notes"), DELETE_ROWS)
def test_a_hosts_delete_answered_with_a_body_past_the_limit_is_not_held(
        tmp_path: Path, size: int, status: int, body: bytes | dict[str, Any], notes: list[str]) -> None:
    """README "The proxy": a frame past ``--max-frame-bytes`` is never held whole; a host's
    exchange that answers no request gets 502 and the JSON-RPC error with a null id when its
    upstream request fails (a GET's body past the limit is one such failure; the DELETE's alike)."""
    log = tmp_path / "frames.jsonl"
    with port_server([*SERVER, f"delete-big:{size}"]) as base, \
            proxy_http(["--max-frame-bytes", "4096", "--log", str(log), "--upstream", base + "/mcp"]) as (url, _), \
            httpx2.Client(timeout=TIMEOUT) as client:
        response = client.delete(url, headers={"Mcp-Session-Id": "s-1", "MCP-Protocol-Version": "2025-06-18"})
    assert response.status_code == status
    assert (response.content if isinstance(body, bytes) else response.json()) == body
    assert [r["note"] for r in frame_records(log) if r["kind"] == "error"] == notes


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
SESSION = {"Mcp-Session-Id": "s-1", "MCP-Protocol-Version": "2025-06-18", "X-Tenant": "t1"}
# (the host's side, its request; the status it gets — None: a stdio host, its proxy's own DELETE)
REDIRECT_ROWS = [
    ("http", "GET", 307),  # was: followed to the other origin, with the session, X-Tenant and X-Api-Key
    ("http", "DELETE", 307),  # was: followed alike
    ("stdio", "DELETE", None),  # the proxy's own DELETE of its session as the host goes: was followed
]


@pytest.mark.parametrize(("side", "method", "status"), REDIRECT_ROWS)
def test_an_upstream_redirect_is_never_followed(side: str, method: str, status: int | None) -> None:
    """RFC 9110 s15.4: a 3xx is the client's to follow; the proxy's client is not the host, and
    a redirect followed carries the host's session and headers and ``--header``'s to whatever
    origin the upstream names (aiohttp drops only ``Authorization`` and ``Cookie`` there). The
    upstream's POSTs were never followed; its GETs and DELETEs are not either: the host gets the
    status with its ``Location``, and the other origin sees no request."""
    with _headers_server() as other, port_server([*SERVER, f"redirect:{other}"]) as base:
        options = ["--timeout", "20", "--header", "X-Api-Key: k", "--upstream", base + "/mcp"]
        if side == "stdio":
            peer = LinePeer([*PROXY, *options])
            try:
                assert json.loads(peer.exchange(INIT) or b"null")["result"]["protocolVersion"] == "2025-06-18"
                peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            finally:
                assert peer.close() == 0
        else:
            with proxy_http(options) as (url, _), httpx2.Client(timeout=TIMEOUT) as client:
                accept = {"Accept": "text/event-stream"} if method == "GET" else {}
                response = client.request(method, url, headers={**SESSION, **accept})
            assert (response.status_code, response.headers.get("Location")) == (status, other)
        assert _seen(other) == []


ANSWER = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {**OK, "resultType": "complete"}}).encode()
AGAIN = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
    "content": [{"type": "text", "text": "again"}], "isError": False, "resultType": "complete"}}).encode()
AFTER = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}'
ENDED = ("error", "the host's stream ends with its answer, already sent: dropped")
SECOND = ("refused", "enforce: a second answer to the same request")
# (host side, mode; the frames the host gets for call 1, the frame log's s2c records of call 1's
# exchange: (kind, note))
AFTER_ROWS = [
    ("stdio", "observe", [ANSWER, AFTER, AGAIN], [("message", None)] * 3),  # every frame, in order
    ("stdio", "enforce", [ANSWER, AFTER], [("message", None), ("message", None), SECOND]),
    ("http", "observe", [ANSWER], [("message", None), ("message", None), ENDED, ("message", None), ENDED]),
    ("http", "enforce", [ANSWER], [("message", None), ("message", None), ENDED, SECOND]),
]


@pytest.mark.parametrize(("side", "mode", "frames", "records"), AFTER_ROWS)
def test_the_events_after_an_answer_in_its_read_are_relayed_or_logged(
        tmp_path: Path, side: str, mode: str, frames: list[bytes], records: list[tuple[str, str | None]]) -> None:
    """An upstream that writes more events after a request's answer on its stream (a
    notification, a second answer to the same id), read with it: each is relayed as any
    upstream frame, or its drop logged (README "The proxy": every frame in is forwarded,
    answered with an error, or logged as refused). Were: read and dropped without a record. An
    HTTP host's response ends with its answer: what comes after it is logged as dropped (was:
    recorded as forwarded, never sent)."""
    log = tmp_path / "frames.jsonl"
    with port_server([*SERVER, "sse-after"]) as base:
        args = ["--timeout", "20", "--mode", mode, "--log", str(log), "--log-payloads", "--upstream", base + "/mcp"]
        if side == "stdio":
            peer = LinePeer([*PROXY, *args])
            try:
                got = [peer.exchange(call(1, "t")) or b""]
                peer.send(call(2, "t"))  # (after call 1's answer: the events read with it were written before it)
                while b'"id": 2' not in got[-1]:
                    got.append(peer.recv() or b'(none) "id": 2')
            finally:
                peer.close()
        else:
            with proxy_http(args) as (url, _):
                host = HttpHostPeer(url)
                try:
                    status, answer, before = host.post(call(1, "t"))
                finally:
                    host.close()
                assert status == 200
                got = [*before, answer or b""]
    if side == "stdio":
        got.pop()  # (call 2's answer)
    assert got == frames
    exchange = [(r["kind"], r.get("note")) for r in frame_records(log)
                if r["dir"] == "s2c" and (r.get("http") or {}).get("exchange", 1) == 1]
    assert exchange == records


# (host side, mode; the answer the host gets)
CASE_ROWS = [
    ("stdio", "observe", {"jsonrpc": "2.0", "id": 1, "result": OK}),  # was: "data: {...}" as a frame, then -31001
    ("http", "observe", {"jsonrpc": "2.0", "id": 1, "result": OK}),
    ("http", "enforce", {"jsonrpc": "2.0", "id": 1, "result": OK}),  # was: refused, then -31001
]


@pytest.mark.parametrize(("side", "mode", "expected"), CASE_ROWS)
def test_an_event_stream_is_read_as_one_whatever_the_case_of_its_media_type(side: str, mode: str,
                                                                            expected: dict[str, Any]) -> None:
    """RFC 9110 s8.3.1: the type and subtype of a media type are case-insensitive: a body of
    ``Content-Type: Text/Event-Stream`` is an event stream (basic/transports/streamable-http: a
    request's answer MAY be one), its events the messages."""
    with _answer_of(side, "sse-case", ("--mode", mode)) as answer:
        assert answer(call(1, "t", version="2025-06-18")) == expected


# (comment lines of 100 bytes before the answer, host side; the answer) — --max-frame-bytes 4096
COMMENT_ROWS = [
    (10, "stdio", {"jsonrpc": "2.0", "id": 1, "result": OK}),
    (100, "stdio", {"jsonrpc": "2.0", "id": 1, "result": OK}),  # was -31003: "the server's answer is 4180 bytes"
    (100, "http", {"jsonrpc": "2.0", "id": 1, "result": OK}),
    (400, "stdio", {"jsonrpc": "2.0", "id": 1, "result": OK}),
]


@pytest.mark.parametrize(("comments", "side", "expected"), COMMENT_ROWS)
def test_the_comments_of_an_event_stream_are_no_frame_past_the_limit(comments: int, side: str,
                                                                     expected: dict[str, Any]) -> None:
    """WHATWG event streams: a comment line (``:``) is ignored, as are ``retry`` and ``id`` lines
    outside an event's data; the proxy's limit (README "The proxy": a frame past
    ``--max-frame-bytes`` is never held whole) bounds what an unfinished event holds, not the
    bytes of a stream kept alive by comments."""
    with _answer_of(side, f"sse-comments:{comments}", ("--max-frame-bytes", "4096")) as answer:
        assert answer(call(1, "t")) == expected


POST_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
CALL_2025 = json.dumps(call(1, "t", version="2025-06-18")).encode()
NOTIFICATION = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
# (the header the upstream writes with a control character, the host's request; the status the
# host gets — its answer's headers never hold that header)
CONTROL_ROWS = [
    ("Set-Cookie", "POST", CALL_2025, 200),  # was: no response at all (the connection closed)
    ("Mcp-Session-Id", "POST", CALL_2025, 200),
    ("WWW-Authenticate", "POST", NOTIFICATION, 202),  # was: 500, and a traceback on the proxy's stderr
    ("Allow", "GET", None, 405),
    ("Set-Cookie", "DELETE", None, 200),
]


@pytest.mark.parametrize(("name", "method", "body", "status"), CONTROL_ROWS)
def test_an_upstream_header_holding_a_control_character_is_not_passed_back(
        name: str, method: str, body: bytes | None, status: int) -> None:
    """RFC 9110 s5.5: a field value holds no control character but HTAB; one the upstream writes
    (an ANSI escape here) cannot be written to the host (aiohttp refuses it: the whole response
    failed). The header is left out; the rest of the answer reaches the host."""
    with port_server([*SERVER, f"control:{name}"]) as base, \
            proxy_http(["--timeout", "20", "--upstream", base + "/mcp"]) as (url, _), \
            httpx2.Client(timeout=TIMEOUT) as client:
        headers = {"Mcp-Session-Id": "s-1", "MCP-Protocol-Version": "2025-06-18",
                   **(POST_HEADERS if method == "POST" else {"Accept": "text/event-stream"} if method == "GET" else {})}
        response = client.request(method, url, headers=headers, content=body)
    assert (response.status_code, response.headers.get(name)) == (status, None)
    if body == CALL_2025:
        assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": OK}


def _error(request_id: int | None, reason: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -31004, "message": f"mcp-verdict proxy: {reason}",
                                                          "data": {"source": "mcp-verdict proxy", "reason": reason}}}


NO_BODY = "the upstream answered HTTP 101 without a JSON-RPC body"
NOT_FINAL = "the upstream answered HTTP 101, no final status"
# (the host's request; the status it gets, its body) — the upstream answers each 101 Switching Protocols
SWITCHING_ROWS = [
    ("POST", CALL_2025, 502, _error(1, NO_BODY)),  # was: a 101 to the host, a response no client reads
    ("POST", NOTIFICATION, 502, _error(None, NOT_FINAL)),
    ("GET", None, 502, _error(None, NOT_FINAL)),
    ("DELETE", None, 502, _error(None, NOT_FINAL)),
]


@pytest.mark.parametrize(("method", "body", "status", "answer"), SWITCHING_ROWS)
def test_an_upstreams_informational_status_is_no_final_status_for_the_host(
        method: str, body: bytes | None, status: int, answer: dict[str, Any]) -> None:
    """RFC 9110 s15.2: a 1xx status is interim, never a response's final one; 101 switches to the
    protocol an ``Upgrade`` request asked for, and the proxy asks for none. Passed to the host as
    its response's status, the host's client failed on it (httpx2: ``RemoteProtocolError``).
    README "The proxy": an exchange whose upstream request fails gets 502 and the JSON-RPC error
    (a request's with its id; one that answers no request with a null id)."""
    with port_server([*SERVER, "switching"]) as base, \
            proxy_http(["--timeout", "20", "--upstream", base + "/mcp"]) as (url, _), \
            httpx2.Client(timeout=TIMEOUT) as client:
        headers = {"Mcp-Session-Id": "s-1", "MCP-Protocol-Version": "2025-06-18",
                   **(POST_HEADERS if method == "POST" else {"Accept": "text/event-stream"} if method == "GET" else {})}
        response = client.request(method, url, headers=headers, content=body)
    assert (response.status_code, response.json()) == (status, answer)


def test_a_session_id_no_request_can_carry_ends_a_stdio_hosts_proxy_cleanly() -> None:
    """2025-06-18 basic/transports/streamable-http: a session id holds visible ASCII only; one
    holding a control character (``a<ESC>[31mb``) cannot be written in a request's headers
    (aiohttp refuses it), so each request under it fails (-31004, with the reason) — and the
    proxy's own DELETE of the session as the host goes failed alike, out of the proxy: a
    traceback on its stderr and exit status 1. README "The proxy": the host closing stdin ends
    the proxy with 0."""
    with port_server([*SERVER, "control:Mcp-Session-Id"]) as base:
        peer = LinePeer([*PROXY, "--timeout", "20", "--upstream", base + "/mcp"])
        try:
            assert json.loads(peer.exchange(INIT) or b"null")["result"]["protocolVersion"] == "2025-06-18"
            answer = json.loads(peer.exchange(call(1, "t", version="2025-06-18")) or b"null")
        finally:
            status = peer.close()
    reason = "the upstream request failed: ValueError: Forbidden control character detected in headers. " \
             "Potential header injection attack."
    assert (answer, status, b"Traceback" in b"".join(peer.stderr)) == (_error(1, reason), 0, False)


MISADDRESSED = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
    "content": [{"type": "text", "text": "for the request with id 2"}], "isError": False, "resultType": "complete"}}
                          ).encode()
ELSEWHERE = "an answer on the HTTP exchange of another request than the one its id names: not taken as that " \
            "request's answer (stateless requests of several hosts share this connection)"
TIMED_OUT = {"jsonrpc": "2.0", "id": 1, "error": {"code": -31002, "message": "mcp-verdict proxy: no answer within 2 s",
                                                  "data": {"source": "mcp-verdict proxy", "timeout": 2.0}}}
CLOSED = "the upstream closed the response stream before answering"
CLOSED_2 = {"jsonrpc": "2.0", "id": 2, "error": {"code": -31001, "message": f"mcp-verdict proxy: {CLOSED}",
                                                 "data": {"source": "mcp-verdict proxy", "reason": CLOSED}}}
# (mode; what host X, whose request 1 waits, gets; host Y's events before its answer, its answer;
# the misaddressed answer's record: kind, note)
MISADDRESSED_ROWS = [
    ("observe", TIMED_OUT, [MISADDRESSED], CLOSED_2, ("message", ELSEWHERE)),  # was: X got Y's answer
    ("enforce", TIMED_OUT, [], CLOSED_2, ("refused", f"enforce: {ELSEWHERE}")),  # was: X got it alike
]


@pytest.mark.parametrize(("mode", "first", "events", "second", "record"), MISADDRESSED_ROWS)
def test_an_answer_reaches_only_the_host_whose_exchange_it_came_on(
        tmp_path: Path, mode: str, first: dict[str, Any], events: list[bytes], second: dict[str, Any],
        record: tuple[str, str]) -> None:
    """Two hosts' stateless requests (2026-07-28: ids are unique per connection, and each POST is
    its own) in flight at once, 1 and 2; the upstream answers request 2's POST with an answer to
    id 1. README "The proxy": each answer reaches the host that asked. The answer came on host
    Y's exchange: it is not host X's (a request of X's never went there), whatever its id — it
    was routed to X by its id, X's call answered with what the upstream wrote for Y's."""
    log = tmp_path / "frames.jsonl"
    got: dict[str, Any] = {}
    with port_server([*SERVER, "misaddressed"]) as base, \
            proxy_http(["--timeout", "2", "--mode", mode, "--log", str(log), "--log-payloads",
                        "--upstream", base + "/mcp"]) as (url, _):
        first_host, second_host = HttpHostPeer(url), HttpHostPeer(url)
        waiting = threading.Thread(target=lambda: got.update(first=first_host.post(call(1, "t"))))
        waiting.start()
        try:
            assert wait_until(lambda: any(r["dir"] == "c2s" for r in frame_records(log)), TIMEOUT)
            status, answer, before = second_host.post(call(2, "t"))
        finally:
            waiting.join(TIMEOUT)
            first_host.close()
            second_host.close()
    assert (json.loads(got["first"][1]), status, before, json.loads(answer or b"null")) == (first, 200, events, second)
    assert [(r["kind"], r.get("note")) for r in frame_records(log) if r.get("data", "").encode() == MISADDRESSED] \
        == [record]


# (the host's request: method; the events it gets, the id lines among them)
LONG_ID_ROWS = [
    ("POST", 201, 1),  # 200 notifications then the answer; was: the 64 KiB id on each of the 201 (13 MB)
    ("GET", 200, 1),
]


@pytest.mark.parametrize(("method", "events", "ids"), LONG_ID_ROWS)
def test_an_upstreams_event_id_is_written_to_the_host_once_not_on_every_event(method: str, events: int,
                                                                               ids: int) -> None:
    """An upstream that sets a long event id once, then sends many events without one: WHATWG
    keeps the last event id for each later event, so the host's stream says it once, where it
    changes, as the upstream did — it meant the same, written on every event (an upstream's 64 KiB
    id then 200 events of 100 bytes: 13 MB to the host)."""
    size = 64 * 1024
    with port_server([*SERVER, f"sse-long-id:{size}:200"]) as base, \
            proxy_http(["--timeout", "20", "--upstream", base + "/mcp"]) as (url, _):
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
                   "Content-Type": "application/json"}
        with httpx2.Client(timeout=TIMEOUT) as client:
            if method == "POST":
                response = client.post(url, content=json.dumps(call(1, "t")).encode(), headers=headers)
            else:
                response = client.get(url, headers={**headers, "Accept": "text/event-stream"})
            body = response.content
    blocks = [block for block in body.replace(b"\r\n", b"\n").split(b"\n\n") if block.strip()]
    assert len(blocks) == events
    assert sum(line.startswith(b"id:") for block in blocks for line in block.split(b"\n")) == ids
    assert blocks[0].split(b"\n")[1] == b"id: " + b"x" * size
    assert len(body) < size + events * 200


@pytest.mark.parametrize("side", ["stdio", "http"])
def test_what_an_upstream_writes_on_an_idle_connection_is_no_answer_to_the_next_post(side: str) -> None:
    """An upstream that writes a second response, unasked, on a kept-alive connection after
    answering (an answer to the id the next request will have): the next POST must not take it
    as its answer — RFC 9112 s9.3.2: a client pairs each response with its request in order, and
    a response with no request outstanding means the connection can no longer be trusted. The
    proxy closes such a connection instead of reusing it (was: call 2 got ``unsolicited``)."""
    with _answer_of(side, "idle-extra") as answer:
        first = answer(call(1, "t", version="2026-07-28"))
        time.sleep(0.3)  # (the unasked response has come on the idle connection)
        second = answer(call(2, "t", version="2026-07-28"))
    assert [first["result"]["content"][0]["text"], second["result"]["content"][0]["text"]] == ["ok", "ok"]


NOTE = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
V26 = "2026-07-28"
# (the host side, the messages it sends one after the other, each once the upstream's unasked
# response came on the idle connection; what each came to: a call's answer text, a
# notification's HTTP status and body)
IDLE_SESSION_ROWS = [
    ("stdio", [call(1, "t", version=V26), call(2, "t", version=V26), call(3, "t", version=V26)],
     ["ok", "ok", "ok"]),  # was ok, ok, unsolicited: the POSTs after the cookie on the session's connection
    ("http", [NOTE, NOTE], [(202, None), (202, None)]),  # was (202, None), then 200 and the unasked answer
]


@pytest.mark.parametrize(("side", "messages", "expected"), IDLE_SESSION_ROWS)
def test_what_an_upstream_writes_on_the_sessions_idle_connection_is_no_answer_to_the_next_post(
        side: str, messages: list[dict[str, Any]], expected: list[Any]) -> None:
    """The same on the connections of the proxy's aiohttp session, which carries a stdio host's
    POSTs once the upstream set a cookie (a load balancer's affinity cookie: ``_http_posts``), and
    the POSTs of the notifications: a response no request asked for, on an idle kept-alive
    connection, is not the next request's answer (RFC 9112 s9.3.2); the connection is closed, not
    reused (was: the session's connector reused it, and the next POST read the unasked response)."""
    got: list[Any] = []
    with port_server([*SERVER, "idle-extra-cookie"]) as base:
        args = ["--timeout", "20", "--upstream", base + "/mcp"]
        if side == "stdio":
            peer = LinePeer([*PROXY, *args])
            try:
                for message in messages:
                    got.append(json.loads(peer.exchange(message) or b"null")["result"]["content"][0]["text"])
                    time.sleep(0.3)  # (the unasked response has come on the idle connection)
            finally:
                peer.close()
        else:
            with proxy_http(args) as (url, _):
                host = HttpHostPeer(url)
                try:
                    for message in messages:
                        status, body, _ = host.post(message)
                        got.append((status, json.loads(body) if body else None))
                        time.sleep(0.3)
                finally:
                    host.close()
    assert got == expected
