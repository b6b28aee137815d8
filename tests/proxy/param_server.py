"""A stdio MCP server (2026-07-28) whose tools declare ``Mcp-Param`` headers, for the proxy's
tests of an HTTP host's ``Mcp-Param-{name}`` headers over a stdio upstream.

``tools/list`` lists :data:`TOOLS`: ``route``, whose ``inputSchema`` declares ``x-mcp-header``
on ``region`` (string: ``Region``), ``count`` (integer: ``Count``), ``flag`` (boolean: ``Flag``)
and ``target.zone`` (string, nested: ``Zone``), not on ``note``; ``broken``, whose one
``x-mcp-header`` sits under ``items`` (not reached by ``properties`` keys alone), and
``number``, whose one is on a property of type ``number`` (not integer, string or boolean): two
invalid tool definitions (2026-07-28 basic/transports/streamable-http, Schema Extension). Every
``tools/call`` is answered with the text ``called <name> <arguments as JSON, keys sorted>``,
whatever the name (a tool it does not list too); any other request with an empty result.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {"name": "route", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "flag": {"type": "boolean", "x-mcp-header": "Flag"},
        "target": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}},
        "note": {"type": "string"}}}},
    {"name": "broken", "inputSchema": {"type": "object", "properties": {
        "regions": {"type": "array", "items": {"type": "string", "x-mcp-header": "Region"}}}}},
    {"name": "number", "inputSchema": {"type": "object", "properties": {
        "n": {"type": "number", "x-mcp-header": "N"}}}},
]


def main() -> None:
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            continue
        params = message.get("params") or {}
        if message["method"] == "tools/list":
            result: dict[str, Any] = {"resultType": "complete", "tools": TOOLS}
        elif message["method"] == "tools/call":
            text = f"called {params.get('name')} {json.dumps(params.get('arguments'), sort_keys=True)}"
            result = {"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": False}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
