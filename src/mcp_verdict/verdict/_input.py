"""input_required results: the multi round-trip request pattern (2026-07-28).

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr,
client/elicitation, and the schema's InputRequiredResult):

- at least one of ``inputRequests`` and ``requestState`` (``input.empty``);
- ``requestState`` is a string, possibly empty, echoed byte for byte on the retry
  (``input.request_state_type``);
- ``inputRequests`` is an object (``input.requests_type``; an empty one draws the warning
  ``input.requests_empty``) whose values are objects with a ``method`` of
  ``elicitation/create``, ``sampling/createMessage`` or ``roots/list`` (``input.request``);
- params (``input.params``): elicitation — ``message`` a string and either form mode (mode
  absent or "form") with ``requestedSchema`` ``{"type": "object", "properties": {...}}``
  whose properties are primitive schemas, or url mode with ``url`` a string (any other mode:
  ``input.elicitation_mode``); sampling — ``messages`` an array of {role, content} and
  ``maxTokens`` an integer; roots — params optional, an object;
- with the client's declared capabilities known, a request for a capability it did not
  declare is refused (``input.capability``): elicitation (form mode needs ``elicitation``
  empty or with ``form``; url mode needs ``elicitation.url``), sampling (with ``tools``, it
  needs ``sampling.tools``: client/sampling#tools-in-sampling), roots.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._findings import describe, pointer
from ._walk import Context, check_extras, check_value

_REQUEST_KEYS: Final = frozenset({"method", "params"})
_ELICIT_FORM_KEYS: Final = frozenset({"mode", "message", "requestedSchema"})
_ELICIT_URL_KEYS: Final = frozenset({"mode", "message", "url"})
_SAMPLING_KEYS: Final = frozenset({"maxTokens"})
_PRIMITIVE_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "array"})
_ROLES: Final = frozenset({"user", "assistant"})
_CAPABILITY: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
# Depths: result 2, inputRequests 3, one request 4, its params 5, params members 6.
_PARAMS_DEPTH: Final = 5


def check_input_required(ctx: Context, result: Mapping[str, Any]) -> None:
    has_requests = "inputRequests" in result
    has_state = "requestState" in result
    if not has_requests and not has_state:
        ctx.add("/result", "input.empty",
                "an input_required result needs inputRequests, requestState or both")
    if has_state and not isinstance(result["requestState"], str):
        ctx.add("/result/requestState", "input.request_state_type",
                f"requestState is {describe(result['requestState'])}; it must be a string")
    if not has_requests:
        return
    requests = result["inputRequests"]
    if not isinstance(requests, dict):
        ctx.add("/result/inputRequests", "input.requests_type",
                f"inputRequests is {describe(requests)}, not an object")
        return
    if not requests:
        ctx.add("/result/inputRequests", "input.requests_empty",
                "inputRequests is empty: there is nothing to fulfil")
    for key, request in requests.items():
        if not isinstance(key, str):
            ctx.add("/result/inputRequests", "json.not_json_value", f"member name {key!r} is not a string")
            continue
        _check_request(ctx, request, pointer("/result/inputRequests", key))


def _check_request(ctx: Context, request: object, path: str) -> None:
    if not isinstance(request, dict):
        ctx.add(path, "input.request", f"the input request is {describe(request)}, not an object")
        return
    method = request.get("method")
    if not isinstance(method, str) or method not in _CAPABILITY:
        ctx.add(pointer(path, "method") if "method" in request else path, "input.request",
                f"method is {describe(method)}; expected elicitation/create, "
                f"sampling/createMessage or roots/list" if "method" in request
                else "the input request has no method")
        return
    check_extras(ctx, request, _REQUEST_KEYS, path, _PARAMS_DEPTH - 1)
    where = pointer(path, "params")
    params = request.get("params")
    if method == "roots/list":
        if "params" in request:
            if isinstance(params, dict):
                check_value(ctx, params, where, _PARAMS_DEPTH)
            else:
                ctx.add(where, "input.params", f"params is {describe(params)}, not an object")
        _require_capability(ctx, path, "roots")
        return
    if not isinstance(params, dict):
        ctx.add(where if "params" in request else path, "input.params",
                f"params is {describe(params)}, not an object" if "params" in request
                else f"{method} needs params")
        return
    if method == "elicitation/create":
        _check_elicitation(ctx, params, where, path)
    else:
        _check_sampling(ctx, params, where)
        _require_capability(ctx, path, "sampling", "tools" if "tools" in params else None)


def _check_elicitation(ctx: Context, params: Mapping[str, Any], where: str, path: str) -> None:
    if not isinstance(params.get("message"), str):
        ctx.add(pointer(where, "message") if "message" in params else where, "input.params",
                f"message is {describe(params.get('message'))}; expected a string"
                if "message" in params else "an elicitation needs a message")
    mode = params.get("mode", "form")
    if mode == "url" and isinstance(mode, str):
        if not isinstance(params.get("url"), str):
            ctx.add(pointer(where, "url") if "url" in params else where, "input.params",
                    f"url is {describe(params.get('url'))}; expected a string" if "url" in params
                    else "a url-mode elicitation needs a url")
        check_extras(ctx, params, _ELICIT_URL_KEYS, where, _PARAMS_DEPTH)
        _require_capability(ctx, path, "elicitation", "url")
        return
    if mode != "form" or not isinstance(mode, str):
        ctx.add(pointer(where, "mode"), "input.elicitation_mode",
                f'mode is {describe(mode)}; expected "form" (or absent) or "url"')
        return
    schema = params.get("requestedSchema")
    schema_at = pointer(where, "requestedSchema")
    if not isinstance(schema, dict):
        ctx.add(schema_at if "requestedSchema" in params else where, "input.params",
                f"requestedSchema is {describe(schema)}, not an object" if "requestedSchema" in params
                else "a form-mode elicitation needs a requestedSchema")
    else:
        _check_requested_schema(ctx, schema, schema_at)
    check_extras(ctx, params, _ELICIT_FORM_KEYS, where, _PARAMS_DEPTH)
    _require_capability(ctx, path, "elicitation", "form")


def _check_requested_schema(ctx: Context, schema: Mapping[str, Any], path: str) -> None:
    if schema.get("type") != "object" or not isinstance(schema.get("type"), str):
        ctx.add(pointer(path, "type") if "type" in schema else path, "input.params",
                f'requestedSchema.type is {describe(schema.get("type"))}; expected "object"'
                if "type" in schema else 'requestedSchema needs "type": "object"')
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        ctx.add(pointer(path, "properties") if "properties" in schema else path, "input.params",
                f"requestedSchema.properties is {describe(properties)}, not an object"
                if "properties" in schema else "requestedSchema needs properties")
    else:
        for name, definition in properties.items():
            kind = definition.get("type") if isinstance(definition, dict) else None
            if not isinstance(kind, str) or kind not in _PRIMITIVE_TYPES:
                ctx.add(pointer(pointer(path, "properties"), name), "input.params",
                        f"property {name!r} is {describe(definition)}; a requested schema holds "
                        "only primitive properties (string, number, integer, boolean, enum arrays)")
                return
    if "required" in schema and (not isinstance(schema["required"], list)
                                 or not all(isinstance(n, str) for n in schema["required"])):
        ctx.add(pointer(path, "required"), "input.params",
                f"requestedSchema.required is {describe(schema['required'])}; expected an array of strings")
    check_value(ctx, schema, path, _PARAMS_DEPTH + 1)


def _check_sampling(ctx: Context, params: Mapping[str, Any], where: str) -> None:
    messages = params.get("messages")
    if not isinstance(messages, list):
        ctx.add(pointer(where, "messages") if "messages" in params else where, "input.params",
                f"messages is {describe(messages)}; expected an array" if "messages" in params
                else "a sampling request needs messages")
    else:
        for index, message in enumerate(messages):
            at = pointer(pointer(where, "messages"), index)
            role = message.get("role") if isinstance(message, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if (not isinstance(role, str) or role not in _ROLES
                    or not isinstance(content, (dict, list))):
                ctx.add(at, "input.params",
                        f"message is {describe(message)}; expected an object with role "
                        "user or assistant and content")
                return
    max_tokens = params.get("maxTokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        ctx.add(pointer(where, "maxTokens") if "maxTokens" in params else where, "input.params",
                f"maxTokens is {describe(max_tokens)}; expected an integer" if "maxTokens" in params
                else "a sampling request needs maxTokens", max_tokens)
    check_extras(ctx, params, _SAMPLING_KEYS, where, _PARAMS_DEPTH)


def _require_capability(ctx: Context, path: str, capability: str, mode: str | None = None) -> None:
    declared = ctx.options.client_capabilities
    if declared is None:
        return
    if capability not in declared:
        ctx.add(path, "input.capability",
                f"the client did not declare the {capability} capability; the server MUST NOT "
                "ask for it")
        return
    if mode is None:
        return
    declared_modes = declared[capability]
    if capability == "sampling":  # tool-enabled sampling needs sampling.tools
        if mode not in declared_modes:
            ctx.add(path, "input.capability",
                    "the client did not declare sampling.tools; the server MUST NOT send a "
                    "tool-enabled sampling request")
        return
    supported = {"form"} if not declared_modes else {m for m in ("form", "url") if m in declared_modes}
    if mode not in supported:
        ctx.add(path, "input.capability",
                f"the client declared elicitation modes {sorted(supported) or 'none'}; "
                f"the server MUST NOT send a {mode}-mode elicitation")
