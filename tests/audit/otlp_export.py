"""Writes an OTLP JSON trace export of real calls (run as a subprocess by the tests).

    python -m tests.audit.otlp_export OUT

The official SDK's Client calls the SDK server of tests/servers/sdk_server.py in process (the
server's spans), then the demo server over stdio (the client's spans); the SDK's own spans
(mcp.method.name, jsonrpc.request.id, gen_ai.tool.name, error.type) go to OpenTelemetry's OTLP
JSON file exporter, which writes OUT. Nothing in the export is written by hand.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from tests.servers.sdk_server import build

Calls = list[tuple[str, dict[str, Any]]]
DEMO_CALLS: Calls = [("get_forecast", {"city": "Lisbon"}), ("charge_card", {"amount_cents": 1999}),
                     ("add_integers", {"a": 2, "b": "three"}), ("string_is_error", {})]
CALLS: Calls = [("add", {"a": 2, "b": 3}), ("explode", {"reason": "disk full"}), ("no_such_tool", {}),
                ("add", {"a": "two", "b": 3})]


async def main(out: str) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "mcp-verdict-interop"}))
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(out)))
    trace.set_tracer_provider(provider)
    async with Client(build()) as client:
        for name, arguments in CALLS:
            try:
                await client.call_tool(name, arguments)
            except Exception as exc:  # a JSON-RPC error is raised; the span has recorded it
                print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    demo = StdioServerParameters(command=sys.executable, args=["-m", "mcp_verdict.demo", "stdio"])
    async with Client(demo) as client:
        for name, arguments in DEMO_CALLS:
            try:
                await client.call_tool(name, arguments)
            except Exception as exc:
                print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    provider.shutdown()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
