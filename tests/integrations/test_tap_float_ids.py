"""An answer whose id is the request's integer past 2**53 written as a float: request 2**64+1,
answer ``"id": 18446744073709551617.0``. Read exactly, that JSON number is the request's id as
another JSON type (JSON-RPC 2.0 section 4: an id is a String or a Number without fractional
parts; MCP basic#requests: a string or an integer), as ``3.0`` is for ``3``: the tap fails that
call at once with its JSON-RPC error (-32700), and its verdict is read from the answer's bytes
(``envelope.id_type``). The tap compared the float reading, 2**64: it paired nothing, and the
call waited for its timeout while the SDK logged a ValidationError; with 2**64 waiting as well,
it failed 2**64's call with that answer instead. Over Streamable HTTP the SDK fails the call
itself (the POST's body answers that POST's request), and the verdict, which said "no answer was
recorded", is the answer's.

The server is real (tests/servers/broken_answers.py, which writes the id as the client wrote
it, then ``.0``); what the caller reads and the verdicts are written by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types
import pytest
from mcp.shared.message import SessionMessage

from mcp_verdict import VerdictTap

from ._tap_streams import serve_http, streams

BIG = 2**64
LOOSE = ("mcp-verdict tap: the server's answer carries the request's id as another JSON type (the verdict has "
         "the details)")
ID_TYPE = ["envelope.id_type", "result.result_type_missing"]

# (transport, the requests written: (id, tool), in order) → what the caller reads first (its
# type, id and error code; the SDK's own error over HTTP), and each request's verdict findings
CASES: list[tuple[str, list[tuple[int, str]], tuple[str, int, int], list[list[str]]]] = [
    ("stdio", [(BIG + 1, "float_id")], ("JSONRPCError", BIG + 1, -32700), [ID_TYPE]),
    # 2**64 waits (its answer never comes, judged when the connection is closed): the answer is
    # 2**64+1's, whose float reading is 2**64
    ("stdio", [(BIG, "drop"), (BIG + 1, "float_id")], ("JSONRPCError", BIG + 1, -32700),
     [["transport.closed"], ID_TYPE]),
    ("stdio", [(BIG, "float_id")], ("JSONRPCError", BIG, -32700), [ID_TYPE]),
    ("http", [(BIG + 1, "float_id")], ("JSONRPCError", BIG + 1, -32700), [ID_TYPE]),
]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    yield from serve_http()


@pytest.mark.parametrize(("transport", "requests", "read", "findings"), CASES,
                         ids=[f"{c[0]}-{'-'.join(str(r[0] - BIG) for r in c[1])}" for c in CASES])
def test_an_id_written_as_a_float_past_2_53_is_read_exactly(transport: str, requests: list[tuple[int, str]],
                                                            read: tuple[str, int, int], findings: list[list[str]],
                                                            url: str) -> None:
    async def scenario() -> tuple[Any, list[Any]]:
        with anyio.fail_after(20), VerdictTap() as tap:
            async with streams(tap, transport, url) as (reader, writer), tap.judging() as judged:
                for request_id, tool in requests:
                    await writer.send(SessionMessage(mcp_types.JSONRPCRequest(
                        jsonrpc="2.0", id=request_id, method="tools/call", params={"name": tool, "arguments": {}})))
                received = await reader.receive()
            return received.message, judged.calls

    message, calls = anyio.run(scenario)
    assert (type(message).__name__, message.id, message.error.code) == read
    if transport == "stdio":
        assert message.error.message == LOOSE
    assert [call.request_id for call in calls] == [r[0] for r in requests]
    assert [[f.code for f in call.verdict.findings] for call in calls] == findings
