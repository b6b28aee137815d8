"""What the proxy records when a peer's text is hostile: every frame-log record stays valid JSON of
format v1 (checked against ``framelog-v1.schema.json`` with jsonschema) and the frame it records is
still answered; the proxy's spans hold a peer's text bounded, on one line; the trace context a host
put in ``_meta`` never writes a peer's text to the proxy's stderr."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from mcp_verdict.demo import stdio_command
from mcp_verdict.frames import LogProblem, read, schema

from ._peers import PROXY, LinePeer, proxy_http

INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "t", "version": "0"}}}).encode()


def _post(url: str, body: bytes, headers: list[tuple[bytes, bytes]]) -> int:
    """POST ``body`` with header bytes as given (no HTTP client writes bytes that are no UTF-8 in a
    header: RFC 9110 s5.5 obs-text), on a raw socket; the answer's status."""
    address = url.split("//", 1)[1].split("/", 1)[0]
    host, port = address.rsplit(":", 1)
    head = (b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n")
    head += b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(head + b"\r\n" + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def _records(path: Path) -> list[dict[str, object]]:
    """Every line of the frame log, each checked against the format's JSON Schema and read back by
    ``frames.read`` as a record (no LogProblem)."""
    lines = path.read_bytes().splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        jsonschema.validate(record, schema())
    assert [r for r in read(lines) if isinstance(r, LogProblem)] == []
    return records


@pytest.mark.parametrize(("session", "protocol", "recorded"), [
    # bytes that are no UTF-8 (aiohttp reads them with surrogateescape): a lone surrogate, which no
    # JSON text holds, is recorded as its escape; the POST was answered 500 and never recorded
    (b"\xffabc", b"2025-06-18", {"session": "\\udcffabc", "protocol_version": "2025-06-18"}),
    (b"abc", b"2025-06-18\xfe", {"session": "abc", "protocol_version": "2025-06-18\\udcfe"}),
    (b"\xc3\xa9t\xc3\xa9", b"2025-06-18", {"session": "\u00e9t\u00e9", "protocol_version": "2025-06-18"}),
])
def test_a_header_that_is_no_utf8_is_recorded_and_the_post_answered(tmp_path: Path, session: bytes, protocol: bytes,
                                                                     recorded: dict[str, str]) -> None:
    log = tmp_path / "f.jsonl"
    with proxy_http(["--log", str(log), "--", *stdio_command()]) as (url, _):
        status = _post(url, INIT, [(b"Mcp-Session-Id", session), (b"MCP-Protocol-Version", protocol)])
    assert status == 404  # a session the proxy never issued (2025-11-25 basic/transports: 404)
    refused = [r for r in _records(log) if r["kind"] == "refused"]
    assert [(r["dir"], r["http"]) for r in refused] == [
        ("c2s", {"exchange": 1, "method": "POST", **recorded})]


_LONG = "n" * 3_000_000


@pytest.mark.parametrize(("name", "session", "span_name", "attributes"), [
    ("get_forecast", "s-1", "tools/call get_forecast", {"gen_ai.tool.name": "get_forecast", "mcp.session.id": "s-1"}),
    # a line break, an ANSI sequence, a bidi override and a lone surrogate: visible escapes
    ("a\nb\u001b[2J\u202e", "s\udcff\n1", "tools/call a\\nb\\x1b[2J\\u202e",
     {"gen_ai.tool.name": "a\\nb\\x1b[2J\\u202e", "mcp.session.id": "s\\udcff\\n1"}),
    # a name of 3,000,000 characters: its first 1,024 and the count (as mcp_verdict.otel's spans)
    (_LONG, "s-1", "tools/call " + "n" * 1024 + "\u2026 (3000000 characters in all)",
     {"gen_ai.tool.name": "n" * 1024 + "\u2026 (3000000 characters in all)", "mcp.session.id": "s-1"}),
])
def test_a_peers_text_on_a_span_is_bounded_and_on_one_line(name: str, session: str, span_name: str,
                                                           attributes: dict[str, str]) -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from mcp_verdict.proxy import Relay
    from mcp_verdict.proxy._otel import telemetry

    exporter = InMemorySpanExporter()
    tracers = TracerProvider()
    tracers.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    relay = Relay(mode="enforce", telemetry=telemetry("tcp", tracer_provider=tracers,
                                                      meter_provider=MeterProvider(metric_readers=[reader])))
    relay.session = session  # the upstream's Mcp-Session-Id, as the HTTP upstream sets it
    relay.from_host(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": name, "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}).encode())
    relay.from_upstream(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":true}}')
    (span,) = exporter.get_finished_spans()
    shown = {k: v for k, v in (span.attributes or {}).items() if k in attributes}
    assert (span.name, shown) == (span_name, attributes)
    data = reader.get_metrics_data()
    assert data is not None
    (point,) = [p for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
                for p in m.data.data_points]
    assert dict(point.attributes or {})["gen_ai.tool.name"] == attributes["gen_ai.tool.name"]


TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def _proxy_with_sdk(spans: Path) -> list[str]:
    """The proxy's command in a process whose application configured the OpenTelemetry SDK (its
    spans to the OTLP JSON file exporter), in front of fault_server.py."""
    setup = ("from opentelemetry import trace\n"
             "from opentelemetry.exporter.otlp.json.file import FileSpanExporter\n"
             "from opentelemetry.sdk.trace import TracerProvider\n"
             "from opentelemetry.sdk.trace.export import SimpleSpanProcessor\n"
             "provider = TracerProvider()\n"
             f"provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter({str(spans)!r})))\n"
             "trace.set_tracer_provider(provider)\n"
             "from mcp_verdict.cli import main\n"
             "main()\n")
    server = str(Path(__file__).with_name("fault_server.py"))
    return [sys.executable, "-c", setup, "proxy", "--", sys.executable, server]


@pytest.mark.parametrize(("meta", "trace_state"), [
    ({"traceparent": TRACEPARENT, "tracestate": "congo=t61rcWkgMzE"}, "congo=t61rcWkgMzE"),
    # not a tracestate (a line break, an ESC): ignored, the span still parented on the traceparent;
    # the API's warning wrote it to stderr whole, a line of the host's log forged
    ({"traceparent": TRACEPARENT, "tracestate": "x=1,\nFORGED LINE \u001b[31m"}, ""),
    # a baggage past W3C's 8,192 bytes: the API's warning quoted its megabyte on one call's line
    ({"traceparent": TRACEPARENT, "baggage": "k=v\nFORGED BAGGAGE " + "y" * 1_000_000}, ""),
    ({"traceparent": TRACEPARENT, "baggage": "k=\u00e9"}, ""),  # not ASCII
])
def test_a_hosts_trace_context_never_writes_its_text_to_stderr(tmp_path: Path, meta: dict[str, str],
                                                               trace_state: str) -> None:
    spans = tmp_path / "spans.jsonl"
    peer = LinePeer(_proxy_with_sdk(spans))
    assert json.loads(peer.exchange(json.loads(INIT)) or b"{}")["id"] == 0
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {}, "_meta": meta}}
    assert json.loads(peer.exchange(call) or b"{}")["result"]["content"] == [{"type": "text", "text": "ok"}]
    assert (peer.close(), b"".join(peer.stderr)) == (0, b"")
    (span,) = [span for line in spans.read_text().splitlines() for rs in json.loads(line)["resourceSpans"]
               for ss in rs["scopeSpans"] for span in ss["spans"]]
    assert (span["name"], span["traceId"], span["parentSpanId"], span.get("traceState", "")) == (
        "tools/call echo", "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", trace_state)


@pytest.mark.parametrize("hook", ["on_start", "on_end"])
@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_span_processor_that_raises_costs_no_call(tmp_path: Path, mode: str, hook: str) -> None:
    """The application's tracing raises (a span processor of the SDK's, called in the relay as the
    span starts or ends): each call is still answered, and the next one too."""
    setup = ("from opentelemetry import trace\n"
             "from opentelemetry.sdk.trace import SpanProcessor, TracerProvider\n"
             "class Raising(SpanProcessor):\n"
             f"    def {hook}(self, *args, **kwargs):\n"
             "        raise RuntimeError('the exporter is down')\n"
             "provider = TracerProvider()\n"
             "provider.add_span_processor(Raising())\n"
             "trace.set_tracer_provider(provider)\n"
             "from mcp_verdict.cli import main\n"
             "main()\n")
    peer = LinePeer([sys.executable, "-c", setup, "proxy", "--mode", mode, "--log", str(tmp_path / "f.jsonl"), "--",
                     sys.executable, str(Path(__file__).with_name("fault_server.py"))])
    assert json.loads(peer.exchange(json.loads(INIT)) or b"{}")["id"] == 0
    answers = [peer.exchange({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                              "params": {"name": "echo", "arguments": {}}}) for n in (1, 2)]
    assert [json.loads(a or b"{}").get("result", {}).get("content") for a in answers] == [
        [{"type": "text", "text": "ok"}]] * 2
    assert peer.close() == 0
    kinds = [(r["dir"], r["kind"]) for r in _records(tmp_path / "f.jsonl")]
    assert kinds == [("c2s", "open"), *[("c2s", "message"), ("s2c", "message")] * 3, ("c2s", "eof"), ("s2c", "eof")]


@pytest.mark.parametrize(("args", "status", "said"), [
    (["--log", "a.jsonl", "--verdicts", "a.jsonl"], 2,
     "Error: --log 'a.jsonl' and --verdicts 'a.jsonl' name the same file: give each its own"),
    (["--log", "a.jsonl", "--verdicts", "sub/../a.jsonl"], 2,
     "Error: --log 'a.jsonl' and --verdicts 'sub/../a.jsonl' name the same file: give each its own"),
    (["--log", "a.jsonl", "--verdicts", "hard.jsonl"], 2,  # a hard link to a.jsonl
     "Error: --log 'a.jsonl' and --verdicts 'hard.jsonl' name the same file: give each its own"),
    (["--log", "a.jsonl", "--verdicts", "a.jsonl.2"], 2,
     "Error: --log 'a.jsonl' and --verdicts 'a.jsonl.2': --verdicts names a file --log rotates into (with "
     "--log-backups 3): give each its own"),
    (["--verdicts", "a.jsonl", "--log", "a.jsonl.1", "--log-backups", "1"], 2,
     "Error: --log 'a.jsonl.1' and --verdicts 'a.jsonl': --log names a file --verdicts rotates into (with "
     "--log-backups 1): give each its own"),
    (["--log", "a.jsonl", "--verdicts", "a.jsonl.2", "--log-backups", "1"], 0, None),  # past the last rotated name
    (["--log", "a.jsonl", "--verdicts", "v.jsonl"], 0, None),
    (["--log", "/dev/null", "--verdicts", "/dev/null"], 0, None),  # a device for both: never rotated, thrown away
])
def test_the_frame_log_and_the_verdict_lines_are_two_files(tmp_path: Path, args: list[str], status: int,
                                                           said: str | None) -> None:
    """One file for both mixed verdict lines into the frame log (lines the audit reads as damaged),
    and a rotation moved one file onto the other's."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.jsonl").touch()
    (tmp_path / "hard.jsonl").hardlink_to(tmp_path / "a.jsonl")
    done = subprocess.run([*PROXY, *args, "--", sys.executable, "-c", "pass"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60, check=False)
    lines = done.stderr.decode().splitlines()
    assert (done.returncode, lines[-1] if said else done.stderr) == (status, said if said else b"")
