"""A 2025-11-25 MCP server, written byte by byte, that sends its own ``elicitation/create``
requests while a call waits and never waits for the client's answer (a server that asks and goes
on), for the tap's tests of server requests judged when they come:

    python -m tests.integrations.asking_server            (stdio)
    python -m tests.integrations.asking_server http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp)

Tools (``tools/call``), each answered ``done`` right after what it sends:

- ``ask_object``: an elicitation whose requested property is of type ``object`` (no 2025-11-25
  client may be sent it: PrimitiveSchemaDefinition has none), then the call's answer;
- ``ask_name``: a valid form elicitation, then the call's answer;
- ``ask_after``: the call's answer, then the ``ask_object`` elicitation (no call waits for it);
- ``ask_many``: ``arguments.n`` valid form elicitations, then the call's answer.

On Streamable HTTP, what a call's request is answered with goes on its POST's SSE stream, in that
order (a server's requests about a call travel there: basic/transports).

A ``tools/call`` with ``task`` in its params (2025-11-25 basic/utilities/tasks) is answered a
CreateTaskResult (task ``T<n>``, ``working``); ``tasks/get`` answers ``input_required``;
``tasks/result`` is answered with the tool's elicitation first, then the task's result (with the
related-task metadata, as tasks.mdx says a tasks/result answer MUST). The tool says how the
elicitation names the task: ``task_object`` carries ``_meta["io.modelcontextprotocol/related-task"]``
(tasks.mdx, Associating Task-Related Messages: it MUST), ``task_object_bare`` does not (it then
belongs to the tasks/result waiting: on its HTTP exchange, or alone on stdio), ``task_name`` is a
valid form elicitation with the metadata. ``task_held``'s handle is sent only with the answer of
the next ``release`` call (stdio), before it, and its ``tasks/result`` is its result alone
(``task_error``'s: a JSON-RPC error); ``task_asking``'s every ``tasks/get`` is answered the
``ask_object`` elicitation naming the task, then ``input_required`` (a task that keeps asking;
``task_big``'s the same with a property named ``arguments.size`` characters long);
``ask_task`` sends the ``ask_object`` elicitation naming the task ``arguments.task`` in its
related-task metadata (whatever JSON value it is; ``arguments.related``: the related-task value
itself), then the call's answer. A task-augmented call with ``arguments.reuse`` true is answered
the handle of the last task created, its id again (a server breaking tasks.mdx, Task ID
Requirements: "Task IDs MUST be unique among all tasks controlled by the receiver"), creating none.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "2025-11-25"
RELATED = "io.modelcontextprotocol/related-task"
OBJECT_SCHEMA = {"type": "object", "properties": {"a": {"type": "object"}}}
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
TOOLS = ("ask_object", "ask_name", "ask_after", "task_object", "task_object_bare", "task_name", "task_held",
         "release", "ask_task", "task_error",
         "task_asking", "ask_many", "task_big")
STAMP = "2026-01-01T00:00:00Z"


class Server:
    def __init__(self) -> None:
        self.asked = 0
        self.tasks: dict[str, str] = {}  # task id -> tool
        self.sizes: dict[str, int] = {}  # task id -> the length of task_big's property name
        self.held: list[dict[str, Any]] = []  # the handles of task_held calls, sent with release's answer
        self.lock = threading.Lock()

    def elicitation(self, schema: dict[str, Any], task: str | None = None) -> dict[str, Any]:
        with self.lock:
            self.asked += 1
            number = self.asked
        params: dict[str, Any] = {"mode": "form", "message": "Pick", "requestedSchema": schema}
        if task is not None:
            params["_meta"] = {RELATED: {"taskId": task}}
        return {"jsonrpc": "2.0", "id": f"s{number}", "method": "elicitation/create", "params": params}

    def answer(self, message: dict[str, Any]) -> list[dict[str, Any]] | None:
        """What a client's message is answered with, in order (None: nothing, a notification or
        an answer to one of our requests)."""
        rid, method = message.get("id"), message.get("method")
        if rid is None or method is None:
            return None
        params = message.get("params") or {}

        def result(value: dict[str, Any]) -> dict[str, Any]:
            return {"jsonrpc": "2.0", "id": rid, "result": value}

        if method == "initialize":
            return [result({"protocolVersion": VERSION, "capabilities": {"tools": {}, "tasks": {
                "requests": {"tools": {"call": {}}}}}, "serverInfo": {"name": "asking", "version": "1"}})]
        if method == "tools/list":
            return [result({"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in TOOLS]})]
        done = {"content": [{"type": "text", "text": "done"}], "isError": False}
        if method == "tools/call":
            name = params.get("name")
            if "task" in params:
                with self.lock:
                    if (params.get("arguments") or {}).get("reuse") and self.tasks:  # the last task's id again
                        return [result({"task": self.task(f"T{len(self.tasks)}", "working")})]
                    task = f"T{len(self.tasks) + 1}"
                    self.tasks[task] = str(name)
                    self.sizes[task] = int((params.get("arguments") or {}).get("size", 1))
                if name == "task_held":  # answered with release's answer, before it
                    self.held.append(result({"task": self.task(task, "working")}))
                    return []
                return [result({"task": self.task(task, "working")})]
            if name == "release":
                held, self.held = self.held, []
                return [*held, result(done)]
            if name == "ask_task":  # an elicitation naming the task the arguments name, then the answer
                arguments = params.get("arguments") or {}
                asked = self.elicitation(OBJECT_SCHEMA)
                asked["params"]["_meta"] = {RELATED: arguments["related"] if "related" in arguments
                                            else {"taskId": arguments.get("task")}}
                return [asked, result(done)]
            if name == "ask_object":
                return [self.elicitation(OBJECT_SCHEMA), result(done)]
            if name == "ask_name":
                return [self.elicitation(NAME_SCHEMA), result(done)]
            if name == "ask_many":  # arguments.n valid elicitations, then the answer
                count = int((params.get("arguments") or {}).get("n", 1))
                return [*(self.elicitation(NAME_SCHEMA) for _ in range(count)), result(done)]
            if name == "ask_after":
                return [result(done), self.elicitation(OBJECT_SCHEMA)]
        if method == "tasks/get":
            task = str(params.get("taskId"))
            status = result(self.task(task, "input_required"))
            if self.tasks.get(task) == "task_asking":  # asked on each poll, the task running
                return [self.elicitation(OBJECT_SCHEMA, task), status]
            if self.tasks.get(task) == "task_big":  # the same, its object property's name arguments.size long
                schema = {"type": "object", "properties": {"p" * self.sizes[task]: {"type": "object"}}}
                return [self.elicitation(schema, task), status]
            return [status]
        if method == "tasks/result":
            task = str(params.get("taskId"))
            tool = self.tasks.get(task)
            if tool == "task_error":  # the task's end is the tool's JSON-RPC error (tasks.mdx, Result Retrieval)
                return [{"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "the tool failed"}}]
            if tool == "task_held":  # its result alone: the requests come from ask_task
                return [result({**done, "_meta": {RELATED: {"taskId": task}}})]
            asked = self.elicitation(NAME_SCHEMA if tool == "task_name" else OBJECT_SCHEMA,
                                     None if tool == "task_object_bare" else task)
            return [asked, result({**done, "_meta": {RELATED: {"taskId": task}}})]
        return [{"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}]

    @staticmethod
    def task(task: str, status: str) -> dict[str, Any]:
        return {"taskId": task, "status": status, "createdAt": STAMP, "lastUpdatedAt": STAMP, "ttl": 60000,
                "pollInterval": 10}


def stdio(server: Server) -> None:
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        for each in server.answer(message) or []:
            out.write(json.dumps(each).encode() + b"\n")
            out.flush()


def http(server: Server, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.send_header("mcp-session-id", "s1")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self.send(405, b"")

        def do_DELETE(self) -> None:
            self.send(200, b"")

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            message = json.loads(body)
            frames = server.answer(message) if isinstance(message, dict) else None
            if not frames:
                self.send(202, b"")
            elif len(frames) == 1:
                self.send(200, json.dumps(frames[0]).encode())
            else:  # what a call's request is answered with, in order, on its POST's SSE stream
                events = b"".join(b"event: message\ndata: " + json.dumps(each).encode() + b"\n\n" for each in frames)
                self.send(200, events, "text/event-stream")

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        http(Server(), int(sys.argv[2]))
    else:
        stdio(Server())
