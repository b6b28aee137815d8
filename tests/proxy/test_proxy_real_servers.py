"""Real servers through the proxy in ``observe``: the host gets exactly the bytes a direct
connection gets — server-everything (npm, 2025-11-25 over stdio, and behind the proxy's HTTP
side) and an official-SDK server (mcp 2.x, 2026-07-28 over stdio)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ..interop.conftest import EVERYTHING, NODE, need
from ._peers import PROXY, HttpHostPeer, LinePeer, proxy_http

ROOT = Path(__file__).resolve().parents[2]
SDK_SERVER = [sys.executable, "-m", "tests.servers.sdk_server"]
V25 = "2025-11-25"
V26 = "2026-07-28"


def everything_script() -> list[dict[str, Any]]:
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": V25, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hé"}}},
        {"jsonrpc": "2.0", "id": "four", "method": "tools/call", "params": {"name": "get-sum",
                                                                           "arguments": {"a": 2, "b": 3}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "no-such-tool", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 6, "method": "ping"},
    ]


def sdk_script() -> list[dict[str, Any]]:
    meta = {"io.modelcontextprotocol/protocolVersion": V26,
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3},
                                                                       "_meta": meta}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "explode", "arguments": {},
                                                                       "_meta": meta}},
    ]


def answers(peer: LinePeer, script: list[dict[str, Any]]) -> list[bytes]:
    """The answer to every request of the script, as bytes, in order (notifications aside)."""
    out = []
    for message in script:
        peer.send(message)
        if "id" not in message:
            continue
        while True:
            line = peer.recv()
            assert line is not None, f"no answer to {message}"
            if b'"method"' not in line or json.loads(line).get("id") == message["id"]:
                out.append(line)
                break
    return out


@pytest.mark.parametrize(("name", "command", "script"), [
    ("server-everything", None, everything_script),
    ("sdk-server", SDK_SERVER, sdk_script),
])
def test_observe_forwards_real_servers_byte_for_byte(name: str, command: list[str] | None, script: Any) -> None:
    if command is None:
        command = [str(need(NODE, "npm's node@22")), str(need(EVERYTHING, "server-everything")), "stdio"]
    direct = LinePeer(command)
    expected = answers(direct, script())
    direct.close()
    proxied = LinePeer([*PROXY, "--mode", "observe", "--", *command])
    got = answers(proxied, script())
    proxied.close()
    assert got == expected
    assert len(got) == sum("id" in m for m in script())


def test_server_everything_behind_the_http_side_keeps_its_answers() -> None:
    command = [str(need(NODE, "npm's node@22")), str(need(EVERYTHING, "server-everything")), "stdio"]
    direct = LinePeer(command)
    expected = answers(direct, everything_script())
    direct.close()
    with proxy_http(["--mode", "observe", "--", *command]) as (url, _):
        host = HttpHostPeer(url)
        got = []
        for message in everything_script():
            status, body, _events = host.post(message)
            if "id" in message:
                assert body is not None
                got.append(body)
            else:
                assert status == 202
        host.close()
    assert got == expected
    assert host.session is not None  # the proxy issued the session on initialize
