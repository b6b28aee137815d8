"""The client's transports against servers that misbehave at the byte level: real stdio processes
(tests/servers/hostile_stdio.py) and real sockets on 127.0.0.1 (tests/servers/hostile_http.py).
Each expectation is written by hand from the rule cited beside it; the waits are bounded only as
hang guards (``fail_after``), wide of any call's own end.

- MCP 2025-11-25 basic/transports, stdio: messages are delimited by newlines; the client closes
  the server's stdin, then terminates it. Streamable HTTP: "The client MUST respect the retry
  field, waiting the given number of milliseconds before attempting to reconnect"
- WHATWG HTML s9.2.6 (event stream interpretation): a ``retry`` field whose value is not ASCII
  digits is ignored; a user agent may wait longer than the reconnection time
- MCP basic/utilities/cancellation: only requests that were issued may be cancelled
- JSON-RPC 2.0 s5: an error whose request id could not be read has ``id: null``
- decide (README "Decisions"): a transport failure whose request never reached the server is
  ``retry`` (rule not_sent); one sent, on a tool that may write, is ``check_state``
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from mcp_verdict import Action, Kind
from mcp_verdict.client import CannotConnect, VerdictClient, _http
from mcp_verdict.client._wire import WireLog

from .processes import port_server

ROOT = Path(__file__).resolve().parents[1]
STDIO = [sys.executable, "-m", "tests.servers.hostile_stdio"]
HOSTILE_HTTP = [sys.executable, "-m", "tests.servers.hostile_http"]
CLI = [sys.executable, "-m", "mcp_verdict"]
GUARD = 30.0
"""Seconds any scenario may take before it counts as hung (every call's own timeout is longer)."""
posix = pytest.mark.skipif(os.name != "posix", reason="the servers fork, or run sh")


def findings(outcome: Any) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in outcome.verdict.findings]


def content(outcome: Any) -> Any:
    return outcome.verdict.to_dict().get("content")


# --- stdio: one call -------------------------------------------------------------------------------

# (mode, kind, findings, content) - by hand:
# - no_lf: "a last line without its LF is still a line" (as the proxy reads it): the answer is
#   judged (it was dropped unread, and the call ended transport.closed);
# - exit_leaving_child: the server's process exited; a child it left holds its stdout open. The
#   connection ends when the server exits, what it wrote read first (the call waited for its
#   timeout, and said so: transport.timeout);
# - null_id: JSON-RPC s5: an error with a null id answers a request the server could not read:
#   the only request waiting ends at once (it waited for its timeout), judged from the frame.
ONE_CALL: list[tuple[str, Kind, list[tuple[str, str]], Any]] = [
    ("no_lf", Kind.NORMAL_COMPLETE, [], [{"type": "text", "text": "ok"}]),
    ("exit_leaving_child", Kind.UNCLASSIFIED,
     [("transport.closed", "the server exited (exit 3), and a process it left running holds its stdout open")], None),
    ("null_id", Kind.UNCLASSIFIED, [("envelope.id_type", "the id is null; it must be a string or an integer")], None),
]


@posix
@pytest.mark.parametrize(("mode", "kind", "said", "shown"), ONE_CALL, ids=[c[0] for c in ONE_CALL])
def test_a_stdio_answer_is_read_as_it_came(mode: str, kind: Kind, said: list[tuple[str, str]], shown: Any) -> None:
    async def go() -> Any:
        with anyio.fail_after(GUARD):
            async with VerdictClient.stdio([*STDIO, mode], cwd=str(ROOT), mode="legacy", timeout=60,
                                           connect_timeout=20) as client:
                return await client.call_tool("t")

    outcome = anyio.run(go)
    assert (outcome.verdict.kind, findings(outcome), content(outcome), outcome.request_sent) == \
        (kind, said, shown, True)


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


def test_a_request_queued_behind_an_unread_write_is_withdrawn_not_sent_later(tmp_path: Path) -> None:
    """The server reads nothing for a while. The first call's request (1 MB) is written in part
    and times out: sent, its effect unknown. The second waits behind it and times out: not sent,
    and it never is: the server, reading again, gets the first and the third (it says which ids
    it received: 3 and 5; initialize is 1, tools/list 2). It was reported not sent (retry) and
    written once the server read again: a retry would have run it twice."""
    go_file = tmp_path / "go"

    async def go() -> list[Any]:
        with anyio.fail_after(GUARD):
            async with VerdictClient.stdio([*STDIO, "pause", str(go_file)], cwd=str(ROOT), mode="legacy", timeout=1,
                                           connect_timeout=20) as client:
                outcomes = [await client.call_tool("t", {"x": "a" * 1_000_000}), await client.call_tool("t", {"x": 2})]
                go_file.touch()
                client.timeout = 20
                outcomes.append(await client.call_tool("t", {"x": 3}))
                return outcomes

    first, second, third = anyio.run(go)
    assert (third.verdict.kind, content(third)) == (Kind.NORMAL_COMPLETE, [{"type": "text", "text": "received [3, 5]"}])
    assert (findings(first), first.request_sent, first.decision.action) == (
        [("transport.timeout", "no response within 1 s")], True, Action.CHECK_STATE)
    assert (findings(second), second.request_sent, second.decision.action) == (
        [("transport.error", "the request was not sent: it waited 1 s behind messages the server has not read")],
        False, Action.RETRY)


# --- stdio: connecting ---------------------------------------------------------------------------

# (command, cause, exit status, the message's end) - by hand: the server's process exited with
# status 3 while connecting; what it left running holds its pipes (a background job of a shell
# gets /dev/null as stdin, POSIX sh; a forked child keeps them all). The cause is its exit (before:
# "no answer within 30 s" after 30 s, or "the server answered initialize with error -32700: the
# server's stdin is closed", the client's own error taken for the server's). An initialize
# answered with something else is named in one line (it was pydantic's multi-line report).
CONNECT: list[tuple[list[str], str, int | None, str]] = [
    (["sh", "-c", "sleep 120 & exit 3"], "exited", 3, "the server exited with status 3 (during initialize)"),
    ([*STDIO, "exit_at_start"], "exited", 3,
     "the server exited with status 3; its stderr ends: crashed at start (during initialize)"),
    ([*STDIO, "bad_initialize"], "protocol", None,
     "the server answered initialize with a result that is no valid InitializeResult (capabilities: Field required; "
     "2 more problems) (during initialize)"),
]


@posix
@pytest.mark.parametrize(("command", "cause", "status", "says"), CONNECT, ids=["sh-background", "fork", "bad-init"])
def test_what_ended_a_stdio_connection_is_its_cause(command: list[str], cause: str, status: int | None,
                                                     says: str) -> None:
    async def go() -> None:
        with anyio.fail_after(GUARD + 30):
            async with VerdictClient.stdio(command, cwd=str(ROOT), mode="legacy", connect_timeout=30):
                pass

    with pytest.raises(CannotConnect) as caught:
        anyio.run(go)
    assert (caught.value.cause, caught.value.exit_code) == (cause, status)
    assert str(caught.value).endswith(says), str(caught.value)


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
