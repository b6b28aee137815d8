"""A task id a server creates twice on one connection, the first task not ended: what the tap and
the audit say of the FIRST call, on the same frames.

2025-11-25 basic/utilities/tasks.mdx, Task ID Requirements: "Task IDs **MUST** be unique among all
tasks controlled by the receiver"; ext-tasks (2026-07-28): "Each task is uniquely identifiable by a
server-generated **task ID**". Once a second ``CreateTaskResult`` names the id of a task still
running, the polls and requests naming that id can no longer be attributed to the first task: the
first call's outcome is unknown. A demanding auditor is told so on that call too, not only on the
call whose answer broke the rule: the tap judges the first call again (on ``tap.history`` and in its
judging block), the audit ends it at the reuse (``end`` ``reused_id``), both ``unclassified`` with
its findings, those of the requests refused while its task ran, then a ``task.field`` finding
naming the reuse. A task that had ended before its id came again is left as it was. A third
creation of the id is a reuse too (the earlier tasks not known to have ended).

Before this, the first call stayed a task (the tap) or ended ``task``/``log_ended`` with no finding
(the audit), as if nothing had happened to it.

Real peers: the official SDK's ``Client`` (mcp 2.x) through the tap's stdio transport to
``tests/integrations/asking_server.py`` (``arguments.reuse``: the last task's id again), the tap
writing its frame log; the audit then reads that log through its API and its CLI (``--json``).
And hand-written frames (a 2026-07-28 task; a poll sent before the reuse) fed to the tap as its
transports feed them, its frame log audited the same way. Expected values by hand."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest

from mcp_verdict import VerdictTap
from mcp_verdict.audit import CallRow, audit_files

from .test_tap_asked_at_sight import client
from .test_tap_frames import Sink, sdk_message
from .test_tap_task_requests import never, result, start_task
from .test_tap_task_reuse import start_again

R = ["task.field"]
P = ["elicitation.property"]
Steps = list[tuple[str, str]]
# per tools/call, in order: (tool, the tap's kind, the tap's codes, the audit's kind, the audit's end, its codes)
Expected = list[tuple[str, str, list[str], str, str, list[str]]]

# (case, steps: ("start", tool) a task-augmented call, ("again", tool) one the server answers with the last
# task's id, ("result", "") tasks/result of the first task, ("ask", "") ask_task naming the first task: an
# elicitation refused (a property of type object) → expected, by hand
CASES: list[tuple[str, Steps, Expected]] = [
    ("created again while it runs", [("start", "task_name"), ("again", "task_name")],
     [("task_name", "unclassified", R, "unclassified", "reused_id", R),
      ("task_name", "unclassified", R, "unclassified", "answered", R)]),
    # the first task ended (tasks/result answered): the id is the later call's; the first is left as it was
    # (the tap judged its handle, a task; the audit followed it to its result)
    ("created again after it ended", [("start", "task_name"), ("result", ""), ("again", "task_name")],
     [("task_name", "task", [], "normal_complete", "answered", []),
      ("task_name", "task", [], "task", "closed", [])]),
    # a request refused while the first task ran (named by its related-task metadata), then the reuse: the
    # refused request's finding, then the reuse's
    ("refused while it ran, then created again", [("start", "task_name"), ("ask", ""), ("again", "task_name")],
     [("task_name", "unclassified", P + R, "unclassified", "reused_id", P + R),
      ("ask_task", "normal_complete", [], "normal_complete", "answered", []),
      ("task_name", "unclassified", R, "unclassified", "answered", R)]),
    ("created three times", [("start", "task_name"), ("again", "task_name"), ("again", "task_name")],
     [("task_name", "unclassified", R, "unclassified", "reused_id", R),
      ("task_name", "unclassified", R, "unclassified", "answered", R),
      ("task_name", "unclassified", R, "unclassified", "answered", R)]),
]


def audited(log: Path) -> list[tuple[str, str, str, list[str]]]:
    """The audit's rows of ``log`` through its API, checked equal to its CLI's ``--json`` lines:
    (tool, kind, end, finding codes) per tools/call, in the order of their requests."""
    _, _, entries = audit_files([str(log)])
    rows = sorted((e for e in entries if isinstance(e, CallRow)), key=lambda r: r.line)
    api: list[tuple[str, str, str, list[str]]] = [(r.tool or "", r.kind or "", r.end, [f.code for f in r.findings])
                                                  for r in rows]
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", "audit", str(log), "--json"], capture_output=True,
                          text=True, timeout=120, check=False, env={**os.environ, "COLUMNS": "80"})
    assert done.returncode in (0, 1), done.stderr
    calls = sorted((o for o in map(json.loads, done.stdout.splitlines()) if o["type"] == "call"),
                   key=lambda o: o["line"])
    assert [(o["tool"], o["kind"], o["end"], [f["code"] for f in o["findings"]]) for o in calls] == api
    return api


@pytest.mark.parametrize(("name", "steps", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_first_call_says_its_task_id_was_created_again(tmp_path: Path, name: str, steps: Steps,
                                                           expected: Expected) -> None:
    log = tmp_path / "frames.jsonl"

    async def scenario() -> VerdictTap:
        with VerdictTap(frame_log=log) as tap:
            with anyio.fail_after(60):
                async with client(tap, None, never) as session:
                    task_id = ""
                    for step, tool in steps:
                        if step == "start":
                            task_id = await start_task(tap, session, tool)
                        elif step == "again":
                            await start_again(tap, session, tool)
                        elif step == "result":
                            await result(session, task_id)
                        else:
                            await tap.call_tool(session, "ask_task", {"task": task_id})
        return tap

    tap = anyio.run(scenario)
    shown = [(c.name or "", c.verdict.kind.value, [f.code for f in c.verdict.findings]) for c in tap.history]
    assert shown == [(tool, kind, codes) for tool, kind, codes, *_ in expected]
    assert audited(log) == [(tool, kind, end, codes) for tool, _, _, kind, end, codes in expected]
    first = tap.history[0]
    if first.verdict.findings[-1:] and first.verdict.findings[-1].code == "task.field":
        found = first.verdict.findings[-1]
        assert found.path == "/result/task/taskId"
        assert found.message.startswith("the task id 'T1' of this call's task, not ended, was created again: the "
                                        "tools/call with request id ")
        assert first.outcome.verdict is first.verdict
        _, _, entries = audit_files([str(log)])
        row = min((e for e in entries if isinstance(e, CallRow)), key=lambda r: r.line)
        assert row.findings[-1].message == found.message  # the same words, the tap's and the audit's
        assert (row.action, row.finished, row.accepted) == ("check_state", False, False)
    assert decisions(tap, log) == DECISIONS[name]


# What ``decide`` says of each tools/call, the tap's and the audit's (rule, action; the audit's unknown_effect),
# by hand. README, the policy: check_state is the decision for "a write whose effect is unknown" ("observe the
# state before anything else; never resend blindly"), investigate for what has no defined recovery. A call whose
# task id was created again while its task ran had its request run (the server made it a task), and the polls
# naming the id can no longer be told to be its task's (2025-11-25 basic/utilities/tasks: "Task IDs MUST be unique
# among all tasks controlled by the receiver"): its effect is unknown, as a write's after a lost connection
# (unknown_effect). The tools here are listed without annotations: they may write. Before, both were investigate.
REUSED_D = ("task_id_reused", "check_state", True)
DECISIONS: dict[str, list[tuple[tuple[str, str, bool], tuple[Any, ...]]]] = {
    "created again while it runs": [(REUSED_D, REUSED_D), (REUSED_D, REUSED_D)],
    # the first followed to its end (the audit: its content checked, accepted) or judged a task (the tap); the
    # second left a task: poll it
    "created again after it ended": [(("task", "poll_task", False), ("accept", "accept", False)),
                                     (("task", "poll_task", False), ("task", "poll_task", False))],
    "refused while it ran, then created again": [
        (REUSED_D, REUSED_D), (("accept", "accept", False), ("accept", "accept", False)),
        (REUSED_D, REUSED_D)],
    "created three times": [(REUSED_D, REUSED_D), (REUSED_D, REUSED_D), (REUSED_D, REUSED_D)],
}


def decisions(tap: VerdictTap, log: Path) -> list[tuple[tuple[str, str, bool], tuple[Any, ...]]]:
    """Per tools/call in order: the tap's decision and the audit row's (rule, action, unknown effect)."""
    _, _, entries = audit_files([str(log)])
    rows = sorted((e for e in entries if isinstance(e, CallRow)), key=lambda r: r.line)
    tapped = [c.outcome.decision for c in tap.history]
    return [((d.rule, d.action.value, d.action.value == "check_state"), (r.rule, r.action, r.unknown_effect))
            for d, r in zip(tapped, rows, strict=True)]


# 2026-07-28 and a poll in flight: frames fed to the tap as its transports feed them (test_tap_frames.py's
# way), each tools/call in a judging block of its own, the tap writing its frame log
META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/'
        b'clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}')
HANDLE = (b'{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z",'
          b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}')
WORKING = (b'{"resultType":"complete","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z",'
           b'"lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":60000}')
COMPLETED = (b'{"resultType":"complete","taskId":"T","status":"completed","createdAt":"2026-01-01T00:00:00Z",'
             b'"lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":60000,"result":{"resultType":"complete",'
             b'"content":[]}}')


Frame = tuple[Literal["c2s", "s2c"], int, bytes]


def request(rid: int, method: bytes, params: bytes) -> Frame:
    return "c2s", rid, b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s,%s}}' % (rid, method, params, META)


def answer(rid: int, body: bytes) -> Frame:
    return "s2c", rid, b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, body)


CALL = b'"name":"t","arguments":{}'
GET = b'"taskId":"T"'
# (case, frames) → per tools/call (the tap's kind and codes, the audit's kind, end, codes and rounds' methods)
FRAMES: list[tuple[str, list[Frame], list[tuple[str, list[str], str, str, list[str], list[str]]]]] = [
    ("created again while it runs",
     [request(1, b"tools/call", CALL), answer(1, HANDLE), request(2, b"tools/call", CALL), answer(2, HANDLE)],
     [("unclassified", R, "unclassified", "reused_id", R, ["tools/call"]),
      ("unclassified", R, "unclassified", "answered", R, ["tools/call"])]),
    # a tasks/get sent before the reuse and answered after it: a round of the first call without its answer
    # (its answer after the call ended is a message line), never the end of either call
    ("a poll in flight at the reuse",
     [request(1, b"tools/call", CALL), answer(1, HANDLE), request(3, b"tasks/get", GET),
      request(2, b"tools/call", CALL), answer(2, HANDLE), answer(3, COMPLETED)],
     [("unclassified", R, "unclassified", "reused_id", R, ["tools/call", "tasks/get"]),
      ("unclassified", R, "unclassified", "answered", R, ["tools/call"])]),
    ("created again after it ended",
     [request(1, b"tools/call", CALL), answer(1, HANDLE), request(3, b"tasks/get", GET), answer(3, COMPLETED),
      request(2, b"tools/call", CALL), answer(2, HANDLE)],
     [("task", [], "normal_complete", "answered", [], ["tools/call", "tasks/get"]),
      ("task", [], "task", "log_ended", [], ["tools/call"])]),
    # still running (a poll said working) when it came again: a reuse
    ("created again after a working poll",
     [request(1, b"tools/call", CALL), answer(1, HANDLE), request(3, b"tasks/get", GET), answer(3, WORKING),
      request(2, b"tools/call", CALL), answer(2, HANDLE)],
     [("unclassified", R, "unclassified", "reused_id", R, ["tools/call", "tasks/get"]),
      ("unclassified", R, "unclassified", "answered", R, ["tools/call"])]),
]


@pytest.mark.parametrize(("name", "frames", "expected"), FRAMES, ids=[c[0] for c in FRAMES])
def test_the_same_on_frames_a_2026_task(tmp_path: Path, name: str, frames: list[Frame],
                                        expected: list[tuple[str, list[str], str, str, list[str], list[str]]]) -> None:
    log = tmp_path / "frames.jsonl"
    tap = VerdictTap(frame_log=log)
    conn = tap._open("stdio", "case")
    proxy = tap.write_stream(Sink(), conn)

    async def scenario() -> list[Any]:
        blocks = []
        for direction, rid, data in frames:
            if direction == "c2s" and b'"tools/call"' in data:
                judged = tap.judging()
                with judged:
                    await proxy.send(sdk_message(rid))
                    tap._feed(conn, direction, data)
                blocks.append(judged)
            else:
                tap._feed(conn, direction, data)
        return [block.outcome for block in blocks]

    outcomes = asyncio.run(scenario())
    tap.close()
    assert [(o.verdict.kind.value, [f.code for f in o.verdict.findings]) for o in outcomes] == \
        [(kind, codes) for kind, codes, *_ in expected]
    assert [(c.verdict.kind.value, [f.code for f in c.verdict.findings]) for c in tap.history] == \
        [(kind, codes) for kind, codes, *_ in expected]
    _, _, entries = audit_files([str(log)])
    rows = sorted((e for e in entries if isinstance(e, CallRow)), key=lambda r: r.line)
    assert [(r.kind, r.end, [f.code for f in r.findings], [x.method for x in r.rounds]) for r in rows] == \
        [(kind, end, codes, methods) for _, _, kind, end, codes, methods in expected]
    for outcome, row in zip(outcomes, rows, strict=True):
        if outcome.verdict.findings:
            assert [f.path for f in outcome.verdict.findings] == [f.path for f in row.findings] == ["/result/taskId"]
            assert outcome.verdict.findings[0].message == row.findings[0].message
