"""OTLP JSON trace exports: the official SDK's own spans (a subprocess runs real calls and
OpenTelemetry's OTLP JSON file exporter writes them: tests/audit/otlp_export.py), and spans
that record the result (gen_ai.tool.call.result), written by the OpenTelemetry SDK with the
same exporter. Each row says its fidelity; what a span cannot show is not judged."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import CallRow, audit_files

from .test_audit_recorded import run


@pytest.fixture(scope="module")
def sdk_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("otlp") / "traces.jsonl"
    subprocess.run([sys.executable, "-m", "tests.audit.otlp_export", str(out)], check=True, capture_output=True,
                   timeout=120)
    return out


# (tool, arguments' order in otlp_export.CALLS/DEMO_CALLS) → (fidelity, kind, error code, action, naive), by hand:
SDK_SPANS: list[tuple[str, str, str | None, int | None, str | None, str]] = [
    # the SDK server's spans (in process): isError true is marked error.type=tool_error; a success is unjudged
    ("add", "status", None, None, None, "success"),
    ("explode", "status", "tool_error", None, "return_to_model", "success"),
    ("no_such_tool", "status", "tool_error", None, "return_to_model", "success"),  # MCPServer: a tool error
    ("add", "status", "tool_error", None, "return_to_model", "success"),  # bad arguments: a tool error too
    # the SDK client's spans (stdio to the demo server): only JSON-RPC errors are marked
    ("get_forecast", "status", None, None, None, "success"),
    ("charge_card", "status", None, None, None, "success"),  # a client span does not mark isError
    ("add_integers", "status", "protocol_error", -32602, "fix_request", "failure"),
    ("string_is_error", "status", None, None, None, "success"),  # the SDK took it as success: unseen here
]


def test_the_sdks_own_spans_are_judged_as_far_as_they_say(sdk_export: Path) -> None:
    rows, problems, totals = run([sdk_export])
    assert [(r.tool, r.fidelity, r.kind, r.error_code, r.action, r.naive) for r in rows] == SDK_SPANS
    assert all(r.input_format == "otlp" and r.started_at is not None for r in rows)
    assert problems == [] and totals.lines == sum(1 for _ in sdk_export.open("rb"))
    unjudged = [r for r in rows if r.kind is None]
    assert all(r.naive_false_success is None and not r.accepted for r in unjudged)


def _export(spans: list[tuple[str, str, Any]], *, one_line: bool = False) -> str:
    """What OpenTelemetry's JSON file exporter writes of ``spans`` (a line each; ``one_line``:
    batched, every span on one line)."""
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    from opentelemetry.trace import SpanKind

    stream = io.StringIO()
    provider = TracerProvider()
    processor = BatchSpanProcessor if one_line else SimpleSpanProcessor
    provider.add_span_processor(processor(FileSpanExporter(stream=stream)))
    tracer = provider.get_tracer("an-instrumented-host")
    for request_id, tool, result in spans:
        with tracer.start_as_current_span(f"tools/call {tool}", kind=SpanKind.CLIENT, attributes={
                "mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "jsonrpc.request.id": request_id,
                "mcp.protocol.version": "2026-07-28", "gen_ai.tool.call.result": result}):
            pass
    provider.shutdown()
    return stream.getvalue()


def _results(log: Path) -> dict[str, tuple[bytes, Any]]:
    """Each demo tool's first answer in the recorded frame log: (the wire bytes, the parsed result)."""
    calls: dict[int, str] = {}
    out: dict[str, tuple[bytes, Any]] = {}
    for line in log.open("rb"):
        record = json.loads(line)
        data = record.get("data")
        if record["conn"] != "demo-1" or data is None:
            continue
        try:
            message = json.loads(data)
        except ValueError:
            continue
        if message.get("method") == "tools/call":
            calls[message["id"]] = message["params"]["name"]
        elif "result" in message and calls.get(message.get("id")) and calls[message["id"]] not in out:
            out[calls[message["id"]]] = (data.encode(), message["result"])
    return out


def test_a_recorded_result_is_judged_with_parsed_fidelity(demo_log: Path, tmp_path: Path) -> None:
    results = _results(demo_log)
    names = ["get_forecast", "charge_card", "string_is_error", "unknown_result_type", "duplicate_is_error"]
    # an instrumentation records the result as parsed JSON, written back: duplicates are gone by then
    export = _export([(str(i), n, json.dumps(results[n][1])) for i, n in enumerate(names, 1)])
    path = tmp_path / "traces.jsonl"
    path.write_text(export)
    _, _, entries = audit_files([str(path)])
    rows = [e for e in entries if isinstance(e, CallRow)]
    assert [(r.tool, r.fidelity, r.kind, r.finding, r.naive_false_success) for r in rows] == [
        ("get_forecast", "parsed", "normal_complete", None, False),
        ("charge_card", "parsed", "tool_error", None, True),
        ("string_is_error", "parsed", "unclassified", "result.is_error", True),
        ("unknown_result_type", "parsed", "unclassified", "result.result_type_unknown", True),
        # on the wire: isError true, then false (json.duplicate_key, a false success); parsed, only the last
        # is left, and the call reads as an accepted success: what parsed fidelity cannot see
        ("duplicate_is_error", "parsed", "normal_complete", None, False),
    ]
    assert b'"isError":true' in results["duplicate_is_error"][0] and b'"isError":false' in results[
        "duplicate_is_error"][0]


# The conventions ask for the result in structured form (semconv gen-ai, gen_ai.tool.call.result: "SHOULD be
# recorded in structured form", "MAY be recorded as a JSON string if structured format is not supported"):
# OpenTelemetry's SDK records a dict as an AnyValue kvlistValue (arrays arrayValue, integers intValue as
# strings: https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). Read as the JSON value it is.
STRUCTURED_RESULTS = [
    # (the demo tool, the result as recorded) → (fidelity, kind, first finding, naive false success), by hand
    ("get_forecast", None, ("parsed", "normal_complete", None, False)),
    ("charge_card", None, ("parsed", "tool_error", None, True)),
    ("string_is_error", None, ("parsed", "unclassified", "result.is_error", True)),
    ("unknown_result_type", None, ("parsed", "unclassified", "result.result_type_unknown", True)),
    # a kvlist with a key recorded twice keeps both (no dict can hold it: the SDK's encoder, from pairs)
    ("duplicate_is_error", [("content", []), ("isError", True), ("isError", False), ("resultType", "complete")],
     ("parsed", "unclassified", "json.duplicate_key", True)),
    # an integer where a string belongs: intValue is a string in OTLP JSON, read back as the number
    ("get_forecast", {"content": [{"type": "text", "text": 7}], "resultType": "complete"},
     ("parsed", "unclassified", "content.field_type", True)),  # a text block's text is a string
]


def test_a_result_recorded_in_structured_form_is_judged(demo_log: Path, tmp_path: Path) -> None:
    from opentelemetry.exporter.otlp.json.common._internal import _encode_key_value

    results = _results(demo_log)
    twice = "the pairs of a kvlist with a repeated key"  # a dict cannot hold them: put in as the encoder writes them
    spans: list[tuple[str, str, Any]] = [
        (str(i), name, results[name][1] if recorded is None else twice if isinstance(recorded, list) else recorded)
        for i, (name, recorded, _) in enumerate(STRUCTURED_RESULTS, 1)]
    (pairs,) = [recorded for _, recorded, _ in STRUCTURED_RESULTS if isinstance(recorded, list)]
    lines = []
    for line in _export(spans).splitlines():
        data = json.loads(line)
        for span in data["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            for attribute in span["attributes"]:
                if attribute["value"] == {"stringValue": twice}:
                    attribute["value"] = {"kvlistValue": {"values": [_encode_key_value(k, v).to_dict()
                                                                     for k, v in pairs]}}
        lines.append(json.dumps(data))
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert '"kvlistValue"' in path.read_text() and '"stringValue":"{' not in path.read_text()
    _, _, entries = audit_files([str(path)])
    rows = [e for e in entries if isinstance(e, CallRow)]
    assert [(r.tool, (r.fidelity, r.kind, r.finding, r.naive_false_success)) for r in rows] == [
        (name, expected) for name, _, expected in STRUCTURED_RESULTS]


def _span_line(attributes: dict[str, str], start: Any = "1700000000000000000") -> str:
    """One TracesData line as an exporter could write it, with string attributes and a start time."""
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "tools/call t",
            "kind": 3, "startTimeUnixNano": start, "endTimeUnixNano": "1700000000500000000",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in
                           {"mcp.method.name": "tools/call", "mcp.protocol.version": "2026-07-28",
                            **attributes}.items()]}
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


COMPLETE = '{"content":[],"resultType":"complete"}'
# OTLP's JSON mapping (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): fixed64 times
# as strings (or numbers); attributes as the instrumentation wrote them. An error.type is a JSON-RPC
# code only when it reads as an integer (semconv docs/gen-ai/mcp.md: "the JSON-RPC error code").
ODD_SPANS = [
    ("error.type a code", {"jsonrpc.request.id": "1", "error.type": "-32602"}, "1700000000000000000",
     ("1", "protocol_error", -32602, "failure", 1700000000.0)),
    ("error.type a superscript digit: not a code", {"jsonrpc.request.id": "1", "error.type": "²"},
     "1700000000000000000", ("1", "unclassified", None, "no_response", 1700000000.0)),
    ("error.type of 5,000 digits: not a code", {"jsonrpc.request.id": "1", "error.type": "9" * 5000},
     "1700000000000000000", ("1", "unclassified", None, "no_response", 1700000000.0)),
    ("request id 007: a string id", {"jsonrpc.request.id": "007", "gen_ai.tool.call.result": COMPLETE},
     "1700000000000000000", ("007", "normal_complete", None, "success", 1700000000.0)),
    ("request id a superscript digit", {"jsonrpc.request.id": "²", "gen_ai.tool.call.result": COMPLETE},
     "1700000000000000000", ("²", "normal_complete", None, "success", 1700000000.0)),
    ("request id of 40 digits", {"jsonrpc.request.id": "9" * 40, "gen_ai.tool.call.result": COMPLETE},
     "1700000000000000000", ("9" * 40, "normal_complete", None, "success", 1700000000.0)),
    ("start time past fixed64", {"jsonrpc.request.id": "1", "gen_ai.tool.call.result": COMPLETE}, "9" * 400,
     ("1", "normal_complete", None, "success", None)),
    ("start time a JSON number", {"jsonrpc.request.id": "1", "gen_ai.tool.call.result": COMPLETE}, 1.7e18,
     ("1", "normal_complete", None, "success", 1700000000.0)),
    ("start time zero", {"jsonrpc.request.id": "1", "gen_ai.tool.call.result": COMPLETE}, "0",
     ("1", "normal_complete", None, "success", None)),
    ("start time true", {"jsonrpc.request.id": "1", "gen_ai.tool.call.result": COMPLETE}, True,
     ("1", "normal_complete", None, "success", None)),
    ("start time 1e5 as text", {"jsonrpc.request.id": "1", "gen_ai.tool.call.result": COMPLETE}, "1e5",
     ("1", "normal_complete", None, "success", None)),
]


@pytest.mark.parametrize(("name", "attributes", "start", "expected"), ODD_SPANS, ids=[c[0] for c in ODD_SPANS])
def test_odd_span_values_are_read_not_fatal(tmp_path: Path, name: str, attributes: dict[str, str], start: Any,
                                            expected: tuple[Any, ...]) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text(_span_line(attributes, start) + "\n")
    _, totals, entries = audit_files([str(path)], format="otlp")
    (row,) = [e for e in entries if isinstance(e, CallRow)]
    assert (row.request_id, row.kind, row.error_code, row.naive, row.started_at) == expected
    assert totals.lines == 1


# mcp-verdict's own spans (README "OpenTelemetry": the tap's instrument(), the proxy's spans) carry the verdict
# judged on the wire — mcp_verdict.kind, .decision, .finding(s) — and an error.type of its own table
# (unclassified, content_check, input_required, task): read as that verdict (status fidelity: the answer is
# not on the span), where error.type "unclassified" read as the client's own failure (transport.closed,
# check_state, an unknown effect, no answer) and hid the naive false successes mcp-verdict had found.
# (tool) → (kind, first finding, action, naive, naive false success, unknown effect), by hand from the demo's
# catalogue (demo/_catalogue.py)
OWN_SPANS = [
    ("get_forecast", ("normal_complete", None, "accept", "success", False, False)),
    ("string_is_error", ("unclassified", "result.is_error", "investigate", "success", True, False)),
    ("charge_card", ("tool_error", None, "return_to_model", "success", True, False)),
    ("add_integers", ("protocol_error", None, "fix_request", "failure", False, False)),
    ("missing_result_type", ("unclassified", "result.result_type_missing", "investigate", "success", True, False)),
    # whether "result" in json.loads(answer) could read it is not on the span: not judged as to the naive
    ("duplicate_is_error", ("unclassified", "json.duplicate_key", "investigate", "success", None, False)),
]


def test_mcp_verdicts_own_spans_are_read_as_the_verdict_they_record(tmp_path: Path) -> None:
    out = tmp_path / "traces.jsonl"
    subprocess.run([sys.executable, "-m", "tests.audit.otel_tap_export", str(out), *(t for t, _ in OWN_SPANS)],
                   check=True, capture_output=True, timeout=120)
    assert '"mcp_verdict.kind"' in out.read_text()
    rows, problems, _ = run([out])
    assert [(r.tool, (r.kind, r.finding, r.action, r.naive, r.naive_false_success, r.unknown_effect))
            for r in rows] == OWN_SPANS
    assert problems == [] and all(r.fidelity == "status" for r in rows)


# A call traced on both sides whose two spans are in two exports — the host's and the server's, each process
# with its own file exporter (tests/audit/otlp_two_exports.py) — is one call (README "The audit": a call traced
# on both sides is one call), with any number of processes: the exports are read in turn by one reader, where
# each file's spans were merged only among themselves and every call was counted twice.
# (tool) → (the export its row is in, server, kind, request id), by hand: the client's span comes first
TWO_EXPORTS = [
    ("add", ("host.jsonl", "mcp-verdict-interop", None, "2")),
    ("explode", ("host.jsonl", "mcp-verdict-interop", "tool_error", "4")),
    ("add", ("host.jsonl", "mcp-verdict-interop", "tool_error", "5")),  # bad arguments: a tool error (MCPServer)
]


@pytest.fixture(scope="module")
def two_exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("two")
    host, server = folder / "host.jsonl", folder / "server.jsonl"
    subprocess.run([sys.executable, "-m", "tests.audit.otlp_two_exports", str(host), str(server)], check=True,
                   capture_output=True, timeout=120)
    return host, server


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("order", ["host first", "server first"])
def test_a_call_traced_in_two_exports_is_one_call(two_exports: tuple[Path, Path], jobs: int, order: str) -> None:
    host, server = two_exports
    rows, problems, totals = run([host, server] if order == "host first" else [server, host], jobs=jobs)
    assert [(r.tool, (Path(r.source).name, r.server, r.kind, r.request_id)) for r in rows] == TWO_EXPORTS
    assert problems == [] and totals.lines == 10


# A Python string holding a lone surrogate (a file name read with surrogateescape, PEP 383) is written by
# OpenTelemetry's JSON exporter as its escape (\udcff), which RFC 8259's grammar allows (section 7) and orjson
# refuses: the export's line — every span the exporter batched into it — was one unreadable line, and as a
# file's first line the export was no known format. Each span is read, the surrogate kept as its escape (a
# result holding it is no UTF-8: json.encoding, RFC 8259 section 8.2).
OK_RESULT = {"content": [{"type": "text", "text": "read"}], "resultType": "complete"}
SURROGATE_RESULT = {"content": [{"type": "text", "text": "r\udcff.txt"}], "resultType": "complete"}
SURROGATES = [
    # (spans: request id, tool, result) → per call (request id, tool, kind, first finding), by hand
    ("in a result's text", [("1", "read_file", json.dumps(OK_RESULT)),
                            ("2", "read_file", json.dumps(SURROGATE_RESULT, ensure_ascii=False)),
                            ("3", "read_file", json.dumps(OK_RESULT))],
     [("1", "read_file", "normal_complete", None), ("2", "read_file", "unclassified", "json.encoding"),
      ("3", "read_file", "normal_complete", None)]),
    ("in a structured result", [("1", "read_file", SURROGATE_RESULT), ("2", "read_file", OK_RESULT)],
     [("1", "read_file", "unclassified", "json.encoding"), ("2", "read_file", "normal_complete", None)]),
    ("in a tool's name", [("1", "r\udcff", json.dumps(OK_RESULT))], [("1", "r\\udcff", "normal_complete", None)]),
]


@pytest.mark.parametrize(("name", "spans", "expected"), SURROGATES, ids=[c[0] for c in SURROGATES])
def test_a_lone_surrogate_in_a_span_loses_no_span(tmp_path: Path, name: str, spans: list[tuple[str, str, Any]],
                                                  expected: list[tuple[Any, ...]]) -> None:
    pytest.importorskip("pyarrow")
    from mcp_verdict.audit._arrow import calls_batch

    exported = _export(spans, one_line=True)  # (the spans on one line)
    assert "\\udcff" in exported and exported.count("\n") == 1
    path = tmp_path / "traces.jsonl"
    path.write_text(exported)
    rows, problems, totals = run([path])
    assert [(r.request_id, r.tool, r.kind, r.finding) for r in rows] == expected
    assert problems == [] and dict(totals.tally)["call"] == 1
    assert calls_batch(rows).column("tool").to_pylist() == [t for _, t, _, _ in expected]
