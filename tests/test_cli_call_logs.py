"""`mcp-verdict call --url` on bodies the SDK logs with ``logger.exception`` (mcp.client.
streamable_http: "Error parsing JSON response"): stderr holds one neutralised line, the message
and ``ExceptionType: message`` cut at 300 characters, the traceback only with ``-v``; the
verdict is the recorded bytes' (tests/test_client_http_edges.py). Real raw-socket server
(tests/servers/hostile_http.py)."""

from __future__ import annotations

import subprocess

import pytest

from tests.test_client_http_edges import CLI, ROOT, base

__all__ = ["base"]

JSON_LOG = ("mcp.client.streamable_http ERROR: Error parsing JSON response: ValidationError: 1 validation error "
            "for union[JSONRPCRequest,JSONRPCNotification,JSONRPCResponse,JSONRPCError] Invalid JSON: ")

# (mode, options, start of the one stderr line, or "" for no line; traceback shown)
CASES = [
    ("chunk_cut", (), JSON_LOG + "EOF while parsing a string at line 1 column 20", False),
    ("latin1", (), JSON_LOG + "invalid unicode code point at line 1 column 81", False),
    ("sse_keepalive", ("--timeout", "1"), "", False),  # the call times out during the stream: nothing logged
    ("latin1", ("-v",), "mcp.client.streamable_http ERROR: Error parsing JSON response", True),
]


@pytest.mark.parametrize(("mode", "options", "line", "traceback"), CASES, ids=[c[0] + "".join(c[1]) for c in CASES])
def test_a_logged_exception_is_one_line_without_verbose(base: str, mode: str, options: tuple[str, ...], line: str,
                                                        traceback: bool) -> None:
    run = subprocess.run([*CLI, "call", "--mode", "legacy", *options, "--url", f"{base}/{mode}/mcp", "t", "--json"],
                         capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL, cwd=ROOT)
    assert run.returncode == 20
    lines = run.stderr.splitlines()
    if traceback:
        assert (lines[0], lines[1]) == (line, "Traceback (most recent call last):")
    elif line:
        assert (len(lines), lines[0][:len(line)], "Traceback" in run.stderr) == (1, line, False)
        assert len(lines[0]) <= len("mcp.client.streamable_http ERROR: Error parsing JSON response: ") + \
            len("ValidationError: ") + 300 + len("… (9999 characters in all)")
    else:
        assert lines == []
