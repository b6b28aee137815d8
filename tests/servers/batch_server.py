"""A small MCP 2025-03-26 server on stdio that answers JSON-RPC batches, written byte by byte.
Run: python -m tests.servers.batch_server (or by its path).

MCP 2025-03-26 basic/index#batching: implementations MUST support receiving JSON-RPC batches;
basic/transports (stdio): a message may be a batch of requests and notifications. A line that is
a JSON array is answered with one array holding an answer per request element, in order
(JSON-RPC 2.0 section 6; a notification gets none, a batch of notifications no line at all),
written as ``[ answer , answer ]`` (blanks around each element, as a batch may be written). A line
that is one object is answered with one object.

It answers ``initialize`` with the version the client asks when it is 2024-11-05, 2025-03-26 or
2025-06-18, else 2025-03-26. Tools (``tools/call`` by name): ``echo`` returns its ``text`` (or
``ok``) as text content; ``dup`` answers with ``isError`` twice (a duplicated key: no strict
parser reads it, so its verdict is unclassified); ``fail`` is a tool execution error; ``held``
answers as ``echo`` does, but the line holding it is answered only once the next line is read
(a ``notifications/cancelled``, say: its answers then come late). Requests
are read as leniently as Python's json with invalid UTF-8 replaced (a Latin-1 argument).

Run with the argument ``one-by-one``, it writes a batch's answers one line each instead.

Each line read is appended to the file named by $BATCH_LOG (its bytes), so a test reads what
the server was sent.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18")
ONE_BY_ONE = sys.argv[1:] == ["one-by-one"]
"""Run with the argument ``one-by-one``: a batch's answers are written one line each, in order."""


def answer(message: Any) -> bytes | None:
    """The answer to one request, as bytes (None: a notification, or no object)."""
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        return None
    rid = json.dumps(message["id"]).encode()
    method = message["method"]
    given = message.get("params")
    params: dict[str, Any] = given if isinstance(given, dict) else {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in VERSIONS else "2025-03-26"
        result: dict[str, Any] = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "batch-server", "version": "1"}}
        return b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + json.dumps(result).encode() + b"}"
    if method == "tools/list":
        tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("echo", "dup", "fail")]
        return b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + json.dumps({"tools": tools}).encode() + b"}"
    if method == "tools/call":
        name = params.get("name")
        listed = params.get("arguments")
        arguments: dict[str, Any] = listed if isinstance(listed, dict) else {}
        if name == "dup":
            return b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[],"isError":true,"isError":false}}'
        if name == "fail":
            return (b'{"jsonrpc":"2.0","id":' + rid
                    + b',"result":{"content":[{"type":"text","text":"it failed"}],"isError":true}}')
        text = json.dumps(str(arguments.get("text", "ok"))).encode()
        return (b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":' + text
                + b'}],"isError":false}}')
    return b'{"jsonrpc":"2.0","id":' + rid + b',"error":{"code":-32601,"message":"Method not found"}}'


def main() -> None:
    log = os.environ.get("BATCH_LOG")
    out = sys.stdout.buffer
    held: bytes | None = None
    for line in sys.stdin.buffer:
        if held is not None:  # the answers of the line before, held until this one came
            out.write(held)
            out.flush()
            held = None
        if log:
            with open(log, "ab") as handle:
                handle.write(line if line.endswith(b"\n") else line + b"\n")
        try:
            message = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(message, list):
            answers = [a for a in map(answer, message) if a is not None]
            if not answers:
                continue
            written = b"[ " + b" , ".join(answers) + b" ]\n" if not ONE_BY_ONE else b"".join(a + b"\n" for a in answers)
        else:
            one = answer(message)
            if one is None:
                continue
            written = one + b"\n"
        if b'"name": "held"' in line or b'"name":"held"' in line:
            held = written
            continue
        out.write(written)
        out.flush()


if __name__ == "__main__":
    main()
