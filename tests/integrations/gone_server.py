"""A stdio MCP server that exits when its tool is called (no SDK imported here: the mcp 1.x
tests use it too)."""

# A stdio MCP server (2026-07-28 and 2025-11-25) listing one read-only tool, ``read``, that
# appends a line to the file named by its argument per tools/call it receives, then exits
# before answering: the client sees its connection close after the request was sent.
GONE = r'''
import json, sys
runs = sys.argv[1]
META = {"io.modelcontextprotocol/serverInfo": {"name": "gone", "version": "1"}}
for line in sys.stdin.buffer:
    message = json.loads(line)
    rid, method = message.get("id"), message.get("method")
    if rid is None:
        continue
    answer = {"jsonrpc": "2.0", "id": rid}
    if method == "server/discover":
        answer["result"] = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                            "capabilities": {"tools": {}}, "_meta": META}
    elif method == "initialize":
        answer["result"] = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "gone", "version": "1"}}
    elif method == "tools/list":
        tools = [{"name": "read", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}]
        answer["result"] = {"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private",
                            "_meta": META}
    elif method == "tools/call":
        with open(runs, "a") as out:
            out.write("read\n")
        sys.exit(0)
    else:
        answer["error"] = {"code": -32601, "message": "no"}
    sys.stdout.buffer.write(json.dumps(answer).encode() + b"\n")
    sys.stdout.buffer.flush()
'''
