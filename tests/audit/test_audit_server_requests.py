"""A 2025 server's own requests made while a tools/call waits (elicitation/create,
sampling/createMessage, roots/list: 2025-06-18 client/elicitation, client/sampling, client/roots)
are that call's input rounds: when the client answers one, it goes to the call waiting on the
HTTP exchange it came in (Streamable HTTP: the server's requests about a call travel on the
stream of that call's POST), else to the only call waiting on its connection; else to none (it
is a message line). Hand-written frame logs (format v1, README "What it records"), the expected
rows and line counts written by hand from the frames.

The call is looked up by connection and exchange: a scan of every request waiting made each
server request cost as many steps as there were, quadratic in a log of many calls waiting while
the server asks (10,000 took 4.7 s)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Literal

import pytest

from mcp_verdict.audit import Auditor, CallRow, _parts
from mcp_verdict.frames import FrameRecord, encode

from .._calls import python_steps
from .test_audit_recorded import run

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{' \
       b'"elicitation":{},"sampling":{},"roots":{}},"clientInfo":{"name":"c","version":"1"}}}'
READY = b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},' \
        b'"serverInfo":{"name":"s","version":"1"}}}'
ASKS = {
    "elicitation/create": b'{"message":"name?","requestedSchema":{"type":"object","properties":{}}}',
    "sampling/createMessage": b'{"messages":[],"maxTokens":5}',
    "roots/list": b"{}",
}
REPLIES = {
    "elicitation/create": b'{"action":"decline"}',
    "sampling/createMessage": b'{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}',
    "roots/list": b'{"roots":[]}',
}


def init(version: bytes = b"2025-06-18") -> list[tuple[Any, ...]]:
    return [("c2s", INIT % version), ("s2c", READY % version)]


def call(rid: int, tool: str) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{}}}' % (
        rid, tool.encode())


def listing(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}' % rid


def listed(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{"tools":[]}}' % rid


def done(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}' % rid


def ask(rid: int, method: str = "elicitation/create") -> bytes:
    """The server's request (its own ids: each side numbers its own)."""
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}' % (rid, method.encode(), ASKS[method])


def reply(rid: int, method: str = "elicitation/create") -> bytes:
    """The client's answer to the server's request."""
    return b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, REPLIES[method])


def ping(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % rid


def pong(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{}}' % rid


def log(*frames: tuple[Any, ...], transport: Literal["stdio", "http"] = "stdio") -> bytes:
    """Per line (direction, data[, HTTP exchange (None: none said)[, connection]]); ("close",
    connection) a close record."""
    out = []
    for seq, frame in enumerate(frames, 1):
        if frame[0] == "close":
            out.append(encode(FrameRecord(frame[1], seq, 1_790_000_000.0 + seq, "s2c", "close", transport=transport)))
            continue
        direction, data, *more = frame
        number = more[0] if more else None
        conn = more[1] if len(more) > 1 else "c1"
        http = {"exchange": number, "method": "POST"} if number is not None else None
        out.append(encode(FrameRecord(conn, seq, 1_790_000_000.0 + seq, direction, "message", data,
                                      transport=transport, http=http)))
    return b"".join(out)


def http_log(*frames: tuple[Any, ...]) -> bytes:
    return log(*frames, transport="http")


E, T = "elicitation/create", "tools/call"
# (case, the log) → per call (tool, request id, its rounds' methods, end), the line counts; by hand from the frames
CASES: list[tuple[str, bytes, list[tuple[Any, ...]], dict[str, int]]] = [
    ("stdio: the only call waiting", log(
        *init(), ("c2s", call(1, "a")), ("s2c", ask(1)), ("c2s", reply(1)), ("s2c", done(1))),
     [("a", "1", [E, T], "answered")], {"message": 2, "call": 4}),
    ("stdio: sampling and roots too", log(
        *init(), ("c2s", call(1, "a")), ("s2c", ask(1, "sampling/createMessage")),
        ("c2s", reply(1, "sampling/createMessage")), ("s2c", ask(2, "roots/list")), ("c2s", reply(2, "roots/list")),
        ("s2c", done(1))),
     [("a", "1", ["sampling/createMessage", "roots/list", T], "answered")], {"message": 2, "call": 6}),
    ("stdio: two calls waiting, neither", log(
        *init(), ("c2s", call(1, "a")), ("c2s", call(2, "b")), ("s2c", ask(1)), ("c2s", reply(1)),
        ("s2c", done(1)), ("s2c", done(2))),
     [("a", "1", [T], "answered"), ("b", "2", [T], "answered")], {"message": 4, "call": 4}),
    ("stdio: no call waiting", log(
        *init(), ("c2s", call(1, "a")), ("s2c", done(1)), ("s2c", ask(1)), ("c2s", reply(1))),
     [("a", "1", [T], "answered")], {"message": 4, "call": 2}),
    # the call is the one waiting when the client answers the server's request
    ("stdio: the other call answered before the client answers", log(
        *init(), ("c2s", call(1, "a")), ("c2s", call(2, "b")), ("s2c", ask(1)), ("s2c", done(1)),
        ("c2s", reply(1)), ("s2c", done(2))),
     [("a", "1", [T], "answered"), ("b", "2", [E, T], "answered")], {"message": 2, "call": 6}),
    # made while a call alone waited: that call's, answered while it waits, whoever waits beside it then
    ("stdio: a second call sent before the client answers", log(
        *init(), ("c2s", call(1, "a")), ("s2c", ask(1)), ("c2s", call(2, "b")), ("c2s", reply(1)),
        ("s2c", done(1)), ("s2c", done(2))),  # (made while a alone waited: a's, as its findings would be)
     [("a", "1", [E, T], "answered"), ("b", "2", [T], "answered")], {"message": 2, "call": 6}),
    ("stdio: another client request waiting is no call", log(
        *init(), ("c2s", listing(1)), ("c2s", call(2, "a")), ("s2c", ask(1)), ("c2s", reply(1)),
        ("s2c", listed(1)), ("s2c", done(2))),
     [("a", "2", [E, T], "answered")], {"message": 4, "call": 4}),
    # a server request waiting is no call; answered while the call waits, any is its round (a ping too)
    ("stdio: a server request waiting is no call", log(
        *init(), ("c2s", call(1, "a")), ("s2c", ping(7)), ("s2c", ask(1)), ("c2s", reply(1)),
        ("c2s", pong(7)), ("s2c", done(1))),
     [("a", "1", [E, "ping", T], "answered")], {"message": 2, "call": 6}),
    ("stdio: a reused id puts the first call out of waiting", log(
        *init(), ("c2s", call(1, "a")), ("c2s", call(1, "b")), ("s2c", ask(1)), ("c2s", reply(1)),
        ("s2c", done(1))),
     [("a", "1", [T], "reused_id"), ("b", "1", [E, T], "answered")], {"message": 2, "call": 5}),
    ("stdio: a call ended by its connection's close waits no more", log(
        *init(), ("c2s", call(1, "a")), ("close", "c1"), *init(), ("c2s", call(2, "b")), ("s2c", ask(1)),
        ("c2s", reply(1)), ("s2c", done(2))),
     [("a", "1", [T], "closed"), ("b", "2", [E, T], "answered")], {"message": 4, "call": 5, "transport": 1}),
    ("stdio: each connection its own", log(
        ("c2s", call(1, "a"), None, "c1"), ("c2s", call(1, "b"), None, "c2"), ("s2c", ask(1), None, "c2"),
        ("c2s", reply(1), None, "c2"), ("s2c", done(1), None, "c1"), ("s2c", done(1), None, "c2")),
     [("a", "1", [T], "answered"), ("b", "1", [E, T], "answered")], {"call": 6}),
    # 2025-03-26: a batch's requests wait each on its own
    ("stdio: a call of a batch", log(
        *init(b"2025-03-26"), ("c2s", b"[" + listing(1) + b"," + call(2, "a") + b"]"), ("s2c", ask(1)),
        ("c2s", reply(1)), ("s2c", b"[" + listed(1) + b"," + done(2) + b"]")),
     [("a", "2", [E, T], "answered")], {"message": 2, "call": 4}),
    ("stdio: two calls of a batch, neither", log(
        *init(b"2025-03-26"), ("c2s", b"[" + call(1, "a") + b"," + call(2, "b") + b"]"), ("s2c", ask(1)),
        ("c2s", reply(1)), ("s2c", b"[" + done(1) + b"," + done(2) + b"]")),
     [("a", "1", [T], "answered"), ("b", "2", [T], "answered")], {"message": 4, "call": 2}),
    ("http: the call of the exchange the server asks in", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("c2s", call(2, "b"), 4), ("s2c", ask(1), 4), ("c2s", reply(1), 5),
        ("s2c", ask(2), 3), ("c2s", reply(2), 6), ("s2c", done(1), 3), ("s2c", done(2), 4)),
     [("a", "1", [E, T], "answered"), ("b", "2", [E, T], "answered")], {"message": 2, "call": 8}),
    ("http: two calls waiting, the server asks in neither's exchange", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("c2s", call(2, "b"), 4), ("s2c", ask(1), 9), ("c2s", reply(1), 5),
        ("s2c", done(1), 3), ("s2c", done(2), 4)),
     [("a", "1", [T], "answered"), ("b", "2", [T], "answered")], {"message": 4, "call": 4}),
    ("http: two calls waiting, the server asks in no exchange", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("c2s", call(2, "b"), 4), ("s2c", ask(1)), ("c2s", reply(1), 5),
        ("s2c", done(1), 3), ("s2c", done(2), 4)),
     [("a", "1", [T], "answered"), ("b", "2", [T], "answered")], {"message": 4, "call": 4}),
    ("http: the only call waiting, the server asks in another exchange", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("s2c", ask(1), 9), ("c2s", reply(1), 5), ("s2c", done(1), 3)),
     [("a", "1", [E, T], "answered")], {"message": 2, "call": 4}),
    ("http: the only call waiting, the server asks in no exchange", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("s2c", ask(1)), ("c2s", reply(1), 5), ("s2c", done(1), 3)),
     [("a", "1", [E, T], "answered")], {"message": 2, "call": 4}),
    ("http: two calls in the exchange the server asks in, neither", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("c2s", call(2, "b"), 3), ("c2s", call(3, "c"), 4),
        ("s2c", ask(1), 3), ("c2s", reply(1), 5), ("s2c", done(1), 3), ("s2c", done(2), 3), ("s2c", done(3), 4)),
     [("a", "1", [T], "answered"), ("b", "2", [T], "answered"), ("c", "3", [T], "answered")],
     {"message": 4, "call": 6}),
    ("http: the call of its exchange among others answered", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("c2s", call(2, "b"), 4), ("c2s", call(3, "c"), 5),
        ("s2c", done(1), 3), ("s2c", ask(1), 5), ("c2s", reply(1), 6), ("s2c", done(2), 4), ("s2c", done(3), 5)),
     [("a", "1", [T], "answered"), ("b", "2", [T], "answered"), ("c", "3", [E, T], "answered")],
     {"message": 2, "call": 8}),
    # two sessions over one client, each numbering from 1: the first call waits aside, the second under
    # the id; the answer in exchange 3 is the first's, then the one in exchange 4 the second's
    ("http: two sessions' calls under one id", http_log(
        *init(), ("c2s", call(1, "a"), 3), ("c2s", call(1, "b"), 4), ("s2c", ask(1), 4), ("c2s", reply(1), 5),
        ("s2c", done(1), 3), ("s2c", done(1), 4)),
     [("a", "1", [T], "answered"), ("b", "1", [E, T], "answered")], {"message": 2, "call": 6}),
]


def rows_of(entries: list[CallRow]) -> list[tuple[Any, ...]]:
    return [(r.tool, r.request_id, [x.method for x in r.rounds], r.end) for r in entries]


@pytest.mark.parametrize(("name", "data", "calls", "counts"), CASES, ids=[c[0] for c in CASES])
def test_a_server_request_is_the_round_of_the_call_it_belongs_to(tmp_path: Path, name: str, data: bytes,
                                                                 calls: list[tuple[Any, ...]],
                                                                 counts: dict[str, int]) -> None:
    path = tmp_path / "frames.jsonl"
    path.write_bytes(data)
    rows, problems, totals = run([path])
    assert rows_of(rows) == calls
    assert problems == []
    assert {k: n for k, n in totals.tally.items() if n} == counts


@pytest.mark.parametrize(("name", "data", "calls", "counts"), CASES, ids=[c[0] for c in CASES])
def test_the_same_rounds_when_the_log_is_cut_into_parts(tmp_path: Path, name: str, data: bytes,
                                                       calls: list[tuple[Any, ...]], counts: dict[str, int],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes, a part a line or so: a connection's calls waiting cross from one to the next
    (``Auditor.export``, ``adopt``)."""
    path = tmp_path / "frames.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(_parts, "_STRIPE", 1)
    rows, problems, totals = run([path], jobs=2)
    assert rows_of(rows) == calls
    assert problems == []
    assert {k: n for k, n in totals.tally.items() if n} == counts


# An Auditor fed by a caller may be given HTTP exchanges no frame log holds (the format's are integers):
# compared as values, as ever. (the exchanges of the calls a and b, the server request's) → the call it goes to
ODD = [
    ("3", "4", "4", "b"),
    ("3", "4", "5", None),
    (3, 3.0, 3, None),  # equal values: two calls in its exchange, so neither
    (3, 4.0, 4, "b"),
    (3, 4, 4.0, "b"),
    (True, 2, 1, "a"),
]


@pytest.mark.parametrize(("first", "second", "asked", "expected"), ODD)
def test_exchanges_that_are_no_integers(first: Any, second: Any, asked: Any, expected: str | None) -> None:
    auditor = Auditor()
    frames: list[tuple[Literal["c2s", "s2c"], bytes, Any]] = [
        ("c2s", INIT % b"2025-06-18", None), ("s2c", READY % b"2025-06-18", None), ("c2s", call(1, "a"), first),
        ("c2s", call(2, "b"), second), ("s2c", ask(1), asked), ("c2s", reply(1), 7), ("s2c", done(1), first),
        ("s2c", done(2), second)]
    entries = []
    for seq, (direction, data, number) in enumerate(frames, 1):
        http = {"exchange": number} if number is not None else None
        entries += auditor.message("c1", direction, data, float(seq), seq, seq, http, "http")
    entries += auditor.end()
    rows = [e for e in entries if isinstance(e, CallRow)]
    assert [(r.tool, [x.method for x in r.rounds]) for r in rows] == [
        (tool, [E, T] if tool == expected else [T]) for tool in ("a", "b")]


def many(n: int, http: bool) -> bytes:
    """n calls waiting, then the server's request about each (in the call's exchange over HTTP),
    the client's answers to them, the calls' answers."""
    frames: list[tuple[Any, ...]] = [("c2s", call(i, "t"), i if http else None) for i in range(1, n + 1)]
    frames += [("s2c", ask(i), i if http else None) for i in range(1, n + 1)]
    frames += [("c2s", reply(i), n + i if http else None) for i in range(1, n + 1)]
    frames += [("s2c", done(i), i if http else None) for i in range(1, n + 1)]
    return log(*frames, transport="http" if http else "stdio")


def expected_many(n: int, http: bool) -> tuple[list[tuple[Any, ...]], dict[str, int]]:
    """Over HTTP each server request is its exchange's call's round; over stdio many calls wait:
    none is (each a message line)."""
    rounds = [E, T] if http else [T]
    return ([("t", str(i), rounds, "answered") for i in range(1, n + 1)],
            {"call": 4 * n} if http else {"call": 2 * n, "message": 2 * n})


@pytest.mark.parametrize("http", [True, False], ids=["http", "stdio"])
def test_twenty_thousand_calls_waiting_while_the_server_asks(tmp_path: Path, http: bool) -> None:
    path = tmp_path / "frames.jsonl"
    path.write_bytes(many(20_000, http))
    rows, problems, totals = run([path])
    assert (rows_of(rows), {k: n for k, n in totals.tally.items() if n}) == expected_many(20_000, http)
    assert problems == []


@pytest.mark.parametrize("http", [True, False], ids=["http", "stdio"])
def test_a_server_request_costs_the_same_steps_whatever_the_calls_waiting(tmp_path: Path, http: bool) -> None:
    """The steps (``tests._calls.python_steps``: the Python calls and lines run) of the audit of
    twice the calls waiting and twice the server requests: at most 2.1 times as many (the scan made
    it ~3.3 times at 1,000 and 2,000, and ~N²: 4.7 s at 10,000)."""
    steps = []
    for n in (1000, 2000):
        path = tmp_path / f"frames-{n}.jsonl"
        path.write_bytes(many(n, http))
        count, (rows, _, totals) = python_steps(partial(run, [path]))
        assert (rows_of(rows), {k: v for k, v in totals.tally.items() if v}) == expected_many(n, http)
        steps.append(count)
    assert steps[1] <= 2.1 * steps[0], steps
