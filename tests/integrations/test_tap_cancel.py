"""A call cancelled before its answer (``anyio.move_on_after``, ``asyncio.wait_for``) is judged
when it is cancelled: ``transport.cancelled``, not a success, its effect unknown (the request was
sent: the tool may have run), on the tap's records and on a span with error status; an answer
that arrives afterwards is the cancelled call's late answer, on the tap's history only (no span,
never a second call). A real ``mcp.Client`` on a real stdio server
(``crafted_stdio.py``: ``silent`` never answers, ``late`` answers after 1 s), the OpenTelemetry
SDK's in-memory exporter (``test_otel``)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from opentelemetry.trace import StatusCode

from mcp_verdict import VerdictTap
from mcp_verdict.otel import instrument

from .test_otel import EXPORTER, verdict_spans

CRAFTED = [sys.executable, str(Path(__file__).with_name("crafted_stdio.py"))]
CANCELLED = ("the tools/call answer is unclassified (transport.cancelled: the call was cancelled before its answer "
             "arrived (CancelledError); the request was sent, so the tool may have run); next: check_state — the "
             "request was sent and its effect is unknown: observe the state before anything else; never resend "
             "blindly")

# (tool, how the caller gives up) → the tap's history and the spans with a verdict, in order:
# (tool, late, kind, first finding, decision) and (tool, error.type, status, status description);
# by hand
CASES: list[tuple[str, str]] = [("silent", "move_on_after"), ("silent", "wait_for"), ("late", "move_on_after"),
                                ("late", "wait_for")]
CANCELLED_ROW = ("cancelled", False, "unclassified", "transport.cancelled", "check_state")
PLAIN_ROW = ("plain", False, "normal_complete", None, "accept")
HISTORY = {"silent": [CANCELLED_ROW, PLAIN_ROW],
           "late": [CANCELLED_ROW, ("cancelled", True, "normal_complete", None, "accept"), PLAIN_ROW]}
SPANS = [("cancelled", "unclassified", StatusCode.ERROR, CANCELLED), ("plain", None, StatusCode.UNSET, None)]


async def give_up(how: str, call: Awaitable[Any]) -> str:
    if how == "move_on_after":
        with anyio.move_on_after(0.3) as scope:
            await call
        return "cancelled" if scope.cancelled_caught else "answered"
    try:
        await asyncio.wait_for(call, 0.3)
    except TimeoutError:
        return "cancelled"
    return "answered"


@pytest.mark.parametrize(("tool", "how"), CASES, ids=[f"{tool}-{how}" for tool, how in CASES])
def test_a_cancelled_call_is_judged_unknown_and_a_late_answer_is_no_second_call(tool: str, how: str) -> None:
    EXPORTER.clear()

    async def scenario() -> tuple[str, VerdictTap]:
        tap = instrument(VerdictTap())
        with anyio.fail_after(20):
            async with Client(tap.stdio_transport(CRAFTED[0], CRAFTED[1:])) as client:
                # late: 6 s, 20 times the 0.3 s after which the caller gives up (no stalled client reads it first)
                given_up = await give_up(how, tap.call_tool(client, tool, {"seconds": 6.0} if tool == "late" else {}))
                if tool == "late":  # until its late answer is on the history (fail_after bounds the wait)
                    while not any(getattr(c, "late", False) for c in tap.history):
                        await anyio.sleep(0.05)
                else:
                    await anyio.sleep(1.2)  # (no answer comes)
                await tap.call_tool(client, "plain", {})  # read after the late answer, on the same session
        return given_up, tap

    given_up, tap = anyio.run(scenario)
    spans = verdict_spans(EXPORTER)
    EXPORTER.clear()
    assert given_up == "cancelled"
    name = {tool: "cancelled", "plain": "plain"}
    assert [(name[c.name or ""], getattr(c, "late", False), c.verdict.kind.value,
             c.verdict.errors[0].code if c.verdict.errors else None,
             c.outcome.decision.action.value) for c in tap.history] == HISTORY[tool]
    assert [(name[str((s.attributes or {}).get("gen_ai.tool.name"))], (s.attributes or {}).get("error.type"),
             s.status.status_code, s.status.description) for s in spans] == SPANS
    assert not any(state.answered for state in tap._conns.values())  # the late answer is not kept for a claim
