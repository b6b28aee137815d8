"""The task store of the tasks extension (``io.modelcontextprotocol/tasks``).

Per the extension (https://github.com/modelcontextprotocol/ext-tasks, schema/draft/schema.ts
and specification/draft/tasks.md):

- a ``CreateTaskResult`` is ``Result & Task`` flattened: ``resultType: "task"``, ``taskId``,
  ``status``, ``createdAt``, ``lastUpdatedAt`` (ISO 8601), ``ttlMs`` (integer or null),
  ``pollIntervalMs``; it is only returned once ``tasks/get`` for the id resolves;
- ``tasks/get`` answers a ``GetTaskResult``: ``resultType: "complete"`` and the flat
  ``DetailedTask`` fields; a completed task inlines the original request's result under
  ``result`` (here a ``CallToolResult`` with ``resultType: "complete"``);
- ``tasks/cancel`` is an empty acknowledgement (``resultType: "complete"``); cancellation is
  cooperative — a task that already finished stays completed;
- ``tasks/update`` is an empty acknowledgement; responses for keys not outstanding are ignored
  (the demo's tasks never wait for input);
- an unknown ``taskId`` is answered with a JSON-RPC error (here -32602).

The demo's task is deterministic: it answers ``working`` to its first ``polls`` ``tasks/get``
requests, then ``completed``. A task is forgotten ``ttlMs`` after its creation.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

DEFAULT_TASK_TTL_MS: Final = 60_000
DEFAULT_POLL_INTERVAL_MS: Final = 100


def iso(timestamp: float) -> str:
    """An ISO 8601 UTC timestamp with milliseconds."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class _Task:
    task_id: str
    created: float
    updated: float
    ttl_ms: int
    poll_interval_ms: int
    polls_left: int
    result: dict[str, Any]
    status: str = "working"
    message: str | None = field(default="The report is being generated.")

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.message is not None:
            out["statusMessage"] = self.message
        out.update(createdAt=iso(self.created), lastUpdatedAt=iso(self.updated), ttlMs=self.ttl_ms,
                   pollIntervalMs=self.poll_interval_ms)
        return out


class UnknownTask(KeyError):
    """No task with that id (never created, or forgotten after its ttl)."""


class TaskStore:
    """In-memory tasks of one server process (the explicit handle is the task id)."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._tasks: dict[str, _Task] = {}

    def create(self, result: Mapping[str, Any], *, polls: int, ttl_ms: int = DEFAULT_TASK_TTL_MS,
               poll_interval_ms: int = DEFAULT_POLL_INTERVAL_MS) -> dict[str, Any]:
        """Create a task that completes with ``result`` after ``polls`` working answers; returns
        its Task fields (for the CreateTaskResult)."""
        self._prune()
        now = self._clock()
        task = _Task(f"task-{uuid.uuid4()}", now, now, ttl_ms, poll_interval_ms, polls, dict(result))
        self._tasks[task.task_id] = task
        return task.fields()

    def get(self, task_id: str) -> dict[str, Any]:
        """The DetailedTask fields for ``tasks/get`` (a poll advances the task)."""
        task = self._find(task_id)
        if task.status == "working":
            if task.polls_left > 0:
                task.polls_left -= 1
            else:
                task.status, task.updated, task.message = "completed", self._clock(), "The report is ready."
        out = task.fields()
        if task.status == "completed":
            out["result"] = dict(task.result)
        return out

    def cancel(self, task_id: str) -> None:
        """Cancel a working task; a finished one keeps its terminal status."""
        task = self._find(task_id)
        if task.status == "working":
            task.status, task.updated, task.message = "cancelled", self._clock(), "Cancelled at the client's request."

    def touch(self, task_id: str) -> None:
        """Check that the task exists (``tasks/update``: responses are ignored)."""
        self._find(task_id)

    def _find(self, task_id: str) -> _Task:
        self._prune()
        task = self._tasks.get(task_id)
        if task is None:
            raise UnknownTask(task_id)
        return task

    def _prune(self) -> None:
        now = self._clock()
        for task_id in [t.task_id for t in self._tasks.values() if now > t.created + t.ttl_ms / 1000]:
            del self._tasks[task_id]
