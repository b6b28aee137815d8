"""The real servers the integration tests talk to, each started by the test on 127.0.0.1.

- the embedded demo server (``mcp_verdict.demo``) over stdio (a subprocess) and Streamable HTTP
  (in a background thread, so any event loop or stack can reach it);
- @modelcontextprotocol/server-everything (npm, under npm's node@22) over stdio and over
  Streamable HTTP, preloaded with ``loopback.cjs`` so it listens on 127.0.0.1 only.

The demo cases are stated by hand from the demo's construction (its catalogue says the same);
the mcp 1.x tests (``tests/integrations/mcp1``) import this module too, so it imports no SDK.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio

from ..processes import free_port, http_server, require

HERE = Path(__file__).resolve().parent
INTEROP = HERE.parent / "interop"
NODE = INTEROP / "node_modules" / "node" / "bin" / "node"
EVERYTHING = INTEROP / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
LOOPBACK = HERE / "loopback.cjs"

DEMO_STDIO = [sys.executable, "-m", "mcp_verdict.demo", "stdio"]

# (tool, arguments, kind, the finding or error code that explains it, decide(outcome).action)
# on a 2026-07-28 session (the SDK 2.x negotiates it with the demo).
DEMO_CASES: list[tuple[str, dict[str, Any], str, str | int | None, str]] = [
    ("get_forecast", {"city": "Lisbon"}, "normal_complete", None, "accept"),
    ("charge_card", {"amount_cents": 1999}, "tool_error", None, "return_to_model"),
    ("add_integers", {"a": 2, "b": "three"}, "protocol_error", -32602, "fix_request"),
    ("count_open_tickets", {"queue": "support"}, "normal_complete", None, "investigate"),
    ("string_is_error", {}, "unclassified", "result.is_error", "investigate"),
    ("duplicate_is_error", {}, "unclassified", "json.duplicate_key", "investigate"),
    ("unknown_result_type", {}, "unclassified", "result.result_type_unknown", "investigate"),
    ("deferred_everywhere", {}, "unclassified", "result.result_type_unknown", "investigate"),
    ("missing_result_type", {}, "unclassified", "result.result_type_missing", "investigate"),
    ("text_block_without_text", {}, "unclassified", "content.field_missing", "investigate"),
    ("nan_value", {}, "unclassified", "json.syntax", "investigate"),
    ("malformed_json", {}, "unclassified", "json.syntax", "investigate"),
    ("invalid_utf8", {}, "unclassified", "json.encoding", "investigate"),
    ("mismatched_id", {}, "unclassified", "envelope.id_mismatch", "investigate"),
]

# The same on a 2025 (initialize) session, as mcp 1.x negotiates it: results carry no resultType,
# so its absence is no fault, and unknown_result_type sends none (deferred_everywhere still does).
LEGACY_CASES: list[tuple[str, dict[str, Any], str, str | int | None, str]] = [
    case for case in DEMO_CASES if case[0] not in ("unknown_result_type", "missing_result_type")
] + [("unknown_result_type", {}, "normal_complete", None, "accept")]


def require_interop(path: Path, what: str) -> Path:
    """The peer, or a skip (a failure under ./run test, which sets MCP_VERDICT_REQUIRE_INTEROP=1)."""
    return require(path, what, "run `npm ci --prefix tests/interop` (./run test does)")


def everything_stdio() -> list[str]:
    node = require_interop(NODE, "npm's node@22")
    server = require_interop(EVERYTHING, "@modelcontextprotocol/server-everything")
    return [str(node), str(server), "stdio"]


@contextlib.contextmanager
def everything_http(timeout: float = 30.0) -> Iterator[str]:
    """server-everything over Streamable HTTP on 127.0.0.1; yields its URL; stopped on exit."""
    node = require_interop(NODE, "npm's node@22")
    server = require_interop(EVERYTHING, "@modelcontextprotocol/server-everything")
    port = free_port()
    with http_server([str(node), "--require", str(LOOPBACK), str(server), "streamableHttp"], port,
                     "server-everything", env={"PORT": str(port)}, timeout=timeout) as url:
        yield url


FIFTY = {i: f"call {i}" for i in range(50)}
"""What 50 concurrent ``slow_echo`` calls answered out of order must give back: call i its own text."""


async def fifty_out_of_order(echo: Callable[[dict[str, Any]], Awaitable[str]], step: float = 0.005) -> dict[int, str]:
    """50 concurrent ``slow_echo`` calls through `echo` (arguments → the echoed text), call i
    sleeping (50 - i)·step on the server, so they are answered last call first; {i: text}."""
    results: dict[int, str] = {}

    async def one(i: int) -> None:
        results[i] = await echo({"text": f"call {i}", "seconds": (50 - i) * step})

    async with anyio.create_task_group() as group:
        for i in range(50):
            group.start_soon(one, i)
    return results
