"""A request that was not sent, and its id used again. The tap marks a request it recorded but
could not send (stdio: the SDK could not write it; HTTP: no connection) so its verdict says
``request_sent`` False (decide: nothing reached the server). The mark stayed on the id: a request
sent later under the same id (a caller that chose its ids; JSON-RPC 2.0 section 4 leaves reuse
to it once the first is done) was judged not sent as well, though the server answered it. And
over HTTP the marks were never dropped: one per request that never left, for the connection's
life. Now a request sent again under the id clears it (the call not sent is judged at once, as
not sent), and a connection keeps the last 4,096 marks.

Real servers: tests/servers/echo_answers.py over the tap's stdio transport (raw SessionMessages,
as in test_tap_unwritable), and broken_answers over HTTP through the tap's recorded client, with
a port that refuses connections for the requests that are not sent. Expected values by hand.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types
import orjson
import pytest
from mcp.shared.message import SessionMessage

from mcp_verdict import VerdictTap

from ._tap_streams import serve_http

ROOT = Path(__file__).resolve().parents[2]
ECHO = [sys.executable, "-m", "tests.servers.echo_answers"]
CALL = {"name": "plain", "arguments": {}}
UNWRITABLE = {"name": "plain", "arguments": {"text": "x\ud800"}}


def request(request_id: Any, params: dict[str, Any]) -> SessionMessage:
    return SessionMessage(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params=params))


# the requests written, in order (id, params) → per judged call: (request id, finding codes,
# kind, request_sent); by hand
REUSE: list[tuple[str, list[tuple[Any, dict[str, Any]]], list[tuple[Any, list[str], str, bool]]]] = [
    ("not written, then written under the same id", [(7, UNWRITABLE), (7, CALL)],
     [(7, ["transport.unwritable"], "unclassified", False), (7, [], "normal_complete", True)]),
    ("a string id", [("a", UNWRITABLE), ("a", CALL)],
     [("a", ["transport.unwritable"], "unclassified", False), ("a", [], "normal_complete", True)]),
    ("not written twice, then written", [(7, UNWRITABLE), (7, UNWRITABLE), (7, CALL)],
     [(7, ["transport.unwritable"], "unclassified", False), (7, ["transport.unwritable"], "unclassified", False),
      (7, [], "normal_complete", True)]),
    ("another id not written between", [(7, UNWRITABLE), (8, UNWRITABLE), (7, CALL)],
     [(7, ["transport.unwritable"], "unclassified", False), (8, ["transport.unwritable"], "unclassified", False),
      (7, [], "normal_complete", True)]),
]


@pytest.mark.parametrize(("case", "written", "judged"), REUSE, ids=[c[0] for c in REUSE])
def test_an_id_sent_again_is_sent(case: str, written: list[tuple[Any, dict[str, Any]]],
                                  judged: list[tuple[Any, list[str], str, bool]]) -> None:
    async def scenario() -> list[Any]:
        # echo_answers answers as 2025-11-25 does (no resultType): the version of these calls
        with anyio.fail_after(20), VerdictTap(default_version="2025-11-25") as tap:
            async with tap.stdio_transport(ECHO[0], ECHO[1:], cwd=ROOT) as (reader, writer):
                async with tap.judging() as block:
                    for request_id, params in written:
                        await writer.send(request(request_id, params))
                        await reader.receive()  # its answer, or the tap's error for it
                return block.calls

    calls = anyio.run(scenario)
    assert [(c.request_id, [f.code for f in c.verdict.findings], c.verdict.kind.value, c.outcome.request_sent)
            for c in calls] == judged


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    yield from serve_http()


def body(request_id: int) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": CALL})


HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
KEPT = 4096  # the marks a connection keeps (the tap's _KEEP)


def test_over_http_the_marks_are_bounded_and_an_id_sent_again_is_unmarked(url: str) -> None:
    """Requests posted to a port that refuses connections (bound, not listening) are not sent:
    4,100 of them leave the last 4,096 marked; then id 4099, sent to the server, is unmarked,
    and the connection's other marks stay."""
    with socket.socket() as refusing:
        refusing.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{refusing.getsockname()[1]}/mcp"

        async def scenario() -> tuple[list[Any], list[Any]]:
            tap = VerdictTap()
            with anyio.fail_after(120):
                async with tap.http_client() as http:
                    for request_id in range(KEPT + 4):
                        with pytest.raises(httpx2.ConnectError):
                            await http.post(nowhere, content=body(request_id), headers=HEADERS)
                    (state,) = tap._conns.values()
                    before = list(state.not_sent)
                    answered = await http.post(url, content=body(KEPT + 3), headers=HEADERS)
                    assert answered.status_code == 200
                    return before, list(state.not_sent)

        before, after = anyio.run(scenario)
    assert (len(before), before[0], before[-1]) == (KEPT, ("int", 4), ("int", KEPT + 3))
    assert (len(after), after[0], after[-1]) == (KEPT - 1, ("int", 4), ("int", KEPT + 2))
