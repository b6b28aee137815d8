"""Property: whatever a recorded line holds, the audit never raises, and every line is accounted
for — in each input format, and on through the report's figures, the HTML page and the Parquet
rows. The lines are a well-formed conversation of each format with up to three members or items
(or whole lines) replaced by any JSON value (numbers past what a float or a datetime holds, odd
digits, escape sequences) or removed, as a damaged or hostile log has them."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict.audit import CallRow, audit_files
from mcp_verdict.audit._html import render
from mcp_verdict.audit._summary import Summary

ODD_NUMBERS = st.sampled_from([0, -1, 1e300, -1e300, 2**64, 10**400, 253402300800, 1.5, True])
ODD_TEXT = st.sampled_from(["", "²", "007", "9" * 5000, "\x1b[2J", "[bold]x[/]", "\ud800", "tools/call"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
    | ODD_NUMBERS | ODD_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8) | ODD_TEXT, inner, max_size=3),
    max_leaves=8)


CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
RESULT = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}],
                                                 "resultType": "complete"}}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                     "serverInfo": {"name": "s", "version": "1"}}}


def _record(seq: int, direction: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "conn": "c", "seq": seq, "t": 1.0 + seq, "dir": direction, "kind": "message", "data": message}


def _span(request_id: str) -> dict[str, Any]:
    attributes = {"mcp.method.name": "tools/call", "jsonrpc.request.id": request_id, "gen_ai.tool.name": "t",
                  "mcp.protocol.version": "2026-07-28", "gen_ai.tool.call.result": json.dumps(RESULT["result"])}
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "s"}}]},
                               "scopeSpans": [{"spans": [{
                                   "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
                                   "name": "tools/call t", "kind": 3, "startTimeUnixNano": "1700000000000000000",
                                   "endTimeUnixNano": "1700000000500000000", "status": {"message": "m"},
                                   "attributes": [{"key": k, "value": {"stringValue": v}}
                                                  for k, v in attributes.items()]}]}]}]}


# Well-formed conversations: the server's initialize answer, a call and its answer; two spans.
CONVERSATIONS: dict[str, list[Any]] = {
    "framelog": [_record(0, "s2c", INITIALIZE), _record(1, "c2s", CALL), _record(2, "s2c", RESULT)],
    "jsonrpc": [INITIALIZE, CALL, RESULT],
    "otlp": [_span("1"), _span("2")],
}
DELETE = object()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every member and item of a JSON value, as the keys leading to it."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    out = []
    for key, inner in items:
        out.append((*prefix, key))
        out.extend(_paths(inner, (*prefix, key)))
    return out


def _mutated(lines: list[Any], mutations: list[tuple[int, tuple[Any, ...], Any]]) -> list[Any]:
    lines = copy.deepcopy(lines)
    for line, path, value in mutations:
        if not path:  # the whole line (DELETE: a blank line)
            lines[line] = value
            continue
        *parents, key = path
        holder = lines[line]
        for parent in parents:  # an earlier mutation may have replaced or removed the way there
            holder = holder[parent] if isinstance(holder, dict | list) and _has(holder, parent) else None
        if not (isinstance(holder, dict | list) and _has(holder, key)):
            continue
        if value is DELETE:
            del holder[key]
        else:
            holder[key] = value
    return lines


def _has(holder: dict[Any, Any] | list[Any], key: Any) -> bool:
    return key in holder if isinstance(holder, dict) else isinstance(key, int) and key < len(holder)


@st.composite
def _mutation(draw: st.DrawFn, conversation: list[Any]) -> tuple[int, tuple[Any, ...], Any]:
    line = draw(st.integers(0, len(conversation) - 1))
    path = draw(st.sampled_from(((), *_paths(conversation[line]))))
    return line, path, draw(st.one_of(ODD_NUMBERS, ODD_TEXT, st.just(DELETE), VALUES))


def _encoded(value: Any) -> str:
    if value is DELETE:
        return ""
    if isinstance(value, dict) and isinstance(value.get("data"), dict | list):  # a frame log record
        value = {**value, "data": json.dumps(value["data"])}
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("input_format", list(CONVERSATIONS))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_line_is_audited_and_counted(input_format: str, data: st.DataObject) -> None:
    conversation = CONVERSATIONS[input_format]
    mutations = data.draw(st.lists(_mutation(conversation), max_size=3))
    chosen = [_encoded(line) for line in _mutated(conversation, mutations)] * data.draw(st.integers(1, 2))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "recorded.jsonl"
        path.write_bytes("".join(line + "\n" for line in chosen).encode("utf-8", "surrogatepass"))
        inputs, totals, entries = audit_files([str(path)], format=input_format)
        summary = Summary()
        rows = []
        for entry in entries:
            summary.add(entry)
            if isinstance(entry, CallRow):
                rows.append(entry)
                json.dumps(entry.to_dict(), ensure_ascii=False)
        assert totals.lines == len(chosen)
        assert sum(totals.tally.values()) == len(chosen)
        render(summary, totals.tally, [(i.path, i.format, i.fidelity) for i in inputs])
        json.dumps(summary.to_dict(), ensure_ascii=False)
        if rows:
            pytest.importorskip("pyarrow")
            from mcp_verdict.audit._arrow import calls_batch

            assert calls_batch(rows).num_rows == len(rows)
