"""A task id the upstream creates again while a task with it runs, through the proxy.

ext-tasks (2026-07-28) specification/draft/tasks.md: "Each task is uniquely identifiable by a
server-generated **task ID**"; 2025-11-25 basic/utilities/tasks.mdx, Task ID Requirements: "Task
IDs **MUST** be unique among all tasks controlled by the receiver". Once a second handle names the
id of a task still running (no poll answered its end), the polls naming the id cannot be told to be
either task's. The proxy reads it as the tap and the audit do (``Tracker.task_reuse``): the answer
that created the id again is ``unclassified`` with a ``task.field`` finding; the call whose task held
the id is judged again, ``unclassified``, its verdict line written again with the finding last; the
answers the proxy judges of polls naming the id (a terminal ``tasks/get`` here) are ``unclassified``
too: they may be the other task's end. Each such call's effect is unknown: ``check_state`` (README, the
policy row ``task_id_reused``). enforce refuses each such answer as any ``unclassified`` answer (README,
the modes: the REFUSED error in its place, its frame logged ``refused``): the host is never handed the
second task's handle, nor a result it would take as its own task's end. A task that ended (a poll
answered ``completed``) before its id came again is left as it was, and the id is the later call's.

Before this the proxy forwarded the second handle in enforce, judged it a task, and judged the
terminal poll (the second task's result, ``run 2``) ``normal_complete`` as a call of its own.

Real peers: a stdio host (this test) through the proxy's CLI to ``task_reuse_server.py``. Expected
values by hand."""

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

SERVER = [sys.executable, str(Path(__file__).with_name("task_reuse_server.py"))]
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}


def line(method: str, rid: int, call: int, judged: Judged) -> Line:
    return (method, rid, call, *judged)


# (case, steps: ("call", id, task id) a tools/call the server answers with a handle of that id, ("get", id, task id)
# a tasks/get; mode) → (what the host got per step: "as sent" or the refusal's finding codes; the verdict lines: a
# poll naming a reused id is no call's, a call of its own)
CASES: list[tuple[str, list[Step], str, list[Any], list[Line]]] = [
    ("created again while it runs (observe)",
     [("call", 1, "T"), ("call", 2, "T"), ("get", 3, "T")], "observe",
     ["as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_OBSERVED), line("tasks/get", 3, 3, REUSED_OBSERVED)]),
    ("created again while it runs (enforce)",
     [("call", 1, "T"), ("call", 2, "T"), ("get", 3, "T")], "enforce",
     ["as sent", R, R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_REFUSED), line("tasks/get", 3, 3, REUSED_REFUSED)]),
    # still running (a poll said working) when it came again: a reuse
    ("created again after a working poll (enforce)",
     [("call", 1, "wT"), ("get", 2, "wT"), ("call", 3, "wT")], "enforce",
     ["as sent", "as sent", R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 3, 2, REUSED_REFUSED)]),
    ("created three times (enforce)",
     [("call", 1, "T"), ("call", 2, "T"), ("call", 3, "T")], "enforce",
     ["as sent", R, R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_REFUSED), line("tools/call", 3, 3, REUSED_REFUSED)]),
    # not a reuse: the first task ended before its id came again; the later poll is the later call's
    ("created again after it ended (enforce)",
     [("call", 1, "T"), ("get", 2, "T"), ("call", 3, "T"), ("get", 4, "T")], "enforce",
     ["as sent", "as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tasks/get", 2, 1, DONE), line("tools/call", 3, 2, TASK_LINE),
      line("tasks/get", 4, 2, DONE)]),
    # handles of 3 kB: read first by the judge (enforce: passes_early; observe: read_sent, 2 kB or more)
    ("a long handle created again (observe)",
     [("call", 1, "pT"), ("call", 2, "pT"), ("get", 3, "pT")], "observe",
     ["as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_OBSERVED), line("tasks/get", 3, 3, REUSED_OBSERVED)]),
    ("a long handle created again (enforce)",
     [("call", 1, "pT"), ("call", 2, "pT"), ("get", 3, "pT")], "enforce",
     ["as sent", R, R],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 1, 1, REUSED_OBSERVED),
      line("tools/call", 2, 2, REUSED_REFUSED), line("tasks/get", 3, 3, REUSED_REFUSED)]),
    ("two task ids (enforce)",
     [("call", 1, "A"), ("call", 2, "B"), ("get", 3, "A"), ("get", 4, "B")], "enforce",
     ["as sent", "as sent", "as sent", "as sent"],
     [line("tools/call", 1, 1, TASK_LINE), line("tools/call", 2, 2, TASK_LINE), line("tasks/get", 3, 1, DONE),
      line("tasks/get", 4, 2, DONE)]),
]


@pytest.mark.parametrize(("name", "steps", "mode", "got", "lines"), CASES, ids=[c[0] for c in CASES])
def test_a_task_id_created_again_through_the_proxy(tmp_path: Path, name: str, steps: list[Step], mode: str,
                                                   got: list[Any], lines: list[Line]) -> None:
    verdicts, log = tmp_path / "verdicts.jsonl", tmp_path / "frames.jsonl"
    peer = LinePeer([*PROXY, "--mode", mode, "--verdicts", str(verdicts), "--log", str(log), "--log-payloads",
                     "--", *SERVER])
    received = []
    try:
        for step, rid, task in steps:
            params: dict[str, Any] = {"name": "work", "arguments": {"task": task}} if step == "call" else \
                {"taskId": task}
            raw = peer.exchange({"jsonrpc": "2.0", "id": rid, "method": "tools/call" if step == "call" else
                                 "tasks/get", "params": {**params, "_meta": META}})
            assert raw is not None, b"".join(peer.stderr)
            received.append(json.loads(raw))
    finally:
        assert peer.close() == 0, b"".join(peer.stderr)
    assert what_the_host_got(received) == got
    assert written(verdicts) == lines
    # the frame log: each refused answer logged refused, the proxy's error in its place
    assert refused_notes(log) == [REFUSED_NOTE] * sum(1 for g in got if g != "as sent")


def test_the_finding_names_the_reuse(tmp_path: Path) -> None:
    """What the host reads in enforce's refusal of the second handle: the finding's path is the task id
    in the handle (ext-tasks: the task's fields are the result's own), its message names the id, the
    call that created it first and the rule. The terminal poll's names the id and says why it is refused."""
    steps: list[tuple[int, str, dict[str, Any]]] = [(1, "tools/call", {"name": "work", "arguments": {"task": "T"}}),
                                                    (2, "tools/call", {"name": "work", "arguments": {"task": "T"}}),
                                                    (3, "tasks/get", {"taskId": "T"})]
    peer = LinePeer([*PROXY, "--mode", "enforce", "--", *SERVER])
    answers = []
    try:
        for rid, method, params in steps:
            raw = peer.exchange({"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}})
            assert raw is not None
            answers.append(json.loads(raw))
    finally:
        peer.close()
    (second,) = answers[1]["error"]["data"]["verdict"]["findings"]
    assert (second["code"], second["path"]) == ("task.field", "/result/taskId")
    assert second["message"] == (
        "the task id 'T' is still in use: the tools/call with request id 1 on this connection created it and its "
        "task has not ended (ext-tasks: each task is uniquely identifiable by a server-generated task ID); the two "
        "tasks' polls and requests naming it cannot be told apart, so they are neither call's")
    (poll,) = answers[2]["error"]["data"]["verdict"]["findings"]
    assert (poll["code"], poll["path"]) == ("task.field", "")
    assert poll["message"] == (
        "the task id 'T' that this tasks/get names is in use by two tasks: two tools/call answers on this connection "
        "created it, the first task not ended then (ext-tasks: each task is uniquely identifiable by a "
        "server-generated task ID); this answer cannot be told to be either task's")
