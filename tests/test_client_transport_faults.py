"""VerdictClient against servers that misbehave at the transport, over real stdio processes and
real sockets on 127.0.0.1 (tests/servers/misbehaving.py): floods that pass the wire log's bound,
connections dropped before any response, redirects, endless bodies, connect timeouts, servers
behind wrapper commands. Expected values are stated by hand.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, Kind, Limits
from mcp_verdict.client import CannotConnect, VerdictClient
from mcp_verdict.client._wire import WireLog

from .processes import gone, port_server

ROOT = Path(__file__).resolve().parents[1]
SERVER = [sys.executable, "-m", "tests.servers.misbehaving"]

CALL = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}'
ANSWER = b'{"jsonrpc":"2.0","id":5,"result":{"content":[]}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}'
SERVER_REQUEST = b'{"jsonrpc":"2.0","id":"s1","method":"ping"}'


@contextmanager
def http_server() -> Iterator[str]:
    """The misbehaving HTTP server on 127.0.0.1: its base URL."""
    with port_server([*SERVER, "http"], cwd=ROOT) as base:
        yield base


def call(client: VerdictClient) -> Any:
    async def go() -> Any:
        async with client:
            return await client.call_tool("t"), client
    return anyio.run(go)


# --- 1. the wire log's bound never drops the frames of the call in progress ---------------------

# (name, max_frames, frames before the call, frames of the call after its request,
#  request kept, answer kept, lost, shed) - by hand from the rule: the oldest go first, then
#  the call's notifications and noise beyond nine tenths of the bound; its essential frames
#  pass the bound only when they alone are more than it.
BOUND_CASES: list[tuple[str, int, int, list[bytes], bool, bool, bool, int]] = [
    ("older frames go before the call's", 10, 8, [NOTE] * 3 + [ANSWER], True, True, False, 0),
    ("the call's notifications beyond the bound are shed", 10, 0, [NOTE] * 20 + [ANSWER], True, True, False, 12),
    ("stdio noise beyond the bound is shed", 10, 2, [b"debug"] * 20 + [ANSWER], True, True, False, 12),
    ("essential frames alone past the bound: the request goes, and the log says so",
     10, 0, [SERVER_REQUEST] * 12 + [ANSWER], False, True, True, 0),
]


@pytest.mark.parametrize(("name", "bound", "before", "after", "request_kept", "answer_kept", "lost", "shed"),
                         BOUND_CASES, ids=[c[0] for c in BOUND_CASES])
def test_the_wire_log_keeps_the_call_in_progress(name: str, bound: int, before: int, after: list[bytes],
                                                 request_kept: bool, answer_kept: bool, lost: bool,
                                                 shed: int) -> None:
    log = WireLog(max_frames=bound)
    for number in range(before):
        log.add("in", "message", b'{"jsonrpc":"2.0","id":%d,"result":{}}' % (100 + number))
    mark = log.mark()
    log.hold(mark)
    log.add("out", "message", CALL)
    for data in after:
        log.add("in", "message", data)
    log.hold(None)
    kept = [f.data for f in log.frames]
    assert len(kept) <= bound
    assert (CALL in kept, ANSWER in kept, log.lost_since(mark), log.shed) == (request_kept, answer_kept, lost, shed)


FLOODS = [("stdio", "noise_flood"), ("stdio", "notif_flood"), ("http", "notif_flood")]


@pytest.mark.parametrize(("transport", "mode"), FLOODS)
def test_an_answer_after_a_flood_past_the_bound_is_judged(transport: str, mode: str) -> None:
    with http_server() as base:
        if transport == "stdio":
            client = VerdictClient.stdio([*SERVER, "stdio", mode, "300"], cwd=str(ROOT), timeout=20)
        else:
            client = VerdictClient.http(f"{base}/{mode}/mcp", timeout=20)
        client.wire.max_frames = 100
        outcome, client = call(client)
    assert (outcome.verdict.kind, outcome.decision.action, outcome.request_sent) == \
        (Kind.NORMAL_COMPLETE, Action.ACCEPT, True)
    assert any("notifications and noise lines were not kept" in w for w in client.warnings)


# --- 2-4. HTTP: a connection dropped, a redirect, an endless body -----------------------------

# (mode, options, kind, first finding, action) - by hand: a connection that breaks after the
# request went out is transport.closed (README: "a server that exits or closes the stream"), the
# request was sent so a write is checked, not resent; a 307 is followed to the working endpoint;
# a JSON body past max_bytes is json.too_large of its start, as on stdio (RFC 8259 s9 limits).
HTTP_CASES: list[tuple[str, dict[str, Any], Kind, str | None, Action]] = [
    ("drop", {}, Kind.UNCLASSIFIED, "transport.closed", Action.CHECK_STATE),
    ("badstatus", {}, Kind.UNCLASSIFIED, "transport.closed", Action.CHECK_STATE),
    ("redirect", {}, Kind.NORMAL_COMPLETE, None, Action.ACCEPT),
    ("json_forever", {"limits": Limits(max_bytes=100_000)}, Kind.UNCLASSIFIED, "json.too_large", Action.INVESTIGATE),
]


@pytest.mark.parametrize(("mode", "options", "kind", "code", "action"), HTTP_CASES, ids=[c[0] for c in HTTP_CASES])
def test_http_faults_fail_only_their_request(mode: str, options: dict[str, Any], kind: Kind, code: str | None,
                                             action: Action) -> None:
    with http_server() as base:
        outcome, _ = call(VerdictClient.http(f"{base}/{mode}/mcp", timeout=20, **options))
    findings = [f.code for f in outcome.verdict.findings]
    assert (outcome.verdict.kind, findings[0] if findings else None, outcome.decision.action) == (kind, code, action)
    assert outcome.request_sent


def test_a_connection_dropped_while_connecting_cannot_connect() -> None:
    async def go(url: str) -> None:
        async with VerdictClient.http(url, timeout=20):
            pass

    with http_server() as base, pytest.raises(CannotConnect) as caught:
        anyio.run(go, f"{base}/drop_all/mcp")
    assert (caught.value.cause, caught.value.step) == ("unreachable", "initialize")
    assert "the connection broke: RemoteProtocolError" in str(caught.value)


# --- 5-6. stdio: a connect timeout, a server behind a wrapper ---------------------------------

def test_a_server_that_never_answers_initialize_is_a_timeout_not_an_exit() -> None:
    """It exits on the end of its stdin, as servers should, once the client gives up: its exit
    status 0 is the client's doing, not the cause."""
    async def go() -> None:
        async with VerdictClient.stdio([*SERVER, "stdio", "init_hang"], cwd=str(ROOT), mode="legacy",
                                       connect_timeout=1):
            pass

    with pytest.raises(CannotConnect) as caught:
        anyio.run(go)
    assert (caught.value.cause, caught.value.step, caught.value.exit_code) == ("timeout", "initialize", None)
    assert "no answer within 1 s" in str(caught.value)


# (raw_server flags, mode, cause, step, exit_code, the message's end) - by hand: what the server
# answered is the cause; its exit once the client closed its stdin is not (this was "exited",
# "the server exited with status 0"); lines on stdout that are no message are the likely cause
# of a silence.
CONNECT_CASES: list[tuple[str, str, str, str, int | None, str]] = [
    ("--refuse-initialize", "legacy", "protocol", "initialize", None,
     "the server answered initialize with error -32602: Unsupported protocol version (during initialize)"),
    ("--refuse-initialize", "auto", "protocol", "initialize", None,
     "the server answered initialize with error -32602: Unsupported protocol version (during initialize)"),
    ("--old-version", "legacy", "protocol", "initialize", None,
     "the server answered initialize with protocol version '1999-01-01', which the client does not speak "
     "(it asked for 2025-11-25) (during initialize)"),
    ("--log-first", "legacy", "timeout", "initialize", None,
     "no answer within 1 s; the server wrote 1 line that is not a JSON-RPC message on its stdout (first: "
     "'starting up...'): the likely cause (during initialize)"),
]


@pytest.mark.parametrize(("flag", "mode", "cause", "step", "exit_code", "says"), CONNECT_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CONNECT_CASES])
def test_what_the_server_said_while_connecting_is_the_cause(flag: str, mode: str, cause: str, step: str,
                                                            exit_code: int | None, says: str) -> None:
    async def go() -> None:
        async with VerdictClient.stdio([sys.executable, "-m", "tests.servers.raw_server", flag], cwd=str(ROOT),
                                       mode=mode, connect_timeout=1):
            pass

    with pytest.raises(CannotConnect) as caught:
        anyio.run(go)
    assert (caught.value.cause, caught.value.step, caught.value.exit_code) == (cause, step, exit_code)
    assert str(caught.value).endswith(says), str(caught.value)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_server_behind_a_wrapper_is_ended_with_its_descendants(tmp_path: Path) -> None:
    child = tmp_path / "child.pid"
    wrapper = f"sh -c 'sleep 300 & echo $! > {child}; wait'"  # ignores the end of stdin, like npx or uv run
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", "call", "--mode", "legacy", "--timeout", "1",
                           "--stdio", wrapper, "t"], capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert done.returncode == 3
    assert "no answer within 1 s" in done.stderr
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr
    assert gone(int(child.read_text()))
