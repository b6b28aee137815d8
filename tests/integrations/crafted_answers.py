"""A crafted MCP server on stdio whose every ``tools/call`` answer is written byte for byte, one
way per tool (no SDK imported here: the mcp 1.x tests use it too).

``SERVER`` (run with ``python -c``: :func:`command`) speaks 2026-07-28 (``server/discover``: the
SDK 2.x) and 2025-11-25 (``initialize``: FastMCP's client and the SDK 1.x ask for it first). It
takes its tools as JSON on its command line: per tool, the exact answer (``raw``; ``{id}`` stands
for the request's id, ``{pad}`` for ``pad``'s text repeated its count of times), the tool's
``annotations`` and ``outputSchema``. ``bare_list`` answers ``tools/list`` without the ``ttlMs``
and ``cacheScope`` 2026-07-28 requires (the SDK refuses that list, which it reads to validate a
call's output).
``runs`` names a file the server appends one line to per ``tools/call`` it receives (before it
answers): how many times the tool ran.
"""

from __future__ import annotations

import json
import sys
from typing import Any

HANDSHAKE = r'''
import json, sys
def requests():
    """(message, id, method) of each request on stdin (a line with an id), until stdin closes."""
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message.get("id") is not None:
            yield message, message["id"], message.get("method")
def meta(name):
    return {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "1"}}
def handshake(method, name):
    """The result server ``name`` answers server/discover (2026-07-28) or initialize (2025-11-25)
    with, a tools server; None for any other method."""
    if method == "server/discover":
        return {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "_meta": meta(name)}
    if method == "initialize":
        return {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "1"}}
    return None
'''
"""What the crafted servers run with ``python -c`` share (prefixed to their script): reading the
requests and answering the handshake of either era."""

SERVER = HANDSHAKE + r'''
tools, options = json.loads(sys.argv[1]), json.loads(sys.argv[2])
META = meta("crafted")
out = sys.stdout.buffer
def send(data):
    out.write(data + b"\n"); out.flush()
for message, rid, method in requests():
    result = handshake(method, "crafted")
    if method == "tools/list":
        listed = [{"name": name, "inputSchema": {"type": "object"},
                   **{key: spec[key] for key in ("annotations", "outputSchema") if key in spec}}
                  for name, spec in tools.items()]
        result = {"resultType": "complete", "tools": listed, "_meta": META}
        if not options.get("bare_list"):
            result.update(ttlMs=0, cacheScope="private")
    elif method == "tools/call":
        if options.get("runs"):
            with open(options["runs"], "a") as runs:
                runs.write(message["params"]["name"] + "\n")
        spec = tools[message["params"]["name"]]
        text, count = spec.get("pad", ("", 0))
        raw = spec["raw"].replace("{id}", json.dumps(rid)).replace("{pad}", text * count)
        send(raw.encode())
        continue
    elif result is None:
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}}).encode())
        continue
    send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())
'''


def answer(result: str) -> str:
    return '{"jsonrpc":"2.0","id":{id},"result":' + result + "}"


def command(tools: dict[str, Any], **options: Any) -> list[str]:
    return [sys.executable, "-c", SERVER, json.dumps(tools), json.dumps(options)]
