"""2025 sessions of an HTTP host through the proxy, on real sockets: the ids it issues over a stdio
server, what a DELETE ends, and what a request with an id it does not hold gets.

2025-11-25 basic/transports, Session Management: 3. the server MAY terminate the session at any
time, after which it MUST respond to requests containing that session ID with HTTP 404 Not
Found; 4. a client receiving 404 MUST start a new session (a new InitializeRequest without a
session ID); 5. a client SHOULD send an HTTP DELETE with the ``MCP-Session-Id`` header to
explicitly terminate the session. 2026-07-28 basic/transports/streamable-http, Earlier Streamable
HTTP Revisions: an ``Mcp-Session-Id`` header on a (2026-07-28) request is ignored."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from ..processes import free_port, http_server
from ._peers import TIMEOUT, proxy_http, wait_until
from .test_proxy_http_edges import _request, _status

FAULT = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
V2025 = {"MCP-Protocol-Version": "2025-06-18"}
UPSTREAM_CLOSED = -31001  # README "The proxy", the proxy's codes


def _call(request_id: int, name: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": {}}}).encode()


def _session(response: bytes) -> str:
    head = response.partition(b"\r\n\r\n")[0].decode("latin-1")
    found = [line.split(":", 1)[1].strip() for line in head.split("\r\n") if line.lower().startswith("mcp-session-id:")]
    assert len(found) == 1, head
    return found[0]


def _open(url: str) -> str:
    """An initialised 2025 session: its id."""
    session = _session(_request(url, "POST", json.dumps(INIT).encode(), V2025))
    assert _status(_request(url, "POST", json.dumps(INITIALIZED).encode(), {**V2025, "Mcp-Session-Id": session})) \
        == 202
    return session


def _body(response: bytes) -> Any:
    body = response.partition(b"\r\n\r\n")[2]
    return json.loads(body) if body.strip() else None


# (requests after the session is open: method, the session id sent ({s}: the session's), extra
# headers; the status of each, the last one's JSON-RPC outcome)
@pytest.mark.parametrize(("steps", "statuses", "last"), [
    ([("POST", "{s}", {})], [200], "result"),  # the session issued: served
    ([("DELETE", "{s}", {}), ("POST", "{s}", {})], [200, 404], "Session not found"),  # s3: terminated
    ([("DELETE", "{s}", {}), ("GET", "{s}", {"Accept": "text/event-stream"})], [200, 404], "Session not found"),
    ([("DELETE", "{s}", {}), ("DELETE", "{s}", {})], [200, 404], "Session not found"),
    ([("POST", "never-issued", {})], [404], "Session not found"),
    ([("POST", "", {})], [404], "Session not found"),
    ([("GET", "never-issued", {"Accept": "text/event-stream"})], [404], "Session not found"),
    ([("DELETE", "never-issued", {})], [404], "Session not found"),
    # a 2026-07-28 request has no session: its Mcp-Session-Id is ignored
    ([("POST", "never-issued", {"MCP-Protocol-Version": "2026-07-28"})], [200], "result"),
    ([("DELETE", "{s}", {}), ("POST", "{s}", {"MCP-Protocol-Version": "2026-07-28"})], [200, 200], "result"),
], ids=["issued", "deleted", "get-deleted", "delete-twice", "unknown", "empty", "get-unknown", "delete-unknown",
        "2026-unknown", "2026-deleted"])
def test_a_session_id_the_proxy_does_not_hold_gets_404_over_a_stdio_server(
        tmp_path: Path, steps: list[tuple[str, str, dict[str, str]]], statuses: list[int], last: str) -> None:
    log = tmp_path / "f.jsonl"
    with proxy_http(["--log", str(log), "--", *FAULT]) as (url, _):
        session = _open(url)
        got = []
        for n, (method, sid, extra) in enumerate(steps):
            headers = {**V2025, "Mcp-Session-Id": sid.format(s=session), **extra}
            body = _call(10 + n, "echo") if method == "POST" else b""
            response = _request(url, method, body, headers)
            got.append(_status(response))
        answer = _body(response)
        # a new session still starts after it (s4)
        again = _open(url)
        after = _body(_request(url, "POST", _call(99, "echo"), {**V2025, "Mcp-Session-Id": again}))
    outcome = "result" if answer is not None and "result" in answer else answer and answer["error"]["message"]
    assert (got, outcome) == (statuses, last)
    assert after["id"] == 99 and "result" in after
    refused = [r["note"] for r in map(json.loads, log.read_text().splitlines())
               if r["dir"] == "c2s" and r["kind"] == "refused"]
    assert refused == ["not forwarded: the session id is not one of a session the proxy holds (never issued, or "
                       "ended)"] * (1 if steps[-1][0] == "POST" and statuses[-1] == 404 else 0)


def test_a_delete_answers_the_session_calls_in_flight_and_cancels_them_upstream(tmp_path: Path) -> None:
    log = tmp_path / "f.jsonl"
    with proxy_http(["--log", str(log), "--log-payloads", "--", *FAULT]) as (url, _):
        session = _open(url)
        other = _open(url)  # another host's session: its call goes on
        headers = {**V2025, "Mcp-Session-Id": session}
        answers: list[bytes] = []
        post = threading.Thread(target=lambda: answers.append(_request(url, "POST", _call(5, "hang"), headers)))
        post.start()
        assert wait_until(lambda: b'\\"hang' in log.read_bytes(), TIMEOUT)  # the proxy relayed it
        deleted = _request(url, "DELETE", b"", headers)
        post.join(TIMEOUT)
        served = _body(_request(url, "POST", _call(6, "echo"), {**V2025, "Mcp-Session-Id": other}))
    answer = _body(answers[0])
    assert (_status(deleted), _status(answers[0]), answer["id"], answer["error"]["code"]) == \
        (200, 200, 5, UPSTREAM_CLOSED)
    assert served["id"] == 6 and "result" in served
    cancelled = [json.loads(r["data"]) for r in map(json.loads, log.read_text().splitlines())
                 if r["dir"] == "c2s" and b"notifications/cancelled" in r.get("data", "").encode()]
    assert [c["params"]["requestId"] for c in cancelled] == [5]


ROOT = Path(__file__).resolve().parents[2]
SDK_SERVER = [sys.executable, "-m", "tests.servers.sdk_server"]  # the official Python SDK, stateful


RUNS = 20  # the scenario, once per session, in one proxy and server pair


# (the request after the session's DELETE; the statuses of the DELETE and of it, every run). The
# POST follows the host's 202 for notifications/initialized: the proxy forwards that notification
# after answering it, and sends the DELETE only once the upstream has it — sent alongside, the
# SDK server failed writing it to the session the DELETE had closed, uvicorn closed that
# keep-alive connection, and the POST reusing it was reset (-31004 instead of the 404)
@pytest.mark.parametrize(("method", "statuses"), [
    ("POST", (200, 404)),  # the upstream's own 404 passes through
    ("DELETE", (200, 404)),
])
def test_a_deleted_session_of_an_http_server_gets_the_servers_404(method: str, statuses: tuple[int, int]) -> None:
    port = free_port()
    got = []
    with contextlib.ExitStack() as stack:
        upstream = stack.enter_context(http_server([*SDK_SERVER, "http", str(port)], port, "the SDK server",
                                                   cwd=ROOT, timeout=20))
        url, _ = stack.enter_context(proxy_http(["--upstream", upstream]))
        for _ in range(RUNS):
            session = _open(url)
            headers = {**V2025, "Mcp-Session-Id": session}
            deleted = _request(url, "DELETE", b"", headers)
            after = _request(url, method, _call(3, "add") if method == "POST" else b"", headers)
            got.append((_status(deleted), _status(after), _body(after) if _status(after) != 404 else None))
    assert got == [(*statuses, None)] * RUNS
