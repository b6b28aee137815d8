"""A handshake-era MCP server on stdio whose tools/list and tools/call are shaped for the client's
counts: many pages, a cursor that never ends, a name listed twice, a large structuredContent.

Run: python -m tests.servers.listing_stdio [FLAGS]

- ``--pages N``: tools/list in N pages of one tool each (``tool_1`` ... ``tool_N``), chained by
  ``nextCursor``; ``--pages forever``: every page has a next one;
- ``--same-cursor``: every page's ``nextCursor`` is ``"again"`` (a server that loops);
- ``--twice``: ``twin`` is listed twice (read-only first, destructive second);
- ``--deep``: ``deep``, whose inputSchema nests 100 objects deep (valid JSON, past the client's
  default depth limit of 64);
- ``--wide N``: ``wide``, whose description is N MiB of ``w`` and one ``é`` (a listing of many
  megabytes, past ASCII);
- ``--odd``: ``odd``, whose description holds characters JSON or the CLI's ``--json`` escape
  (a quote, a backslash, a line end, a NUL, DEL, U+009B, U+202E, U+2028), a character past the
  BMP and ``é``;
- always: ``big`` (structuredContent with a 5,000-character string, its text content the same JSON).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.servers._lines import requests

BIG = "b" * 5_000
ODD = 'q"b\\n\nz\x00\x7f\x9b\u202e\u2028😀é'


def tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, **extra}


def tools_page(flags: list[str], cursor: str | None) -> dict[str, Any]:
    pages: int | None = 1
    if "--pages" in flags:
        given = flags[flags.index("--pages") + 1]
        pages = None if given == "forever" else int(given)
    number = 1 if cursor is None else (2 if cursor == "again" else int(cursor))
    listed = [tool(f"tool_{number}")] if "--pages" in flags else []
    if number == 1:
        listed.append(tool("big"))
        if "--deep" in flags:
            nested: dict[str, Any] = {"type": "string"}
            for _ in range(100):
                nested = {"type": "object", "properties": {"a": nested}}
            listed.append(tool("deep", inputSchema=nested))
        if "--wide" in flags:
            listed.append(tool("wide", description="w" * (int(flags[flags.index("--wide") + 1]) << 20) + "é"))
        if "--odd" in flags:
            listed.append(tool("odd", description=ODD))
        if "--twice" in flags:
            listed += [tool("twin", annotations={"readOnlyHint": True}),
                       tool("twin", annotations={"destructiveHint": True})]
    result: dict[str, Any] = {"tools": listed}
    if pages is None or number < pages:
        result["nextCursor"] = "again" if "--same-cursor" in flags else str(number + 1)
    return result


def answer(message: dict[str, Any], flags: list[str]) -> dict[str, Any]:
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "listing-stdio", "version": "1"}}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": request_id, "result": tools_page(flags, params.get("cursor"))}
    if method == "tools/call":
        structured = {"data": BIG}
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured,
            "isError": False}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}


def main(flags: list[str]) -> None:
    out = sys.stdout.buffer
    for message in requests():
        out.write(json.dumps(answer(message, flags)).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
