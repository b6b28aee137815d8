"""Generated logs with known labels: every corpus case (hand-labelled, mcp_verdict.corpus)
answered on a connection of its own, under the version, capabilities and extensions the case
states — negotiated with ``initialize`` before 2026-07-28, carried in the request's ``_meta``
from 2026-07-28 — and audited: each call's kind must be the case's label. A case whose answer
no JSON-RPC pairing can give to its request (a result without an id or with a null one, a
request instead of an answer, an id no number holds such as ``1e400``)
is counted, not judged: a stray answer (or a server request) and an unanswered call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from mcp_verdict import TASKS_EXTENSION
from mcp_verdict.audit import CallRow, audit_files
from mcp_verdict.corpus import Case, load
from mcp_verdict.frames import FrameLogWriter, FrameRecord, peek

_OPTIONS = {"request_id", "client_capabilities", "extensions"}


def _request_id(case: Case) -> tuple[bool, Any]:
    """(pairable, the request id) — pairable when the tracker can give the answer to its request."""
    look = peek(case.wire())
    wanted = case.options.get("request_id")
    if look.kind in ("request", "notification"):
        return False, wanted if wanted is not None else 1  # a message of its own, not an answer
    if look.kind == "batch" and case.version == "2025-03-26" and b'"id":1,' in case.wire():
        # a batch answering the request (sent alone) under the one version with batches: paired, and
        # judged on the whole array (a batch answers a batch only: JSON-RPC 2.0 section 6)
        return True, wanted if wanted is not None else 1
    if look.unheld is not None:  # an id no int or float holds (1e400): no request can carry it
        return False, wanted if wanted is not None else 1
    if look.kind == "unreadable" or (look.kind == "error" and (look.message or {}).get("id") is None):
        # no id to read (none, or null: JSON-RPC 2.0 section 5): the answer goes to the only request
        # waiting (frames.Tracker)
        return True, wanted if wanted is not None else (look.id if look.has_id else 1)
    if not look.has_id or not isinstance(look.id, (str, int)) or isinstance(look.id, bool):
        return False, wanted if wanted is not None else 1
    if wanted is None:
        return True, look.id
    return str(wanted) == str(look.id), wanted


def _conversation(case: Case, request_id: Any) -> list[tuple[str, bytes]]:
    capabilities = case.options.get("client_capabilities")
    extensions = list(case.options.get("extensions", ()))
    declared: dict[str, Any] = dict(capabilities or {})
    if extensions:
        declared["extensions"] = {e: {} for e in extensions}
    params: dict[str, Any] = {"name": "t", "arguments": {}}
    frames = []
    if case.version >= "2026-07-28":
        meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": case.version}
        if capabilities is not None or extensions:
            meta["io.modelcontextprotocol/clientCapabilities"] = declared
        params["_meta"] = meta
    else:
        init = {"protocolVersion": case.version, "capabilities": declared, "clientInfo": {"name": "c", "version": "1"}}
        frames.append(("c2s", orjson.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": init})))
        server: dict[str, Any] = {"tools": {}}
        if extensions:
            server["extensions"] = {e: {} for e in extensions}
        frames.append(("s2c", orjson.dumps({"jsonrpc": "2.0", "id": "init", "result": {
            "protocolVersion": case.version, "capabilities": server, "serverInfo": {"name": "s", "version": "1"}}})))
        if case.version == "2025-11-25" and TASKS_EXTENSION in extensions:
            params["task"] = {}
    # (Python's json: an id past 64 bits, read exactly from the answer, is written exactly; orjson raises)
    frames.append(("c2s", json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                      "params": params}, separators=(",", ":")).encode()))
    frames.append(("s2c", case.wire()))
    return frames


def test_every_corpus_case_audited_from_a_log_gets_its_label(tmp_path: Path) -> None:
    cases = [c for c in load() if set(c.options) <= _OPTIONS]
    log = tmp_path / "corpus.jsonl"
    expected: dict[str, str] = {}
    unpairable = 0
    with FrameLogWriter(log, max_bytes=1 << 40) as writer:
        for number, case in enumerate(cases):
            pairable, request_id = _request_id(case)
            conn = f"case-{number}"
            if pairable:
                expected[conn] = case.expect.value
            else:
                unpairable += 1
            for seq, (direction, frame) in enumerate(_conversation(case, request_id)):
                writer.write(FrameRecord(conn, seq, 1_790_000_000.0 + number, direction, "message",  # type: ignore[arg-type]
                                         frame))
    _, totals, entries = audit_files([str(log)])
    calls = [e for e in entries if isinstance(e, CallRow)]
    rows = {e.conn: e for e in calls if e.answered}
    wrong = {conn: (cases[int(conn[5:])].id, rows[conn].kind if conn in rows else None, label)
             for conn, label in expected.items() if conn not in rows or rows[conn].kind != label}
    assert wrong == {}
    assert len(expected) > 1300 and len(rows) == len(expected)
    unanswered = [e for e in calls if not e.answered]
    assert len(unanswered) == unpairable and all(e.finding == "transport.closed" for e in unanswered)
    assert totals.lines == sum(1 for _ in log.open("rb"))
