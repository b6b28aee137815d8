"""A task id a 2025-11-25 server creates twice on one connection in the tap, as the audit judges it
(tests/audit/test_audit_task_reuse.py).

basic/utilities/tasks.mdx, Task ID Requirements: "Task IDs **MUST** be unique among all tasks
controlled by the receiver". A second CreateTaskResult naming the id of a task still running (no
``tasks/result`` answered its end) is blamed on the call it answers: ``unclassified``, a
``task.field`` finding naming the reuse. A request naming that id then cannot be told to be either
task's: neither call is judged again for it, nor is the call waiting then (it names a task). The
first call's outcome is unknown from then on: it is judged again, ``unclassified`` with a
``task.field`` finding naming the reuse, on the history and in its judging block, as the audit ends
it (tests/integrations/test_tap_task_reuse_both.py). Once the first task ended, its id created
again is the later call's (a request naming it judges that call again), and the first call stays
a task.

Before this, the second handle was a task like any, and a request naming the id judged the second
call again; then the first call stayed a task, as if nothing had happened to it.

Real peers: the official SDK's ``Client`` (mcp 2.x, ``mode="legacy"``) through the tap's
transports and ``tests/integrations/asking_server.py`` (``arguments.reuse``: the last task's id
again) over stdio and Streamable HTTP. Expected values by hand."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from mcp import types

from mcp_verdict import VerdictTap

from .test_tap_asked_at_sight import client, http_url  # noqa: F401 (http_url: a fixture)
from .test_tap_frames import Sink, sdk_message
from .test_tap_task_requests import never, result, rows, start_task

REFUSED = ["elicitation.property"]


async def start_again(tap: VerdictTap, session: Any, tool: str) -> None:
    """A task-augmented tools/call of ``tool`` that the server answers with the last task's id."""
    async with tap.judging(session):
        call = types.CallToolRequest(params=types.CallToolRequestParams(
            name=tool, arguments={"reuse": True}, task=types.TaskMetadata(ttl=60000)))
        with pytest.raises(Exception):  # noqa: B017 (the SDK's CallToolResult refuses the handle)
            await session.session.send_request(call, types.CreateTaskResult)


# (case, whether tasks/result ended the first task before the reuse) → the history (tool, kind, finding
# codes), by hand: the first task call, the call that got its id again, ask_task (an elicitation naming the id,
# refused: a property of type object)
CASES: list[tuple[str, bool, list[tuple[str | None, str, list[str]]]]] = [
    ("created again while it runs", False,
     [("task_name", "unclassified", ["task.field"]), ("task_name", "unclassified", ["task.field"]),
      ("ask_task", "normal_complete", [])]),
    # not a reuse of a task in use: the id is the later call's, which the request naming it judges again
    ("created again after it ended", True,
     [("task_name", "task", []), ("task_name", "unclassified", REFUSED), ("ask_task", "normal_complete", [])]),
]


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(("name", "ended", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_task_id_created_twice_blames_the_second_answer(transport: str, name: str, ended: bool,
                                                          expected: list[Any], request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("http_url") if transport == "http" else None

    async def scenario() -> VerdictTap:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, url, never) as session:
                task_id = await start_task(tap, session, "task_name")
                if ended:
                    await result(session, task_id)
                await start_again(tap, session, "task_name")
                await tap.call_tool(session, "ask_task", {"task": task_id})
        return tap

    tap = anyio.run(scenario)
    assert rows(tap) == expected
    if not ended:
        (found,) = tap.history[1].verdict.findings
        assert found.path == "/result/task/taskId"
        assert found.message.startswith("the task id 'T1' is still in use: the tools/call with request id ")
        assert tap.history[1].outcome.verdict.kind.value == "unclassified"


# 2026-07-28 (ext-tasks: "Each task is uniquely identifiable by a server-generated task ID"): asking_server
# speaks 2025-11-25 only, so the frames are fed to the tap as its transports feed them (test_tap_frames.py's
# way): two judged calls on one connection, each answered a task handle naming "T"; between them, a tasks/get of
# T answered working (the first task runs) or completed (it ended)
META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/'
        b'clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}')
TASK_2026 = (b'{"resultType":"task","taskId":"T","status":"working","createdAt":"2026-01-01T00:00:00Z",'
             b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}')


def request(rid: int, method: bytes, params: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s,%s}}' % (rid, method, params, META)


def status_2026(value: bytes) -> bytes:
    return (b'{"resultType":"complete","taskId":"T","status":"%s","createdAt":"2026-01-01T00:00:00Z",'
            b'"lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":60000%s}' % (
                value, b',"result":{"resultType":"complete","content":[]}' if value == b"completed" else b""))


# (case, the poll's status) → (the first call's kind and findings, the second's), read after both
CASES_2026: list[tuple[str, bytes, tuple[str, list[str]], tuple[str, list[str]]]] = [
    ("created again while it runs", b"working", ("unclassified", ["task.field"]), ("unclassified", ["task.field"])),
    ("created again after it ended", b"completed", ("task", []), ("task", [])),
]


@pytest.mark.parametrize(("name", "polled", "first_expected", "expected"), CASES_2026, ids=[c[0] for c in CASES_2026])
def test_the_same_for_a_2026_task(name: str, polled: bytes, first_expected: tuple[str, list[str]],
                                  expected: tuple[str, list[str]]) -> None:
    tap = VerdictTap()
    conn = tap._open("stdio", "case")
    proxy = tap.write_stream(Sink(), conn)
    poll = request(9, b"tasks/get", b'"taskId":"T"')

    async def scenario() -> list[Any]:
        blocks = []
        for rid in (7, 8):
            if rid == 8:
                tap._feed(conn, "c2s", poll)
                tap._feed(conn, "s2c", b'{"jsonrpc":"2.0","id":9,"result":%s}' % status_2026(polled))
            with tap.judging() as judged:
                await proxy.send(sdk_message(rid))
                tap._feed(conn, "c2s", request(rid, b"tools/call", b'"name":"t","arguments":{}'))
                tap._feed(conn, "s2c", b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (rid, TASK_2026))
            blocks.append(judged)
        return [block.outcome for block in blocks]

    first, second = asyncio.run(scenario())
    assert (first.verdict.kind.value, [f.code for f in first.verdict.findings]) == first_expected
    assert (second.verdict.kind.value, [f.code for f in second.verdict.findings]) == expected
    if expected[1]:
        assert [f.path for f in second.verdict.findings] == ["/result/taskId"]
        assert [f.path for f in first.verdict.findings] == ["/result/taskId"]
        assert "ext-tasks: each task is uniquely identifiable" in first.verdict.findings[0].message
