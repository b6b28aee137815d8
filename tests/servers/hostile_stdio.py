"""A handshake-era MCP server on stdio whose tools/call misbehaves at the transport, byte by
byte, for the client's stdio transport tests. Run: python -m tests.servers.hostile_stdio MODE [ARG].

It answers ``initialize`` (the version asked for) and ``tools/list`` (one tool, ``t``) plainly;
``server/discover`` is -32601, as a 2025 server answers it. The modes shape ``tools/call``:

- ``no_lf``: its answer without the LF that ends a line, then the server exits (status 0);
- ``exit_leaving_child``: the server starts a child that keeps its stdout (and stdin) open,
  and exits with status 3 without answering; ``exit_at_start``: the same before it reads
  anything (it writes ``crashed at start`` on its stderr first);
- ``null_id``: a JSON-RPC error whose id is null (the server could not read the request's
  id), then nothing until its stdin closes;
- ``close_stdin``: the first call is answered after the server closed its stdin (it runs on:
  the next message the client writes finds no reader);
- ``bad_initialize``: ``initialize`` is answered with a tools/call result;
- ``pause GO_FILE``: after tools/list the server reads nothing until GO_FILE exists; each
  call is answered with the ids of the tools/call requests it received, in order;
- ``big MIB``: each call is answered with one text block of MIB MiB of ``a`` (a well-formed
  answer, written 64 KiB at a time); ``structured MIB``: with the text block ``see
  structuredContent`` and the structuredContent ``{"data": "s...s"}`` of MIB MiB of ``s``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def answer(request_id: Any, text: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id,
                       "result": {"content": [{"type": "text", "text": text}], "isError": False}}).encode()


def plain(message: dict[str, Any]) -> bytes:
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        result: dict[str, Any] = {"protocolVersion": message["params"]["protocolVersion"],
                                  "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    else:
        return json.dumps({"jsonrpc": "2.0", "id": request_id,
                           "error": {"code": -32601, "message": "Method not found"}}).encode()
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()


def leave_child() -> None:
    """A child that outlives the server, holding the pipes it inherited (as a helper, a daemon or
    a shell's background job does)."""
    if os.fork() == 0:
        time.sleep(120)
        os._exit(0)


def main() -> None:
    mode = sys.argv[1]
    out = sys.stdout.buffer
    if mode == "exit_at_start":
        leave_child()
        sys.stderr.write("crashed at start\n")
        sys.stderr.flush()
        os._exit(3)
    received: list[Any] = []
    stdin = sys.stdin.buffer
    while line := stdin.readline():
        message = json.loads(line)
        if not isinstance(message, dict) or message.get("id") is None:
            continue
        if mode == "bad_initialize" and message.get("method") == "initialize":
            out.write(answer(message["id"], "not an InitializeResult") + b"\n")
            out.flush()
            continue
        if message.get("method") != "tools/call":
            out.write(plain(message) + b"\n")
            out.flush()
            if mode == "pause" and message.get("method") == "tools/list":
                while not os.path.exists(sys.argv[2]):
                    time.sleep(0.05)
            continue
        received.append(message["id"])
        if mode == "no_lf":
            out.write(answer(message["id"], "ok"))
            out.flush()
            os._exit(0)
        if mode == "exit_leaving_child":
            leave_child()
            os._exit(3)
        if mode == "null_id":
            out.write(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n')
            out.flush()
            continue
        if mode == "big":
            out.write(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % message["id"])
            for _ in range(int(sys.argv[2]) * 16):
                out.write(b"a" * 65536)
            out.write(b'"}],"isError":false}}\n')
            out.flush()
            continue
        if mode == "structured":
            out.write(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"see structuredContent"}],'
                      b'"structuredContent":{"data":"' % message["id"])
            for _ in range(int(sys.argv[2]) * 16):
                out.write(b"s" * 65536)
            out.write(b'"},"isError":false}}\n')
            out.flush()
            continue
        if mode == "close_stdin":
            os.close(0)
            out.write(answer(message["id"], "ok") + b"\n")
            out.flush()
            time.sleep(120)
        out.write(answer(message["id"], "received " + json.dumps(received)) + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
