"""A call the client cancelled (``notifications/cancelled`` naming its request id, MCP
basic/utilities/cancellation) and that got no answer is ``transport.cancelled``: the client gave up
on it, its request was sent, so the tool may have run (``check_state``) — as the tap judges a call
its caller cancelled. It was shown as ``transport.closed`` (the connection closed, or the log
ended, before an answer), as if the client had still been waiting. An answer that comes after
all is judged on its own bytes (what the server did).

Hand-written frame logs (format v1, README "What it records") and JSON-RPC lines, and the log
the real proxy writes of a host that cancels its call to the demo server over stdio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.demo import stdio_command
from mcp_verdict.frames import FrameRecord, encode

from .test_audit_recorded import run

META = b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'
OK = b'{"resultType":"complete","content":[{"type":"text","text":"ok"}]}'


def call(rid: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"charge","arguments":{},%s}}' % (
        rid, META)


def cancel(rid: bytes, reason: bytes = b"") -> bytes:
    more = b',"reason":"%s"' % reason if reason else b""
    return b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s%s}}' % (rid, more)


def answer(rid: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%s,"result":%s}' % (rid, OK)


def framelog(*frames: tuple[str, str, bytes | None]) -> bytes:
    """(dir, kind, data) per record, on one stdio connection."""
    return b"".join(encode(FrameRecord("c", seq, 1_790_000_000.0 + seq, direction, kind, data,  # type: ignore[arg-type]
                                       transport="stdio"))
                    for seq, (direction, kind, data) in enumerate(frames, 1))


OPEN: tuple[str, str, bytes | None] = ("c2s", "open", None)
CLOSE: tuple[str, str, bytes | None] = ("s2c", "close", None)
CANCELLED_AT = ("the client cancelled the call (notifications/cancelled, {file}:{line}{reason}) before its answer "
                "arrived; the request was sent, so the tool may have run")
CLOSED = "the connection closed before an answer"
ENDED = "the log ends before an answer"
# (case, file name, content) → (kind, finding, its message (file and line filled in), action, end) per call,
# and the line counts; by hand (MCP basic/utilities/cancellation; README "The audit")
CASES: list[tuple[str, str, bytes, list[tuple[Any, ...]], dict[str, int]]] = [
    ("cancelled, then the connection closed", "frames.jsonl",
     framelog(OPEN, ("c2s", "message", call(b"1")), ("c2s", "message", cancel(b"1")), CLOSE),
     [("unclassified", "transport.cancelled", CANCELLED_AT.format(file="frames.jsonl", line=3, reason=""),
       "check_state", "closed")],
     {"call": 1, "notification": 1, "transport": 2}),
    ("cancelled with a reason, then the log ended", "frames.jsonl",
     framelog(("c2s", "message", call(b"1")), ("c2s", "message", cancel(b"1", b"user pressed stop"))),
     [("unclassified", "transport.cancelled",
       CANCELLED_AT.format(file="frames.jsonl", line=2, reason=", reason 'user pressed stop'"),
       "check_state", "log_ended")],
     {"call": 1, "notification": 1}),
    ("cancelled, answered after all: judged on the answer", "frames.jsonl",
     framelog(("c2s", "message", call(b"1")), ("c2s", "message", cancel(b"1")), ("s2c", "message", answer(b"1")),
              CLOSE),
     [("normal_complete", None, None, "accept", "answered")],
     {"call": 2, "notification": 1, "transport": 1}),
    ("another id cancelled", "frames.jsonl",
     framelog(("c2s", "message", call(b"1")), ("c2s", "message", cancel(b"2")), CLOSE),
     [("unclassified", "transport.closed", CLOSED, "check_state", "closed")],
     {"call": 1, "notification": 1, "transport": 1}),
    ("the id cancelled as a string: another id", "frames.jsonl",
     framelog(("c2s", "message", call(b"1")), ("c2s", "message", cancel(b'"1"')), CLOSE),
     [("unclassified", "transport.closed", CLOSED, "check_state", "closed")],
     {"call": 1, "notification": 1, "transport": 1}),
    ("a requestId no request carries (an object)", "frames.jsonl",
     framelog(("c2s", "message", call(b"1")), ("c2s", "message", cancel(b'{"id":1}')), CLOSE),
     [("unclassified", "transport.closed", CLOSED, "check_state", "closed")],
     {"call": 1, "notification": 1, "transport": 1}),
    ("the server's cancellation (of its own request under that id)", "frames.jsonl",
     framelog(("c2s", "message", call(b"1")), ("s2c", "message", cancel(b"1")), CLOSE),
     [("unclassified", "transport.closed", CLOSED, "check_state", "closed")],
     {"call": 1, "notification": 1, "transport": 1}),
    ("JSON-RPC lines: cancelled, then the file ended", "rpc.jsonl",
     call(b'"a"') + b"\n" + cancel(b'"a"') + b"\n",
     [("unclassified", "transport.cancelled", CANCELLED_AT.format(file="rpc.jsonl", line=2, reason=""),
       "check_state", "log_ended")],
     {"call": 1, "notification": 1}),
]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize(("name", "file", "content", "calls", "counts"), CASES, ids=[c[0] for c in CASES])
def test_a_call_the_client_cancelled_says_so(tmp_path: Path, name: str, file: str, content: bytes,
                                            calls: list[tuple[Any, ...]], counts: dict[str, int], jobs: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_verdict.audit import _parts

    monkeypatch.setattr(_parts, "_STRIPE", 1)  # with two processes: a part per line, the call across the cut
    path = tmp_path / file
    path.write_bytes(content)
    monkeypatch.chdir(tmp_path)
    rows, problems, totals = run([Path(file)], jobs=jobs)
    assert [(r.kind, r.finding, r.findings[0].message if r.findings else None, r.action, r.end)
            for r in rows] == calls
    assert problems == []
    assert {k: v for k, v in totals.tally.items() if v} == counts


HOST = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
        b'"clientInfo":{"name":"host","version":"1"}}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_echo",'
        b'"arguments":{"text":"hi","seconds":20}}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timed out"}}\n')


def test_the_real_proxys_log_of_a_cancelled_call(tmp_path: Path) -> None:
    """A host writes its initialize, a slow_echo call of 20 s and its cancellation to the real
    proxy over stdio, then closes: the demo server stops the call and sends nothing for it
    (basic/patterns/cancellation), and the proxy logs every frame."""
    log = tmp_path / "frames.jsonl"
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", "proxy", "--log", str(log), "--log-payloads",
                           "--", *stdio_command()], input=HOST, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert b"notifications/cancelled" in log.read_bytes()
    rows, problems, _ = run([log])
    assert [(r.tool, r.kind, r.finding, r.action, r.unknown_effect) for r in rows] == [
        ("slow_echo", "unclassified", "transport.cancelled", "check_state", True)]
    assert problems == []
    assert rows[0].findings[0].message.startswith("the client cancelled the call (notifications/cancelled, ")
    assert ", reason 'timed out') before its answer arrived" in rows[0].findings[0].message
