"""A stdio MCP server (handshake era) that holds two ``tools/call`` requests and then answers
them in the order and with the bytes its tool names for (run: python -m tests.servers.guess_answers).
Each call's ``arguments.who`` ("A": the first sent, "B": the second) is its label; B is answered
first, then A with a plain text answer "A" and a second text block ``PAD``. Every answer is over
2 KiB (a tap judges such an answer before reading it when it can guess its request):

- ``nested_id``: B's answer shows A's id first, inside ``structuredContent`` (``{"id": A}``), and
  its own id last: a reader that guesses the answered request from the first bytes guesses A;
- ``dup_id``: B's answer names two ids, A's first and B's last (a duplicate member name: two
  parsers would read it differently; the lenient readers keep the last);
- ``id_last``: B's answer has its id written last (its first bytes show no id).
"""

from __future__ import annotations

import json
import sys

from tests.servers._lines import requests

TOOLS = ("nested_id", "dup_id", "id_last")
LONG = "forecast " * 250
PAD = {"type": "text", "text": "padding " * 300}


def plain(request_id: object, text: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id,
                       "result": {"content": [{"type": "text", "text": text}, PAD], "isError": False}}).encode()


def crafted(tool: str, first: object, second: object) -> bytes:
    """B's answer (``second`` is its id; ``first`` is A's)."""
    a, b, pad = json.dumps(first), json.dumps(second), json.dumps(PAD)
    if tool == "nested_id":
        return (f'{{"jsonrpc":"2.0","result":{{"structuredContent":{{"id":{a}}},'
                f'"content":[{{"type":"text","text":"B"}},{pad}],"isError":false}},"id":{b}}}').encode()
    if tool == "dup_id":
        return (f'{{"jsonrpc":"2.0","id":{a},"result":{{"content":[{{"type":"text","text":"B"}},{pad}]}},'
                f'"id":{b}}}').encode()
    return (f'{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"{LONG}"}}],"isError":false}},'
            f'"id":{b}}}').encode()


def main() -> None:
    out = sys.stdout.buffer
    held: list[dict[str, object]] = []
    for message in requests():
        request_id, method = message["id"], message.get("method")
        if method == "tools/call":
            held.append(message)
            if len(held) < 2:
                continue
            calls = {call["params"]["arguments"]["who"]: call for call in held}  # type: ignore[index]
            tool = str(calls["A"]["params"]["name"])  # type: ignore[index]
            lines = [crafted(tool, calls["A"]["id"], calls["B"]["id"]), plain(calls["A"]["id"], "A")]
            held.clear()
        elif method == "initialize":
            lines = [json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "guess-answers", "version": "1"}}}).encode()]
        elif method == "tools/list":
            listed = [{"name": name, "inputSchema": {"type": "object"}} for name in TOOLS]
            lines = [json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"tools": listed}}).encode()]
        else:
            lines = [json.dumps({"jsonrpc": "2.0", "id": request_id,
                                 "error": {"code": -32601, "message": "Method not found"}}).encode()]
        for line in lines:
            out.write(line + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
