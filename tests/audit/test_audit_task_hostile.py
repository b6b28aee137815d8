"""Hostile 2025-11-25 task cases in the audit (basic/utilities/tasks.mdx): each ends in a clear
verdict, no call blamed for what it did not ask. A request naming a task is its call's only while
the task runs ("an elicitation that a task-augmented tool call depends on MUST share the same
related task ID with that tool call's task"); after its end (tasks/result's answer: Result
Retrieval) it is the call waiting then, if one; a related-task that names no task of this
connection (not an object, a number, an id never created, one with a bidi override, a 1 MB one) is
no task's; a task id created twice while its first task runs is neither call's (both calls
unclassified: test_audit_task_reuse.py); a tasks/result answered with an error ends
the call on it; a poll answered after the connection closed is a stray. They hold the behaviour
of the code before this branch, but for the round a request never answered now has (the rows
with one fail there for that alone).

Hand-written frame logs (format v1); expected values by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .test_audit_asked_at_sight import DONE_T1, GET, RESULT, created, for_task, poll, status, task_call
from .test_audit_asked_judged import ALL, OBJECT_PROPERTY, V3, E, answer, ask, call, frame_log, init, reply
from .test_audit_recorded import run

T = "tools/call"
REFUSED = ["elicitation.property"]


def related(value: bytes) -> bytes:
    """OBJECT_PROPERTY with ``value`` as its related-task metadata."""
    return OBJECT_PROPERTY[:-1] + b',"_meta":{"io.modelcontextprotocol/related-task":%s}}' % value


# (case, frames after initialize) → per call (request id, kind, end, finding codes, rounds' methods), and the
# problems' categories, by hand
CASES: list[tuple[str, list[tuple[Any, ...]], list[tuple[Any, ...]], list[str]]] = [
    ("named after its end, nothing waiting",
     [task_call(1), created(1), poll(3, RESULT), answer(3, DONE_T1), ask(7, E, for_task(OBJECT_PROPERTY)), reply(7)],
     [("1", "normal_complete", "answered", [], [T, RESULT])], []),
    ("named after its end, a call waiting",
     [task_call(1), created(1), poll(3, RESULT), answer(3, DONE_T1), call(4, "b"),
      ask(7, E, for_task(OBJECT_PROPERTY)), reply(7), answer(4)],
     [("1", "normal_complete", "answered", [], [T, RESULT]), ("4", "unclassified", "answered", REFUSED, [E, T])], []),
    # the task running, no poll waiting, a tools/call waiting alone: a related-task naming no task here is no task's
    *[(f"related-task {name}, a call waiting",
       [task_call(1), created(1), call(4, "b"), ask(7, E, related(value)), answer(4)],
       [("1", "task", "log_ended", [], [T]), ("4", "unclassified", "answered", REFUSED, [T, E])], [])
      for name, value in [("a string", b'"T1"'), ("a number id", b'{"taskId":1}'),
                          ("never created", b'{"taskId":"T9"}'), ("a bidi override", b'{"taskId":"\\u202eT1"}'),
                          ("a 1 MB id", b'{"taskId":"T1%s"}' % (b"x" * 1_000_000))]],
    # the same naming it: the task's
    ("related-task naming it, a call waiting",
     [task_call(1), created(1), call(4, "b"), ask(7, E, related(b'{"taskId":"T1"}')), answer(4)],
     [("1", "unclassified", "log_ended", REFUSED, [T, E]), ("4", "normal_complete", "answered", [], [T])], []),
    # T1 created twice, the first running (2025-11-25 Task ID Requirements: unique): the second answer is blamed;
    # the polls and requests naming T1 cannot be told apart: neither call's (the first's outcome unknown: it ends
    # at the reuse, blamed too)
    ("a task id created twice",
     [task_call(1), created(1), task_call(2), created(2), poll(3, RESULT), ask(7, E, for_task(OBJECT_PROPERTY)),
      answer(3, DONE_T1)],
     [("1", "unclassified", "reused_id", ["task.field"], [T]), ("2", "unclassified", "answered", ["task.field"], [T])],
     []),
    ("tasks/result answered with an error",
     [task_call(1), created(1), poll(2), status(2, b"failed"), poll(3, RESULT),
      answer(3, b'{"code":-32603,"message":"\\u001b[2J\\u202e"}', error=True), ask(7, E, for_task(OBJECT_PROPERTY))],
     [("1", "protocol_error", "answered", [], [T, GET, RESULT])], []),
    ("a poll answered after the connection closed",
     [task_call(1), created(1), poll(2), ("close",), status(2, b"working")],
     [("1", "unclassified", "closed", ["transport.closed"], [T, GET])], ["stray"]),
]


@pytest.mark.parametrize(("name", "frames", "expected", "problems"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_task_ends_in_a_clear_verdict(tmp_path: Path, name: str, frames: list[tuple[Any, ...]],
                                                expected: list[tuple[Any, ...]], problems: list[str]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), *frames]))
    rows, found, _ = run([path])
    assert sorted((r.request_id, r.kind, r.end, [f.code for f in r.findings], [x.method for x in r.rounds])
                  for r in rows) == sorted(expected)
    assert [p.category for p in found] == problems
