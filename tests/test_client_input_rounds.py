"""VerdictClient driving the multi round-trip pattern (2026-07-28, no tasks) against a server that
asks for input well and badly, over real stdio and Streamable HTTP on 127.0.0.1
(tests/servers/input_rounds.py). Each row's verdict, findings, decision, final text, rounds and
what reached the handlers are written by hand from the specification:

mrtr = https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
- Client Requirements (Basic Workflow): with ``inputRequests`` the client MUST construct the
  requested inputs before retrying; without it, it MAY retry immediately; it MUST echo the exact
  ``requestState`` and MUST NOT include one the answer did not have; each retry has a new id.
- Basic Workflow: "the requests in each step are completely independent: the server processing
  the retry does not need any information beyond what is directly present in the retry request".
  So an answer with an empty ``inputRequests`` and no ``requestState`` would be retried as the
  first request again, unchanged: nothing could move it on (``input.unanswerable``).
- Server Requirements: keys are unique "within the scope of the request" (each retry is a new
  request); a server MAY answer ``input_required`` on several attempts "to repeatedly prompt the
  user", and Error Handling: it SHOULD ask again for what it still misses. So a key asked again is
  answered again, up to the client's ``max_rounds`` (then ``transport.rounds``).
- InputRequests: an object (schema ``InputRequests``; anything else ``input.requests_type``), keys
  "server-assigned string identifiers" (the empty string is one).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict import Action, ElicitationRequest, Kind, Limits
from mcp_verdict.client import ElicitAnswer, Handlers, VerdictClient

from .processes import port_server

ROOT = Path(__file__).resolve().parents[1]
SERVER = [sys.executable, "-m", "tests.servers.input_rounds"]
TRANSPORTS = ["stdio", "http"]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server([*SERVER, "http"], cwd=ROOT) as url:
        yield url


class Asked:
    """Handlers (a form, roots) that record what reached them."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.handlers = Handlers(form=self.form, roots=self.roots)

    async def form(self, request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
        self.messages.append(request.message or "")
        return ElicitAnswer.accept({"name": "Luca"})

    async def roots(self) -> list[dict[str, Any]]:
        self.messages.append("roots")
        return [{"uri": "file:///tmp", "name": "tmp"}]


def call(transport: str, base: str, tool: str, asked: Asked, **options: Any) -> tuple[Any, Any]:
    options = {"timeout": 10, "connect_timeout": 20, **options}

    async def scenario() -> tuple[Any, Any]:
        client = VerdictClient.stdio([*SERVER, "stdio"], handlers=asked.handlers, **options) if transport == "stdio" \
            else VerdictClient.http(f"{base}/mcp", handlers=asked.handlers, **options)
        async with client:
            with anyio.fail_after(60):  # (a bound on a hang, never an assertion on time)
                outcome = await client.call_tool(tool, {})
            return outcome, client.history[-1]

    return anyio.run(scenario)


ASKING = ("tools/call", "input_required")
DONE = ("tools/call", "normal_complete")
ENDED = ("tools/call", "unclassified")
NONE_NAMED = [("input.requests_empty", "/result/inputRequests"), ("input.unanswerable", "/result/inputRequests")]
ROUNDS_CAP = [("transport.rounds", "")]
NOT_AN_OBJECT = [("input.requests_type", "/result/inputRequests")]
# name, tool, options → kind, [(code, path)], action, final text, rounds [(method, kind)], what reached the handlers
CASES: list[tuple[str, str, dict[str, Any], Kind, list[tuple[str, str]], Action, str, list[tuple[str, str]],
                  list[str]]] = [
    # The pattern as written: asked, answered, retried, complete.
    ("answered", "ask_name", {}, Kind.NORMAL_COMPLETE, [], Action.ACCEPT, "name=Luca", [ASKING, DONE], ["Name?"]),
    # An empty inputRequests and no requestState: it asks for input and names none, and the retry
    # would carry neither answers nor state (mrtr, client requirements): the first request again.
    # The call ends on that round, unclassified (classify's input.requests_empty warning kept).
    # Before, the client retried it unchanged until max_rounds: 10 rounds, ~5 s of back-off,
    # then transport.rounds.
    ("empty", "empty", {}, Kind.UNCLASSIFIED, NONE_NAMED, Action.INVESTIGATE, "", [ENDED], []),
    # The same at the rounds cap: the cap is not what ended it (before: transport.rounds).
    ("empty_at_the_cap", "empty", {"max_rounds": 1}, Kind.UNCLASSIFIED, NONE_NAMED, Action.INVESTIGATE, "", [ENDED],
     []),
    # The same after the one key was answered (with or without a state on the round that asked):
    # the retry would drop the answers and the state, so the server would start over and the
    # user be asked again. Before, the client did exactly that: the form reached the handler on
    # every other round (5 times), then transport.rounds.
    ("emptied", "emptied", {}, Kind.UNCLASSIFIED, NONE_NAMED, Action.INVESTIGATE, "", [ASKING, ENDED], ["Name?"]),
    ("emptied_state", "emptied_state", {}, Kind.UNCLASSIFIED, NONE_NAMED, Action.INVESTIGATE, "", [ASKING, ENDED],
     ["Name?"]),
    # An empty inputRequests with a requestState: nothing to answer, the state to echo (the client
    # MUST echo it, and MAY retry at once): retried with the state alone, until complete.
    ("state_only", "state_only", {}, Kind.NORMAL_COMPLETE, [], Action.ACCEPT, "state=s2", [ASKING, ASKING, DONE], []),
    # An empty string is a requestState too: echoed as it came ("the exact value").
    ("empty_state", "empty_state", {}, Kind.NORMAL_COMPLETE, [], Action.ACCEPT, "state=''", [ASKING, DONE], []),
    # A state that never ends, the same key asked again every round (answered again: each retry
    # is a new request, and a server MAY prompt again), a new key every round, a state that
    # doubles every round: each stops at max_rounds with transport.rounds.
    ("state_forever", "state_forever", {"max_rounds": 3}, Kind.UNCLASSIFIED, ROUNDS_CAP, Action.INVESTIGATE, "",
     [ASKING] * 3, []),
    ("same_key", "same_key", {"max_rounds": 3}, Kind.UNCLASSIFIED, ROUNDS_CAP, Action.INVESTIGATE, "", [ASKING] * 3,
     ["Name?", "Name?"]),
    ("new_keys", "new_keys", {"max_rounds": 3}, Kind.UNCLASSIFIED, ROUNDS_CAP, Action.INVESTIGATE, "", [ASKING] * 3,
     ["roots", "roots"]),
    ("growing_state", "growing_state", {"max_rounds": 3}, Kind.UNCLASSIFIED, ROUNDS_CAP, Action.INVESTIGATE, "",
     [ASKING] * 3, ["roots", "roots"]),
    # The doubling state under a 64 KiB bound on an answer: 4, 8, 16, 32 KiB fit; the fifth
    # answer (a 64 KiB state and the rest) does not, and is json.too_large on its round.
    ("growing_state_bound", "growing_state", {"limits": Limits(max_bytes=64 * 1024)}, Kind.UNCLASSIFIED,
     [("json.too_large", "")], Action.INVESTIGATE, "", [ASKING] * 4 + [ENDED], ["roots"] * 4),
    # inputRequests that is no object: refused on the first round, nothing reaches a handler.
    ("requests_list", "requests_list", {}, Kind.UNCLASSIFIED, NOT_AN_OBJECT, Action.INVESTIGATE, "", [ENDED], []),
    ("requests_text", "requests_text", {}, Kind.UNCLASSIFIED, NOT_AN_OBJECT, Action.INVESTIGATE, "", [ENDED], []),
    ("requests_null", "requests_null", {}, Kind.UNCLASSIFIED, NOT_AN_OBJECT, Action.INVESTIGATE, "", [ENDED], []),
    # A key that is the empty string is a string key: answered under it.
    ("empty_key", "empty_key", {}, Kind.NORMAL_COMPLETE, [], Action.ACCEPT, "''=Luca", [ASKING, DONE], ["Name?"]),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("tool", "options", "kind", "findings", "action", "text", "rounds", "reached"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_each_input_round_ends_where_the_spec_says(
        transport: str, base: str, tool: str, options: dict[str, Any], kind: Kind, findings: list[tuple[str, str]],
        action: Action, text: str, rounds: list[tuple[str, str]], reached: list[str]) -> None:
    asked = Asked()
    outcome, record = call(transport, base, tool, asked, **options)
    assert outcome.verdict.kind is kind
    assert [(f.code, f.path) for f in outcome.verdict.findings] == findings
    assert outcome.decision.action is action
    assert outcome.verdict.text == text
    assert [(r.method, r.kind) for r in record.rounds] == rounds
    assert asked.messages == reached


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_answer_that_names_no_input_and_no_state_is_named_in_the_finding(transport: str, base: str) -> None:
    """The error says what the answer lacks and why no retry could move it on; the call's last
    round carries the verdict."""
    outcome, record = call(transport, base, "empty", Asked())
    assert [f.message for f in outcome.verdict.errors] == [
        "the answer is input_required but its inputRequests is empty and it has no requestState: it asks for input "
        "and names no request to answer (mrtr, client requirements: a retry answers the inputRequests and echoes the "
        "requestState; with neither it would be the first request again, unchanged, and could not move the call on)"]
    assert record.rounds[-1].verdict == outcome.verdict


def sent(record: Any) -> list[dict[str, Any]]:
    """What each round's tools/call carried beyond the name and arguments."""
    return [{key: value for key, value in json.loads(r.request)["params"].items()
             if key in ("inputResponses", "requestState")} for r in record.rounds]


NAME = {"action": "accept", "content": {"name": "Luca"}}
ROOTS = {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}
# tool, options → what each round sent, by hand (mrtr, client requirements: the answers to the
# previous round's requests, its exact state, and no state it did not have).
SENT: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    ("state_only", {}, [{}, {"requestState": "s1"}, {"requestState": "s2"}]),
    ("empty_state", {}, [{}, {"requestState": ""}]),
    ("emptied_state", {}, [{}, {"inputResponses": {"name": NAME}, "requestState": "s1"}]),
    ("same_key", {"max_rounds": 3}, [{}, {"inputResponses": {"name": NAME}}, {"inputResponses": {"name": NAME}}]),
    ("new_keys", {"max_rounds": 3}, [{}, {"inputResponses": {"k1": ROOTS}}, {"inputResponses": {"k2": ROOTS}}]),
    ("growing_state", {"max_rounds": 3}, [{}, {"inputResponses": {"r": ROOTS}, "requestState": "x" * 4096},
                                          {"inputResponses": {"r": ROOTS}, "requestState": "x" * 8192}]),
    ("empty_key", {}, [{}, {"inputResponses": {"": NAME}}]),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("tool", "options", "expected"), SENT, ids=[case[0] for case in SENT])
def test_each_retry_carries_the_answers_and_the_exact_state(
        transport: str, base: str, tool: str, options: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    _, record = call(transport, base, tool, Asked(), **options)
    assert sent(record) == expected
    ids = [json.loads(r.request)["id"] for r in record.rounds]
    assert len(set(ids)) == len(ids)  # a new JSON-RPC id each round
