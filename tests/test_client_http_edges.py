"""`mcp-verdict call --url` against a Streamable HTTP server that shapes its answer to tools/call
byte by byte (tests/servers/hostile_http.py, raw sockets on 127.0.0.1): server-sent event
framing, content codings, bodies cut short, statuses, stalls, odd session ids. The command runs
as a subprocess; each row's exit status, verdict kind, findings and content are written by hand
from the rules cited beside it.

- WHATWG HTML s9.2.6 (event stream interpretation): https://html.spec.whatwg.org/multipage/server-sent-events.html
- MCP 2025-11-25 basic/transports (Streamable HTTP): the server answers a POSTed request with
  ``application/json`` or ``text/event-stream``
- RFC 9110 s8.4 (Content-Encoding), s12.5.3 (Accept-Encoding); RFC 8259 s8.1 (UTF-8), s9 (limits)
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mcp_verdict import Kind, Limits
from mcp_verdict.client import VerdictClient

from .processes import port_server

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
HOSTILE = [sys.executable, "-m", "tests.servers.hostile_http"]
OK = [{"type": "text", "text": "ok"}]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE, cwd=ROOT) as url:
        yield url


def call(base: str, mode: str, *options: str) -> tuple[int, dict[str, object]]:
    run = subprocess.run([*CLI, "call", "--mode", "legacy", "--timeout", "5", *options, "--url", f"{base}/{mode}/mcp",
                          "t", "--json"], capture_output=True, text=True, timeout=120, check=False,
                         stdin=subprocess.DEVNULL, cwd=ROOT)
    assert run.stdout, run.stderr
    out: dict[str, object] = json.loads(run.stdout)
    return run.returncode, out


# (mode, extra options, exit status, kind, [(finding code, message)], content or None)
CASES: list[tuple[str, tuple[str, ...], int, str, list[tuple[str, str]], list[dict[str, str]] | None]] = [
    # WHATWG: lines end in CRLF, LF or CR; one BOM at the start is dropped; "data:" without its
    # space; data lines joined by LF; an event with no data, a bad retry, an id with NUL dispatch
    # nothing or are ignored; the answer's id decides, not its place (an answer to 9999 first).
    ("sse_cr", (), 0, "normal_complete", [], OK),
    ("sse_crlf", (), 0, "normal_complete", [], OK),
    ("sse_bom", (), 0, "normal_complete", [], OK),
    ("sse_nospace", (), 0, "normal_complete", [], OK),
    ("sse_split", (), 0, "normal_complete", [], OK),
    ("sse_nodata", (), 0, "normal_complete", [], OK),
    ("sse_retry_garbage", (), 0, "normal_complete", [], OK),
    ("sse_id_nul", (), 0, "normal_complete", [], OK),
    ("sse_others_first", (), 0, "normal_complete", [], OK),
    # WHATWG: an event not ended by an empty line when the stream ends is discarded.
    ("sse_unterminated", (), 20, "unclassified", [("transport.closed", "the event stream ended inside an event")],
     None),
    # An event typed "other" is no message (the SDKs read "message" events only): the answer
    # is the message event after it, and an answer sent only as such an event is none.
    ("sse_other_event", (), 0, "normal_complete", [], OK),
    ("sse_only_other_event", (), 20, "unclassified", [
        ("transport.error", "MCPError: SSE stream ended without a response; the server sent 1 event of a type "
                            "other than 'message', which no MCP client reads as a message")], None),
    # An event is bounded by --max-bytes as a JSON body is (RFC 8259 s9), not by the SDK's own
    # 1 MiB: a 2 MiB answer is read whole; past the bound it is json.too_large of its start.
    ("sse_2mib", (), 0, "normal_complete", [], None),
    ("sse_2mib", ("--max-bytes", "1000000"), 20, "unclassified",
     [("json.too_large", "the message is more than 1000000 bytes, the limit")], None),
    # Comments keep a stream alive; the answer after 3 s of them is within --timeout 5.
    ("sse_keepalive", (), 0, "normal_complete", [], OK),
    # RFC 9110 s8.4: the message is the body with its content coding undone, whatever was asked.
    ("gzip_sse", (), 0, "normal_complete", [], OK),
    ("gzip_json", (), 0, "normal_complete", [], OK),
    ("coding_unknown", (), 0, "normal_complete", [], OK),  # a coding httpx2 does not know: as sent
    ("gzip_bad", (), 20, "unclassified", [
        ("transport.error", "HTTP 200: the response body does not decode as its content-encoding says: "
                            "Error -3 while decompressing data: incorrect header check")], None),
    # RFC 8259 s8.1: JSON between systems is UTF-8; a charset parameter does not change that.
    ("latin1", (), 20, "unclassified",
     [("json.encoding", "the message is not UTF-8: invalid continuation byte at byte 80")], None),
    ("no_type", (), 20, "unclassified", [("transport.error", "MCPError: Unexpected content type: ")], None),
    ("chunk_cut", (), 20, "unclassified", [("transport.closed", "the response stream broke: RemoteProtocolError: "
                                            "peer closed connection without sending complete message body "
                                            "(incomplete chunked read)")], None),
    ("accepted", (), 20, "unclassified", [("transport.error", "HTTP 202 Accepted without a response body")], None),
    ("cross_redirect", (), 20, "unclassified", [
        ("transport.error", "MCPError: Redirect to http://localhost:1/mcp not followed; use that URL as the "
                            "endpoint if it is the intended server")], None),
    # (HTTP error statuses: tests/test_client_http_refused.py)
    # --timeout holds whether the server never sends its headers or stalls after them.
    ("never_headers", ("--timeout", "1"), 20, "unclassified", [("transport.timeout", "no response within 1 s")],
     None),
    ("stall", ("--timeout", "1"), 20, "unclassified", [("transport.timeout", "no response within 1 s")], None),
    # A session id of visible ASCII, however long (10 kB), is sent back as it came (the server's
    # answer names the session id it was sent); one of other characters: test below.
    ("session_long", (), 0, "normal_complete", [], [{"type": "text", "text": "session " + "s" * 10_000}]),
]


@pytest.mark.parametrize(("mode", "options", "status", "kind", "findings", "content"), CASES,
                         ids=[c[0] + "".join(c[1]) for c in CASES])
def test_an_http_answer_is_judged_as_it_came(base: str, mode: str, options: tuple[str, ...], status: int, kind: str,
                                             findings: list[tuple[str, str]],
                                             content: list[dict[str, str]] | None) -> None:
    code, out = call(base, mode, *options)
    verdict = out["verdict"]
    assert isinstance(verdict, dict)
    assert (code, verdict["kind"], [(f["code"], f["message"]) for f in verdict["findings"]]) == \
        (status, kind, findings)
    if content is not None:
        assert verdict["content"] == content


def test_a_large_event_is_bounded_in_the_client_too(base: str) -> None:
    """VerdictClient directly: the 2 MiB event past max_bytes fails at once with json.too_large
    and the recorded frame is the event's start, cut one byte past the bound."""
    async def go() -> tuple[Kind, list[str], int]:
        async with VerdictClient.http(f"{base}/sse_2mib/mcp", mode="legacy", timeout=10,
                                      limits=Limits(max_bytes=100_000)) as client:
            outcome = await client.call_tool("t")
            answer = client.history[-1].rounds[-1].response
            return outcome.verdict.kind, [f.code for f in outcome.verdict.findings], len(answer or b"")

    assert anyio.run(go) == (Kind.UNCLASSIFIED, ["json.too_large"], 100_001)


def test_a_session_the_server_ended_is_started_again() -> None:
    """MCP Streamable HTTP, session management: a 404 to a request that carried a session id
    means the server ended that session, and the client MUST start a new one with initialize.
    The call that met the 404 fails and says so; the next calls go through the new session
    (the server's answer names the session it was sent: s2). A server of its own: the ended
    session is the server's state."""
    async def go(url: str) -> tuple[list[tuple[str, list[tuple[str, str]], object]], list[str]]:
        seen = []
        async with VerdictClient.http(url, mode="legacy", timeout=10) as client:
            for _ in range(3):
                outcome = await client.call_tool("t")
                verdict = outcome.verdict
                seen.append((verdict.kind.value, [(f.code, f.message) for f in verdict.findings],
                             verdict.to_dict().get("content")))
            return seen, client.warnings

    with port_server(HOSTILE, cwd=ROOT) as url:
        seen, warnings = anyio.run(go, f"{url}/session404/mcp")
    assert seen == [
        ("unclassified", [("transport.refused", "HTTP 404, session ended: the server refused the request, which it "
                                                "did not run (HTTP 404: unknown session; the server ended session "
                                                "'s1': the client starts a new one before its next request)")], None),
        ("normal_complete", [], [{"type": "text", "text": "session s2"}]),
        ("normal_complete", [], [{"type": "text", "text": "session s2"}]),
    ]
    assert warnings == ["the server ended session 's1' (HTTP 404): connected again, a new session"]


# (mode, how the refused id is shown): a session id MUST be visible ASCII, 0x21-0x7E (Streamable
# HTTP, session management). One with control characters would carry them back to the server in
# a header; one with "é" cannot be sent at all (every later request failed "Connection closed",
# decided retry). The client refuses the connection at initialize (exit 3: cannot connect).
@pytest.mark.parametrize(("mode", "shown"), [
    ("session_ctl", "'s\\x01\\x1b[2Jx'"),
    ("session_latin1", "'sé'"),
])
def test_a_session_id_that_is_not_visible_ascii_is_refused_at_connect(base: str, mode: str, shown: str) -> None:
    run = subprocess.run([*CLI, "call", "--mode", "legacy", "--timeout", "5", "--url", f"{base}/{mode}/mcp", "t"],
                         capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL, cwd=ROOT)
    assert (run.returncode, run.stdout) == (3, "")
    assert run.stderr.strip() == (
        f"mcp-verdict: cannot connect to {base}/{mode}/mcp: the server's Mcp-Session-Id {shown} holds characters "
        "that are not visible ASCII (0x21-0x7E), which a session id MUST be made of (Streamable HTTP, session "
        "management): the client cannot send it back (during initialize)")
