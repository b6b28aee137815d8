"""The Auditor's edges, frame by frame: a call left waiting past the open-call bound, a request
whose id is reused before its answer, a task cancelled, a stray second answer, an unknown
connection's close."""

from __future__ import annotations

import pytest

from mcp_verdict.audit import Auditor, CallRow, Entry, Problem

META = b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'


def call(rid: int, extra: bytes = b"") -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t",%s%s}}' % (rid, META, extra)


def answer(rid: int, result: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, result)


ASK = b'{"resultType":"input_required","requestState":"S%d","inputRequests":{}}'
OK = b'{"resultType":"complete","content":[{"type":"text","text":"ok"}]}'
TASK = (b'{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null}')


def feed(auditor: Auditor, frames: list[tuple[str, bytes]]) -> list[Entry]:
    out: list[Entry] = []
    for line, (direction, data) in enumerate(frames, 1):
        out += auditor.message("c", direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]
    return out + auditor.end()


def test_a_call_waiting_past_the_bound_ends_evicted() -> None:
    auditor = Auditor(max_open=1)
    rows = feed(auditor, [("c2s", call(1)), ("s2c", answer(1, ASK % 1)), ("c2s", call(2)), ("s2c", answer(2, ASK % 2))])
    assert [(r.request_id, r.end, r.kind, r.finished) for r in rows if isinstance(r, CallRow)] == [
        ("1", "evicted", "input_required", False), ("2", "log_ended", "input_required", False)]
    assert auditor.tally["call"] == 4


def test_a_reused_id_ends_the_first_request() -> None:
    rows = feed(Auditor(), [("c2s", call(1)), ("c2s", call(1)), ("s2c", answer(1, OK))])
    calls = [r for r in rows if isinstance(r, CallRow)]
    assert [(r.line, r.end, r.kind, r.action) for r in calls] == [
        (1, "reused_id", "unclassified", "check_state"), (2, "answered", "normal_complete", "accept")]


def test_a_cancelled_task_leaves_the_effect_unknown() -> None:
    tasks = (b',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
             b'"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}')
    frames = [("c2s", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"%s}}' % tasks),
              ("s2c", answer(1, TASK)),
              ("c2s", b'{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"T"}}'),
              ("s2c", answer(2, b'{"resultType":"complete"}')),
              ("c2s", b'{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T"}}'),
              ("s2c", answer(3, b'{"resultType":"complete","taskId":"T","status":"cancelled"}'))]
    rows = [r for r in feed(Auditor(), frames) if isinstance(r, CallRow)]
    assert len(rows) == 1
    assert [(r.method, r.status) for r in rows[0].rounds] == [("tools/call", None), ("tasks/cancel", None),
                                                              ("tasks/get", "cancelled")]
    assert (rows[0].kind, rows[0].finding, rows[0].first_kind) == ("unclassified", "task.status", "task")


def test_a_second_answer_is_a_stray_problem_and_counted() -> None:
    auditor = Auditor()
    entries = feed(auditor, [("c2s", call(1)), ("s2c", answer(1, OK)), ("s2c", answer(1, OK))])
    problems = [e for e in entries if isinstance(e, Problem)]
    assert [(p.line, p.category) for p in problems] == [(3, "stray")] and "second answer" in problems[0].reason
    assert auditor.tally["stray"] == 1 and auditor.lines == 3


def test_closing_a_connection_never_seen_is_nothing() -> None:
    auditor = Auditor()
    assert auditor.record("nobody", "close", "s2c", line=1) == []
    assert auditor.tally["transport"] == 1


def feed_conns(auditor: Auditor, lines: list[tuple[str, str, bytes]]) -> list[Entry]:
    out: list[Entry] = []
    for line, (conn, direction, data) in enumerate(lines, 1):
        if direction == "close":
            out += auditor.record(conn, "close", "s2c", line=line)
        else:
            out += auditor.message(conn, direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]
    return out + auditor.end()


# Past max_conns open connections (a recording whose connections never close: a gateway's log
# cut before their close records), a new connection's first line ends the least recently active
# one as a close would, its waiting call ``evicted``; a later line of it begins it again (an
# answer to a request whose state was dropped is a stray). Before, every connection's state was
# kept to the end: memory grew with the number of connections (~2 KB each).
# (max_conns, lines: (conn, direction or "close", data); the calls (conn, line, end, kind) in
# the order they end; the problems (line, category))
CONN_BOUND: list[tuple[int, list[tuple[str, str, bytes]], list[tuple[str, int, str, str]], list[tuple[int, str]]]] = [
    (2, [("a", "c2s", call(1)), ("b", "c2s", call(1)), ("c", "c2s", call(1)), ("a", "s2c", answer(1, OK))],
     [("a", 1, "evicted", "unclassified"), ("b", 2, "evicted", "unclassified"), ("c", 3, "log_ended", "unclassified")],
     [(4, "stray")]),
    # a line of a connection makes it the most recently active: b, not a, is ended for c
    (2, [("a", "c2s", call(1)), ("b", "c2s", call(1)), ("a", "c2s", call(2)), ("c", "c2s", call(1)),
         ("a", "s2c", answer(1, OK))],
     [("b", 2, "evicted", "unclassified"), ("a", 1, "answered", "normal_complete"),
      ("a", 3, "log_ended", "unclassified"), ("c", 4, "log_ended", "unclassified")], []),
    # a closed connection frees its place; a close of one never seen (or ended) ends nothing
    (2, [("a", "c2s", call(1)), ("b", "c2s", call(1)), ("a", "close", b""), ("z", "close", b""),
         ("c", "c2s", call(1)), ("b", "s2c", answer(1, OK))],
     [("a", 1, "closed", "unclassified"), ("b", 2, "answered", "normal_complete"),
      ("c", 5, "log_ended", "unclassified")], []),
    # within the bound: nothing ended early
    (3, [("a", "c2s", call(1)), ("b", "c2s", call(1)), ("c", "c2s", call(1)), ("a", "s2c", answer(1, OK))],
     [("a", 1, "answered", "normal_complete"), ("b", 2, "log_ended", "unclassified"),
      ("c", 3, "log_ended", "unclassified")], []),
]


@pytest.mark.parametrize(("max_conns", "lines", "calls", "problems"), CONN_BOUND)
def test_connections_past_the_bound_end_the_least_recently_active(
        max_conns: int, lines: list[tuple[str, str, bytes]], calls: list[tuple[str, int, str, str]],
        problems: list[tuple[int, str]]) -> None:
    auditor = Auditor(max_conns=max_conns)
    entries = feed_conns(auditor, lines)
    assert [(r.conn, r.line, r.end, r.kind) for r in entries if isinstance(r, CallRow)] == calls
    assert [(p.line, p.category) for p in entries if isinstance(p, Problem)] == problems
    assert auditor.lines == len(lines)
    assert auditor.connections() == []


def test_the_connection_bound_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="max_conns"):
        Auditor(max_conns=0)
