"""A 2026-07-28 MCP server on stdio (``server/discover``, the tasks extension) whose tasks and
input rounds misbehave in one way per tool name, for the client's hostile-task tests.
Run: python -m tests.servers.hostile_tasks

Every ``tools/call`` answers a task handle (``resultType: "task"``, task id ``T-<tool>``) when
the request declares the tasks extension, else a plain text result. ``tasks/get`` for the task
answers as its tool says:

- ``poll_zero``: ``working`` with ``pollIntervalMs: 0`` and a ``statusMessage`` of
  ``arguments.size`` bytes, every time (a task that never ends, polled as fast as it asks);
- ``completed_task``: ``completed`` with an inlined result that is itself a task handle;
- ``completed_input``: ``completed`` with an inlined ``input_required`` result;
- ``completed_plain``: ``completed`` with an inlined text result ``done``;
- ``long_id``: ``working`` answered for another task id, 100,000 characters long;
- ``poll_hour``: its handle asks to be polled in an hour (``pollIntervalMs: 3600000``);
  ``completed`` with an inlined text result ``done`` when polled.

``tasks/cancel`` and ``tasks/update`` are acknowledged; any other method is -32601.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.servers._lines import TASKS, discovered, listed, requests, task_call, text

TOOLS = ("poll_zero", "completed_task", "completed_input", "completed_plain", "long_id", "poll_hour")
STAMP = "2026-01-01T00:00:00Z"


def task(task_id: str, status: str, **extra: Any) -> dict[str, Any]:
    return {"taskId": task_id, "status": status, "createdAt": STAMP, "lastUpdatedAt": STAMP, "ttlMs": 60_000,
            "pollIntervalMs": 10, **extra}


def polled(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tasks/get result for the task of ``tool``."""
    task_id = f"T-{tool}"
    if tool == "poll_zero":
        return task(task_id, "working", pollIntervalMs=0, statusMessage="m" * int(arguments.get("size", 1)))
    if tool == "completed_task":
        return task(task_id, "completed", result={"resultType": "task", **task("T-inner", "working")})
    if tool == "completed_input":
        return task(task_id, "completed", result={"resultType": "input_required", "requestState": "s",
                                                  "inputRequests": {"r": {"method": "roots/list"}}})
    if tool == "long_id":
        return task("X" * 100_000, "working")
    return task(task_id, "completed", result=text("done"))


def answer(message: dict[str, Any], calls: dict[str, dict[str, Any]]) -> dict[str, Any]:
    method = message.get("method")
    params = message.get("params") or {}
    if method == "server/discover":
        return discovered("hostile-tasks", {TASKS: {}})
    if method == "tools/list":
        return listed(TOOLS)
    if method == "tools/call":
        name = task_call(params)
        if name is None:
            return text("no task")
        calls[f"T-{name}"] = params.get("arguments") or {}
        handle = task(f"T-{name}", "working")
        if name == "poll_hour":
            handle["pollIntervalMs"] = 3_600_000
        return {"resultType": "task", **handle}
    if method == "tasks/get":
        task_id = str(params.get("taskId"))
        return {"resultType": "complete", **polled(task_id[2:], calls.get(task_id, {}))}
    if method in ("tasks/cancel", "tasks/update"):
        return {"resultType": "complete"}
    raise LookupError(method)


def main() -> None:
    out = sys.stdout.buffer
    calls: dict[str, dict[str, Any]] = {}
    for message in requests():
        try:
            reply: dict[str, Any] = {"result": answer(message, calls)}
        except LookupError:
            reply = {"error": {"code": -32601, "message": "Method not found"}}
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], **reply}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
