"""A tool's name on the verdict's span (``gen_ai.tool.name``, and the name of a span of its own,
``tools/call {tool}``): at most 1,024 characters and the count, control, escape and bidi
characters as visible escapes — a name a model took from a server's listing can be megabytes
and carry terminal escapes, and the old spans copied it whole, as it was, into every span
exported. A real ``mcp.Client`` on the demo server over stdio (the SDK's ``MCP send tools/call``
span, open when the answer arrives) and :func:`record` outside any span (a span of its own); the
OpenTelemetry SDK's in-memory exporter (``test_otel``)."""

from __future__ import annotations

from typing import Any, cast

import anyio
import pytest
from mcp import Client
from opentelemetry.sdk.trace import ReadableSpan

from mcp_verdict import VerdictTap, demo
from mcp_verdict.otel import instrument, record

from .test_otel import EXPORTER

# the tool's name → (gen_ai.tool.name, the name of a span of its own); by hand
CUT = "x" * 1024 + "… (2000 characters in all)"
CASES: list[tuple[str, tuple[str, str]]] = [
    ("x" * 2000, (CUT, "tools/call " + CUT)),
    ("a\x1b[2Jb\u202ec", ("a\\x1b[2Jb\\u202ec", "tools/call a\\x1b[2Jb\\u202ec")),
    ("get_forecast", ("get_forecast", "tools/call get_forecast")),
]


@pytest.mark.parametrize(("tool", "expected"), CASES, ids=["long", "escapes", "plain"])
def test_a_tools_name_on_a_span_is_bounded_and_inert(tool: str, expected: tuple[str, str]) -> None:
    EXPORTER.clear()

    async def main() -> Any:
        tap = instrument(VerdictTap())
        command, *args = demo.stdio_command()
        async with Client(tap.stdio_transport(command, args)) as client:
            return await tap.call_tool(client, tool, {})

    outcome = anyio.run(main)
    stacks = [span for span in EXPORTER.get_finished_spans() if "mcp_verdict.kind" in (span.attributes or {})]
    own = cast(ReadableSpan, record(outcome, tool=tool))  # outside any span: a span of its own (the SDK's)
    assert len(stacks) == 1 and stacks[0].attributes is not None
    assert (stacks[0].attributes["gen_ai.tool.name"], own.name) == expected
    EXPORTER.clear()
