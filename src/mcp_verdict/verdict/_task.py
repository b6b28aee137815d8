"""Task handles.

2026-07-28, tasks extension negotiated (``io.modelcontextprotocol/tasks`` in ``extensions``):
a result with ``resultType: "task"`` is a CreateTaskResult, ``Result & Task`` flattened
(https://github.com/modelcontextprotocol/ext-tasks, schema/draft/schema.ts):

- ``taskId``: string; ``status``: working | input_required | completed | cancelled | failed
  (``task.status``); ``createdAt`` and ``lastUpdatedAt``: strings; ``ttlMs``: integer or
  null, required; ``pollIntervalMs``: integer, optional; ``statusMessage``: string, optional
  (``task.field``).

2025-11-25, for a task-augmented request (signalled by passing the same extension id): the
experimental CreateTaskResult ``{"task": {...}}`` with ``ttl`` and ``pollInterval``
(https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._findings import describe, pointer
from ._walk import Context, check_extras

STATUSES: Final = frozenset({"working", "input_required", "completed", "cancelled", "failed"})
_NAMES_2026: Final = ("ttlMs", "pollIntervalMs")
_NAMES_2025: Final = ("ttl", "pollInterval")


def check_task(ctx: Context, task: Mapping[str, Any], path: str, depth: int, *, legacy: bool) -> None:
    """Check a task object; ``legacy`` selects the 2025-11-25 member names."""
    ttl, poll = _NAMES_2025 if legacy else _NAMES_2026
    known = frozenset({"resultType", "_meta", "taskId", "status", "statusMessage", "createdAt",
                       "lastUpdatedAt", ttl, poll})
    for name in ("taskId", "createdAt", "lastUpdatedAt"):
        _need(ctx, task, name, path, str, "a string")
    status = task.get("status")
    if "status" not in task:
        ctx.add(path, "task.field", "the task has no status")
    elif not isinstance(status, str):
        ctx.add(pointer(path, "status"), "task.field", f"status is {describe(status)}; expected a string")
    elif status not in STATUSES:
        ctx.add(pointer(path, "status"), "task.status",
                f"status is {describe(status)}; expected one of {', '.join(sorted(STATUSES))}")
    if ttl not in task:
        ctx.add(path, "task.field", f"the task has no {ttl} (an integer, or null for unlimited)")
    elif task[ttl] is not None and not _is_int(task[ttl]):
        ctx.add(pointer(path, ttl), "task.field", f"{ttl} is {describe(task[ttl])}; expected an integer or null",
                task[ttl])
    if poll in task and not _is_int(task[poll]):
        ctx.add(pointer(path, poll), "task.field", f"{poll} is {describe(task[poll])}; expected an integer",
                task[poll])
    if "statusMessage" in task and not isinstance(task["statusMessage"], str):
        ctx.add(pointer(path, "statusMessage"), "task.field",
                f"statusMessage is {describe(task['statusMessage'])}; expected a string")
    check_extras(ctx, task, known, path, depth)


def _is_int(value: object) -> bool:
    """A JSON Schema integer, as the schemas type ``ttl`` and ``pollInterval``: an integer,
    or a number with a zero fractional part (1000.0)."""
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


def _need(ctx: Context, obj: Mapping[str, Any], name: str, path: str, kind: type, what: str) -> None:
    if name not in obj:
        ctx.add(path, "task.field", f"the task has no {name}")
    elif not isinstance(obj[name], kind):
        ctx.add(pointer(path, name), "task.field", f"{name} is {describe(obj[name])}; expected {what}")
