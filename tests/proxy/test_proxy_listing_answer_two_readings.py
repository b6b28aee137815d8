"""A ``tools/list`` answer that two parsers read two ways (a member name given twice: a tool's
``name`` or ``inputSchema``), through the proxy, in both modes (``proxy._relay``: ``_keep``,
``_listing_problem``).

RFC 8259 s4: with names that are not unique "the behavior of software that receives such an object
is unpredictable": the proxy's reader keeps the last, a host's or a server's may keep the first.
enforce refuses such an answer (README, "The modes": an answer no strict parser reads becomes the
REFUSED error) and learns nothing of it. observe forwards it byte for byte (its mode), and now learns
nothing of it either, as enforce: no tool of it is kept (the tools kept before stay; the listing under
way is no longer followed), and its verdict line is ``unclassified`` with the ``json.duplicate_key``
finding (``forwarded`` ``unchanged``; enforce's: ``refused``). Before, observe kept the tools of the
last reading as if they were the server's, and wrote no line for the listing.

What the proxy keeps shows in the ``Mcp-Param`` headers it checks as the server of an HTTP host
(2026-07-28 basic/transports/streamable-http, Custom Headers from Tool Parameters: a declared header
missing while its argument is there is refused, 400 HeaderMismatch -32020): route called with
``{"count":1}`` and no ``Mcp-Param-Count`` is refused when the proxy keeps a route declaring it, and
forwarded (the server's text) when it keeps none.

Real proxy (HTTP host side) over a real stdio server (``listing_server.py``, its pages written as
they are), raw sockets on 127.0.0.1. Expected values by hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.proxy import REFUSED

from ._peers import call
from .test_proxy_http_edges import _request, _status
from .test_proxy_http_host_hostile import _body, _proxy

SERVER = [sys.executable, str(Path(__file__).with_name("listing_server.py"))]
V = "2026-07-28"
META = json.dumps(call(1, "x")["params"]["_meta"], separators=(",", ":"))
PLAIN = '{"type":"object"}'
DECLARES = '{"type":"object","properties":{"count":{"type":"integer","x-mcp-header":"Count"}}}'
CHECKED = (400, -32020)
UNCHECKED = (200, 'called route {"count":1}')
DUPLICATE = ("unclassified", ["json.duplicate_key"])

# (case, the tools arrays the server answers each tools/list with, in turn, as written) → (per listing:
# what the host gets, "as sent" or REFUSED, in observe; then what a call of route gets after the last
# listing; the verdict lines of the listings, (kind, finding codes), None for none) — by hand
ROWS: list[tuple[str, list[str], tuple[int, Any], list[tuple[str, list[str]] | None]]] = [
    ("strict", [f'[{{"name":"route","inputSchema":{DECLARES}}}]'], CHECKED, [None]),
    # before: route kept with the last inputSchema, its header checked
    ("input-schema-twice", [f'[{{"name":"route","inputSchema":{PLAIN},"inputSchema":{DECLARES}}}]'], UNCHECKED,
     [DUPLICATE]),
    # before: a tool named route kept (the last name)
    ("name-twice", [f'[{{"name":"other","name":"route","inputSchema":{DECLARES}}}]'], UNCHECKED, [DUPLICATE]),
    # the tools kept before stay (before: route replaced by the last reading's, which declares no header)
    ("kept-before-stays", [f'[{{"name":"route","inputSchema":{DECLARES}}}]',
                           f'[{{"name":"route","inputSchema":{DECLARES},"inputSchema":{PLAIN}}}]'], CHECKED,
     [None, DUPLICATE]),
]


def _listing(url: str, rid: int) -> Any:
    body = f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/list","params":{{"_meta":{META}}}}}'.encode()
    response = _request(url, "POST", body, {"MCP-Protocol-Version": V, "Mcp-Method": "tools/list"})
    got = _body(response)
    return "as sent" if "result" in got else got["error"]["code"]


def _call(url: str) -> tuple[int, Any]:
    body = (f'{{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{{"name":"route",'
            f'"arguments":{{"count":1}},"_meta":{META}}}}}').encode()
    response = _request(url, "POST", body, {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call",
                                            "Mcp-Name": "route"})
    got = _body(response)
    if _status(response) != 200:
        return _status(response), got["error"]["code"]
    return 200, got["result"]["content"][0]["text"]


@pytest.mark.parametrize("mode", ["observe", "enforce"])
@pytest.mark.parametrize(("pages", "called", "lines"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_listing_answer_read_two_ways_teaches_nothing(
        tmp_path: Path, mode: str, pages: list[str], called: tuple[int, Any],
        lines: list[tuple[str, list[str]] | None]) -> None:
    file, verdicts = tmp_path / "pages.json", tmp_path / "verdicts.jsonl"
    got = []
    with _proxy(["--mode", mode, "--verdicts", str(verdicts), "--", *SERVER, str(file)], tmp_path / "err") as url:
        for rid, page in enumerate(pages, 1):
            file.write_text(json.dumps([page]))
            got.append(_listing(url, rid))
        after = _call(url)
    expected_got = ["as sent" if line is None or mode == "observe" else REFUSED for line in lines]
    written = [json.loads(x) for x in verdicts.read_text().splitlines()]
    listed = {w["id"]: (w["kind"], [f["code"] for f in w["findings"]], w["forwarded"])
              for w in written if w["method"] == "tools/list"}
    forwarded = "unchanged" if mode == "observe" else "refused"
    assert (got, after, listed) == (expected_got, called, {
        rid: (*line, forwarded) for rid, line in enumerate(lines, 1) if line is not None})
