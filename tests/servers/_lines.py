"""What the test servers share: the messages a client writes on stdio, one JSON object a line,
serving HTTP on a free port until stdin closes (a quiet HTTP/1.1 handler writing JSON bodies),
and a 2026-07-28 server's discovery and listing of plain tools."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def messages() -> Iterator[dict[str, Any]]:
    """Each JSON object read from stdin (any other line is passed over), until stdin closes."""
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if isinstance(message, dict):
            yield message


def requests() -> Iterator[dict[str, Any]]:
    """Each request read from stdin (a JSON object with an id; anything else is passed over),
    until stdin closes."""
    for message in messages():
        if message.get("id") is not None:
            yield message


def serve_http(handler: type[BaseHTTPRequestHandler]) -> None:
    """Serve ``handler`` on 127.0.0.1 at a free port, which is printed first, until stdin closes."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # until the test closes our stdin
    server.shutdown()


class JsonHandler(BaseHTTPRequestHandler):
    """An HTTP/1.1 handler that logs nothing and writes bodies with their length."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class ReplyHandler(JsonHandler):
    """A stateless Streamable HTTP server's handler: each POSTed request answered with
    :meth:`reply`'s JSON body, a notification or answer with 202; no GET stream, no session to
    delete (405)."""

    def reply(self, message: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def do_GET(self) -> None:
        self.send(405, b"")

    def do_DELETE(self) -> None:
        self.send(405, b"")

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        if not isinstance(message, dict) or message.get("id") is None:
            self.send(202, b"")
            return
        self.send(200, json.dumps(self.reply(message)).encode())


def discovered(name: str, extensions: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 ``server/discover`` result: server ``name``, tools and ``extensions``."""
    return {"resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}, "extensions": extensions},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "1"}},
            "ttlMs": 0, "cacheScope": "public"}


def listed(names: Iterable[str]) -> dict[str, Any]:
    """A 2026-07-28 ``tools/list`` result: a tool of each name taking any object."""
    return {"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
            "tools": [{"name": name, "inputSchema": {"type": "object"}} for name in names]}


TASKS = "io.modelcontextprotocol/tasks"


def text(value: str) -> dict[str, Any]:
    """A 2026-07-28 complete result of one text block."""
    return {"resultType": "complete", "content": [{"type": "text", "text": value}], "isError": False}


def task_call(params: dict[str, Any]) -> str | None:
    """The tool a 2026-07-28 ``tools/call`` names, when its client declared the tasks extension in
    its request's ``_meta`` (a task may be made for it); None when it did not."""
    capabilities = (params.get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    return str(params.get("name")) if TASKS in (capabilities.get("extensions") or {}) else None
