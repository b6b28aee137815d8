"""The HTTP host side on real sockets: what the host POSTs reaches the upstream whole, and what
the proxy keeps per session stays bounded."""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ._peers import TIMEOUT, HttpHostPeer, proxy_http

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]


def _len_call(request_id: int, size: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "len", "arguments": {"text": "x" * size}}}).encode()


def _post_in_pieces(url: str, body: bytes, cuts: tuple[int, ...]) -> bytes:
    """POST ``body`` on a raw socket, sent in pieces cut at ``cuts`` (a pause between pieces, so
    that each arrives on its own); the response's body."""
    address = url.split("//", 1)[1].split("/", 1)[0]
    host, _, port = address.rpartition(":")
    head = (f"POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode()
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        start = 0
        sock.sendall(head)
        for cut in (*cuts, len(body)):
            sock.sendall(body[start:cut])
            start = cut
            time.sleep(0.15)
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
    return response.partition(b"\r\n\r\n")[2]


def _text(raw: bytes | None) -> Any:
    assert raw is not None
    return json.loads(raw)["result"]["content"][0]["text"]


@pytest.mark.parametrize(("size", "cuts", "expected"), [
    (5_000, (100,), "5000"),  # the head and 100 bytes, then the rest
    (5_000, (1, 2000, 4000), "5000"),
    (1_000_000, (), "1000000"),
    (5_000_000, (), "5000000"),
])
def test_a_post_body_is_read_to_its_end(size: int, cuts: tuple[int, ...], expected: str) -> None:
    with proxy_http(["--", *SERVER]) as (url, _):
        body = _len_call(7, size)
        if cuts:
            assert _text(_post_in_pieces(url, body, cuts)) == expected
        else:
            peer = HttpHostPeer(url)
            try:
                assert _text(peer.post(body)[1]) == expected
            finally:
                peer.close()
