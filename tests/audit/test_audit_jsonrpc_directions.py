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

from mcp_verdict.audit import CallRow, Problem, Totals

from .._calls import python_calls
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


def _call(request_id: int, tool: str = "t") -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": tool, "arguments": {}}})


def _ping(request_id: int) -> str:  # a server's request (MCP: ping goes either way; elicitation/create the server's)
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "elicitation/create",
                       "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}})


def _answer(request_id: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": [], "isError": False}})


N = 1000
# Hand-written JSON-RPC files: (lines) → (per call: request id, end, rounds; stray lines; the line counts), by hand.
# An answer's direction is that of the latest request waiting with its id, looked up by its id: a scan of every
# request waiting made a file of N requests answered after all of them were sent cost N steps an answer.
LATE = [
    ("every call answered after all were sent", [_call(i) for i in range(N)] + [_answer(i) for i in range(N)],
     ([(str(i), "answered", ["tools/call"]) for i in range(N)], 0, {"call": 2 * N})),
    ("answered last first", [_call(i) for i in range(N)] + [_answer(i) for i in reversed(range(N))],
     ([(str(i), "answered", ["tools/call"]) for i in reversed(range(N))], 0, {"call": 2 * N})),
    ("answers to no request waiting", [_call(i) for i in range(N)] + [_answer(N + i) for i in range(N)],
     ([(str(i), "log_ended", ["tools/call"]) for i in range(N)], N, {"call": N, "stray": N})),
    # both sides' requests wait under one id: the later one is answered first, whichever side sent it
    ("the server's request the later", [_call(1), _ping(1), _answer(1), _answer(1)],
     ([("1", "answered", ["elicitation/create", "tools/call"])], 0, {"call": 4})),
    ("the client's request the later", [_ping(1), _call(1), _answer(1), _answer(1)],
     ([("1", "answered", ["tools/call"])], 0, {"call": 2, "message": 2})),
]


def _steps(path: Path) -> tuple[int, list[CallRow], list[Problem], Totals]:
    """The Python function calls the audit of ``path`` makes (``tests._calls``), and what it says."""
    steps, (rows, problems, totals) = python_calls(lambda: run([path]))
    return steps, rows, problems, totals


@pytest.mark.parametrize(("name", "lines", "expected"), LATE, ids=[c[0] for c in LATE])
def test_answers_that_come_late_are_paired_in_steps_per_line(tmp_path: Path, name: str, lines: list[str],
                                                            expected: tuple[Any, ...]) -> None:
    path = tmp_path / "messages.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    steps, rows, problems, totals = _steps(path)
    calls, strays, counts = expected
    assert [(r.request_id, r.end, [x.method for x in r.rounds]) for r in rows] == calls
    assert (len(problems), {k: n for k, n in totals.tally.items() if n}) == (strays, counts)
    # the same file with each answer right after its request, as the bound: within 10% of its steps
    at_once = tmp_path / "at_once.jsonl"
    at_once.write_text("".join(_call(i) + "\n" + _answer(i) + "\n" for i in range(N)))
    if len(lines) == 2 * N:
        assert steps <= 1.1 * _steps(at_once)[0]


# -- both sides' requests in one batch (2025-03-26, basic/index#batching) ----------------------------------------
# A JSON-RPC file's batch is one line: its client's request and the server's under one id have the same position, so
# the later element waits the later (it is answered first, as when each comes on a line of its own above).

_INIT = [json.dumps({"jsonrpc": "2.0", "id": "i", "method": "initialize",
                     "params": {"protocolVersion": "2025-03-26", "capabilities": {"roots": {}},
                                "clientInfo": {"name": "c", "version": "1"}}}),
         json.dumps({"jsonrpc": "2.0", "id": "i",
                     "result": {"protocolVersion": "2025-03-26", "capabilities": {"tools": {}},
                                "serverInfo": {"name": "s", "version": "1"}}})]


def _roots(request_id: int) -> dict[str, Any]:  # a server's request (2025-03-26 client/roots)
    return {"jsonrpc": "2.0", "id": request_id, "method": "roots/list"}


def _call_of(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "t", "arguments": {}}}


def _done(request_id: int) -> str:  # a tools/call result (2025-03-26 CallToolResult: content)
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": "done"}]}})


def _listed(request_id: int) -> str:  # a roots/list result (ListRootsResult: roots)
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"roots": []}})


def _batch(*messages: dict[str, Any]) -> str:
    return json.dumps(list(messages))


# (the lines after initialize) → (per call: request id, end, kind, its rounds; the line counts), by hand. A roots/list
# answered while one call waits is a round of it (counted a call line); one answered while none waits is a message.
# The client declares roots (a server's roots/list to a client that did not is refused: the call unclassified).
BOTH_IN_A_BATCH = [
    ("the server's request the later", [_batch(_call_of(1), _roots(1)), _listed(1), _done(1)],
     ([("1", "answered", "normal_complete", ["roots/list", "tools/call"])], {"call": 3, "message": 2})),
    ("the client's request the later", [_batch(_roots(1), _call_of(1)), _done(1), _listed(1)],
     ([("1", "answered", "normal_complete", ["tools/call"])], {"call": 2, "message": 3})),
    # paired by place, not by what the answer holds: the call gets the roots/list result (no content)
    ("the server's request the later, answered as if the client's were", [_batch(_call_of(1), _roots(1)), _done(1),
                                                                            _listed(1)],
     ([("1", "answered", "unclassified", ["roots/list", "tools/call"])], {"call": 3, "message": 2})),
    # a request that reuses a waiting id replaces it (the first ends reused_id) and waits after the other side's
    ("the client's id reused in the batch: the later", [_batch(_call_of(1), _roots(1), _call_of(1)), _done(1),
                                                        _listed(1)],
     ([("1", "reused_id", "unclassified", ["tools/call", "roots/list"]),  # (made while the first alone waited,
       ("1", "answered", "normal_complete", ["tools/call"])], {"call": 2, "message": 3})),  # not answered then)
    ("the server's id reused in the batch: the later", [_batch(_roots(1), _call_of(1), _roots(1)), _listed(1),
                                                        _done(1)],
     ([("1", "answered", "normal_complete", ["roots/list", "tools/call"])], {"call": 3, "message": 2})),
    # the id met again in a later batch, in the other order: that batch's order
    ("two batches, each its own order", [_batch(_call_of(1), _roots(1)), _listed(1), _done(1),
                                         _batch(_roots(1), _call_of(1)), _done(1), _listed(1)],
     ([("1", "answered", "normal_complete", ["roots/list", "tools/call"]),
       ("1", "answered", "normal_complete", ["tools/call"])], {"call": 5, "message": 3})),
    # different ids never meet: each answer to its own
    ("two ids", [_batch(_call_of(1), _roots(2)), _listed(2), _done(1)],
     ([("1", "answered", "normal_complete", ["roots/list", "tools/call"])], {"call": 3, "message": 2})),
]


@pytest.mark.parametrize(("name", "lines", "expected"), BOTH_IN_A_BATCH, ids=[c[0] for c in BOTH_IN_A_BATCH])
def test_of_both_sides_requests_in_one_batch_the_later_is_answered_first(tmp_path: Path, name: str, lines: list[str],
                                                                        expected: tuple[Any, ...]) -> None:
    path = tmp_path / "messages.jsonl"
    path.write_text("".join(line + "\n" for line in _INIT + lines))
    rows, problems, totals = run([path])
    calls, counts = expected
    assert [(r.request_id, r.end, r.kind, [x.method for x in r.rounds]) for r in rows] == calls
    assert (problems, {k: n for k, n in totals.tally.items() if n}) == ([], counts)


def _batches_answered_late(n: int) -> list[str]:
    """n batches each holding a call and a server's request under one id, then each id's two answers in turn."""
    return _INIT + [_batch(_call_of(i), _roots(i)) for i in range(n)] + [a for i in range(n)
                                                                          for a in (_listed(i), _done(i))]


@pytest.mark.parametrize("n", [50, 200])
def test_a_batchs_two_requests_under_one_id_are_told_apart_in_steps_per_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Which of the two a direction-less answer goes to was found by a copy and a scan of every request waiting:
    each answer cost as many steps as there were, quadratic in a file of such batches answered late. Each
    direction read (``Auditor._direction``, what it calls included) now takes as many Python steps at 4n as at n,
    and no request waiting is copied (``Tracker.pending``)."""
    from mcp_verdict.audit import _auditor
    from mcp_verdict.frames import Tracker

    from .._calls import python_steps

    steps: list[int] = []
    direction = _auditor.Auditor._direction

    def counted(self: Any, conn: str, look: Any) -> Any:
        taken, found = python_steps(lambda: direction(self, conn, look))
        steps.append(taken)
        return found

    copied = [0]
    pending = Tracker.pending

    def counted_pending(self: Any, conn: str) -> Any:
        waiting = pending(self, conn)
        copied[0] += len(waiting)
        return waiting

    warm = tmp_path / "warm.jsonl"  # (what a first audit imports on first use is no step of a direction read)
    warm.write_text("".join(line + "\n" for line in _batches_answered_late(2)))
    run([warm])
    monkeypatch.setattr(_auditor.Auditor, "_direction", counted)
    monkeypatch.setattr(Tracker, "pending", counted_pending)
    per_size = {}
    for size in (n, 4 * n):
        path = tmp_path / f"late{size}.jsonl"
        path.write_text("".join(line + "\n" for line in _batches_answered_late(size)))
        steps.clear()
        rows, problems, totals = run([path])
        # every call answered; the first one's roots/list made while it alone waited, answered while it waits,
        # and the last one's answered while it alone waits: a round of each (by hand)
        assert [(r.request_id, r.end, r.kind, [x.method for x in r.rounds]) for r in rows] == \
            [("0", "answered", "normal_complete", ["roots/list", "tools/call"])] + \
            [(str(i), "answered", "normal_complete", ["tools/call"]) for i in range(1, size - 1)] + \
            [(str(size - 1), "answered", "normal_complete", ["roots/list", "tools/call"])]
        assert (problems, {k: c for k, c in totals.tally.items() if c}) == \
            ([], {"call": 2 * size + 2, "message": 2 + size - 2})
        assert len(steps) == 2 + 4 * size  # (initialize and its answer; each batch's 2 requests; 2 answers an id)
        per_size[size] = max(steps)
    assert per_size[4 * n] == per_size[n]
    assert copied[0] == 0
