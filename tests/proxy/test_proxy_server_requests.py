"""The proxy judges a 2025 server's own requests (``elicitation/create``: 2025-11-25
client/elicitation) made while a host's ``tools/call`` waits, as mcp-verdict's client judges them
(``verdict._input.judge_server_request``: the bytes read strictly, then the rules of the
session's version and the capabilities the host declared), and a refused one makes that call
``unclassified`` with the request's findings (``_input.refused_findings``), as the client, the
audit and the tap do. observe forwards the request unchanged and records its verdict line;
enforce answers it upstream itself with -32602 (JSON-RPC 2.0 s5.1 Invalid params) and the host
never sees it, then refuses the call's answer (its verdict is unclassified). A valid request
passes byte for byte in both modes.

Before, the proxy forwarded every such request unjudged: no verdict line, the call's verdict its
answer's alone (``normal_complete``), and enforce handed the host the bad request.

Real peers: the proxy as its own process, a naive stdio host that answers the elicitations
(accepts one asking a name, declines any other), and the official SDK's ``MCPServer``
(``tests/audit/eliciting_server.py``) over stdio and over Streamable HTTP on 127.0.0.1 (its
requests travel on the call's POST stream). Expected values by hand from 2025-11-25's
``schema.json``: PrimitiveSchemaDefinition has no ``object`` property; ElicitRequestURLParams
requires ``elicitationId``."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..processes import free_port, http_server
from ._peers import PROXY, LinePeer

SERVER = [sys.executable, "-m", "tests.audit.eliciting_server"]
V = "2025-11-25"
CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}

# tool -> (the request's verdict kind, its findings (code, path into the request; payloads kept: not
# redacted), the call's findings (code, message))
PROPERTY = ("the server's elicitation/create request (at /params/requestedSchema/properties/a/type): the property's "
            "type is the string 'object'; a requested schema is flat: string, number, integer, boolean, or an enum "
            "(single- or multi-select)")
URL = ("the server's elicitation/create request (at /params): a url-mode elicitation needs an elicitationId on "
       "2025-11-25")
CASES: list[tuple[str, str, list[tuple[str, str]], list[tuple[str, str]]]] = [
    ("greet_once", "input_required", [], []),
    ("ask_object", "unclassified",
     [("elicitation.property", "/params/requestedSchema/properties/a/type")],
     [("elicitation.property", PROPERTY)]),
    ("ask_url_without_id", "unclassified", [("input.params", "/params")],
     [("input.params", URL)]),
]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = free_port()
    with http_server([*SERVER, "http", str(port)], port, "the eliciting server") as url:
        yield url


def talk(upstream: list[str], mode: str, tool: str, tmp: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A stdio host through the proxy calls ``tool``: (the server requests it saw, the call's answer)."""
    peer = LinePeer([*PROXY, "--mode", mode, "--verdicts", str(tmp / "verdicts.jsonl"), "--log",
                     str(tmp / "frames.jsonl"), "--log-payloads", *upstream])
    seen: list[dict[str, Any]] = []
    try:
        peer.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": V, "capabilities": CAPABILITIES, "clientInfo": {"name": "host", "version": "0"}}})
        first = peer.recv()
        assert first is not None and json.loads(first)["result"]["protocolVersion"] == V
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        peer.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
        while True:
            raw = peer.recv()
            assert raw is not None, b"".join(peer.stderr)
            message = json.loads(raw)
            if "method" not in message:
                if message.get("id") == 2:
                    return seen, message
                continue
            if "id" not in message:
                continue
            seen.append(message)
            asked = message["params"].get("requestedSchema", {}).get("properties", {})
            result = {"action": "accept", "content": {"name": "Ada"}} if "name" in asked else {"action": "decline"}
            peer.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    finally:
        peer.close()


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@contextlib.contextmanager
def upstream_of(side: str, request: pytest.FixtureRequest) -> Iterator[list[str]]:
    if side == "stdio":
        yield ["--", *SERVER]
    else:
        yield ["--upstream", request.getfixturevalue("http_url")]


@pytest.mark.parametrize("side", ["stdio", "http"])
@pytest.mark.parametrize(("tool", "kind", "asked", "call"), CASES)
def test_observe(side: str, tool: str, kind: str, asked: list[tuple[str, str]], call: list[tuple[str, str]],
                 tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with upstream_of(side, request) as upstream:
        seen, answer = talk(upstream, "observe", tool, tmp_path)
    # forwarded: the host saw the request, byte for byte as the server wrote it
    assert [m["method"] for m in seen] == ["elicitation/create"]
    frames = lines(tmp_path / "frames.jsonl")
    server_requests = [f for f in frames if f["dir"] == "s2c" and f["kind"] == "message"
                       and '"elicitation/create"' in f.get("data", "")]
    assert [json.loads(f["data"]) for f in server_requests] == seen
    # recorded at the time it came: between the call's request and its answer (frame log v1: t, UNIX seconds)
    times = [f["t"] for f in frames if f["kind"] == "message" and f["dir"] == "c2s" and '"tools/call"' in f["data"]]
    assert len(times) == 1 and times[0] <= server_requests[0]["t"] <= frames[-1]["t"]
    assert not [f for f in frames if f["kind"] == "refused"]
    assert "result" in answer
    verdicts = lines(tmp_path / "verdicts.jsonl")
    assert [(v["method"], v["kind"], v.get("origin"), v["forwarded"]) for v in verdicts] == [
        ("elicitation/create", kind, "server", "unchanged"),
        ("tools/call", "unclassified" if call else "normal_complete", None, "unchanged")]
    assert [(f["code"], f["path"]) for f in verdicts[0]["findings"]] == asked
    assert verdicts[0]["call"] == verdicts[1]["call"] and verdicts[0]["tool"] == tool
    assert [(f["code"], f["path"], f["severity"]) for f in verdicts[1]["findings"]] == \
        [(code, "", "error") for code, _ in call]


@pytest.mark.parametrize("side", ["stdio", "http"])
@pytest.mark.parametrize(("tool", "kind", "asked", "call"), CASES)
def test_enforce(side: str, tool: str, kind: str, asked: list[tuple[str, str]], call: list[tuple[str, str]],
                 tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with upstream_of(side, request) as upstream:
        seen, answer = talk(upstream, "enforce", tool, tmp_path)
    frames = lines(tmp_path / "frames.jsonl")
    verdicts = lines(tmp_path / "verdicts.jsonl")
    assert [(v["method"], v["kind"], v["forwarded"]) for v in verdicts] == [
        ("elicitation/create", kind, "refused" if call else "unchanged"),
        ("tools/call", "unclassified" if call else "normal_complete", "refused" if call else "unchanged")]
    if not call:  # a valid request: unchanged, and so is the call's answer
        assert [m["method"] for m in seen] == ["elicitation/create"]
        assert answer["result"]["content"] == [{"type": "text", "text": "hello name='Ada'"}]
        assert not [f for f in frames if f["kind"] == "refused"]
        return
    assert seen == []  # the host never sees the bad request
    refused = [f for f in frames if f["kind"] == "refused"]
    assert [json.loads(f["data"]).get("method") for f in refused] == ["elicitation/create", None]
    # the server got -32602 from the proxy, with the findings
    errors = [json.loads(f["data"]) for f in frames if f["dir"] == "c2s" and f["kind"] == "message"
              and '"error"' in f.get("data", "")]
    assert len(errors) == 1
    error = errors[0]["error"]
    assert errors[0]["id"] == json.loads(refused[0]["data"])["id"]
    assert error["code"] == -32602
    assert error["message"] == "mcp-verdict proxy: elicitation/create refused: " + \
        "; ".join(m.split(": ", 1)[1] for _, m in call)
    assert error["data"]["source"] == "mcp-verdict proxy"
    assert [f["code"] for f in error["data"]["verdict"]["findings"]] == [c for c, _ in asked]
    # the tool heard the error (its answer, refused, is in the log), and the host gets the proxy's refusal
    assert "refused:" in refused[1]["data"]
    assert answer["error"]["code"] == -31000
    assert answer["error"]["data"]["source"] == "mcp-verdict proxy"
    assert [(f["code"], f["path"], f["message"]) for f in answer["error"]["data"]["verdict"]["findings"]] == \
        [(code, "", message) for code, message in call]
