"""Tools that take time: a slow answer, and a task (tasks extension).

- ``slow_echo``: answers after ``seconds`` (default 2) — for a client's timeout. The wait is
  the edge's (an asynchronous sleep), so other requests are served meanwhile; on stdio a
  ``notifications/cancelled`` for it stops it and nothing is sent (basic/patterns/cancellation).
- ``generate_report``: with the tasks extension declared in the request's clientCapabilities
  (``io.modelcontextprotocol/tasks``), answers a flat ``CreateTaskResult`` — ``resultType:
  "task"`` — and the report is fetched with ``tasks/get``; without the extension it answers the
  same report at once, a normal complete result ("A server MUST NOT return CreateTaskResult to a
  client that did not include the extension capability on its request" — ext-tasks,
  specification/draft/tasks.md#capability-negotiation).
"""

from __future__ import annotations

from typing import Any, Final

from ._call import Call, structured, tool
from ._tasks import DEFAULT_POLL_INTERVAL_MS, DEFAULT_TASK_TTL_MS
from ._wire import Reply

DEFAULT_SLOW_SECONDS: Final = 2.0
MAX_SLOW_SECONDS: Final = 30.0


@tool("Echo, slowly", f"Echoes the text after waiting `seconds` (default {DEFAULT_SLOW_SECONDS:g}, at most "
      f"{MAX_SLOW_SECONDS:g}). Outcome: success, late — a client with a shorter timeout sees none.",
      inputs={"text": {"type": "string"}, "seconds": {"type": "number", "minimum": 0, "maximum": MAX_SLOW_SECONDS}},
      outputs={"text": {"type": "string"}, "waited_s": {"type": "number"}}, output_required=("text", "waited_s"))
def slow_echo(call: Call) -> Reply:
    seconds = float(call.arguments.get("seconds", DEFAULT_SLOW_SECONDS))
    data = {"text": str(call.arguments.get("text", "")), "waited_s": seconds}
    return call.result(structured(data), delay=seconds)


@tool("Generate a report", "Generates a report. Outcome: a task (resultType \"task\") when the request declares "
      "the io.modelcontextprotocol/tasks extension — tasks/get answers working `polls` times (default 2), then "
      "completed with the report inlined; without the extension, the report at once (a normal complete result).",
      inputs={"title": {"type": "string"}, "polls": {"type": "integer", "minimum": 0, "maximum": 20},
              "poll_interval_ms": {"type": "integer", "minimum": 1, "maximum": 10_000}},
      outputs={"title": {"type": "string"}, "pages": {"type": "integer"}}, output_required=("title", "pages"))
def generate_report(call: Call) -> Reply:
    title = str(call.arguments.get("title", "Quarterly report"))
    data = {"title": title, "pages": 12}
    report: dict[str, Any] = {"resultType": "complete", **structured(data)}
    if not call.declares_tasks:
        return call.result(structured(data))
    fields = call.services.tasks.create(report, polls=int(call.arguments.get("polls", 2)),
                                        ttl_ms=DEFAULT_TASK_TTL_MS,
                                        poll_interval_ms=int(call.arguments.get("poll_interval_ms",
                                                                                DEFAULT_POLL_INTERVAL_MS)))
    return call.result(fields, result_type="task")
