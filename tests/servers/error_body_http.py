"""A handshake-era Streamable HTTP server whose tools/call fails with an HTTP status and a body
that is no JSON-RPC message, of a size chosen per path. Run: python -m tests.servers.error_body_http
(prints its port, then serves http://127.0.0.1:PORT/<size>/mcp until its stdin closes).

At ``/<size>/mcp`` a tools/call is answered ``500`` with ``text/plain`` ``<size>`` bytes: ``E``s
and, for sizes of 3 and more, ``END`` last. At ``/endless/mcp`` the body never ends (no length);
at ``/stall/mcp`` 300 ``E``s come, then nothing until the client goes. Everything else gets its
ordinary answer.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "error-body-http", "version": "1"}}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}


def body_of(size: int) -> bytes:
    return b"E" * (size - 3) + b"END" if size >= 3 else b"E" * size


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.send(405, b"")

    def do_DELETE(self) -> None:
        self.send(200, b"")

    def do_POST(self) -> None:
        mode = self.path.split("/")[1]
        message = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        if message.get("id") is None:
            self.send(202, b"")
        elif message.get("method") == "tools/call" and mode in ("endless", "stall"):
            self.close_connection = True
            self.send_response(500)
            self.send_header("content-type", "text/plain")
            self.end_headers()
            try:
                self.wfile.write(b"E" * 300)
                self.wfile.flush()
                while True:
                    if mode == "endless":
                        self.wfile.write(b"E" * 65536)
                    else:
                        time.sleep(0.5)
                        self.wfile.write(b"")
            except OSError:
                return
        elif message.get("method") == "tools/call":
            self.send(500, body_of(int(mode)), "text/plain")
        else:
            self.send(200, json.dumps(answer(message)).encode())


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # until the test closes our stdin
    server.shutdown()


if __name__ == "__main__":
    main()
