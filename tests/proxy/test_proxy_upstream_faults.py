"""An HTTP upstream that fails the proxy's request (POST, GET, DELETE alike), through the real
proxy on real sockets: nothing listening (refused), a reset (RST), a connection closed before the
answer (FIN), no answer past ``--timeout``, a status line that is no HTTP.

The host gets the proxy's documented error every time (README "The proxy": -31001 the upstream
closed before answering, -31002 it did not answer in time, -31004 it cannot be reached): a POST's
request its JSON-RPC error under its id as the host wrote it; a GET or a DELETE, which answer no
request, 502 Bad Gateway (RFC 9110 s15.6.3) or 504 Gateway Timeout (s15.6.5) with the JSON-RPC
error under a null id (basic/transports/streamable-http puts no other bound on a DELETE's answer;
a GET that opens no stream is answered with an HTTP error). The frame log notes each; the proxy
writes no traceback and goes on serving."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.processes import free_port, port_server, stop

from ._peers import PROXY, TIMEOUT, call, wait_until

BROKEN = [sys.executable, str(Path(__file__).with_name("broken_http_server.py"))]
SESSION = "s-1"
# a request whose id is written 1E2: its answer carries the id as written (README "The proxy")
POST_BODY = json.dumps(call(0, "get_forecast", {"city": "Paris"})).replace('"id": 0', '"id": 1E2', 1).encode()


@contextlib.contextmanager
def _proxy(upstream: str, log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], list[bytes]]]:
    """The proxy (HTTP host side, ``--timeout 1``) in front of ``upstream``: its URL, its process
    and every line of its stderr."""
    process = subprocess.Popen([*PROXY, "--listen", "127.0.0.1:0", "--timeout", "1", "--log", str(log),
                                "--upstream", upstream], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    lines: list[bytes] = []

    def read() -> None:
        assert process.stderr is not None
        lines.extend(process.stderr)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert wait_until(lambda: any(b"listening on" in line for line in list(lines)), TIMEOUT)
        url = re.search(rb"listening on (http://\S+)", b"".join(lines))
        assert url is not None
        yield url.group(1).decode(), process, lines
    finally:
        stop(process)
        reader.join(5)


@contextlib.contextmanager
def _upstream(fault: str) -> Iterator[str]:
    if fault == "refused":
        yield f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
    else:
        with port_server([*BROKEN, fault]) as base:
            yield base + "/mcp"


def _send(url: str, method: str) -> httpx2.Response:
    headers = {"Mcp-Session-Id": SESSION, "MCP-Protocol-Version": "2025-06-18"}
    with httpx2.Client(timeout=TIMEOUT) as client:
        if method == "POST":
            return client.post(url, content=POST_BODY, headers={
                **headers, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        if method == "GET":
            return client.get(url, headers={**headers, "Accept": "text/event-stream"})
        return client.delete(url, headers=headers)


REFUSED = "the upstream request failed: ClientConnectorError: Cannot connect to host"
RESET = "the upstream request failed: ClientOSError: [Errno 104] Connection reset by peer"
CLOSED = "the upstream closed the connection before answering: Server disconnected"
STALLED = "no answer within 1 s"
GARBAGE = 'the upstream request failed: ClientResponseError: 400, message="Bad status line'

# (fault, method, the host's HTTP status, the JSON-RPC error's code, the reason the frame log gives)
ROWS = [
    ("refused", "POST", 200, -31004, REFUSED),
    ("refused", "GET", 502, -31004, REFUSED),
    ("refused", "DELETE", 502, -31004, REFUSED),
    ("reset", "POST", 200, -31004, RESET),
    ("reset", "GET", 502, -31004, RESET),
    ("reset", "DELETE", 502, -31004, RESET),
    ("close", "POST", 200, -31001, CLOSED),
    ("close", "GET", 502, -31001, CLOSED),
    ("close", "DELETE", 502, -31001, CLOSED),
    ("stall", "POST", 200, -31002, STALLED),
    ("stall", "GET", 504, -31002, STALLED),
    ("stall", "DELETE", 504, -31002, STALLED),
    ("garbage", "POST", 200, -31004, GARBAGE),
    ("garbage", "GET", 502, -31004, GARBAGE),
    ("garbage", "DELETE", 502, -31004, GARBAGE),
]


@pytest.mark.parametrize(("fault", "method", "status", "code", "reason"), ROWS,
                         ids=[f"{row[0]}-{row[1]}" for row in ROWS])
def test_an_upstream_that_fails_is_the_hosts_documented_error(tmp_path: Path, fault: str, method: str,
                                                              status: int, code: int, reason: str) -> None:
    log = tmp_path / "frames.jsonl"
    with _upstream(fault) as upstream, _proxy(upstream, log) as (url, process, stderr):
        for _ in range(2):  # the same again: the proxy goes on serving
            response = _send(url, method)
            assert response.status_code == status
            assert response.headers["Content-Type"].startswith("application/json")
            answer: dict[str, Any] = json.loads(response.content)
            assert answer["error"]["code"] == code
            assert answer["error"]["message"].startswith("mcp-verdict proxy: " + reason)
            assert answer["error"]["data"]["source"] == "mcp-verdict proxy"
            if method == "POST":
                assert re.search(rb'"id":1E2[,}]', response.content)  # the id as the host wrote it
            else:
                assert answer["id"] is None
        assert process.poll() is None
    records = [json.loads(line) for line in log.read_text().splitlines()]
    if method == "POST":
        notes = [r["note"] for r in records if r["dir"] == "s2c" and r["kind"] == "message"]
        assert len(notes) == 2 and all(n.startswith("written by the proxy: " + reason) for n in notes)
    else:
        notes = [r["note"] for r in records if r["kind"] == "error"]
        assert len(notes) == 2
        assert all(n.startswith(f"the host's {method}: {reason}") and n.endswith(f"(answered HTTP {status})")
                   for n in notes)
    text = b"".join(stderr)
    assert b"Traceback" not in text and b"Error handling request" not in text
