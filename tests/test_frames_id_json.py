"""``frames.id_json``: a request id written back exactly, for the answers the proxy and the tap
make themselves (JSON-RPC 2.0 section 5: the response's id is the request's). orjson refuses an
integer past 64 bits and a string with a lone surrogate; an id no number holds (``1e400``) is
kept as written (``bytes``). Expected bytes by hand."""

from __future__ import annotations

import pytest

from mcp_verdict.frames import error_json, id_json

CASES: list[tuple[object, bytes]] = [
    (7, b"7"),
    ("abc", b'"abc"'),
    (None, b"null"),
    (2**64 - 1, b"18446744073709551615"),  # orjson's own
    (2**64, b"18446744073709551616"),
    (-(2**63) - 1, b"-9223372036854775809"),
    (10**40, b"1" + b"0" * 40),
    ("a\ud800", b'"a\\ud800"'),
    (b"1e400", b"1e400"),
]


@pytest.mark.parametrize(("request_id", "written"), CASES, ids=[repr(c[0]) for c in CASES])
def test_an_id_is_written_back_exactly(request_id: object, written: bytes) -> None:
    assert id_json(request_id) == written


# (request id, code, message, data; the error answer written, by hand): frames.error_json, the one
# writer of the errors the tap and the proxy answer a request with themselves (JSON-RPC 2.0 s5.1)
ERROR_CASES: list[tuple[object, int, str, object, bytes]] = [
    (7, -32603, "no", None, b'{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"no"}}'),
    (2**64, -32700, "bad", None,
     b'{"jsonrpc":"2.0","id":18446744073709551616,"error":{"code":-32700,"message":"bad"}}'),
    ("a\ud800", -32603, "x", None, b'{"jsonrpc":"2.0","id":"a\\ud800","error":{"code":-32603,"message":"x"}}'),
    (None, -32700, "p", {"source": "s"},
     b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p","data":{"source":"s"}}}'),
    (b"1E2", -31002, "t", {}, b'{"jsonrpc":"2.0","id":1E2,"error":{"code":-31002,"message":"t","data":{}}}'),
]


@pytest.mark.parametrize(("request_id", "code", "message", "data", "written"), ERROR_CASES,
                         ids=[repr(c[0]) for c in ERROR_CASES])
def test_an_error_answer_is_written_under_the_id_exactly(request_id: object, code: int, message: str, data: object,
                                                         written: bytes) -> None:
    assert error_json(request_id, code, message, data) == written
