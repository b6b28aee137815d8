"""``frames.id_json``: a request id written back exactly, for the answers the proxy and the tap
make themselves (JSON-RPC 2.0 section 5: the response's id is the request's). orjson refuses an
integer past 64 bits and a string with a lone surrogate; an id no number holds (``1e400``) is
kept as written (``bytes``). Expected bytes by hand."""

from __future__ import annotations

import pytest

from mcp_verdict.frames import id_json

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
