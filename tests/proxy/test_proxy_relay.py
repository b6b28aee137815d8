"""The relay on its own (no I/O): the OpenTelemetry span of a tools/call, the refusal as a tool
error, and what each mode does with a frame — fixed frames in, fixed expectations out."""

from __future__ import annotations

import json

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp_verdict.proxy import REFUSED, Relay
from mcp_verdict.proxy._codes import META_KEY
from mcp_verdict.proxy._otel import telemetry

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
