"""What an HTTP host's POST must agree with over a stdio upstream, where the proxy is the HTTP
server (the process behind it sees no headers, and serves every host on one connection):

- 2026-07-28 basic/transports/streamable-http, Protocol Version Header, Standard Request
  Headers, Value Encoding and Server Validation: ``MCP-Protocol-Version`` MUST match the body's
  ``_meta`` ``io.modelcontextprotocol/protocolVersion``; ``Mcp-Method`` (every request) and
  ``Mcp-Name`` (``tools/call``, ``resources/read``, ``prompts/get``) are REQUIRED and match
  ``method`` and ``params.name``/``params.uri`` (a Base64 sentinel decoded; values are
  case-sensitive); a server that processes the body MUST reject a request failing this with
  ``400 Bad Request`` and HeaderMismatch (-32020). A server MAY take a request without
  ``MCP-Protocol-Version`` as 2025-03-26's: that header is not required.
- a 2025 host's JSON-RPC response must answer a request the server sent to that host's session
  and that is still unanswered: the server's error to any other response (under its id, or a
  null one) would be taken for the answer of another host's request in flight.

Each refused body gets 400 and a JSON-RPC error, is not forwarded, and is logged as refused.
Real proxy, real stdio servers (the demo; ``asking_server.py``), raw sockets on 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.demo import stdio_command

from ._peers import TIMEOUT, call, wait_until
from ._restarting import frame_records
from .test_proxy_http_edges import _address, _request, _status
from .test_proxy_http_host_hostile import _body, _proxy, _Stream

ASKING = [sys.executable, str(Path(__file__).with_name("asking_server.py"))]
HEADER_MISMATCH, INVALID_REQUEST = -32020, -32600
FORECAST = json.dumps(call(7, "get_forecast", {"city": "Paris"})).encode()
OLD_META = json.dumps(call(7, "get_forecast", {"city": "Paris"}, version="2025-11-25")).encode()
NOTE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}'
PING = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
V = "2026-07-28"
OK = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": "get_forecast"}

# (the body, its headers as the host writes them; the status, and the JSON-RPC error's (id,
# code) — None: the server's answer went through). Before, each was relayed whatever its headers.
AGREEMENT = [
    (FORECAST, OK, 200, None),
    (FORECAST, {**OK, "Mcp-Name": "=?base64?Z2V0X2ZvcmVjYXN0?="}, 200, None),  # "get_forecast", Value Encoding
    (FORECAST, {"MCP-Protocol-Version": V, "Mcp-Name": "get_forecast"}, 400, (7, HEADER_MISMATCH)),  # no Mcp-Method
    (FORECAST, {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call"}, 400, (7, HEADER_MISMATCH)),  # no Mcp-Name
    (FORECAST, {**OK, "Mcp-Method": "tools/list"}, 400, (7, HEADER_MISMATCH)),
    (FORECAST, {**OK, "Mcp-Name": "delete_everything"}, 400, (7, HEADER_MISMATCH)),
    (FORECAST, {**OK, "Mcp-Name": "Get_Forecast"}, 400, (7, HEADER_MISMATCH)),  # values are case-sensitive
    (FORECAST, {**OK, "Mcp-Name": "=?base64?ZGVsZXRl?="}, 400, (7, HEADER_MISMATCH)),  # "delete"
    (FORECAST, {**OK, "Mcp-Name": "=?base64?!!?="}, 400, (7, HEADER_MISMATCH)),  # no Base64
    (FORECAST, {**OK, "MCP-Protocol-Version": "2025-11-25"}, 400, (7, HEADER_MISMATCH)),  # the body's _meta says 2026
    (OLD_META, OK, 400, (7, HEADER_MISMATCH)),  # the header says 2026-07-28, the _meta 2025-11-25
    (FORECAST, {}, 200, None),  # no MCP-Protocol-Version: a server MAY take it as 2025-03-26's
    (NOTE, {"MCP-Protocol-Version": V}, 202, None),  # Mcp-Method is required on requests
    (NOTE, {"MCP-Protocol-Version": V, "Mcp-Method": "notifications/message"}, 202, None),
    (NOTE, {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call"}, 400, (None, HEADER_MISMATCH)),
    (PING, {"MCP-Protocol-Version": "2025-06-18", "Mcp-Method": "tools/call"}, 200, None),  # 2025: unchanged
]


@pytest.mark.parametrize(("body", "headers", "status", "answer"), AGREEMENT,
                         ids=["agree", "name-base64", "no-method", "no-name", "other-method", "other-name",
                              "name-case", "other-name-base64", "name-bad-base64", "header-2025-meta-2026",
                              "header-2026-meta-2025", "no-version-header", "notification-no-method",
                              "notification-method", "notification-other-method", "2025-unchecked"])
def test_a_2026_request_whose_headers_disagree_with_its_body_is_refused_over_a_stdio_server(
        tmp_path: Path, body: bytes, headers: dict[str, str], status: int, answer: tuple[Any, int] | None) -> None:
    log = tmp_path / "frames.jsonl"
    with _proxy(["--log", str(log), "--log-payloads", "--", *stdio_command()], tmp_path / "err") as url:
        response = _request(url, "POST", body, headers, routing=False)
    got = _body(response)
    error = (got["id"], got["error"]["code"]) if got and "error" in got else None
    assert (_status(response), error if status == 400 else None) == (status, answer)
    if status == 400:
        assert "mcp-verdict proxy: header mismatch: " in got["error"]["message"]
    records = [r for r in frame_records(log) if r["dir"] == "c2s" and r["kind"] in ("message", "refused")]
    assert [r["kind"] for r in records] == (["refused"] if status == 400 else ["message"])


def test_two_mcp_name_headers_are_refused(tmp_path: Path) -> None:
    """A required header given twice is malformed (an intermediary may route on one, the server
    on the other)."""
    head = (b"POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            b"Mcp-Method: tools/call\r\nMcp-Name: get_forecast\r\nMcp-Name: delete_everything\r\n")
    with _proxy(["--", *stdio_command()], tmp_path / "err") as url:
        host, port, address = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(head.replace(b"{address}", address.encode())
                         + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(FORECAST) + FORECAST)
            response = b""
            while chunk := sock.recv(65536):
                response += chunk
    got = _body(response)
    assert (_status(response), got["id"], got["error"]["code"]) == (400, 7, HEADER_MISMATCH)


# -- a 2025 host's response that answers no server request of its session -------------------------
def _session(url: str, version: str) -> str:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    response = _request(url, "POST", json.dumps(init).encode(), {"MCP-Protocol-Version": version})
    found = re.search(rb"(?i)\r\nmcp-session-id: ([^\r\n]+)\r\n", response)
    assert _status(response) == 200 and found is not None, response
    return found.group(1).decode()


def _tool(request_id: int, name: str, arguments: dict[str, Any] | None = None) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments or {}}}).encode()


def _text(response: bytes) -> tuple[Any, str]:
    """(the id, the text) of a tool call's answer, one JSON body or the last SSE event."""
    body = response.partition(b"\r\n\r\n")[2]
    events = re.findall(rb"data: ([^\r\n]+)", body)
    answer = json.loads(events[-1]) if events else json.loads(body)
    return answer["id"], answer["result"]["content"][0]["text"]


# (the session's version, what the second host posts while the first host's call with id 1 is in
# flight; the JSON-RPC (id, code) of its 400). Before, each was relayed with 202 and the server's
# error to it (id 1, or null: paired with the only request waiting) reached the first host.
STRAY = [
    ("2025-06-18", b'{"jsonrpc":"2.0","id":1,"result":{}}', (None, INVALID_REQUEST)),
    ("2025-06-18", b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}', (None, INVALID_REQUEST)),
    ("2025-06-18", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}', (None, INVALID_REQUEST)),
    ("2025-03-26", b'[{"jsonrpc":"2.0","id":1,"result":{}}]', (None, INVALID_REQUEST)),  # a batch (2025-03-26)
]


@pytest.mark.parametrize(("version", "body", "answer"), STRAY, ids=["result", "error", "null-id-error", "batch"])
def test_a_host_response_to_no_server_request_is_refused_over_a_stdio_server(
        tmp_path: Path, version: str, body: bytes, answer: tuple[Any, int]) -> None:
    log = tmp_path / "frames.jsonl"
    first: list[bytes] = []
    with _proxy(["--log", str(log), "--log-payloads", "--", *ASKING], tmp_path / "err") as url:
        one, two = _session(url, version), _session(url, version)
        slow = _tool(1, "slow", {"seconds": 1.5})
        thread = threading.Thread(target=lambda: first.append(_request(
            url, "POST", slow, {"MCP-Protocol-Version": version, "Mcp-Session-Id": one})))
        thread.start()
        assert wait_until(lambda: any('"slow"' in r.get("data", "") for r in frame_records(log)), TIMEOUT)
        response = _request(url, "POST", body, {"MCP-Protocol-Version": version, "Mcp-Session-Id": two})
        thread.join(TIMEOUT)
    got = _body(response)
    mine = _body(first[0]) if b"data: " not in first[0] else json.loads(
        re.findall(rb"data: ([^\r\n]+)", first[0])[-1])
    assert ((_status(response), (got["id"], got["error"]["code"]) if got else None),
            (mine["id"], mine.get("result", mine.get("error")))) == (
        (400, answer), (1, {"content": [{"type": "text", "text": "slow done"}], "isError": False}))  # its own answer
    refused = [r for r in frame_records(log) if r["kind"] == "refused" and r["dir"] == "c2s"]
    assert len(refused) == 1


def test_a_host_response_answers_only_its_own_sessions_server_request_once(tmp_path: Path) -> None:
    """A server request goes to a GET stream of one session: a response to it from that session
    is relayed (202) once; from another session, or a second time, it is refused. A server
    request no parser reads (NaN) may be answered with a null id by its session only."""
    version = "2025-06-18"
    statuses: list[int] = []
    calls: list[bytes] = []
    with _proxy(["--", *ASKING], tmp_path / "err") as url:
        one, two = _session(url, version), _session(url, version)
        headers = {"MCP-Protocol-Version": version}
        stream = _Stream(url, {**headers, "Mcp-Session-Id": two})
        try:
            assert wait_until(lambda: b"\r\n\r\n" in stream.raw, TIMEOUT)
            for name, request_id, asked, reply in [
                    ("ask", 5, b'"s-1"', b'{"jsonrpc":"2.0","id":"s-1","result":{"roots":[]}}'),
                    ("ask_unreadable", 6, b'"u-2"', b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,'
                                                    b'"message":"Parse error"}}')]:
                thread = threading.Thread(target=lambda n=name, i=request_id: calls.append(_request(
                    url, "POST", _tool(i, n), {**headers, "Mcp-Session-Id": two})))
                thread.start()
                assert wait_until(lambda a=asked: a in stream.raw, TIMEOUT)
                statuses.extend(_status(_request(url, "POST", reply, {**headers, "Mcp-Session-Id": session}))
                                for session in (one, two, two))  # another session's host; its own; its own again
                thread.join(TIMEOUT)
        finally:
            stream.close()
    assert statuses == [400, 202, 400, 400, 202, 400]
    assert [_text(c) for c in calls] == [(5, "answered s-1"), (6, "answered u-2")]
