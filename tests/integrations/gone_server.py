"""A stdio MCP server that exits when its tool is called, and what the adapters that never run a
call again say of it (no SDK imported here: the mcp 1.x tests use it too)."""

from __future__ import annotations

import re
from pathlib import Path

from .crafted_answers import HANDSHAKE

# A stdio MCP server (2026-07-28 and 2025-11-25) listing one read-only tool, ``read``, that
# appends a line to the file named by its argument per tools/call it receives, then exits
# before answering: the client sees its connection close after the request was sent.
GONE = HANDSHAKE + r'''
runs = sys.argv[1]
META = meta("gone")
for message, rid, method in requests():
    answer = {"jsonrpc": "2.0", "id": rid}
    hello = handshake(method, "gone")
    if hello is not None:
        answer["result"] = hello
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


# What the adapters' errors and tool messages say after "; next: ", written by hand from the
# policy table (README, "The next action").
SAFE = "retry — a repeatable failure on a tool safe to repeat"
AGAIN = ". Nothing ran it again: the caller may call it again after"
UNKNOWN = ("check_state — the request was sent and its effect is unknown: observe the state before anything else; "
           "never resend blindly")
RUN = ". Do not call it again before checking whether it took effect: it may have run."
CHECK = "). Do not call it again before checking whether it took effect."


def after_next(message: str, expected: str, bounds: tuple[float, float]) -> str:
    """The message's text after "; next: ", its delay checked within ``bounds`` and written DELAY."""
    tail = message.split("; next: ", 1)[1]
    found = re.search(r"after ([0-9.]+) s", tail)
    if "DELAY" in expected and found:
        assert bounds[0] <= float(found.group(1)) <= bounds[1], tail
        tail = tail.replace(found.group(1), "DELAY")
    return tail


def runs(path: Path) -> int:
    """How many tools/call the server received (a line each in the file it was given)."""
    return len(path.read_text().splitlines()) if path.exists() else 0
