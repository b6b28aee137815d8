"""A stdio MCP server (2025-06-18) that says what its stdin and stdout are: a ``tools/call`` of
``kinds`` is answered with the text ``<stdin kind> <stdout kind>`` (``fifo``, ``socket`` or
``other``, from ``os.fstat``); one of ``exit`` exits at once (status 3, unanswered); anything
else with an id is answered ``ok``."""

from __future__ import annotations

import json
import os
import stat
import sys


def kind(fd: int) -> str:
    mode = os.fstat(fd).st_mode
    return "fifo" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "other"


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message.get("method") == "initialize":
            result: dict[str, object] = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                         "serverInfo": {"name": "pipes", "version": "0"}}
        elif message.get("method") == "tools/call" and message["params"]["name"] == "exit":
            sys.exit(3)
        else:
            text = f"{kind(0)} {kind(1)}" if message.get("method") == "tools/call" else "ok"
            result = {"content": [{"type": "text", "text": text}], "isError": False}
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
