"""A call cancelled while its request is still queued in the tap's stdio transport (the server is
slow to read its stdin: the request before it is larger than the pipe holds) goes out after its
cancellation, and the server answers it: that answer is the cancelled call's late answer, on the
tap's history with ``late=True`` (README, the tap: "Cancelled"), as it is for a request that went
out before the call was cancelled (test_tap_cancel.py). The tap judged the cancelled call when
its request had not been recorded going out, so it did not wait for an answer to it: the answer,
paired with the request once it went out, was kept as an answer no block claimed, and the history
never showed what the server did with the cancelled call.

A real ``mcp.Client`` on a real stdio server (``crafted_stdio.py``: ``late`` answers after 8 s,
reading nothing meanwhile: 20 times the 0.4 s the steps below take, however loaded the machine;
``plain`` at once): ``late`` is sent, then a ``plain`` call of 2 MB
(the pipe fills: the transport's writer waits), then a ``plain`` call queued behind it, which the
caller gives up on after 0.2 s; a last ``plain`` call, answered after the queued one.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap

CRAFTED = [sys.executable, str(Path(__file__).with_name("crafted_stdio.py"))]
PAD = "x" * (2 * 1024 * 1024)

# how the caller gives up -> the tap's history, oldest first: (tool, late, kind, first finding,
# decision), and the late row's request id is the cancelled row's; by hand
HISTORY = [("plain", False, "unclassified", "transport.cancelled", "check_state"),
           ("late", False, "normal_complete", None, "accept"),
           ("plain", False, "normal_complete", None, "accept"),
           ("plain", True, "normal_complete", None, "accept"),
           ("plain", False, "normal_complete", None, "accept")]
CASES = ["move_on_after", "wait_for"]


async def give_up(how: str, tap: VerdictTap, client: Any) -> None:
    call = tap.call_tool(client, "plain", {"which": "queued"})
    if how == "move_on_after":
        with anyio.move_on_after(0.2):
            await call
        return
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(call, 0.2)


@pytest.mark.parametrize("how", CASES)
def test_a_call_cancelled_while_queued_gets_its_late_answer(how: str) -> None:
    async def scenario() -> VerdictTap:
        tap = VerdictTap()
        with anyio.fail_after(30):
            async with Client(tap.stdio_transport(CRAFTED[0], CRAFTED[1:])) as client:
                async with anyio.create_task_group() as group:
                    group.start_soon(tap.call_tool, client, "late", {"seconds": 8.0})
                    await anyio.sleep(0.1)  # the server reads it, then reads nothing for 8 s
                    group.start_soon(tap.call_tool, client, "plain", {"pad": PAD})
                    await anyio.sleep(0.1)  # its request fills the pipe: the next one is queued
                    await give_up(how, tap, client)
                await tap.call_tool(client, "plain", {})  # answered after the queued one (stdio is in order)
        return tap

    tap = anyio.run(scenario, backend="asyncio")
    rows = [(call.name, call.late, call.verdict.kind.value, call.verdict.findings[0].code if call.verdict.findings
             else None, call.outcome.decision.action.value) for call in tap.history]
    assert rows == HISTORY
    assert tap.history[3].request_id == tap.history[0].request_id
