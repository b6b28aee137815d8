"""The HTTP upstream side against a hand-written server (``styled_server.py``) whose answers
take the shapes real deployments give them: compressed, pretty-printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ._peers import PROXY, HttpHostPeer, LinePeer, proxy_http, styled_http

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {}}}


def _seen(url: str) -> set[tuple[str, Any]]:
    return {(method, encoding) for method, encoding in httpx2.get(url.replace("/mcp", "/seen")).json()}


def _text(raw: bytes | None) -> Any:
    assert raw is not None
    return json.loads(raw)["result"]["content"][0]["text"]


@pytest.mark.parametrize(("side", "mode", "expected"), [
    ("stdio", "observe", {("POST", "identity"), ("GET", "identity"), ("DELETE", "identity")}),
    ("stdio", "enforce", {("POST", "identity"), ("GET", "identity"), ("DELETE", "identity")}),
    ("http", "observe", {("POST", "identity"), ("GET", "identity"), ("DELETE", "identity")}),
    ("http", "enforce", {("POST", "identity"), ("GET", "identity"), ("DELETE", "identity")}),
])
def test_every_upstream_request_asks_for_the_identity_encoding(side: str, mode: str,
                                                               expected: set[tuple[str, Any]]) -> None:
    """An upstream that compresses whatever the client accepts (the proxy reads bodies as they
    come: a gzip body would be taken as the message)."""
    with styled_http("gzip") as url:
        if side == "stdio":
            peer = LinePeer([*PROXY, "--mode", mode, "--upstream", url])
            assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
            peer.send(INITIALIZED)
            assert _text(peer.exchange(CALL)) == "ok\nline two"
            assert peer.close() == 0
        else:
            with proxy_http(["--mode", mode, "--upstream", url]) as (proxy_url, _):
                host = HttpHostPeer(proxy_url)  # httpx2 itself sends Accept-Encoding: gzip, deflate
                try:
                    assert json.loads(host.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
                    assert host.post(INITIALIZED)[0] == 202
                    assert _text(host.exchange(CALL)) == "ok\nline two"
                    assert host.client.get(proxy_url, headers={"Accept": "text/event-stream",
                                                               "Mcp-Session-Id": host.session or ""}).status_code == 405
                    assert host.client.delete(proxy_url, headers={"Mcp-Session-Id": host.session or ""}
                                              ).status_code == 200
                finally:
                    host.close()
        assert _seen(url) == expected


PRETTY_CALL = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {
    "content": [{"type": "text", "text": "ok\nline two"}], "isError": False}}, indent=2).encode()


@pytest.mark.parametrize(("mode", "line", "logged"), [
    ("observe", PRETTY_CALL.replace(b"\n", b" "), PRETTY_CALL),
    ("enforce", PRETTY_CALL.replace(b"\n", b" "), PRETTY_CALL),
])
def test_a_pretty_printed_body_reaches_a_stdio_host_as_one_line(tmp_path: Path, mode: str, line: bytes,
                                                                logged: bytes) -> None:
    """A body with line breaks between its tokens (valid JSON) is one frame: a stdio host gets it
    as one line, the breaks made spaces; the frame log keeps the upstream's bytes and says so."""
    with styled_http("pretty") as url:
        peer = LinePeer([*PROXY, "--mode", mode, "--log", str(tmp_path / "f.jsonl"), "--log-payloads",
                         "--upstream", url])
        assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
        peer.send(INITIALIZED)
        assert peer.exchange(CALL) == line
        assert peer.close() == 0
    records = [json.loads(text) for text in (tmp_path / "f.jsonl").read_text().splitlines()]
    answer = [r for r in records if r["dir"] == "s2c" and r["kind"] == "message" and '"id": 2' in r["data"]]
    assert [(r["data"].encode(), r.get("note")) for r in answer] == [
        (logged, "written to the host as one line: each CR and LF between tokens a space, one inside a string "
                 "(a frame no strict parser reads) a vertical tab")]
