"""The tap judges a 2025 server's own request when it comes, whatever the client does with it:
a request the client never answers (a callback that never returns: a client that ignores a
malformed elicitation), or answers only after the call's answer, still makes the call it was
made during ``unclassified`` with its findings — what the server sent is the server's. Each
request is judged once.

And a 2025-11-25 task's requests (basic/utilities/tasks.mdx, "Task-Augmented Tool Call With
Elicitation": the client polls with ``tasks/get``, finds ``input_required``, calls
``tasks/result``, and the server sends ``elicitation/create (related-task: task-123)``; "an
elicitation that a task-augmented tool call depends on MUST share the same related task ID with
that tool call's task"): the tap judged the call when its handle came (``task``); a request
refused while the task runs makes that call ``unclassified`` with its findings after the
handle's, on the history and in its judging block. It belongs to the task by the task it names
in ``_meta["io.modelcontextprotocol/related-task"]``, else by the poll waiting on its HTTP
exchange, else by the only request waiting on the connection.

Before, the tap judged a server request only when the client answered it, while a tools/call
itself waited: these calls were ``normal_complete`` (or ``task``) and accepted.

Real peers: the official SDK's ``Client`` (mcp 2.x, ``mode="legacy"``: 2025-11-25, its
elicitation capability form and url) through the tap's transports, and a byte-by-byte server
(``tests/integrations/asking_server.py``) over stdio and Streamable HTTP on 127.0.0.1. The SDK
has no 2025-11-25 task client: the application sends the task-augmented request itself
(``send_request``; the SDK's model of a tools/call result refuses the CreateTaskResult, the tap
reads the task's id from the wire) and polls. Expected values by hand from 2025-11-25's
``schema.json``: PrimitiveSchemaDefinition has no ``object`` property."""

from __future__ import annotations

import sys
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
import pytest
from mcp import Client, types

from mcp_verdict import VerdictTap

from ..processes import free_port, http_server
from . import test_tap_server_requests as server_requests

SERVER = [sys.executable, "-m", "tests.integrations.asking_server"]
OBJECT = ("elicitation.property", "", "the server's elicitation/create request (at "
          "/params/requestedSchema/properties/a/type): the property's type is the string 'object'; a requested "
          "schema is flat: string, number, integer, boolean, or an enum (single- or multi-select)")


def client(tap: VerdictTap, url: str | None, callback: Any) -> AbstractAsyncContextManager[Client]:
    """The SDK's Client over the tap's stdio transport to the asking server (``url`` None) or its
    HTTP client."""
    return server_requests.client(tap, url, callback, server=SERVER)


@pytest.fixture(scope="module")
def http_url() -> Any:
    port = free_port()
    with http_server([*SERVER, "http", str(port)], port, "the asking server") as url:
        yield url


# (tool) → (the verdict's kind, the decision, its findings as (code, path, message)), by hand
CASES: list[tuple[str, tuple[str, str], list[tuple[str, str, str]]]] = [
    # the server asked for a property of type object while the call waited: refused, answered or not
    ("ask_object", ("unclassified", "investigate"), [OBJECT]),
    # a valid form elicitation: nothing to add
    ("ask_name", ("normal_complete", "accept"), []),
    # asked after the call's answer: no call waited for it
    ("ask_after", ("normal_complete", "accept"), []),
]


@pytest.mark.parametrize("answers", ["never", "after the call"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(("tool", "decided", "findings"), CASES, ids=[c[0] for c in CASES])
def test_a_server_request_is_judged_when_it_comes(transport: str, answers: str, tool: str, decided: tuple[str, str],
                                                  findings: list[tuple[str, str, str]],
                                                  request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("http_url") if transport == "http" else None

    async def scenario() -> tuple[Any, Any, list[Any]]:
        judged_already = anyio.Event()

        async def held(context: Any, params: Any) -> Any:  # the client's answer: never, or once the call is judged
            if answers == "never":
                await anyio.sleep_forever()
            await judged_already.wait()
            return types.ElicitResult(action="decline")

        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, url, held) as session:
                async with tap.judging(session) as judged:
                    await session.call_tool(tool, {})
                before = judged.outcome
                judged_already.set()
                if answers == "after the call":  # a call judged after: the answer has come by its end
                    await tap.call_tool(session, "ask_name", {})
                return before, judged.outcome, [c.verdict.kind.value for c in tap.history]

    before, after, kinds = anyio.run(scenario)
    verdict = before.verdict
    assert (verdict.kind.value, before.decision.action.value) == decided, verdict.findings
    assert [(f.code, f.path, f.message) for f in verdict.findings] == findings
    assert after == before  # the client's late answer judged nothing again
    # the request goes to its call only, whenever it is answered: a call made after is judged on its own
    assert kinds == [decided[0]] + (["normal_complete"] if answers == "after the call" else [])


TASK_CASES: list[tuple[str, tuple[str, str], list[tuple[str, str, str]]]] = [
    # the elicitation names the task (related-task) and is refused: the task's call is
    ("task_object", ("unclassified", "investigate"), [OBJECT]),
    # it does not name it, but comes on the tasks/result's stream (HTTP) / while tasks/result alone waits (stdio)
    ("task_object_bare", ("unclassified", "investigate"), [OBJECT]),
    # a valid one: the call stays the task it was
    ("task_name", ("task", "poll_task"), []),
]


# a block given options of its own judges its calls apart from the defaults' quick path (VerdictTap._judge)
@pytest.mark.parametrize("options", [{}, {"trusted_server": False}], ids=["defaults", "options"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(("tool", "decided", "findings"), TASK_CASES, ids=[c[0] for c in TASK_CASES])
def test_a_request_refused_while_a_task_runs_is_its_calls(transport: str, tool: str, decided: tuple[str, str],
                                                          findings: list[tuple[str, str, str]],
                                                          options: dict[str, Any],
                                                          request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("http_url") if transport == "http" else None

    async def never(context: Any, params: Any) -> Any:  # a client that never answers: judged all the same
        await anyio.sleep_forever()

    async def scenario() -> tuple[str, str, Any, list[Any], list[Any]]:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, url, never) as session:
                async with tap.judging(session, **options) as judged:
                    call = types.CallToolRequest(params=types.CallToolRequestParams(
                        name=tool, arguments={}, task=types.TaskMetadata(ttl=60000)))
                    with pytest.raises(Exception):  # noqa: B017 (the SDK's CallToolResult refuses the handle)
                        await session.session.send_request(call, types.CreateTaskResult)
                    handle = judged.outcome.verdict
                    assert handle.task is not None
                    task_id = handle.task.task_id
                    status = await session.session.send_request(
                        types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)), types.GetTaskResult)
                    await session.session.send_request(
                        types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id)),
                        types.GetTaskPayloadResult)
                return handle.kind.value, status.status, judged.outcome, [c.verdict for c in judged.calls], \
                    [c.verdict for c in tap.history]

    handle, status, outcome, calls, history = anyio.run(scenario)
    assert (handle, status) == ("task", "input_required")  # what the tap said when the handle came
    verdict = outcome.verdict
    assert (verdict.kind.value, outcome.decision.action.value) == decided, verdict.findings
    assert [(f.code, f.path, f.message) for f in verdict.findings] == findings
    assert calls == history == [verdict]  # one call, the same on the history and in the block


def test_a_task_that_keeps_asking_holds_the_findings_of_its_first_64_requests() -> None:
    """66 refused requests during one task (its tasks/get polls, each asked on, the task running):
    the findings of the first 64, and one counting the others (a task asking without end grows no
    list in the tap). (tasks/result's answer is the task's end: a request after it is not the
    task's, so the polls here are tasks/get.)"""
    async def never(context: Any, params: Any) -> Any:
        await anyio.sleep_forever()

    async def scenario() -> list[tuple[str, str]]:
        tap = VerdictTap()
        with anyio.fail_after(120):
            async with client(tap, None, never) as session:
                async with tap.judging(session) as judged:
                    call = types.CallToolRequest(params=types.CallToolRequestParams(
                        name="task_asking", arguments={}, task=types.TaskMetadata(ttl=60000)))
                    with pytest.raises(Exception):  # noqa: B017 (the SDK's CallToolResult refuses the handle)
                        await session.session.send_request(call, types.CreateTaskResult)
                    task_id = judged.outcome.verdict.task.task_id  # type: ignore[union-attr]
                    for _ in range(66):
                        await session.session.send_request(
                            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)),
                            types.GetTaskResult)
                return [(f.code, f.message) for f in judged.outcome.verdict.findings]

    found = anyio.run(scenario)
    assert len(found) == 65
    assert {code for code, _ in found} == {"elicitation.property"}
    assert found[-1][1] == ("the server made 2 more requests mcp-verdict refuses during the call (the first 64 are "
                            "above)")
