"""A task id a 2025-11-25 server creates twice on one connection in the tap, as the audit judges it
(tests/audit/test_audit_task_reuse.py).

basic/utilities/tasks.mdx, Task ID Requirements: "Task IDs **MUST** be unique among all tasks
controlled by the receiver". A second CreateTaskResult naming the id of a task still running (no
``tasks/result`` answered its end) is blamed on the call it answers: ``unclassified``, a
``task.field`` finding naming the reuse. A request naming that id then cannot be told to be either
task's: neither call is judged again for it, nor is the call waiting then (it names a task). The
first call stays as it was judged (a task). Once the first task ended, its id created again is the
later call's (a request naming it judges that call again), as before.

Before this, the second handle was a task like any, and a request naming the id judged the second
call again.

Real peers: the official SDK's ``Client`` (mcp 2.x, ``mode="legacy"``) through the tap's
transports and ``tests/integrations/asking_server.py`` (``arguments.reuse``: the last task's id
again) over stdio and Streamable HTTP. Expected values by hand."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import types

from mcp_verdict import VerdictTap

from .test_tap_asked_at_sight import client, http_url  # noqa: F401 (http_url: a fixture)
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
     [("task_name", "task", []), ("task_name", "unclassified", ["task.field"]), ("ask_task", "normal_complete", [])]),
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
