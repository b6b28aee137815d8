"""The answer's exact bytes on the adapters' ``VerdictError`` (``.response``; README: "VerdictError
carries .verdict, .outcome, .decision and the answer's bytes"): the OpenAI Agents adapter's
``AgentsVerdictError`` carried none (``response`` was None), where FastMCP's ``VerdictError``
carries them. Real ``StrictMCPServerStdio`` and FastMCP ``Client`` over ``StrictTransport`` on the
demo server over stdio; the bytes after the answer's id, as the demo writes them (by hand)."""

from __future__ import annotations

import anyio
import pytest
from fastmcp import Client

from mcp_verdict import VerdictError, demo
from mcp_verdict.integrations.fastmcp import StrictTransport
from mcp_verdict.integrations.openai_agents import AgentsVerdictError, StrictMCPServerStdio

META = b'"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-verdict-demo","version":"0.1.0"}}'
# tool → the answer's bytes from its "result" member on; by hand, from the demo's construction
CASES: list[tuple[str, bytes]] = [
    ("duplicate_is_error", b'"result":{"resultType":"complete","content":[{"type":"text","text":"Deployment rolled '
                           b'back: health check failed."}],"isError":true,"isError":false}}'),
    ("string_is_error", b'"result":{"resultType":"complete","content":[{"type":"text","text":"Backup finished: 42 '
                        b'files copied."}],"isError":"false",' + META + b"}}"),
]


def tail(response: bytes | None) -> bytes | None:
    return None if response is None else response[response.index(b'"result"'):]


@pytest.mark.parametrize(("tool", "expected"), CASES, ids=[case[0] for case in CASES])
def test_the_adapters_errors_carry_the_answers_bytes(tool: str, expected: bytes) -> None:
    async def main() -> tuple[bytes | None, bytes | None]:
        command, *args = demo.stdio_command()
        agents = fastmcp = None
        async with StrictMCPServerStdio({"command": command, "args": args}) as server:
            try:
                await server.call_tool(tool, {})
            except AgentsVerdictError as error:
                agents = tail(error.response)
        async with Client(StrictTransport(demo.stdio_command())) as client:
            try:
                await client.call_tool(tool, {})
            except VerdictError as error:
                fastmcp = tail(error.response)
        return agents, fastmcp

    assert anyio.run(main) == (expected, expected)
