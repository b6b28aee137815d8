"""The tap's ``call_tool`` refuses a name or an argument no tool call can carry before anything
is sent (frames/_sendable.py), as ``VerdictClient`` does: the SDK's serializer would send NaN as
``null`` and a ``Decimal`` as a string. Through the official SDK's ``Client`` on the demo server
over stdio; the messages are written by hand (RFC 8259: JSON has no NaN, no bytes)."""

from __future__ import annotations

import decimal
import math
from typing import Any

import anyio
from mcp import Client

from mcp_verdict import OptionError, VerdictTap

from .peers import DEMO_STDIO

# (name, arguments, the OptionError's option and message)
REFUSED: list[tuple[object, object, str, str]] = [
    ("create_note", {"text": math.nan}, "arguments['text']",
     "arguments['text'] must be a finite number (JSON has no NaN or infinity), not nan"),
    ("create_note", {"text": "a", "at": {"cost": decimal.Decimal("2")}}, "arguments['at']['cost']",
     "arguments['at']['cost'] must be a JSON value: None, a bool, an int, a finite float, a string, a list or "
     "tuple, or a mapping with string keys, not Decimal('2')"),
    ("create_note", {b"text": "a"}, "arguments", "arguments must have string keys (JSON has no other), not b'text'"),
    (7, {"text": "a"}, "name", "name must be a tool's name (a non-empty string), not 7"),
]


def test_the_taps_call_tool_refuses_what_json_cannot_carry_before_sending() -> None:
    async def scenario() -> tuple[list[tuple[str, str]], int, str]:
        tap = VerdictTap()
        seen = []
        async with Client(tap.stdio_transport(DEMO_STDIO[0], DEMO_STDIO[1:])) as client:
            for name, arguments, _, _ in REFUSED:
                try:
                    await tap.call_tool(client, name, arguments)  # type: ignore[arg-type]
                except OptionError as exc:
                    seen.append((exc.option, str(exc)))
            sent = len(tap.history)
            good: Any = await tap.call_tool(client, "create_note", {"text": "kept"})
        return seen, sent, good.verdict.kind.value

    seen, sent, kind = anyio.run(scenario)
    assert seen == [(option, message) for _, _, option, message in REFUSED]
    assert (sent, kind) == (0, "normal_complete")  # nothing sent for them; the session goes on
