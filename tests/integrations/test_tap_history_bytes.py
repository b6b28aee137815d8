"""``VerdictTap.history`` keeps the last 100 judged calls with their exact bytes — and, once a call
of more than a MiB is on it, at most ``HISTORY_BYTES`` (64 MiB) of their requests and answers,
the newest call always whole: the old tap kept 100 calls whatever their size (100 answers of
50 MB: 5 GB held by a tap that runs for hours). A real ``mcp.Client`` on a real stdio server
(``crafted_answers``: each answer written byte for byte, its text ``pad`` characters long)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap

from .crafted_answers import answer, command

RESULT = '{"resultType":"complete","content":[{"type":"text","text":"{pad}"}],"isError":false}'

# (characters of each answer's text, calls) → (calls on the history, each normal_complete); by
# hand: an answer is its text and 86 bytes of envelope, a request about 300 bytes; 16 calls of
# 4,000,400 bytes are 64.0 MB ≤ 64 MiB (67,108,864 bytes), 17 are 68.0 MB
CASES: list[tuple[int, int, int]] = [
    (4_000_000, 20, 16),  # bounded by bytes: the 16 newest
    (1_000_000, 20, 20),  # no call over a MiB: 20 MB, all kept
    (1_000, 120, 100),    # the count bound
]


@pytest.mark.parametrize(("pad", "calls", "kept"), CASES, ids=[f"{c[0]}x{c[1]}" for c in CASES])
def test_the_history_holds_a_bounded_number_of_bytes(pad: int, calls: int, kept: int) -> None:
    server = command({"big": {"raw": answer(RESULT), "pad": ["a", pad]}})

    async def main() -> tuple[int, list[str], list[Any], list[Any]]:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(server[0], server[1:])) as client:
            ids: list[Any] = []
            for _ in range(calls):
                outcome = await tap.call_tool(client, "big", {})
                ids.append(outcome.verdict.id)
        history = list(tap.history)
        return (len(history), sorted({call.outcome.verdict.kind.value for call in history}),
                [call.request_id for call in history], ids[-kept:])

    length, kinds, kept_ids, newest = anyio.run(main)
    assert (length, kinds) == (kept, ["normal_complete"])
    assert kept_ids == newest  # the newest calls, oldest first
