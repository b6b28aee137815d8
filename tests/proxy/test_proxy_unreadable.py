"""Host requests no strict parser reads (NaN, ``1e400``, a lone surrogate, invalid UTF-8) with a
visible id: the proxy forwards them unchanged and awaits their answer by that id, so the host
gets the answer, the refusal of it, or the timeout error for every one of them, never silence
(and never a bare 202 over HTTP). The upstream reads as leniently as Python's json."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.proxy import REFUSED, UPSTREAM_TIMEOUT

from ._peers import PROXY, HttpHostPeer, LinePeer, proxy_http

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
BAD = {"NaN": b"NaN", "1e400": b"1e400", "lone surrogate": b'"\\ud800"', "invalid UTF-8": b'"\xff\xfe"'}
ANSWER = "the upstream's answer"


def frame(request_id: int, what: str, value: bytes) -> bytes:
    """A request holding ``value``: ``echo`` and ``hang`` are tools/call, ``read`` resources/read."""
    if what == "read":
        method, params = b"resources/read", b'{"uri":"file:///x","v":' + value + b"}"
    else:
        method, params = b"tools/call", b'{"name":"' + what.encode() + b'","arguments":{"v":' + value + b"}}"
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}' % (request_id, method, params)


def outcome(raw: bytes | None) -> object:
    if raw is None:
        return "silence"
    message = json.loads(raw)
    return ANSWER if "result" in message else message["error"]["code"]


# (mode, an initialize first): what the host gets for echo, hang and read, whatever the value.
# echo's answer has no resultType: valid on the 2025-06-18 session, unclassified on the default
# 2026-07-28 (no version can be read from the request itself)
CASES = [
    ("observe", True, {"echo": ANSWER, "hang": UPSTREAM_TIMEOUT, "read": ANSWER}),
    ("observe", False, {"echo": ANSWER, "hang": UPSTREAM_TIMEOUT, "read": ANSWER}),
    ("enforce", True, {"echo": ANSWER, "hang": UPSTREAM_TIMEOUT, "read": ANSWER}),
    ("enforce", False, {"echo": REFUSED, "hang": UPSTREAM_TIMEOUT, "read": ANSWER}),
]


@pytest.mark.parametrize(("mode", "session", "expected"), CASES,
                         ids=[f"{m}-{'session' if s else 'no-session'}" for m, s, _ in CASES])
def test_a_stdio_host_gets_an_answer_for_every_unreadable_request(mode: str, session: bool,
                                                                 expected: dict[str, object], tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    peer = LinePeer([*PROXY, "--mode", mode, "--timeout", "1", "--log", str(log), "--log-payloads", "--", *SERVER])
    try:
        if session:
            assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
            peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        sent: dict[int, tuple[str, str]] = {}
        for n, (name, value) in enumerate(BAD.items()):
            for base, what in ((10, "echo"), (20, "hang"), (30, "read")):
                sent[base + n] = (what, name)
                peer.send_raw(frame(base + n, what, value) + b"\n")
        got: dict[int, object] = {}
        for raw in peer.lines_within(8):
            got[json.loads(raw)["id"]] = outcome(raw)
            if len(got) >= len(sent):
                break
    finally:
        peer.close()
    assert {rid: (what, name, got.get(rid, "silence")) for rid, (what, name) in sent.items()} == \
        {rid: (what, name, expected[what]) for rid, (what, name) in sent.items()}
    notes = [record.get("note", "") for record in map(json.loads, log.read_bytes().splitlines())
             if record.get("dir") == "c2s" and record["kind"] == "message"]
    assert sum(note.startswith("the proxy could not read it") for note in notes) == len(sent)


@pytest.mark.parametrize(("mode", "expected"), [
    ("observe", {"echo": ANSWER, "hang": UPSTREAM_TIMEOUT, "read": ANSWER}),
    ("enforce", {"echo": REFUSED, "hang": UPSTREAM_TIMEOUT, "read": ANSWER}),
])
def test_an_http_host_gets_an_answer_for_every_unreadable_request(mode: str, expected: dict[str, Any]) -> None:
    with proxy_http(["--mode", mode, "--timeout", "1", "--", *SERVER]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            got = {}
            for n, (name, value) in enumerate(BAD.items()):
                for base, what in ((10, "echo"), (30, "read")) + (((20, "hang"),) if n == 0 else ()):
                    status, raw, _ = peer.post(frame(base + n, what, value))
                    got[(what, name)] = (status, outcome(raw))
        finally:
            peer.close()
    assert got == {key: (200, expected[key[0]]) for key in got}
