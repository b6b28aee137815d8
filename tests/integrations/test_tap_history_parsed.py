"""``VerdictTap.history`` holds each call's verdict, and a verdict holds the parsed answer
(``Verdict.message``): about the answer's size again for a long text, and up to 35 times it for
JSON of many small objects (an array of ``{}``: 64 bytes of dict and an 8-byte slot per three
bytes). The history's bound (``HISTORY_BYTES``, 64 MiB) counts it: per call its request's and
answer's bytes and an upper bound of the parsed answer (``held_bytes``), from any call whose
request or answer is over 16 KiB. The old history counted the bytes alone, and only from a call
over a MiB: 16 text answers of 4 MB held 128 MB, and 20 answers of 300 kB of small objects (no
call over a MiB: never bounded) held 150 MB. A real ``mcp.Client`` on a real stdio server
(``crafted_answers``: each answer written byte for byte); what the history holds is also
measured apart from the tap's count (``sys.getsizeof`` over each parsed answer), which must be
within the bound too."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap, classify
from mcp_verdict.judgement._outcome import evaluate_listed
from mcp_verdict.tap._history import HISTORY_BYTES, TapCall, held_bytes

from .crafted_answers import answer, command

TEXT = '{"resultType":"complete","content":[{"type":"text","text":"{pad}"}],"isError":false}'
OBJECTS = ('{"resultType":"complete","content":[{"type":"text","text":"x"}],"structuredContent":{"a":[{pad}{}]},'
           '"isError":false}')


def measured(value: Any) -> int:
    """The bytes a parsed JSON value holds, by ``sys.getsizeof`` of each object in it."""
    size = sys.getsizeof(value)
    if type(value) is dict:
        return size + sum(measured(key) + measured(member) for key, member in value.items())
    if type(value) is list:
        return size + sum(measured(member) for member in value)
    return size


# (answer, pad text, its count, calls) → calls on the history; by hand, a request of about 300
# bytes:
# - a text of 4,000,000 characters: an answer of 4,000,086 bytes, counted twice (ASCII: its parsed
#   text is its length again) and 128 bytes per token (about 20): 8,003,000 per call; 8 are
#   64.0 MB ≤ 64 MiB (67,108,864 bytes), 9 are 72.0 MB (the old history kept 16: 128 MB held);
# - 100,001 empty objects: an answer of 300,138 bytes, counted twice and 128 bytes per token
#   (200,000 for the objects and their commas, about 20 more): 26,203,000 per call; 2 are
#   52.4 MB, 3 are 78.6 MB (the old history kept all 20: 20 x 7.5 MB held);
# - a text of 10,000 characters: under 16 KiB, 120 calls: the last 100 (about 2 MB).
CASES: list[tuple[str, str, int, int, int]] = [
    (TEXT, "a", 4_000_000, 20, 8),
    (OBJECTS, "{},", 100_000, 20, 2),
    (TEXT, "a", 10_000, 120, 100),
]


@pytest.mark.parametrize(("result", "pad", "count", "calls", "kept"), CASES,
                         ids=["long text", "small objects", "small calls"])
def test_the_history_counts_the_parsed_answers_it_holds(result: str, pad: str, count: int, calls: int,
                                                        kept: int) -> None:
    server = command({"big": {"raw": answer(result), "pad": [pad, count]}})

    async def main() -> tuple[int, list[Any], list[Any], int, int]:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(server[0], server[1:])) as client:
            ids: list[Any] = []
            for _ in range(calls):
                outcome = await tap.call_tool(client, "big", {})
                assert outcome.verdict.kind.value == "normal_complete"
                ids.append(outcome.verdict.id)
        history = list(tap.history)
        counted = sum(held_bytes(call) for call in history)
        held = sum(len(call.request or b"") + len(call.response or b"") + measured(call.verdict.message)
                   for call in history)
        return len(history), [call.request_id for call in history], ids[-kept:], counted, held

    length, kept_ids, newest, counted, held = anyio.run(main)
    assert length == kept
    assert kept_ids == newest  # the newest calls, oldest first
    assert held <= counted <= HISTORY_BYTES  # the count is an upper bound of what is held, within the bound


ENVELOPE = ('{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"a":%s},'
            '"isError":false}}')
# (structuredContent's "a", 10,000 elements or a 100,000-character text) → what the history counts
# of the call (held_bytes, a call without request bytes); by hand from the answer's length L and its
# tokens T ({ [ , : and one: 18 of the envelope's own): 2L (4 more L when it is not ASCII: four
# bytes a character, and the UTF-8 form a string keeps once something wrote it) + 128 T
# - empty objects: L 30,116, T 20,018: 60,232 + 2,562,304
# - strings of one character UTF-16 cannot hold: L 70,116, T 10,018: 420,696 + 1,282,304
# - objects nested three deep: L 180,116, T 80,018: 360,232 + 10,242,304
# - a text with one such character: L 100,121, T 18: 600,726 + 2,304
# - an ASCII text: L 100,117, T 18: 200,234 + 2,304
# - strings of one ASCII letter: L 40,116, T 10,018: 80,232 + 1,282,304
SHAPES: list[tuple[str, str, int]] = [
    ("empty objects", "[" + ",".join(["{}"] * 10_000) + "]", 2_622_536),
    ("astral strings", "[" + ",".join(['"\U0001f600"'] * 10_000) + "]", 1_703_000),
    ("nested objects", "[" + ",".join(['{"":{"":{"":{}}}}'] * 10_000) + "]", 10_602_536),
    ("astral text", '"\U0001f600' + "a" * 100_000 + '"', 603_030),
    ("ascii text", '"' + "a" * 100_000 + '"', 202_538),
    ("one-letter strings", "[" + ",".join(['"a"'] * 10_000) + "]", 1_362_536),
]


@pytest.mark.parametrize(("value", "counted"), [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_what_the_history_counts_is_at_least_what_a_parsed_answer_holds(value: str, counted: int) -> None:
    data = (ENVELOPE % value).encode()
    verdict = classify(data, request_id=1)
    call = TapCall(None, "t", 1, None, data, verdict, evaluate_listed(verdict, None, None))
    assert verdict.message is not None
    assert held_bytes(call) == counted
    assert len(data) + measured(verdict.message) <= counted  # an upper bound of what the call holds
