"""OpenTelemetry for the proxy: a span per ``tools/call`` and the operation-duration metric.

Written on ``opentelemetry-api`` alone (extra ``[otel]``): without an SDK configured by the
application the API's no-op tracer and meter cost next to nothing, and without the package
:func:`telemetry` returns None and nothing is recorded. The names follow the OpenTelemetry
semantic conventions for MCP (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/):

- span ``tools/call {tool}``, kind CLIENT (the proxy calls the upstream for the host), with
  ``mcp.method.name``, ``gen_ai.operation.name`` = ``execute_tool``, ``gen_ai.tool.name``,
  ``jsonrpc.request.id``, ``mcp.protocol.version``, ``mcp.session.id``, ``network.transport``
  (``pipe`` for stdio, ``tcp`` for HTTP), and on failure ``error.type`` (``tool_error`` for
  ``isError: true``, the JSON-RPC code for a protocol error, ``unclassified``, or the proxy's
  own reason) and ``rpc.response.status_code``; a peer's text (the tool's name, the id, the session id)
  bounded and on one line as ``mcp_verdict.otel`` shows it;
- the verdict, with the names and the ``error.type`` of ``mcp_verdict.otel`` (one vocabulary for
  the proxy's spans and the integrations'): ``mcp_verdict.kind``, ``mcp_verdict.finding``,
  ``mcp_verdict.findings``, ``mcp_verdict.decision``, and ``mcp_verdict.proxy.refused``;
- trace context: the span's parent is the ``traceparent``/``tracestate`` the host put in the
  request's ``params._meta`` (basic/index#_meta); the request is forwarded unchanged, so the
  upstream sees the host's own context;
- metric ``mcp.client.operation.duration`` (histogram, seconds) with the method, tool, version,
  transport and ``error.type`` attributes;
- a task id created again while an earlier call's task holds it (``_tasks``): that call is judged
  again (``unclassified``), but its span ended when its handle came and cannot change: the span of
  the call whose handle created the id again gets the event ``mcp_verdict.task_id_reused`` (the
  task id, the earlier call's ``jsonrpc.request.id``, its new ``mcp_verdict.kind`` and
  ``mcp_verdict.decision``) and a link to the earlier call's span with the same attributes.

The verdict's attributes come from ``mcp_verdict.otel`` (imported with the API, on first use);
this module adds what only the proxy knows (transport, session, refusal, trace context).

With no SDK behind either global provider (the API's default proxies, or its no-op providers)
a call records nothing anywhere, so :meth:`_Telemetry.start` returns None and the call costs one
check: no attributes, no verdict decision, no span (measured: about 7% of the proxy's CPU per
HTTP call). The providers are looked at again at most a second later, so an SDK configured after
the proxy started is used from then on (the API's proxy tracer and meter delegate to it).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

from ..frames import Exchange
from ..frames._jsonrpc import peek
from ..frames._routing_headers import field_text
from ..verdict._kind import Kind
from ..verdict._peer_text import cut, one_line
from ..verdict._verdict import Verdict

_SHOWN: Final = 1024
"""How many characters of a peer's text a span holds (``mcp_verdict.otel.DESCRIPTION_LIMIT``)."""


def _silent_providers() -> frozenset[type]:
    """The provider types that record nothing: the API's defaults before an SDK is set, and its
    no-op providers (exact types: a subclass may record)."""
    from opentelemetry import metrics, trace

    silent: set[type] = {trace.ProxyTracerProvider, trace.NoOpTracerProvider, metrics.NoOpMeterProvider}
    try:
        from opentelemetry.metrics._internal import _ProxyMeterProvider
    except ImportError:  # another API layout: count its default meter provider as recording
        return frozenset(silent)
    return frozenset({*silent, _ProxyMeterProvider})


class _Telemetry:
    def __init__(self, transport: str, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        from opentelemetry import metrics, trace
        from opentelemetry.propagate import extract

        from ..otel import verdict_attributes

        self._tracer_provider = tracer_provider
        self._meter_provider = meter_provider
        self._silent = _silent_providers()
        self._listening = False
        self._recheck = 0.0
        self._trace = trace
        self._metrics = metrics
        self._extract = extract
        self._tracer = trace.get_tracer("mcp_verdict.proxy", tracer_provider=tracer_provider)
        self._duration = metrics.get_meter("mcp_verdict.proxy", meter_provider=meter_provider).create_histogram(
            "mcp.client.operation.duration", unit="s", description="Duration of MCP requests through the proxy")
        self._transport = transport
        self._verdict_attributes = verdict_attributes

    def listening(self) -> bool:
        """Some SDK records this call's span or metric (see the module docstring); looked up at
        most once a second (the two global look-ups cost more than the rest of the check)."""
        now = time.monotonic()
        if now < self._recheck:
            return self._listening
        tracers = self._tracer_provider or self._trace.get_tracer_provider()
        meters = self._meter_provider or self._metrics.get_meter_provider()
        self._listening = type(tracers) not in self._silent or type(meters) not in self._silent
        self._recheck = now + 1.0
        return self._listening

    def start(self, exchange: Exchange, session: str | None) -> object:
        """The span of one call, or None when nothing would record it (``end`` is then not called)
        or the application's tracing raised (a span processor's ``on_start``): a span is never
        worth a call, which the relay would otherwise drop with the exception."""
        if not (self._listening if time.monotonic() < self._recheck else self.listening()):  # (listening's
            return None  # first test, without a call)
        try:
            return self._start(exchange, session)
        except Exception:
            return None

    def _start(self, exchange: Exchange, session: str | None) -> object:
        attrs = attributes(exchange, session, self._transport)
        context = None
        if exchange.request.data.find(b"traceparent") >= 0:
            meta = peek(exchange.request.data).params.get("_meta")
            if isinstance(meta, Mapping):
                carrier = {k: v for k in ("traceparent", "tracestate", "baggage")
                           if isinstance(v := meta.get(k), str) and _w3c_text(v)}
                context = self._extract(carrier)
        name = attrs.get("gen_ai.tool.name")
        span = self._tracer.start_span(f"tools/call {name}" if name else "tools/call", context=context,
                                       kind=self._trace.SpanKind.CLIENT, attributes=attrs)
        return (span, time.perf_counter(), attrs)

    def end(self, token: object, verdict: Verdict | None, action: str | None, error: str | None,
            refused: bool) -> None:
        """End the call's span and record its duration; what the application's telemetry raises
        (a span processor's ``on_end``, an exporter called in it, a metric reader) is dropped with
        that span or point: the answer it was raised on is forwarded all the same."""
        try:
            self._end(token, verdict, action, error, refused)
        except Exception:
            return

    def _end(self, token: object, verdict: Verdict | None, action: str | None, error: str | None,
             refused: bool) -> None:
        assert isinstance(token, tuple)
        span: Any = token[0]
        started: float = token[1]
        attrs: dict[str, Any] = token[2]
        metric: dict[str, Any] = {k: attrs[k] for k in ("mcp.method.name", "gen_ai.tool.name", "mcp.protocol.version",
                                        "network.transport") if k in attrs}
        error_type: str | None = error
        if verdict is not None and action is not None:
            judged = self._verdict_attributes(verdict, action)
            span.set_attributes(judged)
            error_type = judged.get("error.type")
            if verdict.kind is Kind.PROTOCOL_ERROR and verdict.error_code is not None:
                span.set_attribute("rpc.response.status_code", str(verdict.error_code))
        span.set_attribute("mcp_verdict.proxy.refused", refused)
        if error_type is not None:
            span.set_attribute("error.type", error_type)
            metric["error.type"] = error_type
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, error_type))
        span.end()
        self._duration.record(time.perf_counter() - started, metric)

    def context(self, token: object) -> object:
        """The span context of the call ``token`` records, for a later span's link (None when the
        application's span gives none)."""
        try:
            assert isinstance(token, tuple)
            return token[0].get_span_context()
        except Exception:
            return None

    def reused(self, token: object, task_id: str, first_id: object, first: object, kind: str,
               action: str) -> None:
        """On the span of the call ``token`` records, whose task handle created ``task_id`` again
        while the task of an earlier call held it (``_tasks``): the event ``mcp_verdict.task_id_reused``
        naming that call (``mcp_verdict.task.id``, its ``jsonrpc.request.id``, its verdict judged again:
        ``mcp_verdict.kind`` and ``mcp_verdict.decision``), and a link to that call's span (its
        context ``first``), which ended when its handle came and cannot change. Called before
        :meth:`end`; what the application's tracing raises is dropped."""
        try:
            assert isinstance(token, tuple)
            span: Any = token[0]
            attrs = {"mcp_verdict.task.id": shown(task_id), "jsonrpc.request.id": shown(str(first_id)),
                     "mcp_verdict.kind": kind, "mcp_verdict.decision": action}
            span.add_event("mcp_verdict.task_id_reused", attrs)
            if first is not None:
                span.add_link(first, {"mcp_verdict.link": "task_id_reused", **attrs})
        except Exception:
            return


_W3C_MAX: Final = 8192
"""The longest trace-context value passed on: W3C Baggage's bound (a ``traceparent`` or a
``tracestate`` past 512 characters the API ignores itself, with a warning that quotes none of it)."""


def _w3c_text(value: str) -> bool:
    """A ``traceparent``, ``tracestate`` or ``baggage`` value that can be one (W3C Trace Context
    and Baggage: printable ASCII, spaces and tabs), at most :data:`_W3C_MAX` characters. Any other
    is not given to the propagators, which ignore it anyway after a warning quoting it whole on
    stderr (the host's log): a baggage of megabytes, a line break forging a line of the log, an
    ANSI sequence, once per call."""
    return len(value) <= _W3C_MAX and field_text(value)


def attributes(exchange: Exchange, session: str | None, transport: str) -> dict[str, Any]:
    """The semantic-convention attributes of a tools/call span. What a peer wrote (the tool's name,
    the request's id, the session id) is shown as ``mcp_verdict.otel`` shows it on its own spans:
    at most 1,024 characters and the count, on one line, control, bidi and lone surrogate
    characters as visible escapes (a tool's name of megabytes went whole into every span and
    metric point exported, a line break or an ANSI sequence into whatever displays them)."""
    attrs: dict[str, Any] = {"mcp.method.name": exchange.method, "gen_ai.operation.name": "execute_tool",
                             "mcp.protocol.version": exchange.context.version, "network.transport": transport}
    if exchange.tool is not None:
        attrs["gen_ai.tool.name"] = shown(exchange.tool)
    if exchange.request_id is not None:
        attrs["jsonrpc.request.id"] = shown(str(exchange.request_id))
    if session is not None:
        attrs["mcp.session.id"] = shown(session)
    return attrs


def shown(text: str) -> str:
    """A peer's text as a span shows it (``mcp_verdict.otel``'s bound, 1,024 characters)."""
    return one_line(cut(text, _SHOWN))


def telemetry(transport: str, *, tracer_provider: Any = None, meter_provider: Any = None) -> _Telemetry | None:
    """The proxy's telemetry (on the global providers unless given), or None when
    opentelemetry-api is not installed."""
    try:
        return _Telemetry(transport, tracer_provider, meter_provider)
    except ImportError:
        return None
