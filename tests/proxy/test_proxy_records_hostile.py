"""What the proxy records when a peer's text is hostile: every frame-log record stays valid JSON of
format v1 (checked against ``framelog-v1.schema.json`` with jsonschema) and the frame it records is
still answered; the proxy's spans hold a peer's text bounded, on one line; the trace context a host
put in ``_meta`` never writes a peer's text to the proxy's stderr."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import jsonschema
import pytest

from mcp_verdict.demo import stdio_command
from mcp_verdict.frames import LogProblem, read, schema

from ._peers import proxy_http

INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "t", "version": "0"}}}).encode()


def _post(url: str, body: bytes, headers: list[tuple[bytes, bytes]]) -> int:
    """POST ``body`` with header bytes as given (no HTTP client writes bytes that are no UTF-8 in a
    header: RFC 9110 s5.5 obs-text), on a raw socket; the answer's status."""
    address = url.split("//", 1)[1].split("/", 1)[0]
    host, port = address.rsplit(":", 1)
    head = (b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n")
    head += b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(head + b"\r\n" + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def _records(path: Path) -> list[dict[str, object]]:
    """Every line of the frame log, each checked against the format's JSON Schema and read back by
    ``frames.read`` as a record (no LogProblem)."""
    lines = path.read_bytes().splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        jsonschema.validate(record, schema())
    assert [r for r in read(lines) if isinstance(r, LogProblem)] == []
    return records


@pytest.mark.parametrize(("session", "protocol", "recorded"), [
    # bytes that are no UTF-8 (aiohttp reads them with surrogateescape): a lone surrogate, which no
    # JSON text holds, is recorded as its escape; the POST was answered 500 and never recorded
    (b"\xffabc", b"2025-06-18", {"session": "\\udcffabc", "protocol_version": "2025-06-18"}),
    (b"abc", b"2025-06-18\xfe", {"session": "abc", "protocol_version": "2025-06-18\\udcfe"}),
    (b"\xc3\xa9t\xc3\xa9", b"2025-06-18", {"session": "\u00e9t\u00e9", "protocol_version": "2025-06-18"}),
])
def test_a_header_that_is_no_utf8_is_recorded_and_the_post_answered(tmp_path: Path, session: bytes, protocol: bytes,
                                                                     recorded: dict[str, str]) -> None:
    log = tmp_path / "f.jsonl"
    with proxy_http(["--log", str(log), "--", *stdio_command()]) as (url, _):
        status = _post(url, INIT, [(b"Mcp-Session-Id", session), (b"MCP-Protocol-Version", protocol)])
    assert status == 404  # a session the proxy never issued (2025-11-25 basic/transports: 404)
    refused = [r for r in _records(log) if r["kind"] == "refused"]
    assert [(r["dir"], r["http"]) for r in refused] == [
        ("c2s", {"exchange": 1, "method": "POST", **recorded})]
