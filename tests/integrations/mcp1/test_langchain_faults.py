"""langchain-mcp-adapters with VerdictInterceptor (run in .venvs/mcp1 by ../test_mcp1_suite.py)
against a crafted server whose every answer is written byte for byte (``crafted_answers``): what
the model is handed, as the adapters' own StructuredTool gives it to an agent."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from langchain_mcp_adapters.tools import load_mcp_tools

from mcp_verdict import VerdictTap
from mcp_verdict.integrations.langchain import VerdictInterceptor, stdio_session

from ..crafted_answers import answer, command

READ_ONLY = {"readOnlyHint": True}


def wrong_count(verdict: Any) -> bool | str:
    return "not the count I need"


# tool → (the tool as listed, the answer, the interceptor's options, what the model is handed:
# the ToolMessage's status and the text before its details), by hand — only an accepted call is a
# success
CASES: list[tuple[str, dict[str, Any], str, dict[str, Any], str]] = [
    ("plain", {}, answer('{"content":[{"type":"text","text":"42"}]}'), {}, "success 42"),
    ("error_shaped", {}, answer('{"content":[{"type":"text","text":"Error: permission denied"}]}'), {},
     "error The tool call failed: the tools/call answer is normal_complete"),
    ("expectation_failed", {"annotations": READ_ONLY}, answer('{"content":[{"type":"text","text":"7"}]}'),
     {"trusted_server": True, "expect": wrong_count},
     "error The tool call failed: the tools/call answer is normal_complete"),
    ("tool_error", {}, answer('{"content":[{"type":"text","text":"declined"}],"isError":true}'), {},
     "error declined"),
]


@pytest.mark.parametrize(("name", "listed", "raw", "options", "expected"), CASES)
def test_the_model_is_handed_only_accepted_calls_as_success(name: str, listed: dict[str, Any], raw: str,
                                                            options: dict[str, Any], expected: str) -> None:
    async def scenario() -> str:
        tap = VerdictTap(name="langchain")
        executable, *args = command({name: {**listed, "raw": raw}})
        async with stdio_session(tap, executable, args) as session:
            tools = {t.name: t for t in await load_mcp_tools(session,
                                                             tool_interceptors=[VerdictInterceptor(tap, **options)])}
            message = await tools[name].ainvoke({"args": {}, "id": "call-1", "name": name, "type": "tool_call"})
        content = message.content[0]["text"] if isinstance(message.content, list) else message.content
        return f"{message.status} {str(content).split(' (')[0]}"

    assert anyio.run(scenario) == expected
