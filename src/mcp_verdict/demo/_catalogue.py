"""The catalogue: every demo tool and the outcome it is built to produce — by hand.

These expectations are the ground truth of ``mcp-verdict demo`` and of the demo server's tests:
they are written from the specification and the tool's construction, never computed by running
the classifier. For each tool:

- ``expected``: the first response to the demo call (``arguments``) from a 2026-07-28 client
  declaring :data:`DEMO_CLIENT_CAPABILITIES`: the verdict ``kind``, the ``action`` that
  ``decide(verdict)`` gives (default options: annotations untrusted), and what a naive receiver
  concludes — one that runs ``json.loads`` and calls the call a success when ``"result" in
  response``;
- ``undeclared``: the same when the client declares no capabilities (``{}``), where that
  differs;
- ``follow_up``: for a call that continues — the retry after answering the input request, or
  the result the completed task inlines (classified as a response of its own) — its outcome;
- ``checked_action``: for complete results, the action once the content is checked against the
  tool's outputSchema (``decide(evaluate(verdict, tool))``, no caller expectation).

For a call that gets no response at all (``hang_up``) the verdict is the client's own: an
``unclassified`` verdict with the finding ``transport.closed``, which ``decide`` sends to
``check_state`` (the request was sent; untrusted annotations cannot make it safe to repeat).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

from ..judgement._decide import Action
from ..verdict._kind import Kind
from ._call import TASKS_EXTENSION

Naive = Literal["success", "failure", "crash", "no_response"]
"""What ``"result" in json.loads(response)`` concludes: ``success``/``failure``; ``crash`` when
``json.loads`` raises; ``no_response`` when nothing arrives."""

def naive_conclusion(response: bytes | None) -> Naive:
    """What the naive receiver concludes from one response's bytes (``None``: none arrived):
    ``json.loads`` it, then success if ``"result" in response`` — the receiver the demo shows up."""
    if response is None:
        return "no_response"
    try:
        message = json.loads(response)
    except ValueError:  # includes UnicodeDecodeError; note json accepts NaN and duplicate keys
        return "crash"
    return "success" if isinstance(message, dict) and "result" in message else "failure"


DEMO_CLIENT_CAPABILITIES: Final[Mapping[str, Any]] = MappingProxyType({
    "elicitation": {"form": {}},
    "sampling": {},
    "extensions": {TASKS_EXTENSION: {}},
})
"""The clientCapabilities the demo's client declares (so every outcome can be reached)."""

DEMO_EXTENSIONS: Final = (TASKS_EXTENSION,)
"""The extensions to pass to ``classify`` for the demo calls."""


@dataclass(frozen=True, slots=True)
class Expected:
    """One response's expected outcome."""

    kind: Kind
    action: Action
    naive: Naive
    error_code: int | None = None
    """The JSON-RPC error code of a protocol_error."""
    finding: str | None = None
    """The finding code that explains an unclassified verdict."""


@dataclass(frozen=True, slots=True)
class DemoTool:
    """A tool of the demo server and what it is built to produce."""

    name: str
    produces: str
    """One line, for the demo table."""
    arguments: Mapping[str, Any]
    """The demo call's arguments."""
    expected: Expected
    undeclared: Expected | None = None
    """The outcome when the client declares no capabilities; ``None``: same as ``expected``."""
    follow_up: Expected | None = None
    checked_action: Action | None = None
    input_responses: Mapping[str, Any] | None = None
    """A valid answer to the tool's input request (for a client without handlers)."""
    needs: Mapping[str, Any] = field(default_factory=dict)
    """The client capabilities the ``expected`` outcome depends on."""
    note: str = ""

    def expected_for(self, capabilities: Mapping[str, Any]) -> Expected:
        """The expected first outcome for a client declaring ``capabilities``: ``expected``
        when it declares everything in ``needs``, else ``undeclared``."""
        declared = all(_declares(capabilities, key, value) for key, value in self.needs.items())
        return self.expected if declared or self.undeclared is None else self.undeclared


def _declares(capabilities: Mapping[str, Any], key: str, value: Any) -> bool:
    have = capabilities.get(key)
    if not isinstance(have, Mapping):
        return False
    if key == "elicitation":
        return not have or isinstance(have.get("form"), Mapping)
    return all(isinstance(have.get(k), Mapping) for k in value) if isinstance(value, Mapping) else True


_K, _A = Kind, Action
_COMPLETE: Final = Expected(_K.NORMAL_COMPLETE, _A.VERIFY_CONTENT, "success")


def _bad(finding: str, naive: Naive = "success") -> Expected:
    return Expected(_K.UNCLASSIFIED, _A.INVESTIGATE, naive, finding=finding)


CATALOGUE: Final[tuple[DemoTool, ...]] = (
    DemoTool("get_forecast", "success: structuredContent conforming to its outputSchema",
             {"city": "Lisbon"}, _COMPLETE, checked_action=_A.ACCEPT),
    DemoTool("charge_card", "tool execution error (isError: true)",
             {"amount_cents": 1999}, Expected(_K.TOOL_ERROR, _A.RETURN_TO_MODEL, "success")),
    DemoTool("add_integers", "protocol error -32602 (arguments break the inputSchema)",
             {"a": 2, "b": "three"}, Expected(_K.PROTOCOL_ERROR, _A.FIX_REQUEST, "failure", error_code=-32602),
             note="called with integers it succeeds: {\"a\": 2, \"b\": 3} → sum 5"),
    DemoTool("confirm_delete", "input_required: a form elicitation, then complete",
             {"path": "/tmp/report.txt"}, Expected(_K.INPUT_REQUIRED, _A.FULFIL_INPUT, "success"),
             undeclared=Expected(_K.PROTOCOL_ERROR, _A.ADD_CAPABILITY, "failure", error_code=-32021),
             follow_up=_COMPLETE, checked_action=_A.ACCEPT,
             input_responses={"confirm_delete": {"action": "accept", "content": {"confirm": True}}},
             needs={"elicitation": {"form": {}}}),
    DemoTool("summarize_text", "input_required: sampling/createMessage, then complete",
             {"text": "MCP tools can fail in more ways than a result tells."},
             Expected(_K.INPUT_REQUIRED, _A.FULFIL_INPUT, "success"),
             undeclared=Expected(_K.PROTOCOL_ERROR, _A.ADD_CAPABILITY, "failure", error_code=-32021),
             follow_up=_COMPLETE, checked_action=_A.ACCEPT,
             input_responses={"summary": {"role": "assistant",
                                          "content": {"type": "text", "text": "Results can lie."},
                                          "model": "demo-model", "stopReason": "endTurn"}},
             needs={"sampling": {}}),
    DemoTool("generate_report", "task (tasks extension): working, then completed with the report",
             {"title": "Q3", "polls": 2}, Expected(_K.TASK, _A.POLL_TASK, "success"),
             undeclared=_COMPLETE, follow_up=_COMPLETE, checked_action=_A.ACCEPT,
             needs={"extensions": {TASKS_EXTENSION: {}}},
             note="without the extension: the report at once (normal_complete)"),
    DemoTool("count_open_tickets", "complete, but structuredContent breaks its outputSchema",
             {"queue": "support"}, _COMPLETE, checked_action=_A.INVESTIGATE),
    DemoTool("slow_echo", "success after a delay (2 s by default)",
             {"text": "hello", "seconds": 2.0}, _COMPLETE, checked_action=_A.ACCEPT,
             note="a client that times out first sees no response: transport.timeout → check_state"),
    DemoTool("create_note", "a write: success with the new note's id",
             {"text": "buy milk"}, _COMPLETE, checked_action=_A.ACCEPT,
             note="get_note shows it only after 2 reads (eventual consistency): observe by polling"),
    DemoTool("get_note", "a read: found false until the note is visible, then its text",
             {"id": "note-1"}, _COMPLETE, checked_action=_A.ACCEPT),
    DemoTool("string_is_error", "isError is the string \"false\"", {}, _bad("result.is_error")),
    DemoTool("missing_result_type", "no resultType", {}, _bad("result.result_type_missing"),
             note="absent_result_type=\"complete\" reads it as normal_complete (the spec's back-compat rule)"),
    DemoTool("unknown_result_type", "resultType \"deferred\"", {}, _bad("result.result_type_unknown")),
    DemoTool("text_block_without_text", "a text content block without text", {}, _bad("content.field_missing")),
    DemoTool("duplicate_is_error", "isError twice on the wire (true, then false)", {},
             _bad("json.duplicate_key")),
    DemoTool("nan_value", "a bare NaN in structuredContent", {}, _bad("json.syntax")),
    DemoTool("mismatched_id", "the response's id is not the request's (7 → \"7\")", {},
             _bad("envelope.id_mismatch")),
    DemoTool("hang_up", "no response: stdio exits, HTTP drops the connection", {},
             Expected(_K.UNCLASSIFIED, _A.CHECK_STATE, "no_response", finding="transport.closed"),
             note="the verdict is the client's own (transport.closed); restart a stdio server afterwards"),
    DemoTool("malformed_json", "a truncated, unparseable JSON frame", {}, _bad("json.syntax", "crash")),
    DemoTool("invalid_utf8", "a frame that is not UTF-8 (Latin-1 text)", {}, _bad("json.encoding", "crash")),
    DemoTool("slow_write", "a write that counts its executions, then answers late (0.1 s by default)",
             {"key": "demo"}, _COMPLETE, checked_action=_A.ACCEPT,
             note="a client that times out first has still caused the write: write_count shows how many ran"),
    DemoTool("write_count", "a read: how many times slow_write ran for a key", {"key": "demo"}, _COMPLETE,
             checked_action=_A.ACCEPT),
    DemoTool("deferred_everywhere", "resultType \"deferred\" on every version (2025 sessions too)", {},
             _bad("result.result_type_unknown")),
)

CATALOGUE_BY_NAME: Final[Mapping[str, DemoTool]] = MappingProxyType({tool.name: tool for tool in CATALOGUE})
