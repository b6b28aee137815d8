"""A whole ``tools/list`` listing replaces the tools a connection keeps: a tool it no longer lists
is forgotten, and its calls are judged as a tool whose listing was not kept (``outcome.tool``
None: no outputSchema, no annotations — a tool that may write), as the server no longer
describes it. The old tap kept a dropped tool's annotations (``readOnlyHint``: the call a read
whose state need not be checked) and outputSchema for the connection's life. A listing is whole
from its first page (asked with no cursor) to the page with no ``nextCursor``
(basic/utilities/pagination: the cursor is opaque, the last page has none); a listing read in
part drops nothing. A real ``mcp.Client`` on a real stdio server whose listings are scripted."""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap

from .crafted_answers import HANDSHAKE

SERVER = HANDSHAKE + r'''
pages = json.loads(sys.argv[1])  # each listing asked with no cursor: the next of these (past them, the
# last), its pages by cursor
out = sys.stdout.buffer
listings = iter(pages)
current = None
def tool(name):
    return {"name": name, "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True},
            "outputSchema": {"type": "object", "required": ["n"]}}
for message, rid, method in requests():
    result = handshake(method, "listing")
    if method == "tools/list":
        cursor = (message.get("params") or {}).get("cursor")
        if cursor is None:
            current = next(listings, current)  # (past the last: the last again, as the SDK may list again)
        index = 0 if cursor is None else int(cursor)
        result = {"resultType": "complete", "tools": [tool(n) for n in current[index]], "ttlMs": 0,
                  "cacheScope": "private"}
        if index + 1 < len(current):
            result["nextCursor"] = str(index + 1)
    elif method == "tools/call":
        result = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}],
                  "structuredContent": {"n": 1}, "isError": False}
    elif result is None:
        result = {}
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n"); out.flush()
'''

# (the server's listings, each a list of pages of tool names; the pages the client reads of each
# listing; the tools whose calls are then judged with their listing), by hand
CASES: list[tuple[str, list[list[list[str]]], list[int], dict[str, bool]]] = [
    ("one listing", [[["a", "b"]]], [1], {"a": True, "b": True}),
    ("b dropped by the second listing", [[["a", "b"]], [["a"]]], [1, 1], {"a": True, "b": False}),
    ("b on the second listing's second page: kept", [[["a", "b"]], [["a"], ["b"]]], [1, 2], {"a": True, "b": True}),
    ("the second listing read in part (its first page): nothing dropped", [[["a", "b"]], [["a"], ["c"]]], [1, 1],
     {"a": True, "b": True}),
    ("b dropped, c listed by the second listing's pages", [[["a", "b"]], [["a"], ["c"]]], [1, 2],
     {"a": True, "b": False, "c": True}),
    ("an empty listing drops every tool", [[["a", "b"]], [[]]], [1, 1], {"a": False, "b": False}),
]


@pytest.mark.parametrize(("listings", "read", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_whole_listing_replaces_the_tools_kept(listings: list[list[list[str]]], read: list[int],
                                                 expected: dict[str, bool]) -> None:
    async def main() -> dict[str, bool]:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(sys.executable, ["-c", SERVER, json.dumps(listings)])) as client:
            for pages in read:
                cursor = None
                for _ in range(pages):
                    listed = await client.list_tools(cursor=cursor, cache_mode="bypass")
                    cursor = listed.next_cursor
            kept = {}
            for name in expected:
                outcome = await tap.call_tool(client, name, {})
                kept[name] = outcome.tool is not None
            return kept

    assert anyio.run(main) == expected
