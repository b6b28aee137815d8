"""A long ``tools/list`` answer (10,000 tools) through the proxy: the tools kept within their
budget (``frames._tools``: the first :data:`~mcp_verdict.frames._tools.TOOLS_KEPT`), the
``Mcp-Param`` headers of the last one still checked against a 2026-07-28 POST's body (2026-07-28
basic/transports/streamable-http, Server Validation: a header that does not match the body MUST
be refused, 400 HeaderMismatch -32020), and a later listing replacing it; and the listing read
with Python's cyclic garbage collector paused (``_relay._gc_paused``: the collections it set off
grew faster than the listing).

Real proxy over a real stdio server (``listing_server.py``), raw sockets on 127.0.0.1; the
relay on its own for what the collector does.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.frames._tools import ToolsBudget
from mcp_verdict.proxy import Relay

from ._peers import call
from .test_proxy_http_edges import _request, _status
from .test_proxy_http_host_hostile import _body, _proxy

LISTING = [sys.executable, str(Path(__file__).with_name("listing_server.py"))]
V = "2026-07-28"
META = call(1, "x")["params"]["_meta"]
MISMATCH = (400, (7, -32020))


@contextlib.contextmanager
def proxy_over_listing(pages: Path, stderr: Path) -> Iterator[str]:
    """The proxy (HTTP host side) over listing_server.py serving ``pages``: its URL."""
    with _proxy(["--", *LISTING, str(pages)], stderr) as url:
        yield url


def listing(url: str) -> int:
    """How many tools a 2026-07-28 ``tools/list`` through the proxy at ``url`` gets."""
    sent = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}).encode()
    response = _request(url, "POST", sent, {"MCP-Protocol-Version": V, "Mcp-Method": "tools/list"})
    assert _status(response) == 200
    return len(_body(response)["result"]["tools"])


def call_tool(url: str, name: str, arguments: str, headers: dict[str, str]) -> tuple[int, Any]:
    """(the status; the server's text, or the JSON-RPC error's (id, code)) of a tools/call with
    id 7 of ``name`` whose ``arguments`` are the JSON text given, with ``headers``."""
    body = (f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":{json.dumps(name)},'
            f'"arguments":{arguments},"_meta":{json.dumps(META)}}}}}').encode()
    sent = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": name, **headers}
    response = _request(url, "POST", body, sent)
    got = _body(response)
    if _status(response) != 200:
        return _status(response), (got["id"], got["error"]["code"])
    return 200, got["result"]["content"][0]["text"]


def _tool(i: int) -> dict[str, Any]:
    """Tool ``t{i}``: its ``region`` argument declared as the header ``Mcp-Param-Region``."""
    return {"name": f"t{i}", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}, "q": {"type": "string"}}}}


TOOLS = [_tool(i) for i in range(10_000)]
LATER = [{"name": "t9999", "inputSchema": {"type": "object", "properties": {
    "zone": {"type": "string", "x-mcp-header": "Zone"}}}}]
"""A later listing: t9999 alone, its header now ``Mcp-Param-Zone`` from its ``zone``."""

# (the tool called, its arguments as written, the Mcp-Param headers sent; after the 10,000-tool
# listing, then after LATER) — a header declared and missing, or not the body's, is refused; one
# the schema does not declare is not the proxy's to check (forwarded)
CALLS: list[tuple[str, str, dict[str, str], tuple[Any, Any]]] = [
    ("t9999", '{"region":"eu"}', {"Mcp-Param-Region": "eu"},
     ((200, 'called t9999 {"region":"eu"}'), (200, 'called t9999 {"region":"eu"}'))),
    ("t9999", '{"region":"eu"}', {"Mcp-Param-Region": "us"}, (MISMATCH, (200, 'called t9999 {"region":"eu"}'))),
    ("t9999", '{"region":"eu"}', {}, (MISMATCH, (200, 'called t9999 {"region":"eu"}'))),
    ("t9999", '{"zone":"b"}', {}, ((200, 'called t9999 {"zone":"b"}'), MISMATCH)),
    ("t9999", '{"zone":"b"}', {"Mcp-Param-Zone": "b"},
     ((200, 'called t9999 {"zone":"b"}'), (200, 'called t9999 {"zone":"b"}'))),
    ("t0", '{"region":"eu"}', {"Mcp-Param-Region": "us"}, (MISMATCH, (200, 'called t0 {"region":"eu"}'))),
    ("t5000", '{"region":"a b"}', {"Mcp-Param-Region": "a b"},
     ((200, 'called t5000 {"region":"a b"}'), (200, 'called t5000 {"region":"a b"}'))),
]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    where = tmp_path_factory.mktemp("long-listing")
    file = where / "pages.json"
    file.write_text(json.dumps([TOOLS]))
    with proxy_over_listing(file, where / "err") as url:
        yield url, file
    assert (where / "err").read_text("utf-8", "replace").splitlines()[1:] == []


def test_the_headers_of_the_last_of_10000_tools_are_checked_and_a_later_listing_replaces_them(
        pages: tuple[str, Path]) -> None:
    url, file = pages
    file.write_text(json.dumps([TOOLS]))
    assert listing(url) == 10_000
    before = [call_tool(url, name, arguments, headers) for name, arguments, headers, _ in CALLS]
    file.write_text(json.dumps([LATER]))
    assert listing(url) == 1
    after = [call_tool(url, name, arguments, headers) for name, arguments, headers, _ in CALLS]
    assert list(zip(before, after, strict=True)) == [expected for *_, expected in CALLS]


def test_a_long_listing_is_read_with_the_cyclic_collector_paused() -> None:
    relay = Relay()
    relay.from_host(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                "params": {"_meta": META}}).encode())
    answer = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": TOOLS}}).encode()
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.enable()
    gc.callbacks.append(seen)
    try:
        sent = relay.from_upstream(answer)  # read and forwarded
        forwarding = len(collections)  # (an int: no object the collector tracks, none set off)
        declared = relay.param_declared("t9999")  # the tools kept (after the send)
    finally:
        gc.callbacks.remove(seen)
    # (hand-written: the answer forwarded as is; the 10,000 tools kept; the last one's header)
    assert [(out.to, out.data == answer) for out in sent] == [("host", True)]
    assert forwarding == 0 and gc.isenabled()
    # (keeping them: at most the one collection the objects read are due once the collector runs)
    assert len(collections) <= 1
    assert declared == ((("region",), "Region", "string"),)
    assert relay.tool("t9999") == _tool(9999) and relay.tool("t10000") is None


def _listing_answer(request_id: int, tools: list[dict[str, Any]], next_cursor: str | None = None) -> bytes:
    result: dict[str, Any] = {"resultType": "complete", "tools": tools}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()


def _list_request(request_id: int, cursor: str | None = None) -> bytes:
    params: dict[str, Any] = {"_meta": META, **({"cursor": cursor} if cursor is not None else {})}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params}).encode()


A1, A2 = {"name": "a", "description": "1"}, {"name": "a", "description": "2"}
B = {"name": "b"}
# (the pages answered in turn, each (its cursor asked, its tools, its nextCursor), with no look
# at the tools between them; the tools kept after, by name) — frames._tools: a whole listing
# replaces the tools kept, a page of a listing read in part drops nothing, a tool listed again
# replaces its earlier definition; the listings kept in the order they were answered
IN_TURN: list[tuple[list[tuple[str | None, list[dict[str, Any]], str | None]], dict[str, Any]]] = [
    ([(None, [A1, B], None), (None, [A2], None)], {"a": A2}),
    ([(None, [A1], "1"), ("1", [B], None)], {"a": A1, "b": B}),
    ([(None, [A1, B], None), (None, [A2], "1")], {"a": A2, "b": B}),  # (the second listing read in part)
    ([(None, [A1], None), ("9", [B], None)], {"a": A1, "b": B}),  # (a page not followed: adds)
    ([(None, [A1, B], None), (None, [A2], "1"), ("1", [], None)], {"a": A2}),
]


@pytest.mark.parametrize(("pages", "expected"), IN_TURN)
def test_listings_answered_in_turn_are_kept_in_their_order(
        pages: list[tuple[str | None, list[dict[str, Any]], str | None]], expected: dict[str, Any]) -> None:
    for looked in (False, True):  # (the tools looked at after each page, or only at the end)
        relay = Relay()
        for number, (cursor, tools, next_cursor) in enumerate(pages, 1):
            relay.from_host(_list_request(number, cursor))
            relay.from_upstream(_listing_answer(number, tools, next_cursor))
            if looked:
                relay.tool("a")
        assert {name: relay.tool(name) for name in ("a", "b") if relay.tool(name) is not None} == expected


def test_a_listing_is_forwarded_before_its_tools_are_kept_and_kept_before_they_are_looked_at() -> None:
    budget = ToolsBudget(1 << 30)
    relay = Relay(tools_budget=budget)
    relay.from_host(_list_request(1))
    answer = _listing_answer(1, TOOLS[:3])
    sent = relay.from_upstream(answer, defer=True)
    assert [(out.to, out.data == answer) for out in sent] == [("host", True)]
    assert budget.size == 0  # forwarded: nothing counted yet
    relay.judge_deferred()  # (the bridge's, on the loop's next turn)
    counted = budget.size
    assert counted > 0 and relay.tool("t2") == _tool(2)
    # a second listing: kept by the first look at the tools, not waiting for judge_deferred
    relay.from_host(_list_request(2))
    relay.from_upstream(_listing_answer(2, [LATER[0]]), defer=True)
    assert relay.param_declared("t9999") == ((("zone",), "Zone", "string"),) and relay.tool("t2") is None
    assert 0 < budget.size < counted
    # the relay ends with a listing not kept yet: nothing counted is left
    relay.from_host(_list_request(3))
    relay.from_upstream(_listing_answer(3, TOOLS[:3]), defer=True)
    relay.forget_tools()
    assert budget.size == 0 and relay.tool("t0") is None
