"""What the frames say of tasks (2025-11-25 basic/utilities/tasks; 2026-07-28 ext-tasks): the task
a request names (:func:`related_task`), whether a poll's answer is its task's end
(:func:`ends_task`), and the verdicts of a task id created again while its first task runs
(:func:`task_taken`, :func:`task_reused`, :func:`task_unowned`). The tap, the proxy and the audit
each read tasks by these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..verdict._findings import TASK_ID_REUSED, Finding, finding
from ..verdict._kind import Kind
from ..verdict._shown import shown
from ..verdict._verdict import Verdict, make_verdict
from ._exchange import Exchange
from ._jsonrpc import peek

RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
"""The ``_meta`` key by which a 2025-11-25 message names the task it is about (basic/utilities/
tasks, Associating Task-Related Messages: "an elicitation that a task-augmented tool call
depends on MUST share the same related task ID with that tool call's task")."""


def related_task(exchange: Exchange) -> str | None:
    """The task a request names in its ``params._meta["io.modelcontextprotocol/related-task"]``
    (its ``taskId``, a string); None when it names none (or its bytes are no JSON object)."""
    meta = peek(exchange.request.data).params.get("_meta")
    related = meta.get(RELATED_TASK) if type(meta) is dict else None
    task = related.get("taskId") if type(related) is dict else None
    return task if type(task) is str else None


def _task_spec(verdict: Verdict) -> tuple[str, str]:
    """Where a task handle (``verdict``'s answer) holds its task id, and the rule that makes it
    unique: a 2025-11-25 ``CreateTaskResult`` holds the task as ``task``, a 2026-07-28 one
    (ext-tasks) its fields in the result itself."""
    message = verdict.message
    result = message.get("result") if isinstance(message, Mapping) else None
    if isinstance(result, Mapping) and "taskId" in result:
        return "/result/taskId", "ext-tasks: each task is uniquely identifiable by a server-generated task ID"
    return ("/result/task/taskId",
            "2025-11-25 basic/utilities/tasks: task IDs MUST be unique among all tasks controlled by the receiver")


def task_taken(verdict: Verdict, task_id: str, request_id: Any, refused: Sequence[Finding] = ()) -> Verdict:
    """The verdict of the tools/call that created the task ``task_id`` (``verdict``: its task's
    handle, or its last poll's), whose task had not ended when the tools/call ``request_id`` of the
    same connection was answered the same task id (:func:`task_reused` judges that answer):
    ``unclassified``, its findings, those of the server requests refused while its task ran
    (``refused``), and one naming the reuse. The call's outcome is unknown from then on: the
    polls and requests naming the id cannot be told to be its task's, so the audit follows it no
    further (it ends ``reused_id``) and the tap judges it again."""
    path, spec = _task_spec(verdict)
    found = finding(path, "task.field", (
        f"{TASK_ID_REUSED}{shown(task_id, 60)} of this call's task, not ended, was created again: the tools/call with "
        f"request id {shown(request_id, 60)} on this connection was answered with it ({spec}); the two tasks' "
        "polls and requests naming it cannot be told apart, so this call's outcome is unknown"))
    return make_verdict(Kind.UNCLASSIFIED, (*verdict.findings, *refused, found), verdict.version, verdict.message)


_UNFOLLOWED: Final = object()


def task_reused(verdict: Verdict, task_id: str, request_id: Any = _UNFOLLOWED) -> Verdict:
    """The verdict of a tools/call whose answer (``verdict``: a task's handle) created the task
    ``task_id`` that the tools/call ``request_id`` created earlier on the same connection, its
    task not ended: ``unclassified``, its findings and one naming the reuse (a
    2025-11-25 ``CreateTaskResult`` holds the task as ``task``, a 2026-07-28 one, ext-tasks, its
    fields in the result itself). The two tasks' polls and related requests cannot be told apart:
    the audit and the tap give them to neither call (:meth:`Tracker.task_creator`). Without
    ``request_id``: the id two earlier calls' answers created already (:meth:`Tracker.unfollow_task`)."""
    path, spec = _task_spec(verdict)
    if request_id is _UNFOLLOWED:
        found = finding(path, "task.field", (
            f"{TASK_ID_REUSED}{shown(task_id, 60)} is still in use: two earlier tools/call answers on this connection "
            f"created it, neither task known to have ended ({spec}); the tasks' polls and requests naming it cannot "
            "be told apart, so they are no call's"))
    else:
        found = finding(path, "task.field", (
            f"{TASK_ID_REUSED}{shown(task_id, 60)} is still in use: the tools/call with request id "
            f"{shown(request_id, 60)} on this connection created it and its task has not ended ({spec}); the two "
            "tasks' polls and requests naming it cannot be told apart, so they are neither call's"))
    return make_verdict(Kind.UNCLASSIFIED, (*verdict.findings, found), verdict.version, verdict.message)


def task_unowned(verdict: Verdict, task_id: str, method: str) -> Verdict:
    """The verdict of the answer to a ``method`` poll (``tasks/result``, a terminal ``tasks/get``:
    ``verdict``, judged as the task's end) naming the task ``task_id``, which two tools/call
    answers of the connection created, the first task not ended then (:meth:`Tracker.task_creator`
    says it was created again): ``unclassified``, its findings and one naming the reuse. The answer
    cannot be told to be either task's end (the proxy, which would hand it to its host as the end of
    the task the host polls)."""
    spec = ("2025-11-25 basic/utilities/tasks: task IDs MUST be unique among all tasks controlled by the receiver"
            if verdict.version == "2025-11-25" else
            "ext-tasks: each task is uniquely identifiable by a server-generated task ID")
    found = finding("", "task.field", (
        f"{TASK_ID_REUSED}{shown(task_id, 60)} that this {method} names is in use by two tasks: two tools/call answers "
        f"on this connection created it, the first task not ended then ({spec}); this answer cannot be told to be "
        "either task's"))
    return make_verdict(Kind.UNCLASSIFIED, (*verdict.findings, found), verdict.version, verdict.message)


_TASK_RUNNING: Final = frozenset({"working", "input_required"})
"""A task's statuses while it runs (2025-11-25 basic/utilities/tasks, Task Status)."""
_BY_RESULT: Final = frozenset({"completed", "failed"})
_RESULT_VERSIONS: Final = frozenset({"2025-11-25"})
"""The versions whose completed or failed task gives its end through ``tasks/result``."""


def ends_task(exchange: Exchange) -> bool:
    """Whether ``exchange``, a poll of a task answered (``response_peek`` set), answers the task's
    end, as the audit reads it (``audit._judge.judge_task``): any answer to ``tasks/result`` (the
    final result or its error, 2025-11-25 Result Retrieval), a ``tasks/get`` failed or unreadable,
    or whose status is ``cancelled`` or not a status, or ``completed`` or ``failed`` where the result
    is inlined (not 2025-11-25, whose result then comes with ``tasks/result``). ``tasks/update`` and
    ``tasks/cancel`` are acknowledgements: the task runs until a poll says it ended."""
    method = exchange.method
    if method == "tasks/result":
        return True
    if method != "tasks/get":
        return False
    look = exchange.response_peek
    message = look.message if look is not None else None
    result = message.get("result") if message is not None else None
    status = result.get("status") if type(result) is dict else None
    return not (status in _TASK_RUNNING or (status in _BY_RESULT and exchange.context.version in _RESULT_VERSIONS))
