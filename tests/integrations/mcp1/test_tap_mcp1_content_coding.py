"""``../test_tap_content_coding.py`` on the 1.x line (run in .venvs/mcp1 by ../test_mcp1_suite.py):
``ClientSession`` over ``streamablehttp_client`` with ``tap.httpx_client_factory`` (httpx), against
tests/servers/hostile_http.py's content-encoded answers. The tap recorded the compressed bytes:
a gzip answer was judged unreadable or not at all, and a body that says gzip and is not
(gzip_bad) raised out of the SDK's post task, which 1.x logs, leaving the call waiting for its
timeout.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from mcp_verdict import VerdictTap
from tests.processes import port_server

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = [sys.executable, "-m", "tests.servers.hostile_http"]
BROKEN = "the response stream broke: DecodingError: Error -3 while decompressing data: incorrect header check"
ANSWER = b'{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}}'

# mode -> (kind, [(code, message)], the answer's bytes on the history: the decoded message
# hostile_http.answer_of writes for request 1 (initialize is 0), or None); by hand
CASES: list[tuple[str, str, list[tuple[str, str]], bytes | None]] = [
    ("gzip_json", "normal_complete", [], ANSWER),
    ("gzip_sse", "normal_complete", [], ANSWER),
    ("gzip_bad", "unclassified", [("transport.error", BROKEN)], None),
    ("coding_unknown", "normal_complete", [], ANSWER),
]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE, cwd=ROOT) as url:
        yield url


@pytest.mark.parametrize(("mode", "kind", "findings", "response"), CASES, ids=[c[0] for c in CASES])
def test_an_encoded_answer_is_judged_on_its_decoded_bytes_1x(base: str, mode: str, kind: str,
                                                             findings: list[tuple[str, str]],
                                                             response: bytes | None) -> None:
    async def scenario() -> Any:
        tap = VerdictTap()
        with anyio.fail_after(30):
            async with streamablehttp_client(f"{base}/{mode}/mcp", httpx_client_factory=tap.httpx_client_factory) \
                    as (read, write, _), ClientSession(read, write) as session:
                await session.initialize()
                return tap, await tap.call_tool(session, "t", {})

    tap, outcome = anyio.run(scenario)
    assert (outcome.verdict.kind.value, [(f.code, f.message) for f in outcome.verdict.findings]) == (kind, findings)
    assert tap.history[0].response == response
