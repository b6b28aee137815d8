"""A call cancelled before its answer has its own finding, ``transport.cancelled`` (MCP
basic/patterns/cancellation, timing considerations: the cancellation may come after the server
completed the request, so the effect is unknown; ``check_state`` for a tool that may write), and
an answer the server sends afterwards (processing had completed, or the server ignored the
cancellation) is that call's late answer: judged on its own bytes and kept on the tap's history
(``TapCall.late``), so an operator sees whether the cancelled write completed. The client SHOULD
ignore it (same section): it is never handed to the caller nor taken for another call's answer.
The tap judged the call ``transport.error`` and dropped the late answer among the strays, judged
nowhere.

The server is real (tests/servers/broken_answers.py: ``late`` answers after the ``seconds`` it is
given whatever the client did, here 6 s: 20 times the 0.3 s after which the caller gives up, so
that no stalled client reads the answer first; ``drop`` never answers on stdio), the client the
SDK's own ``mcp.Client`` over the tap's stdio transport and over Streamable HTTP on the tap's
client; the rows are written by hand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from mcp_verdict import VerdictTap

from ._tap_streams import client_of, serve_http

CANCELLED = ("the call was cancelled before its answer arrived (CancelledError); the request was sent, so the tool "
             "may have run")
DONE = b'{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "done"}], "isError": false}}'
PLAIN = DONE.replace(b'"id": 3', b'"id": 4')

# (transport, tool) → the tap's history, oldest first: (tool, late, kind, findings as (code,
# message), decision, the answer's bytes); the cancelled call is id 3 (after initialize and
# tools/list), the call after it id 4
Row = tuple[str, bool, str, list[tuple[str, str]], str, bytes | None]
CASES: list[tuple[str, str, list[Row]]] = [
    ("stdio", "late", [("late", False, "unclassified", [("transport.cancelled", CANCELLED)], "check_state", None),
                       ("late", True, "normal_complete", [], "accept", DONE),
                       ("plain", False, "normal_complete", [], "accept", PLAIN)]),
    ("http", "late", [("late", False, "unclassified", [("transport.cancelled", CANCELLED)], "check_state", None),
                      ("late", True, "normal_complete", [], "accept", DONE),
                      ("plain", False, "normal_complete", [], "accept", PLAIN)]),
    ("stdio", "drop", [("drop", False, "unclassified", [("transport.cancelled", CANCELLED)], "check_state", None),
                       ("plain", False, "normal_complete", [], "accept", PLAIN)]),
]


LATE_SECONDS = 6.0


async def late_answer(tap: VerdictTap) -> None:
    """Until the cancelled call's late answer is on the tap's history (no guess at how long the
    server takes: the scenario's fail_after bounds the wait)."""
    while not any(getattr(c, "late", False) for c in tap.history):
        await anyio.sleep(0.05)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    yield from serve_http()


@pytest.mark.parametrize(("transport", "tool", "history"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_cancelled_call_and_its_late_answer(transport: str, tool: str, history: list[Row], url: str) -> None:
    async def scenario() -> tuple[bool, list[Any]]:
        tap = VerdictTap()
        with anyio.fail_after(20):
            async with client_of(tap, transport, url) as client:
                with anyio.move_on_after(0.3) as scope:
                    await tap.call_tool(client, tool, {"seconds": LATE_SECONDS} if tool == "late" else {})
                if tool == "late":
                    await late_answer(tap)
                else:
                    await anyio.sleep(1.5)  # (no answer comes)
                await tap.call_tool(client, "plain", {})  # the session goes on
        return scope.cancelled_caught, list(tap.history)

    cancelled, calls = anyio.run(scenario)
    assert cancelled
    assert [(c.name, getattr(c, "late", False), c.verdict.kind.value, [(f.code, f.message) for f in c.verdict.findings],
             c.outcome.decision.action.value, c.response) for c in calls] == history
    late = [c for c in calls if getattr(c, "late", False)]  # (a TapCall before 0.1's late had none)
    assert all(c.request_id == calls[0].request_id == 3 for c in late)  # the cancelled call's, by its id
