"""`mcp-verdict call --url` when the server answers the tools/call POST with an HTTP error status
and no JSON-RPC answer (tests/servers/hostile_http.py, modes status<code>[_variant]). A status that
says the server did not run the request is `transport.refused`, and `decide` follows what it says
(wait, authorize, shrink, stop); one that does not (500, 502, 504, a 503 without Retry-After:
a gateway may send it after the server ran the call) stays `transport.error`, `check_state`
for a tool that may write. Expected values are written by hand from:

- MCP 2025-11-25 / 2026-07-28 basic/transports (Streamable HTTP): 400 (bad request, missing
  session, bad protocol version header), 403 (bad Origin), 404 (session ended: the client MUST
  start a new one), 405
- MCP basic/authorization, error handling: 401 (token missing or invalid), 403 (insufficient scope)
- RFC 9110 s15.5 (4xx: the server refuses), s15.6.4 (503 + Retry-After), s10.2.3 (Retry-After:
  delay-seconds or an HTTP-date); RFC 6585 s4 (429)
- decide: RetryPolicy() (3 attempts, max_delay 8 s): a Retry-After within the cap is the delay
  itself, past it the caller decides (investigate)
"""

from __future__ import annotations

import pytest

from tests.test_client_http_edges import base, call

__all__ = ["base"]

REFUSED = "the server refused the request, which it did not run"
ENDED = "; the server ended session 's1': the client starts a new one before its next request"

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
    # 429 without Retry-After: the policy's own backoff (0.5 s times the jitter of the verdict's id)
    ("status429_bare", "transport.refused", f"HTTP 429: {REFUSED} (HTTP 429: no)", "retry", "refused_retry", 0.457),
    # a 404 to a request with the session id: the session ended, the request was not run, and
    # the client starts a new session before the next one (a Retry-After means nothing on a 404)
    ("status404", "transport.refused", f"HTTP 404, session ended: {REFUSED} (HTTP 404: no{ENDED})", "retry",
     "refused_retry", 0.457),
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
def test_an_http_status_says_whether_the_request_ran(base: str, mode: str, code: str, message: str, action: str,
                                                      rule: str, delay: float | None) -> None:
    status, out = call(base, mode)
    verdict, decision = out["verdict"], out["decision"]
    assert isinstance(verdict, dict) and isinstance(decision, dict)
    assert (status, verdict["kind"], [(f["code"], f["message"]) for f in verdict["findings"]]) == \
        (20, "unclassified", [(code, message)])
    assert (decision["action"], decision["rule"], decision.get("delay")) == (action, rule, delay)
