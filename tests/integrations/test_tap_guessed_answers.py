"""Two calls in flight, answered with bytes that mislead a reader guessing which request an
answer is for. The tap judges an answer (of any size) before its routing read when the request it
answers can be guessed from the answer's first or last bytes (the only request waiting, or the
id shown there: ``frames.shown_id``), and keeps that verdict only when the pairing by the
answer's id, as the lenient routing read takes it, is that very request. A wrong guess costs a
second judgement, never a wrong pairing: every call below is judged by its own answer, as when
each answer was read before it was judged.

The server is real (tests/servers/guess_answers.py: it holds both calls, then answers B, the
second sent, before A); the calls go through the official SDK's ``Client``; what each call's
verdict is, is written by hand. JSON-RPC 2.0 section 5: a response's id is the request's;
RFC 8259 section 4 and ``json.duplicate_key``: names within an object should be unique.
"""

from __future__ import annotations

import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import Kind, VerdictTap

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "tests.servers.guess_answers"]
LONG = "forecast " * 250

# tool → (A's kind, A's text), (B's kind, B's text or None, B's error codes)
CASES: list[tuple[str, tuple[Kind, str], tuple[Kind, str | None, list[str]]]] = [
    # B shows A's id first (nested in structuredContent) and its own last: judged as B's answer
    ("nested_id", (Kind.NORMAL_COMPLETE, "A"), (Kind.NORMAL_COMPLETE, "B", [])),
    # B's answer names A's id, then its own: the routing read keeps the last (B's); B's verdict
    # refuses the repeated name; A is judged by its own answer, which came next
    ("dup_id", (Kind.NORMAL_COMPLETE, "A"), (Kind.UNCLASSIFIED, None, ["json.duplicate_key"])),
    # a long answer whose id shows only in its last bytes
    ("id_last", (Kind.NORMAL_COMPLETE, "A"), (Kind.NORMAL_COMPLETE, LONG, [])),
]


@pytest.mark.parametrize(("tool", "a", "b"), CASES, ids=[case[0] for case in CASES])
def test_each_call_is_judged_by_its_own_answer(tool: str, a: tuple[Kind, str],
                                               b: tuple[Kind, str | None, list[str]]) -> None:
    async def scenario() -> dict[str, Any]:
        tap = VerdictTap()
        verdicts: dict[str, Any] = {}
        async with Client(tap.stdio_transport(SERVER[0], SERVER[1:], cwd=ROOT)) as client:
            async def one(who: str) -> None:
                async with tap.judging() as judged:
                    with suppress(Exception):  # what the SDK makes of the bytes is not the point here
                        await client.call_tool(tool, {"who": who})
                verdicts[who] = judged.verdict

            async with anyio.create_task_group() as group:
                group.start_soon(one, "A")
                await anyio.sleep(0.2)  # A is sent first
                group.start_soon(one, "B")
        return verdicts

    verdicts = anyio.run(scenario)
    assert (verdicts["A"].kind, verdicts["A"].content[0].text) == a
    kind, text, codes = b
    assert verdicts["B"].kind is kind
    assert sorted({f.code for f in verdicts["B"].errors}) == codes
    if text is not None:
        assert verdicts["B"].content[0].text == text
