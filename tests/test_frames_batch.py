"""The tracker follows a JSON-RPC batch element by element where MCP has batches, and a request
whose params no strict parser reads (bytes that are not UTF-8) by its lenient read.

MCP 2025-03-26 basic/index#batching: "MCP implementations MAY support sending JSON-RPC batches,
but MUST support receiving JSON-RPC batches" (schema/2025-03-26/schema.ts: JSONRPCBatchRequest,
JSONRPCBatchResponse). 2024-11-05's basic/index and schema have no batch; 2025-06-18's changelog:
"Remove support for JSON-RPC batching". JSON-RPC 2.0 section 6: an empty array is an invalid
request; each element is one request object. The version in force for a batch is the one
``initialize`` negotiated on the connection, else the HTTP MCP-Protocol-Version header, else the
tracker's default (frames/_track.py, the Context rules)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict.frames import Answered, Stray, Tracker, Unanswered

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{}}}'
INIT_OK = b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{}}}'
CALL = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t"}}'
OK = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}'
LATIN = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","arguments":{"c":"S\xe3o"}}}'
NAN = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"v":NaN}}}'
SURROGATE = b'{"jsonrpc":"2.0","id":2,"method" : "tools/call","params":{"name":"\\ud800"}}'
ONE_BATCH = b"[" + CALL % 1 + b", " + NOTE + b" ,\t" + CALL % 2 + b"]"
ANSWERS = b"[ " + OK % 2 + b" , " + b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"content":[]}}' + b" ]"


def events(tracker: Tracker, frames: list[tuple[str, bytes]], http: dict[str, Any] | None = None) -> list[Any]:
    """What each frame makes: ("answered", request id, request bytes, answer bytes, version), ("stray",
    its bytes, its reason), ("unanswered", request id)."""
    out: list[Any] = []
    for seq, (direction, data) in enumerate(frames):
        for event in tracker.feed("c", direction, data, at=0.0, seq=seq, http=http):  # type: ignore[arg-type]
            if isinstance(event, Answered):
                e = event.exchange
                assert e.response is not None
                out.append(("answered", e.request_id, e.request.data, e.response.data, e.context.version))
            elif isinstance(event, Stray):
                out.append(("stray", event.seen.data, event.reason))
            elif isinstance(event, Unanswered):
                out.append(("unanswered", event.exchange.request_id))
    return out


def session(version: str) -> list[tuple[str, bytes]]:
    return [("c2s", INIT % version.encode()), ("s2c", INIT_OK % version.encode())]


def initialize(version: str, default: str) -> list[Any]:
    """The initialize exchange (in force for it: the default, nothing negotiated yet)."""
    return [("answered", 0, INIT % version.encode(), INIT_OK % version.encode(), default)]


FOLLOWED = [("answered", 2, CALL % 2, OK % 2, "2025-03-26"),
            ("answered", 1, CALL % 1, b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"content":[]}}', "2025-03-26")]
NOT_PART = "a batch is not part of MCP {} (JSON-RPC batches are 2025-03-26's only: 2024-11-05 has none, " \
           "2025-06-18 removed them)"

# (name, the tracker's default, the HTTP exchange's header, the frames, the events in order)
CASES: list[tuple[str, str, str | None, list[tuple[str, bytes]], list[Any]]] = [
    ("negotiated 2025-03-26: followed element by element, each element's exact bytes",
     "2026-07-28", None, [*session("2025-03-26"), ("c2s", ONE_BATCH), ("s2c", ANSWERS)],
     [*initialize("2025-03-26", "2026-07-28"), *FOLLOWED]),
    ("2025-03-26 by default (nothing negotiated)", "2025-03-26", None, [("c2s", ONE_BATCH), ("s2c", ANSWERS)],
     FOLLOWED),
    ("2025-03-26 by the HTTP header (nothing negotiated)", "2026-07-28", "2025-03-26",
     [("c2s", ONE_BATCH), ("s2c", ANSWERS)], FOLLOWED),
    ("negotiated 2025-06-18, where the default has batches", "2025-03-26", None,
     [*session("2025-06-18"), ("c2s", ONE_BATCH), ("s2c", ANSWERS)],
     [*initialize("2025-06-18", "2025-03-26"), ("stray", ONE_BATCH, NOT_PART.format("2025-06-18")),
      ("stray", ANSWERS, NOT_PART.format("2025-06-18"))]),
    ("negotiated 2024-11-05", "2026-07-28", None, [*session("2024-11-05"), ("c2s", ONE_BATCH)],
     [*initialize("2024-11-05", "2026-07-28"), ("stray", ONE_BATCH, NOT_PART.format("2024-11-05"))]),
    ("the default 2025-11-25", "2025-11-25", None, [("c2s", ONE_BATCH)],
     [("stray", ONE_BATCH, NOT_PART.format("2025-11-25"))]),
    ("an empty batch", "2025-03-26", None, [("c2s", b" [ ] ")],
     [("stray", b" [ ] ", "an empty batch is an invalid request (JSON-RPC 2.0 section 6)")]),
    ("elements that are no object: a number, null, an array (no batch inside a batch)", "2025-03-26", None,
     [("c2s", b'[7, null, [' + CALL % 3 + b"]]")],
     [("stray", b"7", "it is not a JSON-RPC message"), ("stray", b"null", "it is not a JSON-RPC message"),
      ("stray", b"[" + CALL % 3 + b"]", "an array inside a batch is not a JSON-RPC message (JSON-RPC 2.0 section 6: "
                                        "each element is one request, notification or response object)")]),
    # an answer no strict parser reads gets its call judged (unclassified) where it can be paired: with the
    # only request waiting, as any unreadable answer (a proxy answers that call at once, never leaves it waiting)
    ("a batch no strict parser reads (NaN) is paired with the only request waiting", "2025-03-26",
     None, [("c2s", CALL % 1), ("s2c", b'[{"jsonrpc":"2.0","id":1,"result":{"v":NaN}}]')],
     [("answered", 1, CALL % 1, b'[{"jsonrpc":"2.0","id":1,"result":{"v":NaN}}]', "2025-03-26")]),
    ("a batch no strict parser reads, two requests waiting: one stray", "2025-03-26",
     None, [("c2s", CALL % 1), ("c2s", CALL % 2), ("s2c", b'[{"jsonrpc":"2.0","id":1,"result":{"v":NaN}}]')],
     [("stray", b'[{"jsonrpc":"2.0","id":1,"result":{"v":NaN}}]', "it answers no request waiting on this connection")]),
    ("an element holding bytes that are not UTF-8 is paired by its id", "2025-03-26", None,
     [("c2s", b"[" + CALL % 1 + b"]"), ("s2c", b'[{"jsonrpc":"2.0","id":1,"result":{"v":"\xff"}}]')],
     [("answered", 1, CALL % 1, b'{"jsonrpc":"2.0","id":1,"result":{"v":"\xff"}}', "2025-03-26")]),
    ("a second answer in a batch", "2025-03-26", None,
     [("c2s", b"[" + CALL % 1 + b"]"), ("s2c", b"[" + OK % 1 + b"," + OK % 1 + b"]")],
     [("answered", 1, CALL % 1, OK % 1, "2025-03-26"), ("stray", OK % 1, "a second answer to the same request")]),
    # JSON-RPC 2.0 section 6: a batch is the answer to a batch; a request sent alone answered by an element of
    # one is paired with the whole array (its verdict reads what the server sent in reply to it: envelope.batch)
    ("a request sent alone answered in a batch: the array is its answer", "2025-03-26", None,
     [("c2s", CALL % 1), ("c2s", b"[" + CALL % 2 + b"]"), ("s2c", b"[" + OK % 2 + b"," + OK % 1 + b"]")],
     [("answered", 2, CALL % 2, OK % 2, "2025-03-26"),
      ("answered", 1, CALL % 1, b"[" + OK % 2 + b"," + OK % 1 + b"]", "2025-03-26")]),
    # a request whose params hold bytes that are not UTF-8 (a Latin-1 argument): followed by its lenient read
    ("a tools/call with a Latin-1 byte in an argument", "2025-06-18", None, [("c2s", LATIN), ("s2c", OK % 5)],
     [("answered", 5, LATIN, OK % 5, "2025-06-18")]),
    ("a tools/call with NaN in an argument", "2025-06-18", None, [("c2s", NAN), ("s2c", OK % 1)],
     [("answered", 1, NAN, OK % 1, "2025-06-18")]),
    ("a tools/call with a lone surrogate escape", "2025-06-18", None, [("c2s", SURROGATE), ("s2c", OK % 2)],
     [("answered", 2, SURROGATE, OK % 2, "2025-06-18")]),
    ("a notification no strict parser reads is still not followed", "2025-06-18", None,
     [("c2s", b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":NaN}}')],
     [("stray", b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":NaN}}',
       "no strict parser reads it and its bytes name a method: a request or a notification whose method and params "
       "cannot be read, which is not followed")]),
]


@pytest.mark.parametrize(("name", "default", "header", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_batch_is_followed_where_2025_03_26_is_in_force(name: str, default: str, header: str | None,
                                                          frames: list[tuple[str, bytes]], expected: list[Any]) -> None:
    tracker = Tracker(default_version=default)
    assert events(tracker, frames, {"protocol_version": header} if header else None) == expected


def test_a_lenient_request_keeps_its_tool_and_method() -> None:
    tracker = Tracker(default_version="2025-06-18")
    tracker.feed("c", "c2s", b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t\xff"}}',
                 at=0.0, seq=0)
    (waiting,) = tracker.pending("c")
    assert (waiting.method, waiting.request_id, waiting.tool) == ("tools/call", "a", "t\udcff")


def test_a_tracker_that_does_not_read_unreadable_requests_leaves_them_stray() -> None:
    tracker = Tracker(default_version="2025-06-18", read_unreadable_requests=False)
    (stray,) = tracker.feed("c", "c2s", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\xff"}}',
                            at=0.0, seq=0)
    assert isinstance(stray, Stray) and stray.reason.startswith("no strict parser reads it and its bytes name a method")


def test_a_batch_of_100000_calls_and_its_answers_is_followed() -> None:
    n = 100_000
    tracker = Tracker(default_version="2025-03-26")
    requests = b"[" + b",".join(CALL % i for i in range(n)) + b"]"
    answers = b"[" + b",".join(OK % i for i in reversed(range(n))) + b"]"
    assert tracker.feed("c", "c2s", requests, at=0.0, seq=0) == []
    assert len(tracker.pending("c")) == n
    got = tracker.feed("c", "s2c", answers, at=0.0, seq=1)
    assert len(got) == n and all(isinstance(e, Answered) for e in got)
    assert (got[0].exchange.request_id, got[-1].exchange.request_id) == (n - 1, 0)  # type: ignore[union-attr]
    assert tracker.pending("c") == []
