"""``VerdictTap.history`` keeps the last 100 judged calls with their exact bytes — and, once a call
of more than 16 KiB is on it, at most ``HISTORY_BYTES`` (64 MiB) of their requests and answers
and the parsed answers their verdicts hold (``test_tap_history_parsed``), the newest call always
whole: the old tap kept 100 calls whatever their size (100 answers of
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
# hand: an answer is its text and 86 bytes of envelope, a request about 300 bytes, and the parsed
# answer its verdict holds is counted as the answer's length once more (ASCII) and 128 bytes per
# token (about 20: 3 kB); 8 calls of 8,003,000 bytes are 64.0 MB ≤ 64 MiB (67,108,864 bytes), 9
# are 72.0 MB (test_tap_history_parsed: the parsed answer counted)
CASES: list[tuple[int, int, int]] = [
    (4_000_000, 20, 8),  # bounded by bytes: the 8 newest
    (1_000_000, 20, 20),  # 20 calls of 2.0 MB: 40 MB, all kept
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


# The answers of calls no judging block claimed (the SDK's own call_tool on the tap's transport)
# are kept for a block that learns its id later: at most 256, and at most 64 MiB of answers once
# one of more than a MiB is kept (the old tap kept 256 whatever their size, per connection).
# (characters of each answer's text, calls) → (answers kept, the newest kept); by hand as above
# (an answer is its text and 86 bytes)
UNCLAIMED: list[tuple[int, int, int]] = [
    (4_000_000, 20, 16),
    (1_000_000, 20, 20),
]


@pytest.mark.parametrize(("pad", "calls", "kept"), UNCLAIMED, ids=[f"{c[0]}x{c[1]}" for c in UNCLAIMED])
def test_answers_no_block_claimed_are_kept_within_a_bound(pad: int, calls: int, kept: int) -> None:
    server = command({"big": {"raw": answer(RESULT), "pad": ["a", pad]}})

    async def main() -> tuple[int, bool]:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(server[0], server[1:])) as client:
            for _ in range(calls):
                result = await client.call_tool("big", {})
            answered = next(state.answered for state in tap._conns.values())
            newest = list(answered.values())[-1].response
            assert newest is not None and result.content[0].type == "text"
            return len(answered), newest.data.endswith(b'"isError":false}}')

    assert anyio.run(main) == (kept, True)


# Answers that answer nothing (an id no request carried) are kept, the last 256 per connection,
# for a late answer and an id of another JSON type: at most 64 MiB of them once one of more than a
# MiB is kept (the old tap kept 256 whatever their size: a server's 50 MB strays, 12 GB).
# (characters of each stray's text, calls, each answered after a stray) → strays kept; by hand
# (a stray is its text and 91 bytes)
STRAYS: list[tuple[int, int, int]] = [
    (4_000_000, 20, 16),
    (1_000_000, 20, 20),
]
STRAY = '{"jsonrpc":"2.0","id":999999,"result":' + RESULT + "}"


@pytest.mark.parametrize(("pad", "calls", "kept"), STRAYS, ids=[f"{c[0]}x{c[1]}" for c in STRAYS])
def test_answers_to_nothing_are_kept_within_a_bound(pad: int, calls: int, kept: int) -> None:
    plain = answer('{"resultType":"complete","content":[{"type":"text","text":"done"}],"isError":false}')
    server = command({"stray_first": {"raw": STRAY + "\n" + plain, "pad": ["a", pad]}})

    async def main() -> tuple[int, list[str]]:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(server[0], server[1:])) as client:
            kinds = [(await tap.call_tool(client, "stray_first", {})).verdict.kind.value for _ in range(calls)]
            strays = next(state.strays for state in tap._conns.values())
            return len(strays), sorted(set(kinds))

    assert anyio.run(main) == (kept, ["normal_complete"])
