"""Which failed calls a stack may run again: only those ``decide`` calls retry-safe (nothing ran,
a tool safe to repeat, a tool error or a refused request the model corrects). A call whose state
is unknown — the request was sent and the answer says neither success nor a clean refusal —
never reaches a stack as something it retries: pydantic-ai's ``ModelRetry`` makes the model call
the tool again, and the server runs it twice.

Real pydantic-ai ``Agent`` (a FunctionModel that calls the tool, and calls it again when asked to
retry) and the Agents SDK's strict server, on a crafted stdio server (``crafted_answers``) that
writes each answer byte for byte and counts how many times its tool ran."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mcp_verdict.integrations.openai_agents import StrictMCPServerStdio
from mcp_verdict.integrations.pydantic_ai import strict_toolset

from .crafted_answers import answer, command

READ_ONLY = {"readOnlyHint": True}
WORDS = {"success": "return", "retried": "ModelRetry", "failed": "failed return"}
DO_NOT_REPEAT = "Do not call it again"


def error(code: int, message: str = "failed", data: str = "") -> str:
    return '{"jsonrpc":"2.0","id":{id},"error":{"code":' + str(code) + ',"message":"' + message + '"' \
        + (',"data":' + data if data else "") + "}}"


# case → (the tool as listed, the answer's bytes, trusted_server,
#         what pydantic-ai's model was handed (in order), how many times the tool ran,
#         what the Agents SDK's strict server (max_retry_attempts=2) raised, how many times it ran); by hand
CASES: list[tuple[str, dict[str, Any], str, bool, str, int, str, int]] = [
    # the brief's probe: a server error after the call was sent: the tool may have run (investigate)
    ("server_error_-32000", {}, error(-32000), False, "failed return", 1, "investigate", 1),
    # -32603 after a write was sent: check_state (was already protected)
    ("internal_error_write", {}, error(-32603), False, "failed return", 1, "check_state", 1),
    # -32603 on a read-only tool of a trusted server: retry-safe, run again (the Agents server: 1 + 2
    # retries; the error it then raises says what to do now the retries are spent: investigate)
    ("internal_error_read_only", {"annotations": READ_ONLY}, error(-32603), True, "ModelRetry, ModelRetry", 2,
     "investigate", 3),
    # a tool error: back to the model to correct its arguments (pydantic-ai's own behaviour)
    ("tool_error", {}, answer('{"resultType":"complete","content":[{"type":"text","text":"no"}],"isError":true}'),
     False, "ModelRetry, ModelRetry", 2, "return_to_model", 1),
    # invalid params: the server refused the request, nothing ran; the model corrects it
    ("invalid_params", {}, error(-32602), False, "ModelRetry, ModelRetry", 2, "fix_request", 1),
    # -32042 on this 2026-07-28 session: retired (URL elicitation required is 2025-11-25's), it names
    # nothing to fulfil: investigate, and never a blanket retry
    ("url_elicitation", {}, error(-32042, data='{"elicitations":[]}'), False, "failed return", 1,
     "investigate", 1),
    # a client capability the server requires: the same call cannot succeed
    ("missing_capability", {}, error(-32021, data='{"requiredCapabilities":{"sampling":{}}}'), False,
     "failed return", 1, "add_capability", 1),
    # an answer that is no valid tools/call response (isError as a string)
    ("unclassified", {}, answer('{"resultType":"complete","content":[],"isError":"false"}'), False,
     "failed return", 1, "investigate", 1),
]


def caller(name: str) -> FunctionModel:
    """A model that calls ``name``, calls it again when asked to retry (once), then reports the
    outcomes of the tool returns it was handed and the last content."""
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns or (returns[-1].outcome == "retried" and len(returns) < 2):
            return ModelResponse(parts=[ToolCallPart(name, {})])
        seen = ", ".join(WORDS[str(p.outcome)] for p in returns)
        return ModelResponse(parts=[TextPart(f"{seen}|{returns[-1].content}")])

    return FunctionModel(respond)


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def runs(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.parametrize(("case", "listed", "raw", "trusted", "seen", "count"),
                         [case[:6] for case in CASES], ids=[case[0] for case in CASES])
def test_pydantic_ai_never_hands_the_model_a_retry_of_a_call_whose_state_is_unknown(
        case: str, listed: dict[str, Any], raw: str, trusted: bool, seen: str, count: int, tmp_path: Path) -> None:
    counter = tmp_path / "runs"

    async def scenario() -> str:
        executable, *args = command({"tool": {**listed, "raw": raw}}, runs=str(counter))
        toolset = strict_toolset(executable, args, trusted_server=trusted, max_retries=2)
        with anyio.fail_after(30):
            result = await Agent(caller("tool"), toolsets=[toolset]).run("go")
        return str(result.output)

    handed, _, content = run(scenario).partition("|")
    assert (handed, runs(counter)) == (seen, count)
    assert (DO_NOT_REPEAT in content) == (seen == "failed return"), content


@pytest.mark.parametrize(("case", "listed", "raw", "trusted", "action", "count"),
                         [(*case[:4], *case[6:]) for case in CASES], ids=[case[0] for case in CASES])
def test_the_agents_server_runs_a_call_again_only_when_decide_says_retry(
        case: str, listed: dict[str, Any], raw: str, trusted: bool, action: str, count: int, tmp_path: Path) -> None:
    counter = tmp_path / "runs"

    async def scenario() -> str:
        executable, *args = command({"tool": {**listed, "raw": raw}}, runs=str(counter))
        with anyio.fail_after(30):
            async with StrictMCPServerStdio({"command": executable, "args": args}, max_retry_attempts=2,
                                            trusted_server=trusted) as server:
                server.retry_backoff_seconds_base = 0
                try:
                    await server.list_tools()
                    await server.call_tool("tool", {})
                except Exception as exc:
                    decision = getattr(exc, "decision", None)
                    return decision.action.value if decision is not None else type(exc).__name__
        return "success"

    assert (run(scenario), runs(counter)) == (action, count)
