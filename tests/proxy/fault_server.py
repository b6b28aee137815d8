"""A stdio MCP server that misbehaves on request, for the proxy's fault tests.

tools/call by name: ``echo`` answers at once; ``exit`` exits mid-call (status 3); ``hang``
never answers; ``garbage`` writes a line of noise, then a truncated frame with the id; ``big``
answers with a text of ``arguments.size`` bytes; ``progress`` sends two progress notifications
first; ``dup`` answers with isError twice; ``len`` answers with the length of
``arguments.text`` (in characters) as its text; ``reuse`` writes two ``elicitation/create``
requests under one id (7: the second while the first is unanswered), then answers;
``then_ask`` answers, then writes an ``elicitation/create`` request (id ``"after"``) in the same
write; ``late`` answers only once its call is cancelled
(the answer after the cancellation: MCP basic/utilities/cancellation, Timing Considerations).
``tasks/get`` answers a completed task whose
inlined result says isError twice (``taskId`` ``dup``) or once (any other).
``notifications/cancelled`` is written to stderr as ``cancelled <id>`` (the test reads it).
Also answers ``initialize`` (2025-06-18; not one whose ``clientInfo.name`` is ``silent``; one whose
``clientInfo.name`` is ``refuse`` with the JSON-RPC error -32602, ``dup`` with its result's
``protocolVersion`` given twice; one with a ``progressToken`` after a progress notification) and counts
its starts in the file named by $FAULT_STARTS. It reads as leniently as Python's json (NaN,
``1e400``, lone surrogates), invalid UTF-8 replaced, and answers any other request with an id as
``echo``.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    starts = os.environ.get("FAULT_STARTS")
    if starts:
        with open(starts, "a") as handle:
            handle.write("start\n")
    out = sys.stdout.buffer
    late: set[str] = set()
    for line in sys.stdin.buffer:
        message = json.loads(line.decode("utf-8", "replace"))
        method = message.get("method")
        if method == "notifications/cancelled":
            print(f"cancelled {message['params']['requestId']}", file=sys.stderr, flush=True)
            cancelled = json.dumps(message["params"]["requestId"])
            if cancelled in late:
                late.discard(cancelled)
                out.write(b'{"jsonrpc":"2.0","id":' + cancelled.encode() + b',"result":{"content":[{"type":"text",'
                          b'"text":"late"}],"isError":false}}\n')
                out.flush()
            continue
        if "id" not in message:
            continue
        rid = json.dumps(message["id"]).encode()
        if method == "initialize":
            client = (message.get("params", {}).get("clientInfo") or {}).get("name")
            if client == "silent":
                continue
            token = (message.get("params", {}).get("_meta") or {}).get("progressToken")
            if token is not None:
                out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                      "params": {"progressToken": token, "progress": 1}}).encode() + b"\n")
            if client == "refuse":
                out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"error":{"code":-32602,"message":"Unsupported '
                          b'protocol version","data":{"supported":["2025-06-18"]}}}\n')
            else:
                twice = b'"protocolVersion":"2025-06-18",' if client == "dup" else b""
                out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{' + twice + b'"protocolVersion":"2025-06-18",'
                          b'"capabilities":{"tools":{}},"serverInfo":{"name":"fault","version":"0"}}}\n')
            out.flush()
            continue
        if method == "tasks/get":
            flags = b'"isError":true,"isError":false' if message["params"].get("taskId") == "dup" else b'"isError":true'
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"resultType":"complete","taskId":"t1",'
                      b'"status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z",'
                      b'"ttlMs":null,"result":{"resultType":"complete","content":[{"type":"text","text":"boom"}],'
                      + flags + b'}}}\n')
            out.flush()
            continue
        name = message.get("params", {}).get("name")
        args = message.get("params", {}).get("arguments", {})
        if name == "exit":
            sys.exit(3)
        if name == "hang":
            continue
        if name == "late":
            late.add(rid.decode())
            continue
        if name == "garbage":
            out.write(b"this is not json\n")
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"te\n')
        elif name == "big":
            text = "x" * int(args.get("size", 10))
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"'
                      + text.encode() + b'"}],"isError":false}}\n')
        elif name == "progress":
            token = message["params"]["_meta"]["progressToken"]
            for n in (1, 2):
                out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                      "params": {"progressToken": token, "progress": n}}).encode() + b"\n")
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[],"isError":false}}\n')
        elif name == "len":
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"'
                      + str(len(args.get("text", ""))).encode() + b'"}],"isError":false}}\n')
        elif name == "reuse":
            ask = (b'{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"m",'
                   b'"requestedSchema":{"type":"object","properties":{}}}}\n')
            out.write(ask + ask)
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[],"isError":false}}\n')
        elif name == "then_ask":
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[],"isError":false}}\n'
                      b'{"jsonrpc":"2.0","id":"after","method":"elicitation/create","params":{"message":"m",'
                      b'"requestedSchema":{"type":"object","properties":{}}}}\n')
        elif name == "dup":
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[],"isError":true,"isError":false}}\n')
        else:
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"ok"}],'
                      b'"isError":false,"x-unknown":{"kept":true},"_meta":{"m":1}}}\n')
        out.flush()


if __name__ == "__main__":
    main()
