"""The proxy: ``mcp-verdict proxy`` between a host and an MCP server, judging every answer.

Holds the relay (``_relay``: one host↔upstream conversation, sans-I/O — limits, pairing with
``frames.Tracker``, the verdict of every ``tools/call`` answer on its exact bytes, the
``observe``/``enforce`` modes, the faults), the ids the proxy writes in its own answers and
cancellations (``_ids``: a host request's id as the host wrote it, a cut-short frame's id), a host
request whose routing members two parsers read two ways (``_twice``), the task
ids a server creates again while a task with it runs (``_tasks``), a frame written on one line
for a peer that reads one a line (``_one_line``), the frames the proxy writes itself and its error
codes (``_codes``), the proxy's own faults a last-resort handler meets: their reason and one
stderr line (``_faults``), MCP 2025-03-26's JSON-RPC batches through the relay (``_batch``), the routing
between a host side and an upstream side (``_bridge``), the transports (``_stdio``: the host on
stdin/stdout and an upstream process with its restart policy; ``_http_host``: a Streamable HTTP
server for the host; ``_http_upstream``: a Streamable HTTP client to the upstream, its POSTs on
kept connections ``_http_posts``), the frame log and verdict lines (``_record``), the
OpenTelemetry spans and metrics (``_otel``), the 2026-07-28 ``Mcp-Param`` headers a tool declares,
written and checked (``_params``), the 2026-07-28 headers an HTTP host's POST must carry, checked
against its body (``_headers``), stopping on a signal (``_shutdown``) and the wiring of the four
transport pairs (``_run``).

May import: the verdict, the judgement and the frames layers; orjson, and msgspec (the exact
read of a body's numbers, ``_params``); the HTTP stack of the
[proxy] extra (aiohttp, and uvloop when installed) and opentelemetry with the otel layer's span
vocabulary (the [otel] extra), each only in the module that needs it. Never the client, the SDK or a framework.
"""

from __future__ import annotations

from ._codes import (
    CODES,
    REFUSED,
    TOO_LARGE,
    UPSTREAM_CLOSED,
    UPSTREAM_TIMEOUT,
    UPSTREAM_UNAVAILABLE,
)
from ._relay import Out, Relay
from ._run import ProxyOptions, main, run

LAYER_CONTRACT = {"layers": ("verdict", "judgement", "frames", "otel"),
                  "libraries": ("orjson", "msgspec", "aiohttp", "uvloop", "opentelemetry", "multidict", "yarl")}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = [
    "CODES",
    "REFUSED",
    "TOO_LARGE",
    "UPSTREAM_CLOSED",
    "UPSTREAM_TIMEOUT",
    "UPSTREAM_UNAVAILABLE",
    "Out",
    "ProxyOptions",
    "Relay",
    "main",
    "run",
]
