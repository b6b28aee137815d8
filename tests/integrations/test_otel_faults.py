"""mcp_verdict.otel against a crafted server (``crafted_answers``) whose answers are
as large or as repetitive as a peer likes: what lands on the span stays bounded, and says what
the verdict says."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client
from opentelemetry import trace

from mcp_verdict import VerdictTap
from mcp_verdict.otel import record

from .crafted_answers import command
from .test_otel import EXPORTER, verdict_spans

HUGE = 1_000_000
BLOCKS = 20_000
TOOLS: dict[str, dict[str, Any]] = {
    "huge_message": {"raw": '{"jsonrpc":"2.0","id":{id},"error":{"code":-32000,"message":"{pad}"}}',
                     "pad": ["m", HUGE]},
    "many_blocks": {"raw": '{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":['
                           '{pad}{"type":"text"}]}}', "pad": ['{"type":"text"},', BLOCKS - 1]},
}
HEAD = "the tools/call answer is protocol_error (error -32000: "
TAIL = "); next: investigate — error -32000 has no defined recovery"

# tool → (mcp_verdict.findings, error.type, the status description), by hand
CASES: list[tuple[str, tuple[str, ...], str, str]] = [
    # the message is cut where the outcome is described (500 characters and the count), so the
    # description, under 1024 characters, says how long the peer's message was
    ("huge_message", (), "-32000", HEAD + "m" * 500 + f"… ({HUGE} characters in all)" + TAIL),
    ("many_blocks", ("content.field_missing",), "unclassified",
     "the tools/call answer is unclassified (content.field_missing at /result/content/0: the block has no "
     "text); next: investigate — the response is not a valid tools/call response: quarantine and log it; "
     "never success"),
]


def test_what_a_peer_sends_lands_on_the_span_bounded() -> None:
    """Each outcome recorded on a span of the application's own (``record``: the SDK's span of a
    protocol error gets the SDK's own status, from the MCPError it raises)."""
    EXPORTER.clear()

    async def scenario() -> list[Any]:
        tap = VerdictTap()
        executable, *args = command(TOOLS)
        async with Client(tap.stdio_transport(executable, args)) as client:
            return [await tap.call_tool(client, name, {}) for name, *_ in CASES]

    outcomes = anyio.run(scenario)
    EXPORTER.clear()
    for outcome, (name, *_) in zip(outcomes, CASES, strict=True):
        with trace.get_tracer("test").start_as_current_span(f"my call {name}"):
            record(outcome, tool=name)
    found = verdict_spans(EXPORTER)
    EXPORTER.clear()
    assert [span.name for span in found] == [f"my call {case[0]}" for case in CASES]
    for span, (name, findings, error_type, description) in zip(found, CASES, strict=True):
        attributes = dict(span.attributes or {})
        assert attributes["gen_ai.tool.name"] == name
        assert attributes["mcp_verdict.findings"] == findings, name
        assert attributes["error.type"] == error_type, name
        assert span.status.description == description, name
