"""A handshake-era MCP server on stdio whose tools/call writes many lines that are no JSON-RPC
messages to stdout first (a debug print in a loop), for counting noise past the wire log's bound.

Run: python -m tests.servers.noisy_stdio LINES [NOTES] [answer|exit]

On ``tools/call`` it writes LINES lines ``noise 0``, ``noise 1``, ..., with NOTES
``notifications/message`` spread evenly among them (default 0: messages, never noise), then
``answer`` (the call's result, the default) or ``exit`` (it exits without answering: its stdout
closes). Every other request gets its ordinary answer; ``server/discover`` is -32601.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.servers._lines import requests


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "noisy-stdio", "version": "1"}}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
    if method == "tools/call":
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"content": [{"type": "text", "text": "ok"}], "isError": False}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}


def main(lines: int, notes: int, end: str) -> None:
    out = sys.stdout.buffer
    every = lines // notes if notes else 0
    for message in requests():
        if message.get("method") == "tools/call":
            written = 0
            for number in range(lines):
                out.write(b"noise %d\n" % number)
                if every and (number + 1) % every == 0 and written < notes:
                    written += 1
                    out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                          "params": {"level": "info", "data": written}}).encode() + b"\n")
            if end == "exit":
                out.flush()
                return
        out.write(json.dumps(answer(message)).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(int(arguments[0]), int(arguments[1]) if len(arguments) > 1 else 0,
         arguments[2] if len(arguments) > 2 else "answer")
