"""The tasks of one relay's connection, for a task id the server creates again while a task
with it runs (2025-11-25 basic/utilities/tasks, Task ID Requirements: "Task IDs MUST be unique
among all tasks controlled by the receiver"; ext-tasks: "Each task is uniquely identifiable by a
server-generated task ID"), read as the tap and the audit read it (``frames.Tracker.task_reuse``):

- the answer that creates the id again is ``unclassified`` with a ``task.field`` finding naming
  the reuse (``frames._tasks.task_reused``): enforce refuses it as any ``unclassified`` answer;
- the call whose task held the id is judged again, ``unclassified`` with its findings and one
  naming the reuse (``frames._tasks.task_taken``): its effect is unknown from then on;
- the answers to the polls naming the id that the proxy judges (``tasks/result``, a terminal
  ``tasks/get``) cannot be told to be either task's end: ``unclassified`` with a ``task.field``
  finding (``frames._tasks.task_unowned``), so enforce never hands the host another task's result
  as the end of the task it polls.

A task runs until a poll answers its end (``frames._tasks.ends_task``); once it ended, its id
created again is the later call's. The last :data:`KEPT` tasks running are kept (a call, its
verdict, its answer's digest: never its bytes); a task let go past that bound is taken as ended.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from ..frames import Exchange, Tracker
from ..frames._tasks import ends_task, task_reused, task_taken, task_unowned
from ..verdict._verdict import Verdict, make_verdict
from ._codes import digest

KEPT: Final = 4096
"""The tasks running whose calls a relay keeps, at most (the oldest let go past it)."""


class Taken(NamedTuple):
    """A tools/call whose task holds a task id: while it runs (its handle's verdict), and once
    another call's answer created the id again (its verdict judged again)."""

    call: int
    round: int
    request_id: Any
    tool: str | None
    verdict: Verdict
    """Its verdict: its handle's while its task runs; judged again once its id is taken:
    ``unclassified``, the reuse named last."""
    answer: Mapping[str, Any]
    """The digest of its answer's bytes (``sha256``, ``size``), when verdict lines are written."""
    span: object = None
    """Its span's context (``_otel``), when a span recorded it: the reusing call's span links to it."""


class Tasks:
    """The tasks created on one connection of a relay whose end no poll has answered yet."""

    def __init__(self, tracker: Tracker, conn: str) -> None:
        self._tracker = tracker
        self._conn = conn
        self._running: OrderedDict[str, Taken] = OrderedDict()

    def created(self, exchange: Exchange, verdict: Verdict, data: bytes, digested: bool) -> tuple[Verdict,
                                                                                                 Taken | None]:
        """``verdict``, a task's handle answering the tools/call ``exchange`` (its bytes ``data``;
        ``digested``: keep their digest for a verdict line), as it stands, and the call whose task
        held the id when this answer created it again (None: none)."""
        task = verdict.task
        if task is None:
            return verdict, None
        task_id = task.task_id
        running = self._running
        reused, first = self._tracker.task_reuse(self._conn, task_id, exchange.call, lambda call: (
            held if (held := running.get(task_id)) is not None and held.call == call else None))
        if not reused:
            running.pop(task_id, None)
            # (the handle's message kept as far as the reuse's finding reads it: where its task id is)
            result = verdict.message.get("result") if isinstance(verdict.message, dict) else None
            where: dict[str, Any] = {"taskId": task_id} if isinstance(result, dict) and "taskId" in result \
                else {"task": {}}
            running[task_id] = Taken(exchange.call, exchange.round, exchange.request_id, exchange.tool,
                                        make_verdict(verdict.kind, verdict.findings, verdict.version,
                                                     {"result": where}), digest(data) if digested else {})
            if len(running) > KEPT:
                running.popitem(last=False)
            return verdict, None
        if first is None:  # created twice already, the first task not ended then: a reuse again
            return task_reused(verdict, task_id), None
        del running[task_id]
        taken = first._replace(verdict=task_taken(first.verdict, task_id, exchange.request_id))
        return task_reused(verdict, task_id, first.request_id), taken

    def spanned(self, task_id: str, call: int, span: object) -> None:
        """The span context ``span`` of the call ``call``, whose task holds ``task_id``, kept with it
        (None: nothing kept)."""
        held = self._running.get(task_id)
        if held is not None and held.call == call and span is not None:
            self._running[task_id] = held._replace(span=span)

    def polled(self, exchange: Exchange, verdict: Verdict | None) -> Verdict | None:
        """``verdict`` (None: nothing judged) of the answer to ``exchange``, a request naming a
        task, as it stands: ``unclassified`` when its task id is one two tasks hold; a poll that
        answers a running task's end lets the task go."""
        task_id = exchange.task_id
        if task_id is None:
            return verdict
        made = self._tracker.task_creator(self._conn, task_id)
        if made is not None and made[1]:
            return task_unowned(verdict, task_id, exchange.method) if verdict is not None else None
        running = self._running
        if running and ends_task(exchange):
            held = running.get(task_id)
            if held is not None and held.call == exchange.call:
                del running[task_id]
        return verdict
