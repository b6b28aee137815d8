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

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = [sys.executable, "-m", "tests.servers.hostile_http"]
REFUSED = "the server refused the request, which it did not run"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE, cwd=ROOT) as url:
        yield url


# (mode, finding code, message, decision action, rule, delay or None)
CASES: list[tuple[str, str, str, str, str, float | None]] = [
    # authorization: not run; sending again without new credentials is refused again
    ("status401", "transport.refused", f"HTTP 401: {REFUSED} (HTTP 401: no)", "investigate", "refused_auth", None),
    ("status403", "transport.refused", f"HTTP 403: {REFUSED} (HTTP 403: no)", "investigate", "refused_auth", None),
    # rate limit and overload with a Retry-After: within the cap it is the delay, past it the caller decides
    ("status429_wait2", "transport.refused", f"HTTP 429, Retry-After 2 s: {REFUSED} (HTTP 429: no)", "retry",
     "refused_retry", 2.0),
    ("status503_wait2", "transport.refused", f"HTTP 503, Retry-After 2 s: {REFUSED} (HTTP 503: no)", "retry",
     "refused_retry", 2.0),
    ("status429_date", "transport.refused", f"HTTP 429, Retry-After 0 s: {REFUSED} (HTTP 429: no)", "retry",
     "refused_retry", 0.0),
    ("status429", "transport.refused", f"HTTP 429, Retry-After 120 s: {REFUSED} (HTTP 429: no)", "investigate",
     "refused", None),
    ("status503", "transport.refused", f"HTTP 503, Retry-After 120 s: {REFUSED} (HTTP 503: no)", "investigate",
     "refused", None),
    # 429 without Retry-After: the policy's own backoff
    ("status429_bare", "transport.refused", f"HTTP 429: {REFUSED} (HTTP 429: no)", "retry", "refused_retry", 0.457),
    # a 404 to a request with the session id: not run; the SDK keeps the ended session
    ("status404", "transport.refused", f"HTTP 404: {REFUSED} (HTTP 404: no)", "investigate", "refused", None),
    ("status400_bare", "transport.refused", f"HTTP 400: {REFUSED} (HTTP 400: no)", "investigate", "refused", None),
    ("status405", "transport.refused", f"HTTP 405: {REFUSED} (HTTP 405: no)", "investigate", "refused", None),
    ("status415_bare", "transport.refused", f"HTTP 415: {REFUSED} (HTTP 415: no)", "investigate", "refused", None),
    ("status413_bare", "transport.refused", f"HTTP 413: {REFUSED} (HTTP 413: no)", "fix_request",
     "refused_too_large", None),
    # no proof the request was not run: the effect of a write is unknown
    ("status500", "transport.error", "HTTP 500: no", "check_state", "unknown_effect", None),
    ("status502", "transport.error", "HTTP 502: no", "check_state", "unknown_effect", None),
    ("status504_bare", "transport.error", "HTTP 504: no", "check_state", "unknown_effect", None),
    ("status503_bare", "transport.error", "HTTP 503: no", "check_state", "unknown_effect", None),
]


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
