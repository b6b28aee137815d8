"""Hostile cases of a 2025-11-25 task's requests in the tap (basic/utilities/tasks.mdx): the
requests a server makes while a task runs are its call's (named in
``_meta["io.modelcontextprotocol/related-task"]``, "an elicitation that a task-augmented tool call
depends on MUST share the same related task ID with that tool call's task"), and only while it
runs: once ``tasks/result`` has answered (Result Retrieval: the final result, or its JSON-RPC
error), a request naming the task is not the task's call's — it is the call waiting then, by its
HTTP exchange or alone, as the audit reads it. A related-task naming no task of this connection
(never created, another connection's, a number, not an object, a 1 MB id, an id with a bidi
override) is no task's either. And a task call cancelled by its block before its handle came: the
handle is that call's late answer on the history (README, tap: "Cancelled"), and a request refused
while its task runs judges that history entry again, ``late`` still.

Real peers: the official SDK's ``Client`` (mcp 2.x, ``mode="legacy"``) through the tap's
transports and ``tests/integrations/asking_server.py`` over stdio and Streamable HTTP. Expected
values by hand from 2025-11-25's ``schema.json`` (PrimitiveSchemaDefinition has no ``object``
property) and tasks.mdx."""

from __future__ import annotations

import gc
from contextlib import suppress
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

from mcp_verdict import VerdictTap

from .test_tap_asked_at_sight import OBJECT, client, http_url  # noqa: F401 (http_url: a fixture)


async def never(context: Any, params: Any) -> Any:  # a client that never answers a server's request
    await anyio.sleep_forever()


async def start_task(tap: VerdictTap, session: Any, tool: str) -> str:
    """A task-augmented tools/call of ``tool`` (the SDK's CallToolResult refuses the handle: the tap
    reads it from the wire); the task's id."""
    async with tap.judging(session) as judged:
        call = types.CallToolRequest(params=types.CallToolRequestParams(
            name=tool, arguments={}, task=types.TaskMetadata(ttl=60000)))
        with pytest.raises(Exception):  # noqa: B017
            await session.session.send_request(call, types.CreateTaskResult)
    task = judged.outcome.verdict.task
    assert task is not None
    return task.task_id


async def result(session: Any, task_id: str) -> None:
    """tasks/result (its answer an error for ``task_error``: the SDK raises it)."""
    with suppress(MCPError):
        await session.session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id)),
            types.GetTaskPayloadResult)


def rows(tap: VerdictTap) -> list[tuple[str | None, str, list[str]]]:
    return [(c.name, c.verdict.kind.value, [f.code for f in c.verdict.findings]) for c in tap.history]


REFUSED = ["elicitation.property"]

# (case, the task's tool, whether tasks/result ended the task first, ask_task's arguments given the task's
# id) → the history (tool, kind, finding codes), by hand
CASES: list[tuple[str, str, bool, Any, list[tuple[str | None, str, list[str]]]]] = [
    # the task runs, the request names it: the task's call is judged again; ask_task waited for nothing of it
    ("running, named", "task_name", False, lambda t: {"task": t},
     [("task_name", "unclassified", REFUSED), ("ask_task", "normal_complete", [])]),
    # tasks/result answered: the task ended, a request naming it is the call waiting then (ask_task's), not the
    # task's call (judged a task, it stays one)
    ("ended, named", "task_name", True, lambda t: {"task": t},
     [("task_name", "task", []), ("ask_task", "unclassified", REFUSED)]),
    # the same when tasks/result's answer is the tool's JSON-RPC error: the end all the same
    ("ended on an error, named", "task_error", True, lambda t: {"task": t},
     [("task_error", "task", []), ("ask_task", "unclassified", REFUSED)]),
    # a request of its own refused on tasks/result's exchange (or alone waiting), then its end: the next
    # one naming it is ask_task's
    ("ended after a refused request, named", "task_object_bare", True, lambda t: {"task": t},
     [("task_object_bare", "unclassified", REFUSED), ("ask_task", "unclassified", REFUSED)]),
    # naming no task of this connection, the task running: the call waiting's
    ("never created", "task_name", False, lambda t: {"task": t + "9"},
     [("task_name", "task", []), ("ask_task", "unclassified", REFUSED)]),
    ("a number", "task_name", False, lambda t: {"task": 1},
     [("task_name", "task", []), ("ask_task", "unclassified", REFUSED)]),
    ("not an object", "task_name", False, lambda t: {"related": t},
     [("task_name", "task", []), ("ask_task", "unclassified", REFUSED)]),
    ("a 1 MB id", "task_name", False, lambda t: {"task": t * 500_000},
     [("task_name", "task", []), ("ask_task", "unclassified", REFUSED)]),
    ("a bidi override", "task_name", False, lambda t: {"task": "\u202e" + t},
     [("task_name", "task", []), ("ask_task", "unclassified", REFUSED)]),
]


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(("name", "tool", "ended", "arguments", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_request_is_a_tasks_only_while_it_runs_and_names_it(transport: str, name: str, tool: str, ended: bool,
                                                             arguments: Any, expected: list[Any],
                                                             request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("http_url") if transport == "http" else None

    async def scenario() -> VerdictTap:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, url, never) as session:
                task_id = await start_task(tap, session, tool)
                if ended:
                    await result(session, task_id)
                await tap.call_tool(session, "ask_task", arguments(task_id))
        return tap

    tap = anyio.run(scenario)
    assert rows(tap) == expected


def test_another_connections_task_is_no_task_here(request: pytest.FixtureRequest) -> None:
    """Two sessions of one HTTP server: a request on the second naming the first's running task is
    the second's call waiting (a task id is its connection's)."""
    url = request.getfixturevalue("http_url")

    async def scenario() -> VerdictTap:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, url, never) as first, client(tap, url, never) as second:
                task_id = await start_task(tap, first, "task_name")
                await tap.call_tool(second, "ask_task", {"task": task_id})
        return tap

    assert rows(anyio.run(scenario)) == [("task_name", "task", []), ("ask_task", "unclassified", REFUSED)]


def test_a_task_call_cancelled_before_its_handle_is_judged_again_on_its_late_entry() -> None:
    """The block of a task call is cancelled before the handle comes (``task_held``: sent with the
    next call's answer); the handle is the call's late answer on the history (``late``, ``task``);
    a request refused while that task runs judges the late entry again (``unclassified``, the
    request's findings after the handle's, ``late`` still); the cancelled call in its block stays
    ``transport.cancelled``. Before, the late entry stayed ``task``."""
    async def scenario() -> tuple[VerdictTap, Any]:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, None, never) as session:
                call = types.CallToolRequest(params=types.CallToolRequestParams(
                    name="task_held", arguments={}, task=types.TaskMetadata(ttl=60000)))
                with anyio.move_on_after(0.3):  # the block cancelled (the handle never comes before release)
                    async with tap.judging(session) as judged:
                        await session.session.send_request(call, types.CreateTaskResult)
                await tap.call_tool(session, "release", {})
                await tap.call_tool(session, "ask_task", {"task": "T1"})
                await result(session, "T1")
                await tap.call_tool(session, "ask_task", {"task": "T1"})  # ended: ask_task's
        return tap, [(c.verdict.kind.value, [f.code for f in c.verdict.findings]) for c in judged.calls]

    tap, block = anyio.run(scenario)
    assert block == [("unclassified", ["transport.cancelled"])]
    assert [(c.name, c.late, c.verdict.kind.value, [f.code for f in c.verdict.findings]) for c in tap.history] == [
        ("task_held", False, "unclassified", ["transport.cancelled"]),
        ("task_held", True, "unclassified", REFUSED),
        ("release", False, "normal_complete", []),
        ("ask_task", False, "normal_complete", []),
        ("ask_task", False, "unclassified", REFUSED),
    ]
    late = tap.history[1]
    assert [(f.code, f.path, f.message) for f in late.verdict.findings] == [OBJECT]
    assert late.outcome.verdict == late.verdict


@pytest.mark.parametrize("n", [100])
def test_a_server_request_finds_its_call_in_steps_whatever_the_requests_waiting(
        monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """A server that asks n and 4n times during one call, the client answering none (each stays
    waiting on the tracker): which call each request was made during took a scan of every request
    waiting (the server's own among them), quadratic in the requests (32,000 took ~14 s of the tap's
    time). Each look-up (``VerdictTap._asking``, what it calls included) now takes as many Python
    steps at 4n as at n."""
    from mcp_verdict.tap._tap import VerdictTap as Tap

    from .._calls import python_steps

    steps: list[int] = []
    asking = Tap._asking

    def counted(self: Any, state: Any, request: Any) -> Any:
        gc.disable()  # (a collection's finalizers, run inside, are no step of the look-up)
        try:
            taken, found = python_steps(lambda: asking(self, state, request))
        finally:
            gc.enable()
        steps.append(taken)
        return found

    monkeypatch.setattr(Tap, "_asking", counted)
    per_size = {}
    for size in (n, 4 * n):
        steps.clear()

        async def scenario(size: int = size) -> Any:
            tap = VerdictTap()
            with anyio.fail_after(60):
                async with client(tap, None, never) as session:
                    return await tap.call_tool(session, "ask_many", {"n": size})

        outcome = anyio.run(scenario)
        assert (outcome.verdict.kind.value, len(steps)) == ("normal_complete", size)
        per_size[size] = max(steps)
    assert per_size[4 * n] == per_size[n]


def test_a_task_let_go_for_the_bound_blames_no_other_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tap keeps its task calls within ``HISTORY_BYTES`` (64 MiB), counting the findings of
    their refused requests too (peer text: each finding's message and path). The bound is set
    here to what task A's and task B's handles alone come to (measured on a run where A is never
    polled): A is asked twice, its two findings grow it past that, and task B's handle puts the
    tap past its bound: A, the oldest, is let go. A request naming A afterwards, while ask_task
    waits, is no call's: A may still run, and ask_task did not ask for it. Before, A's findings
    were not counted: A stayed, and was judged a third time."""
    from mcp_verdict.tap import _history, _tap

    async def scenario(polls: int, ask: bool) -> VerdictTap:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, None, never) as session:
                async with tap.judging(session) as judged:
                    call = types.CallToolRequest(params=types.CallToolRequestParams(
                        name="task_big", arguments={"size": 600_000}, task=types.TaskMetadata(ttl=60000)))
                    with pytest.raises(Exception):  # noqa: B017
                        await session.session.send_request(call, types.CreateTaskResult)
                task = judged.outcome.verdict.task
                assert task is not None
                for _ in range(polls):
                    await session.session.send_request(
                        types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task.task_id)),
                        types.GetTaskResult)
                await start_task(tap, session, "task_name")
                if ask:
                    await tap.call_tool(session, "ask_task", {"task": task.task_id})
        return tap

    handles = anyio.run(scenario, 0, False)
    assert len(handles._tasks) == 2  # (A and B kept: the 64 MiB bound is far)
    monkeypatch.setattr(_tap, "HISTORY_BYTES", handles._tasks_size)  # (the task calls' bound)
    monkeypatch.setattr(_history, "HISTORY_BYTES", handles._tasks_size)  # (the history's and the held answers')
    tap = anyio.run(scenario, 2, True)
    assert rows(tap) == [("task_big", "unclassified", REFUSED * 2), ("task_name", "task", []),
                         ("ask_task", "normal_complete", [])]
    assert len(tap._tasks) == 1 and tap._tasks_size <= handles._tasks_size
