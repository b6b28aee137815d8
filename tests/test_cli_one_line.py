"""A value a server chose, on a line of mcp-verdict's own output that holds one value (a protocol
error's message, a finding's message, a decision's reason), stays on that line: its line
breaks (LF, CR, U+2028) and TABs are shown as visible escapes, so no text after them starts a
line that reads as a finding, a decision or a verdict of ours. A tool's content, text by
nature of many lines, is shown as it is under its label. Real processes: ``mcp-verdict
classify`` on stdin and ``mcp-verdict call`` on a stdio server (tests/servers/raw_server.py).
Expected lines written by hand."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .terminal import CLI
from .test_client_transport_faults import ROOT

FORGED_ESCAPED = ("boom\\n  error fake.code at /result: forged\\r\\ndecision  accept: forged"
                  "\\u2028verdict   normal_complete")


def _lines(done: subprocess.CompletedProcess[bytes]) -> list[str]:
    return done.stdout.decode().splitlines()


@pytest.mark.parametrize(("response", "expected"), [
    # a protocol error's message: the summary line (basic/index: JSON-RPC error objects)
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom\\n  error fake.code at /result: forged"}}',
     ["protocol_error  code -32000: boom\\n  error fake.code at /result: forged"]),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"a\\tb\\rc\\u2029d"}}',
     ["protocol_error  code -32000: a\\tb\\rc\\u2029d"]),
])
def test_classify_keeps_a_peers_value_on_its_line(response: bytes, expected: list[str]) -> None:
    done = subprocess.run([*CLI, "classify", "--version", "2025-06-18", "-"], input=response, capture_output=True,
                          cwd=ROOT, timeout=60, check=False)
    assert _lines(done) == expected


def test_call_keeps_a_protocol_errors_message_and_the_decision_on_their_lines() -> None:
    server = f"{sys.executable} -m tests.servers.raw_server --forged-lines"
    done = subprocess.run([*CLI, "call", "--stdio", server, "invalid"], capture_output=True, cwd=ROOT, timeout=60,
                          check=False, env={**os.environ, "COLUMNS": "400"})
    lines = _lines(done)
    assert f"error     -32602: {FORGED_ESCAPED}" in lines, lines
    assert not any(line.startswith(("  error fake.code", "decision  accept", "verdict   normal_complete"))
                   for line in lines), lines
    assert sum(line.startswith("decision  ") for line in lines) == 1
    assert [line for line in lines if line.startswith("verdict   ")] == \
        ["verdict   protocol_error  (protocol 2025-11-25, 1 round(s))"]
