"""Which server span is which client span's, in an OTLP JSON trace export (README "The audit": a
call traced on both sides is one call). A host calls two servers in one trace, each call with
request id 1 and tool ``t`` (each session numbers its own ids): the spans' trace, request id and
tool are the same, and the audit paired a server span with whichever client span waited under
them — server B's answer judged as server A's call. The MCP conventions make the client span the
parent of the server span, the trace context carried in the request's ``_meta``
(open-telemetry/semantic-conventions docs/gen-ai/mcp.md, "Context propagation": "The MCP client
span becomes a parent of the MCP server span regardless of transport used"), and name the session
on both sides (``mcp.session.id``): where the export records them, each server span goes to its
own client span, in any order; where it records neither, spans pair as they always did.

The exports are written by hand in OpenTelemetry's OTLP JSON file format (one ``TracesData`` per
line; https://opentelemetry.io/docs/specs/otel/protocol/file-exporter/), one span a line. Server
A's call completes; server B's is a tool error (``isError: true``), both recorded on the server
span (``gen_ai.tool.call.result``), the client spans recording no result: a row's kind and server
say which server span was merged into it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .test_audit_recorded import run

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
DONE = '{"content":[{"type":"text","text":"ok"}],"isError":false}'
FAILED = '{"content":[{"type":"text","text":"no"}],"isError":true}'


def span(which: str, *, ids: bool = True, parents: bool = True, sessions: bool = False,
         parent: str | None = None, trace: str = TRACE) -> str:
    """One span a line: ``CA``/``CB`` the host's client span of its call to server A/B, ``SA``/``SB``
    that server's span (spanId ``a1``... as written; a server span's parent its client span, or
    ``parent``; ``sessions``: each call's session named on both sides)."""
    client = which[0] == "C"
    server = which[1].lower()
    attributes: dict[str, str] = {"mcp.method.name": "tools/call", "mcp.protocol.version": "2025-06-18",
                                  "jsonrpc.request.id": "1", "gen_ai.tool.name": "t"}
    if not client:
        attributes["gen_ai.tool.call.result"] = DONE if server == "a" else FAILED
    if sessions:
        attributes["mcp.session.id"] = f"session-{server}"
    record: dict[str, Any] = {"traceId": trace, "name": "tools/call t", "kind": 3 if client else 2,
                              "startTimeUnixNano": "1790000000000000000", "endTimeUnixNano": "1790000000000000001",
                              "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]}
    if ids:
        record["spanId"] = f"{server}{1 if client else 2}".ljust(16, "0")
        if not client and parents:
            record["parentSpanId"] = parent or f"{server}1".ljust(16, "0")
    service = "host" if client else f"server-{server}"
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": service}}]}, "scopeSpans": [{"spans": [record]}]}]}) + "\n"


A = ("server-a", "normal_complete")
B = ("server-b", "tool_error")
HOST_A = (None, None)  # a client span judged alone: no result on it, no server (counted, not judged)
# (case, the export's lines) → per row (its line, the server span merged into it: its service and the kind), by hand
CASES: list[tuple[str, list[str], list[tuple[Any, ...]]]] = [
    ("parents: clients first, servers in the other order",
     [span("CA"), span("CB"), span("SB"), span("SA")], [(2, *B), (1, *A)]),
    ("parents: the other server's span before the second client's",
     [span("CA"), span("SB"), span("CB"), span("SA")], [(3, *B), (1, *A)]),
    ("parents: servers first",
     [span("SB"), span("SA"), span("CA"), span("CB")], [(3, *A), (4, *B)]),
    ("parents: each server before the other's client",
     [span("SA"), span("CB"), span("SB"), span("CA")], [(2, *B), (4, *A)]),
    # no parent recorded, the session named on both sides
    ("sessions: the other server's span before the second client's",
     [span("CA", parents=False, sessions=True), span("SB", parents=False, sessions=True),
      span("CB", parents=False, sessions=True), span("SA", parents=False, sessions=True)], [(3, *B), (1, *A)]),
    ("sessions, no ids: servers first",
     [span("SB", ids=False, sessions=True), span("SA", ids=False, sessions=True),
      span("CA", ids=False, sessions=True), span("CB", ids=False, sessions=True)], [(3, *A), (4, *B)]),
    # the export says nothing: the server span pairs with the latest client span waiting, a second client span
    # puts the first out of waiting (judged alone), as the audit always did — which is which cannot be told
    ("nothing said: the other server's span before the second client's",
     [span("CA", ids=False), span("SB", ids=False), span("CB", ids=False), span("SA", ids=False)],
     [(1, *B), (3, *A)]),
    ("nothing said: clients first",
     [span("CA", ids=False), span("CB", ids=False), span("SB", ids=False), span("SA", ids=False)],
     [(1, *HOST_A), (2, *B), (4, *A)]),
    # span ids without parents (no context carried): as when nothing is said, but two client spans of distinct
    # ids both wait (each may have its server span)
    ("span ids, no parents: the other server's span before the second client's",
     [span("CA", parents=False), span("SB", parents=False), span("CB", parents=False), span("SA", parents=False)],
     [(1, *B), (3, *A)]),
    # one call: a server span whose parent is its client span, or that records none, is that call's
    ("one call, its server span's parent the client span", [span("CA"), span("SA")], [(1, *A)]),
    ("one call, no parent recorded", [span("CA"), span("SA", parents=False)], [(1, *A)]),
    # a server span whose parent is another span (the client span not its parent: not its call) is a call of its own
    ("a server span whose parent is another span", [span("CA"), span("SA", parent="ffffffffffffffff")],
     [(1, *HOST_A), (2, *A)]),
    ("another trace", [span("CA"), span("SA", trace="0" * 32)], [(1, *HOST_A), (2, *A)]),
]


@pytest.mark.parametrize(("name", "lines", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_server_span_is_merged_into_its_own_client_span(tmp_path: Path, name: str, lines: list[str],
                                                             expected: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(lines))
    rows, problems, totals = run([path])
    assert sorted((r.line, r.server, r.kind) for r in rows) == sorted(expected)
    assert all(r.request_id == "1" and r.tool == "t" for r in rows)
    assert problems == [] and totals.tally["call"] == len(lines)


def test_the_host_and_the_servers_exports_read_in_turn(tmp_path: Path) -> None:
    """The host's export (both client spans) and the servers' (server B's span first), read in turn,
    either first: each call is one row, with its own server's answer."""
    host, servers = tmp_path / "host.jsonl", tmp_path / "servers.jsonl"
    host.write_text(span("CA") + span("CB"))
    servers.write_text(span("SB") + span("SA"))
    for paths in ([host, servers], [servers, host]):
        rows, problems, _ = run(paths)
        assert sorted((Path(r.source).name, r.line, r.server, r.kind) for r in rows) == [
            ("host.jsonl", 1, *A), ("host.jsonl", 2, *B)], paths
        assert problems == []
