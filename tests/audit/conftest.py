"""Recorded logs for the audit tests: real clients talking to real servers through the
recording relay (``recorder.py``), each recorded once per test session."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict.demo import CATALOGUE, stdio_command

from ..interop.conftest import EVERYTHING, NODE, need

SDK_SERVER = [sys.executable, "-m", "tests.servers.sdk_server"]


def relayed(log: Path, conn: str, command: Sequence[str]) -> list[str]:
    """``command`` started through the recording relay, logging to ``log`` as connection ``conn``."""
    return [sys.executable, "-m", "tests.audit.recorder", str(log), conn, "--", *command]


async def _demo_sessions(log: Path) -> None:
    from mcp_verdict.cli._demo import HANDLERS, _run_tools
    from mcp_verdict.client import VerdictClient

    regular = [t for t in CATALOGUE if t.name not in ("hang_up", "get_note")]
    async with VerdictClient.stdio(relayed(log, "demo-1", stdio_command()), handlers=HANDLERS, tasks=True,
                                   timeout=5) as client:
        await _run_tools(client, regular)
    async with VerdictClient.stdio(relayed(log, "demo-2", stdio_command()), timeout=5) as client:
        await client.call_tool("hang_up", {})


@pytest.fixture(scope="session")
def demo_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every demo tool through VerdictClient over stdio (conn demo-1), then hang_up (demo-2)."""
    log = tmp_path_factory.mktemp("demo") / "frames.jsonl"
    anyio.run(_demo_sessions, log)
    return log


async def _calls(command: list[str], calls: Sequence[tuple[str, dict[str, Any]]], **options: Any) -> None:
    from mcp_verdict.client import VerdictClient

    async with VerdictClient.stdio(command, timeout=20, **options) as client:
        await client.list_tools()
        for name, arguments in calls:
            await client.call_tool(name, arguments)


@pytest.fixture(scope="session")
def everything_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """server-everything (npm, 2025-11-25, elicitation and sampling as server requests) over stdio."""
    from ..interop.test_real_servers import EVERYTHING_CASES, HANDLERS

    node = need(NODE, "npm's node@22")
    server = need(EVERYTHING, "@modelcontextprotocol/server-everything")
    log = tmp_path_factory.mktemp("everything") / "frames.jsonl"
    calls = [(name, args) for name, args, *_ in EVERYTHING_CASES] + [("trigger-elicitation-request", {})]
    anyio.run(lambda: _calls(relayed(log, "everything", [str(node), str(server), "stdio"]), calls,
                             handlers=HANDLERS))
    return log


@pytest.fixture(scope="session")
def sdk_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official SDK's MCPServer (tests/servers/sdk_server.py) over stdio."""
    from ..interop.test_real_servers import HANDLERS, SDK_CASES

    log = tmp_path_factory.mktemp("sdk") / "frames.jsonl"
    anyio.run(lambda: _calls(relayed(log, "sdk", SDK_SERVER), [(n, a) for n, a, *_ in SDK_CASES],
                             handlers=HANDLERS))
    return log
