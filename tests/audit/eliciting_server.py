"""A real MCP server (the official SDK's MCPServer) whose tools ask the client through
``elicitation/create`` requests of their own, as a 2025-11-25 server does while a call waits.

    python -m tests.audit.eliciting_server

The SDK numbers the server's requests from 1, as the client numbers its own: the second question
of ``greet_twice`` (id 2) shares the id of the client's ``tools/call`` waiting for it (id 2, after
``initialize``).
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel


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

    return server


if __name__ == "__main__":
    build().run()
