"""VerdictClient against servers whose tasks and input requests are hostile or broken, over real
stdio (tests/servers/hostile_tasks.py, tests/servers/misbehaving.py): each call ends in the
verdict and decision written here by hand, never an exception, a hang, or a decision to follow
up something the call already ended.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, ElicitationRequest, Kind
from mcp_verdict.client import ElicitAnswer, Handlers, VerdictClient

HOSTILE_TASKS = [sys.executable, "-m", "tests.servers.hostile_tasks"]


async def roots() -> list[dict[str, Any]]:
    return [{"uri": "file:///tmp", "name": "tmp"}]


async def form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    return ElicitAnswer.accept({"a": "x"})


def call(command: list[str], tool: str, **options: Any) -> tuple[Any, Any]:
    async def scenario() -> tuple[Any, Any]:
        async with VerdictClient.stdio(command, timeout=10, connect_timeout=20, **options) as client:
            with anyio.fail_after(30):
                outcome = await client.call_tool(tool, {})
            return outcome, client.history[-1]

    return anyio.run(scenario)


# The tasks extension (ext-tasks, specification/2026-07-28/tasks.md, Task Status): "completed: the
# request completed successfully and results are available in the result field" — the original
# request's result (a CallToolResult for tools/call). A task handle or an input request inlined
# there is no final result, and the call has ended: nothing would poll it or answer it.
# tool, handlers → (kind, first finding, action, the rounds' (method, kind, status))
COMPLETED: list[tuple[str, Handlers, Kind, str | None, Action, list[tuple[str, str, str | None]]]] = [
    ("completed_task", Handlers(), Kind.UNCLASSIFIED, "task.field", Action.INVESTIGATE,
     [("tools/call", "task", None), ("tasks/get", "unclassified", "completed")]),
    ("completed_input", Handlers(roots=roots), Kind.UNCLASSIFIED, "task.field", Action.INVESTIGATE,
     [("tools/call", "task", None), ("tasks/get", "unclassified", "completed")]),
    # undeclared roots: refused as classify refuses any input request for them
    ("completed_input", Handlers(), Kind.UNCLASSIFIED, "input.capability", Action.INVESTIGATE,
     [("tools/call", "task", None), ("tasks/get", "unclassified", "completed")]),
    ("completed_plain", Handlers(), Kind.NORMAL_COMPLETE, None, Action.ACCEPT,
     [("tools/call", "task", None), ("tasks/get", "normal_complete", "completed")]),
]


@pytest.mark.parametrize(("tool", "handlers", "kind", "code", "action", "rounds"), COMPLETED,
                         ids=["task_in_completed", "input_in_completed", "input_undeclared", "plain"])
def test_a_completed_task_ends_in_its_final_result_or_unclassified(
        tool: str, handlers: Handlers, kind: Kind, code: str | None, action: Action,
        rounds: list[tuple[str, str, str | None]]) -> None:
    outcome, record = call(HOSTILE_TASKS, tool, tasks=True, handlers=handlers)
    assert outcome.verdict.kind is kind
    assert [f.code for f in outcome.verdict.findings][:1] == ([code] if code else [])
    assert outcome.decision.action is action
    assert [(r.method, r.kind, r.status) for r in record.rounds] == rounds


def test_a_task_id_the_server_did_not_give_is_named_cut() -> None:
    """tasks/get answering another task (100,000 characters of id): task.field, the id quoted
    cut as every peer string in a message is, not written in full."""
    outcome, _ = call(HOSTILE_TASKS, "long_id", tasks=True)
    assert [(f.code, f.message) for f in outcome.verdict.findings] == [
        ("task.field", "tasks/get answered taskId '" + "X" * 76 + "... with status 'working'")]
    assert outcome.decision.action is Action.INVESTIGATE
