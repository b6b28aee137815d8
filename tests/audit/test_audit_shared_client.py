"""A frame log of two sessions over one HTTP client (the tap's ``tap.http_client()`` shared by two
SDK sessions, each numbering its request ids from 1): two requests wait under one id on one tap
connection. The tap records each frame with its HTTP exchange (``http.exchange``: the POST a
request went out in, and the same number on the frames of that POST's response), so the audit
gives each request the answer that came in its own exchange. An answer that came in no exchange
of theirs (the GET stream, or a log without exchanges) cannot be told apart: each request ends
``transport.error`` saying so (the tap's judgement of such calls) and the answer is a stray line —
never one session's call judged by the other's answer.

The audit used to pair them as the tap did before it learnt better: the second request put the
first out of waiting (``reused_id``, ``transport.closed``) and took the first answer under the
id, whichever session's it was.

Hand-written frame logs (format v1, README "What it records"), and the log the real tap writes of
two real ``mcp.Client`` sessions over one ``tap.http_client()`` to the demo server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import VerdictTap, demo
from mcp_verdict.frames import FrameRecord, encode

from .test_audit_recorded import run

META = b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'
OK = b'{"resultType":"complete","content":[{"type":"text","text":"ok"}]}'
FAILED = b'{"resultType":"complete","content":[{"type":"text","text":"no"}],"isError":true}'


def call(tool: bytes, rid: int = 1) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{},%s}}' % (
        rid, tool, META)


def answer(result: bytes, rid: int = 1) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, result)


def log(*frames: tuple[Any, ...]) -> bytes:
    """(dir, data, HTTP exchange[, session]) per message of one HTTP connection (None: no exchange
    said)."""
    def http(number: int | None, session: str | None = None) -> dict[str, Any] | None:
        if number is None:
            return None
        return {"exchange": number, "method": "POST"} | ({"session": session} if session else {})

    return b"".join(encode(FrameRecord("tap-1", seq, 1_790_000_000.0 + seq, direction, "message", data,
                                       transport="http", http=http(*more)))
                    for seq, (direction, data, *more) in enumerate(frames, 1)) \
        + encode(FrameRecord("tap-1", len(frames) + 1, 1_790_000_100.0, "s2c", "close", transport="http"))


CANCEL = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'


UNCLEAR = ("an answer to one of 2 requests waiting under its id on one HTTP connection (sent in exchanges 3 and 4: "
           "two sessions share one client) came {came}: which one it answers cannot be told")
STRAY = ("it answers one of 2 requests waiting under its id on one HTTP connection (sent in exchanges 3 and 4: two "
         "sessions share one client), and came {came}: which one cannot be told")
# (case, the log) → per call (tool, line, kind, first finding, its message, end), the problems (line, category,
# reason) and the line counts; by hand from the frames (each answer came in its request's exchange, or not)
CASES: list[tuple[str, bytes, list[tuple[Any, ...]], list[tuple[Any, ...]], dict[str, int]]] = [
    ("the first request's answer first", log(
        ("c2s", call(b"first"), 3), ("c2s", call(b"second"), 4),
        ("s2c", answer(FAILED), 3), ("s2c", answer(OK), 4)),
     [("first", 1, "tool_error", None, None, "answered"),
      ("second", 2, "normal_complete", None, None, "answered")],
     [], {"call": 4, "transport": 1}),
    ("the second request's answer first", log(
        ("c2s", call(b"first"), 3), ("c2s", call(b"second"), 4),
        ("s2c", answer(OK), 4), ("s2c", answer(FAILED), 3)),
     [("second", 2, "normal_complete", None, None, "answered"),
      ("first", 1, "tool_error", None, None, "answered")],
     [], {"call": 4, "transport": 1}),
    ("three requests under one id", log(
        ("c2s", call(b"first"), 3), ("c2s", call(b"second"), 4), ("c2s", call(b"third"), 5),
        ("s2c", answer(OK), 4), ("s2c", answer(FAILED), 3)),
     [("second", 2, "normal_complete", None, None, "answered"),
      ("first", 1, "tool_error", None, None, "answered"),
      ("third", 3, "unclassified", "transport.closed", "the connection closed before an answer", "closed")],
     [], {"call": 5, "transport": 1}),
    ("an answer on another exchange (the GET stream)", log(
        ("c2s", call(b"first"), 3), ("c2s", call(b"second"), 4), ("s2c", answer(OK), 2)),
     [("first", 1, "unclassified", "transport.error", UNCLEAR.format(came="in exchange 2"), "reused_id"),
      ("second", 2, "unclassified", "transport.error", UNCLEAR.format(came="in exchange 2"), "reused_id")],
     [(3, "stray", STRAY.format(came="in exchange 2"))], {"call": 2, "stray": 1, "transport": 1}),
    ("an answer with no exchange", log(
        ("c2s", call(b"first"), 3), ("c2s", call(b"second"), 4), ("s2c", answer(OK), None)),
     [("first", 1, "unclassified", "transport.error", UNCLEAR.format(came="with no HTTP exchange"), "reused_id"),
      ("second", 2, "unclassified", "transport.error", UNCLEAR.format(came="with no HTTP exchange"), "reused_id")],
     [(3, "stray", STRAY.format(came="with no HTTP exchange"))], {"call": 2, "stray": 1, "transport": 1}),
    ("an answer on one session's GET stream", log(
        ("c2s", call(b"first"), 3, "s1"), ("c2s", call(b"second"), 4, "s2"),
        ("s2c", answer(OK), 2, "s2"), ("s2c", answer(FAILED), 3, "s1")),
     [("second", 2, "normal_complete", None, None, "answered"),
      ("first", 1, "tool_error", None, None, "answered")],
     [], {"call": 4, "transport": 1}),
    ("a cancellation POSTed in one session", log(
        ("c2s", call(b"first"), 3, "s1"), ("c2s", call(b"second"), 4, "s2"), ("c2s", CANCEL, 5, "s1"),
        ("s2c", answer(OK), 4, "s2")),
     [("second", 2, "normal_complete", None, None, "answered"),
      ("first", 1, "unclassified", "transport.cancelled",
       "the client cancelled the call (notifications/cancelled, frames.jsonl:3) before its answer arrived; the "
       "request was sent, so the tool may have run", "closed")],
     [], {"call": 3, "notification": 1, "transport": 1}),
    ("one id used again after its answer: no two waiting", log(
        ("c2s", call(b"first"), 3), ("s2c", answer(FAILED), 3), ("c2s", call(b"second"), 4),
        ("s2c", answer(OK), 4)),
     [("first", 1, "tool_error", None, None, "answered"),
      ("second", 3, "normal_complete", None, None, "answered")],
     [], {"call": 4, "transport": 1}),
]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize(("name", "content", "calls", "problems", "counts"), CASES, ids=[c[0] for c in CASES])
def test_two_sessions_answers_are_told_apart_by_their_exchange(
        tmp_path: Path, name: str, content: bytes, calls: list[tuple[Any, ...]], problems: list[tuple[Any, ...]],
        counts: dict[str, int], jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_verdict.audit import _parts

    monkeypatch.setattr(_parts, "_STRIPE", 1)  # with two processes: a part per line, each call across a cut
    monkeypatch.chdir(tmp_path)
    Path("frames.jsonl").write_bytes(content)
    rows, found, totals = run([Path("frames.jsonl")], jobs=jobs)
    assert [(r.tool, r.line, r.kind, r.finding, r.findings[0].message if r.findings else None, r.end)
            for r in rows] == calls
    assert [(p.line, p.category, p.reason) for p in found] == problems
    assert {k: v for k, v in totals.tally.items() if v} == counts


def test_the_real_taps_log_of_two_sessions_over_one_client(tmp_path: Path) -> None:
    """Two real ``mcp.Client`` sessions over one ``tap.http_client()`` to the demo server (Streamable
    HTTP): the first session's slow_echo waits under an id when the second session's string_is_error
    goes out under the same id. The tap cannot tell their answers apart and says so on both (tests/
    integrations/test_tap_shared_http_client.py); its log has each frame's exchange, and the audit
    judges each call by its own answer: slow_echo a success, string_is_error what it always is."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    path = tmp_path / "frames.jsonl"

    async def main() -> None:
        tap = VerdictTap(frame_log=path)
        async with demo.serve_http() as url, tap.http_client() as http, \
                Client(streamable_http_client(url, http_client=http)) as a, \
                Client(streamable_http_client(url, http_client=http)) as b:
            conn = http.mcp_verdict_conn
            async with anyio.create_task_group() as group:
                group.start_soon(tap.call_tool, a, "slow_echo", {"text": "slow", "seconds": 2})
                while not any(e.method == "tools/call" for e in tap.tracker.pending(conn)):
                    await anyio.sleep(0.01)  # until the slow call's request is on the wire
                await tap.call_tool(b, "string_is_error", {})  # while the slow call waits, under its id
            slow = next(call for call in tap.history if call.name == "slow_echo")
            assert slow.outcome.verdict.findings[0].code == "transport.error"  # the tap could not tell
        tap.close()

    anyio.run(main)
    rows, problems, _ = run([path])
    assert [(r.tool, r.request_id, r.kind, r.finding, r.end) for r in rows] == [
        ("string_is_error", "2", "unclassified", "result.is_error", "answered"),
        ("slow_echo", "2", "normal_complete", None, "answered")]
    assert problems == []
