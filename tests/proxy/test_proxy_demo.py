"""The demo server's every tool through the proxy, in both modes, over each transport pair.

A naive host (``"result" in response``) stands downstream. The expected outcome of each tool is
the demo catalogue's hand-written one (demo/_catalogue.py); through the proxy:

- ``observe`` forwards every answer unchanged: the host's bytes give the catalogue's verdict
  (so malformed answers are still malformed — observe only records);
- ``enforce`` never lets the host see success for what the verdict refuses: every tool the
  catalogue labels ``unclassified`` reaches the host as the JSON-RPC error -31000 whose
  ``data.verdict`` holds the kind and the finding that explains the label;
- ``hang_up`` (the server drops the call) gets the error -31001 in both modes, where a direct
  connection leaves the host with nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_verdict import Kind, classify
from mcp_verdict.demo import CATALOGUE, CATALOGUE_BY_NAME, DEMO_EXTENSIONS
from mcp_verdict.frames import recover_id
from mcp_verdict.proxy import REFUSED, UPSTREAM_CLOSED

from ._peers import DECLARED, PAIRS, HttpHostPeer, LinePeer, V, call, host, naive

NAMES = [tool.name for tool in CATALOGUE]


def _arguments(name: str) -> dict[str, Any]:
    arguments = dict(CATALOGUE_BY_NAME[name].arguments)
    if name == "slow_echo":
        arguments["seconds"] = 0.05
    return arguments


def answer(peer: LinePeer | HttpHostPeer, request_id: int, name: str) -> bytes | None:
    """The host's answer to one call (a stdio host skips frames answering other ids)."""
    message = call(request_id, name, _arguments(name))
    if isinstance(peer, HttpHostPeer):
        return peer.exchange(message)
    peer.send(message)
    while True:
        line = peer.recv()
        if line is None:
            return None
        found, value = recover_id(line)
        if not found or str(value) == str(request_id):
            return line


@pytest.fixture(scope="module", params=[(p, m) for p in PAIRS for m in ("observe", "enforce")],
                ids=lambda pm: f"{pm[0]}-{pm[1]}")
def through(request: pytest.FixtureRequest) -> Iterator[tuple[str, LinePeer | HttpHostPeer]]:
    pair, mode = request.param
    with host(pair, ["--mode", mode, "--restart", "always", "--timeout", "20"]) as peer:
        yield mode, peer


_ids = iter(range(1000, 10_000_000))


@pytest.mark.parametrize("name", NAMES)
def test_every_tool(through: tuple[str, LinePeer | HttpHostPeer], name: str) -> None:
    mode, peer = through
    tool = CATALOGUE_BY_NAME[name]
    expected = tool.expected
    request_id = next(_ids)
    raw = answer(peer, request_id, name)
    assert raw is not None, "the proxy never leaves the host without an answer"
    if name == "hang_up":
        message = json.loads(raw)
        assert message["error"]["code"] == UPSTREAM_CLOSED and message["id"] == request_id
        assert naive(raw) == "failure"
        return
    if mode == "enforce" and expected.kind is Kind.UNCLASSIFIED:
        message = json.loads(raw)
        assert message["id"] == request_id
        assert message["error"]["code"] == REFUSED
        data = message["error"]["data"]
        assert data["source"] == "mcp-verdict proxy"
        assert data["verdict"]["kind"] == "unclassified"
        assert expected.finding in {f["code"] for f in data["verdict"]["findings"]}
        assert len(data["sha256"]) == 64 and data["size"] > 0
        assert naive(raw) == "failure"
        return
    verdict = classify(raw, version=V, request_id=request_id if name != "mismatched_id" else None,
                       client_capabilities=DECLARED, extensions=DEMO_EXTENSIONS)
    if name == "mismatched_id":  # unchanged: its id is the string of the request's
        assert json.loads(raw)["id"] == str(request_id)
        assert naive(raw) == expected.naive
        return
    assert verdict.kind is expected.kind, verdict.findings
    if expected.finding is not None:
        assert expected.finding in {f.code for f in verdict.findings}
    assert naive(raw) == expected.naive
    if mode == "enforce":
        assert expected.kind is not Kind.UNCLASSIFIED


def test_the_table_covers_every_refused_kind() -> None:
    """The catalogue has tools of every kind the table checks, malformed ones included."""
    kinds = {tool.expected.kind for tool in CATALOGUE}
    assert kinds == set(Kind)
    assert sum(tool.expected.kind is Kind.UNCLASSIFIED for tool in CATALOGUE) >= 10
