"""The tap holds nothing of a session whose write stream it proxied but never linked to a recorded
connection, once the session is gone (README, the tap: "Bounded."). Such a session is built over
a client the tap does not record (its calls are judged ``transport.error``: "the tap cannot tell
which connection this session uses"), or is handed to ``tap.judging`` and sends nothing. The tap
kept every such proxy for good, with the last 64 requests it noted (their params, a tool call's
arguments included): an application that opens a session per task kept them all, and each
request of every connection was read again to look for them.

Real peers: the demo server over Streamable HTTP, the SDK's ``Client`` on the SDK's own
(unrecorded) client; each session judged once, then let go, ``gc.collect()``, and the proxies
``tap.proxy(client)`` returned are looked for by weak reference.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import VerdictTap, demo

SESSIONS = 5
ARGUMENTS = {"city": "x" * 100_000}

# how each session is judged -> (the first finding of each call on the tap's history, proxies alive once the
# sessions are gone); by hand
CASES: list[tuple[str, list[str], int]] = [
    ("one call", ["transport.error"] * SESSIONS, 0),
    ("no call", [], 0),
]


@pytest.mark.parametrize(("how", "codes", "alive"), CASES, ids=[c[0] for c in CASES])
def test_the_proxy_of_a_session_that_ended_unlinked_is_let_go(how: str, codes: list[str], alive: int) -> None:
    async def scenario() -> tuple[VerdictTap, list[weakref.ref[Any]]]:
        tap = VerdictTap()
        proxies: list[weakref.ref[Any]] = []
        with anyio.fail_after(60):
            async with demo.serve_http() as url:
                for _ in range(SESSIONS):
                    async with Client(streamable_http_client(url)) as client:
                        proxies.append(weakref.ref(tap.proxy(client)))
                        async with tap.judging(client) as judged:
                            if how == "one call":
                                await client.call_tool("get_forecast", ARGUMENTS)
                        assert len(judged.calls) == len(codes) // SESSIONS  # judged (onto the history)
                    del client, judged
        return tap, proxies

    tap, proxies = anyio.run(scenario)
    gc.collect()  # (the tap lives on)
    found = [call.verdict.findings[0].code for call in tap.history]
    assert (found, sum(proxy() is not None for proxy in proxies)) == (codes, alive)
