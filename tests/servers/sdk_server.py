"""A real MCP server built with the official SDK's MCPServer, for interop tests.

Tools that succeed (with structured content), raise (a tool execution error) and elicit
(input_required, completing after the answer). Run: python -m tests.servers.sdk_server stdio
or ... http PORT (127.0.0.1 only).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from pydantic import BaseModel


class Sum(BaseModel):
    total: int


def build() -> MCPServer:
    server = MCPServer("mcp-verdict-interop")

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> Sum:
        return Sum(total=a + b)

    @server.tool(description="Always fails with a tool execution error.")
    def explode(reason: str = "boom") -> str:
        raise ToolError(f"exploded: {reason}")

    @server.tool(description="Greets someone, asking for the name first.")
    async def greet(ctx: Context) -> str | InputRequiredResult:
        responses = ctx.input_responses
        if responses is None or "name" not in responses:
            ask = ElicitRequest(params=ElicitRequestFormParams(
                message="What is your name?",
                requested_schema={"type": "object", "properties": {"name": {"type": "string", "minLength": 1}},
                                  "required": ["name"]}))
            return InputRequiredResult(input_requests={"name": ask}, request_state="asked-name")
        answer = responses["name"]
        if isinstance(answer, ElicitResult) and answer.action == "accept":
            return f"hello, {(answer.content or {}).get('name')}"
        return "no name given"

    return server


if __name__ == "__main__":
    app = build()
    if sys.argv[1:2] == ["http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
