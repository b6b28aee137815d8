"""mcp_verdict.otel with the OpenTelemetry SDK's in-memory span exporter: the verdict on the span
the official SDK (2.x) or FastMCP opens for the call, per the MCP semantic conventions, and error
status for anything but an accepted call."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from fastmcp import Client as FastMCPClient
from mcp import Client
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from mcp_verdict import VerdictTap
from mcp_verdict.integrations.fastmcp import StrictTransport
from mcp_verdict.otel import ATTRIBUTES, instrument, record

from .peers import DEMO_STDIO

EXPORTER = InMemorySpanExporter()
_PROVIDER = TracerProvider()
_PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(_PROVIDER)  # once per process: the SDK and FastMCP use the global provider

# tool, arguments → error.type, mcp_verdict.kind, mcp_verdict.finding, mcp_verdict.decision (by hand)
CASES: list[tuple[str, dict[str, Any], str | None, str, str | None, str]] = [
    ("get_forecast", {"city": "Lisbon"}, None, "normal_complete", None, "accept"),
    ("count_open_tickets", {}, "content_check", "normal_complete", None, "investigate"),
    ("charge_card", {"amount_cents": 5}, "tool_error", "tool_error", None, "return_to_model"),
    ("add_integers", {"a": 1, "b": "x"}, "-32602", "protocol_error", None, "fix_request"),
    ("string_is_error", {}, "unclassified", "unclassified", "result.is_error", "investigate"),
    ("duplicate_is_error", {}, "unclassified", "unclassified", "json.duplicate_key", "investigate"),
]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    EXPORTER.clear()
    yield EXPORTER
    EXPORTER.clear()


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def verdict_spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.attributes and "mcp_verdict.kind" in s.attributes]


def check(span: ReadableSpan, case: tuple[str, dict[str, Any], str | None, str, str | None, str]) -> None:
    name, _, error, kind, finding, decision = case
    attributes = dict(span.attributes or {})
    assert set(attributes) & set(ATTRIBUTES) >= {"mcp.method.name", "jsonrpc.request.id", "mcp.protocol.version",
                                                 "mcp_verdict.kind", "mcp_verdict.decision", "mcp_verdict.stage"}
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["mcp.protocol.version"] == "2026-07-28"
    assert attributes["mcp_verdict.kind"] == kind and attributes["mcp_verdict.decision"] == decision, name
    assert attributes.get("mcp_verdict.finding") == finding, name
    assert attributes.get("error.type") == error, name
    assert span.status.status_code is (StatusCode.ERROR if error else StatusCode.UNSET), name


def test_the_verdict_goes_on_the_sdks_own_span(spans: InMemorySpanExporter) -> None:
    async def scenario() -> None:
        tap = instrument(VerdictTap())
        async with Client(tap.stdio_transport(DEMO_STDIO[0], DEMO_STDIO[1:])) as client:
            for name, arguments, *_ in CASES:
                await tap.call_tool(client, name, arguments)

    run(scenario)
    found = verdict_spans(spans)
    assert [s.name for s in found] == [f"MCP send tools/call {case[0]}" for case in CASES]  # the SDK's spans
    for span, case in zip(found, CASES, strict=True):
        check(span, case)
        assert span.attributes is not None and span.attributes["gen_ai.tool.name"] == case[0]


def test_the_verdict_goes_on_fastmcps_span(spans: InMemorySpanExporter) -> None:
    async def scenario() -> None:
        transport = StrictTransport(DEMO_STDIO)
        instrument(transport.tap)
        async with FastMCPClient(transport) as client:
            for name, arguments, *_ in CASES:
                with contextlib.suppress(Exception):  # ToolError, MCPError, VerdictError: the span says which
                    await client.call_tool(name, arguments)

    run(scenario)
    found = verdict_spans(spans)
    assert len(found) == len(CASES)
    for span, case in zip(found, CASES, strict=True):
        check(span, case)


def test_a_call_without_an_answer_gets_a_span_of_its_own(spans: InMemorySpanExporter) -> None:
    async def scenario() -> None:
        tap = instrument(VerdictTap())
        async with Client(tap.stdio_transport(DEMO_STDIO[0], DEMO_STDIO[1:])) as client:
            await tap.call_tool(client, "slow_write", {"key": "otel", "seconds": 4},
                                call_options={"read_timeout_seconds": 0.2})  # 20 times the timeout

    run(scenario)
    (span,) = verdict_spans(spans)
    assert span.name == "tools/call slow_write" and span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "mcp_verdict"
    attributes = dict(span.attributes or {})
    assert (attributes["error.type"], attributes["mcp_verdict.finding"], attributes["mcp_verdict.decision"]) == (
        "unclassified", "transport.timeout", "check_state")
    assert span.status.status_code is StatusCode.ERROR


def test_record_on_a_span_of_your_own(spans: InMemorySpanExporter) -> None:
    from mcp_verdict import classify, evaluate

    outcome = evaluate(classify(b'{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[],'
                                b'"isError":"false"}}'))
    with trace.get_tracer("test").start_as_current_span("my call"):
        record(outcome, tool="backup")
    (span,) = verdict_spans(spans)
    assert span.name == "my call"
    assert dict(span.attributes or {})["jsonrpc.request.id"] == "3"
    assert span.status.status_code is StatusCode.ERROR and "result.is_error" in (span.status.description or "")


# (attempt, the tool) → mcp_verdict.attempt on the call's span (absent on a first attempt), its
# decision: a call run again says which attempt it is (by hand; DEFAULT_RETRY allows 3 attempts)
ATTEMPTS: list[tuple[int, str, int | None, str]] = [
    (1, "get_forecast", None, "accept"),
    (2, "get_forecast", 2, "accept"),
    (3, "add_integers", 3, "fix_request"),  # a -32602: fixed, not run again, whatever the attempt
]


@pytest.mark.parametrize(("attempt", "tool", "expected", "decision"), ATTEMPTS)
def test_a_call_run_again_says_its_attempt_on_the_span(spans: InMemorySpanExporter, attempt: int, tool: str,
                                                       expected: int | None, decision: str) -> None:
    """The tap's attempt (an adapter's retry passes it) reaches the span; before, every attempt's
    span looked like a first one."""
    arguments = {"city": "Lisbon"} if tool == "get_forecast" else {"a": 1, "b": "x"}

    async def scenario() -> None:
        tap = instrument(VerdictTap())
        async with Client(tap.stdio_transport(DEMO_STDIO[0], DEMO_STDIO[1:])) as client:
            await tap.call_tool(client, tool, arguments, attempt=attempt)

    run(scenario)
    (span,) = verdict_spans(spans)
    attributes = dict(span.attributes or {})
    assert (attributes.get("mcp_verdict.attempt"), attributes["mcp_verdict.decision"]) == (expected, decision)
