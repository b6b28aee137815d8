"""A hostile or broken HTTP host against the proxy's Streamable HTTP side, on raw sockets, with
real upstreams (the demo server over stdio and over HTTP, and the hand-written servers named
where they serve):

- bodies whose answer the proxy could not tell from another host's (a stdio upstream).

basic/transports/streamable-http (2025-11-25 and 2026-07-28): one JSON-RPC message per POST; a
body the server cannot accept gets an HTTP error status and MAY carry a JSON-RPC error with no
id; servers MUST validate ``Origin`` (403 when present and invalid); a server MAY close an SSE
stream at any time; 2026-07-28: a client sends no JSON-RPC responses, an unsupported version is
400, an unknown method 404 (-32601), closing a request's response stream is its cancellation.
House rules: bad input never crashes, never hangs, never loses data; peer text reaches stderr
neutralised, never as a traceback."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.demo import stdio_command
from tests.processes import stop

from ._peers import PROXY, TIMEOUT, call, demo_http, wait_until
from ._restarting import frame_records
from .test_proxy_http_edges import _request, _status

V2026 = {"MCP-Protocol-Version": "2026-07-28"}
V2025 = {"MCP-Protocol-Version": "2025-06-18"}
CLOSING = [sys.executable, str(Path(__file__).with_name("closing_http_server.py"))]
LISTEN = [sys.executable, str(Path(__file__).with_name("listen_http_server.py"))]
NOTIFY = [sys.executable, str(Path(__file__).with_name("notify_server.py"))]
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


@contextlib.contextmanager
def _proxy(args: Sequence[str], stderr: Path) -> Iterator[str]:
    """The proxy as its own process (``--listen 127.0.0.1:0``), its stderr written to ``stderr``: its URL."""
    with stderr.open("wb") as err:
        process = subprocess.Popen([*PROXY, "--listen", "127.0.0.1:0", *args], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=err)
    try:
        assert wait_until(lambda: b"listening on " in stderr.read_bytes() or process.poll() is not None, TIMEOUT)
        first = stderr.read_bytes().split(b"\n", 1)[0].decode()
        assert first.startswith("mcp-verdict proxy listening on "), first
        yield first.rsplit(" ", 1)[1]
    finally:
        stop(process)


def _upstream(kind: str, stack: contextlib.ExitStack) -> list[str]:
    """The demo server as the proxy's upstream: its arguments (``stdio`` or ``http``)."""
    return ["--", *stdio_command()] if kind == "stdio" else ["--upstream", stack.enter_context(demo_http())]


def _body(response: bytes) -> Any:
    body = response.partition(b"\r\n\r\n")[2]
    return json.loads(body) if body.strip() else None


def _read_all(sock: socket.socket) -> bytes:
    """What the proxy writes on ``sock`` until it closes the connection (a socket timeout of
    ``TIMEOUT`` as the hang guard: then ``<<open>>`` ends the bytes)."""
    sock.settimeout(TIMEOUT)
    response = b""
    try:
        while chunk := sock.recv(65536):
            response += chunk
    except TimeoutError:
        return response + b"<<open>>"
    return response


# -- a body whose answer could not be told from another host's (stdio upstream) ----------------
# (the body another host POSTs, its headers; the status and JSON-RPC (id, code) it gets). The
# first host's slow_echo (id 1) is in flight meanwhile, over the one connection the stdio server
# has for every host. Before, each was written to the server with a bare 202 to its host; the
# server's error answer to it (a null id, or id 1) was taken for the first host's answer.
UNFOLLOWED = [
    (b"{garbage", V2026, 400, (None, PARSE_ERROR)),
    (b'{"x":NaN}', V2026, 400, (None, PARSE_ERROR)),
    (b'{"jsonrpc":"2.0","method":"notifications/message","params":{"v":NaN}}', V2026, 400, (None, PARSE_ERROR)),
    (b"{}", V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":1,"method":5}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', V2025, 400, (None, INVALID_REQUEST)),
    # 2026-07-28: no JSON-RPC response from a client over HTTP (the demo answers one with -32600, id 1)
    (b'{"jsonrpc":"2.0","id":1,"result":{}}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}', V2026, 400, (None, INVALID_REQUEST)),
    # a valid notification is relayed as before (the server answers none)
    (b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}', V2026, 202, None),
]


@pytest.mark.parametrize(("body", "headers", "status", "answer"), UNFOLLOWED,
                         ids=[f"{row[0][:40].decode()}-{row[1]['MCP-Protocol-Version']}" for row in UNFOLLOWED])
def test_a_body_whose_answer_could_not_be_told_is_refused_over_a_stdio_server(
        tmp_path: Path, body: bytes, headers: dict[str, str], status: int, answer: tuple[Any, int] | None) -> None:
    log = tmp_path / "frames.jsonl"
    first: list[bytes] = []
    with _proxy(["--log", str(log), "--log-payloads", "--", *stdio_command()], tmp_path / "err") as url:
        slow = json.dumps(call(1, "slow_echo", {"text": "first", "seconds": 1.5})).encode()
        thread = threading.Thread(target=lambda: first.append(_request(url, "POST", slow, V2026)))
        thread.start()
        assert wait_until(lambda: any('"slow_echo"' in r.get("data", "") for r in frame_records(log)), TIMEOUT)
        response = _request(url, "POST", body, headers)
        thread.join(TIMEOUT)
    got = _body(response)
    assert (_status(response), (got["id"], got["error"]["code"]) if got else None) == (status, answer)
    mine = _body(first[0])  # the first host's own answer, not the server's error to the other body
    assert (_status(first[0]), mine["id"], mine["result"]["structuredContent"]) == (200, 1, {"text": "first",
                                                                                            "waited_s": 1.5})
    refused = [r for r in frame_records(log) if r["kind"] == "refused" and r["dir"] == "c2s"]
    assert len(refused) == (1 if status == 400 else 0)
