"""Host requests that two parsers read two ways (a member name given twice, one of them maybe
written with ``\\u`` escapes: the proxy's reader keeps the last, a server's may keep the first,
as cJSON and many others do).

A ``tools/list`` request read two ways (a member name given twice, one
of them maybe written with ``\\u`` escapes) never drops a tool the proxy keeps (``frames._tools``):
the proxy's reader keeps the last of two names, a server's may keep the first (cJSON and many
others), so the proxy cannot tell whether it began a listing or which page it asked. Its page's
tools are kept as those of a page whose listing was not followed from its start (added, dropping
nothing), and the ``Mcp-Param`` headers of a tool listed before it are still checked (2026-07-28
basic/transports/streamable-http, Custom Headers from Tool Parameters: a header that does not
match the body MUST be refused, 400 HeaderMismatch -32020). The request itself is forwarded
unchanged in both modes, as every host frame within the limit (README, "The modes": enforce
refuses the server's frames no strict parser reads, not the host's).

A 2026-07-28 POST read two ways has its headers checked against both readings (the proxy is the
server that processes the body over a stdio upstream; Server Validation: the server MUST reject
a request whose ``Mcp-Method``, ``Mcp-Name`` or ``Mcp-Param`` headers do not match its body,
400 HeaderMismatch -32020): before, an ``Mcp-Name`` matching the last of two names went through
while the server called the tool the first one names.

Real proxy over a real stdio server (``listing_server.py --first``, which keeps the FIRST of two
member names), raw sockets on 127.0.0.1.
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

FIRST_KEEPING = [sys.executable, str(Path(__file__).with_name("listing_server.py"))]
V = "2026-07-28"
META = json.dumps(call(1, "x")["params"]["_meta"], separators=(",", ":"))
ROUTE = {"name": "route", "inputSchema": {"type": "object", "properties": {
    "count": {"type": "integer", "x-mcp-header": "Count"}}}}
OTHER = {"name": "other", "inputSchema": {"type": "object"}}
CHECKED = (400, (7, -32020))
"""route called with ``{"count":1}`` and no ``Mcp-Param-Count``: its listing kept, refused."""
UNCHECKED = (200, 'called route {"count":1}')
"""The same call forwarded: route no longer kept (a whole listing without it dropped it)."""

# (the server's pages after route was listed; the params of each tools/list the host then sends,
# as written, "@" standing for the _meta value; the tools each page it got lists; what the call of
# route gets) — the server reads the first of two names; before the fix the proxy followed the
# last, took a later page for a whole listing and dropped route (the call forwarded unchecked)
ROWS: list[tuple[str, list[list[dict[str, Any]]], list[str], list[list[str]], tuple[int, Any]]] = [
    # controls: a whole listing that lists route keeps it; one that does not drops it
    ("whole-listing-with-route", [[OTHER], [ROUTE]], ['{"cursor":null,"_meta":@}', '{"cursor":"1","_meta":@}'],
     [["other"], ["route"]], CHECKED),
    ("whole-listing-without-route", [[OTHER], [OTHER]], ['{"_meta":@}', '{"cursor":"1","_meta":@}'],
     [["other"], ["other"]], UNCHECKED),
    # page 1 asked, read as a listing begun afresh (before: route dropped)
    ("cursor-then-null", [[ROUTE], [OTHER]], ['{"cursor":"1","cursor":null,"_meta":@}'], [["other"]], CHECKED),
    ("cursor-then-escaped-null", [[ROUTE], [OTHER]], ['{"cursor":"1","\\u0063ursor":null,"_meta":@}'],
     [["other"]], CHECKED),
    ("escaped-cursor-then-null", [[ROUTE], [OTHER]], ['{"\\u0063\\u0075rsor":"1","cursor":null,"_meta":@}'],
     [["other"]], CHECKED),
    ("params-twice", [[ROUTE], [OTHER]], ['{"cursor":"1","_meta":@},"params":{"_meta":@}'], [["other"]], CHECKED),
    # page 2 asked, read as the next page (1) of the listing under way: its last (before: route dropped)
    ("cursor-2-then-1", [[OTHER], [ROUTE], [OTHER]], ['{"_meta":@}', '{"cursor":"2","cursor":"1","_meta":@}'],
     [["other"], ["other"]], CHECKED),
    # an ambiguous request stops the listing under way: its next page drops nothing either
    ("ambiguous-then-next-page", [[OTHER], [OTHER], [OTHER]],
     ['{"cursor":"1","cursor":null,"_meta":@}', '{"cursor":"2","_meta":@}'], [["other"], ["other"]], CHECKED),
]


def _listing(url: str, params: str) -> list[str]:
    """The names a 2026-07-28 ``tools/list`` whose params are ``params`` (as written, ``@`` the
    ``_meta`` value) gets through the proxy at ``url``."""
    body = f'{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params.replace("@", META)}}}'.encode()
    response = _request(url, "POST", body, {"MCP-Protocol-Version": V, "Mcp-Method": "tools/list"})
    assert _status(response) == 200, response
    return [tool["name"] for tool in _body(response)["result"]["tools"]]


def _call(url: str) -> tuple[int, Any]:
    body = (f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"route",'
            f'"arguments":{{"count":1}},"_meta":{META}}}}}').encode()
    response = _request(url, "POST", body, {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call",
                                            "Mcp-Name": "route"})
    got = _body(response)
    if _status(response) != 200:
        return _status(response), (got["id"], got["error"]["code"])
    return 200, got["result"]["content"][0]["text"]


@pytest.mark.parametrize("mode", ["observe", "enforce"])
@pytest.mark.parametrize(("pages", "steps", "listed", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_listing_request_read_two_ways_drops_no_tool(
        tmp_path: Path, mode: str, pages: list[list[dict[str, Any]]], steps: list[str], listed: list[list[str]],
        expected: tuple[int, Any]) -> None:
    file = tmp_path / "pages.json"
    file.write_text(json.dumps([[ROUTE]]))
    with _proxy(["--mode", mode, "--", *FIRST_KEEPING, str(file), "--first"], tmp_path / "err") as url:
        assert _listing(url, '{"_meta":@}') == ["route"]
        assert _call(url) == CHECKED
        file.write_text(json.dumps(pages))
        got = [_listing(url, params) for params in steps]
        called = _call(url)
    assert (got, called) == (listed, expected)
    assert (tmp_path / "err").read_text("utf-8", "replace").splitlines()[1:] == []


# (the body as written, "@" standing for the _meta value; its Mcp-Method, Mcp-Name and
# Mcp-Param-Count headers; what the host gets: the status and the server's text, or the JSON-RPC
# error's (id, code)) — route is listed, its count declared as Mcp-Param-Count. The server keeps
# the first of two names; each "before" is what the proxy did before the fix.
CALL = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{%s,"_meta":@}}'
TWICE: list[tuple[str, str, tuple[str, str, str], tuple[int, Any]]] = [
    # before: 200, "called delete_everything" (the header matched the last name)
    ("name-twice", CALL % '"name":"delete_everything","name":"route","arguments":{"count":1}',
     ("tools/call", "route", "1"), CHECKED),
    ("name-twice-escaped", CALL % '"name":"delete_everything","\\u006eame":"route","arguments":{"count":1}',
     ("tools/call", "route", "1"), CHECKED),
    ("name-twice-header-first", CALL % '"name":"route","name":"delete_everything","arguments":{"count":1}',
     ("tools/call", "route", "1"), CHECKED),  # (the last name read: refused before too)
    ("name-twice-alike", CALL % '"name":"route","name":"route","arguments":{"count":1}',
     ("tools/call", "route", "1"), (200, 'called route {"count":1}')),
    # before: 200 (the header matched the last count; the server reads 1)
    ("argument-twice", CALL % '"name":"route","arguments":{"count":1,"count":2}', ("tools/call", "route", "2"),
     CHECKED),
    ("arguments-twice", CALL % '"name":"route","arguments":{"count":1},"arguments":{"count":2}',
     ("tools/call", "route", "2"), CHECKED),
    ("argument-twice-alike", CALL % '"name":"route","arguments":{"count":2,"count":2}', ("tools/call", "route", "2"),
     (200, 'called route {"count":2,"count":2}')),
    ("undeclared-argument-twice", CALL % '"name":"route","arguments":{"count":2,"note":"a","note":"b"}',
     ("tools/call", "route", "2"), (200, 'called route {"count":2,"note":"a","note":"b"}')),
    # before: 200, "called route" (Mcp-Method matched the last method, a tools/list, which names no tool)
    ("method-twice", '{"jsonrpc":"2.0","id":7,"method":"tools/call","method":"tools/list","params":{"name":"route",'
     '"arguments":{"count":1},"_meta":@}}', ("tools/list", "", ""), CHECKED),
    # a task's id read two ways: its Mcp-Name (required, ext-tasks) cannot match both readings
    ("task-id-twice", '{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"a","taskId":"b","_meta":@}}',
     ("tasks/get", "b", ""), CHECKED),
]


@pytest.fixture(scope="module")
def route_listed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The proxy over ``listing_server.py --first``, route listed through it: its URL."""
    where = tmp_path_factory.mktemp("two-readings")
    file = where / "pages.json"
    file.write_text(json.dumps([[ROUTE]]))
    with _proxy(["--", *FIRST_KEEPING, str(file), "--first"], where / "err") as url:
        assert _listing(url, '{"_meta":@}') == ["route"]
        yield url
    assert (where / "err").read_text("utf-8", "replace").splitlines()[1:] == []


@pytest.mark.parametrize(("body", "headers", "expected"), [r[1:] for r in TWICE], ids=[r[0] for r in TWICE])
def test_a_2026_request_read_two_ways_has_its_headers_checked_against_both_readings(
        route_listed: str, body: str, headers: tuple[str, str, str], expected: tuple[int, Any]) -> None:
    method, name, count = headers
    sent = {"MCP-Protocol-Version": V, "Mcp-Method": method, **({"Mcp-Name": name} if name else {}),
            **({"Mcp-Param-Count": count} if count else {})}
    response = _request(route_listed, "POST", body.replace("@", META).encode(), sent)
    got = _body(response)
    if _status(response) != 200:
        assert (_status(response), (got["id"], got["error"]["code"])) == expected
    else:
        assert (200, got["result"]["content"][0]["text"]) == expected
