"""Tools that need the client's input first: multi round-trip requests (MRTR).

basic/patterns/mrtr and server/tools#input-required-tool-results
(https://modelcontextprotocol.io/specification/2026-07-28/):

- the first call is answered with ``resultType: "input_required"``, ``inputRequests`` (one
  ``elicitation/create`` or ``sampling/createMessage`` request) and a sealed ``requestState``;
- the client retries the same call (a new JSON-RPC id) with ``inputResponses`` and the exact
  ``requestState``; the state is verified (a tampered, expired or misapplied state is -32602)
  and the call completes;
- a retry that lacks the answer is asked again (mrtr#error-handling: "respond with a new
  InputRequiredResult requesting the missing information again"); an answer that is not a
  valid ElicitResult / CreateMessageResult is -32602;
- an input request is only sent when the request declared the capability (elicitation in form
  mode — client/elicitation#capabilities — or sampling); otherwise -32021;
- on a legacy (``initialize``) session there is no MRTR: the tool answers a tool error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._call import Call, structured, text_content, tool
from ._state import StateError
from ._wire import INVALID_PARAMS, Reply, RequestError

CONFIRM_KEY: Final = "confirm_delete"
SUMMARY_KEY: Final = "summary"
_ACTIONS: Final = frozenset({"accept", "decline", "cancel"})


def _legacy(call: Call) -> Reply:
    return call.result({"content": text_content(f"{call.name} asks the client for input with multi round-trip "
                                                "requests (protocol 2026-07-28); this session negotiated "
                                                "an earlier version."), "isError": True})


def _answer(call: Call, key: str) -> Mapping[str, Any] | None:
    """The client's answer to ``key`` when the call is a retry with a valid state, else None."""
    if call.request_state is None:
        return None
    try:
        call.services.sealer.open(call.request_state, call.name, call.arguments)
    except StateError as err:
        raise RequestError(INVALID_PARAMS, f"Invalid requestState: {err}") from None
    if call.input_responses is None or key not in call.input_responses:
        return None
    answer = call.input_responses[key]
    if not isinstance(answer, Mapping):
        raise RequestError(INVALID_PARAMS, f"inputResponses.{key} must be an object")
    return answer


def _ask(call: Call, key: str, request: Mapping[str, Any]) -> Reply:
    state = call.services.sealer.seal(call.name, call.arguments, {"asked": key})
    return call.result({"inputRequests": {key: dict(request)}, "requestState": state},
                       result_type="input_required")


@tool("Delete a file, after confirmation", "Asks the user to confirm with a form elicitation (input_required), "
      "then completes with whether the (pretend) file was deleted. Needs the elicitation capability (form mode); "
      "without it: -32021.",
      inputs={"path": {"type": "string", "minLength": 1}}, required=("path",),
      outputs={"path": {"type": "string"}, "deleted": {"type": "boolean"},
               "answer": {"type": "string", "enum": sorted(_ACTIONS)}}, output_required=("path", "deleted", "answer"),
      read_only=False, destructive=True, idempotent=True)
def confirm_delete(call: Call) -> Reply:
    if not call.modern:
        return _legacy(call)
    call.require("elicitation", {"elicitation": {"form": {}}})
    path = str(call.arguments["path"])
    answer = _answer(call, CONFIRM_KEY)
    if answer is None:
        return _ask(call, CONFIRM_KEY, {"method": "elicitation/create", "params": {
            "mode": "form",
            "message": f"Delete {path}? This cannot be undone.",
            "requestedSchema": {"type": "object",
                                "properties": {"confirm": {"type": "boolean", "title": "Delete the file"}},
                                "required": ["confirm"]}}})
    action = answer.get("action")
    if action not in _ACTIONS:
        raise RequestError(INVALID_PARAMS, f"inputResponses.{CONFIRM_KEY}.action must be accept, decline or cancel")
    content = answer.get("content")
    confirmed = action == "accept" and isinstance(content, Mapping) and content.get("confirm") is True
    if action == "accept" and not (isinstance(content, Mapping) and isinstance(content.get("confirm"), bool)):
        raise RequestError(INVALID_PARAMS, f"inputResponses.{CONFIRM_KEY}.content.confirm must be a boolean")
    data = {"path": path, "deleted": confirmed, "answer": action}
    return call.result(structured(data))




def _sampled_text(answer: Mapping[str, Any]) -> str | None:
    content = answer.get("content")
    blocks = content if isinstance(content, list) else [content]
    texts = [b["text"] for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    return "".join(texts) if texts else None


@tool("Summarize a text with the client's model", "Asks the client's model for a one-sentence summary "
      "(input_required with sampling/createMessage), then completes with it. Needs the sampling capability; "
      "without it: -32021.",
      inputs={"text": {"type": "string", "minLength": 1}}, required=("text",),
      outputs={"summary": {"type": "string"}, "model": {"type": "string"}}, output_required=("summary", "model"))
def summarize_text(call: Call) -> Reply:
    if not call.modern:
        return _legacy(call)
    call.require("sampling", {"sampling": {}})
    text = str(call.arguments["text"])
    answer = _answer(call, SUMMARY_KEY)
    if answer is None:
        return _ask(call, SUMMARY_KEY, {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text",
                                                      "text": f"Summarize in one sentence:\n\n{text}"}}],
            "systemPrompt": "You are a concise summarizer.",
            "maxTokens": 200}})
    summary = _sampled_text(answer)
    if answer.get("role") != "assistant" or summary is None:
        raise RequestError(INVALID_PARAMS, f"inputResponses.{SUMMARY_KEY} must be a CreateMessageResult with "
                                           "role assistant and text content")
    model = answer.get("model")
    data = {"summary": summary, "model": model if isinstance(model, str) else "unknown"}
    return call.result(structured(data))
