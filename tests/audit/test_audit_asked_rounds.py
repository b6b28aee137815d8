"""A 2025 server's input request made during a call that the client never answers while the call
waits is a round of the call all the same (README, "The audit": rounds and ``round_details``):
the request that made the call ``unclassified`` is on the call's row, with its id, line and kind,
and no answer (``ended_at``, ``response_bytes`` and ``answer_line`` null). It comes after the
call's other rounds (when the call ends), or when the recording says it never will be answered
(its id reused by the server, the connection closed). An answer after the call ended is a message
line, no round of another call. Bounded as every call's rounds are (the first 100 and the last
100 kept, ``rounds_shed`` counting those between), and the requests waiting for it at most what
the tracker holds waiting.

Before, such a request had its findings on the call and no round: a reader of the rows saw an
``unclassified`` call whose rounds named no request that made it so.

Hand-written frame logs (format v1); expected values by hand from 2025-11-25's ``schema.json``
(PrimitiveSchemaDefinition has no ``object`` type) and the README's row columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import Auditor, CallRow

from .test_audit_asked_judged import (
    ALL,
    FORM,
    OBJECT_PROPERTY,
    V3,
    E,
    answer,
    ask,
    call,
    continued,
    feed,
    frame_log,
    init,
    reply,
)
from .test_audit_recorded import run

T = "tools/call"

# (case, frames after initialize: lines 3 on) → per call: (tool, kind, rounds as (method, request id, kind, line,
# answer line)), by hand
CASES: list[tuple[str, list[tuple[Any, ...]], list[tuple[Any, ...]]]] = [
    ("never answered", [call(1), ask(7, E, OBJECT_PROPERTY), answer(1)],
     [("t", "unclassified", [(T, "1", "normal_complete", 3, 5), (E, "7", "unclassified", 4, None)])]),
    # answered while the call waits: its answer's round, as before
    ("answered", [call(1), ask(7, E, OBJECT_PROPERTY), reply(7), answer(1)],
     [("t", "unclassified", [(E, "7", "unclassified", 4, 5), (T, "1", "normal_complete", 3, 6)])]),
    # a valid one never answered: input_required, no finding
    ("a valid one never answered", [call(1), ask(7, E, FORM), answer(1)],
     [("t", "normal_complete", [(T, "1", "normal_complete", 3, 5), (E, "7", "input_required", 4, None)])]),
    # answered after the call: the call's round without an answer; the late answer no round of the call waiting
    # then (made during the first call, not the second)
    ("answered after the call, another call waiting",
     [call(1), ask(7, E, OBJECT_PROPERTY), answer(1), call(2, "b"), reply(7), answer(2)],
     [("t", "unclassified", [(T, "1", "normal_complete", 3, 5), (E, "7", "unclassified", 4, None)]),
      ("b", "normal_complete", [(T, "2", "normal_complete", 6, 8)])]),
    # the server reuses its id before an answer: the first will never be answered (its round then), the second
    # is answered
    ("its id reused by the server",
     [call(1), ask(7, E, OBJECT_PROPERTY), ask(7, E, FORM), reply(7), answer(1)],
     [("t", "unclassified", [(E, "7", "unclassified", 4, None), (E, "7", "input_required", 5, 6),
                             (T, "1", "normal_complete", 3, 7)])]),
    # the connection closes: the call's round, then the request's
    ("the connection closes", [call(1), ask(7, E, OBJECT_PROPERTY), ("close",)],
     [("t", "unclassified", [(T, "1", "unclassified", 3, None), (E, "7", "unclassified", 4, None)])]),
]


def shape(row: CallRow) -> tuple[Any, ...]:
    return (row.tool, row.kind, [(r.method, r.request_id, r.kind, r.line, r.answer_line) for r in row.rounds])


@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_request_never_answered_while_its_call_waits_is_a_round(tmp_path: Path, name: str,
                                                                  frames: list[tuple[Any, ...]],
                                                                  expected: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), *frames]))
    rows, problems, _ = run([path])
    assert problems == []
    assert sorted(shape(r) for r in rows) == sorted(expected)
    for row in rows:
        for r in row.rounds:
            unanswered = r.answer_line is None
            assert (r.ended_at is None, r.response_bytes is None) == (unanswered, unanswered)
            assert r.request_bytes > 0


@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_same_when_another_auditor_continues_at_any_line(name: str, frames: list[tuple[Any, ...]],
                                                             expected: list[tuple[Any, ...]]) -> None:
    """Cut at every line (``export``, pickled, ``adopt``: the audit's ``--jobs`` parts)."""
    whole = [*init(V3, ALL), *frames]
    for cut in range(len(whole) + 1):
        entries = continued(whole, cut)
        assert sorted(shape(e) for e in entries if isinstance(e, CallRow)) == sorted(expected), cut


def test_a_server_asking_without_end_keeps_the_rounds_of_any_call() -> None:
    """1,000 requests never answered during one call: the call's row keeps its first 100 rounds and its last
    100, counts the 801 between (1,001 in all with the call's own), and nothing of them is held once the call
    ended."""
    auditor = Auditor()
    frames = [*init(V3, ALL), call(1), *(ask(100 + i, E, OBJECT_PROPERTY) for i in range(1000)), answer(1)]
    rows = [e for e in feed(auditor, frames, 1) if isinstance(e, CallRow)]
    assert len(rows) == 1
    row = rows[0]
    assert (row.kind, row.round_count, len(row.rounds), row.rounds_shed) == ("unclassified", 1001, 200, 801)
    # the call's answer first, then the requests still waiting when it ended, in order
    assert [(r.method, r.request_id, r.answer_line) for r in row.rounds[:2]] == [(T, "1", 1004), (E, "100", None)]
    assert [r.request_id for r in row.rounds[-2:]] == ["1098", "1099"]
    assert not auditor._asks and not auditor._asks_of and not auditor._asked


def test_requests_the_tracker_gives_up_on_are_rounds_then() -> None:
    """A task's call waits while its polls are answered and the server asks 1,000 times, never answered, the
    tracker holding at most 50 requests waiting (``max_open``): each request dropped is the task's round when
    dropped; what the auditor holds for them stays within the tracker's bound."""
    from .test_audit_asked_at_sight import RESULT, created, for_task, poll, task_call

    auditor = Auditor(max_open=50)
    frames = [*init(V3, ALL), task_call(1), created(1), *(ask(100 + i, E, for_task(OBJECT_PROPERTY))
                                                          for i in range(1000))]
    held = []
    out: list[Any] = []
    for line, frame in enumerate(frames, 1):
        out += feed(auditor, [frame], line)
        held.append(len(auditor._asks))
    assert max(held) <= 50
    out += feed(auditor, [poll(2, RESULT), answer(2, b'{"content":[],"isError":false}')], len(frames) + 1)
    rows = [e for e in out if isinstance(e, CallRow)]
    assert len(rows) == 1
    row = rows[0]
    # the call's handle, the 951 requests dropped (ids 100 to 1050: past 50 waiting, the last by tasks/result's
    # own), tasks/result, then the 49 still waiting (1051 to 1099)
    assert (row.kind, row.round_count, row.rounds_shed) == ("unclassified", 1002, 802)
    assert [(r.method, r.request_id) for r in row.rounds[:3]] == [(T, "1"), (E, "100"), (E, "101")]
    assert [(r.method, r.request_id) for r in row.rounds[-50:-48]] == [(RESULT, "2"), (E, "1051")]
    assert not auditor._asks and not auditor._asks_of and not auditor._asked
