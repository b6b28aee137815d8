"""A stdio MCP server (2026-07-28, ext-tasks) that creates the task id its caller names, for the
proxy's task-id reuse tests: ``tools/call`` answers a task handle (``resultType`` ``task``,
status ``working``) whose ``taskId`` is ``arguments.task``, whether or not a task with that id
runs (which ext-tasks forbids: "Each task is uniquely identifiable by a server-generated task
ID"); ``tasks/get`` answers the task ``working`` when its id starts with ``w``, else ``completed``
with the result of the LAST task created with that id inlined (its text: ``run N``, N counting
the creations of the id), as a server whose tasks share one slot per id would; a handle whose id
starts with ``p`` carries a 3,000-character ``_meta`` member (an answer the proxy reads early, before
its routing read: 2 kB or more in observe). Any other request with an id gets an empty result."""

from __future__ import annotations

import json
import sys

STAMP = '"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000'


def main() -> None:
    out = sys.stdout.buffer
    runs: dict[str, int] = {}
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        rid = json.dumps(message["id"])
        method = message.get("method")
        params = message.get("params") or {}
        if method == "tools/call":
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
