"""A handshake-era Streamable HTTP server on raw sockets whose answer to tools/call is the
exact bytes a chosen mode writes (status line, headers and body as they go on the wire), for
the client's HTTP edge tests. Run: python -m tests.servers.hostile_http (prints its port, then
serves http://127.0.0.1:PORT/<mode>/mcp until its stdin closes).

Every other request (initialize, tools/list, the GET stream, DELETE) is answered plainly:
JSON with a session id ``s1``, 405 for GET, 200 for DELETE. The modes are in ``MODES`` (a
function of the request's id that yields byte strings to write, with ``None`` meaning "wait
half a second") and in the docstring of each.

The modes of ``GET_STREAMS`` answer the first GET of their path with that event stream, then
close it (later GETs: 405); their tools/call is answered once that GET was served.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

Parts = Iterator[bytes | None]
SESSION = "s1"


def answer_of(request_id: Any, text: str = "ok") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}],
                                                                       "isError": False}}, ensure_ascii=False).encode()


def head(status: str, *headers: str, length: int | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers, "connection: close"]
    if length is not None:
        lines.append(f"content-length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def sse(body: bytes, *headers: str) -> Parts:
    yield head("200 OK", "content-type: text/event-stream", *headers) + body


def plain(status: str, body: bytes, *headers: str) -> Parts:
    yield head(status, *headers, length=len(body)) + body


def status(code: int, *headers: str) -> Callable[[Any], Parts]:
    return lambda rid: plain(f"{code} Status", b"no", "content-type: text/plain", *headers)


def mode_table() -> dict[str, Callable[[Any], Parts]]:
    def sse_big(rid: Any, mib: int = 50) -> Parts:
        yield head("200 OK", "content-type: text/event-stream")
        yield b'data: {"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % rid
        for _ in range(mib * 16):
            yield b"a" * 65536
        yield b'"}]}}\n\n'

    def json_big(rid: Any, mib: int = 50) -> Parts:
        start = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % rid
        end = b'"}]}}'
        yield head("200 OK", "content-type: application/json", length=len(start) + mib * 1024 * 1024 + len(end))
        yield start
        for _ in range(mib * 16):
            yield b"a" * 65536
        yield end

    def json_endless(rid: Any) -> Parts:
        """A JSON answer that never ends: no content-length, its text string written until the
        client stops reading (the connection closes)."""
        yield head("200 OK", "content-type: application/json")
        yield b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"' % rid
        while True:
            yield b"a" * 65536

    def sse_keepalive(rid: Any) -> Parts:
        yield head("200 OK", "content-type: text/event-stream")
        for _ in range(6):
            yield b": keep-alive\n\n"
            yield None
        yield b"data: " + answer_of(rid) + b"\n\n"

    def never_headers(rid: Any) -> Parts:
        while True:
            yield None

    def stall_after_headers(rid: Any) -> Parts:
        yield head("200 OK", "content-type: text/event-stream")
        while True:
            yield None

    def chunk_cut(rid: Any) -> Parts:
        body = answer_of(rid)
        yield head("200 OK", "content-type: application/json", "transfer-encoding: chunked")
        yield b"%x\r\n" % len(body) + body[:20]

    def gzip_sse(rid: Any) -> Parts:
        body = gzip.compress(b"data: " + answer_of(rid) + b"\n\n")
        yield head("200 OK", "content-type: text/event-stream", "content-encoding: gzip", length=len(body)) + body

    def gzip_json(rid: Any) -> Parts:
        body = gzip.compress(answer_of(rid))
        yield head("200 OK", "content-type: application/json", "content-encoding: gzip", length=len(body)) + body

    return {
        # SSE line ends and framing (WHATWG event-stream interpretation)
        "sse_cr": lambda rid: sse(b"data: " + answer_of(rid) + b"\r\r"),
        "sse_crlf": lambda rid: sse(b"data: " + answer_of(rid) + b"\r\n\r\n"),
        "sse_bom": lambda rid: sse(b"\xef\xbb\xbfdata: " + answer_of(rid) + b"\n\n"),
        "sse_nospace": lambda rid: sse(b"data:" + answer_of(rid) + b"\n\n"),
        "sse_split": lambda rid: sse(b"data: " + answer_of(rid).replace(b", ", b",\ndata: ") + b"\n\n"),
        "sse_nodata": lambda rid: sse(b"event: message\nid: 7\n\n" + b"data: " + answer_of(rid) + b"\n\n"),
        "sse_retry_garbage": lambda rid: sse(b"retry: soon\nretry: -1\ndata: " + answer_of(rid) + b"\n\n"),
        "sse_id_nul": lambda rid: sse(b"id: a\x00b\ndata: " + answer_of(rid) + b"\n\n"),
        "sse_unterminated": lambda rid: sse(b"data: " + answer_of(rid)),
        "sse_others_first": lambda rid: sse(b"data: " + answer_of(9999, "not yours") + b"\n\n"
                                            b"data: " + answer_of(rid) + b"\n\n"),
        "sse_other_event": lambda rid: sse(b"event: other\ndata: " + answer_of(rid, "not a message") + b"\n\n"
                                           b"data: " + answer_of(rid) + b"\n\n"),
        "sse_only_other_event": lambda rid: sse(b"event: other\ndata: " + answer_of(rid) + b"\n\n"),
        "sse_big": sse_big,
        "sse_2mib": lambda rid: sse_big(rid, 2),
        "json_big": json_big,
        "sse_16mib": lambda rid: sse_big(rid, 16),
        "json_16mib": lambda rid: json_big(rid, 16),
        "sse_0mib": lambda rid: sse_big(rid, 0),
        "json_0mib": lambda rid: json_big(rid, 0),
        "json_endless": json_endless,
        "sse_keepalive": sse_keepalive,
        # HTTP framing and headers
        "latin1": lambda rid: plain("200 OK", answer_of(rid, "café").decode().encode("latin-1"),
                                    "content-type: application/json; charset=latin-1"),
        "no_type": lambda rid: plain("200 OK", answer_of(rid)),
        "gzip_sse": gzip_sse,
        "gzip_json": gzip_json,
        "gzip_bad": lambda rid: plain("200 OK", answer_of(rid), "content-type: application/json",
                                      "content-encoding: gzip"),
        "coding_unknown": lambda rid: plain("200 OK", answer_of(rid), "content-type: application/json",
                                            "content-encoding: x-unknown"),
        "chunk_cut": chunk_cut,
        "accepted": lambda rid: plain("202 Accepted", b""),
        "cross_redirect": lambda rid: plain("307 Temporary Redirect", b"", "location: http://localhost:1/mcp"),
        "never_headers": never_headers,
        "stall": stall_after_headers,
        **{f"status{code}": status(code, "retry-after: 120") for code in (401, 403, 404, 405, 429, 500, 502, 503)},
        # RFC 9110 s10.2.3: Retry-After as delay-seconds or an HTTP-date (one long past: wait 0)
        **{f"status{code}_wait2": status(code, "retry-after: 2") for code in (429, 503)},
        **{f"status{code}_bare": status(code) for code in (400, 413, 415, 429, 503, 504)},
        "status429_date": status(429, "retry-after: Wed, 21 Oct 2015 07:28:00 GMT"),
    }


MODES = mode_table()


async def read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str], bytes] | None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = raw.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return method, path, headers, body


def plain_answer(message: dict[str, Any], mode: str) -> bytes:
    method, rid = message.get("method"), message.get("id")
    if method == "initialize":
        version = "1999-01-01" if mode == "old_version" else message["params"]["protocolVersion"]
        result: dict[str, Any] = {"protocolVersion": version,
                                  "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile", "version": "1"}}
        return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()
    if method == "tools/list":
        tools = [{"name": "t", "inputSchema": {"type": "object"}}]
        return json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}}).encode()
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}).encode()


NOTE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'
GET_STREAMS = {
    # WHATWG: a retry that is not ASCII digits is ignored (the SDK's int() took -5, and slept -5 ms)
    "get_retry_negative": b"retry: -5\ndata: " + NOTE + b"\n\n",
    # MCP: the client waits retry ms before it reconnects (0: at once, in a loop)
    "get_retry_zero": b"retry: 0\ndata: " + NOTE + b"\n\n",
}
SERVED_GET: set[str] = set()
"""The GET_STREAMS modes whose GET was served."""


def after_get(mode: str) -> Callable[[Any], Parts]:
    def parts(rid: Any) -> Parts:
        while mode not in SERVED_GET:
            yield None
        yield from plain("200 OK", answer_of(rid), "content-type: application/json")
    return parts


MODES.update({mode: after_get(mode) for mode in GET_STREAMS})

SESSIONS = {"session_ctl": "s\x01\x1b[2Jx", "session_long": "s" * 10_000, "session_latin1": "s\u00e9"}
ENDED: set[str] = set()
"""Paths whose first session the server ended (mode session404: at its first tools/call, with a
404; initialize then opens session s2)."""


def reply(status: str, data: bytes, *headers: str) -> bytes:
    return head(status, *headers, length=len(data)) + data


def plain_reply(method: str, mode: str, headers: dict[str, str], message: dict[str, Any]) -> bytes | None:
    """The answer to anything but a tools/call the mode shapes; None for such a tools/call."""
    if method == "GET" and mode in GET_STREAMS and mode not in SERVED_GET:
        SERVED_GET.add(mode)
        return head("200 OK", "content-type: text/event-stream") + GET_STREAMS[mode]
    if method != "POST":
        return reply("405 Method Not Allowed" if method == "GET" else "200 OK", b"")
    session = headers.get("mcp-session-id")
    if mode == "session404" and session == SESSION and (mode in ENDED or message.get("method") == "tools/call"):
        ENDED.add(mode)
        return reply("404 Not Found", b"unknown session", "content-type: text/plain")
    if message.get("id") is None:
        return reply("202 Accepted", b"")
    if message.get("method") == "tools/call" and mode in MODES:
        return None
    data = answer_of(message["id"], f"session {session}") if message.get("method") == "tools/call" \
        else plain_answer(message, mode)
    given = SESSIONS.get(mode, "s2" if mode in ENDED else SESSION)
    return reply("200 OK", data, "content-type: application/json", f"mcp-session-id: {given}")


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while (request := await read_request(reader)) is not None:
            method, path, headers, body = request
            mode = path.split("/")[1]
            message = json.loads(body) if method == "POST" else {}
            plain_bytes = plain_reply(method, mode, headers, message)
            if plain_bytes is not None:
                writer.write(plain_bytes)
                await writer.drain()
                break
            for part in MODES[mode](message["id"]):
                if part is None:
                    await asyncio.sleep(0.5)
                    continue
                writer.write(part)
                await writer.drain()
            break
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main() -> None:
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the test closes our stdin
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
