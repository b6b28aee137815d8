"""A handshake-era MCP server on stdio whose tools/call answer holds BLOCKS text blocks whose
``text`` is the integer 1 (a finding each: content.field_type), for how many findings a terminal
shows. Run: python -m tests.servers.broken_blocks BLOCKS

It answers ``initialize`` (the version asked for) and ``tools/list`` (one tool, ``t``);
``server/discover`` is -32601.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.servers._lines import requests


def answer(message: dict[str, Any], blocks: int) -> dict[str, Any]:
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "broken-blocks", "version": "1"}}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
    if method == "tools/call":
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"content": [{"type": "text", "text": 1}] * blocks, "isError": False}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}


def main(blocks: int) -> None:
    out = sys.stdout.buffer
    for message in requests():
        out.write(json.dumps(answer(message, blocks)).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]))
