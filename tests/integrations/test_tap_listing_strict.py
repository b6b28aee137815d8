"""A ``tools/list`` answer no strict parser reads teaches the tap nothing (``frames._tools``: the
rule the audit and the proxy keep too).

RFC 8259 s4: with member names that are not unique "the behavior of software that receives such
an object is unpredictable": the tap's routing read keeps the last copy, the client's reader (or
another peer's) may keep the first, so a tool's outputSchema or name given twice, or the
``tools`` array given twice, may not be what the server meant. Such an answer keeps no tool and
drops none (the tools kept before stay as they were: a tool it lists is judged by its earlier
definition, if one was kept, else as a tool whose listing was not kept — ``outcome.tool`` None,
no outputSchema, no annotations), and a ``RuntimeWarning`` names the finding
(``json.duplicate_key``), once per connection and finding code. Before, the tap kept the last
copies silently: the outputSchema read last judged the later calls, and a ``tools`` array given
twice, the last empty, dropped every tool kept.

A real ``mcp.Client`` on a real stdio server whose listings are written byte for byte."""

from __future__ import annotations

import json
import sys
import warnings

import anyio
import pytest
from mcp import Client

from mcp_verdict import VerdictTap

from .crafted_answers import HANDSHAKE

SERVER = HANDSHAKE + r'''
listings = iter(json.loads(sys.argv[1]))  # each tools/list: the next of these results, as written (past them, the last)
out = sys.stdout.buffer
current = None
for message, rid, method in requests():
    result = handshake(method, "listing")
    if method == "tools/list":
        current = next(listings, current)
        out.write(('{"jsonrpc":"2.0","id":%s,"result":%s}' % (json.dumps(rid), current)).encode() + b"\n")
        out.flush()
        continue
    if method == "tools/call":
        result = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}],
                  "structuredContent": {"x": 1, "y": 1, "z": 1}, "isError": False}
    elif result is None:
        result = {}
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n"); out.flush()
'''


def tool(name: str, required: str, twice: str = "") -> str:
    """A tool whose outputSchema requires the member ``required`` (``twice``: a second outputSchema
    requiring that one, after it)."""
    second = f',"outputSchema":{{"type":"object","required":["{twice}"]}}' if twice else ""
    return (f'{{"name":"{name}","inputSchema":{{"type":"object"}},'
            f'"outputSchema":{{"type":"object","required":["{required}"]}}{second}}}')


def listing(*tools: str, twice: bool = False) -> str:
    """A 2026-07-28 listing of ``tools`` (``twice``: its ``tools`` array given again after it, empty)."""
    again = ',"tools":[]' if twice else ""
    return f'{{"resultType":"complete","tools":[{",".join(tools)}]{again},"ttlMs":0,"cacheScope":"private"}}'


DUPLICATE = "json.duplicate_key"

# (the server's listings, each read once in turn, as written) → (per tool then called: the member
# its judging outputSchema requires, None for a call judged as a tool whose listing was not kept;
# the finding codes the warnings name) — by hand. Each "before" is what the old tap judged by.
CASES: list[tuple[str, list[str], dict[str, str | None], list[str]]] = [
    ("strict listing", [listing(tool("a", "x"))], {"a": "x"}, []),
    # before: b dropped by the last "tools" ([]), read as a whole listing: {"a": None, "b": None}
    ("tools twice, the last empty", [listing(tool("b", "y")), listing(tool("a", "x"), twice=True)],
     {"a": None, "b": "y"}, [DUPLICATE]),
    # before: a judged by the outputSchema read last (z)
    ("outputSchema twice", [listing(tool("a", "x")), listing(tool("a", "y", twice="z"))], {"a": "x"}, [DUPLICATE]),
    # before: a kept (the name read last) and judged by its outputSchema (x)
    ("name twice", [listing(tool("a", "x").replace('{"name":"a"', '{"name":"c","name":"a"'))], {"a": None},
     [DUPLICATE]),
    # told once per connection and code; before: b dropped by the second, c kept by the third (z)
    ("two such listings told once", [listing(tool("b", "y")), listing(tool("a", "x"), twice=True),
                                     listing(tool("c", "x", twice="z"))],
     {"a": None, "b": "y", "c": None}, [DUPLICATE]),
]


@pytest.mark.parametrize(("listings", "expected", "told"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_listing_no_strict_parser_reads_teaches_the_tap_nothing(listings: list[str],
                                                                   expected: dict[str, str | None],
                                                                   told: list[str]) -> None:
    async def main() -> dict[str, str | None]:
        tap = VerdictTap()
        async with Client(tap.stdio_transport(sys.executable, ["-c", SERVER, json.dumps(listings)])) as client:
            for _ in listings:
                await client.list_tools(cache_mode="bypass")
            judged: dict[str, str | None] = {}
            for name in expected:
                outcome = await tap.call_tool(client, name, {})
                judged[name] = None if outcome.tool is None else outcome.tool["outputSchema"]["required"][0]
            return judged

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        judged = anyio.run(main)
    said = [str(w.message) for w in caught if "tools/list answer is read by no strict parser" in str(w.message)]
    assert (judged, [s.split(" (", 1)[1].split(" ", 1)[0] for s in said]) == (expected, told)
    assert all(s.startswith("mcp-verdict tap: ") and "nothing of it was kept" in s for s in said)
