"""The tap when the server answers the tools/call POST with an HTTP error status and no JSON-RPC
answer (tests/servers/hostile_http.py, modes status<code>[_variant]), through the SDK's real
``Client`` on the tap's ``http_client()`` and through FastMCP's ``Client`` on a ``StrictTransport``.
A status that says the server did not run the request is ``transport.refused``, as the client
judges it (tests/test_client_http_refused.py, the same rule: ``verdict._findings.refuses``), and
``decide`` follows what it says (wait, authorize, shrink, stop); one that does not (500, 502,
504, a 503 without Retry-After: a gateway may send it after the server ran the call) stays
``transport.error``, ``check_state`` for a tool that may write. The tap judged every one of them
``transport.error`` ("no answer was recorded": the SDK reads no such body), so an SDK user was
told check_state where nothing ran. Expected values are written by hand from:

- MCP 2025-11-25 / 2026-07-28 basic/transports (Streamable HTTP): 400, 404 (the session ended:
  the client MUST start a new one; the SDK's ``Client`` does not, it fails the call with
  "Session terminated" and keeps the session, so sent again on it the request is refused again),
  405; basic/authorization, error handling: 401, 403
- RFC 9110 s15.5 (4xx: the server refuses), s15.6.4 (503 + Retry-After), s10.2.3 (Retry-After:
  delay-seconds or an HTTP-date; the server's date is long past: 0 s); RFC 6585 s4 (429)
- decide: RetryPolicy() (3 attempts, base_delay 0.5 s, max_delay 8 s): a Retry-After within the
  cap is the delay itself, past it the caller decides (investigate); without one, the backoff
  0.5 s times the jitter of the local verdict (id None, attempt 1): 0.457 s
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import VerdictError, VerdictTap
from tests.processes import port_server
from tests.test_client_http_refused import CASES as CLIENT_CASES
from tests.test_client_http_refused import REFUSED

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = [sys.executable, "-m", "tests.servers.hostile_http"]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE, cwd=ROOT) as url:
        yield url


# (mode, finding code, message, decision action, rule, delay or None): the client's table
# (tests/test_client_http_refused.py), the same rule, but for a 404 to a request with the session
# id: not run, but the SDK's Client keeps the ended session, so sending it again is refused again
CASES: list[tuple[str, str, str, str, str, float | None]] = [
    ("status404", "transport.refused", f"HTTP 404: {REFUSED} (HTTP 404: no)", "investigate", "refused", None)
    if row[0] == "status404" else row for row in CLIENT_CASES]


@pytest.mark.parametrize(("mode", "code", "message", "action", "rule", "delay"), CASES, ids=[c[0] for c in CASES])
def test_the_tap_says_whether_a_refused_call_ran(base: str, mode: str, code: str, message: str, action: str,
                                                 rule: str, delay: float | None) -> None:
    async def scenario() -> Any:
        tap = VerdictTap()
        with anyio.fail_after(30):
            async with tap.http_client() as http, \
                    Client(streamable_http_client(f"{base}/{mode}/mcp", http_client=http)) as client:
                return await tap.call_tool(client, "t", {})

    outcome = anyio.run(scenario)
    verdict, decision = outcome.verdict, outcome.decision
    assert (verdict.kind.value, [(f.code, f.message) for f in verdict.findings]) == ("unclassified", [(code, message)])
    assert (decision.action.value, decision.rule, decision.delay) == (action, rule, delay)


def test_fastmcp_tells_the_caller_when_it_may_call_again(base: str) -> None:
    """FastMCP's ``call_tool`` over a ``StrictTransport``: the adapter does not run a call again,
    so its VerdictError says when the caller may (integrations/_policy.not_run_again)."""
    from fastmcp import Client as FastMCPClient

    from mcp_verdict.integrations.fastmcp import StrictTransport

    async def scenario() -> BaseException:
        with anyio.fail_after(30):
            async with FastMCPClient(StrictTransport(f"{base}/status429_wait2/mcp")) as client:
                try:
                    await client.call_tool("t", {})
                except Exception as exc:
                    return exc
        raise AssertionError("the call passed")

    error = anyio.run(scenario)
    assert isinstance(error, VerdictError)
    assert (error.decision.action.value, error.decision.rule, error.decision.delay) == ("retry", "refused_retry", 2.0)
    assert str(error) == (
        f"the tools/call answer is unclassified (transport.refused: HTTP 429, Retry-After 2 s: {REFUSED} "
        "(HTTP 429: no)); next: retry — the server refused the request for now (HTTP 429) and did not run it: "
        "send it again after the wait it asked for. Nothing ran it again: the caller may call it again after 2 s")
