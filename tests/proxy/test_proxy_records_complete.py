"""Every answer the proxy forwards gets its records, in order, however the host stops: on a
stdio host and a stdio upstream, its verdict line (in the order the answers came) and its frame
log record (the wire order: each record's ``seq`` in turn) — when the host closes stdin right
after its last answer, when a SIGTERM comes right after it (README "The proxy": answers already
forwarded are judged and the frame log and verdict lines are complete before it exits), when the
host stays idle after an answer (its line is written while the host is still there), and when
the server writes a request of its own right after an answer (its verdict line, MCP 2025-06-18
client/elicitation, after the answer's). Observe forwards an answer before it judges it; enforce
judges it first: both modes are held to the same rows. A contract: a change that moves an
answer's verdict or records later (after the host's next frame, say, to take that work off the
host's wait) must keep these.

Real peers: the proxy as its own process over ``tests/proxy/fault_server.py``. No timed
assertion: the idle row waits for its line under a generous hang guard."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ._peers import PROXY, LinePeer

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
HANG_GUARD = 20.0
"""Seconds the idle row waits for its verdict line at most (a hang guard, not a bound on the proxy)."""


def _call(request_id: int, tool: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"text": "abc"}}}


# (calls: (id, tool) in order; how the host stops; the verdict lines expected, in order:
#  (id, method, kind, origin); the frame log expected, in order: (dir, kind) after the initialize's three)
CASES = [
    pytest.param(
        [(1, "len"), (2, "dup"), (3, "len")], "stdin closed",
        # a tools/call answer with content and isError false: normal_complete (2025-06-18 server/tools);
        # isError given twice: no strict parser reads it, unclassified
        [(1, "tools/call", "normal_complete", None), (2, "tools/call", "unclassified", None),
         (3, "tools/call", "normal_complete", None)],
        [("c2s", "message"), ("s2c", "message")] * 3,
        id="the host closes stdin right after its last answer"),
    pytest.param(
        [(1, "len"), (2, "len")], "SIGTERM",
        [(1, "tools/call", "normal_complete", None), (2, "tools/call", "normal_complete", None)],
        [("c2s", "message"), ("s2c", "message")] * 2,
        id="a SIGTERM right after the last answer"),
    pytest.param(
        [(1, "len")], "idle",
        [(1, "tools/call", "normal_complete", None)],
        [("c2s", "message"), ("s2c", "message")],
        id="the host stays idle after its answer"),
    pytest.param(
        [(1, "then_ask"), (2, "len")], "stdin closed",
        # the server's elicitation/create, the host having declared elicitation: input_required
        # (2025-06-18 client/elicitation), its line after the answer that came before it
        [(1, "tools/call", "normal_complete", None), ("after", "elicitation/create", "input_required", "server"),
         (2, "tools/call", "normal_complete", None)],
        [("c2s", "message"), ("s2c", "message"), ("s2c", "message"), ("c2s", "message"), ("s2c", "message")],
        id="a server request right after an answer"),
]


def _lines(path: Path) -> list[dict[str, Any]]:
    """The whole lines of a record file so far (one still being written is left for later)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_bytes().splitlines(keepends=True) if line.endswith(b"\n")]


@pytest.mark.parametrize("mode", ["observe", "enforce"])
@pytest.mark.parametrize(("calls", "stop", "verdicts", "frames"), CASES)
def test_every_answer_gets_its_records_in_order(tmp_path: Path, mode: str, calls: list[tuple[int, str]], stop: str,
                                                verdicts: list[tuple[Any, str, str, str | None]],
                                                frames: list[tuple[str, str]]) -> None:
    log, lines = tmp_path / "f.log", tmp_path / "v.jsonl"
    peer = LinePeer([*PROXY, "--mode", mode, "--log", str(log), "--verdicts", str(lines), "--", *SERVER])
    assert json.loads(peer.exchange(INIT) or b"{}")["id"] == 0
    peer.send(INITIALIZED)
    got: list[Any] = []
    for request_id, tool in calls:
        got.append(json.loads(peer.exchange(_call(request_id, tool)) or b"{}").get("id"))
        if tool == "then_ask":  # (its request follows the answer)
            got.append(json.loads(peer.recv() or b"{}").get("id"))
    idle: list[dict[str, Any]] = []
    if stop == "idle":  # written while the host is still there, sending nothing
        deadline = time.monotonic() + HANG_GUARD
        while len(idle) < len(verdicts) and time.monotonic() < deadline:
            time.sleep(0.01)
            idle = _lines(lines)
    if stop == "SIGTERM":
        peer.process.send_signal(signal.SIGTERM)
    status = peer.close()
    expected_ids: list[Any] = []
    for request_id, tool in calls:
        expected_ids += [request_id, "after"] if tool == "then_ask" else [request_id]
    assert (got, status) == (expected_ids, 0)
    if stop == "idle":
        assert [(v["id"], v["method"], v["kind"], v.get("origin")) for v in idle] == verdicts
    written = _lines(lines)
    assert [(v["id"], v["method"], v["kind"], v.get("origin")) for v in written] == verdicts
    records = _lines(log)
    assert [r["seq"] for r in records] == list(range(len(records)))  # wire order: each record's number, in turn
    assert [(r["dir"], r["kind"]) for r in records if r["kind"] == "message"][3:] == frames
