"""A 2025 server's own request is judged by the audit when it comes, whatever the client does
with it: what the server sent is the server's, answered or not. A request the client never
answers (a client that ignores a malformed elicitation), or answers only after the call's own
answer, still makes the call it was made during ``unclassified`` with its findings; each
request is judged once.

And a 2025-11-25 task's requests (basic/utilities/tasks.mdx): while a task-augmented
``tools/call`` runs, the server asks on the polls (``tasks/result``: "S->>C: elicitation/create
(related-task: task-123)" in the spec's sequence "Task-Augmented Tool Call With Elicitation"),
naming the task in ``_meta["io.modelcontextprotocol/related-task"]`` ("an elicitation that a
task-augmented tool call depends on MUST share the same related task ID with that tool call's
task"). Such a request belongs to the task's call: by the task it names, else by the poll
waiting on its HTTP exchange, else by the only poll (or call) waiting on the connection.

Before, the audit judged a request only when the client answered it, and only while a
``tools/call`` itself waited: a request never answered, or answered after the call, or made
during a task's polls, was judged by nothing and the call was accepted on its answer.

Hand-written frame logs (format v1) and JSON-RPC JSON Lines; every expected value by hand from
2025-11-25's ``schema.json`` (PrimitiveSchemaDefinition has no ``object`` type;
ElicitRequestURLParams requires ``elicitationId``) and tasks.mdx."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import CallRow

from .test_audit_asked_judged import (
    ALL,
    FORM,
    OBJECT_PROPERTY,
    URL_NO_ID,
    V3,
    E,
    answer,
    ask,
    call,
    continued,
    frame_log,
    init,
    jsonrpc_lines,
    reply,
    shape,
)
from .test_audit_recorded import run

T, GET, RESULT = "tools/call", "tasks/get", "tasks/result"
STAMP = b'"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":10'
DONE_T1 = b'{"content":[{"type":"text","text":"ok"}],"isError":false,' \
          b'"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}}'


def cancel(rid: int) -> tuple[str, bytes]:
    return "c2s", b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}' % rid


def task_call(rid: int) -> tuple[str, bytes]:
    """A task-augmented tools/call (2025-11-25 CallToolRequestParams.task: TaskMetadata)."""
    return "c2s", b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{},' \
                  b'"task":{"ttl":60000}}}' % rid


def created(rid: int) -> tuple[str, bytes]:
    """The CreateTaskResult: task T1, working."""
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"task":{"taskId":"T1","status":"working",%s}}}' % (rid, STAMP)


def poll(rid: int, method: str = GET) -> tuple[str, bytes]:
    return "c2s", b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"taskId":"T1"}}' % (rid, method.encode())


def status(rid: int, value: bytes) -> tuple[str, bytes]:
    """A tasks/get answer (GetTaskResult: the Task)."""
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"taskId":"T1","status":"%s",%s}}' % (rid, value, STAMP)


def for_task(params: bytes, task: bytes = b"T1") -> bytes:
    """``params`` naming ``task`` in their related-task metadata."""
    return params[:-1] + b',"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"%s"}}}' % task


# One call per log. (case, frames after initialize) → (kind, first kind, findings as (code, path), naive,
# naive false success, rounds as (method, kind), end), by hand. A task's naive receiver took its handle as
# the call's end (a success): the call had more answers than that one, so it is a naive false success
# whatever the task ended on (the audit's rule); a running poll's round has no kind.
OK: list[tuple[str, str]] = []
REFUSED_OBJECT = [("elicitation.property", "")]
CASES: list[tuple[str, list[tuple[Any, ...]], tuple[Any, ...]]] = [
    # the client never answers the request: judged all the same; its round, without an answer, when the call ends
    ("never answered", [call(1), ask(7, E, OBJECT_PROPERTY), answer(1)],
     ("unclassified", "normal_complete", REFUSED_OBJECT, "success", True, [(T, "normal_complete"), (E, "unclassified")],
      "answered")),
    # answered after the call's answer: the call's all the same, unanswered while it waited (the late answer is a
    # message line)
    ("answered after the call", [call(1), ask(7, E, OBJECT_PROPERTY), answer(1), reply(7)],
     ("unclassified", "normal_complete", REFUSED_OBJECT, "success", True, [(T, "normal_complete"), (E, "unclassified")],
      "answered")),
    # a valid request never answered: no finding; its round input_required
    ("a valid one never answered", [call(1), ask(7, E, FORM), answer(1)],
     ("normal_complete", "normal_complete", OK, "success", False, [(T, "normal_complete"), (E, "input_required")],
      "answered")),
    # asked after the call was answered: no call waits, no call's
    ("asked after the answer", [call(1), answer(1), ask(7, E, OBJECT_PROPERTY)],
     ("normal_complete", "normal_complete", OK, "success", False, [(T, "normal_complete")], "answered")),
    # the connection closes before either answer: the call's own finding, then the request's
    ("never answered, then the connection closes", [call(1), ask(7, E, URL_NO_ID), ("close",)],
     ("unclassified", "unclassified", [("transport.closed", ""), ("input.params", "")], "no_response", False,
      [(T, "unclassified"), (E, "unclassified")], "closed")),
    # the client cancels its call instead of answering the request
    ("the call cancelled instead", [call(1), ask(7, E, OBJECT_PROPERTY), cancel(1), ("close",)],
     ("unclassified", "unclassified", [("transport.cancelled", ""), ("elicitation.property", "")], "no_response",
      False, [(T, "unclassified"), (E, "unclassified")], "closed")),
    # a task: the request names it (tasks.mdx: it MUST), made while tasks/result waits (the spec's sequence)
    ("a task: on tasks/result, named",
     [task_call(1), created(1), poll(2), status(2, b"input_required"), poll(3, RESULT),
      ask(7, E, for_task(OBJECT_PROPERTY)), reply(7), answer(3, DONE_T1)],
     ("unclassified", "task", REFUSED_OBJECT, "success", True,
      [(T, "task"), (GET, None), (E, "unclassified"), (RESULT, "normal_complete")], "answered")),
    # between two polls, nothing waiting: the task it names tells whose it is
    ("a task: between polls, named",
     [task_call(1), created(1), ask(7, E, for_task(OBJECT_PROPERTY)), reply(7), poll(2),
      status(2, b"working"), poll(3, RESULT), answer(3, DONE_T1)],
     ("unclassified", "task", REFUSED_OBJECT, "success", True,
      [(T, "task"), (E, "unclassified"), (GET, None), (RESULT, "normal_complete")], "answered")),
    # named, never answered
    ("a task: named, never answered",
     [task_call(1), created(1), ask(7, E, for_task(OBJECT_PROPERTY)), poll(2), status(2, b"working"),
      poll(3, RESULT), answer(3, DONE_T1)],
     ("unclassified", "task", REFUSED_OBJECT, "success", True,
      [(T, "task"), (GET, None), (RESULT, "normal_complete"), (E, "unclassified")], "answered")),
    # not named, but the task's tasks/result is the only request waiting (stdio): its call's
    ("a task: on tasks/result alone, not named",
     [task_call(1), created(1), poll(3, RESULT), ask(7, E, OBJECT_PROPERTY), reply(7), answer(3, DONE_T1)],
     ("unclassified", "task", REFUSED_OBJECT, "success", True,
      [(T, "task"), (E, "unclassified"), (RESULT, "normal_complete")], "answered")),
    # a valid request of the task: its round is input_required, the call its answer's
    ("a task: a valid one, named",
     [task_call(1), created(1), poll(3, RESULT), ask(7, E, for_task(FORM)), reply(7), answer(3, DONE_T1)],
     ("normal_complete", "task", OK, "success", True,
      [(T, "task"), (E, "input_required"), (RESULT, "normal_complete")], "answered")),
    # a request naming a task no call made, nothing waiting: no call's
    ("a task: another task named",
     [task_call(1), created(1), ask(7, E, for_task(OBJECT_PROPERTY, b"T9")), reply(7), poll(3, RESULT),
      answer(3, DONE_T1)],
     ("normal_complete", "task", OK, "success", True, [(T, "task"), (RESULT, "normal_complete")], "answered")),
    # the task's answer never comes: the request's findings all the same
    ("a task: named, then the connection closes",
     [task_call(1), created(1), poll(3, RESULT), ask(7, E, for_task(OBJECT_PROPERTY)), ("close",)],
     ("unclassified", "task", [("transport.closed", ""), ("elicitation.property", "")], "success", True,
      [(T, "task"), (RESULT, "unclassified"), (E, "unclassified")], "closed")),
]


# 2025-11-25 tasks.mdx, Result Retrieval: GetTaskResult is the Task alone; a terminal task's result (or its
# JSON-RPC error) is tasks/result's answer ("MUST return the final result of the underlying request, whether
# that is a successful result or a JSON-RPC error"). Before, a completed tasks/get ended the call unclassified
# (result.not_object: no inlined result, as a 2026-07-28 task has) and tasks/result was a message line.
CASES += [
    ("a task: completed, its result from tasks/result",
     [task_call(1), created(1), poll(2), status(2, b"completed"), poll(3, RESULT), answer(3, DONE_T1)],
     ("normal_complete", "task", OK, "success", True, [(T, "task"), (GET, None), (RESULT, "normal_complete")],
      "answered")),
    ("a task: failed, its error from tasks/result",
     [task_call(1), created(1), poll(2), status(2, b"failed"), poll(3, RESULT),
      answer(3, b'{"code":-32603,"message":"x"}', error=True)],
     ("protocol_error", "task", OK, "success", True, [(T, "task"), (GET, None), (RESULT, "protocol_error")],
      "answered")),
    # cancelled: its effect unknown, the call ends there (as mcp-verdict's client reads it)
    ("a task: cancelled",
     [task_call(1), created(1), poll(2), status(2, b"cancelled")],
     ("unclassified", "task", [("task.status", "")], "success", True, [(T, "task"), (GET, "unclassified")],
      "answered")),
    # completed, its result never fetched: the call's last word is its handle's (the log ends)
    ("a task: completed, its result never fetched",
     [task_call(1), created(1), poll(2), status(2, b"completed")],
     ("task", "task", OK, "success", True, [(T, "task"), (GET, None)], "log_ended")),
]


@pytest.mark.parametrize(("name", "frames", "expected", "format"),
                         [(*case, form) for case in CASES for form in ("framelog", "jsonrpc")
                          if form == "framelog" or ("close",) not in case[1]],  # (a JSON-RPC file records no close)
                         ids=[f"{case[0]}-{form}" for case in CASES for form in ("framelog", "jsonrpc")
                              if form == "framelog" or ("close",) not in case[1]])
def test_a_server_request_is_judged_when_it_comes(tmp_path: Path, name: str, frames: list[tuple[Any, ...]],
                                                  expected: tuple[Any, ...], format: str) -> None:
    whole = [*init(V3, ALL), *frames]
    path = tmp_path / "log.jsonl"
    if format == "jsonrpc":
        path.write_bytes(jsonrpc_lines(whole))
    else:
        path.write_bytes(frame_log(whole))
    rows, problems, _ = run([path])
    assert problems == []
    assert [shape(r) for r in rows] == [expected]
    if expected[0] == "unclassified":
        assert not rows[0].accepted


@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_same_when_another_auditor_continues_the_connection(name: str, frames: list[tuple[Any, ...]],
                                                                expected: tuple[Any, ...]) -> None:
    """Cut at every line (``export``, pickled, ``adopt``): a request judged before the cut gives the
    call its findings after it, once."""
    whole = [*init(V3, ALL), *frames]
    for cut in range(len(whole) + 1):
        entries = continued(whole, cut)
        assert [shape(e) for e in entries if isinstance(e, CallRow)] == [expected], cut


# Streamable HTTP: (case, frames with their exchange) → per call (tool, kind, finding codes, rounds' methods),
# in any order.
HTTP_CASES: list[tuple[str, list[tuple[Any, ...]], list[tuple[Any, ...]]]] = [
    # not named: the request came on the exchange of the task's tasks/result (a tools/call waits meanwhile)
    ("on the tasks/result exchange",
     [(*task_call(1), 1), (*created(1), 1), (*call(2, "b"), 2), (*poll(3, RESULT), 3),
      (*ask(7, E, OBJECT_PROPERTY), 3), (*reply(7), 4), (*answer(3, DONE_T1), 3), (*answer(2), 2)],
     [("t", "unclassified", ["elicitation.property"], [T, E, RESULT]), ("b", "normal_complete", [], [T])]),
    # the tools/call's exchange: the tools/call's, the task polled meanwhile
    ("on a tools/call's exchange while a task polls",
     [(*task_call(1), 1), (*created(1), 1), (*call(2, "b"), 2), (*poll(3, RESULT), 3),
      (*ask(7, E, OBJECT_PROPERTY), 2), (*reply(7), 4), (*answer(2), 2), (*answer(3, DONE_T1), 3)],
     [("t", "normal_complete", [], [T, RESULT]), ("b", "unclassified", ["elicitation.property"], [E, T])]),
    # never answered, on the tasks/result exchange
    ("never answered, on the tasks/result exchange",
     [(*task_call(1), 1), (*created(1), 1), (*poll(3, RESULT), 3), (*ask(7, E, OBJECT_PROPERTY), 3),
      (*answer(3, DONE_T1), 3)],
     [("t", "unclassified", ["elicitation.property"], [T, RESULT, E])]),
]


@pytest.mark.parametrize(("name", "frames", "expected"), HTTP_CASES, ids=[c[0] for c in HTTP_CASES])
def test_over_http_a_task_request_goes_by_its_exchange(tmp_path: Path, name: str, frames: list[tuple[Any, ...]],
                                                       expected: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), *frames], "http"))
    rows, problems, _ = run([path])
    assert problems == []
    assert sorted((r.tool, r.kind, [f.code for f in r.findings], [x.method for x in r.rounds]) for r in rows) \
        == sorted(expected)


# stdio: (case, frames) → per call (tool, kind, finding codes, rounds' methods), in any order.
STDIO_CASES: list[tuple[str, list[tuple[Any, ...]], list[tuple[Any, ...]]]] = [
    # a tools/call and a task's tasks/result both wait, the request names nothing: which one asked cannot be
    # told, so neither takes it (as with two tools/calls waiting)
    ("a task's poll and a tools/call waiting, not named",
     [task_call(1), created(1), call(2, "b"), poll(3, RESULT), ask(7, E, OBJECT_PROPERTY), reply(7), answer(2),
      answer(3, DONE_T1)],
     [("t", "normal_complete", [], [T, RESULT]), ("b", "normal_complete", [], [T])]),
    # the same, the request naming the task: the task's
    ("a task's poll and a tools/call waiting, named",
     [task_call(1), created(1), call(2, "b"), poll(3, RESULT), ask(7, E, for_task(OBJECT_PROPERTY)), reply(7),
      answer(2), answer(3, DONE_T1)],
     [("t", "unclassified", ["elicitation.property"], [T, E, RESULT]), ("b", "normal_complete", [], [T])]),
]


@pytest.mark.parametrize(("name", "frames", "expected"), STDIO_CASES, ids=[c[0] for c in STDIO_CASES])
def test_over_stdio_a_task_request_goes_by_the_task_it_names(tmp_path: Path, name: str,
                                                             frames: list[tuple[Any, ...]],
                                                             expected: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), *frames]))
    rows, problems, _ = run([path])
    assert problems == []
    assert sorted((r.tool, r.kind, [f.code for f in r.findings], [x.method for x in r.rounds]) for r in rows) \
        == sorted(expected)
