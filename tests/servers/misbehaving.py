"""Handshake-era MCP servers whose tools/call misbehaves in one chosen way, for the client's
fault tests. Run: python -m tests.servers.misbehaving stdio MODE [N], or
python -m tests.servers.misbehaving http (prints its port, then serves
http://127.0.0.1:PORT/<mode>/mcp until its stdin closes).

stdio modes: ``ok``; ``noise_flood N`` (N debug lines, then the answer); ``notif_flood N``
(N notifications/message, then the answer); ``init_hang`` (never answers initialize);
``elicit_hostile`` (a form whose enum choices and default carry terminal control sequences; the
answer says whether the choice came back exactly as sent); the other modes of ``ASKS``
(``tools/call`` first sends the client that request; the answer says ``error`` and the
error's code, or ``result`` and the result the client sent; ``MODE@VERSION``: the same, the
initialize answer naming VERSION whatever the client asked); ``odd_required`` (tools/list: ``t``,
whose inputSchema's ``required`` holds an object and a number besides a name); ``task_hostile``
(``t`` requires tasks: a task-augmented call answers a 2025-11-25 task handle, and ``tasks/get``
a status that is no status, carrying terminal control sequences and markup).

http modes (per path): ``ok``; ``notif_flood`` (2,000 notifications on the call's SSE stream,
then the answer); ``drop`` (the connection closed before any response to tools/call;
``drop_all``: to any POST); ``badstatus`` (a garbage status line); ``redirect`` (307 to
/ok/mcp); ``json_forever`` (an endless JSON body); ``error<SIZE>`` (status 500 with a
``text/plain`` body of SIZE bytes: ``E``s and, for sizes of 3 and more, ``END`` last);
``error_endless`` (500 and a body that never ends, no length); ``error_stall`` (500, 300 ``E``s,
then nothing until the client goes).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from tests.servers._lines import JsonHandler, requests, serve_http

OK_TEXT = "ok"
HOSTILE_EVENT = b"\x1b[2J\x1b]0;PWNED\x07boom"
HOSTILE_CHOICE = "red\x1b]0;PWNED\x07"
HOSTILE_STATUS = "working\x1b[2J\x1b]0;PWNED\x07[bold]x"
ODD_REQUIRED = {"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["path", {"name": "n"}, 3]}
_COLOURS = {"type": "string", "enum": [HOSTILE_CHOICE, "blue"], "default": HOSTILE_CHOICE}
ASKS: dict[str, tuple[str, dict[str, Any]]] = {
    "elicit_hostile": ("elicitation/create", {"message": "Pick a colour", "requestedSchema": {
        "type": "object", "required": ["colour"], "properties": {"colour": _COLOURS}}}),
    "elicit_url": ("elicitation/create", {"mode": "url", "message": "Sign in", "url": "https://example.com/login",
                                          "elicitationId": "x1"}),
    "elicit_ref": ("elicitation/create", {"message": "Pick", "requestedSchema": {
        "type": "object", "properties": {"a": {"$ref": "https://example.com/schema.json"}}}}),
    "elicit_array": ("elicitation/create", {"message": "Pick", "requestedSchema": {
        "type": "array", "items": {"type": "string"}}}),
    "elicit_no_message": ("elicitation/create", {"requestedSchema": {
        "type": "object", "properties": {"a": {"type": "string"}}}}),
    "elicit_url_id": ("elicitation/create", {"mode": "url", "message": "Sign in", "url": "https://example.com/login",
                                             "elicitationId": 5}),
    "sample_no_tokens": ("sampling/createMessage", {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
    "elicit_form": ("elicitation/create", {"message": "Pick", "requestedSchema": {
        "type": "object", "properties": {"a": {"type": "string"}}}}),
    "sample": ("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                                          "maxTokens": 5}),
    "sample_tools": ("sampling/createMessage", {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5,
        "tools": [{"name": "w", "inputSchema": {"type": "object"}}]}),
    "roots": ("roots/list", {}),
    # rules that differ per version (each version's schema.json), for ``MODE@VERSION``
    "elicit_string_default": ("elicitation/create", {"message": "Pick", "requestedSchema": {
        "type": "object", "properties": {"a": {"type": "string", "default": 5}}}}),
    "elicit_url_plain": ("elicitation/create", {"mode": "url", "message": "Sign in",
                                                "url": "https://example.com/login", "elicitationId": "x1"}),
    "sample_array": ("sampling/createMessage", {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "hi"}]}], "maxTokens": 5}),
    "sample_token": ("sampling/createMessage", {"messages": [{"role": "user", "content": {
        "type": "text", "text": "hi"}}], "maxTokens": 5, "_meta": {"progressToken": True}}),
    "sample_choice": ("sampling/createMessage", {"messages": [{"role": "user", "content": {
        "type": "text", "text": "hi"}}], "maxTokens": 5, "toolChoice": 5}),
}
"""Modes whose tools/call first sends the client this request, then answers with what came back."""
TASK = {"taskId": "t1", "status": "working", "createdAt": "2025-01-01T00:00:00Z",
        "lastUpdatedAt": "2025-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 10}


def answer(message: dict[str, Any], version: str | None = None) -> dict[str, Any]:
    """The answer to ``message``; ``version``: the one initialize names (else the client's)."""
    method, request_id = message.get("method"), message.get("id")
    if method == "server/discover":
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": version or message["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "misbehaving", "version": "1"}}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
    if method == "tools/call":
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"content": [{"type": "text", "text": OK_TEXT}], "isError": False}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}


def notification(number: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": number}}).encode()


def stdio(mode: str, count: int) -> None:
    out = sys.stdout.buffer
    mode, _, version = mode.partition("@")
    for message in requests():
        if mode == "init_hang" and message.get("method") in ("initialize", "server/discover"):
            continue
        if mode in ASKS and message.get("method") == "tools/call":
            method, params = ASKS[mode]
            out.write(json.dumps({"jsonrpc": "2.0", "id": "e1", "method": method, "params": params}).encode() + b"\n")
            out.flush()
            reply = json.loads(sys.stdin.buffer.readline())
            if mode == "elicit_hostile":
                colour = (reply.get("result") or {}).get("content", {}).get("colour")
                said = "got the hostile choice as sent" if colour == HOSTILE_CHOICE else f"got {colour!r}"
            else:
                said = f"error {reply['error'].get('code')}" if "error" in reply else \
                    "result " + json.dumps(reply.get("result"), sort_keys=True)
            out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {
                "content": [{"type": "text", "text": said}], "isError": False}}).encode() + b"\n")
            out.flush()
            continue
        if mode in ("odd_required", "task_hostile") and message.get("method") in ("tools/list", "tools/call",
                                                                                  "tasks/get"):
            out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": odd(mode, message)}).encode()
                      + b"\n")
            out.flush()
            continue
        if message.get("method") == "tools/call":
            for number in range(count):
                out.write(b"debug line %d\n" % number if mode == "noise_flood" else notification(number) + b"\n")
        out.write(json.dumps(answer(message, version or None)).encode() + b"\n")
        out.flush()


def odd(mode: str, message: dict[str, Any]) -> dict[str, Any]:
    """The result of an ``odd_required`` or ``task_hostile`` answer to ``message``."""
    method = message.get("method")
    if method == "tools/list":
        tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
        if mode == "odd_required":
            tool["inputSchema"] = ODD_REQUIRED
        else:
            tool["execution"] = {"taskSupport": "required"}
        return {"tools": [tool]}
    if method == "tasks/get":
        return {**TASK, "status": HOSTILE_STATUS}
    if mode == "task_hostile" and (message.get("params") or {}).get("task") is not None:
        return {"task": TASK}
    return {"content": [{"type": "text", "text": OK_TEXT}], "isError": False}


class Handler(JsonHandler):
    def do_GET(self) -> None:
        self.send(405, b"")

    def do_DELETE(self) -> None:
        self.send(200, b"")

    def do_POST(self) -> None:
        mode = self.path.split("/")[1]
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if mode == "redirect":
            self.send_response(307)
            self.send_header("location", "/ok/mcp")
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if mode == "drop_all":
            self.close_connection = True
            return
        message = json.loads(body)
        if message.get("id") is None:
            self.send(202, b"")
            return
        if message.get("method") != "tools/call" or mode == "ok":
            self.send(200, json.dumps(answer(message)).encode())
            return
        self.close_connection = True
        if mode == "drop":
            return
        if mode == "badstatus":
            self.wfile.write(b"garbage\r\n\r\n")
            return
        if mode == "notif_flood":
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b"".join(b"data: " + notification(n) + b"\n\n" for n in range(2000)))
            self.wfile.write(b"data: " + json.dumps(answer(message)).encode() + b"\n\n")
            return
        if mode == "hostile_sse":  # an event name the SDK logs as it came: terminal control sequences
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b"event: " + HOSTILE_EVENT + b"\ndata: {}\n\n")
            self.wfile.write(b"data: " + json.dumps(answer(message)).encode() + b"\n\n")
            return
        if mode in ("error_endless", "error_stall"):
            self.send_response(500)
            self.send_header("content-type", "text/plain")
            self.end_headers()
            try:
                self.wfile.write(b"E" * 300)
                self.wfile.flush()
                while True:
                    if mode == "error_endless":
                        self.wfile.write(b"E" * 65536)
                    else:
                        time.sleep(0.5)
                        self.wfile.write(b"")
            except OSError:
                return
        if mode.startswith("error") and mode[5:].isdigit():
            size = int(mode[5:])
            self.send(500, b"E" * (size - 3) + b"END" if size >= 3 else b"E" * size, "text/plain")
            return
        if mode == "json_forever":
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % message["id"])
            try:
                while True:
                    self.wfile.write(b"a" * 65536)
            except OSError:
                return


if __name__ == "__main__":
    if sys.argv[1] == "http":
        serve_http(Handler)
    else:
        stdio(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0)
