"""More real servers, over every transport each offers, started here on 127.0.0.1:

- @modelcontextprotocol/server-everything over Streamable HTTP (its SSE streams carry the
  2025-11-25 priming event: an id and empty data), and its task tool (taskSupport "required")
  with task-augmented calls on 2025-11-25, over stdio and HTTP;
- a server on the official TypeScript SDK with its InMemoryEventStore (tests/interop/
  ts_sdk_server.mjs), over stdio and HTTP;
- a server on the official Python SDK at 1.x with an event store (tests/servers/sdk1_server.py,
  in .venvs/mcp1), over stdio and HTTP;
- mcp-server-sqlite 2025.4.25 on mcp 1.6 (in .venvs/sqlite): a 2024-11-05-era server that dies
  on server/discover, so ``auto`` restarts it and connects with initialize;
- a handshake-era server that prints a debug line before each answer (tests/servers/raw_server.py).

Kinds and actions are stated by hand from each server's documented behaviour.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, ElicitationRequest, Kind
from mcp_verdict.client import CannotConnect, ElicitAnswer, Handlers, VerdictClient

from ..processes import free_port, http_server, require
from .conftest import EVERYTHING, HERE, NODE, need

ROOT = Path(__file__).resolve().parents[2]
TS_SERVER = HERE / "ts_sdk_server.mjs"
MCP1 = ROOT / ".venvs" / "mcp1" / "bin" / "python"
SQLITE = ROOT / ".venvs" / "sqlite" / "bin" / "mcp-server-sqlite"
SDK1_SERVER = ROOT / "tests" / "servers" / "sdk1_server.py"


async def name_form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    return ElicitAnswer.accept({"name": "Ada"})


async def research_form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    return ElicitAnswer.accept({"interpretation": "technical"})


def run(fn: Any, *args: Any) -> Any:
    return anyio.run(fn, *args)


def need_venv(path: Path, what: str) -> Path:
    return require(path, what, "./run test builds it")


def serve(command: list[str], port: int, *, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start a server process listening on 127.0.0.1:port; yield its /mcp URL; stop it."""
    with http_server(command, port, str(command[:3]), env=env, cwd=ROOT) as url:
        yield url


def connect(transport: str, target: Any, **options: Any) -> VerdictClient:
    options.setdefault("timeout", 30)
    return VerdictClient.http(target, **options) if transport == "http" else VerdictClient.stdio(target, **options)


# --- server-everything --------------------------------------------------------------------------

@pytest.fixture
def everything_http() -> Iterator[str]:
    node = need(NODE, "npm's node@22")
    server = need(EVERYTHING, "@modelcontextprotocol/server-everything")
    port = free_port()
    yield from serve([str(node), str(server), "streamableHttp"], port, env={"PORT": str(port)})


EVERYTHING_CASES: list[tuple[str, dict[str, Any], Kind, Action]] = [
    ("echo", {"message": "hi there"}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    ("get-sum", {"a": 2, "b": 40}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    ("get-structured-content", {"location": "New York"}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    ("trigger-elicitation-request", {}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    ("nope", {}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL),
    ("get-sum", {"a": "two"}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL),  # its arguments error, as a tool error
]


def test_server_everything_over_streamable_http(everything_http: str) -> None:
    async def scenario() -> list[Any]:
        async with connect("http", everything_http, handlers=Handlers(form=name_form)) as client:
            assert client.version == "2025-11-25"
            return [await client.call_tool(name, args) for name, args, *_ in EVERYTHING_CASES]

    outcomes = run(scenario)
    for outcome, (name, _, kind, action) in zip(outcomes, EVERYTHING_CASES, strict=True):
        assert (outcome.verdict.kind, outcome.decision.action) == (kind, action), (name, outcome.verdict.findings)
    assert "hi there" in outcomes[0].verdict.text and "42" in outcomes[1].verdict.text


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_tool_that_requires_tasks_on_2025_11_25(transport: str, request: pytest.FixtureRequest) -> None:
    node = need(NODE, "npm's node@22")
    server = need(EVERYTHING, "@modelcontextprotocol/server-everything")
    target: Any = [str(node), str(server), "stdio"] if transport == "stdio" else request.getfixturevalue(
        "everything_http")

    async def scenario() -> tuple[Any, Any, Any]:
        async with connect(transport, target, tasks=True, task_timeout=60) as client:
            tasked = await client.call_tool("simulate-research-query", {"topic": "verdicts"})
            record = client.history[-1]
        async with connect(transport, target) as client:
            untasked = await client.call_tool("simulate-research-query", {"topic": "verdicts"})
        return tasked, record, untasked

    tasked, record, untasked = run(scenario)
    assert (tasked.verdict.kind, tasked.decision.action) == (Kind.NORMAL_COMPLETE, Action.ACCEPT), \
        tasked.verdict.findings
    assert "Research Report" in tasked.verdict.text
    methods = [r.method for r in record.rounds]
    assert methods[0] == "tools/call" and methods[-1] == "tasks/result" and "tasks/get" in methods
    assert record.rounds[0].kind == "task" and b'"task":{"ttl":' in (record.rounds[0].request or b"")
    assert [r.status for r in record.rounds if r.method == "tasks/get"][-1] == "completed"
    # Without tasks the call is not augmented and the server refuses it: not a success.
    assert untasked.verdict.kind in (Kind.PROTOCOL_ERROR, Kind.TOOL_ERROR)
    assert untasked.decision.action is not Action.ACCEPT


# --- the TypeScript SDK, with its event store ------------------------------------------------------

@pytest.fixture
def ts_http() -> Iterator[str]:
    node = need(NODE, "npm's node@22")
    port = free_port()
    yield from serve([str(node), str(TS_SERVER), "http", str(port)], port)


SDK_CASES: list[tuple[str, dict[str, Any], Kind, Action, str]] = [
    ("add", {"a": 2, "b": 3}, Kind.NORMAL_COMPLETE, Action.ACCEPT, "5"),
    ("explode", {}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL, "exploded: boom"),  # the Python SDK's wording
    ("ask_name", {}, Kind.NORMAL_COMPLETE, Action.ACCEPT, "hello, Ada"),
]
TS_CASES = [SDK_CASES[0], ("explode", {}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL, "the handler blew up"),
            SDK_CASES[2], ("decline", {"reason": "no"}, Kind.TOOL_ERROR, Action.RETURN_TO_MODEL, "declined: no")]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_typescript_sdk_server(transport: str, request: pytest.FixtureRequest) -> None:
    node = need(NODE, "npm's node@22")
    target: Any = [str(node), str(TS_SERVER), "stdio"] if transport == "stdio" else request.getfixturevalue("ts_http")

    async def scenario() -> tuple[str, list[Any], VerdictClient]:
        async with connect(transport, target, handlers=Handlers(form=name_form)) as client:
            return client.version, [await client.call_tool(n, a) for n, a, *_ in TS_CASES], client

    version, outcomes, client = run(scenario)
    assert version == "2025-11-25"
    for outcome, (name, _, kind, action, text) in zip(outcomes, TS_CASES, strict=True):
        assert (outcome.verdict.kind, outcome.decision.action) == (kind, action), (name, outcome.verdict.findings)
        assert text in outcome.verdict.text, name
    assert outcomes[0].content_check.schema_checked
    assert not client.warnings


# --- the Python SDK at 1.x, with an event store ------------------------------------------------------

@pytest.fixture
def sdk1_http() -> Iterator[str]:
    python = need_venv(MCP1, "the mcp 1.x virtualenv")
    port = free_port()
    yield from serve([str(python), str(SDK1_SERVER), "http", str(port)], port)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_python_sdk_1x_server(transport: str, request: pytest.FixtureRequest) -> None:
    python = need_venv(MCP1, "the mcp 1.x virtualenv")
    target: Any = [str(python), str(SDK1_SERVER), "stdio"] if transport == "stdio" else \
        request.getfixturevalue("sdk1_http")

    async def scenario() -> tuple[str, list[Any]]:
        async with connect(transport, target, handlers=Handlers(form=name_form)) as client:
            return client.version, [await client.call_tool(n, a) for n, a, *_ in SDK_CASES]

    version, outcomes = run(scenario)
    assert version in ("2025-06-18", "2025-11-25")
    for outcome, (name, _, kind, action, text) in zip(outcomes, SDK_CASES, strict=True):
        assert (outcome.verdict.kind, outcome.decision.action) == (kind, action), (name, outcome.verdict.findings)
        assert text in outcome.verdict.text, name
    assert outcomes[0].verdict.structured_content == {"total": 5}


# --- a 2024-11-05-era server that dies on server/discover ----------------------------------------------

SQLITE_CASES: list[tuple[str, dict[str, Any], Kind, Action]] = [
    ("create_table", {"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"}, Kind.NORMAL_COMPLETE,
     Action.ACCEPT),
    ("write_query", {"query": "INSERT INTO notes (text) VALUES ('hi')"}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    ("read_query", {"query": "SELECT text FROM notes"}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    ("list_tables", {}, Kind.NORMAL_COMPLETE, Action.ACCEPT),
    # Refused, but answered as plain content ("Database error: ...") without isError: an
    # error-shaped success, which the content check catches (content.suspect_error).
    ("read_query", {"query": "DELETE FROM notes"}, Kind.NORMAL_COMPLETE, Action.RETURN_TO_MODEL),
]


# Each connecting step's bound: the server gives server/discover no answer, so the auto and modern
# connections below wait out this bound (without it, the SDK's own probe's 10 s); initialize, from
# the server's start, took 1.5 s at load 7.5 on 2 cores: 6 s is four times that.
CONNECT = 6.0


def test_a_legacy_server_that_dies_on_discover(tmp_path: Path) -> None:
    command = [str(need_venv(SQLITE, "mcp-server-sqlite (.venvs/sqlite)")), "--db-path", str(tmp_path / "t.db")]

    async def scenario() -> tuple[str, list[str], list[Any], str | None]:
        async with VerdictClient.stdio(command, timeout=30, connect_timeout=CONNECT) as client:
            outcomes = [await client.call_tool(n, a) for n, a, *_ in SQLITE_CASES]
            return client.version, list(client.warnings), outcomes, None

    version, warnings, outcomes, _ = run(scenario)
    assert version in ("2024-11-05", "2025-03-26")
    assert warnings[0].startswith("server/discover failed (") and "restarted the server" in warnings[0]
    for outcome, (name, args, kind, action) in zip(outcomes, SQLITE_CASES, strict=True):
        assert (outcome.verdict.kind, outcome.decision.action) == (kind, action), (name, args,
                                                                                    outcome.verdict.findings)
    assert "hi" in outcomes[2].verdict.text
    assert "content.suspect_error" in outcomes[-1].content_check.codes and not outcomes[-1].succeeded

    async def modern() -> None:
        async with VerdictClient.stdio(command, timeout=30, connect_timeout=CONNECT, mode="modern"):
            pass

    with pytest.raises(CannotConnect) as caught:
        run(modern)
    assert caught.value.cause in ("exited", "protocol") and caught.value.step == "server/discover"

    async def legacy() -> tuple[list[str], Any]:
        async with VerdictClient.stdio(command, timeout=30, connect_timeout=CONNECT, mode="legacy") as client:
            return list(client.warnings), await client.call_tool("list_tables", {})

    legacy_warnings, listed = run(legacy)
    assert legacy_warnings == [] and listed.succeeded


# --- a server that prints a debug line before answering --------------------------------------------------

def test_a_debug_line_before_each_answer() -> None:
    async def scenario() -> tuple[list[Any], Any]:
        command = [sys.executable, "-m", "tests.servers.raw_server", "--debug-line"]
        async with VerdictClient.stdio(command, cwd=str(ROOT), timeout=10) as client:
            outcomes = [await client.call_tool("echo", {"text": "hi"}), await client.call_tool("fail", {})]
            return outcomes, client.history[-1]

    (echo, fail), record = run(scenario)
    assert (echo.verdict.kind, echo.decision.action) == (Kind.NORMAL_COMPLETE, Action.ACCEPT)
    assert (fail.verdict.kind, fail.decision.action) == (Kind.TOOL_ERROR, Action.RETURN_TO_MODEL)
    assert [f.code for f in echo.verdict.warnings] == ["transport.noise"]
    assert [f.data for f in record.rounds[0].noise] == [b"debug: handling tools/call"]
