"""JSON-RPC batches in a recorded conversation: the audit judges the calls they hold.

MCP 2025-03-26 has JSON-RPC batches (basic/index#batching: implementations MUST support receiving
them; schema/2025-03-26/schema.ts: JSONRPCBatchRequest, JSONRPCBatchResponse); 2024-11-05 never
had them, 2025-06-18 removed them (its changelog). Under a 2025-03-26 session each element of a
batch is a message of its own, judged on its exact bytes (blanks around it left out, a
duplicated key inside it kept); elsewhere a batch is a stray line saying which version forbids it.
An empty batch is an invalid request (JSON-RPC 2.0 section 6); an element that is no object is a
stray. A batch line counts once in the line counts (in its weightiest category: a call first).

The logs are JSON-RPC lines written by hand (the bytes are the case), and a frame log the real
proxy recorded between a stdio host and tests/servers/batch_server.py, audited as a user has it
(rows, --json, --parquet)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .test_audit_recorded import run

CLI = [sys.executable, "-m", "mcp_verdict"]
SERVER = [sys.executable, str(Path(__file__).parents[1] / "servers" / "batch_server.py")]


def init(version: str) -> bytes:
    return (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},'
            b'"clientInfo":{"name":"t","version":"0"}}}' % version.encode())


def initialized(version: str) -> bytes:
    return (b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},'
            b'"serverInfo":{"name":"s","version":"1"}}}' % version.encode())


def call(rid: int, name: str, arguments: bytes = b"{}") -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}' % (
        rid, name.encode(), arguments)


def ok(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}' % rid


def dup(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{"content":[],"isError":true,"isError":false}}' % rid


def failed(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}' % rid


NOTE = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}'


def session(version: str, *lines: bytes) -> list[bytes]:
    return [init(version), initialized(version), *lines]


# (name, the log's lines, the calls' rows: (request id, tool, kind, first finding),
#  the problems: (line, category, reason's start), the line counts)
CASES: list[tuple[str, list[bytes], list[tuple[str, str, str, str | None]], list[tuple[int, str, str]],
                  dict[str, int]]] = [
    ("a batch of calls and a notification, answered by a batch (2025-03-26)",
     session("2025-03-26", b"[" + call(1, "echo") + b"," + NOTE + b"," + call(2, "dup") + b"," + call(3, "fail") + b"]",
             b"[ " + ok(1) + b" ,\t " + dup(2) + b" , " + failed(3) + b" ]"),
     [("1", "echo", "normal_complete", None), ("2", "dup", "unclassified", "json.duplicate_key"),
      ("3", "fail", "tool_error", None)], [], {"message": 2, "call": 2}),
    # a batch answers a batch only (JSON-RPC 2.0 section 6): a call sent alone answered in a batch is
    # judged on the array the server sent in reply to it (a success in it is not the call's success)
    ("a batch's calls answered one by one, and calls sent alone answered by one batch",
     session("2025-03-26", b"[" + call(1, "echo") + b"," + call(2, "echo") + b"]", failed(2), ok(1),
             call(3, "echo"), call(4, "echo"), b"[" + ok(4) + b"," + failed(3) + b"]"),
     [("2", "echo", "tool_error", None), ("1", "echo", "normal_complete", None),
      ("4", "echo", "unclassified", "envelope.batch"), ("3", "echo", "unclassified", "envelope.batch")],
     [], {"message": 2, "call": 6}),
    ("elements that are no JSON-RPC message: a number, an array",
     session("2025-03-26", b"[" + call(1, "echo") + b", 7, [1]]", b"[" + ok(1) + b"]"),
     [("1", "echo", "normal_complete", None)],
     [(3, "unreadable", "it is not a JSON-RPC message"),
      (3, "stray", "an array inside a batch is not a JSON-RPC message")],
     {"message": 2, "call": 2}),
    ("an empty batch", session("2025-03-26", b"[]"), [],
     [(3, "stray", "an empty batch is an invalid request (JSON-RPC 2.0 section 6)")], {"message": 2, "stray": 1}),
    ("a batch under 2025-06-18 (removed)",
     session("2025-06-18", b"[" + call(1, "echo") + b"]", b"[" + ok(1) + b"]"), [],
     [(3, "stray", "a batch is not part of MCP 2025-06-18"), (4, "stray", "a batch is not part of MCP 2025-06-18")],
     {"message": 2, "stray": 2}),
    ("a batch under 2024-11-05 (never had them)",
     session("2024-11-05", b"[" + call(1, "echo") + b"]", b"[" + ok(1) + b"]"), [],
     [(3, "stray", "a batch is not part of MCP 2024-11-05"), (4, "stray", "a batch is not part of MCP 2024-11-05")],
     {"message": 2, "stray": 2}),
    # bytes that are not UTF-8 in an argument (a Latin-1 client): the request is followed, its answer judged
    ("a tools/call whose argument holds a Latin-1 byte (2025-06-18)",
     session("2025-06-18", call(1, "echo", b'{"city":"S\xe3o Paulo"}'), ok(1)),
     [("1", "echo", "normal_complete", None)], [], {"message": 2, "call": 2}),
    ("the same in a batch (2025-03-26)",
     session("2025-03-26", b"[" + call(1, "echo", b'{"city":"S\xe3o Paulo"}') + b"," + call(2, "echo") + b"]",
             b"[" + ok(1) + b"," + ok(2) + b"]"),
     [("1", "echo", "normal_complete", None), ("2", "echo", "normal_complete", None)], [],
     {"message": 2, "call": 2}),
]


@pytest.mark.parametrize(("name", "lines", "calls", "problems", "counts"), CASES, ids=[c[0] for c in CASES])
def test_the_calls_of_a_batch_are_judged_under_2025_03_26(tmp_path: Path, name: str, lines: list[bytes],
                                                         calls: list[tuple[str, str, str, str | None]],
                                                         problems: list[tuple[int, str, str]],
                                                         counts: dict[str, int]) -> None:
    path = tmp_path / "messages.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    rows, found, totals = run([path])
    assert [(r.request_id, r.tool, r.kind, r.finding) for r in rows] == calls
    assert [(p.line, p.category, p.reason[:len(reason)]) for p, (_, _, reason) in zip(found, problems, strict=False)] \
        == problems and len(found) == len(problems)
    assert {k: v for k, v in totals.tally.items() if v} == counts
    assert totals.lines == len(lines)


def _record(log: Path) -> None:
    """The real proxy between a stdio host (this test, in lines) and the batch server, in observe."""
    proxy = subprocess.Popen([*CLI, "proxy", "--log", str(log), "--log-payloads", "--", *SERVER],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proxy.stdin is not None and proxy.stdout is not None
    try:
        proxy.stdin.write(init("2025-03-26") + b"\n")
        proxy.stdin.flush()
        assert b'"2025-03-26"' in proxy.stdout.readline()
        proxy.stdin.write(b"[" + call(1, "echo") + b"," + NOTE + b"," + call(2, "dup") + b"," + call(3, "fail")
                          + b"]\n")
        proxy.stdin.flush()
        assert proxy.stdout.readline().startswith(b"[ ")
        proxy.stdin.close()
        proxy.wait(30)
    finally:
        if proxy.poll() is None:
            proxy.kill()
            proxy.wait()


def test_a_proxy_log_of_batches_is_audited_call_by_call(tmp_path: Path) -> None:
    import duckdb

    log = tmp_path / "frames.jsonl"
    _record(log)
    rows, problems, totals = run([log])
    expected = [("1", "echo", "normal_complete"), ("2", "dup", "unclassified"), ("3", "fail", "tool_error")]
    assert [(r.request_id, r.tool, r.kind) for r in rows] == expected
    assert problems == [] and totals.lines == len(log.read_bytes().splitlines())
    done = subprocess.run([*CLI, "audit", str(log), "--json"], capture_output=True, timeout=120, check=False)
    objects: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(o["request_id"], o["tool"], o["kind"]) for o in objects if o["type"] == "call"] == expected
    out = tmp_path / "calls.parquet"
    subprocess.run([*CLI, "audit", str(log), "--parquet", str(out)], capture_output=True, timeout=120, check=False)
    got = duckdb.connect().execute(f"select request_id, tool, kind from read_parquet('{out}') order by request_id")
    assert got.fetchall() == expected
    assert time.time() > 0
