"""JSON-RPC batches through the real proxy (a stdio host, the stdio batch server of
tests/servers/batch_server.py as its upstream).

MCP 2025-03-26 has JSON-RPC batches (basic/index#batching: implementations MUST support
receiving them; basic/transports: a stdio message may be a batch); 2024-11-05 never had them and
2025-06-18 removed them (its changelog). Under a 2025-03-26 session the proxy follows a batch
message by message: observe forwards the server's batch byte for byte and writes a verdict line per
call; enforce keeps every element byte for byte, in order, but an unclassified answer, which becomes
the proxy's REFUSED error (proxy/_codes.py). Under another version a batch answers nothing, as
before, and the frame log's refusal names the version."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mcp_verdict.proxy import REFUSED

from ._peers import PROXY, LinePeer

SERVER = [sys.executable, str(Path(__file__).parents[1] / "servers" / "batch_server.py")]


def init(version: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def call(request_id: int, name: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": {}}}


BATCH = json.dumps([call(1, "echo"), {"jsonrpc": "2.0", "method": "notifications/progress",
                                      "params": {"progressToken": 1, "progress": 1}},
                    call(2, "dup"), call(3, "fail")]).encode()
# The server's answers, byte for byte (tests/servers/batch_server.py writes them so)
ECHO = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}'
DUP = b'{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true,"isError":false}}'
FAIL = b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"it failed"}],"isError":true}}'
SERVER_BATCH = b"[ " + ECHO + b" , " + DUP + b" , " + FAIL + b" ]"

# (mode, the session's version, what the host gets: "as sent" (the server's batch byte for byte),
#  "rewritten" (ECHO, the REFUSED error for id 2, FAIL), or None (nothing)), the verdict lines (id, kind)
CASES = [
    ("observe", "2025-03-26", "as sent", [(1, "normal_complete"), (2, "unclassified"), (3, "tool_error")]),
    ("enforce", "2025-03-26", "rewritten", [(1, "normal_complete"), (2, "unclassified"), (3, "tool_error")]),
    ("observe", "2025-06-18", "as sent", []),  # not followed: forwarded as one frame that answers nothing
    ("enforce", "2025-06-18", None, []),  # refused: an answer to no request waiting
    ("enforce", "2024-11-05", None, []),
]


@pytest.mark.parametrize(("mode", "version", "gets", "verdicts"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_batch_is_judged_call_by_call_under_2025_03_26(mode: str, version: str, gets: str | None,
                                                        verdicts: list[tuple[int, str]], tmp_path: Path) -> None:
    log, lines = tmp_path / "frames.jsonl", tmp_path / "verdicts.jsonl"
    peer = LinePeer([*PROXY, "--mode", mode, "--timeout", "5", "--log", str(log), "--log-payloads",
                     "--verdicts", str(lines), "--", *SERVER])
    try:
        assert f'"{version}"'.encode() in (peer.exchange(init(version)) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        peer.send_raw(BATCH + b"\n")
        if gets is not None:
            got = peer.recv()
        # a request after the batch: its answer comes after whatever the batch made
        assert b'"id":9' in (peer.exchange(call(9, "echo")) or b"")
    finally:
        peer.close()
    if gets is not None:
        _gets(gets, got)
    judged = [(v["id"], v["kind"]) for v in map(json.loads, lines.read_bytes().splitlines()) if v["id"] != 9]
    assert judged == verdicts
    records = [json.loads(r) for r in log.read_bytes().splitlines()]
    batches = [r for r in records if r.get("data", "").startswith("[")]
    if version == "2025-03-26":  # one record each way, the batch as it crossed
        assert [(r["dir"], r["kind"]) for r in batches] == [("c2s", "message"), ("s2c", "message")]
    elif mode == "enforce":
        (refused_record,) = [r for r in batches if r["kind"] == "refused"]
        assert f"a batch is not part of MCP {version}" in refused_record["note"]


# Streamable HTTP (2025-03-26 basic/transports, Sending Messages to the Server): a POST body may be a batch
# of requests and notifications; holding requests, it is answered with an SSE stream or one JSON body. The
# proxy's answer is the upstream's batch of answers (one JSON body); a batch of notifications only gets 202.
# Under 2025-06-18 a batch is no message: 400 and INVALID_REQUEST (-32600), as before.
HTTP_CASES = [
    ("observe", "2025-03-26", BATCH, 200, "as sent"),
    ("enforce", "2025-03-26", BATCH, 200, "rewritten"),
    ("observe", "2025-03-26", b"[" + json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                                 "params": {"progressToken": 1, "progress": 1}}).encode() + b"]",
     202, None),
    ("observe", "2025-06-18", BATCH, 400, -32600),
    ("enforce", "2025-06-18", BATCH, 400, -32600),
]


@pytest.mark.parametrize(("mode", "version", "body", "status", "gets"), HTTP_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in HTTP_CASES])
def test_an_http_host_may_post_a_batch_under_2025_03_26(mode: str, version: str, body: bytes, status: int,
                                                        gets: object) -> None:
    from ._peers import HttpHostPeer, proxy_http

    with proxy_http(["--mode", mode, "--timeout", "5", "--", *SERVER]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert f'"{version}"'.encode() in (peer.exchange(init(version)) or b"")
            assert peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})[0] == 202
            got_status, got, _ = peer.post(body)
        finally:
            peer.close()
    assert got_status == status
    _gets(gets, got)


def _gets(gets: object, got: bytes | None) -> None:
    """What the host got is what the case says: the server's batch "as sent", the batch "rewritten"
    (its unclassified answer, id 2, the proxy's REFUSED error), nothing (None), or an error code."""
    if gets == "as sent":
        assert got == SERVER_BATCH
    elif gets == "rewritten":
        assert got is not None
        elements = [bytes(e) for e in msgspec.json.decode(got, type=list[msgspec.Raw])]
        assert elements[0] == ECHO and elements[2] == FAIL and len(elements) == 3
        assert (json.loads(elements[1])["id"], json.loads(elements[1])["error"]["code"]) == (2, REFUSED)
    elif gets is None:
        assert got is None
    else:
        assert got is not None and json.loads(got)["error"]["code"] == gets


NOT_IN = ("not forwarded: the body is JSON but no JSON-RPC message object (one message per POST; a batch is not "
          "part of MCP {} (JSON-RPC batches are 2025-03-26's only: 2024-11-05 has none, 2025-06-18 removed them))")
# An HTTP host's body that is no JSON-RPC message object: its refused record says why, a batch's naming the
# version in force on the session (before: "not MCP since 2025-06-18" whatever the version), as the frame log
# says of a batch a stdio host sends (frames/_track.py, Tracker.batch)
NO_MESSAGE_CASES = [
    ("2025-06-18", BATCH, NOT_IN.format("2025-06-18")),
    ("2024-11-05", BATCH, NOT_IN.format("2024-11-05")),
    ("2025-03-26", b"[]", "not forwarded: the body is JSON but no JSON-RPC message object (one message per POST; "
                          "an empty batch is an invalid request (JSON-RPC 2.0 section 6))"),
    ("2025-03-26", b'"x"', "not forwarded: the body is JSON but no JSON-RPC message object (one message per POST)"),
]


@pytest.mark.parametrize(("version", "body", "note"), NO_MESSAGE_CASES, ids=[f"{c[0]}-{c[1][:2]!r}" for c in
                                                                            NO_MESSAGE_CASES])
def test_a_body_that_is_no_message_is_refused_with_the_version_in_force(version: str, body: bytes, note: str,
                                                                        tmp_path: Path) -> None:
    from ._peers import HttpHostPeer, proxy_http

    log = tmp_path / "frames.jsonl"
    with proxy_http(["--timeout", "5", "--log", str(log), "--log-payloads", "--", *SERVER]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert f'"{version}"'.encode() in (peer.exchange(init(version)) or b"")
            status, got, _ = peer.post(body)
        finally:
            peer.close()
    assert (status, json.loads(got or b"null")["error"]["code"]) == (400, -32600)
    records = [json.loads(r) for r in log.read_bytes().splitlines()]
    assert [r["note"] for r in records if r["kind"] == "refused"] == [note]


LATE = "a late answer: the proxy no longer awaited it (its host cancelled it)"
ECHO_2 = ECHO.replace(b'"id":1', b'"id":2')
LATE_BATCH = b"[ " + ECHO + b" , " + ECHO_2 + b" ]"
# The host cancels call 1 of its batch (MCP 2025-03-26 basic/utilities/cancellation: the sender ignores a
# response that comes after); batch_server.py's "held" answers the batch only then, in one batch, so the answer
# to 1 comes late. Observe forwards the batch as it came: the answer to 1 with it, which the frame log must say
# (before: a refused record, though the host was sent it); enforce leaves it out and refuses it.
# (mode, what the host gets, the refused records' notes, the note of the batch's s2c record, the verdict lines)
LATE_CASES = [
    ("observe", LATE_BATCH, [], f"element 1 of 2 forwarded with the batch (observe): {LATE}", [(2, "normal_complete")]),
    ("enforce", b"[" + ECHO_2 + b"]", [LATE], "the upstream's batch as the proxy rewrote it (enforce)",
     [(2, "normal_complete")]),
]


def cancel_the_first_of_a_batch(peer: LinePeer) -> bytes | None:
    """A 2025-03-26 session through ``peer``'s proxy: the batch ``held`` (id 1) and ``echo``
    (id 2), then the host's cancellation of 1; what the host got next (the peer closed)."""
    try:
        assert b'"2025-03-26"' in (peer.exchange(init("2025-03-26")) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        peer.send_raw(json.dumps([call(1, "held"), call(2, "echo")]).encode() + b"\n")
        peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        return peer.recv()
    finally:
        peer.close()


@pytest.mark.parametrize(("mode", "gets", "refused", "note", "verdicts"), LATE_CASES, ids=[c[0] for c in LATE_CASES])
def test_a_late_answer_in_a_batch_is_recorded_as_what_became_of_it(mode: str, gets: bytes, refused: list[str],
                                                                   note: str, verdicts: list[tuple[int, str]],
                                                                   tmp_path: Path) -> None:
    log, lines = tmp_path / "frames.jsonl", tmp_path / "verdicts.jsonl"
    got = cancel_the_first_of_a_batch(LinePeer([*PROXY, "--mode", mode, "--timeout", "10", "--log", str(log),
                                                 "--log-payloads", "--verdicts", str(lines), "--", *SERVER]))
    records = [json.loads(r) for r in log.read_bytes().splitlines()]
    batches = [r for r in records if r["dir"] == "s2c" and r.get("data", "").startswith("[")]
    judged = [(v["id"], v["kind"]) for v in map(json.loads, lines.read_bytes().splitlines())]
    assert (got, [r["note"] for r in records if r["kind"] == "refused"], [r.get("note") for r in batches],
            judged) == (gets, refused, [note], verdicts)
