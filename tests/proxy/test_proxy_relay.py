"""The relay on its own (no I/O): the OpenTelemetry span of a tools/call, the refusal as a tool
error, and what each mode does with a frame — fixed frames in, fixed expectations out."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp_verdict.frames._tools import ToolsBudget
from mcp_verdict.proxy import REFUSED, Relay
from mcp_verdict.proxy._codes import META_KEY
from mcp_verdict.proxy._otel import telemetry

from ._host_stream import KeptHost

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}


def request(request_id: int, name: str = "t") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": {}, "_meta": META}}).encode()


GOOD = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":false}}'
STRING_FLAG = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"false"}}'
TOOL_ERROR = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":true}}'


def test_a_span_per_tools_call_with_the_semantic_convention_and_verdict_attributes() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    relay = Relay(mode="enforce", telemetry=telemetry("pipe", tracer_provider=provider,
                                                      meter_provider=MeterProvider(metric_readers=[reader])))
    relay.from_host(request(1, "get_forecast"))
    relay.from_upstream(STRING_FLAG)
    relay.from_host(request(2, "charge"))
    relay.from_upstream(TOOL_ERROR.replace(b'"id":1', b'"id":2'))
    first, second = exporter.get_finished_spans()
    assert first.name == "tools/call get_forecast"
    attrs = dict(first.attributes or {})
    assert attrs["mcp.method.name"] == "tools/call" and attrs["gen_ai.tool.name"] == "get_forecast"
    assert attrs["gen_ai.operation.name"] == "execute_tool" and attrs["jsonrpc.request.id"] == "1"
    assert attrs["mcp.protocol.version"] == "2026-07-28" and attrs["network.transport"] == "pipe"
    # the names and error.type of mcp_verdict.otel (the integrations' spans), plus the refusal
    assert attrs["mcp_verdict.kind"] == "unclassified" and attrs["error.type"] == "unclassified"
    assert attrs["mcp_verdict.findings"] == ("result.is_error",) and attrs["mcp_verdict.finding"] == "result.is_error"
    assert attrs["mcp_verdict.proxy.refused"] is True and attrs["mcp_verdict.decision"] == "investigate"
    assert first.parent is not None and format(first.parent.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert dict(second.attributes or {})["error.type"] == "tool_error"
    metrics = reader.get_metrics_data()
    assert metrics is not None
    names = [m.name for rm in metrics.resource_metrics for sm in rm.scope_metrics for m in sm.metrics]
    assert names == ["mcp.client.operation.duration"]


@pytest.mark.parametrize(("tracers", "meters", "spans"), [
    ("none", "none", False),  # the API's defaults: nothing records, no span is started
    ("noop", "noop", False),
    ("sdk", "none", True),
    ("none", "sdk", True),  # a metric alone still needs the call timed
    ("sdk", "sdk", True),
])
def test_a_call_is_traced_only_when_some_provider_records(tracers: str, meters: str, spans: bool) -> None:
    from opentelemetry import metrics, trace
    from opentelemetry.metrics._internal import _ProxyMeterProvider

    exporter = InMemorySpanExporter()
    sdk_tracers = TracerProvider()
    sdk_tracers.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    # "none": the types of the API's global defaults before an SDK is set (given here: another
    # test module of the suite sets the global tracer provider once per process)
    tracer_provider = {"none": trace.ProxyTracerProvider(), "noop": trace.NoOpTracerProvider(),
                       "sdk": sdk_tracers}[tracers]
    meter_provider = {"none": _ProxyMeterProvider(), "noop": metrics.NoOpMeterProvider(),
                      "sdk": MeterProvider(metric_readers=[reader])}[meters]
    tel = telemetry("pipe", tracer_provider=tracer_provider, meter_provider=meter_provider)
    assert tel is not None
    relay = Relay(mode="enforce", telemetry=tel)
    relay.from_host(request(1, "get_forecast"))
    assert (relay._waiting[("int", 1)].token is not None) is spans
    outs = relay.from_upstream(GOOD)
    assert [o.data for o in outs] == [GOOD] and relay.in_flight == 0
    assert len(exporter.get_finished_spans()) == (1 if spans and tracers == "sdk" else 0)
    data = reader.get_metrics_data()
    names = [m.name for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics] if data else []
    assert names == (["mcp.client.operation.duration"] if spans and meters == "sdk" else [])


@pytest.mark.parametrize(("mode", "answer", "forwarded"), [
    ("observe", GOOD, True), ("observe", STRING_FLAG, True), ("observe", TOOL_ERROR, True),
    ("enforce", GOOD, True), ("enforce", STRING_FLAG, False), ("enforce", TOOL_ERROR, True),
    ("enforce", b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":false}',
     False),  # truncated: the id recovered, the call answered with an error
])
def test_what_each_mode_forwards(mode: str, answer: bytes, forwarded: bool) -> None:
    relay = Relay(mode=mode)  # type: ignore[arg-type]
    assert [o.data for o in relay.from_host(request(1))] == [request(1)]
    outs = relay.from_upstream(answer)
    assert len(outs) == 1 and outs[0].to == "host"
    assert (outs[0].data == answer) is forwarded
    if not forwarded:
        assert json.loads(outs[0].data)["error"]["code"] == REFUSED
    assert relay.in_flight == 0


def test_refused_as_a_tool_error() -> None:
    relay = Relay(mode="enforce", refuse_as="tool-error")
    relay.from_host(request(1))
    (out,) = relay.from_upstream(STRING_FLAG)
    result = json.loads(out.data)["result"]
    assert result["isError"] is True and result["resultType"] == "complete"
    assert "result.is_error" in result["content"][0]["text"]
    assert result["_meta"][META_KEY]["verdict"]["kind"] == "unclassified"


def test_a_late_answer_after_the_timeout_is_refused() -> None:
    now = [0.0]
    relay = Relay(mode="observe", timeout=1.0, clock=lambda: now[0])
    relay.from_host(request(1))
    now[0] = 2.0
    outs = relay.expire()
    assert [o.to for o in outs] == ["host", "upstream"]
    assert json.loads(outs[1].data)["method"] == "notifications/cancelled"
    assert relay.from_upstream(GOOD) == []  # the host already has its answer
    assert relay.stats.refused == 1


class _Lines:
    """A recorder keeping the verdict lines (frame records are not asked for here)."""

    wants_verdicts = True
    redacts = False

    def __init__(self) -> None:
        self.verdicts: list[dict[str, object]] = []

    def frame(self, record: object) -> None:
        pass

    def verdict(self, line: object) -> None:
        assert isinstance(line, dict)
        self.verdicts.append(line)


def test_observe_forwards_an_answer_before_it_is_judged_when_the_caller_defers() -> None:
    lines = _Lines()
    relay = Relay(mode="observe", recorder=lines)
    relay.from_host(request(1))
    outs = relay.from_upstream(STRING_FLAG, defer=True)
    assert [(o.to, o.data, o.answers) for o in outs] == [("host", STRING_FLAG, ("int", 1))]
    assert (lines.verdicts, relay.stats.kinds) == ([], {})  # not judged yet
    relay.judge_deferred()
    assert [(v["kind"], v["forwarded"]) for v in lines.verdicts] == [("unclassified", "unchanged")]
    assert relay.stats.kinds == {"unclassified": 1}
    relay.judge_deferred()  # nothing left to judge
    assert len(lines.verdicts) == 1


def test_answers_forwarded_together_are_judged_later_in_the_order_they_came() -> None:
    lines = _Lines()
    relay = Relay(mode="observe", recorder=lines)
    relay.from_host(request(1))
    relay.from_host(request(2))
    relay.from_upstream(TOOL_ERROR.replace(b'"id":1', b'"id":2'), defer=True)
    relay.from_upstream(STRING_FLAG, defer=True)
    assert relay.deferred == 2 and lines.verdicts == []
    relay.judge_deferred()
    assert [(v["id"], v["kind"]) for v in lines.verdicts] == [(2, "tool_error"), (1, "unclassified")]
    assert relay.deferred == 0


def test_enforce_judges_before_it_forwards_even_when_the_caller_defers() -> None:
    lines = _Lines()
    relay = Relay(mode="enforce", recorder=lines)
    relay.from_host(request(1))
    (out,) = relay.from_upstream(STRING_FLAG, defer=True)
    assert json.loads(out.data)["error"]["code"] == REFUSED
    assert [(v["kind"], v["forwarded"]) for v in lines.verdicts] == [("unclassified", "refused")]
    relay.judge_deferred()
    assert len(lines.verdicts) == 1


class _Records(_Lines):
    """A recorder keeping the frame records too."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[tuple[object, ...]] = []

    def frame(self, record: object) -> None:
        self.frames.append((record.seq, record.dir, record.kind, record.data, record.note))  # type: ignore[attr-defined]


def _with_and_without_asking(mode: str, requests: list[bytes], answer: bytes) -> tuple[bool, tuple[Any, ...]]:
    """What passes_early said of ``answer``, and what from_upstream then sent, logged and
    counted — the same, or the relay told apart asking first from not."""
    runs = []
    early = False
    for ask_first in (False, True):
        lines = _Records()
        relay = Relay(mode=mode, recorder=lines)  # type: ignore[arg-type]
        for frame in requests:
            relay.from_host(frame)
        if ask_first:
            early = relay.passes_early(answer)
        outs = relay.from_upstream(answer)
        runs.append(([(o.to, o.data, o.answers) for o in outs], lines.frames,
                     [{k: v for k, v in line.items() if k != "latency_ms"} for line in lines.verdicts],
                     relay.in_flight, relay.stats))
    assert runs[0] == runs[1]  # asking first changes nothing the relay sends, logs or counts
    return early, runs[1]


@pytest.mark.parametrize(("mode", "requests", "answer", "early"), [
    # enforce: an answer to a tools/call waiting here whose verdict passes may reach a stdio
    # host before the relay's bookkeeping; anything else goes the usual way
    ("enforce", [request(1)], GOOD, True),
    ("enforce", [request(1)], TOOL_ERROR, True),  # a tool error is a verdict that passes
    ("enforce", [request(1)], STRING_FLAG, False),  # unclassified: refused, never sent early
    ("enforce", [request(1)], GOOD[:-1], False),  # truncated
    ("enforce", [request(2)], GOOD, False),  # answers no request waiting
    ("enforce", [request(1)], GOOD.replace(b'"id":1', b'"id":"1"'), False),  # the id's JSON type differs
    ("enforce", [b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
     b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}', False),  # not a judged method
    ("enforce", [request(1)], b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}', False),
    ("observe", [request(1)], GOOD, False),  # observe forwards unread (forwards_unread) instead
])
def test_enforce_passes_an_answer_early_only_when_its_verdict_passes(
        mode: str, requests: list[bytes], answer: bytes, early: bool) -> None:
    assert _with_and_without_asking(mode, requests, answer)[0] is early


_SEEDS = [GOOD, STRING_FLAG, TOOL_ERROR, GOOD.replace(b'"id":1', b'"id":2'),
          b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}',
          b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}',
          b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false,"isError":true}}']


@st.composite
def _answers(draw: st.DrawFn) -> bytes:
    """A seed answer with up to three bytes replaced, inserted or deleted; or (one in four) any bytes."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.binary(max_size=64))
    data = bytearray(draw(st.sampled_from(_SEEDS)))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["replace", "insert", "delete"]))
        byte = draw(st.sampled_from(b'{}[]",:0129 \\tfnux\x00\xff'))
        if how == "insert" or at == len(data):
            data.insert(at, byte)
        elif how == "replace":
            data[at] = byte
        else:
            del data[at]
    return bytes(data)


@settings(max_examples=300, deadline=None)
@given(answer=_answers())
def test_an_answer_sent_early_is_exactly_what_enforce_forwards(answer: bytes) -> None:
    # for any bytes: passes_early never raises, asking changes nothing, and what it let go early
    # is the frame the relay forwards unchanged as that request's answer
    early, (outs, *_) = _with_and_without_asking(
        "enforce", [request(1), b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'], answer)
    if early:
        assert outs == [("host", answer, ("int", 1))]


def test_an_early_verdict_is_used_only_for_the_frame_it_was_read_from() -> None:
    relay = Relay(mode="enforce")
    relay.from_host(request(1))
    relay.from_host(request(2))
    assert relay.passes_early(GOOD)
    (out,) = relay.from_upstream(STRING_FLAG.replace(b'"id":1', b'"id":2'))  # another frame came instead
    assert json.loads(out.data)["error"]["code"] == REFUSED
    (out,) = relay.from_upstream(GOOD)
    assert out.data == GOOD


def _early_reads(mode: str, requests: list[bytes], answer: bytes, monkeypatch: pytest.MonkeyPatch,
                 ) -> tuple[tuple[int, int], tuple[Any, ...], tuple[Any, ...]]:
    """The reads of ``answer`` (judge, peek) when the caller asked about it before the relay read
    it (observe: it was sent, ``read_sent``, then ``from_upstream`` deferred and judged next;
    enforce: ``passes_early``, then ``from_upstream``), and what was sent, logged, judged and
    counted, with and without that first look."""
    from mcp_verdict.proxy import _relay

    reads = {"judge": 0, "peek": 0}
    judge, peek = _relay.judge, _relay.peek  # type: ignore[attr-defined]

    def counted_judge(data: Any, *args: Any, **kwargs: Any) -> Any:
        reads["judge"] += data is answer
        return judge(data, *args, **kwargs)

    def counted_peek(data: Any) -> Any:
        reads["peek"] += data is answer
        return peek(data)

    monkeypatch.setattr(_relay, "judge", counted_judge)
    monkeypatch.setattr(_relay, "peek", counted_peek)
    runs = []
    for read_first in (False, True):
        lines = _Records()
        relay = Relay(mode=mode, recorder=lines)  # type: ignore[arg-type]
        for frame in requests:
            relay.from_host(frame)
        reads.update(judge=0, peek=0)
        if read_first and mode == "observe":
            relay.read_sent(answer)
        elif read_first:
            relay.passes_early(answer)
        outs = relay.from_upstream(answer, defer=True)
        relay.judge_deferred()
        runs.append(([(o.to, o.data, o.answers) for o in outs], lines.frames,
                     [{k: v for k, v in line.items() if k != "latency_ms"} for line in lines.verdicts],
                     relay.in_flight, relay.stats))
    return (reads["judge"], reads["peek"]), runs[0], runs[1]


LISTING = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'


PROGRESS = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'
_TEXT = b'"content":[{"type":"text","text":"' + b"x" * 2048 + b'"}]'


def long(answer: bytes) -> bytes:
    """``answer`` with a text block of 2 kB: past the size from which observe reads an answer once."""
    return answer.replace(b'"content":[]', _TEXT)


@pytest.mark.parametrize(("mode", "requests", "answer", "reads"), [
    # observe: an answer sent to the host before the relay read it is read once, by its judge,
    # whose message serves the routing; what the relay sends, logs and judges is the same
    ("observe", [request(1)], long(GOOD), (1, 0)),
    ("observe", [request(1)], long(TOOL_ERROR), (1, 0)),
    ("observe", [request(1), request(2)], long(TOOL_ERROR).replace(b'"id":1', b'"id":2'), (1, 0)),  # its id shows
    ("observe", [request(1)], long(STRING_FLAG), (1, 1)),  # unclassified: its verdict kept, the routing read apart
    ("observe", [request(1)], long(GOOD).replace(b'"id":1', b'"id":"1"'), (1, 1)),  # the id's JSON type differs
    ("observe", [request(2)], long(GOOD), (1, 1)),  # answers no request waiting: judged for nothing, then read
    ("observe", [LISTING], b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}', (0, 1)),  # not a judged method
    ("observe", [request(1)], PROGRESS.replace(b"{}", b'{"p":"' + b"x" * 2048 + b'"}'), (0, 1)),  # names "method"
    ("observe", [request(1)], GOOD, (1, 1)),  # short: read for routing, then judged (a guess costs more)
    # enforce: passes_early's reads serve from_upstream whatever it answered
    ("enforce", [request(1)], GOOD, (1, 0)),
    ("enforce", [request(1)], STRING_FLAG, (1, 1)),  # refused: judged once, not again for the refusal
    ("enforce", [request(1)], PROGRESS, (0, 1)),
])
def test_an_answer_asked_about_first_is_read_once(mode: str, requests: list[bytes], answer: bytes,
                                                  reads: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    counted, unread, read = _early_reads(mode, requests, answer, monkeypatch)
    assert counted == reads
    assert read == unread


def test_an_early_verdict_serves_only_the_request_it_was_made_for(monkeypatch: pytest.MonkeyPatch) -> None:
    # observe: read_sent guessed the only request waiting (1); the answer names 2, which the
    # host sent meanwhile: its verdict is made for request 2, not taken from the guess
    lines = _Lines()
    relay = Relay(mode="observe", recorder=lines)
    relay.from_host(request(1))
    answer = long(STRING_FLAG).replace(b'"id":1', b'"id":2')
    relay.read_sent(answer)
    relay.from_host(request(2))
    relay.from_upstream(answer, defer=True)
    relay.judge_deferred()
    assert [(v["id"], v["kind"]) for v in lines.verdicts] == [(2, "unclassified")]
    assert relay.is_waiting(("int", 1)) and not relay.is_waiting(("int", 2))


def test_a_host_frame_forwarded_by_the_caller_is_tracked_and_not_returned() -> None:
    relay = Relay(mode="enforce")
    assert relay.from_host(request(1), forwarded=True) == []
    assert relay.is_waiting(("int", 1)) and relay.stats.forwarded == 1
    (out,) = relay.from_upstream(STRING_FLAG)
    assert json.loads(out.data)["error"]["code"] == REFUSED  # judged as the answer to request 1
    with pytest.raises(ValueError, match="never forwarded"):
        Relay(max_frame=10).from_host(request(2), forwarded=True)


def _capable(request_id: int, capabilities: dict[str, object]) -> bytes:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "t", "arguments": {}, "_meta": meta}}).encode()


def _url_elicitation(request_id: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {
        "resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create", "params": {
            "mode": "url", "message": "m", "url": "https://example.com/", "elicitationId": "e1"}}}}}).encode()


@pytest.mark.parametrize(("capabilities", "kind"), [
    # each request's own capabilities decide (basic/index#meta; client/elicitation: url mode needs
    # the url capability), call after call on one connection: options kept for one context are
    # never used for another
    ([{"elicitation": {"url": {}}}, {"elicitation": {}}, {"elicitation": {"url": {}}}],
     ["input_required", "unclassified", "input_required"]),
    ([{}, {"elicitation": {"url": {}}}, {}], ["unclassified", "input_required", "unclassified"]),
])
def test_each_answer_is_judged_under_its_own_requests_capabilities(capabilities: list[dict[str, object]],
                                                                   kind: list[str]) -> None:
    lines = _Lines()
    relay = Relay(mode="observe", recorder=lines)
    for n, declared in enumerate(capabilities, 1):
        relay.from_host(_capable(n, declared))
        relay.from_upstream(_url_elicitation(n))
    assert [v["kind"] for v in lines.verdicts] == kind


class _Pipe:
    """An upstream that is a pipe (frames are sent before the relay reads them); ``up`` says
    whether it takes them."""

    routes_by_key = False

    def __init__(self, up: bool) -> None:
        self.up = up
        self.sent: list[bytes] = []

    def send(self, data: bytes, *, key: object, stream: object, headers: object, own: bool = False) -> bool:
        self.sent.append(data)
        return self.up

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize(("up", "answered"), [
    (True, []),  # sent; the answer comes from the upstream
    (False, [-31004]),  # the pipe is gone: UPSTREAM_UNAVAILABLE (README codes) at once, never a hang
])
def test_a_host_frame_goes_down_the_pipe_before_the_relay_reads_it(up: bool, answered: list[int]) -> None:
    import asyncio

    from mcp_verdict.proxy._bridge import Bridge

    async def go() -> tuple[_Pipe, KeptHost, Relay]:
        relay = Relay(mode="enforce")
        pipe, host = _Pipe(up), KeptHost()
        bridge = Bridge(relay, pipe, host)
        assert bridge.from_host(request(1), host) == ("int", 1)
        bridge.close()
        return pipe, host, relay

    pipe, host, relay = asyncio.run(go())
    assert pipe.sent == [request(1)]
    assert [json.loads(d)["error"]["code"] for d in host.got] == answered
    assert relay.in_flight == (1 if up else 0)


@pytest.mark.parametrize(("mode", "answer", "timed_out", "host_gets"), [
    # a stdio host has one stream: what observe forwards unchanged is written before it is read,
    # once; what enforce refuses, or a late answer after the proxy answered, never is
    ("observe", STRING_FLAG, False, [STRING_FLAG]),
    ("observe", GOOD, False, [GOOD]),
    ("enforce", GOOD, False, [GOOD]),
    ("enforce", STRING_FLAG, False, [-31000]),  # REFUSED (README codes)
    ("observe", GOOD, True, [-31002]),  # UPSTREAM_TIMEOUT (README codes) at the deadline; the late answer refused
    ("enforce", GOOD, True, [-31002]),  # UPSTREAM_TIMEOUT (README codes) at the deadline; the late answer refused
])
def test_one_host_stream_gets_each_frame_once(mode: str, answer: bytes, timed_out: bool,
                                              host_gets: list[object]) -> None:
    import asyncio

    from mcp_verdict.proxy._bridge import Bridge

    now = [0.0]

    async def go() -> tuple[KeptHost, Bridge]:
        relay = Relay(mode=mode, timeout=1.0, clock=lambda: now[0])  # type: ignore[arg-type]
        host = KeptHost()
        bridge = Bridge(relay, _Pipe(True), host)
        bridge.one_stream = True
        bridge.from_host(request(1), host)
        if timed_out:
            now[0] = 2.0
            bridge._expire()
        bridge.from_upstream(answer)
        bridge.close()
        return host, bridge

    host, bridge = asyncio.run(go())
    got = [d if d in (GOOD, STRING_FLAG) else json.loads(d)["error"]["code"] for d in host.got]
    assert got == host_gets
    assert bridge.stream_of(("int", 1)) is None  # routed: nothing left waiting for a stream


# A server request under the id of one of its own still unanswered (JSON-RPC 2.0 s4: an id
# identifies one request): the tracker puts the first out of waiting (``Unanswered``); the relay
# forwards the second as it forwards any server request, in both modes, and the call's answer
# after it is judged as ever. Before, the relay raised (it took every event but an answer for a
# stray).
ASK = (b'{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"m",'
       b'"requestedSchema":{"type":"object","properties":{}}}}')


@pytest.mark.parametrize(("mode", "answer", "to_host"), [
    ("observe", STRING_FLAG, STRING_FLAG),
    ("enforce", GOOD, GOOD),
    ("enforce", STRING_FLAG, "refused"),
])
def test_a_server_request_reusing_its_id_is_forwarded_and_the_call_still_judged(mode: str, answer: bytes,
                                                                                to_host: object) -> None:
    relay = Relay(mode=mode)  # type: ignore[arg-type]
    # (the host declares elicitation: the request is one it may be sent, and enforce forwards it)
    meta = {**META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    relay.from_host(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": "t", "arguments": {}, "_meta": meta}}).encode())
    assert [(out.to, out.data) for out in relay.from_upstream(ASK)] == [("host", ASK)]
    assert [(out.to, out.data) for out in relay.from_upstream(ASK)] == [("host", ASK)]
    (out,) = relay.from_upstream(answer)
    if to_host == "refused":
        assert json.loads(out.data)["error"]["code"] == REFUSED
    else:
        assert out.data == to_host
    assert relay.in_flight == 0


# For any sequence of frames both ways (requests, answers and server requests under reused,
# odd and unreadable ids; batches; initialize answers of every version; bytes that are no JSON)
# and timeouts, cancellations and the upstream's loss between them: the relay never raises, and
# once the upstream is lost no host request is left waiting.
_IDS = ["1", "2", '"a"', "0", "null", "true", "1.5", "18446744073709551616", "1e400", '"\\ud800"']
_RESULTS = [b'{"content":[],"isError":false}', b'{"content":[],"isError":"false"}',
            b'{"content":[],"isError":true,"isError":false}', b'{"resultType":"complete","content":[]}',
            b'{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s"}',
            b'{"resultType":"task","task":{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z",'
            b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null}}',
            b'{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}',
            b'{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}',
            b'{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}', b"NaN"]


@st.composite
def _host_frames(draw: st.DrawFn) -> bytes:
    i = draw(st.sampled_from(_IDS)).encode()
    return draw(st.sampled_from([
        b'{"jsonrpc":"2.0","id":' + i + b',"method":"tools/call","params":{"name":"t","arguments":{}}}',
        b'{"jsonrpc":"2.0","id":' + i + b',"method":"initialize","params":{"protocolVersion":"2025-03-26",'
        b'"capabilities":{},"clientInfo":{"name":"h","version":"1"}}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":' + i + b'}}',
        b'[{"jsonrpc":"2.0","id":' + i + b',"method":"tools/call","params":{"name":"t"}},'
        b'{"jsonrpc":"2.0","id":3,"method":"ping"}]',
        b'{"jsonrpc":"2.0","id":' + i + b',"result":{"action":"accept","content":{}}}',
        b'{"jsonrpc":"2.0","id":' + i + b',"id":' + i + b',"method":"tools/call","params":{"name":"t"}}',
        draw(st.binary(max_size=24)),
    ]))


@st.composite
def _upstream_frames(draw: st.DrawFn) -> bytes:
    i = draw(st.sampled_from(_IDS)).encode()
    result = draw(st.sampled_from(_RESULTS))
    return draw(st.sampled_from([
        b'{"jsonrpc":"2.0","id":' + i + b',"result":' + result + b"}",
        b'{"jsonrpc":"2.0","id":' + i + b',"error":{"code":-32602,"message":"x"}}',
        ASK.replace(b'"id":7', b'"id":' + i),
        b'[{"jsonrpc":"2.0","id":' + i + b',"result":' + result + b'},{"jsonrpc":"2.0","id":3,"result":{}}]',
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":' + i + b',"progress":1}}',
        draw(st.binary(max_size=24)),
    ]))


_STEPS = st.one_of(st.tuples(st.just("host"), _host_frames()), st.tuples(st.just("upstream"), _upstream_frames()),
                   st.tuples(st.just("expire"), st.just(b"")), st.tuples(st.just("cancel"), st.just(b"")))


@settings(max_examples=400, deadline=None)
@given(mode=st.sampled_from(["observe", "enforce"]), steps=st.lists(_STEPS, max_size=30),
       defer=st.booleans())
def test_the_relay_never_raises_and_leaves_nothing_waiting_once_the_upstream_is_lost(
        mode: str, steps: list[tuple[str, bytes]], defer: bool) -> None:
    relay = Relay(mode=mode)  # type: ignore[arg-type]
    for step, data in steps:
        if step == "host":
            relay.from_host(data)
        elif step == "upstream":
            relay.from_upstream(data, defer=defer)
            if relay.deferred:
                relay.judge_deferred()
        elif step == "expire":
            relay.expire(now=float("inf"))
        elif relay.waiting_keys():
            relay.cancel(relay.waiting_keys()[0], "the host gave up")
    relay.upstream_lost("gone")
    assert relay.in_flight == 0


# What the relay keeps of the upstream's tools/list answers (for the decisions and the
# Mcp-Param headers it writes from a tool's inputSchema): the rule of frames._tools, as the tap
# and the audit keep it. A whole listing — its first page asked with no cursor, through the page
# with no nextCursor (basic/utilities/pagination) — replaces the tools kept: a tool it no longer
# lists is not known (``tool(name)`` None); a listing read in part, a page whose listing was not
# followed from its start, drop nothing. The old relay kept every tool of every listing for the
# proxy's life (a listing's first 10,000).
def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}}}


def _listed(relay: Relay, rid: int, cursor: str | None, names: list[str], next_cursor: str | None) -> None:
    params: dict[str, Any] = {"_meta": META} if cursor is None else {"_meta": META, "cursor": cursor}
    result: dict[str, Any] = {"resultType": "complete", "tools": [_tool(n) for n in names]}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    relay.from_host(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params}).encode())
    relay.from_upstream(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())


# (the pages read, in order: (cursor asked with, tools, nextCursor), or a cursor alone: a page
# answered with an error; per tool, whether the relay knows it after them) — by hand
TOOL_PAGES: list[tuple[str, list[Any], dict[str, bool]]] = [
    ("one listing", [(None, ["a", "b"], None)], {"a": True, "b": True}),
    ("b dropped by a later listing", [(None, ["a", "b"], None), (None, ["a"], None)], {"a": True, "b": False}),
    ("b on the later listing's second page", [(None, ["a", "b"], None), (None, ["a"], "2"), ("2", ["b"], None)],
     {"a": True, "b": True}),
    ("the later listing read in part", [(None, ["a", "b"], None), (None, ["a"], "2")], {"a": True, "b": True}),
    ("b dropped, c on the later listing's second page", [(None, ["a", "b"], None), (None, ["a"], "2"),
                                                          ("2", ["c"], None)], {"a": True, "b": False, "c": True}),
    ("an empty listing drops every tool", [(None, ["a", "b"], None), (None, [], None)], {"a": False, "b": False}),
    ("a page whose listing's start was not seen adds", [("5", ["a"], None), ("6", ["b"], None)],
     {"a": True, "b": True}),
    ("a failed page ends the listing: nothing dropped", [(None, ["a", "b"], None), (None, ["a"], "2"), "2",
                                                         ("2", ["c"], None)], {"a": True, "b": True, "c": True}),
]


@pytest.mark.parametrize("mode", ["observe", "enforce"])
@pytest.mark.parametrize(("pages", "expected"), [c[1:] for c in TOOL_PAGES], ids=[c[0] for c in TOOL_PAGES])
def test_a_whole_listing_replaces_the_tools_the_relay_knows(mode: str, pages: list[Any],
                                                            expected: dict[str, bool]) -> None:
    relay = Relay(mode=mode)  # type: ignore[arg-type]
    for rid, page in enumerate(pages, 1):
        if isinstance(page, tuple):
            _listed(relay, rid, *page)
        else:
            relay.from_host(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list",
                                        "params": {"_meta": META, "cursor": page}}).encode())
            relay.from_upstream(json.dumps({"jsonrpc": "2.0", "id": rid,
                                            "error": {"code": -32603, "message": "x"}}).encode())
    assert {name: relay.tool(name) is not None for name in expected} == expected
    assert all(relay.tool(name) == _tool(name) for name, known in expected.items() if known)
    assert relay.in_flight == 0


# (the answer to a tools/list asked with no cursor, after a whole listing of a and b, as written; in
# enforce: whether the host gets it unchanged; per tool, whether the relay knows it after it, then
# after a page asked with the cursor "2" listing c alone, with no nextCursor) — by hand: an answer
# no strict parser reads (a member name given twice) is refused in enforce (README "The modes"),
# its host gets an error in its place and has no page of a listing: the relay keeps nothing of it
# and follows no listing from it (before, it read the last nextCursor, null, took the page for a
# whole listing and dropped b; then the next page was followed as that listing's too).
_A, _B = json.dumps(_tool("a")), json.dumps(_tool("b"))
REFUSED_PAGES: list[tuple[str, str, bool, dict[str, bool], dict[str, bool]]] = [
    ("strict-page", f'{{"resultType":"complete","tools":[{_A}],"nextCursor":"2"}}', True,
     {"a": True, "b": True}, {"a": True, "b": False, "c": True}),
    ("next-cursor-twice", f'{{"resultType":"complete","tools":[{_A}],"nextCursor":"2","nextCursor":null}}', False,
     {"a": True, "b": True}, {"a": True, "b": True, "c": True}),
    ("tools-twice", f'{{"resultType":"complete","tools":[{_B}],"tools":[{_A}]}}', False,
     {"a": True, "b": True}, {"a": True, "b": True, "c": True}),
]


@pytest.mark.parametrize(("result", "passed", "after", "then"), [r[1:] for r in REFUSED_PAGES],
                         ids=[r[0] for r in REFUSED_PAGES])
def test_a_listing_page_enforce_refuses_keeps_nothing(result: str, passed: bool, after: dict[str, bool],
                                                      then: dict[str, bool]) -> None:
    relay = Relay(mode="enforce")
    _listed(relay, 1, None, ["a", "b"], None)
    relay.from_host(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}}).encode())
    answer = f'{{"jsonrpc":"2.0","id":2,"result":{result}}}'.encode()
    out = relay.from_upstream(answer)
    known = {name: relay.tool(name) is not None for name in after}
    _listed(relay, 3, "2", ["c"], None)
    assert ([o.data == answer for o in out if o.to == "host"], known,
            {name: relay.tool(name) is not None for name in then}) == ([passed], after, then)


# (mode, whether the caller defers the judging, the listing's result as written) → (how many times
# the strict reader reads the answer, the tools known after it, the verdict lines of the listing:
# (kind, finding codes, forwarded)) — by hand: each listing is read strictly once, as before the
# tools' rule moved to frames._tools (observe: for its verdict line and its tools, _listing_problem;
# enforce: for its refusal, whose reading its tools follow), whatever it holds. A tools/list
# answer after a whole listing of b; it lists a.
_TWICE = f'{{"resultType":"complete","tools":[{_A}],"tools":[]}}'
_STRICT = f'{{"resultType":"complete","tools":[{_A}]}}'
_DUPLICATE_LINE = ("unclassified", ["json.duplicate_key"])
READS: list[tuple[str, str, bool, str, tuple[int, dict[str, bool], list[Any]]]] = [
    ("observe-strict", "observe", False, _STRICT, (1, {"a": True, "b": False}, [])),
    ("observe-deferred-strict", "observe", True, _STRICT, (1, {"a": True, "b": False}, [])),
    ("observe-tools-twice", "observe", False, _TWICE, (1, {"a": False, "b": True}, [(*_DUPLICATE_LINE, "unchanged")])),
    ("observe-deferred-tools-twice", "observe", True, _TWICE,
     (1, {"a": False, "b": True}, [(*_DUPLICATE_LINE, "unchanged")])),
    ("enforce-strict", "enforce", False, _STRICT, (1, {"a": True, "b": False}, [])),
    ("enforce-tools-twice", "enforce", False, _TWICE, (1, {"a": False, "b": True}, [(*_DUPLICATE_LINE, "refused")])),
]


@pytest.mark.parametrize(("mode", "defer", "result", "expected"), [r[1:] for r in READS], ids=[r[0] for r in READS])
def test_a_listing_is_read_strictly_once(mode: str, defer: bool, result: str,
                                         expected: tuple[int, dict[str, bool], list[Any]],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_verdict.verdict import _parser

    answer = f'{{"jsonrpc":"2.0","id":2,"result":{result}}}'.encode()
    reads = 0
    strict = _parser._strict

    def counted(data: bytes) -> Any:
        nonlocal reads
        reads += data == answer
        return strict(data)

    lines = _Lines()
    relay = Relay(mode=mode, recorder=lines)  # type: ignore[arg-type]
    _listed(relay, 1, None, ["b"], None)
    monkeypatch.setattr(_parser, "_strict", counted)
    relay.from_host(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}}).encode())
    relay.from_upstream(answer, defer=defer)
    relay.judge_deferred()
    known = {name: relay.tool(name) is not None for name in ("a", "b")}
    assert (reads, known, [(v["kind"], [f["code"] for f in v["findings"]], v["forwarded"])  # type: ignore[attr-defined]
                           for v in lines.verdicts if v["method"] == "tools/list"]) == expected


# (listings, pages each: whether each page after the first is asked with the last nextCursor) →
# the tools the relay knows at the end, by hand: of 30 whole listings of 2,000 new names the
# last's 2,000; of one listing of 30 such pages the first 10,000 (the budget per connection,
# frames._tools.TOOLS_KEPT; the listing's 60,000 names are past the 20,000 it is followed for,
# _FOLLOWED, as 400,000 were). The old relay knew all 60,000.
@pytest.mark.parametrize(("whole", "expected"), [(True, 2_000), (False, 10_000)], ids=["whole listings", "pages"])
def test_the_relay_knows_at_most_the_budget_of_tools(whole: bool, expected: int) -> None:
    relay = Relay(mode="observe")
    names = []
    for page in range(30):
        listed = [f"t{page}-{n}" for n in range(2_000)]
        names += listed
        _listed(relay, page + 1, None if whole or page == 0 else str(page), listed,
                None if whole or page == 29 else str(page + 1))
    assert sum(relay.tool(name) is not None for name in names) == expected


def test_the_relays_of_a_process_keep_at_most_their_shared_budget_of_tools() -> None:
    """An HTTP host's session relays (up to a thousand) share one budget for the tools they keep
    (``frames._tools.ToolsBudget``; 256 MiB in the proxy), beside each relay's own: a thousand
    sessions listing the same megabyte of tools kept a gigabyte. Here a budget of 1,000 tools'
    worth: ``_tool("t0-000")`` is 115 bytes of JSON, counted 115 + 115 + 128 × 15 (its 14 tokens
    ``{``, ``,``, ``:`` and one) = 2,150. The first relay keeps its 600, the second 400; once the
    first ends (``forget_tools``), the second's next whole listing keeps its 600."""
    budget = ToolsBudget(1_000 * 2_150)
    first, second = Relay(mode="observe", tools_budget=budget), Relay(mode="observe", tools_budget=budget)
    _listed(first, 1, None, [f"t0-{n:03}" for n in range(600)], None)
    _listed(second, 1, None, [f"t1-{n:03}" for n in range(600)], None)
    known = [sum(relay.tool(f"t{i}-{n:03}") is not None for n in range(600)) for i, relay in enumerate((first, second))]
    assert known == [600, 400]
    assert budget.size == 1_000 * 2_150
    first.forget_tools()
    _listed(second, 2, None, [f"t1-{n:03}" for n in range(600)], None)
    assert sum(second.tool(f"t1-{n:03}") is not None for n in range(600)) == 600
    assert budget.size == 600 * 2_150
