"""A stdio MCP server that answers every ``tools/call`` with a plain text result (the request's
id kept as the client wrote it) and tells the client what it received of everything else: each
line that is no request (the client's answer to a server's request, a notification) comes back
as a ``notifications/message`` whose ``data`` is that line, parsed (Python's json: a lone
surrogate's escape is read as it is). Run: python -m tests.servers.echo_answers
"""

from __future__ import annotations

import json
import sys

from tests.servers._lines import messages


def main() -> None:
    out = sys.stdout.buffer
    for message in messages():
        if message.get("method") == "tools/call" and "id" in message:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "result": {"content": [{"type": "text", "text": "done"}], "isError": False}}
        elif "id" in message and "method" in message:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}
        else:
            reply = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": message}}
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
