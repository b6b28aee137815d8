"""A stdio host's 2025 session through the proxy to an HTTP upstream that ends it: the proxy, the
upstream's only client, starts a new session and sends the refused request again in it.

2025-11-25 basic/transports, Session Management: 3. the server MAY terminate the session at any
time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found;
4. when a client receives HTTP 404 in response to a request containing an ``MCP-Session-Id``, it
MUST start a new session by sending a new ``InitializeRequest`` without a session ID attached.
An HTTP host gets the 404 and starts its new session itself (tests/proxy/test_proxy_sessions.py);
a stdio host has no session of its own to start — the proxy does, with the host's own
``initialize`` (its bytes, under an id of the proxy's) and ``notifications/initialized``, and
gives the host the answer of the request the ended session refused, or, when no new session
could be started in the host's protocol version, UPSTREAM_UNAVAILABLE (README "The proxy",
Faults). Real proxy processes; a hand-written upstream whose sessions end after a number of
calls (``expiring_http_server.py``) and the official SDK's server restarted on its port."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.processes import free_port, stop, wait_listening

from ._peers import PROXY, TIMEOUT, LinePeer, _wait_for, wait_until
from ._restarting import frame_records

SERVER = [sys.executable, str(Path(__file__).with_name("expiring_http_server.py"))]
ROOT = Path(__file__).resolve().parents[2]
SDK_SERVER = [sys.executable, "-m", "tests.servers.sdk_server"]  # the official Python SDK, stateful
INITIALIZE = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
UNAVAILABLE = -31004  # README "The proxy", the proxy's codes: UPSTREAM_UNAVAILABLE


@contextlib.contextmanager
def _expiring(behaviour: str) -> Any:
    process = subprocess.Popen([*SERVER, behaviour], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        yield _wait_for(rb"listening on (http://\S+)", process.stdout).decode()
    finally:
        process.terminate()
        process.wait(10)


def _call(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "x", "arguments": {}}}


def _outcome(raw: bytes | None) -> str:
    """What the host read: the text of a result, or ``error <code>`` (the message: below)."""
    assert raw is not None, "no answer"
    message = json.loads(raw)
    if "result" in message:
        return str(message["result"]["content"][0]["text"])
    return f"error {message['error']['code']}"


def _answers(peer: LinePeer, request_id: int) -> str:
    """The outcome of the host's answer to ``request_id`` (the server's notifications skipped)."""
    return _outcome(_answers_raw(peer, request_id))


FAILED_AFTER_TWO = ["s-1 call 1", "s-1 call 2", *[f"error {UNAVAILABLE}"] * 3]
"""Two calls answered in the first session, each of the three after it refused: no new session."""
TRIED_THREE = [["init", None], *[[f"mcp-verdict-session-{n}", None] for n in (1, 2, 3)]]
"""The host's initialize, then one of the proxy's per refused call (each tries again)."""


# (behaviour: calls per session; the outcome of each of five calls in turn; the initialize requests
# the upstream got, as (id, session header): the host's, then the proxy's own)
@pytest.mark.parametrize(("behaviour", "outcomes", "initializes"), [
    ("expire:2", ["s-1 call 1", "s-1 call 2", "s-2 call 1", "s-2 call 2", "s-3 call 1"],
     [["init", None], ["mcp-verdict-session-1", None], ["mcp-verdict-session-2", None]]),
    ("expire-version:2", FAILED_AFTER_TWO, TRIED_THREE),
    ("expire-refuse:2", FAILED_AFTER_TWO, TRIED_THREE),
], ids=["renewed", "other-version", "refused"])
def test_a_session_the_upstream_ends_is_started_again_for_a_stdio_host(
        tmp_path: Path, behaviour: str, outcomes: list[str], initializes: list[list[Any]]) -> None:
    log = tmp_path / "f.jsonl"
    with _expiring(behaviour) as url:
        peer = LinePeer([*PROXY, "--log", str(log), "--upstream", url])
        try:
            peer.send(INITIALIZE)
            assert json.loads(_answers_raw(peer, "init"))["result"]["protocolVersion"] == "2025-06-18"
            peer.send(INITIALIZED)
            got = []
            for request_id in range(1, 6):
                peer.send(_call(request_id))
                got.append(_answers(peer, request_id))
            seen = httpx2.get(url.replace("/mcp", "/seen"), timeout=TIMEOUT).json()
        finally:
            peer.close()
    assert got == outcomes
    assert _initializes(seen) == initializes


def _initializes(seen: list[list[Any]]) -> list[list[Any]]:
    """The initialize requests the upstream got (its /seen), as (id, session header)."""
    return [[request_id, session] for method, jsonrpc, request_id, session in seen
            if method == "POST" and jsonrpc == "initialize"]


def _answers_raw(peer: LinePeer, request_id: int | str) -> bytes:
    """The host's answer to ``request_id`` (the server's notifications skipped)."""
    while True:
        raw = peer.recv()
        assert raw is not None, f"no answer to {request_id}"
        if json.loads(raw).get("id") == request_id:
            return raw


OTHER_VERSION = "its initialize was answered with protocolVersion '2025-03-26' where the host's session has 2025-06-18"
REFUSED = "its initialize was answered HTTP 503 without an answer to it"
INITIALIZED_REFUSED = "its notifications/initialized was answered HTTP 400"
"""The reasons a failed renewal gives (the message after "could not be started: "), by the upstream's behaviour."""


# the reason each failed renewal gives the host (the message after "could not be started: "); the
# sessions the upstream got a DELETE for by the time the host's call was answered: a session the
# proxy started and does not use is ended (2025-11-25 Session Management 5), not left open
@pytest.mark.parametrize(("behaviour", "reason", "deleted"), [
    ("expire-version:1", OTHER_VERSION, ["s-2"]),
    ("expire-refuse:1", REFUSED, []),
    ("expire-initialized:1", INITIALIZED_REFUSED, ["s-2"]),
], ids=["other-version", "refused", "initialized-refused"])
def test_why_a_new_session_could_not_be_started_reaches_the_host_and_the_frame_log(
        tmp_path: Path, behaviour: str, reason: str, deleted: list[str]) -> None:
    log = tmp_path / "f.jsonl"
    with _expiring(behaviour) as url:
        peer = LinePeer([*PROXY, "--log", str(log), "--upstream", url])
        try:
            peer.send(INITIALIZE)
            _answers_raw(peer, "init")
            peer.send(INITIALIZED)
            peer.send(_call(1))
            assert _answers(peer, 1) == "s-1 call 1"
            peer.send(_call(2))
            answer = json.loads(_answers_raw(peer, 2))
            seen = httpx2.get(url.replace("/mcp", "/seen"), timeout=TIMEOUT).json()
        finally:
            peer.close()
    assert [session for method, _, _, session in seen if method == "DELETE"] == deleted
    expected = ('mcp-verdict proxy: the upstream ended the session (HTTP 404: {"jsonrpc": "2.0", "id": null, '
                '"error": {"code": -32600, "message": "Session not found"}}) and a new one could not be started: '
                + reason)
    assert answer["error"]["code"] == UNAVAILABLE
    assert answer["error"]["message"] == expected
    notes = [(r["kind"], r["dir"], r.get("transport"), r.get("note")) for r in frame_records(log)
             if r["kind"] == "error" and "could not be started" in r.get("note", "")]
    assert notes == [("error", "s2c", "http", expected.removeprefix("mcp-verdict proxy: "))]


def test_the_proxys_get_stream_follows_the_new_session(tmp_path: Path) -> None:
    """The server's own messages keep coming once a session ended: the GET stream that served the
    ended session gets 404, and is opened again in the new session (one started for it)."""
    log = tmp_path / "f.jsonl"
    with _expiring("expire:1") as url:
        peer = LinePeer([*PROXY, "--log", str(log), "--upstream", url])
        try:
            peer.send(INITIALIZE)
            _answers_raw(peer, "init")
            peer.send(INITIALIZED)
            hellos: list[str] = []
            answers: dict[int, str] = {}

            def read_until(count: int, answered: int) -> None:
                while len(hellos) < count or answered not in answers:
                    raw = peer.recv()
                    assert raw is not None, (hellos, answers)
                    message = json.loads(raw)
                    if message.get("method") == "notifications/message":
                        hellos.append(message["params"]["data"])
                    else:
                        answers[message["id"]] = _outcome(raw)

            peer.send(_call(1))
            read_until(1, 1)
            peer.send(_call(2))  # s-1 has answered its one call: it ends; s-2 serves this one
            read_until(2, 2)
        finally:
            peer.close()
    assert answers == {1: "s-1 call 1", 2: "s-2 call 1"}
    assert hellos == ["hello from s-1", "hello from s-2"]


def test_the_official_sdk_server_restarted_on_its_port_serves_the_stdio_hosts_next_call(tmp_path: Path) -> None:
    """A deploy restarts the server: every session it held is gone (its next answer is 404); the
    stdio host's next call is answered as if nothing happened."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    call = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
    got = []
    with contextlib.ExitStack() as stack:
        server = _sdk_server(port)
        stack.callback(lambda: stop(server))
        peer = LinePeer([*PROXY, "--log", str(tmp_path / "f.jsonl"), "--upstream", url])
        stack.callback(peer.close)
        peer.send(INITIALIZE)
        _answers_raw(peer, "init")
        peer.send(INITIALIZED)
        for request_id in (1, 2):
            if request_id == 2:  # the server restarted on its port
                stop(server)
                server = _sdk_server(port)
            peer.send({**call, "id": request_id})
            answer = json.loads(_answers_raw(peer, request_id))
            got.append(answer.get("result", {}).get("structuredContent") or answer.get("error"))
    assert got == [{"total": 5}, {"total": 5}]


def _sdk_server(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([*SDK_SERVER, "http", str(port)], cwd=ROOT, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, process, "the SDK server", 20)
    return process


# (the calls the host sends, turn by turn: those of a turn at once, each turn after the answers of
# the one before; the outcome of each call; the initialize requests the upstream got)
@pytest.mark.parametrize(("turns", "outcomes", "initializes"), [
    ([[1], [2, 3], [4]],
     {1: "s-1 call 1", 2: f"error {UNAVAILABLE}", 3: f"error {UNAVAILABLE}", 4: f"error {UNAVAILABLE}"},
     # calls 2 and 3 met the same 404 (both sent before it): one renewal for both; call 4 was sent
     # after it failed: a renewal of its own (was: one more for call 3, [..., "mcp-verdict-session-3"])
     [["init", None], ["mcp-verdict-session-1", None], ["mcp-verdict-session-2", None]]),
], ids=["two at once, then one"])
def test_the_requests_that_met_one_end_take_one_renewals_outcome(
        tmp_path: Path, turns: list[list[int]], outcomes: dict[int, str], initializes: list[list[Any]]) -> None:
    """One renewal at a time (README "The proxy", Faults): a request sent before a renewal that
    meets the same 404 takes the renewal's outcome, not one of its own; a request sent after a
    renewal failed tries again. The upstream answers the first two requests past the end
    together, so both were sent before either 404 (``expiring_http_server.py``,
    ``expire-refuse-gather``)."""
    got: dict[int, str] = {}
    with _expiring("expire-refuse-gather:1") as url:
        peer = LinePeer([*PROXY, "--log", str(tmp_path / "f.jsonl"), "--upstream", url])
        try:
            peer.send(INITIALIZE)
            _answers_raw(peer, "init")
            peer.send(INITIALIZED)
            for turn in turns:
                for request_id in turn:
                    peer.send(_call(request_id))
                while not set(turn) <= got.keys():
                    raw = peer.recv()
                    assert raw is not None, got
                    message = json.loads(raw)
                    if "id" in message:
                        got[message["id"]] = _outcome(raw)
            seen = httpx2.get(url.replace("/mcp", "/seen"), timeout=TIMEOUT).json()
        finally:
            peer.close()
    assert got == outcomes
    assert _initializes(seen) == initializes


GET_404 = "the proxy's GET stream: the upstream answered HTTP 404 (the session ended)"
"""How the proxy's own GET stream meeting the end of the session it served begins its record."""
GET_TAKES_FAILURE = ("; not reopened: the renewal for this end failed (its record above); the next request's "
                     "renewal, when it starts a session, reopens it there")
"""What follows it when the end's renewal failed already: the stream takes that outcome."""
LATE_TRIED = [["init", None], ["mcp-verdict-session-1", None], ["mcp-verdict-session-2", None]]
"""The host's initialize, then one renewal per host request that met the end (calls 2 and 3): none
of the GET stream's."""


def _to_the_end_both_meet(peer: LinePeer, log: Path) -> Any:
    """A session through call 1, then call 2, which meets the session's end: its answer, once the
    proxy's GET stream (open in s-1, which greets it) has met the end's 404 too."""
    peer.send(INITIALIZE)
    _answers_raw(peer, "init")
    peer.send(INITIALIZED)
    hello = json.loads(peer.recv() or b"null")  # the GET stream is open in s-1: it serves it
    assert hello["params"]["data"] == "hello from s-1"
    peer.send(_call(1))
    assert _answers(peer, 1) == "s-1 call 1"
    peer.send(_call(2))
    second = json.loads(_answers_raw(peer, 2))
    assert wait_until(lambda: any(r.get("note", "").startswith(GET_404) for r in frame_records(log)),
                      TIMEOUT), "the GET stream never met the end"
    return second


# (behaviour; the reason each failed renewal gives; the sessions the upstream got a DELETE for)
@pytest.mark.parametrize(("behaviour", "reason", "deleted"), [
    ("expire-version:1:late-get", OTHER_VERSION, ["s-2", "s-3"]),
    ("expire-refuse:1:late-get", REFUSED, []),
    ("expire-initialized:1:late-get", INITIALIZED_REFUSED, ["s-2", "s-3"]),
], ids=["other-version", "refused", "initialized-refused"])
def test_the_get_stream_meeting_an_end_whose_renewal_failed_starts_no_renewal_of_its_own(
        tmp_path: Path, behaviour: str, reason: str, deleted: list[str]) -> None:
    """One session end, one renewal (README "The proxy", Faults): the host's call 2 meets the end
    and its renewal fails; the proxy's GET stream, which served the ended session, is cut only once
    that renewal began (``late-get``), so its reopening meets the same end's 404 after it — the
    GET stream takes that renewal's outcome and stays closed, starting no second one (was: an
    initialize of its own, a second ``could not be started`` record without the 404's body, and,
    where the new session was started and refused, a second DELETE). Call 3, sent after, tries
    again as any later request does (2025-11-25 Session Management 4)."""
    log = tmp_path / "f.jsonl"
    with _expiring(behaviour) as url:
        peer = LinePeer([*PROXY, "--log", str(log), "--upstream", url])
        try:
            second = _to_the_end_both_meet(peer, log)
            peer.send(_call(3))
            third = json.loads(_answers_raw(peer, 3))
            seen = httpx2.get(url.replace("/mcp", "/seen"), timeout=TIMEOUT).json()
        finally:
            peer.close()
    expected = ('mcp-verdict proxy: the upstream ended the session (HTTP 404: {"jsonrpc": "2.0", "id": null, '
                '"error": {"code": -32600, "message": "Session not found"}}) and a new one could not be started: '
                + reason)
    assert [(answer["error"]["code"], answer["error"]["message"]) for answer in (second, third)] == \
        [(UNAVAILABLE, expected)] * 2
    assert _initializes(seen) == LATE_TRIED
    assert [session for method, _, _, session in seen if method == "DELETE"] == deleted
    notes = [(r["kind"], r["dir"], r.get("transport"), r.get("note")) for r in frame_records(log)
             if r["kind"] == "error" and "could not be started" in r.get("note", "")]
    assert notes == [("error", "s2c", "http", expected.removeprefix("mcp-verdict proxy: "))] * 2
    ends = [(r["kind"], r.get("transport"), r["note"], r["http"]["session"]) for r in frame_records(log)
            if r.get("note", "").startswith(GET_404)]
    assert ends == [("error", "http", GET_404 + GET_TAKES_FAILURE, "s-1")]


# (behaviour; the reason the one renewal's failure gives; the sessions the upstream got a DELETE for)
@pytest.mark.parametrize(("behaviour", "reason", "deleted"), [
    ("expire-version:1:together", OTHER_VERSION, ["s-2"]),
    ("expire-refuse:1:together", REFUSED, []),
    ("expire-initialized:1:together", INITIALIZED_REFUSED, ["s-2"]),
], ids=["other-version", "refused", "initialized-refused"])
def test_an_end_the_request_and_the_get_stream_meet_at_once_has_one_renewal(
        tmp_path: Path, behaviour: str, reason: str, deleted: list[str]) -> None:
    """Both paths meet the end at once (``together``: the upstream answers call 2's 404 and the GET
    stream's 404 together): one renewal, whichever path starts it, its failure given to the host
    once and recorded once, with the upstream's 404 body either way (the GET stream reads its 404's
    body as a request does), and a session started and not used ended by one DELETE."""
    log = tmp_path / "f.jsonl"
    with _expiring(behaviour) as url:
        peer = LinePeer([*PROXY, "--log", str(log), "--upstream", url])
        try:
            second = _to_the_end_both_meet(peer, log)
            seen = httpx2.get(url.replace("/mcp", "/seen"), timeout=TIMEOUT).json()
        finally:
            peer.close()
    expected = ('mcp-verdict proxy: the upstream ended the session (HTTP 404: {"jsonrpc": "2.0", "id": null, '
                '"error": {"code": -32600, "message": "Session not found"}}) and a new one could not be started: '
                + reason)
    assert (second["error"]["code"], second["error"]["message"]) == (UNAVAILABLE, expected)
    assert _initializes(seen) == [["init", None], ["mcp-verdict-session-1", None]]
    assert [session for method, _, _, session in seen if method == "DELETE"] == deleted
    notes = [(r["kind"], r["dir"], r.get("transport"), r.get("note")) for r in frame_records(log)
             if r["kind"] == "error" and "could not be started" in r.get("note", "")]
    assert notes == [("error", "s2c", "http", expected.removeprefix("mcp-verdict proxy: "))]
    # the GET stream's one record of the end: before the renewal it started, or after the one it took
    ends = [r["note"] for r in frame_records(log) if r.get("note", "").startswith(GET_404)]
    assert len(ends) == 1 and ends[0] in (GET_404, GET_404 + GET_TAKES_FAILURE), ends
