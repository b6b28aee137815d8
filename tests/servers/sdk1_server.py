# mypy: ignore-errors
# (type-checked against the mcp 2.x of the main environment; this file runs on mcp 1.x)
"""A real MCP server on the official Python SDK at 1.x (FastMCP), with an event store.

Runs in the side virtualenv ``.venvs/mcp1`` (mcp 1.x), which ``./run test`` builds:
``.venvs/mcp1/bin/python tests/servers/sdk1_server.py stdio`` or ``... http PORT`` (Streamable
HTTP on 127.0.0.1, stateful, resumable: with an event store every SSE stream is primed with an
event that has an id and empty data, as 2025-11-25 says a server SHOULD).

Tools: ``add`` (structured output), ``explode`` (raises: the SDK answers isError true),
``ask_name`` (a form elicitation as a server-to-client request, then the greeting).
"""

from __future__ import annotations

import sys
from itertools import count

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.types import JSONRPCMessage
from pydantic import BaseModel


class MemoryEventStore(EventStore):
    """Every event kept in order (a test server's lifetime is short)."""

    def __init__(self) -> None:
        self._events: list[tuple[EventId, StreamId, JSONRPCMessage | None]] = []
        self._ids = count(1)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._ids))
        self._events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        stream = next((s for e, s, _ in self._events if e == last_event_id), None)
        if stream is None:
            return None
        after = False
        for event_id, stream_id, message in self._events:
            if after and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream


class Name(BaseModel):
    name: str


class Total(BaseModel):
    total: int


def build(port: int = 0) -> FastMCP:
    server = FastMCP("sdk1-interop", host="127.0.0.1", port=port, event_store=MemoryEventStore())

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> Total:
        return Total(total=a + b)

    @server.tool(description="Always raises.")
    def explode(reason: str = "boom") -> str:
        raise RuntimeError(f"exploded: {reason}")

    @server.tool(description="Asks the user's name, then greets.")
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.elicit("What is your name?", Name)
        return f"hello, {answer.data.name}" if answer.action == "accept" else "hello, nobody"

    return server


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        build(int(sys.argv[2])).run("streamable-http")
    else:
        build().run()
