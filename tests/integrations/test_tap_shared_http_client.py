"""Two sessions over one ``tap.http_client()`` (one httpx2 client, as an application may share):
each session counts its request ids from 1, so two calls can wait under the same id on the one
client the tap records as one connection. An answer names its request by id alone: the tap
cannot tell whose it is, and says so (``transport.error``) on both calls — never one session's
call judged by the other session's answer (the old tap judged the slow call by the fast call's
answer: ``result.is_error`` for ``slow_echo``, or a success it never had). A real ``mcp.Client``
(and the SDK's streams, as the adapters wrap them) on the demo server over Streamable HTTP."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import VerdictTap, demo

from ._tap_streams import serve_http

REUSED = ("another request went out under the same id on this HTTP client while it waited (two sessions share one "
          "tap.http_client(): give each its own); the tap cannot tell their answers apart")
UNKNOWN = ("the tap cannot tell which connection this session uses (build it over the tap's transports, or pass it "
           "to tap.judging first)")

# (how the sessions are built, the second session's tool) → (kind, finding, message) of the
# first session's waiting slow_echo and of the second session's call; by hand
CASES: list[tuple[str, str, tuple[str, str, str], tuple[str, str, str]]] = [
    ("client", "string_is_error", ("unclassified", "transport.error", REUSED),
     ("unclassified", "transport.error", UNKNOWN)),
    ("client", "get_forecast", ("unclassified", "transport.error", REUSED),
     ("unclassified", "transport.error", UNKNOWN)),
    ("write_stream", "string_is_error", ("unclassified", "transport.error", REUSED),
     ("unclassified", "transport.error", REUSED)),
    ("write_stream", "get_forecast", ("unclassified", "transport.error", REUSED),
     ("unclassified", "transport.error", REUSED)),
]
ARGUMENTS = {"string_is_error": {}, "get_forecast": {"city": "Lisbon"}}


@asynccontextmanager
async def session(tap: VerdictTap, how: str, url: str, http: Any) -> AsyncIterator[Any]:
    if how == "client":
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client
        return
    async with streamable_http_client(url, http_client=http) as (read, write), \
            ClientSession(read, tap.write_stream(write, http.mcp_verdict_conn)) as plain:  # type: ignore[arg-type]
        await plain.initialize()
        yield plain


def row(outcome: Any) -> tuple[str, str | None, str | None]:
    findings = outcome.verdict.findings
    return (outcome.verdict.kind.value, findings[0].code if findings else None,
            findings[0].message if findings else None)


@pytest.mark.parametrize(("how", "tool", "waiting", "second"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_two_sessions_on_one_client_are_never_judged_by_each_others_answers(
        how: str, tool: str, waiting: tuple[str, str, str], second: tuple[str, str, str]) -> None:
    async def main() -> tuple[tuple[str, str | None, str | None], tuple[str, str | None, str | None]]:
        tap = VerdictTap()
        async with demo.serve_http() as url, tap.http_client() as http, session(tap, how, url, http) as a, \
                session(tap, how, url, http) as b:
            conn = http.mcp_verdict_conn
            async with anyio.create_task_group() as group:
                group.start_soon(tap.call_tool, a, "slow_echo", {"text": "slow", "seconds": 2})
                while not any(e.method == "tools/call" for e in tap.tracker.pending(conn)):
                    await anyio.sleep(0.01)  # until the slow call's request is on the wire
                answered = await tap.call_tool(b, tool, ARGUMENTS[tool])  # while the slow call waits
            slow = next(call for call in tap.history if call.name == "slow_echo")
            return row(slow.outcome), row(answered)

    assert anyio.run(main) == (waiting, second)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    yield from serve_http()


def test_an_id_not_sent_then_sent_again_is_no_reuse(url: str) -> None:
    """A request that could not be sent (no connection) and is sent again under its id on the same
    client is one request, not two sessions' (it is not reused while waiting): its answer is
    judged as its own. Requests posted by hand through the tap's client (a caller that chose its
    ids), the first to a port that refuses connections; tests/servers/broken_answers over HTTP."""
    body = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"plain","arguments":{}}}'
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    with socket.socket() as refusing:
        refusing.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{refusing.getsockname()[1]}/mcp"

        async def main() -> tuple[list[Any], list[str]]:
            tap = VerdictTap()
            async with tap.http_client() as http:
                with pytest.raises(httpx2.ConnectError):
                    await http.post(nowhere, content=body, headers=headers)
                answered = await http.post(url, content=body, headers=headers)
                assert answered.status_code == 200
                (state,) = tap._conns.values()
                return list(state.answered), [failure.note for failure in state.failures.values()]

        answered, failures = anyio.run(main)
    assert answered == [("int", 5)]  # the answer is the request's own, kept for a block that asks
    assert not any("same id" in note for note in failures)
