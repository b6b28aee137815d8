"""A tool error's text in the OpenAI Agents adapter's ``AgentsVerdictError`` (the message the
model is shown through the strict servers' ``failure_error_function``): shown literally, control,
escape and bidi characters as visible escapes, and bounded — at most 4,000 characters and the
count of the whole, where the old adapter copied a megabyte of it whole into the exception
message (every other piece of a server's text in the adapters' exceptions was bounded already:
``test_adapters_peer_text``). A real ``StrictMCPServerStdio`` on a crafted stdio server
(``crafted_answers``: the answer written byte for byte, its text ``pad`` characters long)."""

from __future__ import annotations

import anyio
import pytest

from mcp_verdict.integrations.openai_agents import AgentsVerdictError, StrictMCPServerStdio

from .crafted_answers import answer, command

ERROR = '{"resultType":"complete","content":[{"type":"text","text":"{pad}"}],"isError":true}'
PREFIX = "The tool reported an error: "

# (the text's repeated piece, its count) → (the message's length, its start, its end); by hand:
# the prefix is 28 characters, "… (1000000 characters in all)" 29
CASES: list[tuple[str, int, tuple[int, str, str]]] = [
    ("x", 1_000_000, (28 + 4000 + 29, PREFIX + "xxxx", "x… (1000000 characters in all)")),
    ("x", 4_000, (28 + 4000, PREFIX + "xxxx", "xxxx")),
    ("x", 4_001, (28 + 4000 + 26, PREFIX + "xxxx", "x… (4001 characters in all)")),
    # ESC [2J shown as visible escapes (\x1b: 4 characters), after the cut: 2,000 pieces of 4
    # characters are 8,000, cut at 4,000 (1,000 pieces, each 7 characters shown)
    ("\\u001b[2J", 2_000, (28 + 7000 + 26, PREFIX + "\\x1b[2J", "[2J… (8000 characters in all)")),
]


@pytest.mark.parametrize(("piece", "count", "expected"), CASES, ids=[f"{len(c[0])}x{c[1]}" for c in CASES])
def test_a_tool_errors_text_is_bounded_in_the_agents_error(piece: str, count: int,
                                                           expected: tuple[int, str, str]) -> None:
    executable, *args = command({"failing": {"raw": answer(ERROR), "pad": [piece, count]}})

    async def scenario() -> str:
        async with StrictMCPServerStdio({"command": executable, "args": args}) as server:
            try:
                await server.call_tool("failing", {})
            except AgentsVerdictError as error:
                return str(error)
        return "no error"

    message = anyio.run(scenario)
    assert (len(message), message[:len(expected[1])], message[-len(expected[2]):]) == expected
