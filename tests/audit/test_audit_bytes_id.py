"""A request whose id is a string of bytes that are not UTF-8, in the audit (and the tap's tracker).

RFC 8259 s8.1: JSON text exchanged between systems MUST be encoded as UTF-8; such a frame is no JSON
any strict parser reads. The frame log keeps its exact bytes (``b64``: frames/_log.py, format v1), and
the rest of the frame reads leniently (its method and params: ``frames.lenient_request``). JSON-RPC
2.0 section 4: the id is what pairs a response with its request; the server "MUST" answer with "the
same value" — its bytes, here. So the audit follows the call: the id is compared as the bytes written
(two such ids apart, as any two ids), the answer that echoes them is the call's, and it is judged on
its own bytes strictly (``json.encoding``: the call is ``unclassified``, never a success; its naive
receiver, ``json.loads``, crashes on the bytes). An answer under another id (the bytes replaced by
U+FFFD) answers no request: the call ends without an answer (``transport.closed``).

Before this, each such line was an ``unreadable`` problem ("its method and params cannot be read,
which is not followed"; the answer "answers no request waiting"): the call was not in the audit at
all. Hand-written frame logs (format v1) and JSON-RPC JSON Lines; the tap's frame log of the same
frames; expected values by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import VerdictTap
from mcp_verdict.frames import Answered, Stray, Tracker, id_key

from .test_audit_asked_judged import frame_log, jsonrpc_lines
from .test_audit_recorded import run

INIT = [("c2s", b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'),
        ("s2c", b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
                b'"serverInfo":{"name":"s","version":"1"}}}')]
OK = b'"result":{"content":[{"type":"text","text":"ok"}],"isError":false}'


def call(rid: bytes, arguments: bytes = b"{}") -> tuple[str, bytes]:
    return "c2s", b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"t","arguments":%s}}' % (
        rid, arguments)


def answer(rid: bytes, body: bytes = OK) -> tuple[str, bytes]:
    return "s2c", b'{"jsonrpc":"2.0","id":%s,%s}' % (rid, body)


FF, FE = b'"a\xffb"', b'"a\xfeb"'
ENCODING = ["json.encoding"]
ANSWERED = ("unclassified", ENCODING, "answered", "investigate", "crash")
# (case, frames after initialize) → (per call: (request id as the audit writes it, kind, finding codes, end, action,
# naive), the problems' categories), by hand
CASES: list[tuple[str, list[tuple[str, bytes]], list[tuple[Any, ...]], list[str]]] = [
    ("one call", [call(FF), answer(FF)], [('"a\\xffb"', *ANSWERED)], []),
    # two such ids are two ids: each answer is its own call's, in whatever order they come
    ("two calls, answered in reverse", [call(FF), call(FE), answer(FE), answer(FF)],
     [('"a\\xffb"', *ANSWERED), ('"a\\xfeb"', *ANSWERED)], []),
    # an error echoing the id: judged on its bytes too
    ("answered with an error", [call(FF), answer(FF, b'"error":{"code":-32602,"message":"bad"}')],
     [('"a\\xffb"', "unclassified", ENCODING, "answered", "investigate", "crash")], []),
    # bytes that are not UTF-8 in the arguments as well: read leniently, followed the same
    ("bytes in the arguments too", [call(FF, b'{"x":"\xfe"}'), answer(FF)], [('"a\\xffb"', *ANSWERED)], []),
    # the server wrote another id (U+FFFD for the byte): it answers no request; the call never got its answer
    ("answered under another id", [call(FF), answer('"a\ufffdb"'.encode())],
     [('"a\\xffb"', "unclassified", ["transport.closed"], "log_ended", "check_state", "no_response")], ["stray"]),
    # an id escaping the lone surrogate that a lenient decoder (surrogateescape) would read the byte as stays apart
    # (the audit writes such a string id as Python's repr: no JSON text holds it)
    ("a readable id beside it", [call(FF), call('"a\udcffb"'.encode("utf-8", "surrogatepass").replace(
        b"\xed\xb3\xbf", b"\\udcff")), answer(FF)],
     [('"a\\xffb"', *ANSWERED), ("'a\\udcffb'", "unclassified", ["transport.closed"], "log_ended", "check_state",
                                  "no_response")], []),
]


def shape(row: Any) -> tuple[Any, ...]:
    return row.request_id, row.kind, [f.code for f in row.findings], row.end, row.action, row.naive


@pytest.mark.parametrize("format", ["framelog", "jsonrpc"])
@pytest.mark.parametrize(("name", "frames", "calls", "problems"), CASES, ids=[c[0] for c in CASES])
def test_a_request_id_of_bytes_that_are_not_utf8_is_followed(tmp_path: Path, name: str, frames: list[tuple[str, bytes]],
                                                             calls: list[tuple[Any, ...]], problems: list[str],
                                                             format: str) -> None:
    path = tmp_path / "log.jsonl"
    whole = [*INIT, *frames]
    path.write_bytes(frame_log(whole) if format == "framelog" else jsonrpc_lines(whole))
    rows, found, _ = run([path])
    assert sorted(shape(r) for r in rows) == sorted(calls)
    assert [p.category for p in found] == problems


def test_the_same_in_the_log_the_tap_writes(tmp_path: Path) -> None:
    """The tap's frame log keeps the bytes (``b64``); the audit reads it as above."""
    log = tmp_path / "frames.jsonl"
    tap = VerdictTap(frame_log=log)
    conn = tap._open("stdio", "case")
    for direction, data in [*INIT, call(FF), call(FE), answer(FE), answer(FF)]:
        tap._feed(conn, "c2s" if direction == "c2s" else "s2c", data)
    tap.close()
    assert b'"b64"' in log.read_bytes()
    rows, found, _ = run([log])
    assert sorted(shape(r) for r in rows) == [('"a\\xfeb"', *ANSWERED), ('"a\\xffb"', *ANSWERED)]
    assert found == []


# The tracker (the tap's and the audit's pairing): (frames, in order) → per event (type, request id, method)
TRACKED: list[tuple[str, list[tuple[str, bytes]], list[tuple[str, Any, str | None]]]] = [
    ("paired by its bytes", [call(FF), call(FE), answer(FE), answer(FF)],
     [("Answered", FE, "tools/call"), ("Answered", FF, "tools/call")]),
    ("a second answer is a stray", [call(FF), answer(FF), answer(FF)],
     [("Answered", FF, "tools/call"), ("Stray", FF, None)]),
    ("another id answers nothing", [call(FF), answer(b'"a\\u00ffb"')], [("Stray", "a\u00ffb", None)]),
]


@pytest.mark.parametrize(("name", "frames", "expected"), TRACKED, ids=[c[0] for c in TRACKED])
def test_the_tracker_compares_such_an_id_as_bytes(name: str, frames: list[tuple[str, bytes]],
                                                  expected: list[tuple[str, Any, str | None]]) -> None:
    tracker = Tracker(default_version="2025-06-18")
    events = []
    for seq, (direction, data) in enumerate(frames):
        events.extend(tracker.feed("c", "c2s" if direction == "c2s" else "s2c", data, at=0.0, seq=seq))
    shown = [("Answered", e.exchange.request_id, e.exchange.method) if isinstance(e, Answered) else
             ("Stray", e.peek.id, None) for e in events if isinstance(e, (Answered, Stray))]
    assert shown == expected
    assert len(events) == len(expected)
    for e in events:
        if isinstance(e, Answered) and isinstance(e.exchange.request_id, bytes):
            assert id_key(e.exchange.request_id) == ("bytes", e.exchange.request_id)
