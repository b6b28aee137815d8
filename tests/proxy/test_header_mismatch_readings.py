"""The header check of a 2026-07-28 POST the proxy serves for a stdio server (``proxy._headers.
header_mismatch``), on bodies read one way or two: a member name given twice may be read as its
first value by the server's parser (RFC 8259 s4: "The names within an object SHOULD be unique";
when not, receivers differ), so a header must match both readings (2026-07-28
basic/transports/streamable-http, Server Validation: a mismatch is 400 and HeaderMismatch).

A compact body orjson writes back byte for byte gives no name twice and skips the strict read
(``_headers._written_back``); every other body is read strictly as before. The rows hold the
outcome either way: a contract kept (they pass on the code before the shortcut too), with rows at
its edges — a repeated routing name written compactly and with spaces, a repeated name in the
arguments, a number orjson does not write back as it came.
"""

from __future__ import annotations

import pytest
from multidict import CIMultiDict, CIMultiDictProxy

from mcp_verdict.frames._jsonrpc import peek
from mcp_verdict.proxy._codes import HEADER_MISMATCH
from mcp_verdict.proxy._headers import header_mismatch

META = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientInfo":{"name":"host","version":"1"},'
        '"io.modelcontextprotocol/clientCapabilities":{}}')
HEADERS = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
FIRST = ("the Mcp-Name header 'echo' does not match the body's params.name 'delete_everything' (read as a parser "
         "that keeps the first of a member name given twice reads it)")

# (row, the body, the Mcp-Name header, the reason refused or None)
ROWS = [
    ("compact-agree", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"size":1},'
     + META + "}}", "echo", None),
    ("compact-other-name", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},'
     + META + "}}", "delete_everything",
     "the Mcp-Name header 'delete_everything' does not match the body's params.name 'echo'"),
    ("compact-name-twice", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything",'
     '"name":"echo","arguments":{},' + META + "}}", "echo", FIRST),
    ("spaced-name-twice", '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": '
     '"delete_everything", "name": "echo", "arguments": {}, ' + META + "}}", "echo", FIRST),
    ("spaced-agree", '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", '
     '"arguments": {}, ' + META + "}}", "echo", None),
    ("argument-twice", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":'
     '{"size":1,"size":2},' + META + "}}", "echo", None),
    ("method-twice", '{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"echo",'
     '"arguments":{},' + META + "}}", "echo",
     "the Mcp-Method header 'tools/call' does not match the body's method 'tools/list' (read as a parser that keeps "
     "the first of a member name given twice reads it)"),
    ("big-integer-argument", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":'
     '{"n":123456789012345678901234567890},' + META + "}}", "echo", None),
    ("escaped-name-twice", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything",'
     '"\\u006eame":"echo","arguments":{},' + META + "}}", "echo", FIRST),
]


@pytest.mark.parametrize(("row", "body", "name", "reason"), ROWS, ids=[r[0] for r in ROWS])
def test_a_header_must_match_every_reading_of_the_body(row: str, body: str, name: str, reason: str | None) -> None:
    data = body.encode()
    headers = CIMultiDictProxy(CIMultiDict({**HEADERS, "Mcp-Name": name}))  # (Mcp-Method: tools/call)
    got = header_mismatch(peek(data), headers, None, data)
    assert got == (None if reason is None else (HEADER_MISMATCH, reason))
