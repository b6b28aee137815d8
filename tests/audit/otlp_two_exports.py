"""Writes the two OTLP JSON trace exports of one set of calls traced on both sides, each process
with its own file exporter (run as a subprocess by the tests).

    python -m tests.audit.otlp_two_exports HOST_OUT SERVER_OUT      # the host: calls the server
    python -m tests.audit.otlp_two_exports --server SERVER_OUT      # the server (stdio), started by it

The host is the official SDK's Client, the server the SDK's MCPServer of tests/servers/sdk_server.py
over stdio; each exports its own spans (the SDK's: mcp.method.name, jsonrpc.request.id,
gen_ai.tool.name, error.type) with OpenTelemetry's OTLP JSON file exporter, the trace carried in
the request's _meta. Nothing in the exports is written by hand.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("add", {"a": 2, "b": 3}), ("explode", {"reason": "disk full"}), ("add", {"a": "two", "b": 3})]


def _provider(out: str, service: str) -> TracerProvider:
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(out)))
    trace.set_tracer_provider(provider)
    return provider


async def _host(server_out: str) -> None:
    from mcp import Client, StdioServerParameters

    server = StdioServerParameters(command=sys.executable, args=["-m", "tests.audit.otlp_two_exports", "--server",
                                                                 server_out])
    async with Client(server) as client:
        for name, arguments in CALLS:
            try:
                await client.call_tool(name, arguments)
            except Exception as exc:  # a JSON-RPC error is raised; the span has recorded it
                print(f"{name}: {type(exc).__name__}", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "--server":
        from tests.servers.sdk_server import build

        provider = _provider(sys.argv[2], "mcp-verdict-interop")
        try:
            build().run()
        finally:
            provider.shutdown()
    else:
        provider = _provider(sys.argv[1], "the-host")
        anyio.run(_host, sys.argv[2])
        provider.shutdown()
