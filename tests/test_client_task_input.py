"""VerdictClient answering a running task's input requests (2026-07-28, tasks extension), over
real stdio and Streamable HTTP on 127.0.0.1 (tests/servers/input_tasks.py). Each row's verdict,
findings, decision, final text and rounds are written by hand from the extension:

ext-tasks, specification/draft/tasks.md (https://github.com/modelcontextprotocol/ext-tasks):
- Task Status: ``input_required``: "The tasks/get response will include outstanding requests in
  the inputRequests field, and the client should provide responses via the inputResponses field
  in subsequent tasks/update requests"; tasks/get (2): the server MUST return ``inputRequests``.
- Task Update Requests: the client SHOULD fulfil them with tasks/update and keep polling until a
  terminal status; "Clients MUST treat each entry in inputRequests as they would the equivalent
  standalone server-to-client request" (so the same checks as a result's input requests, before
  any handler); clients SHOULD deduplicate keys across polls and track the keys answered; a key
  is unique over a task's life (a server MUST NOT reuse it for a distinct request); the server
  MUST acknowledge with an empty result, and a server MAY leave the task input_required after
  the ack (eventually consistent) and MAY take a partial set of answers.

Before, the client polled an input_required task without answering it until ``task_timeout``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, ElicitationRequest, Kind
from mcp_verdict.client import ElicitAnswer, HandlerError, Handlers, VerdictClient

from .processes import port_server

ROOT = Path(__file__).resolve().parents[1]
SERVER = [sys.executable, "-m", "tests.servers.input_tasks"]
TRANSPORTS = ["stdio", "http"]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server([*SERVER, "http"], cwd=ROOT) as url:
        yield url


class Asked:
    """Handlers that record what reached them."""

    def __init__(self, *, form: bool = True, roots: bool = False, fail: bool = False) -> None:
        self.messages: list[str] = []
        self.fail = fail
        self.handlers = Handlers(form=self.form if form else None, roots=self.roots if roots else None)

    async def form(self, request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
        self.messages.append(request.message or "")
        if self.fail:
            raise RuntimeError("the user closed the form")
        return ElicitAnswer.accept({"name": "Luca"})

    async def roots(self) -> list[dict[str, Any]]:
        self.messages.append("roots")
        return [{"uri": "file:///tmp", "name": "tmp"}]


def call(transport: str, base: str, tool: str, asked: Asked, **options: Any) -> tuple[Any, Any]:
    options = {"tasks": True, "timeout": 10, "connect_timeout": 20, "task_timeout": 15, **options}

    async def scenario() -> tuple[Any, Any]:
        client = VerdictClient.stdio([*SERVER, "stdio"], handlers=asked.handlers, **options) if transport == "stdio" \
            else VerdictClient.http(f"{base}/mcp", handlers=asked.handlers, **options)
        async with client:
            with anyio.fail_after(60):
                outcome = await client.call_tool(tool, {})
            return outcome, client.history[-1]

    return anyio.run(scenario)


CALL = ("tools/call", "task", None)
ASKING = ("tasks/get", "task", "input_required")
UPDATE = ("tasks/update", "task", None)
DONE = ("tasks/get", "normal_complete", "completed")
# tool, handlers, options → kind, [(code, path)], action, final text, rounds [(method, kind, status)],
# what reached the handlers
CASES: list[tuple[str, str, Asked, dict[str, Any], Kind, list[tuple[str, str]], Action, str,
                  list[tuple[str, str, str | None]], list[str]]] = [
    # Asked, answered once with tasks/update, polled on: the key shown again after the ack (the
    # task had yet to show it) is not answered again; working, then completed with the answer.
    ("answered", "ask_name", Asked(), {}, Kind.NORMAL_COMPLETE, [], Action.ACCEPT,
     'name=Luca; updates [["name"]]', [CALL, ASKING, UPDATE, ASKING, ("tasks/get", "task", "working"), DONE],
     ["Please enter your name."]),
    # A second request while the first key is still listed: only the new key goes in the second
    # tasks/update (a partial set of the keys listed).
    ("new_key_only", "two_steps", Asked(), {}, Kind.NORMAL_COMPLETE, [], Action.ACCEPT,
     'a=Luca, b=Luca; updates [["a"], ["b"]]', [CALL, ASKING, UPDATE, ASKING, UPDATE, DONE], ["First?", "Second?"]),
    # Two requests of two kinds at once: one tasks/update carries both answers.
    ("two_at_once", "ask_two", Asked(roots=True), {}, Kind.NORMAL_COMPLETE, [], Action.ACCEPT,
     'a=Luca, r=file:///tmp; updates [["a", "r"]]', [CALL, ASKING, UPDATE, DONE], ["Name?", "roots"]),
    # Checked before any handler, as a result's input requests are (the same trust model): a
    # url-mode elicitation to a form-only client (client/elicitation: servers MUST NOT), a
    # requestedSchema outside the subset, an elicitation to a client that declared none. The
    # call ends unclassified on that poll; nothing reaches a handler, no tasks/update is sent.
    ("url_undeclared", "ask_url", Asked(), {}, Kind.UNCLASSIFIED, [("input.capability", "/result/inputRequests/u")],
     Action.INVESTIGATE, "", [CALL, ("tasks/get", "unclassified", "input_required")], []),
    ("schema_ref", "ask_ref", Asked(), {}, Kind.UNCLASSIFIED,
     [("elicitation.property", "/result/inputRequests/a/params/requestedSchema/properties/a")],
     Action.INVESTIGATE, "", [CALL, ("tasks/get", "unclassified", "input_required")], []),
    ("nothing_declared", "ask_name", Asked(form=False), {}, Kind.UNCLASSIFIED,
     [("input.capability", "/result/inputRequests/name")], Action.INVESTIGATE, "",
     [CALL, ("tasks/get", "unclassified", "input_required")], []),
    # tasks/update not acknowledged (an error; a result that is no object): the answers may not
    # have reached the task, so the call is never a success — it ends there, unclassified (the
    # server would have answered the next poll "completed").
    ("update_error", "update_error", Asked(), {}, Kind.UNCLASSIFIED, [("task.input", "")], Action.INVESTIGATE, "",
     [CALL, ASKING, ("tasks/update", "unclassified", None)], ["Name?"]),
    ("update_no_result", "update_no_result", Asked(), {}, Kind.UNCLASSIFIED, [("task.input", "")],
     Action.INVESTIGATE, "", [CALL, ASKING, ("tasks/update", "unclassified", None)], ["Name?"]),
    # input_required without inputRequests (tasks/get: MUST return them): nothing to answer.
    ("no_requests", "no_requests", Asked(), {}, Kind.UNCLASSIFIED, [("task.field", "/result")], Action.INVESTIGATE,
     "", [CALL, ("tasks/get", "unclassified", "input_required")], []),
    # input_required with an empty inputRequests: tasks/get MUST list "all outstanding requests
    # from the server to the client that need to be fulfilled before the task can proceed", and
    # the status says the task cannot proceed: it asks for input and names none, so no
    # tasks/update could move it on. The call ends on that poll, unclassified with task.input —
    # before, it was polled until task_timeout (transport.timeout), with no finding of its own.
    ("empty_requests", "empty_requests", Asked(), {}, Kind.UNCLASSIFIED, [("task.input", "/result/inputRequests")],
     Action.INVESTIGATE, "", [CALL, ("tasks/get", "unclassified", "input_required")], []),
    # The same once the one key listed was answered (not "every key listed was answered before",
    # which is polled on: the acknowledgement is eventually consistent).
    ("emptied", "emptied", Asked(), {}, Kind.UNCLASSIFIED, [("task.input", "/result/inputRequests")],
     Action.INVESTIGATE, "", [CALL, ASKING, UPDATE, ("tasks/get", "unclassified", "input_required")], ["Name?"]),
    # inputRequests that is no object (mrtr, InputRequests: an object): judged as a result's are.
    ("null_requests", "null_requests", Asked(), {}, Kind.UNCLASSIFIED,
     [("input.requests_type", "/result/inputRequests")], Action.INVESTIGATE, "",
     [CALL, ("tasks/get", "unclassified", "input_required")], []),
    # A key answered, then listed for another request (MUST NOT): said, not answered again.
    ("key_reused", "key_reused", Asked(), {}, Kind.UNCLASSIFIED, [("task.input", "/result/inputRequests/a")],
     Action.INVESTIGATE, "", [CALL, ASKING, UPDATE, ("tasks/get", "unclassified", "input_required")], ["First?"]),
    # A new request at every poll: at most max_rounds tasks/update, then transport.rounds.
    ("rounds_cap", "ask_forever", Asked(form=False, roots=True), {"max_rounds": 2}, Kind.UNCLASSIFIED,
     [("transport.rounds", "")], Action.INVESTIGATE, "", [CALL, ASKING, UPDATE, ASKING, UPDATE, ASKING],
     ["roots", "roots"]),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("tool", "asked", "options", "kind", "findings", "action", "text", "rounds", "reached"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_tasks_input_requests_are_checked_answered_once_and_followed(
        transport: str, base: str, tool: str, asked: Asked, options: dict[str, Any], kind: Kind,
        findings: list[tuple[str, str]], action: Action, text: str, rounds: list[tuple[str, str, str | None]],
        reached: list[str]) -> None:
    asked.messages.clear()
    outcome, record = call(transport, base, tool, asked, **options)
    assert (outcome.verdict.kind, [(f.code, f.path) for f in outcome.verdict.findings]) == (kind, findings)
    assert outcome.decision.action is action
    assert outcome.verdict.text == text
    assert [(r.method, r.kind, r.status) for r in record.rounds] == rounds
    assert asked.messages == reached


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_empty_input_request_map_is_named_in_the_finding(transport: str, base: str) -> None:
    """The finding says the task asked for input and named none (never a timeout, never a success)."""
    outcome, _ = call(transport, base, "empty_requests", Asked())
    [message] = [f.message for f in outcome.verdict.findings]
    assert re.fullmatch(r"task 'T\d+-empty_requests' is input_required but its inputRequests is empty: it asks for "
                        r"input and names no request to answer \(ext-tasks, tasks/get: inputRequests MUST contain all "
                        r"the outstanding requests the task needs fulfilled before it can proceed\)", message), message


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_each_update_carries_the_new_keys_and_the_task_id(transport: str, base: str) -> None:
    """tasks/update params: the taskId and inputResponses for the keys not answered before, the
    form's answer as the handler gave it (ext-tasks, UpdateTaskRequest)."""
    _, record = call(transport, base, "two_steps", Asked())
    task_id = json.loads(record.rounds[0].response)["result"]["taskId"]
    sent = [json.loads(r.request)["params"] for r in record.rounds if r.method == "tasks/update"]
    answer = {"action": "accept", "content": {"name": "Luca"}}
    assert [(p["taskId"], p["inputResponses"]) for p in sent] == [(task_id, {"a": answer}), (task_id, {"b": answer})]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_update_error_is_named_in_the_finding(transport: str, base: str) -> None:
    outcome, _ = call(transport, base, "update_error", Asked())
    [message] = [f.message for f in outcome.verdict.findings]
    assert re.fullmatch(r"tasks/update \(the answers to the input requests of task 'T\d+-update_error'\) was "
                        r"answered with error -32602: 'Unknown input key': the answers may not have reached the "
                        r"task, and its outcome is unknown", message), message


def test_a_task_waiting_on_answered_keys_keeps_its_input_rounds_when_polls_are_shed() -> None:
    """A task that stays input_required on a key already answered (polled every 10 ms until
    ``task_timeout``): the key is answered once; the record sheds polls past 100 rounds but keeps
    the poll that asked and the tasks/update, then the latest polls."""
    asked = Asked()
    outcome, record = call("stdio", "", "stale_forever", asked, task_timeout=3)
    assert [f.code for f in outcome.verdict.findings] == ["transport.timeout"]
    assert outcome.decision.action is Action.CHECK_STATE
    assert asked.messages == ["First?"]
    assert [(r.method, r.kind, r.status) for r in record.rounds] == [CALL, ASKING, UPDATE] + [ASKING] * 98
    assert record.polls_shed > 0


def test_a_handler_that_fails_stops_the_call_before_any_update() -> None:
    """As for a result's input requests: a handler's failure is a HandlerError out of call_tool
    (the call cannot go on), and no tasks/update is sent."""
    asked = Asked(fail=True)

    async def scenario() -> list[str]:
        async with VerdictClient.stdio([*SERVER, "stdio"], handlers=asked.handlers, tasks=True, timeout=10,
                                       task_timeout=15) as client:
            with anyio.fail_after(60), pytest.raises(HandlerError, match="the user closed the form"):
                await client.call_tool("ask_name", {})
            return [r.method for r in client.history[-1].rounds]

    assert anyio.run(scenario) == ["tools/call", "tasks/get"]


def test_call_json_shows_the_input_rounds_within_the_task(tmp_path: Path) -> None:
    """``mcp-verdict call --tasks --answers FILE --json``: each round's method, kind and status,
    the tasks/update's request with the answer from the file."""
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"form": {"name": {"name": "Ada"}}}))
    run = subprocess.run([sys.executable, "-m", "mcp_verdict", "call", "--stdio", " ".join([*SERVER, "stdio"]),
                          "--tasks", "--answers", str(answers), "--timeout", "10", "ask_name", "--json"],
                         capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL, cwd=ROOT)
    out = json.loads(run.stdout)
    assert run.returncode == 0, run.stderr
    assert [(r["method"], r["kind"], r.get("status")) for r in out["rounds"]] == [
        CALL, ASKING, UPDATE, ASKING, ("tasks/get", "task", "working"), DONE]
    update = json.loads(out["rounds"][2]["request"])["params"]["inputResponses"]
    assert update == {"name": {"action": "accept", "content": {"name": "Ada"}}}
    assert out["verdict"]["content"] == [{"type": "text", "text": 'name=Ada; updates [["name"]]'}]
