"""VerdictClient against the fault-injecting demo server, over real stdio and HTTP on loopback.

Every catalogue tool ends in the kind and action stated by hand (the catalogue's first
response, the retry after the input, the task's inlined result); a duplicated isError or a NaN
on the wire ends unclassified through the client exactly as through classify; timeouts, a
server that exits, malformed and oversized frames end in verdicts and decisions, never a hang;
every process is reaped.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, ElicitationRequest, Kind, Limits, Observe, SamplingRequest, classify
from mcp_verdict.client import ElicitAnswer, Handlers, VerdictClient
from mcp_verdict.demo import CATALOGUE_BY_NAME, serve_http, stdio_command

asked: list[str] = []


async def confirm(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    asked.append(request.message)
    return ElicitAnswer.accept({"confirm": True})


async def summarise(request: SamplingRequest) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m", "stopReason": "endTurn"}


HANDLERS = Handlers(form=confirm, sampling=summarise)


@asynccontextmanager
async def connect(transport: str, **options: Any) -> AsyncIterator[VerdictClient]:
    options.setdefault("timeout", 5)
    options.setdefault("connect_timeout", 20)  # a short call timeout must not fail a slow start
    if transport == "stdio":
        client = VerdictClient.stdio(stdio_command(), **options)
        async with client:
            yield client
        assert client.server_stderr.pid is not None
        with pytest.raises(ProcessLookupError):  # reaped: stdin closed, then terminate, then kill
            os.kill(client.server_stderr.pid, 0)
    else:
        async with serve_http() as url, VerdictClient.http(url, **options) as client:
            yield client


TRANSPORTS = ["stdio", "http"]

# tool → (final kind, final action after the content check, rounds), by hand from the catalogue's
# construction: input requests are fulfilled, the task is followed to its inlined result.
FINAL: dict[str, tuple[Kind, Action, int]] = {
    "get_forecast": (Kind.NORMAL_COMPLETE, Action.ACCEPT, 1),
    "charge_card": (Kind.TOOL_ERROR, Action.RETURN_TO_MODEL, 1),
    "add_integers": (Kind.PROTOCOL_ERROR, Action.FIX_REQUEST, 1),
    "confirm_delete": (Kind.NORMAL_COMPLETE, Action.ACCEPT, 2),
    "summarize_text": (Kind.NORMAL_COMPLETE, Action.ACCEPT, 2),
    "generate_report": (Kind.NORMAL_COMPLETE, Action.ACCEPT, 4),  # the call, then tasks/get ×3
    "count_open_tickets": (Kind.NORMAL_COMPLETE, Action.INVESTIGATE, 1),
    "string_is_error": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "missing_result_type": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "unknown_result_type": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "text_block_without_text": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "duplicate_is_error": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "nan_value": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "mismatched_id": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "malformed_json": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
    "invalid_utf8": (Kind.UNCLASSIFIED, Action.INVESTIGATE, 1),
}


def run(fn: Any, *args: Any) -> Any:
    return anyio.run(fn, *args)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_tool_ends_where_it_is_built_to(transport: str) -> None:
    async def scenario() -> dict[str, Any]:
        out = {}
        async with connect(transport, handlers=HANDLERS, tasks=True) as client:
            assert client.version == "2026-07-28"
            assert client.capabilities == {"elicitation": {"form": {}}, "sampling": {},
                                           "extensions": {"io.modelcontextprotocol/tasks": {}}}
            for name in FINAL:
                outcome = await client.call_tool(name, dict(CATALOGUE_BY_NAME[name].arguments))
                out[name] = (outcome, client.history[-1])
        return out

    results = run(scenario)
    for name, (kind, action, rounds) in FINAL.items():
        outcome, record = results[name]
        assert (outcome.verdict.kind, outcome.decision.action, len(record.rounds)) == (kind, action, rounds), (
            name, outcome.verdict.findings)
        expected = CATALOGUE_BY_NAME[name].expected
        assert record.rounds[0].verdict.kind is expected.kind, name
        if expected.finding:
            assert expected.finding in [f.code for f in outcome.verdict.findings], name


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_wire_decides_not_the_sdk(transport: str) -> None:
    """The same bytes give the same verdict through the client as through classify."""
    async def scenario() -> list[tuple[bytes, Any, Any]]:
        async with connect(transport) as client:
            out = []
            for name in ("duplicate_is_error", "nan_value", "string_is_error", "mismatched_id"):
                outcome = await client.call_tool(name, {})
                first = client.history[-1].rounds[0]
                assert first.response is not None
                out.append((first.response, outcome.verdict, first))
            return out

    for response, verdict, first in run(scenario):
        request_id = json.loads(first.request)["id"]
        direct = classify(response, version="2026-07-28", request_id=request_id, client_capabilities={})
        assert (verdict.kind, verdict.findings) == (direct.kind, direct.findings)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_mrtr_retry_carries_the_exact_state_with_a_new_id(transport: str) -> None:
    async def scenario() -> Any:
        async with connect(transport, handlers=HANDLERS) as client:
            await client.call_tool("confirm_delete", {"path": "/tmp/x"})
            return client.history[-1]

    record = run(scenario)
    first, retry = (json.loads(r.request) for r in record.rounds)
    state = record.rounds[0].verdict.request_state
    assert first["id"] != retry["id"]
    assert "requestState" not in first["params"] and "inputResponses" not in first["params"]
    assert retry["params"]["requestState"] == state
    assert retry["params"]["inputResponses"] == {"confirm_delete": {"action": "accept", "content": {"confirm": True}}}


def test_without_handlers_no_capability_is_declared_and_the_server_says_so() -> None:
    async def scenario() -> Any:
        async with connect("stdio") as client:
            assert client.capabilities == {}
            return await client.call_tool("confirm_delete", {"path": "/tmp/x"})

    outcome = run(scenario)
    assert (outcome.verdict.kind, outcome.verdict.error_code, outcome.decision.action) == (
        Kind.PROTOCOL_ERROR, -32021, Action.ADD_CAPABILITY)


def test_the_rounds_cap_ends_in_a_clear_verdict() -> None:
    async def scenario() -> Any:
        async with connect("stdio", handlers=HANDLERS, max_rounds=1) as client:
            return await client.call_tool("confirm_delete", {"path": "/tmp/x"})

    outcome = run(scenario)
    assert [f.code for f in outcome.verdict.findings] == ["transport.rounds"]
    assert outcome.decision.action is Action.INVESTIGATE


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_timeout_is_a_verdict_and_a_write_is_checked_not_resent(transport: str) -> None:
    async def scenario() -> Any:
        async with connect(transport, timeout=0.3) as client:
            with anyio.fail_after(5):  # (an answer 6 s late: 20 times the timeout, whatever the machine's load)
                outcome = await client.call_tool("slow_echo", {"text": "x", "seconds": 6})
            # the client is still usable after the timeout (given a timeout no loaded machine misses)
            client.timeout = 30.0
            after = await client.call_tool("get_forecast", {"city": "Porto"})
            return outcome, after

    outcome, after = run(scenario)
    assert [f.code for f in outcome.verdict.findings] == ["transport.timeout"]
    assert outcome.decision.action is Action.CHECK_STATE
    assert after.succeeded


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_server_that_hangs_up_is_a_verdict_not_a_hang(transport: str) -> None:
    async def scenario() -> Any:
        async with connect(transport) as client:
            with anyio.fail_after(10):
                return await client.call_tool("hang_up", {})

    outcome = run(scenario)
    assert [f.code for f in outcome.verdict.findings] == ["transport.closed"]
    assert outcome.decision.action is Action.CHECK_STATE


def test_an_oversized_frame_is_json_too_large() -> None:
    async def scenario() -> Any:
        async with connect("stdio", limits=Limits(max_bytes=300)) as client:
            return await client.call_tool("get_forecast", {"city": "Lisbon"})

    outcome = run(scenario)
    assert [f.code for f in outcome.verdict.findings] == ["json.too_large"]


def test_observing_a_write_through_the_read_tool() -> None:
    async def scenario() -> Any:
        async with connect("stdio") as client:
            created = await client.call_tool("create_note", {"text": "buy milk"})
            note = created.verdict.structured_content["id"]

            def visible(verdict: Any) -> bool | str:
                return verdict.structured_content.get("found") is True or "not yet"

            return await client.observe(created, Observe.tool_call("get_note", {"id": note}, until=visible,
                                                                        attempts=10, interval=0.05))

    outcome = run(scenario)
    assert (outcome.stage, outcome.succeeded) == ("completion_observed", True)
    assert outcome.observation is not None
    assert [a.passed for a in outcome.observation.attempts][-1] is True
    assert len(outcome.observation.attempts) >= 2  # the note is not visible on the first read


def test_a_task_can_be_cancelled() -> None:
    async def scenario() -> Any:
        async with connect("stdio") as client:  # tasks not opted in: the handle is not followed
            plain = await client.call_tool("generate_report", {"title": "Q4", "polls": 20})
        async with connect("stdio", tasks=True, task_timeout=0.5) as client:
            outcome = await client.call_tool("generate_report", {"title": "Q4", "polls": 20})
            handle = client.history[-1].rounds[0].verdict.task
            assert handle is not None
            cancelled = await client.cancel_task(handle.task_id)
            return plain, outcome, cancelled

    plain, outcome, cancelled = run(scenario)
    assert plain.verdict.kind is Kind.NORMAL_COMPLETE  # without the extension the server answers at once
    assert [f.code for f in outcome.verdict.findings] == ["transport.timeout"]  # still working after 0.5 s
    assert cancelled is True


def test_bad_client_options_are_the_callers_mistake() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        VerdictClient()
    with pytest.raises(ValueError, match="max_rounds"):
        VerdictClient.stdio(stdio_command(), max_rounds=0)


def test_task_rounds_show_what_each_round_was() -> None:
    async def scenario() -> Any:
        async with connect("stdio", tasks=True) as client:
            await client.call_tool("generate_report", {"title": "Q3", "polls": 2})
            return client.history[-1]

    record = run(scenario)
    # by hand: the call answers a task handle; tasks/get answers working twice, then completed
    assert [(r.method, r.kind, r.status) for r in record.rounds] == [
        ("tools/call", "task", None), ("tasks/get", "task", "working"), ("tasks/get", "task", "working"),
        ("tasks/get", "normal_complete", "completed")]
    assert all(r.response is not None and r.frames for r in record.rounds)
