"""A stdio MCP server (2026-07-28, ext-tasks) that creates the task id its caller names, for the
proxy's task-id reuse tests: ``tools/call`` answers a task handle (``resultType`` ``task``,
status ``working``) whose ``taskId`` is ``arguments.task``, whether or not a task with that id
runs (which ext-tasks forbids: "Each task is uniquely identifiable by a server-generated task
ID"); ``tasks/get`` answers the task ``working`` when its id starts with ``w``, else ``completed``
with the result of the LAST task created with that id inlined (its text: ``run N``, N counting
the creations of the id), as a server whose tasks share one slot per id would; a handle whose id
starts with ``p`` carries a 3,000-character ``_meta`` member (an answer the proxy reads early, before
its routing read: 2 kB or more in observe). Any other request with an id gets an empty result.

``--2025``: the same server speaking 2025-11-25 (basic/utilities/tasks): ``initialize`` answers
2025-11-25 with the ``tasks`` capability for ``tools/call``; ``tools/call`` answers a
CreateTaskResult (``result.task``, ``working``); ``tasks/get`` answers the Task alone (``working``
for an id starting with ``w``, else ``completed``: the result is not inlined); ``tasks/result``
answers the CallToolResult of the LAST task created with the id (``run N``, with the
``io.modelcontextprotocol/related-task`` ``_meta``; a 3,000-character pad in it for an id
starting with ``p``)."""

from __future__ import annotations

import json
import sys

STAMP = '"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000'
STAMP_2025 = '"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":10'


def answer_2025(method: object, params: dict[str, object], runs: dict[str, int]) -> str:
    """The result of a 2025-11-25 request (``--2025``), as written."""
    if method == "initialize":
        return ('{"protocolVersion":"2025-11-25","capabilities":{"tools":{},'
                '"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"task-reuse","version":"1"}}')
    task = params.get("taskId")
    if method == "tools/call":
        arguments = params["arguments"]
        assert isinstance(arguments, dict)
        task = arguments["task"]
        assert isinstance(task, str)
        runs[task] = runs.get(task, 0) + 1
        return f'{{"task":{{"taskId":{json.dumps(task)},"status":"working",{STAMP_2025}}}}}'
    if method == "tasks/get" and isinstance(task, str):
        status = "working" if task.startswith("w") else "completed"
        return f'{{"taskId":{json.dumps(task)},"status":"{status}",{STAMP_2025}}}'
    if method == "tasks/result" and isinstance(task, str):
        pad = f',"pad":"{"x" * 3000}"' if task.startswith("p") else ""  # a long result
        text = json.dumps(f"run {runs.get(task, 0)}")
        return (f'{{"content":[{{"type":"text","text":{text}}}],"isError":false,'
                f'"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":{json.dumps(task)}}}{pad}}}}}')
    return "{}"


def main() -> None:
    out = sys.stdout.buffer
    runs: dict[str, int] = {}
    v2025 = sys.argv[1:] == ["--2025"]
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        rid = json.dumps(message["id"])
        method = message.get("method")
        params = message.get("params") or {}
        if v2025:
            body = answer_2025(method, params, runs)
        elif method == "tools/call":
            task = params["arguments"]["task"]
            runs[task] = runs.get(task, 0) + 1
            pad = f',"_meta":{{"pad":"{"x" * 3000}"}}' if task.startswith("p") else ""  # a long handle
            body = f'{{"resultType":"task","taskId":{json.dumps(task)},"status":"working",{STAMP}{pad}}}'
        elif method == "tasks/get":
            task = params["taskId"]
            if task.startswith("w"):
                body = f'{{"resultType":"complete","taskId":{json.dumps(task)},"status":"working",{STAMP}}}'
            else:
                text = json.dumps(f"run {runs.get(task, 0)}")
                body = (f'{{"resultType":"complete","taskId":{json.dumps(task)},"status":"completed",{STAMP},'
                        f'"result":{{"resultType":"complete","content":[{{"type":"text","text":{text}}}]}}}}')
        else:
            body = "{}"
        out.write(f'{{"jsonrpc":"2.0","id":{rid},"result":{body}}}\n'.encode())
        out.flush()


if __name__ == "__main__":
    main()
