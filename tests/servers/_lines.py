"""What the test servers share: the messages a client writes on stdio, one JSON object a line,
and serving HTTP on a free port until stdin closes."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
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
