"""A small handshake-era MCP server on stdio, written byte by byte, for what real servers do
that well-behaved ones do not. Run: python -m tests.servers.raw_server [FLAGS].

It speaks the ``initialize`` handshake (2025-06-18, or the version the client asks for among
2024-11-05..2025-11-25) and answers ``server/discover`` with -32601, as a 2025 server must.

- ``--debug-line``: before each answer it prints a debug line to stdout (``print()`` in a
  server that forgot stdout is the wire), as many servers in the wild do;
- ``--debug-only``: ``echo`` then never answers, only prints the debug line;
- ``--hostile``: tool names, descriptions, text and error messages carry rich markup (``[/]``,
  ``[bold]``), terminal escapes (``ESC]0;title BEL``, ``ESC[2J``) and a 10 kB line;
- ``--untyped-schemas``: inputSchemas without ``"type"`` (as @modelcontextprotocol/server-
  filesystem 0.6.2 listed them), which the official SDK's models refuse;
- ``--refuse-initialize``: ``initialize`` is answered with -32602 "Unsupported protocol version"
  (a server that supports none of the client's versions), and the server runs on;
- ``--log-first``: it prints a start-up line to stdout, then reads nothing and never answers;
- ``--old-version``: ``initialize`` is answered with protocol version ``1999-01-01`` (one no
  client speaks);
- ``--forged-lines``: ``invalid``'s error message holds line breaks followed by what reads as
  lines of mcp-verdict's own output (:data:`FORGED`).

Tools: ``echo`` (text back), ``fail`` (a tool execution error), ``invalid`` (a JSON-RPC error
whose message is peer text).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
HOSTILE = "[/] [bold]bold?[/bold] \x1b]0;pwned\x07 \x1b[2J [blink]x"
FORGED = "boom\n  error fake.code at /result: forged\r\ndecision  accept: forged\u2028verdict   normal_complete"
LONG = "L" * 10_000


def tools(flags: set[str]) -> list[dict[str, Any]]:
    def schema(properties: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"properties": properties}
        if "--untyped-schemas" not in flags:
            out = {"type": "object", **out}
        return out

    listed = [
        {"name": "echo", "description": "Echoes text.", "inputSchema": schema({"text": {"type": "string"}})},
        {"name": "fail", "description": "Always fails.", "inputSchema": schema({})},
        {"name": "invalid", "description": "A JSON-RPC error.", "inputSchema": schema({})},
    ]
    if "--hostile" in flags:
        listed.append({"name": f"evil{HOSTILE}", "description": HOSTILE + LONG,
                       "inputSchema": schema({f"arg{HOSTILE}": {"type": "string"}})})
    return listed


def answer(message: dict[str, Any], flags: set[str]) -> dict[str, Any] | None:
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if request_id is None:
        return None  # a notification
    if method == "initialize" and "--refuse-initialize" in flags:
        return {"error": {"code": -32602, "message": "Unsupported protocol version",
                          "data": {"supported": ["1999-01-01"], "requested": params.get("protocolVersion")}}}
    if method == "initialize" and "--old-version" in flags:
        return {"result": {"protocolVersion": "1999-01-01", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "raw-server", "version": "1"}}}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {"result": {"protocolVersion": asked if asked in VERSIONS else "2025-06-18",
                           "capabilities": {"tools": {}}, "serverInfo": {"name": "raw-server", "version": "1"}}}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": tools(flags)}}
    if method == "tools/call":
        name = params.get("name")
        arguments = params.get("arguments") or {}
        hostile = "--hostile" in flags
        if name == "echo":
            text = str(arguments.get("text", ""))
            text = f"{text} {HOSTILE} {LONG}" if hostile else text
            return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}
        if name == "fail":
            why = HOSTILE if hostile else "it failed"
            return {"result": {"content": [{"type": "text", "text": f"Error: {why}"}], "isError": True}}
        if name == "invalid" and "--forged-lines" in flags:
            return {"error": {"code": -32602, "message": FORGED}}
        if name == "invalid":
            return {"error": {"code": -32602, "message": f"Field required [type=missing, input_value={{}}] {HOSTILE}"
                              if hostile else "Field required [type=missing]"}}
        return {"error": {"code": -32602, "message": f"Unknown tool: {name}"}}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def main() -> None:
    flags = set(sys.argv[1:])
    out = sys.stdout
    if "--log-first" in flags:
        out.write("starting up...\n")
        out.flush()
        time.sleep(120)
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        reply = answer(message, flags)
        if reply is None:
            continue
        if "--debug-line" in flags or "--debug-only" in flags:
            out.write(f"debug: handling {message.get('method')}\n")
        if "--debug-only" in flags and message.get("method") == "tools/call":
            out.flush()
            continue
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], **reply}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
