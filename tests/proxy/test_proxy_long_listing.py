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
        sent = relay.from_upstream(answer)
    finally:
        gc.callbacks.remove(seen)
    # (hand-written: the answer forwarded as is; the 10,000 tools kept; the last one's header)
    assert [(out.to, out.data == answer) for out in sent] == [("host", True)]
    assert collections == [] and gc.isenabled()
    assert relay.param_declared("t9999") == ((("region",), "Region", "string"),)
    assert relay.tool("t9999") == _tool(9999) and relay.tool("t10000") is None
