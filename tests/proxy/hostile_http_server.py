"""An HTTP upstream that answers every request with bytes written by hand on a raw socket, one
behaviour per run (argv[1]), for the proxy's tests of upstream answers no framework would write:

- ``sse-cr``: a POST of a request is answered with an event stream whose lines end in CR alone
  (WHATWG event streams allow CRLF, LF or CR), the answer (``ok``) its one event, then the
  connection closed (no length, the body ends with the connection); the stream's last bytes are
  the CR that ends the event's data line and the CR of the empty line that dispatches it;
  ``sse-cr-open``: the same stream held open after its answer (until the client closes it);
- ``sse-case``: a POST of a request is answered with an event stream holding its answer
  (``ok``), its ``Content-Type`` ``Text/Event-Stream; charset=utf-8`` (RFC 9110 s8.3.1: type and
  subtype are case-insensitive), then closed;
- ``sse-after``: a POST of a request is answered with an event stream holding, in one write,
  its answer (``ok``, a 2026-07-28 result: ``resultType`` ``complete``), then a
  ``notifications/message`` (:data:`AFTER`), then a second answer to the same id (``again``),
  then closed;
- ``sse-comments:<n>``: a POST of a request is answered with an event stream of ``n`` comment
  lines of 100 bytes each (``: keep-alive`` padded with dots, as servers keep idle streams
  open), written one by one 2 ms apart, then ``retry: 1000`` and a priming event (``id: p-1``, empty
  data), then the answer (``ok``), then closed;
- ``misaddressed``: a POST of the request with id 2 is answered with an answer to id 1 (text
  ``for the request with id 2``, a 2026-07-28 result), in one JSON body; one of any other request with an event
  stream that carries nothing and stays open (until the client closes it);
- ``delete-big:<n>``: a DELETE is answered 200 with a body of ``n`` bytes of ``x`` (chunked, in
  64 KiB chunks); any other request as below;
- ``control:<name>``: every answer (a request's ``ok``, an ``initialize``'s in place of its
  ``Mcp-Session-Id``, a notification's 202, a GET's 405, a DELETE's 200) carries the header
  ``name`` with the value ``a<ESC>[31mb`` (an ANSI escape: a control character no field value may
  hold, RFC 9110 s5.5);
- ``switching``: every request is answered ``101 Switching Protocols`` (``Upgrade: x``), which
  no request asked for (RFC 9110 s15.2.2), then the connection closed;
- ``sse-long-id:<n>:<k>``: a POST of a request, and a GET, are answered with an event stream
  whose first line is ``id:`` and ``n`` bytes of ``x`` (the last event id, WHATWG: kept for every
  later event), then ``k`` ``notifications/message`` events without an id (:data:`AFTER`), then,
  for the POST, the answer (``ok``), then closed;
- ``idle-extra``: connections are kept alive (each request answered ``ok`` with its length, the
  next request read on the same connection); a twentieth of a second after each answer the
  server writes on the idle connection, unasked, a whole second response: an answer to the next
  id (the request's id plus one), text ``unsolicited``; ``idle-extra-cookie``: the same, each
  answer setting a cookie (``Set-Cookie: lb=a; Path=/``, as a load balancer's affinity cookie),
  and a notification's ``202`` followed too, a twentieth of a second later, by a response no one
  asked for (``200``, an answer with a null id, text ``unsolicited``);
- ``redirect:<url>``: a GET or a DELETE is answered ``307 Temporary Redirect`` to ``url``
  (RFC 9110 s15.4.8: the client may repeat the request there, method and body unchanged), with
  no body; a POST as below.

A POST of ``initialize`` is answered with ``protocolVersion`` 2025-06-18 and ``Mcp-Session-Id:
s-1``. Any other POST of a request is answered ``ok`` as one JSON body; any other request (a
notification, a GET, a DELETE) gets 202 with no body. Every answer closes its connection. Prints
its port on its first line and stops when its stdin closes (``tests/processes.port_server``)."""

from __future__ import annotations

import asyncio
import json
import sys

MODE = sys.argv[1]


def _answer(request_id: object, text: str = "ok", **more: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id,
                       "result": {"content": [{"type": "text", "text": text}], "isError": False, **more}}).encode()


AFTER = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}'


async def _kept_alive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """``idle-extra`` (``-cookie``): one connection's requests, each answered, then an answer no
    one asked for."""
    cookie = b"Set-Cookie: lb=a; Path=/\r\n" if MODE == "idle-extra-cookie" else b""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(line.partition(b":")[2]) for line in head.split(b"\r\n")[1:]
                           if line.partition(b":")[0].strip().lower() == b"content-length"), 0)
            message = json.loads(await reader.readexactly(length)) if length else {}
            if "id" not in message:
                writer.write(b"HTTP/1.1 202 Accepted\r\n%sContent-Length: 0\r\n\r\n" % cookie)
                if not cookie:
                    continue
            answers = [(None, "unsolicited", 0.05)] if "id" not in message else \
                [(message["id"], "ok", 0.0), (message["id"] + 1, "unsolicited", 0.05)]
            for request_id, text, wait in answers:
                await asyncio.sleep(wait)
                answer = _answer(request_id, text, resultType="complete")
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s"
                             % (cookie, len(answer), answer))
                await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
        pass
    writer.close()


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    if MODE in ("idle-extra", "idle-extra-cookie"):
        await _kept_alive(reader, writer)
        return
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        method = head.split(b" ", 1)[0]
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await reader.readexactly(length) if length else b""
        message = json.loads(body) if body else {}
        more = b""
        if MODE.startswith("control:"):
            more = MODE.split(":", 1)[1].encode() + b": a\x1b[31mb\r\n"
        if MODE == "switching":
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n")
        elif MODE.startswith("control:") and method == b"GET":
            writer.write(b"HTTP/1.1 405 Method Not Allowed\r\n%sContent-Length: 0\r\nConnection: close\r\n\r\n" % more)
        elif MODE.startswith("control:") and method == b"DELETE":
            writer.write(b"HTTP/1.1 200 OK\r\n%sContent-Length: 0\r\nConnection: close\r\n\r\n" % more)
        elif MODE.startswith("redirect:") and method != b"POST":
            writer.write(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: %s\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n" % MODE.split(":", 1)[1].encode())
        elif method == b"DELETE" and MODE.startswith("delete-big:"):
            size = int(MODE.split(":", 1)[1])
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
                         b"Connection: close\r\n\r\n")
            while size > 0:
                chunk = min(size, 65536)
                writer.write(b"%x\r\n%s\r\n" % (chunk, b"x" * chunk))
                size -= chunk
                await writer.drain()
            writer.write(b"0\r\n\r\n")
        elif MODE.startswith("sse-long-id:") and (method == b"GET" or (method == b"POST" and "id" in message)):
            size, events = (int(part) for part in MODE.split(":")[1:])
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            writer.write(b"id: " + b"x" * size + b"\n" + b"data: %s\n\n" % AFTER * events)
            if method == b"POST":
                writer.write(b"data: %s\n\n" % _answer(message["id"]))
        elif method != b"POST" or "id" not in message or "method" not in message:
            writer.write(b"HTTP/1.1 202 Accepted\r\n%sContent-Length: 0\r\nConnection: close\r\n\r\n" % more)
        elif MODE == "misaddressed" and message["id"] == 2:
            answer = _answer(1, "for the request with id 2", resultType="complete")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n%s" % (len(answer), answer))
        elif MODE == "misaddressed":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            await writer.drain()
            await reader.read()  # until the client closes
        elif MODE == "sse-case":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: Text/Event-Stream; charset=utf-8\r\n"
                         b"Connection: close\r\n\r\ndata: %s\n\n" % _answer(message["id"]))
        elif MODE == "sse-after":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            writer.write(b"data: %s\n\ndata: %s\n\ndata: %s\n\n" % (
                _answer(message["id"], resultType="complete"), AFTER,
                _answer(message["id"], "again", resultType="complete")))
        elif MODE.startswith("sse-comments:"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            for _ in range(int(MODE.split(":", 1)[1])):
                writer.write(b": keep-alive " + b"." * 86 + b"\n")
                await writer.drain()
                await asyncio.sleep(0.002)  # (read apart: not in one chunk with the answer)
            writer.write(b"retry: 1000\nid: p-1\ndata:\n\ndata: " + _answer(message["id"]) + b"\n\n")
        elif MODE in ("sse-cr", "sse-cr-open"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            writer.write(b"event: message\rdata: " + _answer(message["id"]) + b"\r\r")
            if MODE == "sse-cr-open":
                await writer.drain()
                await reader.read()  # until the client closes
        elif message["method"] == "initialize":
            answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "h", "version": "0"}}}
            ).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                         b"%sConnection: close\r\n\r\n%s" % (len(answer), more or b"Mcp-Session-Id: s-1\r\n", answer))
        else:
            answer = _answer(message["id"])
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                         b"%sConnection: close\r\n\r\n%s" % (len(answer), more, answer))
        await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
        pass
    writer.close()


async def main() -> None:
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the test closes stdin
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
