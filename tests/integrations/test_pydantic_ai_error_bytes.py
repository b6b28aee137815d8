"""pydantic-ai's ``strict_toolset(..., on_unclassified="raise")``: a protocol error that must not
run again (its decision neither ``retry``, ``fix_request`` nor ``return_to_model``) is raised as a
``VerdictError`` carrying the answer's exact bytes (``.response``; README: "VerdictError carries
... the answer's bytes"), as a refused answer's is; it carried None (the FastMCP adapter noted
the outcome of the SDK's error, not its bytes). A real ``Agent`` (``TestModel``) over
``strict_toolset`` on a crafted stdio server (``crafted_answers``: each answer written byte for
byte)."""

from __future__ import annotations

import anyio
import pytest
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

from mcp_verdict import VerdictError
from mcp_verdict.integrations.pydantic_ai import strict_toolset

from .crafted_answers import command

# the JSON-RPC error code answered → (decision, the answer's bytes after its id); by hand
CASES: list[tuple[int, str, bytes]] = [
    (-32000, "investigate", b'"error":{"code":-32000,"message":"boom"}}'),
    (-32001, "investigate", b'"error":{"code":-32001,"message":"boom"}}'),
    (-32603, "check_state", b'"error":{"code":-32603,"message":"boom"}}'),  # refused: carried them already
]


@pytest.mark.parametrize(("code", "action", "expected"), CASES, ids=[str(case[0]) for case in CASES])
def test_the_raised_verdict_error_carries_the_answers_bytes(code: int, action: str, expected: bytes) -> None:
    raw = '{"jsonrpc":"2.0","id":{id},"error":{"code":' + str(code) + ',"message":"boom"}}'
    executable, *args = command({"failing": {"raw": raw}})

    async def main() -> tuple[str, bytes | None]:
        toolset = strict_toolset(executable, args, on_unclassified="raise")
        try:
            await Agent(TestModel(call_tools=["failing"]), toolsets=[toolset]).run("go")
        except VerdictError as error:
            response = error.response
            return error.decision.action.value, None if response is None else response[response.index(b'"error"'):]
        return "no error", None

    assert anyio.run(main) == (action, expected)
