"""``tools/call`` spans of an OTLP JSON trace export, judged as far as a span can say.

The export is what OpenTelemetry's OTLP file exporter writes: one ``TracesData`` JSON object
per line (https://opentelemetry.io/docs/specs/otel/protocol/file-exporter/), spans with the MCP
semantic conventions (https://github.com/open-telemetry/semantic-conventions-genai,
docs/gen-ai/mcp.md): ``mcp.method.name``, ``jsonrpc.request.id``, ``gen_ai.tool.name``,
``mcp.session.id``, ``mcp.protocol.version``, ``error.type`` / ``rpc.response.status_code``,
and, opt-in, ``gen_ai.tool.call.result`` (as JSON text in a string, or in the structured form the
conventions ask for, an AnyValue: a ``kvlistValue`` for the result object, written back as JSON text
with its members in their recorded order, a key recorded twice kept twice).

What a span can show, per row (``fidelity``):

- ``parsed``: the span records the result (``gen_ai.tool.call.result``). It is classified as
  the text the instrumentation recorded, wrapped in a JSON-RPC envelope: what the result holds
  is judged (isError, resultType, content blocks, structuredContent), but not the wire — the
  envelope (id, jsonrpc member) is ours, and a result the instrumentation re-serialised has
  already lost duplicate keys and NaNs (``isError: "false"`` survives, a duplicated one does not).
- ``status``: no result. A JSON-RPC error code in ``error.type`` is a protocol_error with that
  code; ``error.type: "tool_error"`` is a tool error (its content unknown); any other
  ``error.type`` is the client's own failure (an exception: the effect is unknown). A span with
  no error and no result is counted, and not judged (``kind`` is empty): a result arrived, so a
  naive receiver called it a success, and nothing in the span says whether it was one.

A call traced on both sides (the client's span and the server's, in one trace with the same
request id and tool) is one call: the two spans are merged. Which server span is which client
span's is told by the spans' ids where the export says it: the MCP conventions make the client
span the parent of the server span (the trace context carried in the request's ``_meta``,
docs/gen-ai/mcp.md "Context propagation"), so a server span whose ``parentSpanId`` is a client
span's ``spanId`` is that span's other side, and no other's; two spans whose ids say otherwise
(the server span's parent another span), or whose ``mcp.session.id`` differ, are two calls.
Spans of one kind told apart so (client spans of distinct ``spanId``, server spans of distinct
``parentSpanId``) wait side by side: two servers' calls under one id and tool in one trace do not
cross. A span whose ids say nothing (none recorded) pairs as it always did, with the latest span
of the other kind waiting under the trace, id and tool, and a second one of its kind puts the
first out of waiting. A span waits for its other side
within a window of :data:`WINDOW` spans; past it the oldest is judged alone, and the key of each
span judged so is kept (the last :data:`PAST_KEPT`): its other side, when it comes, is no call of
its own but a ``stray`` problem naming the row it belongs to (the call is counted once, without
what only the later span held). Past that too, the audit says once that a later span of the
earliest calls judged alone would be counted as a call of its own.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ..judgement._decide import Action, decide
from ..judgement._outcome import evaluate
from ..verdict._classify import classify
from ..verdict._findings import RULES
from ..verdict._kind import Kind
from ..verdict._peer_text import utf8_text
from ..verdict._versions import VERSIONS
from ._auditor import END_OF_INPUT, Auditor
from ._formats import lenient_json
from ._judge import naive as naive_of
from ._judge import unanswered
from ._rows import CallRow, Entry, FindingRow, Problem, RoundRow

WINDOW: Final = 10_000
"""Spans waiting for their other side (memory bound)."""
PAST_KEPT: Final = 100_000
"""Keys of spans judged alone past the window, kept to recognise their other side (memory bound)."""
_SPAN_KINDS: Final = {1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer",
                      "SPAN_KIND_SERVER": "server", "SPAN_KIND_CLIENT": "client"}


def _value(raw: Any) -> Any:
    if not isinstance(raw, Mapping):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in raw:
            return raw[key]
    if "intValue" in raw:
        try:
            return int(raw["intValue"])
        except (TypeError, ValueError):
            return None
    if "kvlistValue" in raw or "arrayValue" in raw or "bytesValue" in raw:
        return _Structured(raw)
    return None


class _Structured:
    """An attribute in an AnyValue's structured form (``kvlistValue``, ``arrayValue``,
    ``bytesValue``; https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): kept raw, read
    only where a JSON value is wanted (:func:`_json_text`)."""

    __slots__ = ("raw",)

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw


def _json_text(raw: Any) -> bytes:
    """An AnyValue as JSON text: a kvlist an object (its pairs in order, a repeated key repeated), an
    array an array, intValue a number (a string in OTLP JSON), a non-finite doubleValue (``"NaN"``,
    ``"Infinity"``) the token a JSON reader refuses, bytesValue its base64 text, an empty value null."""
    if not isinstance(raw, Mapping):
        return b"null"
    if "kvlistValue" in raw or "arrayValue" in raw:
        object_ = "kvlistValue" in raw
        inner = raw["kvlistValue" if object_ else "arrayValue"]
        items = inner.get("values") if isinstance(inner, Mapping) else None
        parts: list[bytes] = []
        for item in items if isinstance(items, list) else ():
            if not object_:
                parts.append(_json_text(item))
            elif isinstance(item, Mapping) and isinstance(item.get("key"), str):
                parts.append(_string(item["key"]) + b":" + _json_text(item.get("value")))
        body = b",".join(parts)
        return b"{" + body + b"}" if object_ else b"[" + body + b"]"
    for key in ("stringValue", "boolValue", "bytesValue"):
        if key in raw:
            value = raw[key]
            return _string(value) if isinstance(value, str) else orjson.dumps(value) if isinstance(value, bool) \
                else b"null"
    if "intValue" in raw:
        value = raw["intValue"]
        number = _integer(value) if isinstance(value, str) else value if type(value) is int else None
        return b"null" if number is None else str(number).encode()
    if "doubleValue" in raw:
        value = raw["doubleValue"]
        if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
            return value.encode()
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return b"null"
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                return orjson.dumps(float(value))
            except OverflowError:
                return b"null"
    return b"null"


def _attributes(raw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, Mapping) and isinstance(item.get("key"), str):
                out[item["key"]] = _value(item.get("value"))
    return out


_INTEGER: Final = re.compile(r"-?(?:0|[1-9][0-9]{0,18})", re.ASCII)
"""An integer as ``str(int)`` writes it, of at most 19 digits: an attribute recorded from a JSON
number. Anything else (``"007"``, ``"²"``, 5,000 digits) was recorded as text."""

_FIXED64: Final = 1 << 64


def _integer(text: str) -> int | None:
    return int(text) if _INTEGER.fullmatch(text) else None


def _nanos(raw: Any) -> float | None:
    """A span time (OTLP's fixed64 nanoseconds, in JSON a string or a number) in Unix seconds;
    None when absent, zero, or out of the fixed64 range."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, str):
        raw = _integer(raw)
    return raw / 1e9 if isinstance(raw, int | float) and 0 < raw < _FIXED64 else None


@dataclass
class _Span:
    trace: str
    kind: str
    name: str
    attributes: dict[str, Any]
    service: str | None
    start: float | None
    end: float | None
    status_message: str | None
    line: int
    source: str = ""
    """The export it is in (a call's two spans may be in two: the client's and the server's)."""
    merged: list[_Span] = field(default_factory=list)
    span_id: str | None = None
    parent: str | None = None
    """Its ``spanId`` and ``parentSpanId`` (None: not recorded)."""
    serial: int = 0
    """Its place among the spans that waited (:meth:`OtlpReader._wait`)."""

    @property
    def mark(self) -> _Mark:
        session = self.attributes.get("mcp.session.id")
        return (self.kind, self.span_id, self.parent, session if isinstance(session, str) else None)

    @property
    def link(self) -> str | None:
        """What ties it to its other side: a client span's ``spanId``, a server span's
        ``parentSpanId`` (the client span, when the trace context was carried)."""
        return self.span_id if self.kind == "client" else self.parent if self.kind == "server" else None

    @property
    def tool(self) -> str | None:
        name = self.attributes.get("gen_ai.tool.name")
        if isinstance(name, str):
            return name
        _, found, rest = self.name.partition("tools/call ")
        return rest.strip() or None if found else None

    @property
    def request_id(self) -> str | None:
        value = self.attributes.get("jsonrpc.request.id")
        return None if value is None or isinstance(value, _Structured) else str(value)

    def get(self, key: str, *, structured: bool = False) -> Any:
        """The attribute of this span or of a span merged with it; one in the structured form
        only when asked for (``structured``)."""
        for span in (self, *self.merged):
            value = span.attributes.get(key)
            if value is not None and (structured or not isinstance(value, _Structured)):
                return value
        return None


_Key = tuple[str, str, str | None]
"""(trace, request id, tool): the spans that may be one call's two sides."""
_Mark = tuple[str, str | None, str | None, str | None]
"""(kind, span id, parent span id, session id) of a span: what tells two calls apart (:func:`_apart`)."""


def _apart(one: _Mark, other: _Mark) -> bool:
    """The export says spans of other kinds under one key are two calls: a server span's parent is
    not the client span (both ids recorded; the MCP conventions make the client span its parent,
    the context carried in ``_meta``), or their sessions (``mcp.session.id``) differ."""
    if one[0] == "server":
        one, other = other, one
    if one[0] == "client" and other[0] == "server" and one[1] is not None and other[2] is not None \
            and one[1] != other[2]:
        return True
    return one[3] is not None and other[3] is not None and one[3] != other[3]


class OtlpReader:
    """Reads an OTLP JSON export line by line into call rows of an :class:`Auditor`'s input."""

    def __init__(self, auditor: Auditor) -> None:
        self.auditor = auditor
        self._waiting: OrderedDict[tuple[_Key, str, str | None, str | None], _Span] = OrderedDict()
        """The spans waiting for their other side, oldest first, by (key, kind, link, session)
        (:attr:`_Span.link`, ``mcp.session.id``): one of a kind that nothing tells apart from
        one waiting puts it out of waiting."""
        self._under: dict[_Key, dict[str, dict[tuple[str | None, str | None], _Span]]] = {}
        """The same spans by key and kind, each kind's by (link, session) in the order they began waiting."""
        self._links: dict[tuple[_Key, str, str], _Span] = {}
        """The same spans that have a link, by (key, kind, link): the latest with it."""
        self._serial = 0
        self._past: OrderedDict[_Key, tuple[str, int, _Mark]] = OrderedDict()
        """The spans judged alone past the window: key -> (source, line, mark)."""
        self._forgot = False
        self._calls = 0

    def line(self, number: int, line: bytes) -> Iterator[Entry]:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            # (a lone surrogate escape, which OpenTelemetry's JSON exporters write for a Python string holding
            # one, a file name read with surrogateescape: every span of the export's line is read, the surrogate
            # as its escape, as the export wrote it — a result holding it is found json.encoding)
            try:
                value = _utf8(lenient_json(line))
            except RecursionError:
                value = None
            if value is None:
                yield self.auditor.unreadable(number, f"not JSON: {exc}", line)
                return
        if not isinstance(value, dict) or not isinstance(value.get("resourceSpans"), list):
            yield self.auditor.unreadable(number, "not an OTLP TracesData object (no resourceSpans)", line)
            return
        spans = list(self._spans(value, number))
        self.auditor.count("call" if spans else "message")
        for span in spans:
            yield from self._add(span, number)

    def end(self) -> Iterator[Entry]:
        while self._waiting:
            _, span = self._waiting.popitem(last=False)
            yield self._row(span, END_OF_INPUT)
        self._under.clear()
        self._links.clear()

    def _spans(self, value: Mapping[str, Any], number: int) -> Iterator[_Span]:
        for resource_spans in value["resourceSpans"]:
            if not isinstance(resource_spans, Mapping):
                continue
            resource = resource_spans.get("resource")
            service = _attributes(resource.get("attributes") if isinstance(resource, Mapping) else None).get(
                "service.name")
            for scope in _list(resource_spans.get("scopeSpans")):
                if not isinstance(scope, Mapping):
                    continue
                for span in _list(scope.get("spans")):
                    if not isinstance(span, Mapping):
                        continue
                    attributes = _attributes(span.get("attributes"))
                    if attributes.get("mcp.method.name") != "tools/call":
                        continue
                    status = span.get("status")
                    message = status.get("message") if isinstance(status, Mapping) else None
                    kind = span.get("kind")
                    span_id, parent = span.get("spanId"), span.get("parentSpanId")
                    yield _Span(str(span.get("traceId") or ""),
                                _SPAN_KINDS.get(kind, "internal") if isinstance(kind, int | str) else "internal",
                                str(span.get("name") or ""), attributes,
                                service if isinstance(service, str) else None,
                                _nanos(span.get("startTimeUnixNano")), _nanos(span.get("endTimeUnixNano")),
                                message if isinstance(message, str) else None, number, self.auditor.source,
                                span_id=span_id if isinstance(span_id, str) and span_id else None,
                                parent=parent if isinstance(parent, str) and parent else None)

    def _add(self, span: _Span, number: int) -> Iterator[Entry]:
        if span.request_id is None:
            yield self._row(span, number)
            return
        key = (span.trace, span.request_id, span.tool)
        other = self._other_side(key, span)
        if other is not None:
            self._unwait(key, other)
            client, server = (other, span) if other.kind == "client" else (span, other)
            client.merged.append(server)
            yield self._row(client, number)
            return
        same = self._waiting.get(self._slot(key, span))
        if same is not None:  # one of its kind that nothing tells apart from it: judged alone
            self._unwait(key, same)
            yield self._row(same, number)
        elif self._past:
            judged = self._past.get(key)
            if judged is not None and judged[2][0] != span.kind and not _apart(judged[2], span.mark):
                del self._past[key]
                yield self._stray(number, f"the {span.kind} span of a call counted already from its {judged[2][0]} "
                                          f"span ({judged[0]}:{judged[1]}), judged alone past the window of {WINDOW} "
                                          "spans waiting for their other side: what only this span holds is not "
                                          "in that call's row")
                return
        self._wait(key, span)
        while len(self._waiting) > WINDOW:
            (oldest_key, *_), oldest = next(iter(self._waiting.items()))
            self._unwait(oldest_key, oldest)
            yield self._row(oldest, number)
            self._past[oldest_key] = (oldest.source, oldest.line, oldest.mark)
            if len(self._past) > PAST_KEPT:
                self._past.popitem(last=False)
                if not self._forgot:
                    self._forgot = True
                    yield self._stray(number, f"more than {PAST_KEPT} calls were judged from one span alone, past "
                                              f"the window of {WINDOW} spans waiting for their other side: from "
                                              "here, a later span of the earliest of them is counted as a call of "
                                              "its own")

    def _other_side(self, key: _Key, span: _Span) -> _Span | None:
        """The span waiting under ``key`` that is ``span``'s other side: the one its ids tie it to
        (a server span's parent, the client span), else the latest of another kind waiting, unless
        the export says they are two calls (:func:`_apart`). Looked up, not searched: a lookup per
        kind waiting under the key."""
        kinds = self._under.get(key)
        if kinds is None:
            return None
        mark = span.mark
        link = span.link
        if link is not None and span.kind in ("client", "server"):
            tied = self._links.get((key, "server" if span.kind == "client" else "client", link))
            if tied is not None and not _apart(tied.mark, mark):
                return tied
        latest: _Span | None = None
        for kind, spans in kinds.items():
            if kind != span.kind:
                last = spans[next(reversed(spans))]
                if latest is None or last.serial > latest.serial:
                    latest = last
        return latest if latest is not None and not _apart(latest.mark, mark) else None

    def _slot(self, key: _Key, span: _Span) -> tuple[_Key, str, str | None, str | None]:
        return (key, span.kind, span.link, span.mark[3])

    def _wait(self, key: _Key, span: _Span) -> None:
        self._serial += 1
        span.serial = self._serial
        slot = self._slot(key, span)
        self._waiting[slot] = span
        self._under.setdefault(key, {}).setdefault(span.kind, {})[slot[2:]] = span
        if slot[2] is not None:
            self._links[(key, span.kind, slot[2])] = span

    def _unwait(self, key: _Key, span: _Span) -> None:
        slot = self._slot(key, span)
        del self._waiting[slot]
        kinds = self._under[key]
        spans = kinds[span.kind]
        del spans[slot[2:]]
        if not spans:
            del kinds[span.kind]
            if not kinds:
                del self._under[key]
        if slot[2] is not None and self._links.get(linked := (key, span.kind, slot[2])) is span:
            del self._links[linked]

    def _stray(self, number: int, reason: str) -> Problem:
        """A problem of the export's line ``number``: a span that makes no call of its own."""
        auditor = self.auditor
        auditor_line = auditor._order(number, "", 0)
        return Problem(auditor.source, number, "stray", reason, None, b"", auditor_line)

    def _row(self, span: _Span, completed: int) -> CallRow:
        auditor = self.auditor
        self._calls += 1
        version = span.get("mcp.protocol.version")
        version = version if isinstance(version, str) and version in VERSIONS else auditor._tracker.default_version
        request_id = span.request_id or ""
        conn = str(span.get("mcp.session.id") or span.trace or auditor.source)
        recorded = _recorded(span)
        if recorded is not None:
            return self._recorded_row(span, completed, conn, request_id, version, *recorded)
        result = span.get("gen_ai.tool.call.result", structured=True)
        error_type = span.get("error.type")
        fidelity = "status"
        verdict = None
        naive = "success"
        if isinstance(result, str | _Structured):
            fidelity = "parsed"
            envelope_id = request_id if _integer(request_id) is not None else orjson.dumps(request_id).decode()
            text = result.encode("utf-8", "surrogatepass") if isinstance(result, str) else _json_text(result.raw)
            wire = b'{"jsonrpc":"2.0","id":' + envelope_id.encode() + b',"result":' + text + b"}"
            verdict = classify(wire, version=version)
            naive = naive_of(None, wire)
        elif isinstance(error_type, str) and (code := _integer(error_type)) is not None:
            error = {"code": code, "message": span.status_message or ""}
            verdict = classify({"jsonrpc": "2.0", "id": 1, "error": error}, version=version)
            naive = "failure"
        elif error_type == "tool_error":
            tool_result: dict[str, Any] = {"content": [], "isError": True}
            if version >= "2026-07-28":
                tool_result["resultType"] = "complete"
            verdict = classify({"jsonrpc": "2.0", "id": 1, "result": tool_result}, version=version)
        elif isinstance(error_type, str):
            verdict = unanswered(version, f"the client failed: {error_type}"
                                          + (f" ({span.status_message})" if span.status_message else ""))
            naive = "no_response"
        outcome = evaluate(verdict) if verdict is not None else None
        decision = decide(outcome) if outcome is not None else None
        accepted = decision is not None and decision.action is Action.ACCEPT
        findings = tuple(FindingRow(f.code, f.severity, f.path, f.message) for f in verdict.findings) if verdict \
            else ()
        if outcome is not None and outcome.content_check is not None:
            findings += tuple(FindingRow(f.code, f.severity, f.path, f.message) for f in outcome.content_check.findings)
        kind = verdict.kind.value if verdict is not None else None
        return self._call_row(
            span, completed, conn, request_id, version, kind, fidelity=fidelity,
            error_code=verdict.error_code if verdict else None, findings=findings,
            action=decision.action.value if decision else None, rule=decision.rule if decision else None,
            reason=decision.reason if decision else "the span records no result: nothing to judge",
            stage=outcome.stage if outcome else None, accepted=accepted, naive=naive,
            naive_false_success=None if verdict is None else (naive == "success" and not accepted),
            unknown_effect=decision is not None and decision.action is Action.CHECK_STATE)

    def _call_row(self, span: _Span, completed: int, conn: str, request_id: str, version: str, kind: str | None,
                  **judged: Any) -> CallRow:
        """The row of the call a span records (this reader's next call number, its order among the
        recording's rows), with what was judged of it (``judged``: the fidelity, the verdict's
        findings and the decision's members)."""
        auditor = self.auditor
        server_span = next((s for s in (span, *span.merged) if s.kind == "server"), None)
        order = (auditor.family, END_OF_INPUT, 0, conn, self._calls) if completed >= END_OF_INPUT else (
            auditor.family, auditor.file_order, completed, conn, self._calls)
        return CallRow(
            source=span.source, line=span.line, input_format="otlp", conn=conn, call=self._calls,
            server=(server_span.service if server_span else None) or _str(span.get("server.address")),
            server_version=None, transport=_str(span.get("network.transport")), tool=span.tool,
            request_id=request_id, protocol_version=version, version_source="default"
            if span.get("mcp.protocol.version") is None else "request_meta", extensions=(),
            started_at=span.start, ended_at=span.end,
            rounds=(RoundRow("tools/call", request_id, kind, None, span.start, span.end, 0, None, span.line,
                             span.line),),
            kind=kind, first_kind=kind, content_checked=False, answered=judged["naive"] != "no_response",
            finished=kind not in ("input_required", "task"), end="answered", task_id=None, order=order, **judged)

    def _recorded_row(self, span: _Span, completed: int, conn: str, request_id: str, version: str, kind: str,
                      action: str, codes: tuple[str, ...]) -> CallRow:
        """A call mcp-verdict judged when it was made, its verdict on the span: the recorded kind,
        decision and findings (``status`` fidelity: the answer itself is not in the span)."""
        error_type = span.get("error.type")
        code = _integer(error_type) if isinstance(error_type, str) else None
        rules = RULES
        findings = tuple(FindingRow(c, rules[c].severity if c in rules else "error", "",
                                    rules[c].summary if c in rules else "recorded on the span") for c in codes)
        first = next((f.code for f in findings if f.severity == "error"), None)
        naive_false_success: bool | None
        if kind == "protocol_error":
            naive = "failure"
        elif first is not None and first.startswith("transport."):
            naive = "no_response"
        elif first is not None and first.startswith("error."):
            naive = "failure"
        else:
            naive = "success"
        accepted = action == "accept"
        if kind == "unclassified" and naive == "success" and not (first or "").startswith(_RESULT_HELD):
            naive_false_success = None  # whether the naive receiver could read the answer is not on the span
        else:
            naive_false_success = naive == "success" and not accepted
        return self._call_row(
            span, completed, conn, request_id, version, kind, fidelity="status",
            error_code=code if kind == "protocol_error" else None, findings=findings, action=action, rule=None,
            reason="the verdict mcp-verdict recorded on the span", stage=None, accepted=accepted, naive=naive,
            naive_false_success=naive_false_success, unknown_effect=action == "check_state")


_KINDS: Final = frozenset(kind.value for kind in Kind)
_ACTIONS: Final = frozenset(action.value for action in Action)
_RESULT_HELD: Final = ("result.", "content.", "output.", "meta.", "icon.", "input.", "elicitation.", "sampling.",
                       "task.", "expect.")
"""First findings of an unclassified answer that held an object with ``result``: taken as success by
the naive receiver. (``json.*``, ``envelope.*``: whether it could even read the answer is not on the
span — ``json.syntax`` is a NaN it reads, or text it cannot.)"""


def _recorded(span: _Span) -> tuple[str, str, tuple[str, ...]] | None:
    """The verdict mcp-verdict recorded on the span (``mcp_verdict.kind``, ``mcp_verdict.decision``,
    ``mcp_verdict.findings`` or ``mcp_verdict.finding``: its own spans, the proxy's and
    ``mcp_verdict.otel``'s; README "OpenTelemetry"), or None."""
    kind, action = span.get("mcp_verdict.kind"), span.get("mcp_verdict.decision")
    if kind not in _KINDS or action not in _ACTIONS:
        return None
    codes: tuple[str, ...] = ()
    listed = span.get("mcp_verdict.findings", structured=True)
    if isinstance(listed, _Structured):
        try:
            value = orjson.loads(_json_text(listed.raw))
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, list):
            codes = tuple(code for code in value if isinstance(code, str))
    elif isinstance(listed, str):
        codes = (listed,)
    first = span.get("mcp_verdict.finding")
    if not codes and isinstance(first, str):
        codes = (first,)
    return kind, action, codes


def _utf8(value: Any) -> Any:
    """A JSON value read leniently (:func:`lenient_json`) with each string in it, keys too, as UTF-8 can
    hold it: a lone surrogate as its escape (:func:`utf8_text`) — but in the result recorded
    (``gen_ai.tool.call.result``), which is judged as the JSON text it was, a lone surrogate in it
    no UTF-8 (:func:`_json_text`)."""
    if isinstance(value, str):
        return utf8_text(value)
    if isinstance(value, list):
        return [_utf8(item) for item in value]
    if isinstance(value, dict):
        if value.get("key") == _RESULT:
            return {key: item if key == "value" else _utf8(item) for key, item in value.items()}
        return {utf8_text(key): _utf8(item) for key, item in value.items()}
    return value


_RESULT: Final = "gen_ai.tool.call.result"


def _string(value: str) -> bytes:
    """A string as JSON text; one holding a lone surrogate (a line read leniently) with its escape."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value).encode()


def _list(value: Any) -> list[Any]:
    """A repeated field of the export: a list, or nothing (a member of any other type)."""
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
