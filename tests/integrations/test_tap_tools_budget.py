"""What a connection keeps of a server's ``tools/list`` (each tool's definition, its outputSchema
and the schema compiled on a call's first use, for judging its calls) is bounded: at most 10,000
tools and 64 MiB per connection (a tool counted as its JSON and an upper bound of its parsed
form), and 128 MiB for all the connections a tap keeps (the oldest closed connections' tools
forgotten first). A tool past the budget is not kept: its calls are judged as a tool whose
listing was not kept (``outcome.tool`` None: no outputSchema, no annotations, a tool that may
write), and a ``RuntimeWarning`` says how many were not kept. The old tap kept every tool of
every listing, on each connection and on the last 64 closed ones: a listing of 100,000 tools, or
of huge schemas, was held whole, 65 times over. A real ``mcp.Client`` on a real stdio server
(below: ``count`` tools ``t0``... each with an outputSchema whose description is ``pad``
characters long)."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap

from .crafted_answers import HANDSHAKE

SERVER = HANDSHAKE + r'''
count, pad = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout.buffer
schema = {"type": "object", "description": "a" * pad}
tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}, "outputSchema": schema,
          "annotations": {"readOnlyHint": True, "title": "t"}} for i in range(count)]
for message, rid, method in requests():
    result = handshake(method, "listing")
    if method == "tools/list":
        result = {"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private"}
    elif method == "tools/call":
        result = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}], "structuredContent": {},
                  "isError": False}
    elif result is None:
        result = {}
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n"); out.flush()
'''


def command(count: int, pad: int) -> list[str]:
    return [sys.executable, "-c", SERVER, str(count), str(pad)]


# (tools listed, characters of each outputSchema's description) → (tools kept, whether the first
# and the last tool's calls are judged with their listing, the warnings' counts); by hand: a tool
# of a 10,000,000-character description is 10,000,1xx bytes of JSON, counted twice (ASCII) and
# 128 bytes per token (about 12): 20,002,000; three are 60.0 MB ≤ 64 MiB (67,108,864), four
# 80.0 MB; a tool of a few fields about 1,900: 10,000 of them 19 MB
CASES: list[tuple[str, int, int, tuple[int, tuple[bool, bool], list[str]]]] = [
    ("past the count", 12_000, 0, (10_000, (True, False), ["2000"])),
    ("past the bytes", 4, 10_000_000, (3, (True, False), ["1"])),
    ("within both", 50, 1_000, (50, (True, True), [])),
]


@pytest.mark.parametrize(("count", "pad", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_connection_keeps_its_tools_within_a_budget(count: int, pad: int,
                                                      expected: tuple[int, tuple[bool, bool], list[str]]) -> None:
    async def main() -> tuple[int, tuple[bool, bool]]:
        tap = VerdictTap()
        server = command(count, pad)
        async with Client(tap.stdio_transport(server[0], server[1:])) as client:
            await client.list_tools()
            first = await tap.call_tool(client, "t0", {})
            last = await tap.call_tool(client, f"t{count - 1}", {})
            state: Any = next(iter(tap._conns.values()))
            assert first.verdict.kind.value == last.verdict.kind.value == "normal_complete"
            return len(state.tools), (first.tool is not None, last.tool is not None)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept, listed = anyio.run(main)
    told = [str(w.message).split(" listed ")[1].split(" ")[0] for w in caught
            if "past the tap's budget" in str(w.message)]
    assert (kept, listed, told) == expected


# connections one after another, each listing three tools of 10,000,000-character descriptions
# (60.0 MB each, by hand as above) → the tools each connection keeps at the end: two are 120.0 MB
# ≤ 128 MiB (134,217,728), the third's first tool would make 140.0 MB: the oldest closed
# connection's are forgotten first (the old tap kept them all, the last 64 closed connections')
ALL: list[tuple[int, list[int]]] = [
    (3, [0, 3, 3]),
    (2, [3, 3]),
]


@pytest.mark.parametrize(("conns", "expected"), ALL, ids=[f"{c[0]} connections" for c in ALL])
def test_the_kept_connections_share_one_tools_budget(conns: int, expected: list[int]) -> None:
    async def main() -> list[int]:
        tap = VerdictTap()
        for _ in range(conns):
            server = command(3, 10_000_000)
            async with Client(tap.stdio_transport(server[0], server[1:])) as client:
                await client.list_tools()
        return [len(state.tools) for state in tap._conns.values()]

    assert anyio.run(main) == expected


# A call on the history keeps its outcome, and the outcome the tool as listed: a tool the tap no
# longer keeps (a later listing replaced it) would be held by the history still, 100 listings of
# a huge schema. A large tool (counted over 16 KiB) let go is kept on the history's calls as what
# their decision reads: its name and readOnlyHint / idempotentHint.
# (characters of each description, listings: each followed by a call) → per call on
# the history, oldest first: (its outcome's tool holds an outputSchema, the tool's annotations)
SLIM = {"readOnlyHint": True}
LISTINGS: list[tuple[str, int, int, list[tuple[bool, dict[str, Any]]]]] = [
    ("large tools", 1_000_000, 4, [(False, SLIM), (False, SLIM), (False, SLIM), (True, {**SLIM, "title": "t"})]),
    ("small tools", 10, 3, [(True, {**SLIM, "title": "t"})] * 3),
]


@pytest.mark.parametrize(("pad", "listings", "expected"), [c[1:] for c in LISTINGS], ids=[c[0] for c in LISTINGS])
def test_the_history_holds_no_large_tool_the_tap_let_go(pad: int, listings: int,
                                                        expected: list[tuple[bool, dict[str, Any]]]) -> None:
    async def main() -> tuple[list[tuple[bool, dict[str, Any]]], list[str]]:
        tap = VerdictTap()
        server = command(2, pad)
        async with Client(tap.stdio_transport(server[0], server[1:])) as client:
            for _ in range(listings):
                await client.list_tools()
                await tap.call_tool(client, "t0", {}, trusted_server=True)
        calls = list(tap.history)
        shown = [(call.outcome.tool is not None and "outputSchema" in call.outcome.tool,
                  dict(call.outcome.tool["annotations"]) if call.outcome.tool is not None else {}) for call in calls]
        return shown, [call.outcome.decision.action.value for call in calls]

    shown, actions = anyio.run(main)
    assert shown == expected
    assert actions == ["accept"] * listings
