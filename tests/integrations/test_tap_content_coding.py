"""A Streamable HTTP answer the server content-encodes although the tap's client asks for
``accept-encoding: identity`` (tests/servers/hostile_http.py, modes gzip_json, gzip_sse,
gzip_bad, coding_unknown), through the SDK's real ``Client`` on the tap's ``http_client()``.

RFC 9110 s8.4: ``content-encoding`` names the codings applied to the representation, which the
recipient decodes (httpx2 does, for the codings it supports, and ignores one it does not know);
s12.5.3: ``identity`` is acceptable, not a promise the server keeps. The verdict reads the bytes
the SDK reads: the decoded message. The tap recorded the compressed bytes: a gzip JSON body was
judged unreadable and the parse error it handed the SDK still said ``content-encoding: gzip``, so
the SDK's own decoder raised out of its task group (DecodingError, the whole session ended); a gzip
event stream gave the tap no event (``transport.error``, "no answer was recorded") where the SDK
read the answer; a body that says gzip and is not (gzip_bad) raised the same way instead of
failing its call alone. The 1.x line (httpx): ``mcp1/test_tap_mcp1_content_coding.py``.
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

from mcp_verdict import VerdictTap
from tests.processes import port_server

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = [sys.executable, "-m", "tests.servers.hostile_http"]
BROKEN = "the response stream broke: DecodingError: Error -3 while decompressing data: incorrect header check"

# mode -> (kind, [(code, message)], action, the answer's bytes on the history: the decoded message
# hostile_http.answer_of writes for request 3 (the Client sends server/discover as 1,
# initialize as 2), or None); by hand
CASES: list[tuple[str, str, list[tuple[str, str]], str, bytes | None]] = [
    ("gzip_json", "normal_complete", [], "accept",
     b'{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}}'),
    ("gzip_sse", "normal_complete", [], "accept",
     b'{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}}'),
    ("gzip_bad", "unclassified", [("transport.error", BROKEN)], "check_state", None),
    ("coding_unknown", "normal_complete", [], "accept",
     b'{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}}'),
]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE, cwd=ROOT) as url:
        yield url


@pytest.mark.parametrize(("mode", "kind", "findings", "action", "response"), CASES, ids=[c[0] for c in CASES])
def test_an_encoded_answer_is_judged_on_its_decoded_bytes(base: str, mode: str, kind: str,
                                                          findings: list[tuple[str, str]], action: str,
                                                          response: bytes | None) -> None:
    async def scenario() -> Any:
        tap = VerdictTap()
        with anyio.fail_after(30):
            async with tap.http_client() as http, \
                    Client(streamable_http_client(f"{base}/{mode}/mcp", http_client=http)) as client:
                outcome = await tap.call_tool(client, "t", {})
                after = await tap.call_tool(client, "t", {})  # the session goes on
        return tap, outcome, after

    tap, outcome, after = anyio.run(scenario)
    verdict = outcome.verdict
    assert (verdict.kind.value, [(f.code, f.message) for f in verdict.findings], outcome.decision.action.value) \
        == (kind, findings, action)
    assert tap.history[0].response == response
    assert after.verdict.kind.value == kind
