"""A task call judged again, then let go past the tap's bound on the task calls it keeps: its
judging block says what the history says.

README, tap: a 2025-11-25 task call is judged again when a request the server makes while its task
runs is refused ("``unclassified`` with the findings after the handle's, on ``tap.history`` and in
its judging block"), or when its task id is created again while it runs; the tap keeps for this the
last 4,096 task calls (``_KEEP``; 1 or 2 here), within 64 MiB. A call let go for that bound owns
no request from then on, but what it was judged stays: its block, read after the let-go, gives the
call as judged again, as the history does.

Before this, the block read the call's later verdict through the tap's table of task calls judged
again, which the let-go emptied: the block then gave the call as first judged (``task``, no finding)
while the history said ``unclassified``.

Real peers: the official SDK's ``Client`` (mcp 2.x) through the tap's stdio transport to
``tests/integrations/asking_server.py``. Task A (``task_big``: an object property in each request
it makes) is polled ``polls`` times (each poll answered a refused elicitation naming A), or its id
created again (``arguments.reuse``); then task B's handle (``task_name``) puts the tap past its
bound when it keeps one task call: A, the oldest, is let go. (The bound on bytes, which counts a
task call's refused findings, is test_tap_task_requests.py's.) Expected values by hand."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import types

from mcp_verdict import VerdictTap

from .test_tap_asked_at_sight import client
from .test_tap_task_requests import never, start_task
from .test_tap_task_reuse import start_again

REFUSED = ["elicitation.property"]

# (case, A's polls, whether A's id is created again, the task calls kept) → (A's kind and codes, in its
# block and on the history; whether A was let go), by hand
CASES: list[tuple[str, int, bool, int, tuple[str, list[str]], bool]] = [
    ("judged again by refused requests, let go", 2, False, 1, ("unclassified", REFUSED * 2), True),
    ("judged again by its id created again, let go", 2, True, 1, ("unclassified", [*REFUSED * 2, "task.field"]),
     True),
    # kept (two task calls kept: A and B): read through the tap's table, as before
    ("judged again, kept", 1, False, 2, ("unclassified", REFUSED), False),
    ("never judged again, let go", 0, False, 1, ("task", []), True),
]


@pytest.mark.parametrize(("name", "polls", "again", "keep", "expected", "let_go"), CASES, ids=[c[0] for c in CASES])
def test_a_task_call_let_go_keeps_its_later_verdict_in_its_block(
        monkeypatch: pytest.MonkeyPatch, name: str, polls: int, again: bool, keep: int,
        expected: tuple[str, list[str]], let_go: bool) -> None:
    from mcp_verdict.tap import _tap

    monkeypatch.setattr(_tap, "_KEEP", keep)

    async def scenario() -> tuple[VerdictTap, Any]:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, None, never) as session:
                async with tap.judging(session) as judged:
                    call = types.CallToolRequest(params=types.CallToolRequestParams(
                        name="task_big", arguments={"size": 10}, task=types.TaskMetadata(ttl=60000)))
                    with pytest.raises(Exception):  # noqa: B017 (the SDK's CallToolResult refuses the handle)
                        await session.session.send_request(call, types.CreateTaskResult)
                task = judged.outcome.verdict.task
                assert task is not None
                for _ in range(polls):
                    await session.session.send_request(
                        types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task.task_id)),
                        types.GetTaskResult)
                if again:
                    await start_again(tap, session, "task_big")
                await start_task(tap, session, "task_name")
        return tap, judged

    tap, judged = anyio.run(scenario)
    kind, codes = expected
    first = tap.history[0]
    assert (first.name, first.verdict.kind.value, [f.code for f in first.verdict.findings]) == ("task_big", kind, codes)
    assert (judged.outcome.verdict.kind.value, [f.code for f in judged.outcome.verdict.findings]) == expected
    assert judged.calls[0].verdict == first.verdict and judged.outcome == first.outcome
    assert any(t.first.name == "task_big" for t in tap._tasks.values()) is not let_go
