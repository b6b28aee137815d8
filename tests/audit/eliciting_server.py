"""A real MCP server (the official SDK's MCPServer) whose tools ask the client through
``elicitation/create`` requests of their own, as a 2025-11-25 server does while a call waits.

    python -m tests.audit.eliciting_server            (stdio)
    python -m tests.audit.eliciting_server http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp)

``ask_object`` (``times`` times over) and ``ask_url_without_id`` send requests no 2025-11-25 client should serve (a
requested property of type ``object``: PrimitiveSchemaDefinition has none; a url-mode
elicitation without its required ``elicitationId``), through the SDK's session, which sends them
as given; each answers with what came back (``asked: ACTION``, or ``refused: ...`` when the
client answered an error), a plain success either way.

The SDK numbers the server's requests from 1, as the client numbers its own: the second question
of ``greet_twice`` (id 2) shares the id of the client's ``tools/call`` waiting for it (id 2, after
``initialize``).
"""

from __future__ import annotations

import sys

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata
from pydantic import BaseModel

OBJECT_PROPERTY = {"type": "object", "properties": {"a": {"type": "object"}}}


class Name(BaseModel):
    name: str


class Sure(BaseModel):
    sure: bool


def build() -> MCPServer:
    server = MCPServer("eliciting")

    @server.tool(description="Asks a name, then greets.")
    async def greet_once(ctx: Context) -> str:
        name = await ctx.elicit("What is your name?", Name)
        return f"hello {getattr(name, 'data', None)}"

    @server.tool(description="Asks a name, then a confirmation, then greets.")
    async def greet_twice(ctx: Context) -> str:
        name = await ctx.elicit("What is your name?", Name)
        sure = await ctx.elicit("Sure?", Sure)
        return f"hello {getattr(name, 'data', None)} {getattr(sure, 'data', None)}"

    @server.tool(description="Asks for a form whose property is an object, `times` times over.")
    async def ask_object(ctx: Context, times: int = 1) -> str:
        try:
            for _ in range(times):
                asked = await ctx.request_context.session.elicit_form("Pick", OBJECT_PROPERTY,
                                                                      related_request_id=ctx.request_id)
        except Exception as exc:  # the client answered an error
            return f"refused: {exc}"
        return f"asked: {asked.action}"

    @server.tool(description="Asks for a url-mode elicitation without its elicitationId.")
    async def ask_url_without_id(ctx: Context) -> str:
        params = types.ElicitRequestURLParams.model_construct(mode="url", message="Sign in",
                                                              url="https://example.com/login")
        try:
            asked = await ctx.request_context.session.send_request(
                types.ElicitRequest(params=params), types.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id))
        except Exception as exc:  # the client answered an error
            return f"refused: {exc}"
        return f"asked: {asked.action}"

    return server


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        build().run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        build().run()
