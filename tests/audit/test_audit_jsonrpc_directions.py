"""JSON-RPC JSON Lines say no direction: an answer goes to the request waiting with its id. Each
side numbers its own requests (https://www.jsonrpc.org/specification#request_object: the id is the
sender's), so a server's request made while the client's call waits can share the call's id — the
official SDK's client and server both count from 1. The server's request, the later one, is
answered first: the call waits on it (2025-11-25, client/elicitation). Recorded from the official
SDK's Client (2025-11-25, its legacy mode) and MCPServer (tests/audit/eliciting_server.py) through
the recording relay; the JSON-RPC file is the frame log's messages, one per line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from .conftest import relayed
from .test_audit_recorded import run


async def _record(log: Path, tools: list[str]) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.types import ElicitResult

    async def answer(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"} if "name" in params.message else {"sure": True})

    command = relayed(log, "eliciting", [sys.executable, "-m", "tests.audit.eliciting_server"])
    async with Client(StdioServerParameters(command=command[0], args=command[1:]), elicitation_callback=answer,
                      mode="legacy") as client:
        for tool in tools:
            await client.call_tool(tool, {})


# (the tools called in turn) → per call: (tool, kind, first finding, naive false success, its rounds), by hand
CASES = [
    # initialize (1), tools/call (2); the server asks with 1, then with 2 while the call (2) waits
    (["greet_twice"], [("greet_twice", "normal_complete", None, False,
                        ["elicitation/create", "elicitation/create", "tools/call"])]),
    # the ids never meet while waiting (the SDK lists the tools, 3, before the second call, 4; the server asks
    # with 1, then 2 and 3)
    (["greet_once", "greet_twice"], [
        ("greet_once", "normal_complete", None, False, ["elicitation/create", "tools/call"]),
        ("greet_twice", "normal_complete", None, False, ["elicitation/create", "elicitation/create", "tools/call"])]),
]


@pytest.mark.parametrize(("tools", "expected"), CASES, ids=["+".join(c[0]) for c in CASES])
def test_an_answer_goes_to_the_latest_request_waiting_with_its_id(tmp_path: Path, tools: list[str],
                                                                  expected: list[tuple[Any, ...]]) -> None:
    log = tmp_path / "frames.jsonl"
    anyio.run(_record, log, tools)
    records = [json.loads(line) for line in log.open("rb")]
    messages = [r["data"] for r in records if r["kind"] == "message"]
    plain = tmp_path / "messages.jsonl"
    plain.write_text("".join(m + "\n" for m in messages))
    for path in (log, plain):
        rows, problems, _ = run([path])
        assert [(r.tool, r.kind, r.finding, r.naive_false_success, [x.method for x in r.rounds]) for r in rows] == \
            expected, path.name
        assert problems == []
