"""A task id a server creates twice on one connection, the first task not ended, in the audit.

2025-11-25 basic/utilities/tasks.mdx, Task ID Requirements: "Task IDs **MUST** be unique among all
tasks controlled by the receiver"; ext-tasks (2026-07-28) specification/draft/tasks.md: "Each task
is uniquely identifiable by a server-generated **task ID**". A second ``CreateTaskResult`` naming
the id of a task still running (its call open: no poll answered its end) breaks that: the second
call is ``unclassified`` with a ``task.field`` finding naming the reuse (it is the server's answer
to that call that broke the rule), and from then on the polls and related requests naming that id
cannot be told apart: they are neither call's (messages). The first call's outcome is unknown
from then on (its task's polls can no longer be told to be its): it ends at the reuse
(``reused_id``), ``unclassified`` with a ``task.field`` finding naming the reuse, its rounds those
made before the reuse (a poll sent before it and still waiting a round without its answer), as the
tap judges it again (tests/integrations/test_tap_task_reuse_both.py). A task id created again after
its first task ended is the later call's (its polls follow it), and the first call stays as it ended.

Before this, the second creation took the id over: the first call followed nothing further and
ended ``task``/``log_ended`` with no finding, and its polls' end was given to the second call; then
the first call ended ``task``/``log_ended`` with no finding, as if its task merely ran past the log.

Hand-written frame logs (format v1) and JSON-RPC JSON Lines; expected values by hand from the spec text above."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import CallRow

from .test_audit_asked_at_sight import DONE_T1, GET, RESULT, STAMP, T, created, for_task, poll, status, task_call
from .test_audit_asked_judged import (
    ALL,
    OBJECT_PROPERTY,
    V3,
    E,
    answer,
    ask,
    call,
    continued,
    frame_log,
    init,
    jsonrpc_lines,
)
from .test_audit_recorded import run

REUSED = ["task.field"]


def made(rid: int, task: bytes) -> tuple[str, bytes]:
    """A 2025-11-25 CreateTaskResult naming ``task``, working."""
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"task":{"taskId":"%s","status":"working",%s}}}' % (
        rid, task, STAMP)


def polled(rid: int, task: bytes, method: str = RESULT) -> tuple[str, bytes]:
    return "c2s", b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"taskId":"%s"}}' % (rid, method.encode(), task)


def done(rid: int, task: bytes) -> tuple[str, bytes]:
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}],"isError":false,' \
                  b'"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"%s"}}}}' % (rid, task)


# (case, frames after initialize) → per call (request id, kind, end, finding codes, rounds' methods), by hand
CASES: list[tuple[str, list[tuple[Any, ...]], list[tuple[Any, ...]]]] = [
    ("created twice, the first running",
     [task_call(1), created(1), task_call(2), created(2)],
     [("1", "unclassified", "reused_id", REUSED, [T]), ("2", "unclassified", "answered", REUSED, [T])]),
    # the poll of T1 and its end cannot be told apart: neither call's (the first is not ended by the second's poll)
    ("created twice, then polled to its end",
     [task_call(1), created(1), task_call(2), created(2), poll(3, RESULT), answer(3, DONE_T1)],
     [("1", "unclassified", "reused_id", REUSED, [T]), ("2", "unclassified", "answered", REUSED, [T])]),
    # an elicitation naming T1 (refused: a property of type object) is neither call's either
    ("created twice, a request naming it",
     [task_call(1), created(1), task_call(2), created(2), poll(3, RESULT), ask(7, E, for_task(OBJECT_PROPERTY)),
      answer(3, DONE_T1)],
     [("1", "unclassified", "reused_id", REUSED, [T]), ("2", "unclassified", "answered", REUSED, [T])]),
    # a poll the client sent before the reuse was the first task's: it stays so (its status round)
    ("a poll sent before the reuse",
     [task_call(1), created(1), poll(3, GET), task_call(2), created(2), status(3, b"working")],
     [("1", "unclassified", "reused_id", REUSED, [T, GET]), ("2", "unclassified", "answered", REUSED, [T])]),
    ("created three times",
     [task_call(1), created(1), task_call(2), created(2), task_call(4), created(4), poll(5, RESULT),
      answer(5, DONE_T1)],
     [("1", "unclassified", "reused_id", REUSED, [T]), ("2", "unclassified", "answered", REUSED, [T]),
      ("4", "unclassified", "answered", REUSED, [T])]),
    # a plain call waiting meanwhile is not blamed for the request naming T1
    ("created twice, a plain call waiting",
     [task_call(1), created(1), task_call(2), created(2), call(4, "b"), ask(7, E, for_task(OBJECT_PROPERTY)),
      answer(4)],
     [("1", "unclassified", "reused_id", REUSED, [T]), ("2", "unclassified", "answered", REUSED, [T]),
      ("4", "normal_complete", "answered", [], [T])]),
    # not a reuse: the first task ended (tasks/result answered) before T1 was created again: the later call's
    ("created again after the first ended",
     [task_call(1), created(1), poll(2, RESULT), answer(2, DONE_T1), task_call(3), created(3), poll(4, RESULT),
      answer(4, DONE_T1)],
     [("1", "normal_complete", "answered", [], [T, RESULT]), ("3", "normal_complete", "answered", [], [T, RESULT])]),
    # not a reuse: two ids, each followed to its end
    ("two task ids",
     [task_call(1), made(1, b"T1"), task_call(2), made(2, b"T2"), polled(3, b"T2"), done(3, b"T2"),
      polled(4, b"T1"), done(4, b"T1")],
     [("1", "normal_complete", "answered", [], [T, RESULT]), ("2", "normal_complete", "answered", [], [T, RESULT])]),
]


def shape(row: CallRow) -> tuple[Any, ...]:
    return row.request_id, row.kind, row.end, [f.code for f in row.findings], [x.method for x in row.rounds]


@pytest.mark.parametrize("format", ["framelog", "jsonrpc"])
@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_task_id_created_twice_blames_the_second_answer(tmp_path: Path, name: str, frames: list[tuple[Any, ...]],
                                                          expected: list[tuple[Any, ...]], format: str) -> None:
    path = tmp_path / "log.jsonl"
    whole = [*init(V3, ALL), *frames]
    path.write_bytes(frame_log(whole) if format == "framelog" else jsonrpc_lines(whole))
    rows, problems, _ = run([path])
    assert sorted(shape(r) for r in rows) == sorted(expected)
    assert [p.category for p in problems] == []


# The decision of each call, by request id (action, unknown_effect), by hand. README, the policy: check_state is the
# decision for "a write whose effect is unknown" ("observe the state before anything else; never resend blindly").
# Both calls of a reused task id had their request run (each answered a task) and their polls can no longer be
# told apart (2025-11-25 basic/utilities/tasks: "Task IDs MUST be unique among all tasks controlled by the
# receiver"): their effect is unknown; no tools/list here, so the tool may write. Before: investigate, not counted
# as an unknown effect.
CHECK = ("check_state", True)
ACTIONS: dict[str, dict[str, tuple[str, bool]]] = {
    "created twice, the first running": {"1": CHECK, "2": CHECK},
    "created twice, then polled to its end": {"1": CHECK, "2": CHECK},
    "created twice, a request naming it": {"1": CHECK, "2": CHECK},
    "a poll sent before the reuse": {"1": CHECK, "2": CHECK},
    "created three times": {"1": CHECK, "2": CHECK, "4": CHECK},
    "created twice, a plain call waiting": {"1": CHECK, "2": CHECK, "4": ("accept", False)},
    "created again after the first ended": {"1": ("accept", False), "3": ("accept", False)},
    "two task ids": {"1": ("accept", False), "2": ("accept", False)},
}


@pytest.mark.parametrize(("name", "frames"), [c[:2] for c in CASES], ids=[c[0] for c in CASES])
def test_a_call_of_a_reused_task_id_has_an_unknown_effect(tmp_path: Path, name: str,
                                                          frames: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), *frames]))
    rows, _, _ = run([path])
    assert {r.request_id: (r.action, r.unknown_effect) for r in rows} == ACTIONS[name]
    for row in rows:
        assert row.rule == ("task_id_reused" if row.action == "check_state" else row.action)


@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_same_when_another_auditor_continues_the_connection(name: str, frames: list[tuple[Any, ...]],
                                                                expected: list[tuple[Any, ...]]) -> None:
    """Cut at every line (``export``, pickled, ``adopt``): the reuse is seen across the cut."""
    whole = [*init(V3, ALL), *frames]
    for cut in range(len(whole) + 1):
        entries = continued(whole, cut)
        assert sorted(shape(e) for e in entries if isinstance(e, CallRow)) == sorted(expected), cut


def test_the_finding_names_the_task_the_first_call_and_the_rule(tmp_path: Path) -> None:
    """Its path is the task id in the CreateTaskResult (2025-11-25: ``result.task``); its message names
    the id (peer text: escapes shown as such), the request that created it first, and the rule."""
    task = b"T\\u001b[2J\\u202e1"
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), task_call(1), made(1, task), task_call(2), made(2, task)]))
    rows, _, _ = run([path])
    second = next(r for r in rows if r.request_id == "2")
    (found,) = second.findings
    assert (found.code, found.severity, found.path) == ("task.field", "error", "/result/task/taskId")
    assert found.message.startswith("the task id 'T\\x1b[2J\\u202e1' is still in use: the tools/call with request "
                                    "id 1 on this connection created it and its task has not ended (2025-11-25 basic/"
                                    "utilities/tasks: task IDs MUST be unique among all tasks controlled by the "
                                    "receiver)")
    assert "\x1b" not in found.message and "\u202e" not in found.message
    assert not second.accepted


# 2026-07-28 (ext-tasks): a tools/call answered with resultType "task"; the task polled by tasks/get, its result
# inlined when it completed
META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/'
        b'clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}')
TASK = (b'{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}')
COMPLETED = (b'{"resultType":"complete","taskId":"T","status":"completed","createdAt":"2026-01-01T00:00:00Z",'
             b'"lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":60000,"result":{"resultType":"complete",'
             b'"content":[{"type":"text","text":"report"}]}}')


def request_2026(rid: int, method: str, params: bytes) -> tuple[str, bytes]:
    return "c2s", b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s,%s}}' % (rid, method.encode(), params, META)


def result_2026(rid: int, body: bytes) -> tuple[str, bytes]:
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, body)


CALL_2026 = b'"name":"t","arguments":{}'
GET_T = b'"taskId":"T"'
CASES_2026: list[tuple[str, list[tuple[Any, ...]], list[tuple[Any, ...]]]] = [
    ("created twice, then polled to its end",
     [request_2026(1, T, CALL_2026), result_2026(1, TASK), request_2026(2, T, CALL_2026), result_2026(2, TASK),
      request_2026(3, GET, GET_T), result_2026(3, COMPLETED)],
     [("1", "unclassified", "reused_id", REUSED, [T]), ("2", "unclassified", "answered", REUSED, [T])]),
    ("created again after the first ended",
     [request_2026(1, T, CALL_2026), result_2026(1, TASK), request_2026(2, GET, GET_T), result_2026(2, COMPLETED),
      request_2026(3, T, CALL_2026), result_2026(3, TASK), request_2026(4, GET, GET_T), result_2026(4, COMPLETED)],
     [("1", "normal_complete", "answered", [], [T, GET]), ("3", "normal_complete", "answered", [], [T, GET])]),
]


@pytest.mark.parametrize(("name", "frames", "expected"), CASES_2026, ids=[c[0] for c in CASES_2026])
def test_the_same_for_a_2026_task(tmp_path: Path, name: str, frames: list[tuple[Any, ...]],
                                  expected: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log(frames))
    rows, problems, _ = run([path])
    assert sorted(shape(r) for r in rows) == sorted(expected)
    assert [p.category for p in problems] == []
    for row in rows:
        if row.findings:
            assert [f.path for f in row.findings] == ["/result/taskId"]
            assert "ext-tasks: each task is uniquely identifiable by a server-generated task ID" in \
                row.findings[0].message
