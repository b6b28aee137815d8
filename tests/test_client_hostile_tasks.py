"""VerdictClient against servers whose tasks and input requests are hostile or broken, over real
stdio (tests/servers/hostile_tasks.py, tests/servers/misbehaving.py): each call ends in the
verdict and decision written here by hand, never an exception, a hang, or a decision to follow
up something the call already ended.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, ElicitationRequest, Kind
from mcp_verdict.client import ElicitAnswer, HandlerError, Handlers, VerdictClient

HOSTILE_TASKS = [sys.executable, "-m", "tests.servers.hostile_tasks"]


async def roots() -> list[dict[str, Any]]:
    return [{"uri": "file:///tmp", "name": "tmp"}]


async def form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    return ElicitAnswer.accept({"a": "x"})


def call(command: list[str], tool: str, **options: Any) -> tuple[Any, Any]:
    async def scenario() -> tuple[Any, Any]:
        async with VerdictClient.stdio(command, timeout=10, connect_timeout=20, **options) as client:
            with anyio.fail_after(30):
                outcome = await client.call_tool(tool, {})
            return outcome, client.history[-1]

    return anyio.run(scenario)


# The tasks extension (ext-tasks, specification/2026-07-28/tasks.md, Task Status): "completed: the
# request completed successfully and results are available in the result field" — the original
# request's result (a CallToolResult for tools/call). A task handle or an input request inlined
# there is no final result, and the call has ended: nothing would poll it or answer it.
# tool, handlers → (kind, first finding, action, the rounds' (method, kind, status))
COMPLETED: list[tuple[str, Handlers, Kind, str | None, Action, list[tuple[str, str, str | None]]]] = [
    ("completed_task", Handlers(), Kind.UNCLASSIFIED, "task.field", Action.INVESTIGATE,
     [("tools/call", "task", None), ("tasks/get", "unclassified", "completed")]),
    ("completed_input", Handlers(roots=roots), Kind.UNCLASSIFIED, "task.field", Action.INVESTIGATE,
     [("tools/call", "task", None), ("tasks/get", "unclassified", "completed")]),
    # undeclared roots: refused as classify refuses any input request for them
    ("completed_input", Handlers(), Kind.UNCLASSIFIED, "input.capability", Action.INVESTIGATE,
     [("tools/call", "task", None), ("tasks/get", "unclassified", "completed")]),
    ("completed_plain", Handlers(), Kind.NORMAL_COMPLETE, None, Action.ACCEPT,
     [("tools/call", "task", None), ("tasks/get", "normal_complete", "completed")]),
]


@pytest.mark.parametrize(("tool", "handlers", "kind", "code", "action", "rounds"), COMPLETED,
                         ids=["task_in_completed", "input_in_completed", "input_undeclared", "plain"])
def test_a_completed_task_ends_in_its_final_result_or_unclassified(
        tool: str, handlers: Handlers, kind: Kind, code: str | None, action: Action,
        rounds: list[tuple[str, str, str | None]]) -> None:
    outcome, record = call(HOSTILE_TASKS, tool, tasks=True, handlers=handlers)
    assert outcome.verdict.kind is kind
    assert [f.code for f in outcome.verdict.findings][:1] == ([code] if code else [])
    assert outcome.decision.action is action
    assert [(r.method, r.kind, r.status) for r in record.rounds] == rounds


def test_a_task_id_the_server_did_not_give_is_named_cut() -> None:
    """tasks/get answering another task (100,000 characters of id): task.field, the id quoted
    cut as every peer string in a message is, not written in full."""
    outcome, _ = call(HOSTILE_TASKS, "long_id", tasks=True)
    assert [(f.code, f.message) for f in outcome.verdict.findings] == [
        ("task.field", "tasks/get answered taskId '" + "X" * 76 + "... with status 'working'")]
    assert outcome.decision.action is Action.INVESTIGATE


def test_a_task_polled_without_end_keeps_its_first_and_latest_polls() -> None:
    """A task that stays ``working`` with ``pollIntervalMs: 0`` is polled every 10 ms until
    ``task_timeout``: the call's record keeps the first poll and the latest 99, the others
    counted (``polls_shed``). Before, every poll was kept, each with its bytes: a 1 MB status
    message held 474 MB after 8 s, ~6 GB at the default 120 s."""
    outcome, record = call(HOSTILE_TASKS, "poll_zero", tasks=True, task_timeout=5)
    assert [f.code for f in outcome.verdict.findings] == ["transport.timeout"]
    assert outcome.decision.action is Action.CHECK_STATE
    assert [(r.method, r.status) for r in record.rounds] == [("tools/call", None)] + [("tasks/get", "working")] * 100
    assert record.polls_shed > 0
    first, second = record.rounds[1], record.rounds[2]
    assert second.started_at - first.finished_at >= 0.01 * record.polls_shed  # the polls shed were between them


def test_a_poll_interval_past_the_deadline_is_polled_at_the_deadline() -> None:
    """A handle asking to be polled in an hour, with ``task_timeout`` 2 s: the task is polled
    once at the deadline (it completed) rather than given up at once. Before, the call ended
    ``transport.timeout`` without a single poll ("did not finish within 2 s")."""
    outcome, record = call(HOSTILE_TASKS, "poll_hour", tasks=True, task_timeout=2)
    assert (outcome.verdict.kind, outcome.verdict.text, outcome.decision.action) == (
        Kind.NORMAL_COMPLETE, "done", Action.ACCEPT)
    assert [(r.method, r.status) for r in record.rounds] == [("tools/call", None), ("tasks/get", "completed")]


def misbehaving(mode: str) -> list[str]:
    return [sys.executable, "-m", "tests.servers.misbehaving", "stdio", mode]


async def sample(request: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m", "stopReason": "endTurn"}


async def consent(request: Any) -> bool:
    return True


FORM_ONLY = Handlers(form=form)
URL_ONLY = Handlers(url=consent)
ALL = Handlers(form=form, url=consent, sampling=sample, roots=roots)
DONE = 'result {"action": "accept", "content": {"a": "x"}}'
# A 2025 server asks with server-to-client requests; the README: "2025 servers, which ask with
# server-to-client requests, reach the same handlers" as a 2026-07-28 input request, which
# classify checks first. A request for a capability the client did not declare (2025-11-25
# client/elicitation#capabilities: servers MUST NOT send a url-mode request to a client that
# does not declare it; client/sampling: nor a request with tools without sampling.tools), or
# with a requestedSchema outside the restricted subset
# (client/elicitation#requested-schema), is refused to the server with -32602 (JSON-RPC:
# invalid params), never handed to a handler, and the call's verdict is unclassified with the
# finding — not a HandlerError raised out of call_tool ("no URL consent handler"), not a handler
# asked three times to fill a form no answer can pass.
# A request malformed for its method (2025-11-25 schema: ElicitRequestFormParams requires a
# message and a requestedSchema of type "object"; CreateMessageRequestParams requires maxTokens;
# ElicitRequestURLParams' elicitationId is a string) is checked from its params as they came,
# before the SDK reads them: the SDK's models refused these with a -32602 of their own, no check
# and no handler saw them, and the call ended normal_complete. Each is judged by the rules of the
# session's version (here 2025-11-25: elicitationId a string); one only the SDK's models refuse
# is input.params, saying so.
# mode, handlers → (kind, codes, action, what the server heard)
ASKED: list[tuple[str, Handlers, Kind, list[str], Action, str]] = [
    ("elicit_url", FORM_ONLY, Kind.UNCLASSIFIED, ["input.capability"], Action.INVESTIGATE, "error -32602"),
    ("elicit_ref", FORM_ONLY, Kind.UNCLASSIFIED, ["elicitation.property"], Action.INVESTIGATE, "error -32602"),
    ("sample_tools", Handlers(sampling=sample), Kind.UNCLASSIFIED, ["input.capability"], Action.INVESTIGATE,
     "error -32602"),
    ("elicit_array", FORM_ONLY, Kind.UNCLASSIFIED, ["elicitation.schema", "elicitation.schema"], Action.INVESTIGATE,
     "error -32602"),
    ("elicit_no_message", FORM_ONLY, Kind.UNCLASSIFIED, ["input.params"], Action.INVESTIGATE, "error -32602"),
    ("sample_no_tokens", Handlers(sampling=sample), Kind.UNCLASSIFIED, ["input.params"], Action.INVESTIGATE,
     "error -32602"),
    ("elicit_url_id", URL_ONLY, Kind.UNCLASSIFIED, ["input.params"], Action.INVESTIGATE, "error -32602"),
    # no handler, so no capability declared: servers MUST NOT ask (the SDK's own "not supported"
    # answer, -32600, left the call normal_complete)
    ("elicit_form", Handlers(), Kind.UNCLASSIFIED, ["input.capability"], Action.INVESTIGATE, "error -32602"),
    ("sample", Handlers(), Kind.UNCLASSIFIED, ["input.capability"], Action.INVESTIGATE, "error -32602"),
    ("roots", Handlers(), Kind.UNCLASSIFIED, ["input.capability"], Action.INVESTIGATE, "error -32602"),
    # well-formed requests of declared capabilities reach the handlers, as before
    ("elicit_form", FORM_ONLY, Kind.NORMAL_COMPLETE, [], Action.ACCEPT, DONE),
    ("elicit_form", ALL, Kind.NORMAL_COMPLETE, [], Action.ACCEPT, DONE),
    ("sample", Handlers(sampling=sample), Kind.NORMAL_COMPLETE, [], Action.ACCEPT,
     'result {"content": {"text": "hello", "type": "text"}, "model": "m", "role": "assistant", '
     '"stopReason": "endTurn"}'),
    ("roots", Handlers(roots=roots), Kind.NORMAL_COMPLETE, [], Action.ACCEPT,
     'result {"roots": [{"name": "tmp", "uri": "file:///tmp"}]}'),
]


@pytest.mark.parametrize(("mode", "handlers", "kind", "codes", "action", "heard"), ASKED,
                         ids=[f"{case[0]}-{number}" for number, case in enumerate(ASKED)])
def test_a_2025_servers_request_is_checked_before_any_handler(
        mode: str, handlers: Handlers, kind: Kind, codes: list[str], action: Action, heard: str) -> None:
    outcome, record = call(misbehaving(mode), "t", handlers=handlers)
    assert outcome.verdict.kind is kind, outcome.verdict.findings
    assert [f.code for f in outcome.verdict.findings] == codes
    assert outcome.decision.action is action
    answer = record.rounds[-1].response
    assert answer is not None and json.loads(answer)["result"]["content"][0]["text"] == heard


# The same requests judged by the rules of the session's version (the server's initialize names
# it: MODE@VERSION), each version's schema.json: before, every one was judged by 2026-07-28's.
# - 2025-06-18's StringSchema defines no default (an open member): the request is valid and
#   reaches the handler (it was refused as elicitation.property); 2025-11-25's is a string.
# - 2025-06-18's ElicitRequest has form mode alone (params: message and requestedSchema
#   required): a url-mode request is malformed (it reached the url handler, as the SDK's
#   models read it).
# - 2025-06-18's SamplingMessage content is one block (it passed as an array); 2025-11-25's
#   may be an array.
# - 2025-11-25's CreateMessageRequestParams._meta.progressToken is a string or an integer (it
#   passed: 2026-07-28 defines no _meta there, and the SDK's model lets true through).
# - 2025-06-18 defines no toolChoice (an open member): ours passes it; the SDK's model cannot
#   read it (it was sampling.tool_choice, by 2026-07-28's rules).
SAMPLED = 'result {"content": {"text": "hello", "type": "text"}, "model": "m", "role": "assistant", ' \
    '"stopReason": "endTurn"}'
VERSIONED: list[tuple[str, Handlers, Kind, list[str], str]] = [
    ("elicit_string_default@2025-06-18", FORM_ONLY, Kind.NORMAL_COMPLETE, [], DONE),
    ("elicit_string_default@2025-11-25", FORM_ONLY, Kind.UNCLASSIFIED, ["elicitation.property"], "error -32602"),
    ("elicit_url_plain@2025-06-18", ALL, Kind.UNCLASSIFIED, ["input.params"], "error -32602"),
    ("elicit_url_plain@2025-11-25", ALL, Kind.NORMAL_COMPLETE, [], 'result {"action": "accept"}'),
    ("sample_array@2025-06-18", ALL, Kind.UNCLASSIFIED, ["sampling.message"], "error -32602"),
    ("sample_array@2025-11-25", ALL, Kind.NORMAL_COMPLETE, [], SAMPLED),
    ("sample_token@2025-11-25", ALL, Kind.UNCLASSIFIED, ["input.params"], "error -32602"),
    ("sample_token@2025-06-18", ALL, Kind.NORMAL_COMPLETE, [], SAMPLED),
    ("sample_choice@2025-06-18", ALL, Kind.UNCLASSIFIED, ["input.params"], "error -32602"),
]


@pytest.mark.parametrize(("mode", "handlers", "kind", "codes", "heard"), VERSIONED, ids=[c[0] for c in VERSIONED])
def test_a_2025_servers_request_is_checked_by_its_sessions_version(
        mode: str, handlers: Handlers, kind: Kind, codes: list[str], heard: str) -> None:
    outcome, record = call(misbehaving(mode), "t", handlers=handlers)
    assert outcome.verdict.version == mode.partition("@")[2]
    assert (outcome.verdict.kind, [f.code for f in outcome.verdict.findings]) == (kind, codes), \
        outcome.verdict.findings
    answer = record.rounds[-1].response
    assert answer is not None and json.loads(answer)["result"]["content"][0]["text"] == heard


def test_a_request_the_versions_rules_refuse_is_named_so() -> None:
    """elicitationId 5 (2025-11-25 ElicitRequestURLParams: a string): the finding is ours, by
    2025-11-25's rules, and says where (before, 2026-07-28's rules, which define no
    elicitationId, let it through and only the SDK's model refused it)."""
    outcome, _ = call(misbehaving("elicit_url_id"), "t", handlers=URL_ONLY)
    assert [(f.code, f.message) for f in outcome.verdict.findings] == [
        ("input.params", "the server's elicitation/create request (at /params/elicitationId): elicitationId is the "
                         "integer 5; 2025-11-25 requires a string")]


def test_a_request_only_the_sdks_models_refuse_is_named_so() -> None:
    """toolChoice 5 on 2025-06-18, which defines no toolChoice (an open member, so our rules pass
    it): the finding says the SDK's model refuses it, and where (the SDK's own path)."""
    outcome, _ = call(misbehaving("sample_choice@2025-06-18"), "t", handlers=ALL)
    assert [(f.code, f.message) for f in outcome.verdict.findings] == [
        ("input.params", "the server's sampling/createMessage request: the SDK's model of sampling/createMessage "
                         "refuses it (params.toolChoice: Input should be a valid dictionary or instance of "
                         "ToolChoice)")]


def test_a_handlers_answer_the_sdk_cannot_send_is_a_handler_error() -> None:
    """A sampling handler's answer that is no CreateMessageResult (2025-11-25 client/sampling): a
    HandlerError out of call_tool, the server told -32603 (internal error) — before, the SDK's
    model refused it and told the server -32602, as if its request were invalid, and the call
    ended normal_complete."""
    async def bad(request: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "bogus"}, "model": "m"}

    async def scenario() -> str:
        async with VerdictClient.stdio(misbehaving("sample"), handlers=Handlers(sampling=bad), timeout=10) as client:
            with anyio.fail_after(30), pytest.raises(HandlerError) as raised:
                await client.call_tool("t", {})
            answer = client.history[-1].rounds[-1].response
            assert answer is not None and json.loads(answer)["result"]["content"][0]["text"] == "error -32603"
            return str(raised.value)

    assert anyio.run(scenario) == ("the sampling/createMessage handler's answer is no CreateMessageResult the SDK can "
                                   "send (content.TextContent.type: Input should be 'text')")
