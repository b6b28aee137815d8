"""The tap judges a 2025 server's own requests made while a call waits (``elicitation/create``:
2025-11-25 client/elicitation) as mcp-verdict's client judges them
(``verdict._input.judge_server_request``: the rules of the session's version and the
capabilities the client declared): a refused one makes the call's verdict ``unclassified`` with
that request's findings, after its answer's — as ``VerdictClient`` and the audit decide — while
the SDK, which served the request or answered it an error, hands the application a success.

Before, the tap ignored these requests (it follows the client's ``tools/call`` only): the call
was ``normal_complete`` and accepted.

Real peers: the official SDK's ``Client`` (mcp 2.x, ``mode="legacy"``: 2025-11-25, its elicitation
capability form and url) through the tap's transports, and the SDK's ``MCPServer``
(``tests/audit/eliciting_server.py``) over stdio and Streamable HTTP. Expected values by hand
from 2025-11-25's ``schema.json``: PrimitiveSchemaDefinition has no ``object`` property;
ElicitRequestURLParams requires ``elicitationId``."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import VerdictTap

from ..processes import free_port, http_server

SERVER = [sys.executable, "-m", "tests.audit.eliciting_server"]


async def answer(context: Any, params: Any) -> Any:
    from mcp.types import ElicitResult

    if getattr(params, "requested_schema", None) and "name" in params.requested_schema.get("properties", {}):
        return ElicitResult(action="accept", content={"name": "Ada"})
    return ElicitResult(action="decline")


@asynccontextmanager
async def client(tap: VerdictTap, url: str | None, callback: Any = answer,
                 server: list[str] = SERVER) -> AsyncIterator[Client]:
    """The SDK's Client over the tap's stdio transport to ``server`` (``url`` None) or its HTTP
    client to ``url``."""
    if url is None:
        async with Client(tap.stdio_transport(server[0], server[1:]), mode="legacy",
                          elicitation_callback=callback) as session:
            yield session
        return
    async with tap.http_client() as http, Client(streamable_http_client(url, http_client=http), mode="legacy",
                                                 elicitation_callback=callback) as session:
        yield session


# (tool) → (the verdict's kind, its findings as (code, path, message), the decision, the text the SDK handed
# the application), by hand
REFUSED = ("unclassified", "investigate")
CASES: list[tuple[str, tuple[str, str], list[tuple[str, str, str]], str]] = [
    # a valid form elicitation: the call's verdict is its answer's
    ("greet_once", ("normal_complete", "accept"), [], "hello name='Ada'"),
    # the SDK's callback is called (its requestedSchema is any dict) and declines; the server's request was
    # still one no 2025-11-25 client may be sent
    ("ask_object", REFUSED,
     [("elicitation.property", "", "the server's elicitation/create request (at "
       "/params/requestedSchema/properties/a/type): the property's type is the string 'object'; a requested "
       "schema is flat: string, number, integer, boolean, or an enum (single- or multi-select)")],
     "asked: decline"),
    # the SDK's model refuses the request itself (an error to the server, which goes on)
    ("ask_url_without_id", REFUSED,
     [("input.params", "", "the server's elicitation/create request (at /params): a url-mode elicitation needs "
       "an elicitationId on 2025-11-25")],
     "refused:"),
]


@pytest.fixture(scope="module")
def http_url() -> Any:
    port = free_port()
    with http_server([*SERVER, "http", str(port)], port, "the eliciting SDK server") as url:
        yield url


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(("tool", "decided", "findings", "said"), CASES, ids=[c[0] for c in CASES])
def test_a_refused_server_request_makes_the_call_unclassified(
        transport: str, tool: str, decided: tuple[str, str], findings: list[tuple[str, str, str]], said: str,
        request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("http_url") if transport == "http" else None

    async def scenario() -> tuple[Any, Any, list[Any]]:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, url) as session:
                async with tap.judging(session) as judged:
                    result = await session.call_tool(tool, {})
                return judged.outcome, result, [c.verdict.kind.value for c in judged.calls]

    outcome, result, kinds = anyio.run(scenario)
    verdict = outcome.verdict
    assert verdict.version == "2025-11-25"
    assert (verdict.kind.value, outcome.decision.action.value) == decided, verdict.findings
    assert [(f.code, f.path, f.message) for f in verdict.findings] == findings
    assert kinds == [decided[0]]
    # what the application would have believed without the tap: a success
    assert result.is_error is False and result.content[0].text.startswith(said)


def test_calls_after_a_refused_one_are_judged_on_their_own() -> None:
    """The refused request's findings go to its call only: the next call, valid, is accepted."""
    async def scenario() -> list[tuple[str, list[str]]]:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, None) as session:
                out = []
                for tool in ("ask_object", "greet_once", "ask_url_without_id", "greet_once"):
                    outcome = await tap.call_tool(session, tool, {})
                    out.append((outcome.verdict.kind.value, [f.code for f in outcome.verdict.findings]))
                return out

    assert anyio.run(scenario) == [("unclassified", ["elicitation.property"]), ("normal_complete", []),
                                       ("unclassified", ["input.params"]), ("normal_complete", [])]


@pytest.mark.parametrize(("transport", "expected"), [
    # Streamable HTTP: the server's request came on the stream of its call's POST: that call's
    ("http", ("unclassified", ["elicitation.property"])),
    # stdio: two calls waited when the client answered it: which one it was made during cannot be told, so
    # neither takes it (the audit's rule too)
    ("stdio", ("normal_complete", [])),
])
def test_a_refused_request_while_another_call_waits(transport: str, expected: tuple[str, list[str]],
                                                    request: pytest.FixtureRequest) -> None:
    """``greet_twice`` waits on its first question (the callback holds it) while ``ask_object``
    asks and is answered; then the first question is answered."""
    url = request.getfixturevalue("http_url") if transport == "http" else None

    async def scenario() -> dict[str, tuple[str, list[str]]]:
        asked_name, object_done = anyio.Event(), anyio.Event()

        async def held(context: Any, params: Any) -> Any:
            from mcp.types import ElicitResult

            if "name" in (getattr(params, "requested_schema", None) or {}).get("properties", {}):
                asked_name.set()
                await object_done.wait()
                return ElicitResult(action="accept", content={"name": "Ada"})
            if "sure" in (getattr(params, "requested_schema", None) or {}).get("properties", {}):
                return ElicitResult(action="accept", content={"sure": True})
            return ElicitResult(action="decline")

        tap = VerdictTap()
        out: dict[str, tuple[str, list[str]]] = {}

        async def run_call(session: Client, tool: str) -> None:
            outcome = await tap.call_tool(session, tool, {})
            out[tool] = (outcome.verdict.kind.value, [f.code for f in outcome.verdict.findings])
            if tool == "ask_object":
                object_done.set()

        with anyio.fail_after(60):
            async with client(tap, url, held) as session, anyio.create_task_group() as group:
                group.start_soon(run_call, session, "greet_twice")
                await asked_name.wait()
                group.start_soon(run_call, session, "ask_object")
        return out

    assert anyio.run(scenario) == {"ask_object": expected, "greet_twice": ("normal_complete", [])}


def test_a_server_that_keeps_asking_holds_the_findings_of_its_first_64_requests() -> None:
    """66 refused requests during one call: the findings of the first 64, and one counting the
    others (a server asking without end grows no list in the tap)."""
    async def scenario() -> list[tuple[str, str]]:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, None) as session:
                outcome = await tap.call_tool(session, "ask_object", {"times": 66})
                return [(f.code, f.message) for f in outcome.verdict.findings]

    found = anyio.run(scenario)
    assert len(found) == 65
    assert {code for code, _ in found} == {"elicitation.property"}
    assert found[-1][1] == ("the server made 2 more requests mcp-verdict refuses during the call (the first 64 are "
                            "above)")


def test_a_block_with_options_of_its_own_judges_the_same() -> None:
    """A judging block given options judges its calls apart from the defaults' quick path
    (``VerdictTap._judge``): the refused request's findings all the same."""
    async def scenario() -> tuple[str, list[str]]:
        tap = VerdictTap()
        with anyio.fail_after(60):
            async with client(tap, None) as session:
                async with tap.judging(session, trusted_server=True) as judged:
                    await session.call_tool("ask_object", {})
                return judged.outcome.verdict.kind.value, [f.code for f in judged.outcome.verdict.findings]

    assert anyio.run(scenario) == ("unclassified", ["elicitation.property"])
