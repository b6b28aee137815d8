"""A handshake-era MCP server on stdio whose tools/call answers are written byte by byte, one
way per tool name (run: python tests/integrations/crafted_stdio.py):

- ``noisy``: a debug line on stdout (a server that forgot stdout is the wire), then the answer;
- ``id_null``: a JSON-RPC error with ``"id": null`` (JSON-RPC 2.0 section 5: the id could not
  be read);
- ``float_id``: the answer with the request's id written as a float (``3`` answered ``3.0``);
- ``silent``: no answer at all;
- ``late``: the plain answer, ``seconds`` late (an argument, 1 by default; a client that gave up
  before then has cancelled the call), reading nothing meanwhile;
- anything else: a plain text answer.
"""

from __future__ import annotations

import json
import sys
import time

TOOLS = ("noisy", "id_null", "float_id", "silent", "late", "plain")


def main() -> None:
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        request_id, method = message.get("id"), message.get("method")
        if request_id is None:
            continue
        if method == "initialize":
            line = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "crafted", "version": "1"}}}).encode()
        elif method == "tools/list":
            listed = [{"name": name, "inputSchema": {"type": "object"}} for name in TOOLS]
            line = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"tools": listed}}).encode()
        elif method == "tools/call":
            name = message["params"]["name"]
            if name == "silent":
                continue
            if name == "late":
                time.sleep(float(message["params"].get("arguments", {}).get("seconds", 1.0)))
            if name == "noisy":
                out.write(b"debug: handling noisy\n")
                out.flush()
            if name == "id_null":
                line = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"could not read the request"}}'
            else:
                answer = {"content": [{"type": "text", "text": "done"}], "isError": False}
                line = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": answer}).encode()
                if name == "float_id":
                    line = line.replace(b'"id": %d' % request_id, b'"id": %d.0' % request_id)
        else:
            line = json.dumps({"jsonrpc": "2.0", "id": request_id,
                               "error": {"code": -32601, "message": "Method not found"}}).encode()
        out.write(line + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
