"""The span attributes of a judged ``tools/call``.

From the OpenTelemetry semantic conventions for MCP (``gen_ai``/``mcp`` registry,
https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/): ``mcp.method.name`` (``tools/call``),
``gen_ai.tool.name``, ``jsonrpc.request.id``, ``mcp.protocol.version`` and ``error.type``; the
span is named ``{mcp.method.name} {gen_ai.tool.name}`` and is a client span. The conventions mark
only ``isError: true`` (``error.type = "tool_error"``) and JSON-RPC errors (the code) as errors;
here **anything but an accepted call** sets ``error.type`` and the span status to error:

=====================================  ==========================================================
verdict                                ``error.type``
=====================================  ==========================================================
normal_complete, accepted              (none; status unset)
normal_complete, content check failed  ``content_check``
tool_error                             ``tool_error``
protocol_error                         the JSON-RPC error code, as a string (``-32602``; one of
                                       more than 1,024 digits cut, as a tool's name is)
input_required, task                   ``input_required``, ``task`` (the call is not done)
unclassified                           ``unclassified``
=====================================  ==========================================================

mcp-verdict's own attributes: ``mcp_verdict.kind``, ``mcp_verdict.finding`` (the first error
finding's code, when there is one), ``mcp_verdict.findings`` (every finding's code, once, in
order: 20,000 blocks with the same fault are one code), ``mcp_verdict.decision`` (the action) and
``mcp_verdict.stage``. The proxy's spans use the same names and the same ``error.type``
(:func:`verdict_attributes`, :func:`verdict_error_type`), and add ``mcp_verdict.proxy.refused``.
The status's description is the outcome in one line, bounded (:func:`status_description`): a
peer's error message of megabytes would otherwise go whole into every span exported. Every
attribute set from a peer's values is bounded likewise (the tool's name, the request's id, the
error code in ``error.type``: at most :data:`DESCRIPTION_LIMIT` characters and the count); the
rest are the tap's own words (kinds, finding codes, decisions) or a version it knows. (The SDK's
own span carries what the SDK sets on it after the answer: its name with the tool's name, its
status with the server's error message, its ``error.type``; those are the SDK's.)
"""

from __future__ import annotations

from typing import Any, Final

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from ..judgement._decide import Action
from ..judgement._outcome import Outcome
from ..tap._error import describe
from ..tap._history import TapCall
from ..tap._tap import VerdictTap
from ..verdict._classify import OptionError
from ..verdict._findings import integer_text
from ..verdict._kind import Kind
from ..verdict._peer_text import cut, one_line
from ..verdict._verdict import Verdict

ATTRIBUTES: Final = ("mcp.method.name", "gen_ai.tool.name", "jsonrpc.request.id", "mcp.protocol.version",
                     "error.type", "mcp_verdict.kind", "mcp_verdict.finding", "mcp_verdict.findings",
                     "mcp_verdict.decision", "mcp_verdict.stage", "mcp_verdict.attempt")
"""Every attribute :func:`record` may set (``mcp_verdict.attempt`` only on a call run again: its
attempt number from 2, as HTTP's ``http.request.resend_count`` is set only on a resend)."""
_SCOPE: Final = "mcp_verdict"
DESCRIPTION_LIMIT: Final = 1024
"""The span status description's length bound (characters), before the count of the whole."""


_ACTIONS: Final = {action.value: action for action in Action}


def _action(action: object) -> Action:
    """An ``action`` argument (an Action or its value), or an OptionError naming it."""
    if isinstance(action, Action):
        return action
    if type(action) is str and action in _ACTIONS:
        return _ACTIONS[action]
    raise OptionError("action", f"an Action or one of {', '.join(_ACTIONS)}", action)


def _checked(option: str, value: object, kind: type, expected: str) -> None:
    if not isinstance(value, kind):
        raise OptionError(option, expected, value)


def error_type(outcome: Outcome) -> str | None:
    """``error.type`` for an outcome (None for an accepted call); see the module's table."""
    _checked("outcome", outcome, Outcome, "an Outcome")
    return verdict_error_type(outcome.verdict, outcome.decision.action)


def verdict_error_type(verdict: Verdict, action: Action | str) -> str | None:
    """``error.type`` for a verdict and the action decided on it (None when the action is
    ``accept``); see the module's table."""
    _checked("verdict", verdict, Verdict, "a Verdict")
    if _action(action) is Action.ACCEPT:
        return None
    if verdict.kind is Kind.PROTOCOL_ERROR:  # the server's code: 4,300 digits are one JSON integer, and a
        code = verdict.error_code  # caller's parsed value any integer (past the limit of str(): its size)
        return cut(integer_text(code) if isinstance(code, int) else str(code), DESCRIPTION_LIMIT)
    if verdict.kind is Kind.NORMAL_COMPLETE:
        return "content_check"
    return verdict.kind.value


def verdict_attributes(verdict: Verdict, action: Action | str, stage: str | None = None) -> dict[str, Any]:
    """mcp-verdict's own attributes of a judged call, and ``error.type`` where it is one."""
    _checked("verdict", verdict, Verdict, "a Verdict")
    if stage is not None and not isinstance(stage, str):
        raise OptionError("stage", "a string or None", stage)
    codes = [f.code for f in verdict.findings]
    attributes: dict[str, Any] = {"mcp_verdict.kind": verdict.kind.value, "mcp_verdict.decision": Action(action).value,
                                  "mcp_verdict.findings": list(dict.fromkeys(codes)) if len(codes) > 1 else codes}
    if stage is not None:
        attributes["mcp_verdict.stage"] = stage
    if verdict.errors:
        attributes["mcp_verdict.finding"] = verdict.errors[0].code
    kind = verdict_error_type(verdict, action)
    if kind is not None:
        attributes["error.type"] = kind
    return attributes


def record(outcome: Outcome, *, span: Span | None = None, tool: str | None = None, request_id: Any = None,
           tracer_provider: Any = None) -> Span:
    """Set the verdict's attributes and status on ``span`` (default: the current span); when it is
    not recording, on a new client span ``tools/call {tool}``, ended at once. Returns the span."""
    _checked("outcome", outcome, Outcome, "an Outcome")
    if span is not None and not isinstance(span, Span):
        raise OptionError("span", "an OpenTelemetry Span or None", span)
    if tool is not None and not isinstance(tool, str):
        raise OptionError("tool", "a string or None", tool)
    if request_id is not None:
        if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
            raise OptionError("request_id", "a string, an integer or None", request_id)
        if isinstance(request_id, int) and request_id.bit_length() > 64:
            try:
                str(request_id)  # the attribute's text
            except ValueError:  # past Python's digit limit for str()
                raise OptionError("request_id", "an integer of at most Python's digit limit", request_id) from None
    _provider(tracer_provider)
    target = span if span is not None else trace.get_current_span()
    if target.is_recording():
        _apply(target, outcome, tool, request_id)
        return target
    return _own_span(outcome, tool, request_id, tracer_provider)


def _shown(text: str) -> str:
    """A tool's name or a request's id as a span shows it: at most :data:`DESCRIPTION_LIMIT`
    characters and the count, control (line breaks and TAB included), escape and bidi characters
    as visible escapes (a name the model took from a server's listing can be megabytes)."""
    return one_line(cut(text, DESCRIPTION_LIMIT))


def _own_span(outcome: Outcome, tool: str | None, request_id: Any, tracer_provider: Any) -> Span:
    tracer = trace.get_tracer(_SCOPE, tracer_provider=tracer_provider)
    with tracer.start_as_current_span(f"tools/call {_shown(tool)}" if tool else "tools/call", kind=SpanKind.CLIENT,
                                      record_exception=False, set_status_on_exception=False) as own:
        _apply(own, outcome, tool, request_id)
    return own


def _apply(span: Span, outcome: Outcome, tool: str | None, request_id: Any) -> None:
    verdict = outcome.verdict
    attributes: dict[str, Any] = {"mcp.method.name": "tools/call", "mcp.protocol.version": verdict.version,
                                  **verdict_attributes(verdict, outcome.decision.action, outcome.stage)}
    if tool is not None:
        attributes["gen_ai.tool.name"] = _shown(tool)
    if outcome.attempt != 1:  # a call run again (an adapter's retry): which attempt this span is
        attributes["mcp_verdict.attempt"] = outcome.attempt
    identifier = request_id if request_id is not None else verdict.id
    if identifier is not None:
        attributes["jsonrpc.request.id"] = _shown(integer_text(identifier) if isinstance(identifier, int)
                                                  else str(identifier))
    kind = attributes.get("error.type")
    span.set_attributes(attributes)
    if kind is not None:
        span.set_status(Status(StatusCode.ERROR, status_description(outcome)))


def status_description(outcome: Outcome) -> str:
    """The span status's description: the outcome in one line, at most :data:`DESCRIPTION_LIMIT`
    characters and a count (a peer's error message can be megabytes; the verdict keeps it whole)."""
    return cut(describe(outcome), DESCRIPTION_LIMIT)


class _Observer:
    def __init__(self, tracer_provider: Any) -> None:
        self._provider = tracer_provider

    def sent(self, name: str | None, request_id: Any) -> Span | None:
        span = trace.get_current_span()
        return span if span.is_recording() else None

    def judged(self, call: TapCall, token: Any) -> None:
        if isinstance(token, Span) and token.is_recording():
            _apply(token, call.outcome, call.name, call.request_id)
        else:  # the stack's span has ended (no answer came): the verdict gets a span of its own
            _own_span(call.outcome, call.name, call.request_id, self._provider)


def _provider(value: object) -> None:
    """A ``tracer_provider`` option: None (the global one) or an OpenTelemetry TracerProvider,
    checked when it is given, not when the first span is made (inside a transport's read)."""
    if value is not None and not isinstance(value, trace.TracerProvider):
        raise OptionError("tracer_provider", "an OpenTelemetry TracerProvider or None", value)


def instrument(tap: VerdictTap, *, tracer_provider: Any = None) -> VerdictTap:
    """Record every call ``tap`` judges: on the span open when its request was written (the SDK's
    ``MCP send tools/call`` span, FastMCP's ``tools/call`` span), while it is still open when the
    answer arrives; else on a span of its own. Returns the tap."""
    _checked("tap", tap, VerdictTap, "a VerdictTap")
    _provider(tracer_provider)
    if not any(isinstance(o, _Observer) for o in tap.observers):
        tap.observers.append(_Observer(tracer_provider))
    return tap
