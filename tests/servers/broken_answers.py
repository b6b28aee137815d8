"""An MCP server whose tools/call answer is broken in one way per tool name, the request's id
kept as the client wrote it (Python's json: an integer past 64 bits stays exact), over stdio or
Streamable HTTP (stateless, JSON bodies). Run: python -m tests.servers.broken_answers stdio, or
python -m tests.servers.broken_answers http (prints its port, then serves
http://127.0.0.1:PORT/mcp until its stdin closes).

- ``unreadable``: the answer cut short (no JSON; its id readable at the top level);
- ``id_null``: a JSON-RPC error with ``"id": null`` (JSON-RPC 2.0 section 5: the id could not
  be read);
- ``float_id``: the answer with the request's integer id written as a float (``N.0``);
- ``drop``: no answer (HTTP: the connection closed before any response);
- ``late``: the plain answer, ``seconds`` late (an argument, 1 by default; whatever the client did
  meanwhile: a cancellation too);
- anything else: a plain text answer.
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers._lines import requests, serve_http


def answer(message: dict[str, Any]) -> bytes | None:
    """The bytes answering ``message`` (None: no answer; HTTP: the connection is dropped)."""
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "broken-answers", "version": "1"}}}).encode()
    if method != "tools/call":
        return json.dumps({"jsonrpc": "2.0", "id": request_id,
                           "error": {"code": -32601, "message": "Method not found"}}).encode()
    name = (message.get("params") or {}).get("name")
    plain = json.dumps({"jsonrpc": "2.0", "id": request_id,
                        "result": {"content": [{"type": "text", "text": "done"}], "isError": False}}).encode()
    if name == "unreadable":
        return plain[: plain.index(b'"result"') + len(b'"result": {')]
    if name == "id_null":
        return b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "could not read the request"}}'
    if name == "float_id" and isinstance(request_id, int):
        return plain.replace(b'"id": %d' % request_id, b'"id": %d.0' % request_id)
    if name == "drop":
        return None
    if name == "late":
        time.sleep(float(((message.get("params") or {}).get("arguments") or {}).get("seconds", 1.0)))
    return plain


def stdio() -> None:
    out = sys.stdout.buffer
    for message in requests():
        line = answer(message)
        if line is not None:
            out.write(line + b"\n")
            out.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        body = answer(message) if message.get("id") is not None else b""
        if body is None:
            self.close_connection = True
            return
        self.send_response(200 if body else 202)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    serve_http(Handler) if sys.argv[1] == "http" else stdio()
