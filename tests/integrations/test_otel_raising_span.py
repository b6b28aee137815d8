"""An application's current span whose ``is_recording`` raises (a vendor's span class with a bug)
while ``mcp_verdict.otel.instrument``'s observer looks at it as a tools/call is written: the
observer's failure never stops the request's write nor changes the verdict (README
"OpenTelemetry": recording a verdict is a side effect). It raised out of the tap's write: the
call failed though the server answered."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext

from mcp_verdict import VerdictTap
from mcp_verdict.otel import instrument

from .crafted_answers import command

OK = '{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}'


class _RaisingSpan(NonRecordingSpan):
    def is_recording(self) -> bool:
        raise RuntimeError("a vendor's span is broken")


def test_a_current_span_that_raises_changes_no_verdict() -> None:
    async def main() -> Any:
        tap = instrument(VerdictTap())
        executable, *args = command({"ok": {"raw": OK}})
        async with Client(tap.stdio_transport(executable, args)) as client:
            with trace.use_span(_RaisingSpan(SpanContext(1, 1, False)), end_on_exit=False):
                return await tap.call_tool(client, "ok", {})

    outcome = anyio.run(main)
    assert (outcome.verdict.kind.value, outcome.decision.action.value) == ("normal_complete", "accept")
