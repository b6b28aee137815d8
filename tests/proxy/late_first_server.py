"""A stdio MCP server (2025-06-18) whose parser keeps the first of a member name given twice (as
cJSON and many others read it), for the proxy's rows of a request giving its id twice that the
proxy gives up on. A ``tools/call`` of ``late`` is held until a ``notifications/cancelled`` comes,
then answered (late) under the id the server read, the text ``late``; any other request is answered
with an empty result. The ``requestId`` of each ``notifications/cancelled`` it reads is appended,
as a JSON line, to the file named by $LATE_LOG.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def _first(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, value in pairs:
        kept.setdefault(name, value)
    return kept


def _write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    log = os.environ["LATE_LOG"]
    held: list[Any] = []
    for line in sys.stdin:
        message = json.loads(line, object_pairs_hook=_first)
        method = message.get("method")
        params = message.get("params") or {}
        if method == "notifications/cancelled":
            with open(log, "a") as out:
                out.write(json.dumps(params.get("requestId")) + "\n")
            for request_id in held:
                _write({"jsonrpc": "2.0", "id": request_id,
                        "result": {"content": [{"type": "text", "text": "late"}], "isError": False}})
            held.clear()
        elif "id" not in message or method is None:
            continue
        elif method == "initialize":
            _write({"jsonrpc": "2.0", "id": message["id"],
                    "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                               "serverInfo": {"name": "late-first", "version": "0"}}})
        elif method == "tools/call" and params.get("name") == "late":
            held.append(message["id"])
        else:
            _write({"jsonrpc": "2.0", "id": message["id"], "result": {}})


if __name__ == "__main__":
    main()
