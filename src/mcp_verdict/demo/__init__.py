"""The demo server: a fault-injecting MCP server speaking 2026-07-28, over stdio and HTTP.

Every tool is built to produce one outcome — success, tool error, input required (elicitation,
sampling), task, protocol error, a malformed result, or a broken wire frame — and
:data:`CATALOGUE` says, by hand, which verdict, decision and naive conclusion each one must give.

It is its own raw JSON-RPC server (not the SDK's, which re-serialises results and cannot emit
these faults): a sans-I/O core, :class:`DemoServer` (a parsed message in, the exact reply bytes
or a fault action out), and two thin edges.

Starting it::

    python -m mcp_verdict.demo stdio             # JSON-RPC lines on stdin/stdout, logs on stderr
    python -m mcp_verdict.demo http [--port N]   # prints "listening on http://127.0.0.1:PORT/mcp"
                                                 # on stdout; POST only, 127.0.0.1 only

    stdio_command()                              # [sys.executable, "-m", "mcp_verdict.demo", "stdio"]
    async with serve_http() as url: ...          # in-process, in the running asyncio loop
    with serve_http_in_thread() as url: ...      # in-process, on a background thread

The HTTP edge needs ``uvicorn``.
"""

from __future__ import annotations

import sys

from ._catalogue import (
    CATALOGUE,
    CATALOGUE_BY_NAME,
    DEMO_CLIENT_CAPABILITIES,
    DEMO_EXTENSIONS,
    DemoTool,
    Expected,
    Naive,
    naive_conclusion,
)
from ._core import LEGACY_VERSIONS, PROTOCOL_VERSION, SUPPORTED_VERSIONS, Connection, DemoServer
from ._http import DemoHttpApp, run_http, serve_http, serve_http_in_thread
from ._stdio import serve_stdio
from ._tools import TOOLS, TOOLS_BY_NAME
from ._wire import HTTP_STATUS, Reply


def stdio_command() -> list[str]:
    """The command line that starts the stdio server with this interpreter."""
    return [sys.executable, "-m", "mcp_verdict.demo", "stdio"]


def http_command(port: int = 0) -> list[str]:
    """The command line that starts the HTTP server (it prints its URL on stdout)."""
    return [sys.executable, "-m", "mcp_verdict.demo", "http", "--port", str(port)]


LAYER_CONTRACT = {"layers": ("verdict", "judgement", "frames"), "libraries": ("jsonschema", "uvicorn")}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = [
    "CATALOGUE",
    "CATALOGUE_BY_NAME",
    "DEMO_CLIENT_CAPABILITIES",
    "DEMO_EXTENSIONS",
    "HTTP_STATUS",
    "LEGACY_VERSIONS",
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "TOOLS",
    "TOOLS_BY_NAME",
    "Connection",
    "DemoHttpApp",
    "DemoServer",
    "DemoTool",
    "Expected",
    "Naive",
    "Reply",
    "http_command",
    "naive_conclusion",
    "run_http",
    "serve_http",
    "serve_http_in_thread",
    "serve_stdio",
    "stdio_command",
]
