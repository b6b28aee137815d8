"""The client's transports against servers that misbehave at the byte level: real stdio processes
(tests/servers/hostile_stdio.py) and real sockets on 127.0.0.1 (tests/servers/hostile_http.py).
Each expectation is written by hand from the rule cited beside it; the waits are bounded only as
hang guards (``fail_after``), wide of any call's own end.

- MCP 2025-11-25 basic/transports, stdio: messages are delimited by newlines; the client closes
  the server's stdin, then terminates it. Streamable HTTP: "The client MUST respect the retry
  field, waiting the given number of milliseconds before attempting to reconnect"
- WHATWG HTML s9.2.6 (event stream interpretation): a ``retry`` field whose value is not ASCII
  digits is ignored; a user agent may wait longer than the reconnection time
- decide (README "Decisions"): a transport failure whose request never reached the server is
  ``retry`` (rule not_sent); one sent, on a tool that may write, is ``check_state``
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from mcp_verdict import Action, Kind
from mcp_verdict.client import VerdictClient, _http
from mcp_verdict.client._wire import WireLog

from .processes import port_server

ROOT = Path(__file__).resolve().parents[1]
STDIO = [sys.executable, "-m", "tests.servers.hostile_stdio"]
HOSTILE_HTTP = [sys.executable, "-m", "tests.servers.hostile_http"]
CLI = [sys.executable, "-m", "mcp_verdict"]
GUARD = 30.0
"""Seconds any scenario may take before it counts as hung (every call's own timeout is longer)."""


def findings(outcome: Any) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in outcome.verdict.findings]


def content(outcome: Any) -> Any:
    return outcome.verdict.to_dict().get("content")


# --- stdio: the server closed its stdin ----------------------------------------------------------

def test_a_request_written_after_the_server_closed_its_stdin_was_not_sent() -> None:
    """The server closed its stdin: the next request's write finds no reader, so the server never
    read it (it was reported sent: check_state). The first call is answered."""
    async def go() -> list[Any]:
        with anyio.fail_after(GUARD):
            async with VerdictClient.stdio([*STDIO, "close_stdin"], cwd=str(ROOT), mode="legacy", timeout=60,
                                           connect_timeout=1) as client:
                return [await client.call_tool("t"), await client.call_tool("t")]

    first, second = anyio.run(go)
    assert (first.verdict.kind, content(first)) == (Kind.NORMAL_COMPLETE, [{"type": "text", "text": "ok"}])
    assert (second.verdict.kind, findings(second), second.request_sent, second.decision.action) == (
        Kind.UNCLASSIFIED, [("transport.error", "the request was not sent: the server's stdin is closed")], False,
        Action.RETRY)


# --- HTTP: the retry field -------------------------------------------------------------------------

# (the stream's chunks, what the SDK reads) - by hand: WHATWG, a retry that is not ASCII digits
# (a sign, a non-ASCII digit, none) is ignored - the line becomes a comment, still a line; one
# under 100 ms waits 100 ms (MCP: the client waits at least what the server asks); a value past
# 32 bytes is no number of milliseconds; lines end in CRLF, LF or CR; one BOM opens the stream;
# every other line passes as it came, however the chunks cut it.
RETRY_LINES: list[tuple[list[bytes], bytes]] = [
    ([b"retry: 0\ndata: x\n\n"], b"retry: 100\ndata: x\n\n"),
    ([b"retry:7\r\n\r\n"], b"retry: 100\r\n\r\n"),
    ([b"retry: 100\n"], b"retry: 100\n"),
    ([b"retry: 5000\r\r"], b"retry: 5000\r\r"),
    ([b"retry: -5\n\n"], b":\n\n"),
    ([b"ret", b"ry: -", b"5\r\n\r\n"], b":\r\n\r\n"),
    ([b"retry: +5\n"], b":\n"),
    ([b"retry:  5\n"], b":\n"),  # the value is " 5": one space only is dropped
    ([b"retry: \xd9\xa3\n"], b":\n"),  # ARABIC-INDIC DIGIT THREE: int() reads it, WHATWG does not
    ([b"retry: " + b"9" * 40 + b"\n"], b":\n"),
    ([b"retry:\n"], b":\n"),
    ([b"\xef\xbb\xbfretry: 0\n"], b"\xef\xbb\xbfretry: 100\n"),
    ([b"retry: 0"], b"retry: 100"),  # the stream ends inside the line
    ([b"data: retry: 0\n", b"id: 1\nretryx: 0\nretry\n"], b"data: retry: 0\nid: 1\nretryx: 0\nretry\n"),
    ([b"data: " + b"a" * 70_000 + b"\n\n"], b"data: " + b"a" * 70_000 + b"\n\n"),
]


@pytest.mark.parametrize(("chunks", "read"), RETRY_LINES)
def test_the_sdk_reads_a_retry_it_can_wait(chunks: list[bytes], read: bytes) -> None:
    for pieces in (chunks, [bytes([byte]) for byte in b"".join(chunks)]):  # as cut, and byte by byte
        guard = _http._RetryGuard()
        assert b"".join(guard.feed(piece) for piece in pieces) + guard.close() == read


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE_HTTP, cwd=ROOT) as url:
        yield url


def test_the_recorded_stream_is_as_sent_and_the_sdk_reads_the_floor(base: str) -> None:
    """Through the recording transport, a real GET stream: the frame is the event's data as it
    came; the bytes handed on (the SDK's) carry ``retry: 100`` for the server's ``retry: 0``."""
    async def go() -> tuple[bytes, list[bytes]]:
        log = WireLog()
        http, _ = _http.recording_http_client(log, timeout=10)
        async with http, http.stream("GET", f"{base}/get_retry_zero/mcp") as response:
            read = b"".join([chunk async for chunk in response.aiter_raw()])
        return read, [f.data for f in log.frames if f.direction == "in"]

    read, frames = anyio.run(go)
    note = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'
    assert (read, frames) == (b"retry: 100\ndata: " + note + b"\n\n", [note])


def test_a_negative_retry_on_the_get_stream_is_ignored(base: str) -> None:
    """The GET stream says ``retry: -5`` and closes; the call is answered once it was served. The
    SDK slept -5 ms: anyio raised, and the command ended in a traceback (exit 1)."""
    run = subprocess.run([*CLI, "call", "--mode", "legacy", "--timeout", "20", "--url",
                          f"{base}/get_retry_negative/mcp", "t", "--json"], capture_output=True, text=True,
                         timeout=120, check=False, stdin=subprocess.DEVNULL, cwd=ROOT)
    assert (run.returncode, "Traceback" in run.stderr) == (0, False), run.stderr


# --- HTTP: a server that went away ---------------------------------------------------------------

def test_a_request_to_a_server_gone_since_it_connected_was_not_sent() -> None:
    """The server answered the handshake and tools/list, then stopped: the call's POST finds no
    one listening. Its request was not sent (connection refused), and the next step is retry;
    the ConnectError escaped the SDK's task group and the client died with it, the call's
    outcome lost."""
    server = port_server(HOSTILE_HTTP, cwd=ROOT)
    url = server.__enter__()
    stopped: list[bool] = []

    def stop() -> None:
        if not stopped:
            stopped.append(True)
            server.__exit__(None, None, None)

    async def go() -> Any:
        with anyio.fail_after(GUARD):
            async with VerdictClient.http(f"{url}/ok/mcp", mode="legacy", timeout=20) as client:
                await client.list_tools()
                await anyio.to_thread.run_sync(stop)
                return await client.call_tool("t")

    try:
        outcome = anyio.run(go)
    finally:
        stop()
    refused = "the request was not sent: ConnectError: All connection attempts failed"
    assert (outcome.verdict.kind, findings(outcome), outcome.request_sent, outcome.decision.action) == (
        Kind.UNCLASSIFIED, [("transport.error", refused)], False, Action.RETRY)
