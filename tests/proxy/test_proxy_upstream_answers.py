"""What an HTTP upstream answers besides a request's answer, through the real proxy on real
sockets, and how the host and the frame log see it: the host's GET stream ended or broken by the
upstream, a host notification the upstream refuses or never gets, an HTTP error status (406 as
the official SDK answers an Accept header it rejects, 404, 405) with the SDK's JSON-RPC error
body (a null id), and the timeout of a GET that resumes a stream (``Last-Event-ID``).

basic/transports/streamable-http (2025-06-18 and later): a notification POST is answered 202
when accepted, else an HTTP error status whose body MAY be a JSON-RPC error with no id; a GET
is answered with an event stream or 405; the server MAY close a stream at any time, and the
client resumes it with a GET carrying Last-Event-ID. README "The proxy": every frame in is
forwarded, answered with an error or logged as refused; -31001 the upstream closed before
answering, -31002 it did not answer in time, -31004 it cannot be reached; a host's exchange that
answers no request gets 502 (504 past --timeout) and the JSON-RPC error with a null id."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.processes import free_port, port_server

from ._peers import PROXY, TIMEOUT, LinePeer, call, proxy_http, wait_until
from .test_proxy_upstream_faults import BROKEN, CLOSED, GARBAGE, POST_BODY, REFUSED, RESET, STALLED, _proxy
from .test_proxy_upstream_headers import _headers_server

SERVER = [sys.executable, str(Path(__file__).with_name("status_http_server.py"))]
V2025 = {"Mcp-Session-Id": "s-1", "MCP-Protocol-Version": "2025-06-18"}
POST_HEADERS = {**V2025, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def _sdk_error(status: int) -> bytes:
    """The body status_http_server.py writes, as the SDK's _create_error_response does."""
    return json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": f"HTTP {status} from the server"}}).encode()


@contextlib.contextmanager
def _upstream(behaviour: str) -> Iterator[str]:
    """The upstream's /mcp URL: nothing listening, broken_http_server.py failing one way, or
    status_http_server.py answering one way."""
    if behaviour == "refused":
        yield f"http://127.0.0.1:{free_port()}/mcp"
    elif behaviour in ("reset", "close", "stall", "garbage"):
        with port_server([*BROKEN, behaviour]) as base:
            yield base + "/mcp"
    else:
        with port_server([*SERVER, behaviour]) as base:
            yield base + "/mcp"


def _records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _after_host_frames(log: Path) -> list[tuple[str, str, str | None]]:
    return [(r["dir"], r["kind"], r.get("note")) for r in _records(log)]


# -- 1. the host's GET stream, ended or broken by the upstream ----------------------------------
ONE_EVENT = b'event: message\nid: e-1\ndata: {"jsonrpc":"2.0","method":"notifications/message",' \
            b'"params":{"level":"info","data":"one"}}\n\n'
BROKE = "the host's GET stream: the upstream broke it: ClientPayloadError: Response payload is not completed"

# (the upstream's stream, what the host's stream carried, the frame log's records as
# (dir, kind, the note's start))
GET_STREAMS = [
    ("get-end", ONE_EVENT, [("s2c", "message", ""),
                            ("s2c", "eof", "the host's GET stream: the upstream ended it (so did the host's)")]),
    ("get-reset", ONE_EVENT, [("s2c", "message", ""), ("s2c", "error", BROKE)]),
]


@pytest.mark.parametrize(("behaviour", "carried", "records"), GET_STREAMS, ids=[row[0] for row in GET_STREAMS])
def test_the_end_of_the_hosts_get_stream_is_in_the_frame_log(tmp_path: Path, behaviour: str, carried: bytes,
                                                             records: list[tuple[str, str, str]]) -> None:
    log = tmp_path / "frames.jsonl"
    with _upstream(behaviour) as upstream, _proxy(upstream, log) as (url, _, stderr), \
            httpx2.Client(timeout=TIMEOUT) as client:
        response = client.get(url, headers={**V2025, "Accept": "text/event-stream"})
    assert (response.status_code, response.content) == (200, carried)
    got = [(d, k, n or "") for d, k, n in _after_host_frames(log)]
    assert [(d, k) for d, k, _ in got] == [(d, k) for d, k, _ in records]
    assert all(n.startswith(start) for (_, _, n), (_, _, start) in zip(got, records, strict=True))
    assert b"Traceback" not in b"".join(stderr)


# -- 2. a host notification the upstream refuses or never gets -----------------------------------
NOTIFY = "the host's notification: "
# (the upstream, the host's status, its body's JSON-RPC error code (None: the upstream's own
# body, passed back), the frame-log error record's note (None: none))
NOTIFICATIONS = [
    ("get-end", 202, None, None),  # accepted: the upstream's 202
    ("refused", 502, -31004, NOTIFY + REFUSED),
    ("reset", 502, -31004, NOTIFY + RESET),
    ("close", 502, -31001, NOTIFY + CLOSED),
    ("stall", 504, -31002, NOTIFY + STALLED + " (answered HTTP 504)"),
    ("garbage", 502, -31004, NOTIFY + GARBAGE),
    ("status:404", 404, None, NOTIFY + "the upstream answered HTTP 404 (passed to the host)"),  # a session ended
    ("status:406", 406, None, NOTIFY + "the upstream answered HTTP 406 (passed to the host)"),
    ("status:500", 500, None, NOTIFY + "the upstream answered HTTP 500 (passed to the host)"),
]


@pytest.mark.parametrize(("behaviour", "status", "code", "note"), NOTIFICATIONS, ids=[r[0] for r in NOTIFICATIONS])
def test_a_notification_the_upstream_does_not_take_is_the_hosts_status_and_in_the_frame_log(
        tmp_path: Path, behaviour: str, status: int, code: int | None, note: str | None) -> None:
    log = tmp_path / "frames.jsonl"
    with _upstream(behaviour) as upstream, _proxy(upstream, log) as (url, process, stderr):
        with httpx2.Client(timeout=TIMEOUT) as client:
            response = client.post(url, content=INITIALIZED, headers=POST_HEADERS)
        assert process.poll() is None
    assert response.status_code == status
    if code is None and status == 202:
        assert response.content == b""
    elif code is None:  # the upstream's answer, as it wrote it
        assert (response.headers["Content-Type"], response.content) == ("application/json", _sdk_error(status))
    else:
        answer = json.loads(response.content)
        assert (answer["id"], answer["error"]["code"], answer["error"]["data"]["source"]) == \
            (None, code, "mcp-verdict proxy")
    got = _after_host_frames(log)
    assert [(d, k) for d, k, _ in got] == [("c2s", "message")] + ([("c2s", "error")] if note else [])
    if note is not None:
        told = got[1][2] or ""
        assert told.startswith(note) and told.endswith(f"(answered HTTP {status})" if code else "(passed to the host)")
    assert b"Traceback" not in b"".join(stderr)


def test_a_stdio_hosts_notification_the_upstream_cannot_take_is_in_the_frame_log(tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    with _upstream("status:404") as upstream:
        peer = LinePeer([*PROXY, "--log", str(log), "--upstream", upstream])
        peer.send_raw(INITIALIZED + b"\n")
        peer.send(call(5, "x", version="2025-06-18"))
        first = peer.recv()
        peer.close()
    assert json.loads(first or b"null")["id"] == 5  # (the request after it is answered: the host goes on)
    # (its record after the notification's; the request's POST goes on beside it)
    got = [record for record in _after_host_frames(log) if record[1] == "error" or record[0] == "c2s"]
    assert got[0] == ("c2s", "message", None)
    assert [r for r in got if r[1] == "error"] == [
        ("c2s", "error", NOTIFY + "the upstream answered HTTP 404 (the host is not told: stdio)")]


def test_a_stdio_hosts_last_notification_is_delivered_before_the_proxy_exits(tmp_path: Path) -> None:
    """A stdio host that writes a notification and closes its input at once: the proxy exits
    once the notification's POST is answered (within ``--grace``), so the upstream's answer to it
    (here 404, half a second later) is in the frame log; its POST was cut off at the exit."""
    log = tmp_path / "frames.jsonl"
    with _upstream("slow-status:404") as upstream:
        peer = LinePeer([*PROXY, "--log", str(log), "--upstream", upstream])
        peer.send_raw(INITIALIZED + b"\n")
        status = peer.close()
    assert status == 0
    assert _after_host_frames(log) == [
        ("c2s", "message", None), ("c2s", "eof", "the host closed stdin"),
        ("c2s", "error", NOTIFY + "the upstream answered HTTP 404 (the host is not told: stdio)")]


# (the upstream, the host's side) an upstream that ends its connections — after each answer
# (Connection: close, RFC 9112 s9.6), or once idle — answers every request still: the proxy
# never sends one on a connection that was closed
ENDED_CONNECTIONS = [("conn-close", "stdio"), ("conn-close", "http"), ("idle-close", "stdio"), ("idle-close", "http")]


@pytest.mark.parametrize(("behaviour", "host"), ENDED_CONNECTIONS)
def test_an_upstream_that_ends_its_connections_answers_every_request(behaviour: str, host: str) -> None:
    texts = []
    with _upstream(behaviour) as upstream:
        if host == "stdio":
            peer = LinePeer([*PROXY, "--upstream", upstream])
            for n in range(1, 4):
                raw = peer.exchange(call(n, "x", version="2025-06-18"))
                texts.append(json.loads(raw or b"null")["result"]["content"][0]["text"])
                time.sleep(0.2)  # (idle-close: the server has closed that connection meanwhile)
            peer.close()
        else:
            with proxy_http(["--upstream", upstream]) as (url, _), httpx2.Client(timeout=TIMEOUT) as client:
                for n in range(1, 4):
                    response = client.post(url, json=call(n, "x", version="2025-06-18"), headers=POST_HEADERS)
                    texts.append(response.json()["result"]["content"][0]["text"])
                    time.sleep(0.2)
    assert texts == ["ok", "ok", "ok"]


# -- 4. an HTTP error status with the SDK's JSON-RPC error (a null id) ----------------------------
NOT_ACCEPTABLE = "the upstream answered HTTP 406: HTTP 406 from the server"
# (the upstream, the host's method; the host's status and body; the frame log's error note (None: none))
GET_STATUSES = [
    ("status:406", 406, _sdk_error(406), "the host's GET: the upstream answered HTTP 406 without an event stream "
                                         "(passed to the host)"),
    ("status:404", 404, _sdk_error(404), "the host's GET: the upstream answered HTTP 404 without an event stream "
                                         "(passed to the host)"),
    ("status:405", 405, _sdk_error(405), "the host's GET: the upstream answered HTTP 405 without an event stream "
                                         "(passed to the host)"),
]


@pytest.mark.parametrize(("behaviour", "status", "body", "note"), GET_STATUSES, ids=[r[0] for r in GET_STATUSES])
def test_a_get_the_upstream_answers_without_a_stream_is_passed_back_whole(tmp_path: Path, behaviour: str,
                                                                         status: int, body: bytes, note: str) -> None:
    log = tmp_path / "frames.jsonl"
    with _upstream(behaviour) as upstream, _proxy(upstream, log) as (url, _, _stderr), \
            httpx2.Client(timeout=TIMEOUT) as client:
        response = client.get(url, headers={**V2025, "Accept": "text/event-stream"})
    assert (response.status_code, response.headers.get("Content-Type"), response.content) == \
        (status, "application/json", body)
    assert _after_host_frames(log) == [("s2c", "error", note)]


# a POST's answer: its 406 (or the resume GET's) passes to an HTTP host as it came (status and
# body on the POST; the event on the stream already open, after its priming event), the SDK's
# error pairing with the request by its exchange; a stdio host, which pairs by id alone, gets
# -31004 under its request's id, then the upstream's error as it came
PRIMED = b"id: p-1\nretry: 10\ndata:\n\n"
POST_STATUSES = [
    ("status:406", "http", [(406, _sdk_error(406))]),
    ("resume-status:406", "http", [(200, PRIMED + b"event: message\ndata: " + _sdk_error(406) + b"\n\n")]),
    ("status:406", "stdio", [(5, -31004, NOT_ACCEPTABLE), (None, -32600, "HTTP 406 from the server")]),
    ("resume-status:406", "stdio", [(5, -31004, NOT_ACCEPTABLE), (None, -32600, "HTTP 406 from the server")]),
    ("status:404", "stdio", [(5, -31004, "the upstream answered HTTP 404: HTTP 404 from the server"),
                             (None, -32600, "HTTP 404 from the server")]),
]


@pytest.mark.parametrize(("behaviour", "host", "expected"), POST_STATUSES,
                         ids=[f"{r[0]}-{r[1]}" for r in POST_STATUSES])
def test_an_http_error_with_a_null_id_answers_the_request_it_came_for(tmp_path: Path, behaviour: str, host: str,
                                                                      expected: list[tuple[Any, ...]]) -> None:
    log = tmp_path / "frames.jsonl"
    got: list[tuple[Any, ...]] = []
    with _upstream(behaviour) as upstream:
        if host == "http":
            with _proxy(upstream, log) as (url, _, _stderr), httpx2.Client(timeout=TIMEOUT) as client:
                response = client.post(url, content=POST_BODY, headers=POST_HEADERS)
                got.append((response.status_code, response.content))
        else:
            peer = LinePeer([*PROXY, "--timeout", "5", "--log", str(log), "--upstream", upstream])
            peer.send(call(5, "x", version="2025-06-18"))
            for _ in expected:
                line = peer.recv()
                answer: dict[str, Any] = json.loads(line) if line else {"id": "no answer"}
                error = answer.get("error") or {}
                got.append((answer["id"], error.get("code"), str(error.get("message")).removeprefix(
                    "mcp-verdict proxy: ")))
            peer.close()
    assert got == expected


# -- 3. a GET that resumes a stream (Last-Event-ID): --timeout to its headers ---------------------
# (not a defect found: these rows pass on the code before this change too; they pin the rule the
# module docstring states). The host's GET: 504 and -31002 past --timeout 1; the proxy's own
# resume of a request's stream: the request's deadline, -31002 under its id.
def test_a_resuming_get_the_upstream_never_answers_ends_at_the_timeout(tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    with _upstream("resume-stall") as upstream, _proxy(upstream, log) as (url, _, _stderr), \
            httpx2.Client(timeout=TIMEOUT) as client:
        get = client.get(url, headers={**V2025, "Accept": "text/event-stream", "Last-Event-ID": "p-1"})
        post = client.post(url, content=POST_BODY, headers=POST_HEADERS)
    answer = json.loads(get.content)
    assert (get.status_code, answer["id"], answer["error"]["code"]) == (504, None, -31002)
    assert post.status_code == 200
    assert post.content == PRIMED + (b'event: message\ndata: {"jsonrpc":"2.0","id":1E2,"error":{"code":-31002,'
                                     b'"message":"mcp-verdict proxy: ' + STALLED.encode() + b'","data":{"source":'
                                     b'"mcp-verdict proxy","timeout":1.0}}}\n\n')


# -- an HTTP host's notifications/cancelled ----------------------------------------------------
# basic/utilities/cancellation: before 2026-07-28 a request is cancelled by the notification
# (2025-06-18 streamable-http: a disconnection SHOULD NOT be read as a cancellation); 2026-07-28
# over HTTP, by closing the request's stream: no notification goes. A request without
# MCP-Protocol-Version is 2025-03-26 (basic/transports/streamable-http, Protocol Version Header).
# (the host's headers; the methods the upstream receives)
CANCELS = [
    ({"MCP-Protocol-Version": "2025-06-18", "Mcp-Session-Id": "s-1"}, ["POST"]),
    ({"MCP-Protocol-Version": "2025-11-25"}, ["POST"]),  # a 2025 server without sessions
    ({}, ["POST"]),
    ({"MCP-Protocol-Version": "2026-07-28"}, []),
]
CANCEL = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}'


@pytest.mark.parametrize(("headers", "methods"), CANCELS, ids=["2025-session", "2025", "no-version", "2026"])
def test_an_http_hosts_cancellation_reaches_the_upstream_before_2026(headers: dict[str, str],
                                                                      methods: list[str]) -> None:
    with _headers_server() as upstream, proxy_http(["--upstream", upstream]) as (url, _), \
            httpx2.Client(timeout=TIMEOUT) as client:
        status = client.post(url, content=CANCEL, headers={"Content-Type": "application/json",
                                                           "Accept": "application/json, text/event-stream",
                                                           **headers}).status_code
        seen = client.get(upstream.replace("/mcp", "/seen")).json()
    assert (status, [method for method, _ in seen]) == (202, methods)


# a host's response to a server request (2025 sessions: sampling, elicitation) takes the same way
# (the host's body; the note of its frame-log error record)
RESPONSES = [
    (b'{"jsonrpc":"2.0","id":"s-9","result":{}}', NOTIFY.replace("notification", "response")),
    (b'{"jsonrpc":"2.0","id":"s-9","error":{"code":-1,"message":"declined"}}', NOTIFY.replace("notification",
                                                                                             "response")),
    (INITIALIZED, NOTIFY),
]


@pytest.mark.parametrize(("body", "note"), RESPONSES, ids=["result", "error", "notification"])
def test_a_hosts_response_the_upstream_refuses_is_its_status_and_in_the_frame_log(tmp_path: Path, body: bytes,
                                                                                 note: str) -> None:
    log = tmp_path / "frames.jsonl"
    with _upstream("status:404") as upstream, _proxy(upstream, log) as (url, _, _stderr), \
            httpx2.Client(timeout=TIMEOUT) as client:
        response = client.post(url, content=body, headers=POST_HEADERS)
    assert (response.status_code, response.content) == (404, _sdk_error(404))
    assert _after_host_frames(log) == [("c2s", "message", None),
                                       ("c2s", "error", note + "the upstream answered HTTP 404 (passed to the host)")]


# -- a stdio host's 2025 session with a server answering initialize by an event stream ----------
# basic/transports/streamable-http 2025-06-18: after initialization the client MUST send
# MCP-Protocol-Version on every request; it MAY open a GET stream for the server's own messages.
# The proxy does both for a stdio host whether initialize is answered by a JSON body or (the
# official SDK's default) an event stream. (the server's style; what it receives after
# initialize — method, JSON-RPC method, MCP-Protocol-Version)
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}}
SESSION_ROWS = [["POST", "initialize", None], ["GET", None, "2025-06-18"],
                ["POST", "notifications/initialized", "2025-06-18"], ["POST", "tools/call", "2025-06-18"]]
STYLES = [("json", SESSION_ROWS), ("sse", SESSION_ROWS)]


def _received(upstream: str, count: int) -> list[list[str | None]]:
    """What status_http_server.py received but pings, sorted, once it holds ``count`` rows (or
    after TIMEOUT): the proxy's POSTs and its GET go side by side, one may land after an answer."""

    def rows() -> list[list[str | None]]:
        seen = httpx2.get(upstream.replace("/mcp", "/seen"), timeout=TIMEOUT).json()
        return sorted((row for row in seen if row[1] != "ping"), key=json.dumps)

    wait_until(lambda: len(rows()) >= count, TIMEOUT)
    return rows()


@pytest.mark.parametrize(("style", "seen"), STYLES, ids=[row[0] for row in STYLES])
def test_a_stdio_hosts_2025_session_sends_the_version_and_opens_the_get_stream(style: str,
                                                                              seen: list[list[str | None]]) -> None:
    with _upstream(style) as upstream:
        peer = LinePeer([*PROXY, "--upstream", upstream])
        initialized = json.loads(peer.exchange(INITIALIZE) or b"null")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        peer.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "arguments": {}}})
        lines = [json.loads(peer.recv() or b"null") for _ in range(2)]  # the answer and the GET stream's message
        got = _received(upstream, len(seen))
        peer.close()
    assert initialized["result"]["protocolVersion"] == "2025-06-18"
    assert sorted(json.dumps(line, sort_keys=True) for line in lines) == sorted([
        '{"id": 2, "jsonrpc": "2.0", "result": {"content": [{"text": "ok", "type": "text"}], "isError": false}}',
        '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "one", "level": "info"}}'])
    assert got == sorted(seen, key=json.dumps)


# a stdio host's notifications/cancelled before 2026-07-28 reaches the server, with a session or
# without (basic/utilities/cancellation; closing a stream is no cancellation before 2026-07-28)
CANCEL_5 = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "t"}}
STDIO_CANCELS = [
    ("json", [["POST", "initialize", None], ["GET", None, "2025-06-18"],
              ["POST", "notifications/cancelled", "2025-06-18"]]),
    ("json-stateless", [["POST", "initialize", None], ["POST", "notifications/cancelled", "2025-06-18"]]),
]


@pytest.mark.parametrize(("style", "seen"), STDIO_CANCELS, ids=[row[0] for row in STDIO_CANCELS])
def test_a_stdio_hosts_cancellation_reaches_a_2025_server(style: str, seen: list[list[str | None]]) -> None:
    with _upstream(style) as upstream:
        peer = LinePeer([*PROXY, "--upstream", upstream])
        initialized = json.loads(peer.exchange(INITIALIZE) or b"null")
        peer.send(CANCEL_5)
        peer.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})  # answered after the cancellation went
        # the ping's answer (and, in a session, the GET stream's notifications/message)
        lines = [json.loads(peer.recv() or b"null") for _ in range(2 if style == "json" else 1)]
        got = _received(upstream, len(seen))
        peer.close()
    assert (initialized["id"], [line.get("id") for line in lines if "id" in line]) == (1, [2])
    assert got == sorted(seen, key=json.dumps)
