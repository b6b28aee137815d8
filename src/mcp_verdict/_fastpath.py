"""The fast path: the common well-formed responses, recognised in one pass.

This module enforces no rule of its own. It recognises a few shapes that are both common
and plainly well-formed, and for those it returns the kind the full checker (``_envelope``,
``_error``, ``_result``, ``_content``, ``_input``, ``_walk``) would return, so that a common
response does not pay for the full checker's generality. It never produces a finding: for
anything it does not recognise it returns ``None``, and the full checker then runs from the
start and says what, if anything, is wrong. A rule lives where it always did, in the module
named for what it checks; this one only knows shapes on which no rule can fire.

The contract, held by ``tests/test_fastpath.py`` on every corpus case and on generated and
mutated responses: when :func:`common_kind` returns a kind, the full checker returns the same
kind with no finding at all (not even a warning).

Shapes recognised (exact JSON types only: a subclass of dict, str or int is "unusual"):

- the envelope ``{"jsonrpc": "2.0", "id": <str or int>, "result"|"error": ...}`` with exactly
  those three members, and the request id, when given, equal with the same JSON type;
- an error ``{"code": <int>, "message": <str>}`` with an optional ``data``, whose code is
  outside -32099..-32002 on versions that warn about reserved codes;
- a complete result (``resultType: "complete"``, or absent where the version reads absence
  as complete) with ``content`` of bare text blocks ``{"type": "text", "text": <str>}`` and
  image or audio blocks ``{"type", "data", "mimeType"}`` the version defines; ``isError``
  absent or a JSON boolean; ``structuredContent`` where the version defines it (an object
  where the version requires one); ``_meta`` an object; no other member;
- an ``input_required`` result (on versions that define it, with no client capabilities to
  check) whose requests are all form-mode elicitations with a requested schema of
  primitive properties;
- the open-shaped values inside them (structuredContent, _meta, error data, the requested
  schema) hold only JSON values with finite numbers and string member names, within the
  depth limit and the node budget: the bounds ``_walk.check_value`` applies.

Values read by the quick reader (``_parser.read_quick``) are JSON types, finite numbers and
string member names by construction, so their open-shaped values are only measured (depth,
node budget); values handed in by the caller, or read by the strict reader (which reads
1e400 as infinity), are inspected value by value. Whether the wire text repeated a member
name is not this module's question: ``_parser`` answers it before a value gets here.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final

import orjson

from ._kind import Kind
from ._walk import Options

_ABSENT: Final = object()
_PRIMITIVE_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "array"})
_MEDIA: Final = frozenset({"image", "audio"})
# Enum members are slow to look up on their class; these are read once.
_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE
_TOOL_ERROR: Final = Kind.TOOL_ERROR
_INPUT_REQUIRED: Final = Kind.INPUT_REQUIRED
_PROTOCOL_ERROR: Final = Kind.PROTOCOL_ERROR


def common_kind(message: object, options: Options, request_id: str | int | None,
                quick: bool) -> Kind | None:
    """The kind of a common well-formed response; ``None`` to leave it to the full checker.

    ``quick``: ``message`` was read by ``_parser.read_quick`` (see the module docstring).
    """
    if type(message) is not dict or len(message) != 3:
        return None
    jsonrpc = message.get("jsonrpc")
    response_id = message.get("id")
    id_type = type(response_id)
    if type(jsonrpc) is not str or jsonrpc != "2.0" or (id_type is not int and id_type is not str):
        return None
    if request_id is not None and (id_type is not type(request_id) or response_id != request_id):
        return None
    result = message.get("result", _ABSENT)
    if result is _ABSENT:
        return _error(message.get("error", _ABSENT), options, quick)
    if type(result) is not dict:
        return None
    rules = options.rules
    budget = options.max_nodes
    known = 0  # members of result checked so far
    meta = result.get("_meta", _ABSENT)
    if meta is not _ABSENT:
        if type(meta) is not dict:
            return None
        budget = _open_value(meta, 3, options.max_depth, budget, quick)
        if budget < 0:
            return None
        known = 1
    result_type = result.get("resultType", _ABSENT)
    if result_type is _ABSENT:
        if rules.result_type_required:
            return None
    elif type(result_type) is not str:
        return None
    elif result_type == "complete":
        known += 1
    elif result_type == "input_required" and rules.input_required and options.client_capabilities is None:
        return _input_required(result, options, quick, budget, known + 1)
    else:
        return None

    # --- a complete result ---------------------------------------------------------------
    content = result.get("content")
    if type(content) is not list:
        return None
    for block in content:
        if type(block) is not dict:
            return None
        if len(block) == 2:
            if not (block.get("type") == "text" and type(block.get("text")) is str):  # as _content reads it
                return None
        elif len(block) == 3:
            block_type = block.get("type")
            if (type(block_type) is not str or block_type not in _MEDIA or block_type not in rules.content_types
                    or type(block.get("data")) is not str or type(block.get("mimeType")) is not str):
                return None
        else:
            return None
    known += 1
    flag = result.get("isError", _ABSENT)
    if flag is not _ABSENT:
        if flag is not True and flag is not False:
            return None
        known += 1
    structured = result.get("structuredContent", _ABSENT)
    if structured is not _ABSENT:
        shape = rules.structured_content
        if shape == "undefined" or (shape == "object" and type(structured) is not dict):
            return None
        if _open_value(structured, 3, options.max_depth, budget, quick) < 0:
            return None
        known += 1
    if len(result) != known:  # a member no rule names: the full checker walks it
        return None
    return _TOOL_ERROR if flag is True else _NORMAL_COMPLETE


def _error(error: object, options: Options, quick: bool) -> Kind | None:
    """A JSON-RPC error object of the common shape."""
    if type(error) is not dict:
        return None
    code = error.get("code")
    if type(code) is not int or type(error.get("message")) is not str:
        return None
    if options.rules.result_type_required and -32099 <= code <= -32002:
        return None  # maybe a reserved or retired code: the full checker decides on a warning
    if len(error) != 2 and (len(error) != 3 or "data" not in error
                            or _open_value(error["data"], 3, options.max_depth, options.max_nodes, quick) < 0):
        return None
    return _PROTOCOL_ERROR


def _input_required(result: dict[str, object], options: Options, quick: bool, budget: int,
                    known: int) -> Kind | None:
    """An input_required result whose requests are form-mode elicitations."""
    state = result.get("requestState", _ABSENT)
    if state is not _ABSENT:
        if type(state) is not str:
            return None
        known += 1
    requests = result.get("inputRequests", _ABSENT)
    if requests is _ABSENT:
        if state is _ABSENT:
            return None  # neither inputRequests nor requestState
    elif type(requests) is not dict or not requests:
        return None
    else:
        known += 1
        for key, request in requests.items():
            if type(key) is not str or type(request) is not dict or len(request) != 2:
                return None
            method = request.get("method")
            params = request.get("params")
            if type(method) is not str or method != "elicitation/create" or type(params) is not dict:
                return None
            schema = params.get("requestedSchema")
            if type(params.get("message")) is not str or type(schema) is not dict:
                return None
            if len(params) == 3:
                mode = params.get("mode")
                if type(mode) is not str or mode != "form":
                    return None
            elif len(params) != 2:
                return None
            schema_type = schema.get("type")
            properties = schema.get("properties")
            if type(schema_type) is not str or schema_type != "object" or type(properties) is not dict:
                return None
            for definition in properties.values():
                if type(definition) is not dict:
                    return None
                kind = definition.get("type")
                if type(kind) is not str or kind not in _PRIMITIVE_TYPES:
                    return None
            required = schema.get("required", _ABSENT)
            if required is not _ABSENT:
                if type(required) is not list:
                    return None
                for name in required:
                    if type(name) is not str:
                        return None
            budget = _open_value(schema, 6, options.max_depth, budget, quick)
            if budget < 0:
                return None
    if len(result) != known:
        return None
    return _INPUT_REQUIRED


def _open_value(value: object, depth: int, max_depth: int, budget: int, quick: bool) -> int:
    """Hold an open-shaped value at nesting ``depth`` to ``_walk.check_value``'s bounds.

    Returns the node budget left, or -1 when the value is unusual: an object or array nested
    deeper than ``max_depth``, more values than the ``budget`` (one per value, as
    ``check_value`` charges), or anything but exact JSON types with finite numbers and string
    member names.
    """
    if quick:
        # A value of the quick reader is JSON by construction; only its size is in question.
        # Written out, every value starts at its own byte and every level of nesting takes
        # two, so a short writing bounds both without a walk (charging one node per byte).
        try:
            size = len(orjson.dumps(value))
        except orjson.JSONEncodeError:  # an integer beyond 64 bits
            size = budget + 1
        if depth - 1 + size // 2 <= max_depth and size <= budget:
            return budget - size
    budget -= 1
    kind = type(value)
    if kind is not dict and kind is not list:
        if kind is str or kind is int or kind is bool or value is None:
            return budget
        return budget if kind is float and value - value == 0.0 else -1  # type: ignore[operator]
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        container, level = stack.pop()
        if level > max_depth:
            return -1
        items: Collection[Any]
        if type(container) is dict:
            items = container.values()
            if not quick:
                for key in container:
                    if type(key) is not str:
                        return -1
        else:
            items = container
        budget -= len(items)
        if budget < 0:
            return -1
        for item in items:
            kind = type(item)
            if kind is str or kind is int or kind is bool or item is None:
                continue
            if kind is dict or kind is list:
                stack.append((item, level + 1))
            elif kind is not float or item - item != 0.0:  # NaN and the infinities
                return -1
    return budget
