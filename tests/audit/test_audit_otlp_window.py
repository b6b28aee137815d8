"""A call traced on both sides, its client span in the host's export and its server span in the
server's, is one call (README "The audit"); the exports are read in turn, and a span waits for its
other side within a window of 10,000 spans. Past the window the oldest is judged alone — and the
audit then judged every later call apart too: each span of the second export found its other side
gone (pushed out of the window by the span before it) and pushed the next one out, so 10,001 calls
traced on both sides gave 20,002 rows. Now a span whose other side was judged alone is no call of
its own but a ``stray`` problem naming that row: each call is counted once, memory stays bounded
(the keys of the spans judged alone, the last 100,000), and past that bound the audit says once
that later spans of the earliest may be counted apart.

The exports are written by hand in OpenTelemetry's OTLP JSON file format (one ``TracesData`` per
line; https://opentelemetry.io/docs/specs/otel/protocol/file-exporter/), one span a line, each call
its own trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import _otlp

from .test_audit_recorded import run

RESULT = '{"content":[],"resultType":"complete"}'


def _line(n: int, kind: int) -> str:
    """Call ``n``'s span: the client's (kind 3, the host's service) or the server's (kind 2)."""
    span = {"traceId": f"{n:032x}", "spanId": f"{n:016x}", "name": "tools/call t", "kind": kind,
            "startTimeUnixNano": str(1_790_000_000_000_000_000 + n),
            "endTimeUnixNano": str(1_790_000_000_000_000_001 + n),
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in {
                "mcp.method.name": "tools/call", "mcp.protocol.version": "2026-07-28", "jsonrpc.request.id": str(n),
                "gen_ai.tool.name": "t", "gen_ai.tool.call.result": RESULT}.items()]}
    service = "host" if kind == 3 else "srv"
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": service}}]}, "scopeSpans": [{"spans": [span]}]}]}) + "\n"


def _exports(tmp_path: Path, calls: int, which: str) -> list[Path]:
    host, server = tmp_path / "host.jsonl", tmp_path / "server.jsonl"
    host.write_text("".join(_line(n, 3) for n in range(1, calls + 1)))
    server.write_text("".join(_line(n, 2) for n in range(1, calls + 1)))
    named = {"host first": [host, server], "server first": [server, host], "host alone": [host]}[which]
    return [Path(path.name) for path in named]  # (run in tmp_path: the rows' sources as named)


def _judged_alone(kind: str, other: str, file: str, line: int) -> str:
    return (f"the {kind} span of a call counted already from its {other} span ({file}:{line}), judged alone past "
            "the window of 10000 spans waiting for their other side: what only this span holds is not in that "
            "call's row")


# (case, calls, the exports' order) → (rows, rows with the server's name, the first row's (file, line, server),
# the problems as (file, line, reason)); by hand: each call is one row
CASES: list[tuple[str, int, str, tuple[Any, ...]]] = [
    ("within the window", 10_000, "host first", (10_000, 10_000, ("host.jsonl", 1, "srv"), [])),
    ("past the window by one, the host's export first", 10_001, "host first",
     (10_001, 10_000, ("host.jsonl", 1, None),
      [("server.jsonl", 1, _judged_alone("server", "client", "host.jsonl", 1))])),
    ("past the window by one, the server's export first", 10_001, "server first",
     (10_001, 10_001, ("server.jsonl", 1, "srv"),
      [("host.jsonl", 1, _judged_alone("client", "server", "server.jsonl", 1))])),
    ("past the window, one export alone", 10_001, "host alone", (10_001, 0, ("host.jsonl", 1, None), [])),
]


@pytest.mark.parametrize(("name", "calls", "which", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_call_past_the_window_is_counted_once(tmp_path: Path, name: str, calls: int, which: str,
                                               expected: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    paths = _exports(tmp_path, calls, which)
    rows, problems, totals = run(paths)
    first = min(rows, key=lambda r: (r.source != str(paths[0]), r.line))
    assert (len(rows), sum(r.server == "srv" for r in rows), (Path(first.source).name, first.line, first.server),
            [(Path(p.source).name, p.line, p.reason) for p in problems]) == expected
    assert len({r.request_id for r in rows}) == calls
    assert totals.lines == calls * len(paths)


def _alone(file: str, line: int) -> str:
    return (f"the server span of a call counted already from its client span ({file}:{line}), judged alone past "
            "the window of 2 spans waiting for their other side: what only this span holds is not in that call's "
            "row")


FORGOT = ("more than 3 calls were judged from one span alone, past the window of 2 spans waiting for their other "
          "side: from here, a later span of the earliest of them is counted as a call of its own")


# (case, calls) → (the rows as (file, line, server), sorted; the problems as (file, line, reason)), with a window
# of 2 spans and the keys of 3 spans judged alone kept; each step by hand from the window's order:
SMALL: list[tuple[str, int, tuple[Any, ...]]] = [
    # host: calls 1 and 2 judged alone as 3 and 4 come; server: 1 and 2 find their keys, 3 and 4 their spans
    ("within the keys kept", 4,
     ([("host.jsonl", 1, None), ("host.jsonl", 2, None), ("host.jsonl", 3, "srv"), ("host.jsonl", 4, "srv")],
      [("server.jsonl", 1, _alone("host.jsonl", 1)), ("server.jsonl", 2, _alone("host.jsonl", 2))])),
    # host: calls 1-4 judged alone, the key of call 1 forgotten at line 6 (said there); server: call 1's span
    # finds no key and waits, pushing call 5 out (call 2's key forgotten), then 6 out (3's), then itself out
    # (4's), and so on: past the bound every later span is counted apart, as the note says
    ("past the keys kept", 6,
     ([("host.jsonl", n, None) for n in range(1, 7)] + [("server.jsonl", n, "srv") for n in range(1, 7)],
      [("host.jsonl", 6, FORGOT)])),
]


@pytest.mark.parametrize(("name", "calls", "expected"), SMALL, ids=[c[0] for c in SMALL])
def test_past_the_keys_kept_the_audit_says_so(tmp_path: Path, name: str, calls: int, expected: tuple[Any, ...],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_otlp, "WINDOW", 2)
    monkeypatch.setattr(_otlp, "PAST_KEPT", 3)
    rows, problems, _ = run(_exports(tmp_path, calls, "host first"))
    assert (sorted((Path(r.source).name, r.line, r.server) for r in rows),
            [(Path(p.source).name, p.line, p.reason) for p in problems]) == expected
