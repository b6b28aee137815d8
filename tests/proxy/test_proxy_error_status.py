"""The HTTP status of a stdio server's answer to a 2026-07-28 request (``proxy/_headers._error_status``),
from the answer's bytes alone or from the relay's routing read of those bytes (``Relay.upstream_look``,
which the HTTP host side takes when the frame it sends is that very one): the same status either way.

2026-07-28 basic/transports/streamable-http (Protocol Version Header, Server Validation) and
basic/index: UnsupportedProtocolVersion, HeaderMismatch, Invalid Request, Invalid Params, Parse
error and a missing required capability 400; an unknown method 404 with -32601; any other answer
200 (a result, whatever its content says; a JSON-RPC error of another code, the proxy's own
included).
"""

from __future__ import annotations

import pytest

from mcp_verdict.frames._jsonrpc import peek
from mcp_verdict.proxy._headers import _error_status

# (the answer's bytes; its status)
ERROR_STATUSES = [
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}', 404),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing _meta"}}', 400),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version"}}', 400),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}', 400),
    (b'{"error":{"message":"Parse error","code":-32700},"id":null,"jsonrpc":"2.0"}', 400),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}', 200),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-31000,"message":"mcp-verdict refused"}}', 200),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"a string code"}}', 200),
    (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text",'
     b'"text":"\\"error\\": -32601"}]}}', 200),
    (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],'
     b'"structuredContent":{"error":{"code":-32601}}}}', 200),
]


@pytest.mark.parametrize("read", [False, True], ids=["bytes", "relay-read"])
@pytest.mark.parametrize(("data", "status"), ERROR_STATUSES)
def test_a_2026_answer_over_stdio_has_the_same_status_from_its_bytes_or_the_relays_read(
        data: bytes, status: int, read: bool) -> None:
    assert (_error_status(data, peek(data)) if read else _error_status(data)) == status
