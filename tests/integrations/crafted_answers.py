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

SERVER = r'''
import json, sys
tools, options = json.loads(sys.argv[1]), json.loads(sys.argv[2])
META = {"io.modelcontextprotocol/serverInfo": {"name": "crafted", "version": "1"}}
out = sys.stdout.buffer
def send(data):
    out.write(data + b"\n"); out.flush()
for line in sys.stdin.buffer:
    message = json.loads(line)
    rid, method = message.get("id"), message.get("method")
    if rid is None:
        continue
    if method == "server/discover":
        result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                  "_meta": META}
    elif method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "crafted", "version": "1"}}
    elif method == "tools/list":
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
    else:
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}}).encode())
        continue
    send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())
'''


def answer(result: str) -> str:
    return '{"jsonrpc":"2.0","id":{id},"result":' + result + "}"


def command(tools: dict[str, Any], **options: Any) -> list[str]:
    return [sys.executable, "-c", SERVER, json.dumps(tools), json.dumps(options)]
