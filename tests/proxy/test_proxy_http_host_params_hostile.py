"""Hostile bodies for the header checks of a 2026-07-28 HTTP host's POST over a stdio upstream,
where the proxy is the server that processes the body (2026-07-28 basic/transports/
streamable-http, Server Validation: headers that do not match the body MUST be refused, 400 and
HeaderMismatch -32020; Custom Headers from Tool Parameters, Value Encoding; integers SHOULD be
compared numerically).

- the number compared with an ``Mcp-Param`` header is the one the body writes: orjson, which
  reads the body first, holds an integer past 64 bits and any number with an exponent as the
  nearest double (``18446744073709551617`` as ``...616``, ``1e-400`` as ``0``);
- a body orjson does not read but a lenient server's parser does (a number past a double's
  range, ``NaN``, a lone surrogate escape) is checked as that parser reads it; one that reads
  nowhere (past a thousand levels, not UTF-8) is refused as a parse error (-32700): its headers
  cannot be checked against it.

Real proxy over a real stdio server (``listing_server.py``, which echoes the arguments as the
request's text writes them, and reads a body a thousand levels deep), raw sockets on 127.0.0.1.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ._peers import call
from .test_proxy_http_edges import _request, _status
from .test_proxy_http_host_hostile import _body, _proxy

LISTING = [sys.executable, str(Path(__file__).with_name("listing_server.py"))]
V = "2026-07-28"
HEADER_MISMATCH, PARSE_ERROR = -32020, -32700
META = json.dumps(call(1, "x")["params"]["_meta"], separators=(",", ":"))
TOOLS = [[{"name": "route", "inputSchema": {"type": "object", "properties": {
    "count": {"type": "integer", "x-mcp-header": "Count"},
    "region": {"type": "string", "x-mcp-header": "Region"}}}}]]
DEEP = "[" * 1100 + "]" * 1100
"""Past orjson's 1,024 levels, msgspec's and Python's json's (about a thousand)."""


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The proxy over listing_server.py, its tool ``route`` listed through it: its URL."""
    where = tmp_path_factory.mktemp("hostile-params")
    pages = where / "pages.json"
    pages.write_text(json.dumps(TOOLS))
    with _proxy(["--", *LISTING, str(pages)], where / "err") as url:
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": json.loads(META)}}
        response = _request(url, "POST", json.dumps(listing).encode(), {"MCP-Protocol-Version": V})
        assert _status(response) == 200 and b'"route"' in response, response
        yield url
    logged = (where / "err").read_text("utf-8", "replace").splitlines()
    assert logged[1:] == [], logged  # (past "listening on": no traceback, no error)


def _call(url: str, name: str, arguments: str, headers: dict[str, str]) -> tuple[int, Any]:
    """(the status; the server's text, or the JSON-RPC error's (id, code)) of a tools/call with
    id 7 of ``name`` whose ``arguments`` are the JSON text given, as written, with the headers of
    a 2026-07-28 host naming ``route`` (``Mcp-Name``) and ``headers``."""
    body = (f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":{json.dumps(name)},'
            f'"arguments":{arguments},"_meta":{META}}}}}').encode("utf-8", "surrogatepass")
    sent = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": "route", **headers}
    response = _request(url, "POST", body, sent)
    got = _body(response)
    if _status(response) != 200:
        return _status(response), (got["id"], got["error"]["code"])
    return 200, got["result"]["content"][0]["text"]


def _forwarded(name: str, arguments: str) -> tuple[int, str]:
    return 200, f"called {name} {arguments}"


# (the tool named in the body, its arguments as written, the headers; what the host gets) — by
# hand from 2026-07-28 basic/transports/streamable-http, Server Validation and Value Encoding.
# Each "before" is what the proxy did before the change.
ROWS: list[tuple[str, str, str, dict[str, str], tuple[int, Any]]] = [
    # before: 400 (compared with 18446744073709551616, the double orjson reads)
    ("integer-past-64-bits", "route", '{"count":18446744073709551617}', {"Mcp-Param-Count": "18446744073709551617"},
     _forwarded("route", '{"count":18446744073709551617}')),
    # before: forwarded (the header does not match the body)
    ("integer-past-64-bits-rounded", "route", '{"count":18446744073709551617}',
     {"Mcp-Param-Count": "18446744073709551616"}, (400, (7, HEADER_MISMATCH))),
    # 1e-400 is no integer (orjson: 0.0); before: forwarded
    ("exponent-below-double-range", "route", '{"count":1e-400}', {"Mcp-Param-Count": "0"}, (400, (7, HEADER_MISMATCH))),
    ("exponent-integral", "route", '{"count":1E2}', {"Mcp-Param-Count": "100"}, _forwarded("route", '{"count":1E2}')),
    ("integral-fraction", "route", '{"count":7.000}', {"Mcp-Param-Count": "7"}, _forwarded("route", '{"count":7.000}')),
    # past a double's range: orjson reads no body; before: forwarded unchecked
    ("past-double-range", "route", '{"count":1e400}', {"Mcp-Param-Count": "1"}, (400, (7, HEADER_MISMATCH))),
    ("past-double-range-exact", "route", '{"count":1e400}', {"Mcp-Param-Count": "1" + "0" * 400},
     _forwarded("route", '{"count":1e400}')),
    ("nan", "route", '{"count":NaN}', {"Mcp-Param-Count": "0"}, (400, (7, HEADER_MISMATCH))),  # before: forwarded
    # the Mcp-Name of a body orjson does not read; before: each forwarded, the other tool called
    ("name-past-double-range", "delete_everything", '{"x":1e400}', {}, (400, (7, HEADER_MISMATCH))),
    ("name-nan", "delete_everything", '{"x":NaN}', {}, (400, (7, HEADER_MISMATCH))),
    ("name-lone-surrogate", "delete_everything", '{"x":"\\ud800"}', {}, (400, (7, HEADER_MISMATCH))),
    ("agree-lone-surrogate", "route", '{"x":"\\ud800"}', {}, _forwarded("route", '{"x":"\\ud800"}')),
    # read by no parser of the proxy: its headers cannot be checked; before: forwarded
    ("deep", "delete_everything", '{"x":' + DEEP + "}", {}, (400, (7, PARSE_ERROR))),
    ("not-utf-8", "delete_everything", '{"x":"\udcff"}', {}, (400, (7, PARSE_ERROR))),  # (a surrogate's UTF-8 form)
]


@pytest.mark.parametrize(("name", "arguments", "headers", "expected"), [r[1:] for r in ROWS],
                         ids=[r[0] for r in ROWS])
def test_a_2026_tool_calls_headers_are_checked_against_the_body_as_it_writes_it(
        listed: str, name: str, arguments: str, headers: dict[str, str], expected: tuple[int, Any]) -> None:
    assert _call(listed, name, arguments, headers) == expected


# -- the listing the headers are checked by changes between calls ---------------------------------
def _route(header: str, argument: str, kind: str = "string") -> dict[str, Any]:
    return {"name": "route", "inputSchema": {"type": "object", "properties": {
        argument: {"type": kind, "x-mcp-header": header}}}}


OTHER = {"name": "other", "inputSchema": {"type": "object"}}
COUNT, REGION = '{"count":1}', '{"region":"a"}'
MISMATCH = (400, (7, HEADER_MISMATCH))
# (the pages the server lists next, the cursors the host lists them with; what a call to route
# with the arguments COUNT, then REGION, and no Mcp-Param header, gets) — frames._tools: a whole
# listing (from the page asked with no cursor to the one with no nextCursor) replaces the tools
# kept, a tool listed again replaces its earlier definition; the headers checked are those of the
# tool's definition kept (2026-07-28 basic/transports/streamable-http, Server Validation).
LISTINGS: list[tuple[list[list[dict[str, Any]]], list[str | None], tuple[Any, Any]]] = [
    ([[_route("Count", "count", "integer")]], [None], (MISMATCH, _forwarded("route", REGION))),
    ([[_route("Region", "region")]], [None], (_forwarded("route", COUNT), MISMATCH)),  # the schema changed
    ([[OTHER], [_route("Count", "count", "integer")]], [None, "1"], (MISMATCH, _forwarded("route", REGION))),
    ([[OTHER], []], [None, "1"], (_forwarded("route", COUNT), _forwarded("route", REGION))),  # no longer listed
    ([[_route("Count", "count", "integer"), _route("Region", "region")]], [None],
     (_forwarded("route", COUNT), MISMATCH)),  # listed twice: the last definition
    ([[_route("Count", "count", "integer")], [_route("Count", "count", "number")]], [None, "1"],
     (_forwarded("route", COUNT), _forwarded("route", REGION))),  # replaced by an invalid one: unchecked
]


def test_the_mcp_param_headers_checked_are_those_of_the_last_listing(tmp_path: Path) -> None:
    pages = tmp_path / "pages.json"
    pages.write_text(json.dumps([[OTHER]]))
    got = []
    with _proxy(["--", *LISTING, str(pages)], tmp_path / "err") as url:
        for listing, cursors, _ in LISTINGS:
            pages.write_text(json.dumps(listing))
            for cursor in cursors:
                params: dict[str, Any] = {"_meta": json.loads(META), **({"cursor": cursor} if cursor else {})}
                sent = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}).encode()
                assert _status(_request(url, "POST", sent, {"MCP-Protocol-Version": V})) == 200
            got.append((_call(url, "route", COUNT, {}), _call(url, "route", REGION, {})))
    assert got == [expected for _, _, expected in LISTINGS]
    assert (tmp_path / "err").read_text("utf-8", "replace").splitlines()[1:] == []


# -- a paginated listing, its pages asked by several hosts ----------------------------------------
COUNTED = _route("Count", "count", "integer")
# (the server's pages; the tools/list requests in turn, each (the host: its own connection, the
# cursor); what a call of route with COUNT and no Mcp-Param header gets) — frames._tools: over a
# stdio server one connection serves every host, and its pages are followed as one client's: a
# page asked with no cursor begins a listing, the next with the nextCursor of the page before, and
# only a listing followed from its first page to the one with no nextCursor drops a tool it did
# not list; a page of none (another host's cursor) adds its tools, dropping nothing. route is
# listed on page 1 only (never on the others): each sequence keeps it, its header checked.
PAGED: list[tuple[str, list[list[dict[str, Any]]], list[tuple[str, str | None]], tuple[int, Any]]] = [
    ("one-host-pages", [[COUNTED], [OTHER]], [("a", None), ("a", "1")], MISMATCH),
    ("two-hosts-in-step", [[COUNTED], [OTHER]], [("a", None), ("b", None), ("a", "1"), ("b", "1")], MISMATCH),
    ("page-2-between", [[COUNTED], [OTHER]], [("a", None), ("b", "1"), ("a", "1")], MISMATCH),
    ("restart-between", [[COUNTED], [OTHER], [OTHER]],
     [("a", None), ("a", "1"), ("b", None), ("a", "2"), ("b", "1"), ("b", "2")], MISMATCH),
    ("unknown-cursor-between", [[COUNTED], [OTHER]], [("a", None), ("b", "9"), ("a", "1")], MISMATCH),
    ("page-2-alone", [[COUNTED], [OTHER]], [("a", None), ("a", "1"), ("b", "1")], MISMATCH),
    # a whole listing without route drops it (route not on its page 1 now): then unchecked
    ("dropped-by-a-whole-listing", [[OTHER], [OTHER]], [("a", None), ("a", "1")], _forwarded("route", COUNT)),
]


@pytest.mark.parametrize(("pages", "steps", "expected"), [r[1:] for r in PAGED], ids=[r[0] for r in PAGED])
def test_the_pages_of_a_listing_several_hosts_ask_keep_every_tool_listed(
        tmp_path: Path, pages: list[list[dict[str, Any]]], steps: list[tuple[str, str | None]],
        expected: tuple[int, Any]) -> None:
    file = tmp_path / "pages.json"
    file.write_text(json.dumps([[COUNTED]]))
    with _proxy(["--", *LISTING, str(file)], tmp_path / "err") as url:
        first = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                            "params": {"_meta": json.loads(META)}}).encode()
        assert _status(_request(url, "POST", first, {"MCP-Protocol-Version": V})) == 200  # route listed, checked
        file.write_text(json.dumps(pages))
        for n, (host, cursor) in enumerate(steps):
            params: dict[str, Any] = {"_meta": json.loads(META), **({"cursor": cursor} if cursor else {})}
            sent = json.dumps({"jsonrpc": "2.0", "id": f"{host}-{n}", "method": "tools/list", "params": params})
            assert _status(_request(url, "POST", sent.encode(), {"MCP-Protocol-Version": V})) == 200
        got = _call(url, "route", COUNT, {})
    assert got == expected
