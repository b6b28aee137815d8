"""Writes an OTLP JSON trace export of calls judged by mcp-verdict's own OpenTelemetry spans
(run as a subprocess by the tests: a tracer provider is process-wide).

    python -m tests.audit.otel_tap_export OUT TOOL...

README "OpenTelemetry"'s recipe: ``instrument(VerdictTap())`` over the official SDK's Client and
the demo server (stdio); OpenTelemetry's OTLP JSON file exporter writes OUT. Each TOOL is called
with the demo's arguments for it. Nothing in the export is written by hand.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import Client
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from mcp_verdict import VerdictTap, demo
from mcp_verdict.otel import instrument

ARGUMENTS: dict[str, dict[str, Any]] = {"get_forecast": {"city": "Lisbon"}, "charge_card": {"amount_cents": 1999},
                                        "add_integers": {"a": 2, "b": "three"}}


async def main(tools: list[str]) -> None:
    tap = instrument(VerdictTap())
    command, *args = demo.stdio_command()
    async with Client(tap.stdio_transport(command, args)) as client:
        for tool in tools:
            try:
                await tap.call_tool(client, tool, ARGUMENTS.get(tool, {}))
            except Exception as exc:  # a JSON-RPC error raised by the SDK: the span has recorded it
                print(f"{tool}: {type(exc).__name__}", file=sys.stderr)


if __name__ == "__main__":
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(sys.argv[1])))
    trace.set_tracer_provider(provider)
    anyio.run(main, sys.argv[2:])
    provider.shutdown()
