"""A task id the upstream creates again while a task with it runs, through the proxy, in 2025-11-25:
the ``tasks/result`` path (``proxy._tasks``; test_proxy_task_reuse.py holds the 2026-07-28 ``tasks/get``
path).

2025-11-25 basic/utilities/tasks.mdx, Task ID Requirements: "Task IDs **MUST** be unique among all
tasks controlled by the receiver". Result Retrieval: a task-augmented ``tools/call`` is answered with a
CreateTaskResult (``result.task``); ``tasks/get`` answers the Task alone, whose ``completed`` status
does not end it for the requestor (the result is not inlined: Task Status, "completed"), and
``tasks/result`` answers the underlying request's result: the task's end. Once a second
CreateTaskResult names the id of a task whose end no ``tasks/result`` answered, the proxy reads it as
the tap and the audit do (README, "The modes"): the answer that created the id again is
``unclassified`` with a ``task.field`` finding; the call whose task held the id gets a second verdict
line, ``unclassified`` with that finding last (``forwarded`` ``unchanged``); a ``tasks/result`` answer
naming the id is ``unclassified`` too (it may be either task's end; its line's ``call`` is its own).
enforce refuses each such answer (the REFUSED error in its place): the host is never handed the second
task's result as the end of the first. A task whose ``tasks/result`` was answered is ended: its id
created again is the later call's.

Real peers: a stdio host (this test) through the proxy's CLI to ``task_reuse_server.py --2025``.
Expected values by hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ._peers import PROXY, LinePeer
from ._task_reuse import (
    DONE,
    REFUSED_NOTE,
    REUSED_OBSERVED,
    REUSED_REFUSED,
    TASK_LINE,
    Judged,
    Line,
    R,
    Step,
    refused_notes,
    what_the_host_got,
    written,
)

SERVER = [sys.executable, str(Path(__file__).with_name("task_reuse_server.py")), "--2025"]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
METHODS = {"call": "tools/call", "get": "tasks/get", "result": "tasks/result"}


def line(method: str, rid: int, call: int, judged: Judged) -> Line:
    """A verdict line of the ``call``-th call after the initialize (the connection's call 1)."""
    return (method, rid, call + 1, *judged)


# (case, steps: ("call", id, task id) a task-augmented tools/call the server answers with a CreateTaskResult of that
# id, ("get", id, task id) a tasks/get, ("result", id, task id) a tasks/result; mode) → (what the host got per step:
# "as sent" or the refusal's finding codes; the verdict lines)
CASES: list[tuple[str, list[Step], str, list[Any], list[Line]]] = [
    ("created again while it runs (observe)",
     [("call", 1, "T"), ("call", 2, "T"), ("result", 3, "T")], "observe",
     ["as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_OBSERVED), line("tasks/result", 3, 3, REUSED_OBSERVED)]),
    ("created again while it runs (enforce)",
     [("call", 1, "T"), ("call", 2, "T"), ("result", 3, "T")], "enforce",
     ["as sent", R, R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_REFUSED), line("tasks/result", 3, 3, REUSED_REFUSED)]),
    # a tasks/get answered completed does not end a 2025-11-25 task (its result comes with tasks/result): a reuse
    ("created again after a completed tasks/get (enforce)",
     [("call", 1, "T"), ("get", 2, "T"), ("call", 3, "T"), ("result", 4, "T")], "enforce",
     ["as sent", "as sent", R, R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 3, 2, REUSED_REFUSED), line("tasks/result", 4, 3, REUSED_REFUSED)]),
    ("created again after a working tasks/get (enforce)",
     [("call", 1, "wT"), ("get", 2, "wT"), ("call", 3, "wT")], "enforce",
     ["as sent", "as sent", R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 3, 2, REUSED_REFUSED)]),
    # not a reuse: tasks/result answered the first task's end before its id came again
    ("created again after its result (enforce)",
     [("call", 1, "T"), ("result", 2, "T"), ("call", 3, "T"), ("result", 4, "T")], "enforce",
     ["as sent", "as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tasks/result", 2, 1, DONE), line("tools/call", 3, 2, TASK_LINE),
      line("tasks/result", 4, 2, DONE)]),
    ("two task ids (enforce)",
     [("call", 1, "A"), ("call", 2, "B"), ("result", 3, "B"), ("result", 4, "A")], "enforce",
     ["as sent", "as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 2, 2, TASK_LINE), line("tasks/result", 3, 2, DONE),
      line("tasks/result", 4, 1, DONE)]),
    # results of 3 kB: read first by the judge (enforce: passes_early; observe: read_sent, 2 kB or more)
    ("a long result of a reused id (observe)",
     [("call", 1, "pT"), ("call", 2, "pT"), ("result", 3, "pT")], "observe",
     ["as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_OBSERVED), line("tasks/result", 3, 3, REUSED_OBSERVED)]),
    ("a long result of a reused id (enforce)",
     [("call", 1, "pT"), ("call", 2, "pT"), ("result", 3, "pT")], "enforce",
     ["as sent", R, R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_REFUSED), line("tasks/result", 3, 3, REUSED_REFUSED)]),
    ("a long result of its own task (enforce)",
     [("call", 1, "pT"), ("result", 2, "pT")], "enforce",
     ["as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tasks/result", 2, 1, DONE)]),
]


@pytest.mark.parametrize(("name", "steps", "mode", "got", "lines"), CASES, ids=[c[0] for c in CASES])
def test_a_task_id_created_again_in_2025_11_25(tmp_path: Path, name: str, steps: list[Step], mode: str,
                                               got: list[Any], lines: list[Line]) -> None:
    verdicts, log = tmp_path / "verdicts.jsonl", tmp_path / "frames.jsonl"
    peer = LinePeer([*PROXY, "--mode", mode, "--verdicts", str(verdicts), "--log", str(log), "--", *SERVER])
    received = []
    try:
        assert b'"2025-11-25"' in (peer.exchange(INIT) or b""), b"".join(peer.stderr)
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for step, rid, task in steps:
            params: dict[str, Any] = {"name": "work", "arguments": {"task": task}, "task": {"ttl": 60000}} \
                if step == "call" else {"taskId": task}
            raw = peer.exchange({"jsonrpc": "2.0", "id": rid, "method": METHODS[step], "params": params})
            assert raw is not None, b"".join(peer.stderr)
            received.append(json.loads(raw))
    finally:
        assert peer.close() == 0, b"".join(peer.stderr)
    assert (what_the_host_got(received), written(verdicts)) == (got, lines)
    assert refused_notes(log) == [REFUSED_NOTE] * sum(1 for g in got if g != "as sent")


def test_the_result_finding_names_the_reuse(tmp_path: Path) -> None:
    """What the host reads in enforce's refusal of a tasks/result naming a reused id: the finding names
    the id, the method and the 2025-11-25 rule."""
    peer = LinePeer([*PROXY, "--mode", "enforce", "--", *SERVER])
    try:
        assert peer.exchange(INIT) is not None
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for rid in (1, 2):
            assert peer.exchange({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
                "name": "work", "arguments": {"task": "T"}, "task": {"ttl": 60000}}}) is not None
        raw = peer.exchange({"jsonrpc": "2.0", "id": 3, "method": "tasks/result", "params": {"taskId": "T"}})
    finally:
        peer.close()
    assert raw is not None
    (found,) = json.loads(raw)["error"]["data"]["verdict"]["findings"]
    assert (found["code"], found["path"], found["message"]) == ("task.field", "", (
        "the task id 'T' that this tasks/result names is in use by two tasks: two tools/call answers on this "
        "connection created it, the first task not ended then (2025-11-25 basic/utilities/tasks: task IDs MUST be "
        "unique among all tasks controlled by the receiver); this answer cannot be told to be either task's"))
