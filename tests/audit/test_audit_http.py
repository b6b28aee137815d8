"""The audit of Streamable HTTP recorded by an httpx2 transport hook (tests/audit/http_recorder.py)
around the official SDK's Client: the demo server (in process, on 127.0.0.1) and the SDK's
MCPServer (a subprocess on 127.0.0.1). The SDK client takes isError "false", a duplicated isError
and NaN as success; the audit of the same bytes does not."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict.demo import CATALOGUE_BY_NAME, serve_http

from .conftest import SDK_SERVER
from .recorder import Recorder
from .test_audit_recorded import expected, run

DEMO_CALLS: list[tuple[str, dict[str, Any]]] = [(name, dict(CATALOGUE_BY_NAME[name].arguments)) for name in (
    "get_forecast", "charge_card", "add_integers", "string_is_error", "duplicate_is_error", "nan_value",
    "count_open_tickets", "unknown_result_type")]
SDK_CALLS: list[tuple[str, dict[str, Any]]] = [("add", {"a": 2, "b": 3}), ("explode", {"reason": "disk full"})]
ROOT = Path(__file__).resolve().parents[2]


async def _record(recorder: Recorder, url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from .http_recorder import RecordingTransport

    seen = []
    async with httpx2.AsyncClient(transport=RecordingTransport(recorder)) as http, Client(
            streamable_http_client(url, http_client=http)) as client:
        await client.list_tools()
        for name, arguments in calls:
            try:
                result = await client.call_tool(name, arguments)
                seen.append("error" if result.is_error else "success")
            except Exception as exc:  # the SDK raises for JSON-RPC errors and what it cannot parse
                seen.append(type(exc).__name__)
    return seen


@pytest.fixture(scope="module")
def http_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    log = tmp_path_factory.mktemp("http") / "frames.jsonl"

    async def demo() -> list[str]:
        async with serve_http() as url:
            return await _record(Recorder(str(log), "demo-http"), url, DEMO_CALLS)

    sdk_view = anyio.run(demo)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([*SDK_SERVER, "http", str(port)], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        anyio.run(_record, Recorder(str(log), "sdk-http"), f"http://127.0.0.1:{port}/mcp", SDK_CALLS)
    finally:
        process.terminate()
        process.wait(timeout=10)
    return log, sdk_view


def test_demo_calls_over_http_are_judged_as_the_catalogue_says(http_log: tuple[Path, list[str]]) -> None:
    log, sdk_view = http_log
    rows, problems, totals = run([log])
    demo = [r for r in rows if r.conn == "demo-http"]
    assert [r.tool for r in demo] == [name for name, _ in DEMO_CALLS]
    for row in demo:
        assert (row.kind, row.action, row.naive, row.naive_false_success) == expected(row.tool or ""), row.tool
        assert row.transport == "http" and row.server == "mcp-verdict-demo"
    # what the SDK client itself concluded from the same answers: success where the audit says unclassified
    view = dict(zip([n for n, _ in DEMO_CALLS], sdk_view, strict=True))
    assert [view[n] for n in ("string_is_error", "duplicate_is_error", "nan_value", "unknown_result_type")] == [
        "success"] * 4
    assert problems == [] and totals.lines == sum(1 for _ in log.open("rb"))


def test_the_sdk_server_over_http(http_log: tuple[Path, list[str]]) -> None:
    rows, _, _ = run([http_log[0]])
    sdk = {r.tool: r for r in rows if r.conn == "sdk-http"}
    assert (sdk["add"].kind, sdk["add"].action, sdk["add"].content_checked) == ("normal_complete", "accept", True)
    assert (sdk["explode"].kind, sdk["explode"].action) == ("tool_error", "return_to_model")
    assert all(r.transport == "http" for r in sdk.values())
