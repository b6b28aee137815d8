"""What the connections a tap keeps hold for blocks that judge late — the answers of calls no
block claimed (the SDK's own ``call_tool`` on the tap's transport), the answers to nothing
(strays) and the lines that were no message (noise) — is bounded for the tap as a whole: at most
``HISTORY_BYTES`` (64 MiB) of requests and answers for all its connections together, open or
closed, the newest kept and the oldest dropped first, whichever connection holds them; a noise
line is kept to what a verdict shows of it. The old tap bounded each connection on its own (64 MiB
of answers and 64 MiB of strays each) and kept the last 64 closed connections whole (8 GiB), and
kept each noise line whole (64 lines of up to ``max_bytes`` per connection). A real
``mcp.Client`` on a real stdio server (``crafted_answers``: each answer written byte for byte),
one connection after another; the bytes are counted on the tap's own state."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap
from mcp_verdict.tap._history import HISTORY_BYTES

from .crafted_answers import answer, command

RESULT = '{"resultType":"complete","content":[{"type":"text","text":"{pad}"}],"isError":false}'
DONE = answer('{"resultType":"complete","content":[{"type":"text","text":"done"}],"isError":false}')
TOOLS = {
    "big": {"raw": answer(RESULT)},  # an answer of its text and 86 bytes
    "stray_first": {"raw": '{"jsonrpc":"2.0","id":999999,"result":' + RESULT + "}\n" + DONE},  # a stray of text + 91
    "noisy": {"raw": "{pad}\n" + DONE},  # a line that is no message (its text), then the answer
}

# (tool, characters of its text, connections, calls on each) → per connection, oldest first:
# (answers kept, strays kept, noise bytes kept). By hand: a call's request is about 150 bytes, an
# answer 4,000,086 (or a stray 4,000,091 and an answer 100): 16 of them are 64.0 MB ≤ 64 MiB
# (67,108,864 bytes), 17 are 68.0 MB, so the 16 newest calls' are kept (and the small answer
# before the oldest of them: 64.0 MB + 250 bytes); a noise line is kept to 61 bytes.
CASES: list[tuple[str, int, int, int, list[tuple[int, int, int]]]] = [
    ("big", 4_000_000, 3, 10, [(0, 0, 0), (6, 0, 0), (10, 0, 0)]),
    ("stray_first", 4_000_000, 3, 10, [(0, 0, 0), (7, 6, 0), (10, 10, 0)]),
    ("big", 1_000_000, 3, 10, [(10, 0, 0), (10, 0, 0), (10, 0, 0)]),  # 30 MB: all kept
    ("noisy", 1_000_000, 2, 10, [(10, 0, 610), (10, 0, 610)]),
]


@pytest.mark.parametrize(("tool", "pad", "conns", "calls", "kept"), CASES,
                         ids=[f"{c[0]}-{c[1]}x{c[2]}x{c[3]}" for c in CASES])
def test_what_the_kept_connections_hold_shares_one_bound(tool: str, pad: int, conns: int, calls: int,
                                                         kept: list[tuple[int, int, int]]) -> None:
    server = command({tool: {**TOOLS[tool], "pad": ["a", pad]}})

    async def main() -> tuple[list[tuple[int, int, int]], int, int, int]:
        tap = VerdictTap()
        for _ in range(conns):
            async with Client(tap.stdio_transport(server[0], server[1:])) as client:
                for _ in range(calls):
                    await client.call_tool(tool, {})
        states: list[Any] = list(tap._conns.values())
        held = sum(len(e.request.data) + len(e.response.data) for s in states for e in s.answered.values()) \
            + sum(len(stray.seen.data) for s in states for stray in s.strays)
        parsed = sum(e.response_peek.message is not None for s in states for e in s.answered.values()) \
            + sum(stray.peek.message is not None for s in states for stray in s.strays)
        return ([(len(s.answered), len(s.strays), sum(len(data) for _, data in s.noise)) for s in states],
                held, parsed, tap._held.size)

    per_conn, held, parsed, counted = anyio.run(main)
    assert per_conn == kept
    assert held <= HISTORY_BYTES
    assert counted == held  # the tap's running count is what its connections hold
    assert parsed == 0  # a kept answer is its bytes: its parsed message is not held beside them
