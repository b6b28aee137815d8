"""``error.type`` of a protocol error is the server's JSON-RPC error code as a string: a code of
more than 1,024 digits (one JSON integer, up to the 4,300 digits Python reads) is cut at 1,024
characters and the count, as a tool's name is (``test_otel_tool_names``); the old spans copied
it whole, 4,300 characters of the server's choosing in every span exported. A real
``mcp.Client`` on a real stdio server (``crafted_answers``: the error written byte for byte) and
:func:`record` outside any span (a span of its own, every attribute ours); the OpenTelemetry
SDK's in-memory exporter (``test_otel``).

- OpenTelemetry semantic conventions, MCP (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/):
  ``error.type`` of a JSON-RPC error is its code, as a string.
- JSON-RPC 2.0 s5.1: the error code is an integer (of any length JSON writes)."""

from __future__ import annotations

from typing import cast

import anyio
import pytest
from mcp import Client
from opentelemetry.sdk.trace import ReadableSpan

from mcp_verdict import VerdictTap
from mcp_verdict.otel import record

from .crafted_answers import command
from .test_otel import EXPORTER

MESSAGE = "m" * 100_000
# the code as written → (the verdict's kind, error.type); by hand
CASES: list[tuple[str, tuple[str, str]]] = [
    ("1" * 2000, ("protocol_error", "1" * 1024 + "… (2000 characters in all)")),
    ("1" * 1024, ("protocol_error", "1" * 1024)),
    ("-32602", ("protocol_error", "-32602")),
]


@pytest.mark.parametrize(("code", "expected"), CASES, ids=["2000-digits", "1024-digits", "plain"])
def test_the_error_code_on_a_span_is_bounded(code: str, expected: tuple[str, str]) -> None:
    raw = '{"jsonrpc":"2.0","id":{id},"error":{"code":' + code + ',"message":"' + MESSAGE + '"}}'
    server = command({"fails": {"raw": raw}})

    async def main() -> ReadableSpan:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(server[0], server[1:])) as client:
            outcome = await tap.call_tool(client, "fails", {})
        return cast(ReadableSpan, record(outcome, tool="fails"))

    EXPORTER.clear()
    span = anyio.run(main)
    attributes = dict(span.attributes or {})
    assert (attributes["mcp_verdict.kind"], attributes["error.type"]) == expected
    EXPORTER.clear()


def test_a_callers_verdict_holding_integers_past_the_digit_limit_is_recorded() -> None:
    """A verdict of a caller's parsed value may hold any integer: an error code and an id of 5,001
    digits, past Python's limit for ``str()`` (4,300), which the span's attributes wrote with
    ``str()`` (ValueError). Both are named by their size now, as ``_findings.integer_text`` names
    them (16,610 bits x log10 2: about 5,000 digits)."""
    from mcp_verdict import classify, evaluate

    verdict = classify({"jsonrpc": "2.0", "id": 10**5000, "error": {"code": 10**5000, "message": "m"}},
                       version="2025-11-25")
    EXPORTER.clear()
    span = cast(ReadableSpan, record(evaluate(verdict), tool="fails"))
    attributes = dict(span.attributes or {})
    assert (attributes["mcp_verdict.kind"], attributes["error.type"], attributes["jsonrpc.request.id"]) == (
        "protocol_error", "an integer of about 5000 digits", "an integer of about 5000 digits")
    EXPORTER.clear()
