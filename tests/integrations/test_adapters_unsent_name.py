"""An adapter's call whose stack returned without sending a tools/call (an interceptor or a cache
in front of the session answered it) is a ``RuntimeError`` naming the tool
(``integrations._policy.run_judged``, which every adapter runs its calls through). The name is the
model's or the caller's, taken from a server's listing: the message holds at most 500 of its
characters and the count, its control, escape, bidi and lone surrogate characters as visible
escapes, as every other peer text in an exception (``tap._error.PEER_TEXT_SHOWN``). The old
message held the name whole (``{name!r}``: a 10 MB name, a 10 MB message) with its bidi
controls as they were. A real ``VerdictTap``; the stack's call is a coroutine that returns a
result without writing anything, as a caching interceptor does."""

from __future__ import annotations

import anyio
import pytest

from mcp_verdict import VerdictTap
from mcp_verdict.integrations._policy import run_judged
from mcp_verdict.judgement._decide import DEFAULT_RETRY

# the tool's name → the exception's message; by hand
CASES: list[tuple[str, str, str]] = [
    ("plain", "get_forecast", "the call of 'get_forecast' sent no tools/call request"),
    ("long", "x" * 10_000_000,
     "the call of '" + "x" * 500 + "… (10000000 characters in all)' sent no tools/call request"),
    ("escapes", "a\x1b[2Jb\u202ec\r", "the call of 'a\\x1b[2Jb\\u202ec\\r' sent no tools/call request"),
    ("lone surrogate", "t\udcff", "the call of 't\\udcff' sent no tools/call request"),
]


@pytest.mark.parametrize(("name", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_call_that_sent_nothing_names_its_tool_bounded_and_inert(name: str, expected: str) -> None:
    async def cached() -> str:
        return "a result no server sent"

    async def main() -> None:
        await run_judged(VerdictTap(), None, name, cached, retry=DEFAULT_RETRY, run_again=False, judge_options={})

    with pytest.raises(RuntimeError) as raised:
        anyio.run(main)
    assert str(raised.value) == expected
    str(raised.value).encode("utf-8")  # any UTF-8 log carries it
