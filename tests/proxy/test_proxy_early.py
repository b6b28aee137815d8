"""enforce on a stdio host: which answers reach the host before the relay's bookkeeping
(``Relay.passes_early``) while several tools/call wait — the answer's request guessed from the
id it shows, the guess checked by the judge — and that asking first changes nothing the relay
sends, logs or counts. Fixed frames in, fixed expectations out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from mcp_verdict.frames import FrameRecord
from mcp_verdict.proxy import Relay

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
ROOTS = {**META, "io.modelcontextprotocol/clientCapabilities": {"roots": {}}}


def call(request_id: object, meta: Mapping[str, object] = META, **params: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "t", "arguments": {}, **params, "_meta": meta}}).encode()


WAITING = [call(1), call(2), call("a"), b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}']
RESULT = b'{"resultType":"complete","content":[{"type":"text","text":"ok"}],"isError":false}'
PAD = b" " * 400


class _Records:
    def __init__(self) -> None:
        self.frames: list[tuple[Any, ...]] = []
        self.verdicts: list[dict[str, Any]] = []
        self.wants_verdicts = True
        self.redacts = False

    def frame(self, record: FrameRecord) -> None:
        self.frames.append((record.seq, record.dir, record.kind, record.data, record.note))

    def verdict(self, line: Mapping[str, Any]) -> None:
        self.verdicts.append({k: v for k, v in line.items() if k != "latency_ms"})


def _run(waiting: list[bytes], answer: bytes, ask_first: bool) -> tuple[bool, tuple[Any, ...]]:
    records = _Records()
    relay = Relay(mode="enforce", recorder=records)
    for frame in waiting:
        relay.from_host(frame)
    early = relay.passes_early(answer) if ask_first else False
    outs = [(o.to, o.data, o.answers) for o in relay.from_upstream(answer)]
    return early, (outs, records.frames, records.verdicts, relay.in_flight, relay.stats, relay.waiting_keys())


@pytest.mark.parametrize(("waiting", "answer", "early", "answers"), [
    # a server notification or request while one tools/call waits: read first, never judged as
    # its answer (forwarded as what it is)
    ([call(1)], b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
     False, None),
    ([call(1, ROOTS)], b'{"jsonrpc":"2.0","id":1,"method":"roots/list"}', False, None),  # (the host has roots)
    # the id shows at the start (as orjson, pydantic and the Python SDK write it)
    (WAITING, b'{"jsonrpc":"2.0","id":2,"result":' + RESULT + b"}", True, ("int", 2)),
    (WAITING, b'{"jsonrpc":"2.0","id":"a","result":' + RESULT + b"}", True, ("str", "a")),
    # at the end (the TypeScript SDK writes result, jsonrpc, id)
    (WAITING, b'{"result":' + RESULT + b',"jsonrpc":"2.0","id":1}', True, ("int", 1)),
    (WAITING, b'{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}', True, ("int", 2)),
    # the id shows nowhere near either end, or only escaped: read the usual way, then forwarded
    (WAITING, b'{"jsonrpc":"2.0",' + PAD + b'"id":2,' + PAD + b'"result":' + RESULT + b"}", False, ("int", 2)),
    (WAITING, b'{"jsonrpc":"2.0","id":"\\u0061","result":' + RESULT + b"}", False, ("str", "a")),
    # the first "id" shown is another request's (a member inside the result): the judge finds the
    # ids differ, and the usual read pairs it with its own request
    (WAITING, b'{"jsonrpc":"2.0","result":{"resultType":"complete","content":[],"structuredContent":{"id":1}},'
              b'"id":2}', False, ("int", 2)),
    # one request waiting: taken as the guess, checked all the same
    ([call(1)], b'{"jsonrpc":"2.0","id":1,"result":' + RESULT + b"}", True, ("int", 1)),
    ([call(7)], b'{"jsonrpc":"2.0","id":1,"result":' + RESULT + b"}", False, None),  # refused: answers none
    ([call(1.5)], b'{"jsonrpc":"2.0","id":1.5,"result":' + RESULT + b"}", False, ("float", 1.5)),  # id unchecked
    # an answer to the request of another JSON type ("2" for 2): refused, the host gets an error for 2
    (WAITING, b'{"jsonrpc":"2.0","id":"2","result":' + RESULT + b"}", False, ("int", 2)),
    # an error with no id (a warning before 2026-07-28, an error on it): never sent early
    ([call(1)], b'{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}', False, ("int", 1)),
    # not a judged method
    (WAITING, b'{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}', False, ("int", 3)),
])
def test_an_answer_goes_early_when_its_request_shows_and_its_verdict_passes(
        waiting: list[bytes], answer: bytes, early: bool, answers: tuple[str, object] | None) -> None:
    asked, run = _run(waiting, answer, True)
    assert asked is early
    assert run == _run(waiting, answer, False)[1]  # asking first changes nothing sent, logged or counted
    outs = run[0]
    hosts = [out[2] for out in outs if out[0] == "host"]
    assert hosts == ([answers] if answers is not None else [None] if b'"method"' in answer else [])
    if early:
        assert outs == [("host", answer, answers)]  # sent early: the frame enforce forwards, as it is


def test_an_answer_with_a_request_state_continues_its_call_when_sent_early() -> None:
    # the tracker reads requestState from the judge's message as it did from its own read: the
    # retry that echoes it is the call's second round (verdict lines: call 1, rounds 1 and 2)
    records = _Records()
    relay = Relay(mode="enforce", recorder=records)
    form = {**META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
    relay.from_host(call(1, form))
    relay.from_host(call(2, form))
    state = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s1",' \
            b'"inputRequests":{"q":{"method":"elicitation/create","params":{"mode":"form","message":"m",' \
            b'"requestedSchema":{"type":"object","properties":{}}}}}}}'
    assert relay.passes_early(state)
    relay.from_upstream(state)
    relay.from_host(call(4, form, requestState="s1"))
    done = b'{"jsonrpc":"2.0","id":4,"result":' + RESULT + b"}"
    assert relay.passes_early(done)
    relay.from_upstream(done)
    assert [(line["id"], line["call"], line["round"], line["kind"]) for line in records.verdicts] == [
        (1, 1, 1, "input_required"), (4, 1, 2, "normal_complete")]
