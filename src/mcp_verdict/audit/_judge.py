"""Judging one round of a call, purely: the verdict of a tools/call answer, of a task request's
answer, of a request that got none, and what a naive receiver concluded from the first answer.

- A ``tools/call`` answer is classified on its exact bytes with the request's id and the
  version, capabilities and extensions in force for it (:class:`~mcp_verdict.frames.Context`).
- ``tasks/get`` (tasks extension, https://github.com/modelcontextprotocol/ext-tasks,
  specification/draft/tasks.md "Getting Tasks"): the answer is read strictly first (a duplicate
  key anywhere in it is a wire finding of the call); ``working`` and ``input_required`` keep the
  call running; ``completed`` inlines the original request's result and ``failed`` its JSON-RPC
  error, each classified as the answer to the original ``tools/call``; ``cancelled`` leaves the
  effect unknown (``task.status``).
- ``tasks/result`` (2025-11-25 tasks) answers with the original request's result itself.
- ``tasks/update`` and ``tasks/cancel`` are acknowledgements: they judge nothing.
- A 2025 server's own ``elicitation/create``, ``sampling/createMessage`` or ``roots/list``
  request made while a call waits (a round of that call) is judged as the client judges it
  (``_input.judge_server_request``), under the options in force for the call (its version, the
  client's declared capabilities), its bytes read strictly first (a duplicate key, bad UTF-8:
  ``json.*``): ``input_required`` when acceptable, else ``unclassified``.
- A request that got no answer before its connection closed (or the log ended) is
  ``unclassified`` with ``transport.closed``: its effect is unknown; with
  ``transport.cancelled`` when the client cancelled it first (``notifications/cancelled``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..frames import Exchange, Peek
from ..verdict._classify import DEFAULT_LIMITS
from ..verdict._findings import finding
from ..verdict._judge import held_id, judge
from ..verdict._kind import Kind
from ..verdict._options import Options
from ..verdict._parser import parse
from ..verdict._task import STATUSES
from ..verdict._verdict import Verdict, make_verdict

RUNNING: Final = frozenset({"working", "input_required"})


def judge_call(exchange: Exchange, options: Options) -> Verdict:
    """The verdict of a tools/call round's answer (``exchange.response`` must be set), under the
    options in force for its request (checked: ``OptionsMemo.of`` its context)."""
    assert exchange.response is not None
    return judge(exchange.response.data, options, held_id(exchange.request_id))


_RESULT_VERSIONS: Final = frozenset({"2025-11-25"})
"""The versions whose tasks give their result through ``tasks/result`` (2025-11-25 basic/utilities/
tasks, Result Retrieval: for a task in a terminal status tasks/result "MUST return the final result
of the underlying request, whether that is a successful result or a JSON-RPC error"; GetTaskResult
is the Task alone), where later ones inline it in ``tasks/get`` (ext-tasks, Task Status)."""
_BY_RESULT: Final = frozenset({"completed", "failed"})
"""The terminal statuses whose end is read from ``tasks/result`` there (``cancelled``: its effect
unknown, as the client reads it)."""


def judge_task(exchange: Exchange, original_id: Any, options: Options) -> tuple[Verdict | None, str | None]:
    """A task round's (verdict, status): ``(None, status)`` while the task runs, for an
    acknowledgement, and on 2025-11-25 for a ``tasks/get`` that says completed or failed (the end
    comes with ``tasks/result``, as mcp-verdict's client reads it); a verdict once the task's end
    is known (``options``: those in force for its request, as for :func:`judge_call`)."""
    assert exchange.response is not None
    if exchange.method == "tasks/result":
        return judge(exchange.response.data, options, held_id(exchange.request_id)), None
    value, problem = parse(exchange.response.data, DEFAULT_LIMITS.max_bytes, DEFAULT_LIMITS.max_depth)
    if problem is not None:
        return make_verdict(Kind.UNCLASSIFIED, (problem,), exchange.context.version, None), None
    if exchange.method != "tasks/get":
        return None, None  # tasks/update, tasks/cancel: acknowledgements
    message = value if isinstance(value, dict) else {}
    result = message.get("result")
    if not isinstance(result, dict):
        error = message.get("error")
        if isinstance(error, dict):  # tasks/get itself failed: the task's state is unknown
            return _local(exchange.context.version, "task.field",
                          f"tasks/get failed with error {error.get('code')!r}: the task's end is unknown"), None
        return _local(exchange.context.version, "task.field", "the tasks/get answer carries no result object"), None
    status = result.get("status")
    if not isinstance(status, str) or status not in STATUSES:
        return _local(exchange.context.version, "task.status", f"tasks/get answered status {status!r}"), None
    if status in _BY_RESULT and exchange.context.version in _RESULT_VERSIONS:
        return None, status  # 2025-11-25: the task's result (or error) is tasks/result's answer, not inlined
    envelope: dict[str, Any] = {"jsonrpc": "2.0", "id": original_id}
    if status == "completed":
        envelope["result"] = result.get("result")
        return judge(envelope, options, held_id(original_id)), status
    if status == "failed":
        envelope["error"] = result.get("error")
        return judge(envelope, options, held_id(original_id)), status
    if status == "cancelled":
        return _local(exchange.context.version, "task.status",
                      "the task was cancelled: its effect is unknown"), status
    return None, status


def unanswered(version: str, why: str) -> Verdict:
    """The verdict of a request that got no answer."""
    return _local(version, "transport.closed", why)


def cancelled(version: str, why: str) -> Verdict:
    """The verdict of a request the client cancelled (``notifications/cancelled``) and that got no
    answer: it was sent, so the tool may have run (its effect is unknown), as the tap judges a
    call its caller cancelled."""
    return _local(version, "transport.cancelled", why)


def ambiguous(version: str, why: str) -> Verdict:
    """The verdict of a request whose answer cannot be told from another's (two requests waiting
    under one id on one HTTP client, an answer that names neither's exchange), as the tap judges
    it: ``transport.error``, saying why."""
    return _local(version, "transport.error", why)


def _local(version: str, code: str, message: str) -> Verdict:
    return make_verdict(Kind.UNCLASSIFIED, (finding("", code, message),), version, None)


def naive(look: Peek | None, data: bytes | None) -> str:
    """What the naive receiver (``"result" in json.loads(answer)``, :func:`naive_conclusion`)
    concludes. When the routing read parsed the answer, json.loads would read the same object
    (orjson is stricter and keeps the last of duplicate keys, as json does), so it is not read
    again; anything else goes through json.loads itself, whose RecursionError on a deeply
    nested answer is a crash of the receiver too."""
    if data is None:
        return "no_response"
    kind = look.kind if look is not None else None
    if kind == "response":  # (the common cases first: an object with "result", an object with "error")
        return "success"
    if kind == "error":
        return "failure"
    if look is not None and look.kind in ("response", "error", "invalid", "request", "notification"):
        message: Mapping[str, Any] | None = look.message
        if look.kind != "invalid" or message is not None:
            return "success" if message is not None and "result" in message else "failure"
    from ..demo._catalogue import naive_conclusion  # on first use: the demo package is heavy to import

    try:
        return naive_conclusion(data)  # a list, a scalar or what orjson refuses: let json decide
    except RecursionError:
        return "crash"
