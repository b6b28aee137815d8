"""A 2025 server's own requests made while a tools/call waits (``elicitation/create``,
``sampling/createMessage``, ``roots/list``: JSON-RPC requests to the client, 2025-06-18 and
2025-11-25 client/elicitation, client/sampling, client/roots) are judged by the audit as
mcp-verdict's client judges them (``verdict._input.check_server_request``), under the rules of
the version in force and the capabilities the client declared in ``initialize``: the round's
row says ``input_required`` or ``unclassified``, and a call with a refused request ends
``unclassified`` with that request's findings added after its answer's (the client's words:
"the server's METHOD request (at POINTER): ..."), whatever its answer was. A naive receiver
still took that answer as success: the call is a naive false success.

Before, such a request was a round with no verdict (its kind null in ``--json`` and Parquet) and
the call was judged on its answer alone (``normal_complete``): the README's "each round is
judged" held for every round but these.

Hand-written frame logs (format v1) and JSON-RPC JSON Lines; every expected value written by
hand from each version's ``schema.json`` (``ElicitRequestFormParams``, ``ElicitRequestURLParams``
and its required ``elicitationId``, ``PrimitiveSchemaDefinition``, ``CreateMessageRequestParams``,
``ClientCapabilities``) and the client's rules (client/elicitation "Capabilities": an empty
``elicitation`` object is form mode alone; client/sampling "Tools in Sampling": no tool-enabled
request without ``sampling.tools``)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

from mcp_verdict.audit import Auditor, CallRow, Entry, _parts
from mcp_verdict.frames import FrameRecord, encode

from .test_audit_recorded import run

V3, V2 = b"2025-11-25", b"2025-06-18"
ALL = b'{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}}'
FORM_ONLY = b'{"elicitation":{},"sampling":{},"roots":{}}'
NO_ROOTS = b'{"elicitation":{"form":{},"url":{}}}'
E, M, R, T = "elicitation/create", "sampling/createMessage", "roots/list", "tools/call"

FORM = b'{"message":"Pick","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}'
OBJECT_PROPERTY = b'{"message":"Pick","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}'
URL_NO_ID = b'{"mode":"url","message":"Sign in","url":"https://example.com/login"}'
URL = b'{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"e1"}'
DUPLICATE = b'{"message":"Pick","message":"Again","requestedSchema":{"type":"object","properties":{}}}'
SAMPLE_TOOLS = b'{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,' \
               b'"tools":[{"name":"w","inputSchema":{"type":"object"}}]}'

ACCEPTED = b'{"action":"accept","content":{"a":"x"}}'
REFUSED = b'{"code":-32602,"message":"refused"}'
DONE = b'{"content":[{"type":"text","text":"ok"}],"isError":false}'
TOOL_ERROR = b'{"content":[{"type":"text","text":"no"}],"isError":true}'


def init(version: bytes, capabilities: bytes) -> list[tuple[str, bytes]]:
    return [("c2s", b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s",'
                    b'"capabilities":%s,"clientInfo":{"name":"c","version":"1"}}}' % (version, capabilities)),
            ("s2c", b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},'
                    b'"serverInfo":{"name":"s","version":"1"}}}' % version)]


def call(rid: int, tool: str = "t") -> tuple[str, bytes]:
    return "c2s", b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{}}}' % (
        rid, tool.encode())


def ask(rid: int, method: str, params: bytes | None) -> tuple[str, bytes]:
    """The server's request (its own ids, from 7 here: the JSON-RPC files need no id shared)."""
    tail = b',"params":%s' % params if params is not None else b""
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"method":"%s"%s}' % (rid, method.encode(), tail)


def reply(rid: int, result: bytes = ACCEPTED, *, error: bool = False) -> tuple[str, bytes]:
    """The client's answer to the server's request."""
    return "c2s", b'{"jsonrpc":"2.0","id":%d,"%s":%s}' % (rid, b"error" if error else b"result", result)


def answer(rid: int, result: bytes = DONE, *, error: bool = False) -> tuple[str, bytes]:
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"%s":%s}' % (rid, b"error" if error else b"result", result)


def frame_log(frames: list[tuple[Any, ...]], transport: Literal["stdio", "http"] = "stdio") -> bytes:
    """Per line (direction, data[, HTTP exchange]); ("close",) a close record."""
    out = []
    for seq, frame in enumerate(frames, 1):
        if frame[0] == "close":
            out.append(encode(FrameRecord("c1", seq, 1_790_000_000.0 + seq, "s2c", "close", transport=transport)))
            continue
        http = {"exchange": frame[2], "method": "POST"} if len(frame) > 2 else None
        out.append(encode(FrameRecord("c1", seq, 1_790_000_000.0 + seq, frame[0], "message", frame[1],
                                      transport=transport, http=http)))
    return b"".join(out)


def jsonrpc_lines(frames: list[tuple[Any, ...]]) -> bytes:
    """The same messages as JSON-RPC JSON Lines (no directions: the audit infers them)."""
    return b"".join(frame[1] + b"\n" for frame in frames)


# One call per log. (case, version, capabilities, frames between initialize and the end) →
# (the call's kind, its first answer's kind, its findings as (code, path), its naive conclusion,
# naive false success, its rounds as (method, kind), its end), all by hand.
Case = tuple[str, bytes, bytes, list[tuple[Any, ...]], tuple[Any, ...]]
OK: list[tuple[str, str]] = []
CASES: list[Case] = [
    # a valid request: the round is input_required, the call's verdict is its answer's
    ("a valid form elicitation", V3, ALL, [call(1), ask(7, E, FORM), reply(7), answer(1)],
     ("normal_complete", "normal_complete", OK, "success", False,
      [(E, "input_required"), (T, "normal_complete")], "answered")),
    ("a valid url elicitation", V3, ALL, [call(1), ask(7, E, URL), reply(7, b'{"action":"accept"}'), answer(1)],
     ("normal_complete", "normal_complete", OK, "success", False,
      [(E, "input_required"), (T, "normal_complete")], "answered")),
    ("valid sampling and roots", V3, ALL,
     [call(1), ask(7, M, SAMPLE_TOOLS),
      reply(7, b'{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}'), ask(8, R, None),
      reply(8, b'{"roots":[]}'), answer(1)],
     ("normal_complete", "normal_complete", OK, "success", False,
      [(M, "input_required"), (R, "input_required"), (T, "normal_complete")], "answered")),
    # 2025-11-25 PrimitiveSchemaDefinition: string, number/integer, boolean, enums; no object
    ("a property of type object", V3, ALL, [call(1), ask(7, E, OBJECT_PROPERTY), reply(7), answer(1)],
     ("unclassified", "normal_complete", [("elicitation.property", "")], "success", True,
      [(E, "unclassified"), (T, "normal_complete")], "answered")),
    # our client answers -32602 to a refused request; the tool then reports its error: still the server's fault
    ("refused upstream, then a tool error", V3, ALL,
     [call(1), ask(7, E, OBJECT_PROPERTY), reply(7, REFUSED, error=True), answer(1, TOOL_ERROR)],
     ("unclassified", "tool_error", [("elicitation.property", "")], "success", True,
      [(E, "unclassified"), (T, "tool_error")], "answered")),
    # 2025-11-25 ElicitRequestURLParams requires elicitationId
    ("url mode without elicitationId", V3, ALL, [call(1), ask(7, E, URL_NO_ID), reply(7), answer(1)],
     ("unclassified", "normal_complete", [("input.params", "")], "success", True,
      [(E, "unclassified"), (T, "normal_complete")], "answered")),
    # ... and an empty elicitation capability is form mode alone: url mode was not declared either
    ("url mode without elicitationId, form declared", V3, FORM_ONLY,
     [call(1), ask(7, E, URL_NO_ID), reply(7), answer(1)],
     ("unclassified", "normal_complete", [("input.params", ""), ("input.capability", "")], "success", True,
      [(E, "unclassified"), (T, "normal_complete")], "answered")),
    # 2025-06-18's ElicitRequest has form mode alone (params: message and requestedSchema required)
    ("url mode on 2025-06-18", V2, ALL, [call(1), ask(7, E, URL), reply(7), answer(1)],
     ("unclassified", "normal_complete", [("input.params", "")], "success", True,
      [(E, "unclassified"), (T, "normal_complete")], "answered")),
    # tool-enabled sampling without sampling.tools declared; roots not declared
    ("tools in sampling, not declared", V3, FORM_ONLY,
     [call(1), ask(7, M, SAMPLE_TOOLS), reply(7, REFUSED, error=True), answer(1)],
     ("unclassified", "normal_complete", [("input.capability", "")], "success", True,
      [(M, "unclassified"), (T, "normal_complete")], "answered")),
    ("roots, not declared", V3, NO_ROOTS, [call(1), ask(7, R, b"{}"), reply(7, b'{"roots":[]}'), answer(1)],
     ("unclassified", "normal_complete", [("input.capability", "")], "success", True,
      [(R, "unclassified"), (T, "normal_complete")], "answered")),
    ("elicitation without params", V3, ALL, [call(1), ask(7, E, None), reply(7, REFUSED, error=True), answer(1)],
     ("unclassified", "normal_complete", [("input.params", "")], "success", True,
      [(E, "unclassified"), (T, "normal_complete")], "answered")),
    # the request's own bytes are read strictly (RFC 8259 names unique; MCP messages are JSON)
    ("a duplicate member in the request", V3, ALL, [call(1), ask(7, E, DUPLICATE), reply(7), answer(1)],
     ("unclassified", "normal_complete", [("json.duplicate_key", "")], "success", True,
      [(E, "unclassified"), (T, "normal_complete")], "answered")),
    # of two requests only the refused one's findings; the valid one stays input_required
    ("one valid, one refused", V3, ALL,
     [call(1), ask(7, E, FORM), reply(7), ask(8, E, URL_NO_ID), reply(8), answer(1)],
     ("unclassified", "normal_complete", [("input.params", "")], "success", True,
      [(E, "input_required"), (E, "unclassified"), (T, "normal_complete")], "answered")),
    ("two refused", V3, FORM_ONLY,
     [call(1), ask(7, E, OBJECT_PROPERTY), reply(7), ask(8, E, URL_NO_ID), reply(8), answer(1)],
     ("unclassified", "normal_complete",
      [("elicitation.property", ""), ("input.params", ""), ("input.capability", "")], "success", True,
      [(E, "unclassified"), (E, "unclassified"), (T, "normal_complete")], "answered")),
    # the answer's findings first, then the request's; a protocol error is no naive success
    ("refused, then a protocol error", V3, ALL,
     [call(1), ask(7, E, OBJECT_PROPERTY), reply(7), answer(1, b'{"code":-32603,"message":"x"}', error=True)],
     ("unclassified", "protocol_error", [("elicitation.property", "")], "failure", False,
      [(E, "unclassified"), (T, "protocol_error")], "answered")),
    ("refused, then the connection closes", V3, ALL, [call(1), ask(7, E, OBJECT_PROPERTY), reply(7), ("close",)],
     ("unclassified", "unclassified", [("transport.closed", ""), ("elicitation.property", "")], "no_response", False,
      [(E, "unclassified"), (T, "unclassified")], "closed")),
    # a server request that is no input request (ping goes either way) is a round judged by nothing
    ("a ping round", V3, ALL,
     [call(1), ("s2c", b'{"jsonrpc":"2.0","id":7,"method":"ping"}'), ("c2s", b'{"jsonrpc":"2.0","id":7,"result":{}}'),
      answer(1)],
     ("normal_complete", "normal_complete", OK, "success", False, [("ping", None), (T, "normal_complete")],
      "answered")),
]


def shape(row: CallRow) -> tuple[Any, ...]:
    return (row.kind, row.first_kind, [(f.code, f.path) for f in row.findings], row.naive, row.naive_false_success,
            [(r.method, r.kind) for r in row.rounds], row.end)


@pytest.mark.parametrize("format", ["framelog", "jsonrpc"])
@pytest.mark.parametrize(("name", "version", "capabilities", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_server_request_is_judged_and_a_refused_one_makes_the_call_unclassified(
        tmp_path: Path, name: str, version: bytes, capabilities: bytes, frames: list[tuple[Any, ...]],
        expected: tuple[Any, ...], format: str) -> None:
    whole = [*init(version, capabilities), *frames]
    path = tmp_path / "log.jsonl"
    if format == "jsonrpc":
        if ("close",) in frames or name == "a ping round":
            pytest.skip("a JSON-RPC file records no close, and says no direction: a ping is read as the client's")
        path.write_bytes(jsonrpc_lines(whole))
    else:
        path.write_bytes(frame_log(whole))
    rows, problems, _ = run([path])
    assert problems == []
    assert [shape(r) for r in rows] == [expected]
    if expected[0] == "unclassified":  # never accepted
        assert not rows[0].accepted
        assert rows[0].action == ("check_state" if expected[6] == "closed" else "investigate")


@pytest.mark.parametrize(("name", "version", "capabilities", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_same_when_the_log_is_cut_into_parts(tmp_path: Path, name: str, version: bytes, capabilities: bytes,
                                                 frames: list[tuple[Any, ...]], expected: tuple[Any, ...],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes, a part a line or so: a refused request answered in one part, the call's answer
    in the next (what the auditor holds of the call crosses: ``Auditor.export``, ``adopt``)."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(version, capabilities), *frames]))
    monkeypatch.setattr(_parts, "_STRIPE", 1)
    rows, problems, _ = run([path], jobs=2)
    assert problems == []
    assert [shape(r) for r in rows] == [expected]


def feed(auditor: Auditor, frames: list[tuple[Any, ...]], first: int) -> list[Entry]:
    out: list[Entry] = []
    for line, frame in enumerate(frames, first):
        if frame[0] == "close":
            out += auditor.record("c1", "close", "s2c", line=line)
        else:
            out += auditor.message("c1", frame[0], frame[1], float(line), line, line, None, "stdio")
    return out


def continued(whole: list[tuple[Any, ...]], cut: int) -> list[Entry]:
    """The entries of ``whole`` read by one auditor to line ``cut``, then by another that adopts
    what the first held of the connection (``export``, pickled as between the audit's processes)."""
    before = Auditor()
    entries = feed(before, whole[:cut], 1)
    after = Auditor()
    for conn, held in pickle.loads(pickle.dumps(before.export())):
        after.adopt(conn, held)
    return entries + feed(after, whole[cut:], cut + 1) + after.end()


@pytest.mark.parametrize(("name", "version", "capabilities", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_same_when_another_auditor_continues_the_connection(
        name: str, version: bytes, capabilities: bytes, frames: list[tuple[Any, ...]],
        expected: tuple[Any, ...]) -> None:
    """At every line: what one auditor holds of the connection (``export``, pickled as between the
    audit's processes) handed to another (``adopt``), which reads on: a refused request answered
    before the cut, the call's answer after it."""
    whole = [*init(version, capabilities), *frames]
    for cut in range(len(whole) + 1):
        entries = continued(whole, cut)
        assert [shape(e) for e in entries if isinstance(e, CallRow)] == [expected], cut


def test_the_findings_name_the_request_and_where_in_it(tmp_path: Path) -> None:
    """The client's words (``VerdictClient``: the finding at the call's message, its text naming
    the method and the pointer into the request), after the answer's own findings."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, FORM_ONLY), call(1), ask(7, E, URL_NO_ID), reply(7), ("close",)]))
    rows, _, _ = run([path])
    assert [(f.code, f.severity, f.path, f.message) for f in rows[0].findings] == [
        ("transport.closed", "error", "", "the connection closed before an answer"),
        ("input.params", "error", "",
         "the server's elicitation/create request (at /params): a url-mode elicitation needs an elicitationId on "
         "2025-11-25"),
        ("input.capability", "error", "",
         "the server's elicitation/create request: the client declared elicitation modes ['form']; the server "
         "MUST NOT send a url-mode elicitation")]
    assert rows[0].action == "check_state"  # (the answer never came: its effect is unknown, as before)


# Over HTTP a server request belongs to the call waiting on its exchange; over stdio to the only call
# waiting. (case, frames, transport) → per call (tool, kind, finding codes, rounds' kinds), by hand.
HTTP_CASES: list[tuple[str, list[tuple[Any, ...]], Literal["stdio", "http"], list[tuple[Any, ...]]]] = [
    ("http: the refused request in the second call's exchange",
     [(*call(1, "a"), 3), (*call(2, "b"), 4), (*ask(7, E, OBJECT_PROPERTY), 4), (*reply(7), 5),
      (*answer(1), 3), (*answer(2), 4)], "http",
     [("a", "normal_complete", [], [T]), ("b", "unclassified", ["elicitation.property"], [E, T])]),
    # two calls waiting on stdio: which one asked cannot be told: neither's (the request is a message line)
    ("stdio: two calls waiting",
     [call(1, "a"), call(2, "b"), ask(7, E, OBJECT_PROPERTY), reply(7), answer(1), answer(2)], "stdio",
     [("a", "normal_complete", [], [T]), ("b", "normal_complete", [], [T])]),
    # no call waiting: a message line, no call's
    ("stdio: no call waiting",
     [call(1, "a"), answer(1), ask(7, E, OBJECT_PROPERTY), reply(7)], "stdio",
     [("a", "normal_complete", [], [T])]),
]


@pytest.mark.parametrize(("name", "frames", "transport", "expected"), HTTP_CASES, ids=[c[0] for c in HTTP_CASES])
def test_a_refused_request_goes_to_the_call_it_was_made_during(
        tmp_path: Path, name: str, frames: list[tuple[Any, ...]], transport: Literal["stdio", "http"],
        expected: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), *frames], transport))
    rows, problems, _ = run([path])
    assert problems == []
    assert [(r.tool, r.kind, [f.code for f in r.findings], [x.method for x in r.rounds]) for r in rows] == expected


def test_the_cli_json_parquet_and_summary(tmp_path: Path) -> None:
    """``mcp-verdict audit --json --parquet``: the refused call is unclassified with the request's
    finding, its server request round ``unclassified`` (null before) in both, it counts as a
    naive false success in the summary, and the exit status says some were found (1)."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(frame_log([*init(V3, ALL), call(1, "bad"), ask(7, E, OBJECT_PROPERTY), reply(7), answer(1),
                                call(2, "good"), ask(8, E, FORM), reply(8), answer(2)]))
    table = tmp_path / "calls.parquet"
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", "audit", str(path), "--json", "--parquet", str(table)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    calls = {o["tool"]: o for o in objects if o["type"] == "call"}
    summary = objects[-1]
    bad, good = calls["bad"], calls["good"]
    assert (bad["kind"], bad["first_kind"], bad["finding"], bad["naive"], bad["naive_false_success"],
            bad["decision"]["action"]) == ("unclassified", "normal_complete", "elicitation.property", "success", True,
                                           "investigate")
    assert [(r["method"], r["request_id"], r["kind"]) for r in bad["rounds"]] == [
        (E, "7", "unclassified"), (T, "1", "normal_complete")]
    assert (good["kind"], good["naive_false_success"], [r["kind"] for r in good["rounds"]]) == (
        "normal_complete", False, ["input_required", "normal_complete"])
    assert summary["naive_false_successes"] == 1
    assert summary["naive_false_successes_by_tool"] == [
        {"server": "s", "tool": "bad", "false_successes": 1, "calls": 1}]
    import pyarrow.parquet as pq

    rows = {r["tool"]: r for r in pq.read_table(table).to_pylist()}
    assert [(r["method"], r["kind"]) for r in rows["bad"]["round_details"]] == [
        (E, "unclassified"), (T, "normal_complete")]
    assert (rows["bad"]["kind"], rows["bad"]["finding"], rows["bad"]["naive_false_success"]) == (
        "unclassified", "elicitation.property", True)
    assert [r["kind"] for r in rows["good"]["round_details"]] == ["input_required", "normal_complete"]
