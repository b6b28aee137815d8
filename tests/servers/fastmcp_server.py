"""A real MCP server built with FastMCP (the Python framework), for the recorded-traffic corpus.

Tools that return structured output, plain text, an image, an audio clip, a resource link and
an embedded resource, and one that raises a ToolError (a tool execution error). Run:
python -m tests.servers.fastmcp_server (stdio).
"""

from __future__ import annotations

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.utilities.types import Audio, Image
from mcp.types import EmbeddedResource, ResourceLink, TextResourceContents
from pydantic import BaseModel

# A 1x1 PNG and a 44-byte WAV header with no samples (8 kHz, mono, 16-bit): small, fixed bytes.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                    "0000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")
WAV = bytes.fromhex("524946462400000057415645666d74201000000001000100401f0000803e0000020010006461746100000000")


class Sum(BaseModel):
    total: int


def build() -> FastMCP:
    server = FastMCP("fastmcp-interop")

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> Sum:
        return Sum(total=a + b)

    @server.tool(description="Upper-cases the text.")
    def shout(text: str) -> str:
        return text.upper()

    @server.tool(description="Always fails with a tool execution error.")
    def refuse(reason: str = "no") -> str:
        raise ToolError(f"refused: {reason}")

    @server.tool(description="A 1x1 PNG.")
    def pixel() -> Image:
        return Image(data=PNG, format="png")

    @server.tool(description="A silent WAV clip.")
    def silence() -> Audio:
        return Audio(data=WAV, format="wav")

    @server.tool(description="A link to a resource, and the resource embedded.")
    def note() -> list[ResourceLink | EmbeddedResource]:
        return [ResourceLink(type="resource_link", uri="memo://note/1", name="note-1", mime_type="text/plain"),
                EmbeddedResource(type="resource", resource=TextResourceContents(
                    uri="memo://note/1", mime_type="text/plain", text="remember the milk"))]

    return server


if __name__ == "__main__":
    build().run(show_banner=False)
