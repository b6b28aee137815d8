"""What the tables of a restarting stdio upstream share (``restart_server.py``, through the proxy):
its messages, the host's session with it, and the frame log and the server's own log read back.

The server writes what it received to ``received`` in ``RESTART_DIR`` (``<start> <method> ...``
a line each); the proxy's frame log is read as its JSON records."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._peers import HttpHostPeer, LinePeer

SERVER = [sys.executable, str(Path(__file__).with_name("restart_server.py"))]
"""The restarting server; its mode (``hang``...) follows."""
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
EXIT = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "exit", "arguments": {}}}
CHANGED = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
LATE = "the restarted upstream did not answer its replayed initialize within 3 s"


def write(request_id: int | str) -> dict[str, Any]:
    """A call of the server's ``write`` tool (it logs ``<start> tools/call write <id>``)."""
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "write", "arguments": {}}}


def initialise(peer: LinePeer | HttpHostPeer) -> None:
    """The host's 2025 session with the restarting server, through the proxy."""
    assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
    if isinstance(peer, HttpHostPeer):
        assert peer.post(INITIALIZED)[0] == 202
    else:
        peer.send(INITIALIZED)


def frame_records(log: Path) -> list[dict[str, Any]]:
    """The frame log's records written so far (none before it exists): its complete lines only,
    since the proxy may be writing the next one while a test polls it."""
    if not log.exists():
        return []
    text = log.read_bytes()
    return [json.loads(line) for line in text[:text.rfind(b"\n") + 1].splitlines()]


def server_received(folder: Path) -> list[str]:
    """What the server received, a line each (none before its first start)."""
    path = folder / "received"
    return path.read_text().splitlines() if path.exists() else []


def position(log: Path, found: Callable[[dict[str, Any]], bool]) -> int | None:
    """The position of the first record ``found`` takes in the frame log."""
    return next((index for index, record in enumerate(frame_records(log)) if found(record)), None)


def after(log: Path, found: Callable[[dict[str, Any]], bool]) -> list[tuple[str, str, str | None]]:
    """The error records, and the records of frames sent to a restarted process, after the first
    record ``found`` takes: (dir, kind, note)."""
    every = frame_records(log)
    at = next((index for index, record in enumerate(every) if found(record)), None)
    if at is None:
        return []
    return [(r["dir"], r["kind"], r.get("note")) for r in every[at + 1:]
            if r["kind"] == "error" or (r["kind"] == "open" and "while it was down" in r.get("note", ""))]


def host_message(text: str) -> Callable[[dict[str, Any]], bool]:
    """A host's frame record (c2s, a message) whose bytes hold ``text``."""
    return lambda r: r["kind"] == "message" and r["dir"] == "c2s" and text in r.get("data", "")


def cancellation_notes(log: Path) -> list[str | None]:
    """The notes of the ``notifications/cancelled`` records toward the server (the host's, or the
    proxy's own: ``written by the proxy``)."""
    return [r.get("note") for r in frame_records(log) if host_message("notifications/cancelled")(r)]
