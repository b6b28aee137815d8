"""An HTTP upstream that fails every request (POST, GET, DELETE alike) one way, on a raw socket,
for the proxy's upstream-fault tests: ``reset`` reads the request's head, then resets the
connection (SO_LINGER 0: an RST, no answer); ``close`` reads it and closes the connection (a
FIN, no answer); ``stall`` reads it and never answers; ``garbage``
answers a status line that is no HTTP (``HELLO there``); ``reset-first`` resets the first
connection as ``reset`` does and answers every later request ``202 Accepted`` (an upstream that
failed once, then took the host's retry). Prints its port on its first line and
stops when its stdin closes (``tests/processes.port_server``)."""

from __future__ import annotations

import asyncio
import socket
import struct
import sys

_SEEN: list[int] = []


async def serve(mode: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    if mode == "reset-first":
        _SEEN.append(1)
        mode = "reset" if len(_SEEN) == 1 else "accept"
    if mode == "accept":
        writer.write(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()
    elif mode == "reset":
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
    elif mode == "close":
        writer.close()
    elif mode == "stall":
        await reader.read()  # until the proxy gives up and closes
        writer.close()
    else:
        writer.write(b"HELLO there\r\n\r\n")
        await writer.drain()
        writer.close()


async def main(mode: str) -> None:
    server = await asyncio.start_server(lambda r, w: serve(mode, r, w), "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the test closes stdin
    server.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
