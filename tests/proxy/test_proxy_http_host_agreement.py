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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.demo import stdio_command
from mcp_verdict.proxy._http_host import MAX_ASKED

from ._peers import TIMEOUT, call, wait_until
from ._restarting import frame_records
from .test_proxy_http_edges import _address, _request, _status
from .test_proxy_http_host_hostile import _body, _close_all, _proxy, _Stream

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


def test_the_server_requests_of_a_deleted_session_are_forgotten(tmp_path: Path) -> None:
    """The server requests that await a host's answer are kept, at most 4,096 (the oldest
    forgotten past them, its host's late answer refused); those of a session its host ended
    (HTTP DELETE) are forgotten with it — no host can answer them any more (404: no session).
    Here B's request s-1 awaits; 4,095 more go to A's GET stream (4,096 in all), A's host ends
    its session, and one more goes to B's stream. Before, A's stayed until the cap: the 4,097th
    pushed out s-1, and B's answer to it was refused (400), its call left unanswered."""
    assert MAX_ASKED == 4096
    version = "2025-06-18"
    headers = {"MCP-Protocol-Version": version}
    calls: list[bytes] = []
    with _proxy(["--", *ASKING], tmp_path / "err") as url:
        one, two = _session(url, version), _session(url, version)
        stream_two = _Stream(url, {**headers, "Mcp-Session-Id": two})
        streams = [stream_two]
        try:
            assert wait_until(lambda: b"\r\n\r\n" in stream_two.raw, TIMEOUT)
            thread = threading.Thread(target=lambda: calls.append(_request(
                url, "POST", _tool(5, "ask"), {**headers, "Mcp-Session-Id": two})))
            thread.start()
            assert wait_until(lambda: b'"s-1"' in stream_two.raw, TIMEOUT)
            stream_one = _Stream(url, {**headers, "Mcp-Session-Id": one})  # the server's requests go here now
            streams.append(stream_one)
            assert wait_until(lambda: b"\r\n\r\n" in stream_one.raw, TIMEOUT)
            flood = _request(url, "POST", _tool(6, "flood", {"count": 4095}), {**headers, "Mcp-Session-Id": one})
            assert _text(flood) == (6, "flooded 4095")
            assert wait_until(lambda: b'"f-4095"' in stream_one.raw, TIMEOUT)
            deleted = _status(_request(url, "DELETE", b"", {**headers, "Mcp-Session-Id": one}))
            assert stream_one.ended.wait(TIMEOUT)  # (B's stream is the server's again)
            more = _request(url, "POST", _tool(7, "flood", {"count": 1}), {**headers, "Mcp-Session-Id": two})
            assert wait_until(lambda: b'"f-4096"' in stream_two.raw, TIMEOUT)
            answer = _request(url, "POST", b'{"jsonrpc":"2.0","id":"s-1","result":{"roots":[]}}',
                              {**headers, "Mcp-Session-Id": two})
            thread.join(TIMEOUT)
        finally:
            _close_all(streams)
    assert (deleted, _text(more), _status(answer), [_text(c) for c in calls]) == (
        200, (7, "flooded 1"), 202, [(5, "answered s-1")])


# -- a 2026-07-28 tools/call's Mcp-Param-{name} headers (the tool's x-mcp-header properties) -------
PARAMS = [sys.executable, str(Path(__file__).with_name("param_server.py"))]
_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
         "params": {"_meta": call(1, "x")["params"]["_meta"]}}
FORWARDED = 200
"""The call reached the server (its answer, ``called <name> <arguments>``, came back)."""


def _param_call(url: str, name: str, arguments: dict[str, Any], params: dict[str, str],
                version: str | None = V) -> tuple[int, Any]:
    """(the status; the server's text, or the JSON-RPC error's (id, code)) of a tools/call with
    id 7 and the ``params`` headers (``version``: its ``MCP-Protocol-Version``, None: none),
    with the ``Mcp-Method`` and ``Mcp-Name`` a 2026-07-28 host sends."""
    body = json.dumps(call(7, name, arguments)).encode()
    headers = {**({"MCP-Protocol-Version": version} if version is not None else {}), **params}
    response = _request(url, "POST", body, headers)
    status = _status(response)
    if status != 200:
        got = _body(response)
        assert got["error"]["message"].startswith("mcp-verdict proxy: header mismatch: the Mcp-Param-"), got
        return status, (got["id"], got["error"]["code"])
    return status, _text(response)[1]


# (the tool, its arguments, the Mcp-Param headers the host sends; FORWARDED, or the code of the
# JSON-RPC error of the 400 it gets, under the call's id) — by hand from 2026-07-28 basic/
# transports/streamable-http, Custom Headers from Tool Parameters (Value Encoding, Server Behavior
# for Custom Headers: "Client omits header but value is in body: Server MUST reject"; "Parameter
# value is null / not in arguments: Server MUST NOT expect the header") and Server Validation (a
# header value decoded before it is compared; integers SHOULD compare numerically), the tools of
# param_server.py. Before, every one was forwarded whatever its Mcp-Param headers.
US = {"region": "us-west1"}
PARAM_ROWS: list[tuple[str, str, dict[str, Any], dict[str, str], int]] = [
    ("agree", "route", US, {"Mcp-Param-Region": "us-west1"}, FORWARDED),
    ("name-any-case", "route", US, {"mcp-param-REGION": "us-west1"}, FORWARDED),  # field names: any case
    ("base64-non-ascii", "route", {"region": "Hello, 世界"}, {"Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?="},
     FORWARDED),  # the spec's Value Encoding examples
    ("base64-padded", "route", {"region": " padded "}, {"Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?="}, FORWARDED),
    ("base64-newline", "route", {"region": "line1\nline2"}, {"Mcp-Param-Region": "=?base64?bGluZTEKbGluZTI=?="},
     FORWARDED),
    ("base64-sentinel-value", "route", {"region": "=?base64?literal?="},
     {"Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}, FORWARDED),
    ("base64-plain-value", "route", US, {"Mcp-Param-Region": "=?base64?dXMtd2VzdDE=?="}, FORWARDED),  # may be
    ("missing", "route", US, {}, HEADER_MISMATCH),
    ("other-value", "route", US, {"Mcp-Param-Region": "us-east1"}, HEADER_MISMATCH),
    ("value-case", "route", US, {"Mcp-Param-Region": "US-WEST1"}, HEADER_MISMATCH),  # values are case-sensitive
    ("base64-other-value", "route", US, {"Mcp-Param-Region": "=?base64?dXMtZWFzdDE=?="}, HEADER_MISMATCH),
    ("base64-bad-padding", "route", {"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVsbG8?="}, HEADER_MISMATCH),
    ("base64-bad-characters", "route", {"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="},
     HEADER_MISMATCH),
    ("base64-prefix-uppercase", "route", {"region": "Hello"}, {"Mcp-Param-Region": "=?BASE64?SGVsbG8=?="},
     HEADER_MISMATCH),  # a literal value then, not "Hello"
    ("non-ascii-byte", "route", {"region": "usé"}, {"Mcp-Param-Region": "us\xe9"}, HEADER_MISMATCH),
    ("twice", "route", US, {"Mcp-Param-Region": "us-west1", "mcp-param-region": "us-west1"}, HEADER_MISMATCH),
    ("null-no-header", "route", {"region": None}, {}, FORWARDED),
    ("absent-no-header", "route", {"note": "n"}, {}, FORWARDED),
    ("null-with-header", "route", {"region": None}, {"Mcp-Param-Region": "null"}, HEADER_MISMATCH),
    ("absent-with-header", "route", {"note": "n"}, {"Mcp-Param-Region": "us-west1"}, HEADER_MISMATCH),
    ("object-with-header", "route", {"region": {"a": 1}}, {"Mcp-Param-Region": "x"}, HEADER_MISMATCH),
    ("integer", "route", {"count": 42}, {"Mcp-Param-Count": "42"}, FORWARDED),
    ("integer-numerically", "route", {"count": 42}, {"Mcp-Param-Count": "42.0"}, FORWARDED),
    ("integer-body-42.0", "route", {"count": 42.0}, {"Mcp-Param-Count": "42"}, FORWARDED),
    ("integer-negative", "route", {"count": -7}, {"Mcp-Param-Count": "-7"}, FORWARDED),
    ("integer-other", "route", {"count": 42}, {"Mcp-Param-Count": "43"}, HEADER_MISMATCH),
    ("integer-fraction", "route", {"count": 42}, {"Mcp-Param-Count": "42.5"}, HEADER_MISMATCH),
    ("integer-missing", "route", {"count": 0}, {}, HEADER_MISMATCH),
    ("boolean", "route", {"flag": True}, {"Mcp-Param-Flag": "true"}, FORWARDED),
    ("boolean-false", "route", {"flag": False}, {"Mcp-Param-Flag": "false"}, FORWARDED),
    ("boolean-capital", "route", {"flag": True}, {"Mcp-Param-Flag": "True"}, HEADER_MISMATCH),  # lowercase
    ("boolean-one", "route", {"flag": True}, {"Mcp-Param-Flag": "1"}, HEADER_MISMATCH),
    ("nested", "route", {"target": {"zone": "eu"}}, {"Mcp-Param-Zone": "eu"}, FORWARDED),
    ("nested-missing", "route", {"target": {"zone": "eu"}}, {}, HEADER_MISMATCH),
    ("nested-parent-absent", "route", {"target": {}}, {}, FORWARDED),
    ("all", "route", {"region": "us-west1", "count": 3, "flag": False, "target": {"zone": "eu"}, "note": "n"},
     {"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "3", "Mcp-Param-Flag": "false", "Mcp-Param-Zone": "eu"},
     FORWARDED),
    ("all-one-missing", "route", {"region": "us-west1", "count": 3, "flag": False},
     {"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "3"}, HEADER_MISMATCH),
    ("undeclared-header", "route", {"note": "n"}, {"Mcp-Param-Note": "anything", "Mcp-Param-Other": "x"},
     FORWARDED),  # no x-mcp-header: not the server's (an intermediary forwards it and ignores it)
    ("invalid-tool-definition", "broken", {"regions": ["a"]}, {"Mcp-Param-Region": "b"}, FORWARDED),
    ("invalid-tool-number-type", "number", {"n": 3}, {"Mcp-Param-N": "4"}, FORWARDED),
    ("tool-not-listed", "unlisted", US, {"Mcp-Param-Region": "us-east1"}, FORWARDED),
]


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The proxy over param_server.py, its tools listed through it: its URL."""
    with _proxy(["--", *PARAMS], tmp_path_factory.mktemp("params") / "err") as url:
        response = _request(url, "POST", json.dumps(_LIST).encode(), {"MCP-Protocol-Version": V})
        assert _status(response) == 200 and b'"route"' in response, response
        yield url


@pytest.mark.parametrize(("name", "arguments", "params", "expected"), [r[1:] for r in PARAM_ROWS],
                         ids=[r[0] for r in PARAM_ROWS])
def test_a_2026_tool_calls_mcp_param_headers_agree_with_its_arguments_over_a_stdio_server(
        listed: str, name: str, arguments: dict[str, Any], params: dict[str, str], expected: int) -> None:
    assert _param_call(listed, name, arguments, params) == (
        (FORWARDED, f"called {name} {json.dumps(arguments, sort_keys=True)}") if expected == FORWARDED
        else (400, (7, expected)))


# (the Mcp-Param headers, the MCP-Protocol-Version header; FORWARDED or the error's code) of a call
# to route with region us-west1 through a proxy whose upstream has not listed its tools yet:
# which headers the tool declares is not known (the proxy has not seen its inputSchema), so none
# is checked — a host that never listed the tool SHOULD send none (SEP-2243, Implementation
# Note); the Mcp-Name is still checked. Then, the same proxy once the tools are listed.
UNLISTED = [
    ({}, V, FORWARDED, HEADER_MISMATCH),
    ({"Mcp-Param-Region": "us-east1"}, V, FORWARDED, HEADER_MISMATCH),
    ({"Mcp-Param-Region": "us-west1"}, V, FORWARDED, FORWARDED),
    ({}, None, FORWARDED, FORWARDED),  # no MCP-Protocol-Version: taken as 2025-03-26's, unchecked
]


def test_mcp_param_headers_are_checked_once_the_tool_is_listed(tmp_path: Path) -> None:
    def round_() -> list[Any]:
        return [_param_call(url, "route", US, params, version) for params, version, _, _ in UNLISTED]

    def expected(column: int) -> list[Any]:
        return [(FORWARDED, 'called route {"region": "us-west1"}') if row[column] == FORWARDED
                else (400, (7, row[column])) for row in UNLISTED]

    with _proxy(["--", *PARAMS], tmp_path / "err") as url:
        before = round_()
        assert _status(_request(url, "POST", json.dumps(_LIST).encode(), {"MCP-Protocol-Version": V})) == 200
        after = round_()
    assert (before, after) == (expected(2), expected(3))


# -- a task request's Mcp-Name (the tasks extension) ------------------------------------------------
# ext-tasks (specification/draft/tasks.md): over Streamable HTTP the client MUST set Mcp-Name to
# params.taskId on tasks/get, tasks/update and tasks/cancel, for intermediaries to route a task's
# requests; a header that disagrees with its body, or one that is absent — a required standard
# header missing —, is refused as the core's are (2026-07-28 basic/transports/streamable-http,
# Server Validation: 400, HeaderMismatch). (the method, the Mcp-Name header or None; refused) —
# by hand ("dC0x": "t-1" in Base64). Before, every one was forwarded; then an absent one still was.
TASK_NAME = [
    ("tasks/get", "t-1", False),
    ("tasks/get", "=?base64?dC0x?=", False),
    ("tasks/get", None, True),
    ("tasks/get", "t-2", True),
    ("tasks/get", "get_forecast", True),
    ("tasks/cancel", "t-2", True),
    ("tasks/cancel", "t-1", False),
]


@pytest.mark.parametrize(("method", "name", "refused"), TASK_NAME,
                         ids=["get-agree", "get-base64", "get-absent", "get-other", "get-tool-name",
                              "cancel-other", "cancel-agree"])
def test_a_task_requests_mcp_name_must_be_its_task_id(tmp_path: Path, method: str, name: str | None,
                                                        refused: bool) -> None:
    meta = call(7, "get_forecast")["params"]["_meta"]
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": {"taskId": "t-1", "_meta": meta}})
    headers = {"MCP-Protocol-Version": V, "Mcp-Method": method, **({"Mcp-Name": name} if name is not None else {})}
    log = tmp_path / "frames.jsonl"
    with _proxy(["--log", str(log), "--log-payloads", "--", *stdio_command()], tmp_path / "err") as url:
        response = _request(url, "POST", body.encode(), headers, routing=False)
    got = _body(response)
    records = [r["kind"] for r in frame_records(log) if r["dir"] == "c2s" and r["kind"] in ("message", "refused")]
    if refused:
        assert (_status(response), got["id"], got["error"]["code"], records) == (400, 7, HEADER_MISMATCH, ["refused"])
        assert "the Mcp-Name header" in got["error"]["message"]
    else:
        assert records == ["message"]
