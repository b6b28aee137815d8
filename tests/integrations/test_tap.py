"""The tap under the official SDK 2.x: the demo server over stdio and HTTP, server-everything.

Every case is a real call through ``mcp.Client`` or ``ClientSession`` whose transport is the
tap's; the expected kinds, findings and actions are written by hand (``peers.DEMO_CASES``).
What the SDK itself returned is asserted beside, to show what the application would have
believed. The mcp 1.x side of the same contract is ``mcp1/test_tap_mcp1.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import Kind, VerdictError, VerdictTap, demo
from mcp_verdict.frames import FrameRecord, read, schema

from .peers import DEMO_CASES, DEMO_STDIO, everything_http, everything_stdio
from .readme_table import CASES, cell, check_row

Factory = Callable[[VerdictTap], Any]


@asynccontextmanager
async def demo_client(tap: VerdictTap, transport: str, **options: Any) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with Client(tap.stdio_transport(DEMO_STDIO[0], DEMO_STDIO[1:]), **options) as client:
            yield client
        return
    async with demo.serve_http() as url, tap.http_client() as http, \
            Client(streamable_http_client(url, http_client=http), **options) as client:
        yield client


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_demo_outcome_through_the_sdk_client(transport: str) -> None:
    async def scenario() -> list[Any]:
        tap = VerdictTap()
        async with demo_client(tap, transport) as client:
            return [await tap.call_tool(client, name, args, call_options={"read_timeout_seconds": 10})
                    for name, args, *_ in DEMO_CASES]

    for outcome, (name, _, kind, why, action) in zip(run(scenario), DEMO_CASES, strict=True):
        verdict = outcome.verdict
        assert (verdict.kind.value, outcome.decision.action.value) == (kind, action), (name, verdict.findings)
        if isinstance(why, int):
            assert verdict.error_code == why
        elif why is not None:
            assert why in [f.code for f in verdict.errors], (name, verdict.findings)
        assert verdict.version == "2026-07-28"
        assert outcome.succeeded is (action == "accept")


def test_the_sdk_alone_takes_the_malformed_answers_as_success() -> None:
    """What the application sees without the tap: the SDK's lenient parse (the before column)."""
    async def scenario() -> dict[str, Any]:
        tap = VerdictTap()
        seen = {}
        async with demo_client(tap, "stdio") as client:
            for name in ("string_is_error", "duplicate_is_error", "unknown_result_type", "charge_card"):
                result = await client.call_tool(name, {"amount_cents": 5} if name == "charge_card" else {})
                seen[name] = result.is_error
        return seen

    assert run(scenario) == {"string_is_error": False, "duplicate_is_error": False, "unknown_result_type": False,
                             "charge_card": True}


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_context_form_judges_what_the_code_calls_itself(transport: str) -> None:
    async def scenario() -> tuple[Any, Any, str]:
        tap = VerdictTap()
        async with demo_client(tap, transport) as client:
            async with tap.judging(client) as judged:
                result = await client.call_tool("string_is_error", {})
            with pytest.raises(VerdictError) as raised:
                judged.check()
            async with tap.judging(client) as fine:
                await client.call_tool("get_forecast", {"city": "Porto"})
            return result, raised.value, fine.check().decision.action.value

    result, error, action = run(scenario)
    assert result.is_error is False  # the SDK's view
    assert error.verdict.kind is Kind.UNCLASSIFIED and error.decision.action.value == "investigate"
    assert error.outcome.verdict is error.verdict
    assert "result.is_error" in str(error)
    assert action == "accept"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_fifty_concurrent_calls_answered_out_of_order(transport: str) -> None:
    count = 50

    async def scenario() -> tuple[dict[int, Any], list[str]]:
        tap = VerdictTap()
        outcomes: dict[int, Any] = {}
        async with demo_client(tap, transport) as client:
            async def one(i: int) -> None:  # the first sent answers last
                outcomes[i] = await tap.call_tool(client, "slow_echo",
                                                  {"text": f"call {i}", "seconds": (count - i) * 0.2})

            async with anyio.create_task_group() as group:
                for i in range(count):
                    group.start_soon(one, i)
                    await anyio.sleep(0)
        order = [call.outcome.verdict.structured_content["text"] for call in tap.history]
        return outcomes, order

    outcomes, order = run(scenario)
    assert sorted(outcomes) == list(range(count))
    for i, outcome in outcomes.items():
        assert outcome.succeeded and outcome.verdict.structured_content["text"] == f"call {i}"
    # judged as the answers came, not as the calls were sent: the last sent (0.2 s) long before the
    # first (10 s), 5 s apart from the middle one — the ranks of neighbours are left to the scheduler
    # of a loaded machine (at 0.5 s apart, a fresh clone's run once saw call 0 judged before call 25;
    # at 1 s apart, a machine at load 11 saw call 0 judged 8th, call 25 46th: sending 50 requests
    # over HTTP took it more than a second)
    assert sorted(order) == sorted(f"call {i}" for i in range(count))
    assert order.index("call 49") < order.index("call 25") < order.index("call 0")


def test_two_sessions_on_one_tap_are_told_apart() -> None:
    """Sessions the application built over two of the tap's HTTP clients, calling at once with the
    same ids: each call gets the verdict of its own connection's answer."""
    async def scenario() -> tuple[list[Any], list[Any]]:
        tap = VerdictTap()
        async with demo.serve_http() as url, tap.http_client() as one, tap.http_client() as two, \
                Client(streamable_http_client(url, http_client=one)) as a, \
                Client(streamable_http_client(url, http_client=two)) as b:
            results: dict[str, list[Any]] = {"a": [], "b": []}

            async def calls(label: str, client: Client, tools: list[str]) -> None:
                for name in tools:
                    results[label].append(await tap.call_tool(client, name, {"text": label, "seconds": 0.01}
                                                              if name == "slow_echo" else {}))

            async with anyio.create_task_group() as group:
                group.start_soon(calls, "a", a, ["slow_echo", "string_is_error", "slow_echo"])
                group.start_soon(calls, "b", b, ["string_is_error", "slow_echo", "duplicate_is_error"])
        return results["a"], results["b"]

    a, b = run(scenario)
    assert [o.verdict.kind.value for o in a] == ["normal_complete", "unclassified", "normal_complete"]
    assert [o.verdict.kind.value for o in b] == ["unclassified", "normal_complete", "unclassified"]
    assert a[0].verdict.structured_content["text"] == "a" and b[1].verdict.structured_content["text"] == "b"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_write_that_times_out_after_it_was_sent_runs_once_and_is_never_retried(transport: str) -> None:
    async def scenario() -> tuple[Any, Any]:
        tap = VerdictTap()
        async with demo_client(tap, transport) as client:
            late = await tap.call_tool(client, "slow_write", {"key": f"tap-{transport}", "seconds": 6},
                                       call_options={"read_timeout_seconds": 0.3})  # 20 times the timeout
            count = await tap.call_tool(client, "write_count", {"key": f"tap-{transport}"})
        return late, count

    late, count = run(scenario)
    assert late.verdict.kind is Kind.UNCLASSIFIED
    assert [f.code for f in late.verdict.findings] == ["transport.timeout"]
    assert late.request_sent and late.decision.action.value == "check_state"  # never a blind retry
    assert count.verdict.structured_content == {"key": f"tap-{transport}", "executions": 1}


def test_a_server_that_hangs_up_mid_call() -> None:
    async def scenario() -> tuple[Any, BaseException | None]:
        tap = VerdictTap()
        async with demo_client(tap, "stdio") as client:
            outcome = await tap.call_tool(client, "hang_up", {}, call_options={"read_timeout_seconds": 10})
            try:
                await tap.call_tool(client, "get_forecast", {"city": "Faro"})
            except Exception as exc:  # nothing reached the wire: the SDK's own error, as it is
                return outcome, exc
        return outcome, None

    outcome, later = run(scenario)
    assert [f.code for f in outcome.verdict.findings] == ["transport.closed"]
    assert outcome.request_sent and outcome.decision.action.value == "check_state"
    assert later is not None and not isinstance(later, VerdictError)


def test_input_required_driven_by_the_sdk_is_judged_round_by_round() -> None:
    async def answer(context: Any, params: Any) -> Any:
        import mcp_types

        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    async def scenario() -> tuple[Any, list[str]]:
        tap = VerdictTap()
        async with demo_client(tap, "stdio", elicitation_callback=answer) as client, \
                tap.judging(client) as judged:
            await client.call_tool("confirm_delete", {"path": "/tmp/x"})
        return judged.outcome, [call.verdict.kind.value for call in judged.calls]

    outcome, rounds = run(scenario)
    assert rounds == ["input_required", "normal_complete"]
    assert outcome.succeeded and outcome.verdict.structured_content["deleted"] is True


def test_the_frame_log_records_every_frame_with_its_exact_bytes(tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"

    async def scenario() -> None:
        with VerdictTap(frame_log=log) as tap:
            async with demo_client(tap, "stdio") as client:
                await tap.call_tool(client, "invalid_utf8", {})
                await tap.call_tool(client, "duplicate_is_error", {})

    run(scenario)
    with log.open("rb") as handle:
        records = list(read(handle))
    assert all(isinstance(r, FrameRecord) for r in records)
    validator = Draft202012Validator(schema())
    assert all(validator.is_valid(orjson.loads(line)) for line in log.read_bytes().splitlines())
    frames = [r for r in records if isinstance(r, FrameRecord)]
    assert frames[0].kind == "open" and frames[-1].kind == "close"
    assert [r.seq for r in frames] == list(range(len(frames)))
    answers = [r.data for r in frames if r.kind == "message" and r.dir == "s2c" and r.data and b'"result"' in r.data]
    assert any(b"caf\xe9" in a for a in answers)  # not UTF-8: kept as it came (base64 in the log)
    assert any(b'"isError":true,"isError":false' in a for a in answers)


def test_server_everything_over_stdio_and_http() -> None:
    async def calls(tap: VerdictTap, client: Client) -> list[Any]:
        return [await tap.call_tool(client, "echo", {"message": "hi"}),
                await tap.call_tool(client, "get-sum", {"a": 2, "b": 40}),
                await tap.call_tool(client, "nope", {})]

    async def scenario() -> tuple[list[Any], list[Any]]:
        tap = VerdictTap()
        command = everything_stdio()
        async with Client(tap.stdio_transport(command[0], command[1:])) as client:
            over_stdio = await calls(tap, client)
        with everything_http() as url:
            async with tap.http_client() as http, Client(streamable_http_client(url, http_client=http)) as client:
                over_http = await calls(tap, client)
        return over_stdio, over_http

    for outcomes in run(scenario):
        assert [(o.verdict.kind.value, o.decision.action.value) for o in outcomes] == [
            ("normal_complete", "accept"), ("normal_complete", "accept"), ("tool_error", "return_to_model")]
        assert outcomes[0].verdict.version == "2025-11-25"  # the version in force, read from the wire
        assert "42" in outcomes[1].verdict.text


def test_a_plain_client_session_over_the_tap() -> None:
    async def scenario() -> Any:
        tap = VerdictTap()
        async with tap.stdio_transport(DEMO_STDIO[0], DEMO_STDIO[1:]) as (read_stream, write_stream), \
                ClientSession(read_stream, write_stream) as session:
            await session.initialize()
            return await tap.call_tool(session, "duplicate_is_error", {})

    outcome = run(scenario)
    assert outcome.verdict.kind is Kind.UNCLASSIFIED
    assert "json.duplicate_key" in [f.code for f in outcome.verdict.errors]


def test_the_official_sdk_row_of_the_readme_table() -> None:
    """Before: what ``Client.call_tool`` returns; after: the tap's outcome for the same call."""
    async def scenario() -> tuple[list[str], list[str]]:
        tap = VerdictTap()
        before, after = [], []
        async with demo_client(tap, "stdio") as client:
            for name in CASES:
                arguments = {"amount_cents": 5} if name == "charge_card" else {}
                async with tap.judging(client) as judged:
                    result = await client.call_tool(name, arguments)
                before.append("is_error=True" if result.is_error else "success")
                after.append(f"{judged.verdict.kind.value} ({judged.outcome.decision.action.value})")
            async with tap.judging(client) as judged:
                try:
                    await client.call_tool("slow_write", {"key": "sdk-row", "seconds": 6}, read_timeout_seconds=0.3)
                except Exception as exc:
                    before.append(f"1 run, {type(exc).__name__}")
            after.append(f"1 run, {judged.verdict.kind.value} ({judged.outcome.decision.action.value})")
        return before, after

    before, after = run(scenario)
    check_row("official SDK `ClientSession`/`Client`", [cell(b, a) for b, a in zip(before, after, strict=True)])
