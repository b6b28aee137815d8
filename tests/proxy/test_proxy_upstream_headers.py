"""The headers an HTTP upstream receives through the proxy (HTTP host), per method: POST, GET and
DELETE are built one way — the host's headers less the hop-by-hop ones and those the proxy's
client writes, then ``--header``'s, ``Accept-Encoding: identity`` last.

RFC 9110 s7.6.1: a proxy MUST remove Connection and every header field it names, and SHOULD
remove Proxy-Connection, Keep-Alive, TE, Transfer-Encoding and Upgrade (Trailer alike, s6.6.2;
Proxy-Authorization is consumed by the proxy it names, s11.7.2). README, "The proxy": request
headers such as ``Authorization`` go upstream unchanged; ``--header "NAME: VALUE"`` adds one to
every upstream request."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ._peers import PROXY, TIMEOUT, LinePeer, _wait_for, proxy_http, wait_until
from .test_proxy_http_edges import _request, _request_bytes, _status

HEADERS_SERVER = [sys.executable, str(Path(__file__).with_name("headers_server.py"))]
PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
SSE = {"Accept": "text/event-stream"}

# every request from the host (tests' _request) also carries Host, Content-Type: application/json,
# Content-Length and Connection: close
HOP = {"Keep-Alive": "timeout=5", "TE": "trailers", "Trailer": "X-Sum", "Upgrade": "h2c",
       "Proxy-Authorization": "Basic cHJveHk6cHc=", "Proxy-Connection": "keep-alive",
       "Connection": "X-Private", "X-Private": "p", "Accept-Encoding": "gzip, br"}
KEPT = {"Authorization": "Bearer t0k", "Mcp-Session-Id": "s-1", "X-Tenant": "a"}
EXTRA = ["--header", "X-Api-Key: k1", "--header", "X-Tenant: b", "--header", "Accept-Encoding: gzip"]

# (method, body, host headers, --header options; the headers the upstream saw, less Host and
# Content-Length, which its client writes; sorted by name)
CASES = [
    ("POST", PING, {**HOP, **KEPT}, EXTRA,
     [("Accept", "application/json, text/event-stream"), ("Accept-Encoding", "identity"),
      ("Authorization", "Bearer t0k"), ("Content-Type", "application/json"), ("Mcp-Session-Id", "s-1"),
      ("X-Api-Key", "k1"), ("X-Tenant", "b")]),
    ("GET", b"", {**HOP, **KEPT, **SSE}, EXTRA,
     [("Accept", "text/event-stream"), ("Accept-Encoding", "identity"), ("Authorization", "Bearer t0k"),
      ("Content-Type", "application/json"), ("Mcp-Session-Id", "s-1"), ("X-Api-Key", "k1"), ("X-Tenant", "b")]),
    ("DELETE", b"", {**HOP, **KEPT}, EXTRA,
     [("Accept", "application/json, text/event-stream"), ("Accept-Encoding", "identity"),
      ("Authorization", "Bearer t0k"), ("Content-Type", "application/json"), ("Mcp-Session-Id", "s-1"),
      ("X-Api-Key", "k1"), ("X-Tenant", "b")]),
    # without --header: the host's own, less the hop-by-hop ones
    ("DELETE", b"", {**HOP, **KEPT}, [],
     [("Accept", "application/json, text/event-stream"), ("Accept-Encoding", "identity"),
      ("Authorization", "Bearer t0k"), ("Content-Type", "application/json"), ("Mcp-Session-Id", "s-1"),
      ("X-Tenant", "a")]),
    ("GET", b"", {**KEPT, **SSE, "Connection": "X-Tenant, Keep-Alive"}, [],
     [("Accept", "text/event-stream"), ("Accept-Encoding", "identity"), ("Authorization", "Bearer t0k"),
      ("Content-Type", "application/json"), ("Mcp-Session-Id", "s-1")]),
]


@contextlib.contextmanager
def _headers_server() -> Iterator[str]:
    process = subprocess.Popen(HEADERS_SERVER, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    try:
        yield _wait_for(rb"listening on (http://\S+)", process.stdout).decode()
    finally:
        process.kill()
        process.wait()


def _recorded(upstream: str, what: str = "seen") -> Any:
    """What the headers server recorded (``GET /seen``: each request's method and headers;
    ``GET /methods``: each POST's JSON-RPC method)."""
    with urllib.request.urlopen(upstream.replace("/mcp", f"/{what}"), timeout=TIMEOUT) as response:
        return json.loads(response.read())


def _seen(upstream: str) -> list[tuple[str, list[tuple[str, str]]]]:
    seen: list[tuple[str, list[tuple[str, str]]]] = _recorded(upstream)
    return seen


@pytest.mark.parametrize(("method", "body", "host", "extra", "seen"), CASES)
def test_the_upstream_gets_the_hosts_headers_less_hop_by_hop_and_the_header_options(
        method: str, body: bytes, host: dict[str, str], extra: list[str], seen: list[tuple[str, str]]) -> None:
    with _headers_server() as upstream, proxy_http(["--upstream", upstream, *extra]) as (url, _):
        status = _status(_request(url, method, body, host))
        requests = _seen(upstream)
    assert status == 200
    assert [m for m, _ in requests] == [method]
    got = sorted((name, value) for name, value in requests[0][1] if name.lower() not in ("host", "content-length"))
    assert got == seen


# Cookies (RFC 6265). The stdio host's proxy is its upstream's one client: it keeps the cookies its
# upstream sets on an answer and sends them on the requests after it (s5.3, s5.4), as a direct
# client would (a load balancer's affinity cookie), those of an upstream given by its IP address
# too. An HTTP-host proxy serves many hosts with one client: it keeps none, passes every
# Set-Cookie back to the host whose request it answers, and sends upstream the Cookie each host
# writes; one host's cookie never goes out on another's request.
SET_COOKIE = b'{"jsonrpc":"2.0","id":1,"method":"cookie/set"}'
COOKIE_CALLS = [SET_COOKIE, PING.replace(b'"id":1', b'"id":2'), PING.replace(b'"id":1', b'"id":3')]


def _cookies_seen(upstream: str) -> list[list[str]]:
    return [[value for name, value in headers if name.lower() == "cookie"] for method, headers in _seen(upstream)
            if method == "POST"]


@pytest.mark.parametrize("named", [True, False], ids=["by name", "by IP address"])
def test_the_stdio_hosts_proxy_sends_back_the_cookies_its_upstream_set(named: bool) -> None:
    with _headers_server() as server:
        upstream = server.replace("127.0.0.1", "localhost") if named else server
        peer = LinePeer([*PROXY, "--upstream", upstream])
        answers = []
        for body in COOKIE_CALLS:
            peer.send_raw(body + b"\n")
            answers.append(json.loads(peer.recv() or b"null")["id"])
        peer.close()
        cookies = _cookies_seen(upstream)
    assert answers == [1, 2, 3]
    assert cookies == [[], ["affinity=a1"], ["affinity=a1"]]


def _head(response: bytes, name: str) -> list[str]:
    head = response.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    return [line.split(":", 1)[1].strip() for line in head if line.split(":", 1)[0].lower() == name.lower()]


# (which host sends each request, in order): each host keeps the cookies its answers set, as a
# client does, and writes them on its next requests; host a's first request sets the affinity
# cookie
TWO_HOSTS = ["a", "a", "b", "a", "b"]


def test_an_http_hosts_proxy_passes_cookies_through_and_never_from_one_host_to_another() -> None:
    jars: dict[str, str] = {}
    set_cookies = []
    with _headers_server() as server:
        upstream = server.replace("127.0.0.1", "localhost")  # (a name: cookies a client's jar would keep)
        with proxy_http(["--upstream", upstream]) as (url, _):
            for number, host in enumerate(TWO_HOSTS, 1):
                body = (SET_COOKIE if number == 1 else PING).replace(b'"id":1', b'"id":%d' % number)
                response = _request(url, "POST", body, {"Cookie": jars[host]} if host in jars else None)
                assert _status(response) == 200
                got = _head(response, "Set-Cookie")
                set_cookies.append(got)
                for cookie in got:
                    jars[host] = cookie.split(";", 1)[0]
        cookies = _cookies_seen(upstream)
    assert cookies == [[], ["affinity=a1"], [], ["affinity=a1"], []]  # (the upstream's view, request by request)
    assert set_cookies == [["affinity=a1; Path=/"], [], [], [], []]
    assert jars == {"a": "affinity=a1"}


# (method, body, more host headers, the host's status): every answer the upstream gives an HTTP
# host's request passes its Set-Cookie fields back, both, in order (RFC 6265 s3: one cookie per
# field; RFC 9110 s5.3: never folded into one)
PASS_BACK = [
    ("POST", PING, {}, 200),  # a request: its JSON answer
    ("POST", b'{"jsonrpc":"2.0","method":"notifications/initialized"}', {}, 202),  # a notification
    ("GET", b"", SSE, 200),  # an event stream (here one that ends at once)
    ("GET", b"", {**SSE, "X-No-Stream": "1"}, 405),  # an upstream that offers no stream
    ("DELETE", b"", {"Mcp-Session-Id": "s-1"}, 200),
]


@pytest.mark.parametrize(("method", "body", "headers", "status"), PASS_BACK)
def test_an_http_hosts_proxy_passes_every_set_cookie_back(method: str, body: bytes, headers: dict[str, str],
                                                           status: int) -> None:
    with _headers_server() as upstream, proxy_http(["--upstream", upstream]) as (url, _):
        response = _request(url, method, body, {**headers, "X-Set-Cookie": "1"})
    assert _status(response) == status
    assert _head(response, "Set-Cookie") == ["affinity=a1; Path=/", "theme=dark; Path=/; HttpOnly"]


# A host's POST whose event stream the upstream closes before its answer: the proxy resumes it
# with a GET carrying Last-Event-ID (2025-06-18 basic/transports, Resumability and Redelivery),
# and with the headers the host's POST carried, as the host's own client would: its session
# (a server MUST answer a request without its Mcp-Session-Id with 400), its credentials
# (2025-06-18 basic/authorization: on every request) and its cookies. Before, an HTTP host's
# resume carried none of them, so a session's or an authenticated upstream's resume failed.
RESUME = b'{"jsonrpc":"2.0","id":7,"method":"stream/resume"}'
OWN = {"Authorization": "Bearer t0k", "Cookie": "affinity=a1", "Mcp-Session-Id": "s-1",
       "MCP-Protocol-Version": "2025-06-18"}


def test_an_http_hosts_stream_is_resumed_with_the_hosts_own_headers() -> None:
    with _headers_server() as upstream, proxy_http(["--upstream", upstream]) as (url, _):
        response = _request(url, "POST", RESUME, OWN)
        requests = _seen(upstream)
    assert _status(response) == 200
    assert b'data: {"jsonrpc": "2.0", "id": 7, "result": {}}' in response
    assert [method for method, _ in requests] == ["POST", "GET"]
    got = sorted((name, value) for name, value in requests[1][1] if name.lower() not in ("host", "content-length"))
    assert got == [("Accept", "text/event-stream"), ("Accept-Encoding", "identity"), ("Authorization", "Bearer t0k"),
                   ("Cookie", "affinity=a1"), ("Last-Event-ID", "p-1"), ("MCP-Protocol-Version", "2025-06-18"),
                   ("Mcp-Session-Id", "s-1")]


# A call of a 2025 session the proxy stops awaiting on its HTTP host's behalf (no answer within
# --timeout, or the host closed its POST's connection) is cancelled upstream by a
# notifications/cancelled (2025-06-18 basic/utilities/cancellation; basic/transports: a
# disconnection is no cancellation, the client SHOULD send the notification), POSTed with the
# headers the host's POST carried: its session, credentials and cookies. Before, the proxy sent
# none: it knew no session to send it in, and the upstream worked on.
HANG = b'{"jsonrpc":"2.0","id":3,"method":"hang"}'


@pytest.mark.parametrize("ends", ["--timeout", "the host closes its stream"])
def test_a_call_the_proxy_stops_awaiting_is_cancelled_upstream_under_the_hosts_headers(ends: str) -> None:
    with _headers_server() as upstream, proxy_http(["--upstream", upstream, "--timeout", "1"]) as (url, _):
        if ends == "--timeout":
            response = _request(url, "POST", HANG, OWN)
            assert _status(response) == 200 and b'"code":-31002' in response  # UPSTREAM_TIMEOUT
        else:  # (its request sent, the socket closed once the upstream has it)
            address = urlsplit(url)
            with socket.create_connection((address.hostname, address.port), timeout=TIMEOUT) as sock:
                sock.sendall(_request_bytes(url, "POST", HANG, OWN))
                assert wait_until(lambda: _recorded(upstream, "methods") == ["hang"], TIMEOUT)
        assert wait_until(lambda: len(_recorded(upstream, "methods")) == 2, TIMEOUT)
        methods, requests = _recorded(upstream, "methods"), _seen(upstream)
    assert methods == ["hang", "notifications/cancelled"]
    got = {name: value for name, value in requests[1][1] if name in ("Authorization", "Cookie", "Mcp-Session-Id",
                                                                      "MCP-Protocol-Version")}
    assert got == OWN


# A 2025-03-26 batch (basic/index#batching) is one POST upstream: every request of it the proxy
# stops awaiting is cancelled under that POST's headers, the first request's and the others'.
# Before, only the first request's cancellation was sent (the POST's headers were kept under it
# alone): the upstream worked on at the others.
BATCH_HANG = b'[{"jsonrpc":"2.0","id":3,"method":"hang"},{"jsonrpc":"2.0","id":4,"method":"hang"}]'
OWN_2025_03 = {**OWN, "MCP-Protocol-Version": "2025-03-26"}


@pytest.mark.parametrize("ends", ["--timeout", "the host closes its stream"])
def test_every_request_of_a_batch_the_proxy_stops_awaiting_is_cancelled_upstream(ends: str) -> None:
    with _headers_server() as upstream, proxy_http(["--upstream", upstream, "--timeout", "1"]) as (url, _):
        if ends == "--timeout":
            response = _request(url, "POST", BATCH_HANG, OWN_2025_03)
            assert _status(response) == 200 and response.count(b'"code":-31002') == 2  # UPSTREAM_TIMEOUT, each
        else:
            address = urlsplit(url)
            with socket.create_connection((address.hostname, address.port), timeout=TIMEOUT) as sock:
                sock.sendall(_request_bytes(url, "POST", BATCH_HANG, OWN_2025_03))
                assert wait_until(lambda: _recorded(upstream, "methods") == ["hang", "hang"], TIMEOUT)
        assert wait_until(lambda: len(_recorded(upstream, "methods")) == 4, TIMEOUT)
        methods, cancelled, requests = _recorded(upstream, "methods"), _recorded(upstream, "cancelled"), \
            _seen(upstream)
    assert methods == ["hang", "hang", "notifications/cancelled", "notifications/cancelled"]
    assert sorted(cancelled) == [3, 4]
    for _, headers in requests[1:]:
        got = {name: value for name, value in headers if name in ("Authorization", "Cookie", "Mcp-Session-Id",
                                                                  "MCP-Protocol-Version")}
        assert got == OWN_2025_03


POST_HEADERS = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"),
                ("Accept-Encoding", "identity")]
# (a GET's Last-Event-ID or None; the GET's headers) -- the POSTs' headers the same before and after
STREAM_HEADERS = [
    ("41", [("Accept", "text/event-stream"), ("Accept-Encoding", "identity"), ("Last-Event-ID", "41")]),
    (None, [("Accept", "text/event-stream"), ("Accept-Encoding", "identity")]),
]


@pytest.mark.parametrize(("last_event_id", "expected"), STREAM_HEADERS)
def test_a_streams_headers_leave_an_http_hosts_post_headers_unchanged(last_event_id: str | None,
                                                                      expected: list[tuple[str, str]]) -> None:
    """An HTTP host's POST headers are kept for its next POSTs; a GET for an event stream (the
    listening one, or a POST's stream resumed) takes a copy. Before, the GET's changes were made
    to the kept headers: after a resumed stream the proxy's own POSTs (its reply to a server
    request) asked for an event stream only, with a Last-Event-ID and no Content-Type."""
    import asyncio

    from mcp_verdict.proxy import Relay
    from mcp_verdict.proxy._bridge import Bridge
    from mcp_verdict.proxy._http_upstream import HttpUpstream

    async def go() -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, str]]]:
        upstream = HttpUpstream(Bridge(Relay(mode="observe")), "http://127.0.0.1:9/mcp", limit=1 << 20,
                                timeout=5.0, stdio_host=False)
        before = list(upstream._request_headers(b"", None).items())
        stream = list(upstream.stream_headers(last_event_id).items())
        return before, stream, list(upstream._request_headers(b"", None).items())

    before, stream, after = asyncio.run(go())
    assert (before, stream, after) == (POST_HEADERS, expected, POST_HEADERS)


# A stdio host's 2026-07-28 tools/call to an HTTP upstream: the proxy writes the Mcp-Param-{name}
# headers of the tool's x-mcp-header properties (from the upstream's tools/list, the tools of
# param_server.py) from the call's arguments. (the tool, its arguments; the Mcp-Param headers the
# upstream sees) — by hand from 2026-07-28 basic/transports/streamable-http, Custom Headers from
# Tool Parameters: Value Encoding (its examples: plain visible ASCII as is, else the Base64
# sentinel of the UTF-8; an integer its decimal form, a boolean lowercase), a null or absent
# argument gets no header, a tool whose annotations break the Schema Extension's constraints is
# dropped by a client (none). Before, 42.0 got none and the number-typed property one.
# An integer is the one the body writes (the host's JSON text), however large.
META_2026: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
                             "io.modelcontextprotocol/clientCapabilities": {}}
"""The ``_meta`` of a stdio host's 2026-07-28 request (basic/index: each request carries it)."""
WRITTEN: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("route", {"region": "us-west1", "note": "n"}, [("Mcp-Param-Region", "us-west1")]),
    ("route", {"region": "Hello, 世界"}, [("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?=")]),
    ("route", {"region": " padded "}, [("Mcp-Param-Region", "=?base64?IHBhZGRlZCA=?=")]),
    ("route", {"region": "line1\nline2"}, [("Mcp-Param-Region", "=?base64?bGluZTEKbGluZTI=?=")]),
    ("route", {"region": "a\tb"}, [("Mcp-Param-Region", "=?base64?YQli?=")]),  # a tab: a control character
    ("route", {"region": "a b"}, [("Mcp-Param-Region", "a b")]),
    ("route", {"region": "=?base64?literal?="}, [("Mcp-Param-Region", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")]),
    ("route", {"count": 42}, [("Mcp-Param-Count", "42")]),
    ("route", {"count": 42.0}, [("Mcp-Param-Count", "42")]),  # JSON Schema: 42.0 is an integer
    ("route", {"count": -7, "flag": False}, [("Mcp-Param-Count", "-7"), ("Mcp-Param-Flag", "false")]),
    # the integer the body writes, past 64 bits (before: the double orjson reads, ...616 and ...0000)
    ("route", {"count": 18446744073709551617}, [("Mcp-Param-Count", "18446744073709551617")]),
    ("route", {"count": -(10 ** 30) - 1}, [("Mcp-Param-Count", "-1000000000000000000000000000001")]),
    ("route", {"flag": True, "target": {"zone": "eu"}}, [("Mcp-Param-Flag", "true"), ("Mcp-Param-Zone", "eu")]),
    ("route", {"region": None, "target": {}}, []),
    ("broken", {"regions": ["a"]}, []),
    ("number", {"n": 3}, []),
    ("unlisted", {"region": "us-west1"}, []),
]


def test_a_stdio_hosts_tool_call_gets_the_mcp_param_headers_of_its_tool() -> None:
    meta = META_2026
    with _headers_server() as upstream:
        peer = LinePeer([*PROXY, "--upstream", upstream])
        peer.send({"jsonrpc": "2.0", "id": 0, "method": "tools/list", "params": {"_meta": meta}})
        answered = [json.loads(peer.recv() or b"null")["id"]]
        for request_id, (name, arguments, _) in enumerate(WRITTEN, 1):
            peer.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments, "_meta": meta}})
            answered.append(json.loads(peer.recv() or b"null")["id"])
        peer.close()
        posts = [headers for method, headers in _seen(upstream) if method == "POST"][1:]
    assert answered == list(range(len(WRITTEN) + 1))
    assert [sorted((k, v) for k, v in headers if k.lower().startswith("mcp-param-")) for headers in posts] == [
        written for _, _, written in WRITTEN]


# A stdio host's 2026-07-28 requests to an HTTP upstream: the proxy writes Mcp-Method (every
# request) and Mcp-Name from the body — params.name on tools/call and prompts/get, params.uri on
# resources/read (2026-07-28 basic/transports/streamable-http, Standard Request Headers), and
# params.taskId on the tasks extension's tasks/get, tasks/update and tasks/cancel (ext-tasks,
# specification/draft/tasks.md: "the client MUST set the Mcp-Name header to the value of
# params.taskId"), a value past visible ASCII as the Base64 sentinel (Value Encoding). (the
# method, its params; the Mcp-Method and Mcp-Name the upstream sees) — by hand. Before, the task
# requests went without Mcp-Name.
NAMED_WRITTEN: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("tools/call", {"name": "route", "arguments": {}}, [("Mcp-Method", "tools/call"), ("Mcp-Name", "route")]),
    ("prompts/get", {"name": "greet"}, [("Mcp-Method", "prompts/get"), ("Mcp-Name", "greet")]),
    ("resources/read", {"uri": "file:///a b"}, [("Mcp-Method", "resources/read"), ("Mcp-Name", "file:///a b")]),
    ("tasks/get", {"taskId": "t-1"}, [("Mcp-Method", "tasks/get"), ("Mcp-Name", "t-1")]),
    ("tasks/update", {"taskId": "任务", "inputResponses": {}},
     [("Mcp-Method", "tasks/update"), ("Mcp-Name", "=?base64?5Lu75Yqh?=")]),
    ("tasks/cancel", {"taskId": "t-3"}, [("Mcp-Method", "tasks/cancel"), ("Mcp-Name", "t-3")]),
    ("tasks/get", {"taskId": 7}, [("Mcp-Method", "tasks/get")]),  # no string: no header
    ("ping", {}, [("Mcp-Method", "ping")]),
    ("tools/list", {}, [("Mcp-Method", "tools/list")]),
]


def test_a_stdio_hosts_request_gets_the_mcp_name_of_its_method() -> None:
    meta = META_2026
    with _headers_server() as upstream:
        peer = LinePeer([*PROXY, "--upstream", upstream])
        answered = []
        for request_id, (method, params, _) in enumerate(NAMED_WRITTEN, 1):
            peer.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}})
            answered.append(json.loads(peer.recv() or b"null")["id"])
        peer.close()
        posts = [headers for method, headers in _seen(upstream) if method == "POST"]
    assert answered == list(range(1, len(NAMED_WRITTEN) + 1))
    assert [sorted((k, v) for k, v in headers if k.lower() in ("mcp-method", "mcp-name")) for headers in posts] == [
        written for _, _, written in NAMED_WRITTEN]


# Whether an HTTP host's cancellation goes to an HTTP upstream as notifications/cancelled (before
# 2026-07-28; basic/utilities/cancellation) or is the closing of the request's stream (2026-07-28
# and later, basic/transports/streamable-http: Cancellation): (the host's MCP-Protocol-Version;
# sent as a notification). Without the header, 2025-03-26 (Protocol Version Header). A text that
# is no version date is read as the host side reads it (frames/_routing_headers.stateless: not stateless,
# its cancellation forwarded as a notification): before, the upstream side read "9999" and
# "2026-07-28x" as stateless and dropped the notification the host side had forwarded.
CANCEL_BY_NOTIFICATION = [
    ("2026-07-28", False),
    ("2027-01-15", False),
    ("2025-11-25", True),
    ("2025-03-26", True),
    (None, True),
    ("9999", True),
    ("2026-07-28x", True),
    ("draft", True),
]


@pytest.mark.parametrize(("version", "expected"), CANCEL_BY_NOTIFICATION)
def test_an_http_hosts_cancellation_is_a_notification_before_2026_07_28(version: str | None,
                                                                         expected: bool) -> None:
    import asyncio

    from mcp_verdict.proxy import Relay
    from mcp_verdict.proxy._bridge import Bridge
    from mcp_verdict.proxy._http_upstream import HttpUpstream

    async def go() -> bool:
        upstream = HttpUpstream(Bridge(Relay(mode="observe")), "http://127.0.0.1:9/mcp", limit=1 << 20,
                                timeout=5.0, stdio_host=False)
        host = {} if version is None else {"MCP-Protocol-Version": version}
        return upstream._cancels_by_notification(host)

    assert asyncio.run(go()) is expected
