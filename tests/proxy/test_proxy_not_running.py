"""A host request that reaches the proxy after its stdio upstream has exited for good (no restart
left), through the real proxy (a process, HTTP host) and a real stdio server
(``fault_server.py``: ``exit`` exits mid-call, status 3).

An upstream that exits for good ends the proxy (README "The proxy": its exit status is the
upstream's). A request already being received then — its POST's headers read, its body not yet —
is still answered: at once, under its id, with -31004 ``the upstream is not running`` (HTTP 200),
never sent, its answer's record written by the proxy; the proxy waits for it before it ends, then
ends with the upstream's status, and a request after that finds no endpoint (the connection is
refused): no host is left waiting. The request in flight at the exit gets -31001.

(A stdio host's request read in the same window gets the same answer, but when the proxy reads it
is the host's pipe's timing, not the test's: an HTTP request whose body is still coming is the
window made certain.)"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest

from ._peers import TIMEOUT, HttpHostPeer, proxy_http, wait_until
from ._restarting import frame_records
from .test_proxy_faults import SERVER, tool

NOT_RUNNING = "the upstream is not running"
EXITED = "the upstream exited (status 3) before answering"

# (the row; the proxy's --restart options; the answer to the request in flight at the exit as
# (code, message); the request completed after the exit: its HTTP status, its answer's (id, code,
# message) and the record of that answer's note; the proxy's exit status)
ROWS = [
    ("never", ["--restart", "never"], (-31001, f"mcp-verdict proxy: {EXITED}"),
     (200, 7, -31004, f"mcp-verdict proxy: {NOT_RUNNING}"), f"written by the proxy: {NOT_RUNNING}", 3),
    ("on-failure-none-left", ["--restart", "on-failure", "--max-restarts", "0"],
     (-31001, f"mcp-verdict proxy: {EXITED}"),
     (200, 7, -31004, f"mcp-verdict proxy: {NOT_RUNNING}"), f"written by the proxy: {NOT_RUNNING}", 3),
]


@pytest.mark.parametrize(("restart", "in_flight", "later", "note", "status"), [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_a_request_after_the_upstreams_last_exit_is_answered_not_running(
        tmp_path: Path, restart: list[str], in_flight: tuple[int, str], later: tuple[int, int, int, str], note: str,
        status: int) -> None:
    log = tmp_path / "frames.jsonl"
    body = json.dumps(tool(7, "echo")).encode()
    options = [*restart, "--timeout", "10", "--grace", "30", "--log", str(log), "--log-payloads", "--", *SERVER]
    with proxy_http(options) as (url, proxy):
        parts = urlsplit(url)
        peer = HttpHostPeer(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT) as raw:
            head = (f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                    f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
            raw.sendall(head + body[:10])  # (its handler waits for the rest of the body)
            try:
                exited = json.loads(peer.exchange(tool(5, "exit")) or b"null")["error"]
            finally:
                peer.close()
            assert wait_until(lambda: any(r["kind"] == "eof" and "closed stdout" in (r.get("note") or "")
                                          for r in frame_records(log)), TIMEOUT)
            raw.sendall(body[10:])
            answer = _response(raw)
        ended = proxy.wait(TIMEOUT)
        with pytest.raises(httpx2.ConnectError):
            HttpHostPeer(url).post(tool(8, "echo"))
    records = frame_records(log)
    answered = json.loads(answer[1])
    assert ((exited["code"], exited["message"]),
            (answer[0], answered["id"], answered["error"]["code"], answered["error"]["message"]),
            [r.get("note") for r in records if r["dir"] == "s2c" and '"id":7' in r.get("data", "")],
            ended) == (in_flight, later, [note], status)


def _response(raw: socket.socket) -> tuple[int, bytes]:
    """The HTTP status and body of the response on ``raw`` (read to the connection's end)."""
    data = b""
    while chunk := raw.recv(65536):
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    headers: dict[str, Any] = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode()] = value.strip().decode()
    if headers.get("transfer-encoding") == "chunked":
        out = b""
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            out, rest = out + rest[:size], rest[size + 2:]
        rest = out
    return int(head.split(b" ")[1]), rest
