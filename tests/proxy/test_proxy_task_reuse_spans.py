"""A task id the upstream creates again while a task with it runs: the spans and the per-kind counts
(``proxy._tasks``, ``proxy._otel``).

The call whose task held the id is judged again, ``unclassified`` (README, "The modes"). Its verdict
line is written again; its span cannot be: it ended when its handle came (an ended OpenTelemetry span
does not change). So the span of the call whose handle created the id again carries the event
``mcp_verdict.task_id_reused`` naming the earlier call (the task id, its ``jsonrpc.request.id``, its
verdict judged again: ``mcp_verdict.kind`` ``unclassified``, ``mcp_verdict.decision`` ``check_state``)
and a link to the earlier call's span, with the same attributes. The relay's per-kind counts
(``Relay.stats.kinds``) count the earlier call again: its ``task`` becomes ``unclassified``.

Before this: no event, no link (the earlier call's span said ``task``, ``poll_task``, and nothing said
otherwise), and the counts kept the earlier call's ``task``.

Real peers: an HTTP host (this test) through the proxy's HTTP host side, served in this process (its
relay given a local OpenTelemetry SDK, no global provider set), to ``task_reuse_server.py`` (2026-07-28)
as its own process. Expected values by hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp_verdict.proxy._otel import telemetry
from mcp_verdict.proxy._run import ProxyOptions

from ._in_thread import http_host_in_thread
from ._peers import HttpHostPeer

SERVER = [sys.executable, str(Path(__file__).with_name("task_reuse_server.py"))]
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
REUSED = {"mcp_verdict.task.id": "T", "mcp_verdict.kind": "unclassified", "mcp_verdict.decision": "check_state"}
REUSED_LONG = {**REUSED, "mcp_verdict.task.id": "pT"}

# (mode, the task ids of the tools/calls made in turn) → (per call span: its mcp_verdict.kind, its
# reuse events' attributes, its links: (the index of the span linked to, the link's attributes)), the
# relay's per-kind counts at the end
CASES: list[tuple[str, list[str], list[tuple[str, list[dict[str, Any]], list[tuple[int, dict[str, Any]]]]],
                  dict[str, int]]] = [
    ("observe", ["T", "T"],
     [("task", [], []), ("unclassified", [{**REUSED, "jsonrpc.request.id": "1"}],
                         [(0, {"mcp_verdict.link": "task_id_reused", **REUSED, "jsonrpc.request.id": "1"})])],
     {"unclassified": 2}),
    ("enforce", ["T", "T"],
     [("task", [], []), ("unclassified", [{**REUSED, "jsonrpc.request.id": "1"}],
                         [(0, {"mcp_verdict.link": "task_id_reused", **REUSED, "jsonrpc.request.id": "1"})])],
     {"unclassified": 2}),
    # the third creation finds the id taken already: the first was counted again once, and is named once
    ("enforce", ["T", "T", "T"],
     [("task", [], []), ("unclassified", [{**REUSED, "jsonrpc.request.id": "1"}],
                         [(0, {"mcp_verdict.link": "task_id_reused", **REUSED, "jsonrpc.request.id": "1"})]),
      ("unclassified", [], [])],
     {"unclassified": 3}),
    # no reuse: two ids
    ("observe", ["A", "B"], [("task", [], []), ("task", [], [])], {"task": 2}),
    # handles of 3 kB: observe judges one of 2 kB or more before its routing, which reads it before it
    # is sent (Relay.read_sent: the judge's read serves it); the same spans and counts
    ("observe", ["pT", "pT"],
     [("task", [], []), ("unclassified", [{**REUSED_LONG, "jsonrpc.request.id": "1"}],
                         [(0, {"mcp_verdict.link": "task_id_reused", **REUSED_LONG, "jsonrpc.request.id": "1"})])],
     {"unclassified": 2}),
    ("observe", ["pA", "pB"], [("task", [], []), ("task", [], [])], {"task": 2}),
]


@pytest.mark.parametrize(("mode", "tasks", "spans", "kinds"), CASES,
                         ids=["observe", "enforce", "enforce-three-times", "two-ids", "observe-long",
                              "two-ids-long"])
def test_the_span_of_the_reusing_call_names_the_call_judged_again(
        mode: str, tasks: list[str], spans: list[tuple[str, list[dict[str, Any]], list[tuple[int, dict[str, Any]]]]],
        kinds: dict[str, int]) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    options = ProxyOptions(command=SERVER, listen=("127.0.0.1", 0), mode=mode, otel=False)  # type: ignore[arg-type]
    with http_host_in_thread(options) as served:
        relay = served.host._stdio.relay
        relay.telemetry = telemetry("tcp", tracer_provider=provider,
                                    meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()]))
        peer = HttpHostPeer(served.url)
        try:
            for rid, task in enumerate(tasks, 1):
                status, raw, _ = peer.post({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
                    "name": "work", "arguments": {"task": task}, "_meta": META}})
                assert status == 200 and raw is not None and json.loads(raw)["id"] == rid
        finally:
            peer.close()
    counted = dict(relay.stats.kinds)  # (once the proxy stopped: observe judges an answer after sending it)
    finished = sorted(exporter.get_finished_spans(), key=lambda s: str(dict(s.attributes or {})["jsonrpc.request.id"]))
    ids = [s.context.span_id if s.context is not None else None for s in finished]
    got = [(dict(s.attributes or {}).get("mcp_verdict.kind"),
            [dict(e.attributes or {}) for e in s.events if e.name == "mcp_verdict.task_id_reused"],
            [(ids.index(link.context.span_id), dict(link.attributes or {})) for link in s.links]) for s in finished]
    assert (got, counted) == (spans, kinds)
