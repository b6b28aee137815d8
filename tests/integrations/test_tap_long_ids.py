"""Request ids past 64 bits on the tap's own answers. When the SDK cannot use a server's answer
(cut short, ``"id": null``, the id as a float) or an HTTP exchange breaks, the tap hands the SDK
a JSON-RPC error under the request's id at once, so only that call fails. An integer id past the
64-bit range is a valid JSON-RPC id (JSON-RPC 2.0 section 4: a Number; MCP basic#requests: a
string or an integer, of no bounded size), and the SDK's messages hold and write one; the tap
wrote its error with ``orjson.dumps``, which raises ``TypeError: Integer exceeds 64-bit range``
for it: the transport's task group ended with that error and the whole connection with it.

The SDK's session mints its own ids from 0, so such an id comes from a caller that drives the
tap's streams with its own JSON-RPC messages (the SDK's ``SessionMessage``, the id it chose): over
stdio the tap's transport, over HTTP the SDK's ``streamable_http_client`` on the tap's client.
The server is real (tests/servers/broken_answers.py, which keeps the id as written); what the
caller reads and the verdicts are written by hand."""

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
UNREADABLE = "mcp-verdict tap: the server's answer is not JSON (the verdict has the details)"
LOOSE = ("mcp-verdict tap: the server's answer carries the request's id as another JSON type (the verdict has "
         "the details)")

# (transport, tool, request id) → what the caller reads (its id, error code and message), the
# verdict's kind and finding codes; the error ids are the request's, exactly
CASES: list[tuple[str, str, int, tuple[int, int, str], str, list[str]]] = [
    ("stdio", "unreadable", BIG, (BIG, -32700, "mcp-verdict tap: the SDK cannot read the server's answer (the "
                                                "verdict has the details)"), "unclassified", ["json.syntax"]),
    ("stdio", "unreadable", -BIG - 1, (-BIG - 1, -32700, "mcp-verdict tap: the SDK cannot read the server's "
                                                         "answer (the verdict has the details)"),
     "unclassified", ["json.syntax"]),
    ("stdio", "id_null", BIG, (BIG, -32600, "could not read the request"), "unclassified", ["envelope.id_type"]),
    ("stdio", "float_id", BIG, (BIG, -32700, LOOSE), "unclassified",
     ["envelope.id_type", "result.result_type_missing"]),
    ("stdio", "id_null", 7, (7, -32600, "could not read the request"), "unclassified", ["envelope.id_type"]),
    ("http", "unreadable", BIG, (BIG, -32700, UNREADABLE), "unclassified", ["json.syntax"]),
    ("http", "drop", BIG, (BIG, -32603, "mcp-verdict tap: the exchange broke before an answer: "
                                        "RemoteProtocolError: Server disconnected without sending a response. "
                                        "(the verdict has the details)"), "unclassified", ["transport.error"]),
    ("http", "unreadable", 7, (7, -32700, UNREADABLE), "unclassified", ["json.syntax"]),
]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    yield from serve_http()


@pytest.mark.parametrize(("transport", "tool", "request_id", "read", "kind", "codes"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_the_taps_own_error_carries_an_id_past_64_bits(transport: str, tool: str, request_id: int,
                                                       read: tuple[int, int, str], kind: str, codes: list[str],
                                                       url: str) -> None:
    async def scenario() -> tuple[Any, Any]:
        with anyio.fail_after(20), VerdictTap() as tap:
            async with streams(tap, transport, url) as (reader, writer):
                request = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call",
                                                   params={"name": tool, "arguments": {}})
                async with tap.judging() as judged:
                    await writer.send(SessionMessage(request))
                    received = await reader.receive()
                # the connection lives on: the next call on it is answered
                after = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=1, method="tools/call",
                                                 params={"name": "plain", "arguments": {}})
                await writer.send(SessionMessage(after))
                plain = await reader.receive()
            return received, (judged.outcome, plain)

    received, (outcome, plain) = anyio.run(scenario)
    message = received.message
    assert (type(message).__name__, message.id, message.error.code, message.error.message) == (
        "JSONRPCError", *read)
    assert (outcome.verdict.kind.value, [f.code for f in outcome.verdict.findings]) == (kind, codes)
    assert (type(plain.message).__name__, plain.message.id) == ("JSONRPCResponse", 1)
