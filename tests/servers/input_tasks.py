"""A 2026-07-28 MCP server (``server/discover``, the tasks extension) whose tasks ask the client
for input while they run, for the client's task-input tests. Run: python -m tests.servers.input_tasks
stdio, or python -m tests.servers.input_tasks http (prints its port, then serves
http://127.0.0.1:PORT/mcp until its stdin closes).

Every ``tools/call`` that declares the tasks extension answers a task handle (``resultType:
"task"``, task id ``T<n>-<tool>``, ``pollIntervalMs: 10``). ``tasks/get`` answers as the tool
says, from the task's polls and the ``tasks/update`` requests it was sent (ext-tasks,
specification/draft/tasks.md, Task Update Requests); a completed task's result is the text
``<answers>; updates <keys of each tasks/update>``, the answers as the task used them:

- ``ask_name``: ``input_required`` with ``inputRequests`` ``{name: a form elicitation}`` until a
  tasks/update answers it; then once more the same (the acknowledgement is eventually
  consistent), then ``working``, then ``completed`` (``name=<the name>``);
- ``two_steps``: ``{a: a form}``; after an update, ``{a, b: another form}`` (``a`` still listed),
  until ``b`` is answered too; then ``completed`` (``a=…, b=…``);
- ``ask_two``: ``{a: a form, r: roots/list}`` at once; ``completed`` once both are answered;
- ``ask_url``: ``{u: a url-mode elicitation}``; ``ask_ref``: ``{a: a form whose property is a
  $ref}`` (outside the requested-schema subset) — ``completed`` if ever answered;
- ``update_error``: ``{name: a form}``; tasks/update is answered with error -32602;
  tasks/get then answers ``completed`` (``name=never given``);
- ``update_no_result``: the same, tasks/update answered ``{"result": 5}``;
- ``no_requests``: ``input_required`` without ``inputRequests``; ``null_requests``: with
  ``inputRequests: null``; ``empty_requests``: with ``inputRequests: {}``, at every poll;
  ``emptied``: ``{name: a form}`` until a tasks/update answers it, then ``inputRequests: {}``
  at every poll (the key answered, the status never moved on);
- ``key_reused``: ``{a: a form}``; after an update ``{a: another form}`` (the key reused);
- ``ask_forever``: a new key every poll (``k1``, ``k2``, … each a roots/list);
- ``stale_forever``: ``{a: a form}``; after an update the same, forever, with ``pollIntervalMs: 0``.

Each tasks/update is acknowledged with ``{"resultType": "complete"}`` (but for the two tools
above); responses for keys not outstanding are ignored, as the extension says servers SHOULD.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.servers._lines import TASKS, ReplyHandler, discovered, listed, requests, serve_http, task_call, text

TOOLS = ("ask_name", "two_steps", "ask_two", "ask_url", "ask_ref", "update_error", "update_no_result",
         "no_requests", "null_requests", "empty_requests", "emptied", "key_reused", "ask_forever", "stale_forever")
STAMP = "2026-01-01T00:00:00Z"
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def form(message: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message,
                                                        "requestedSchema": schema or NAME_SCHEMA}}


URL = {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in",
                                                  "url": "https://example.com/login"}}
REF = form("Pick", {"type": "object", "properties": {"a": {"$ref": "https://example.com/schema.json"}}})
ROOTS = {"method": "roots/list"}


@dataclass
class Task:
    tool: str
    polls: int = 0
    """tasks/get requests answered."""
    updates: list[dict[str, Any]] = field(default_factory=list)
    """The inputResponses of each tasks/update, as received."""
    polls_since_update: int = 0

    def answer(self, key: str) -> Any:
        """The latest response received for ``key``, or None."""
        for responses in reversed(self.updates):
            if key in responses:
                return responses[key]
        return None

    def given(self, *keys: str) -> str:
        out = []
        for key in keys:
            response = self.answer(key)
            content = response.get("content") if isinstance(response, dict) else None
            if isinstance(content, dict) and len(content) == 1:
                out.append(f"{key}={next(iter(content.values()))}")
            elif isinstance(response, dict) and "roots" in response:
                out.append(f"{key}=" + ",".join(str(r.get("uri")) for r in response["roots"]))
            else:
                out.append(f"{key}=never given")
        return ", ".join(out) + "; updates " + json.dumps([sorted(u) for u in self.updates])


def fields(task_id: str, status: str, **extra: Any) -> dict[str, Any]:
    return {"taskId": task_id, "status": status, "createdAt": STAMP, "lastUpdatedAt": STAMP, "ttlMs": 60_000,
            "pollIntervalMs": 10, **extra}


def asking(task_id: str, requests_: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return fields(task_id, "input_required", inputRequests=requests_, **extra)


def done(task_id: str, task: Task, *keys: str) -> dict[str, Any]:
    return fields(task_id, "completed", result=text(task.given(*keys)))


def polled(task_id: str, task: Task) -> dict[str, Any]:
    """The tasks/get result of the task (a poll advances it)."""
    task.polls += 1
    task.polls_since_update += 1
    tool, answered = task.tool, {key for update in task.updates for key in update}
    if tool == "ask_name":
        if "name" not in answered or task.polls_since_update == 1:
            return asking(task_id, {"name": form("Please enter your name.")})
        if task.polls_since_update == 2:
            return fields(task_id, "working")
        return done(task_id, task, "name")
    if tool == "two_steps":
        if "a" not in answered:
            return asking(task_id, {"a": form("First?")})
        if "b" not in answered:
            return asking(task_id, {"a": form("First?"), "b": form("Second?")})
        return done(task_id, task, "a", "b")
    if tool == "ask_two":
        if {"a", "r"} - answered:
            return asking(task_id, {key: value for key, value in (("a", form("Name?")), ("r", ROOTS))
                                    if key not in answered})
        return done(task_id, task, "a", "r")
    if tool in ("ask_url", "ask_ref"):
        key = "u" if tool == "ask_url" else "a"
        return done(task_id, task, key) if task.updates else asking(task_id, {key: URL if key == "u" else REF})
    if tool in ("update_error", "update_no_result"):
        return asking(task_id, {"name": form("Name?")}) if task.polls == 1 else done(task_id, task, "name")
    if tool == "no_requests":
        return fields(task_id, "input_required")
    if tool == "null_requests":
        return fields(task_id, "input_required", inputRequests=None)
    if tool == "empty_requests":
        return asking(task_id, {})
    if tool == "emptied":
        return asking(task_id, {} if task.updates else {"name": form("Name?")})
    if tool == "key_reused":
        return asking(task_id, {"a": form("First?")} if not task.updates else {"a": form("Something else?")})
    if tool == "ask_forever":
        return asking(task_id, {f"k{task.polls}": ROOTS})
    assert tool == "stale_forever"
    return asking(task_id, {"a": form("First?")}, pollIntervalMs=0)


class Server:
    """The tasks of one server process (HTTP requests come on several threads: one lock)."""

    def __init__(self) -> None:
        self.tasks: dict[str, Task] = {}
        self.lock = threading.Lock()

    def reply(self, message: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            try:
                body: dict[str, Any] = {"result": self.answer(message)}
            except LookupError as exc:
                body = {"error": {"code": -32602 if exc.args[0] == "refused" else -32601,
                                  "message": "Unknown input key" if exc.args[0] == "refused" else "Method not found"}}
            except ValueError:
                body = {"result": 5}
        return {"jsonrpc": "2.0", "id": message.get("id"), **body}

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "server/discover":
            return discovered("input-tasks", {TASKS: {}})
        if method == "tools/list":
            return listed(TOOLS)
        if method == "tools/call":
            name = task_call(params)
            if name is None:
                return text("no task")
            task_id = f"T{len(self.tasks) + 1}-{name}"
            self.tasks[task_id] = Task(name)
            return {"resultType": "task", **fields(task_id, "working")}
        task = self.tasks.get(str(params.get("taskId")))
        if method == "tasks/get" and task is not None:
            return {"resultType": "complete", **polled(str(params.get("taskId")), task)}
        if method == "tasks/update" and task is not None:
            if task.tool == "update_error":
                raise LookupError("refused")
            if task.tool == "update_no_result":
                raise ValueError
            task.updates.append(dict(params.get("inputResponses") or {}))
            task.polls_since_update = 0
            return {"resultType": "complete"}
        raise LookupError(method)


class Handler(ReplyHandler):
    server_state = Server()

    def reply(self, message: dict[str, Any]) -> dict[str, Any]:
        return self.server_state.reply(message)


def main() -> None:
    if sys.argv[1:] == ["http"]:
        serve_http(Handler)
        return
    out = sys.stdout.buffer
    server = Server()
    for message in requests():
        out.write(json.dumps(server.reply(message)).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
