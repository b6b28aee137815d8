"""The fast path: the common well-formed responses, recognised in one pass.

This module enforces no rule of its own. It recognises a few shapes that are both common
and plainly well-formed, and for those it returns the kind the full checker (``_envelope``,
``_error``, ``_result``, ``_content``, ``_input``, ``_walk``) would return, so that a common
response does not pay for the full checker's generality. It never produces a finding: for
anything it does not recognise it returns ``None``, and the full checker then runs from the
start and says what, if anything, is wrong. A rule lives where it always did, in the module
named for what it checks; this one only knows shapes on which no rule can fire.

The contract, held by ``tests/test_fastpath.py`` on every corpus case and on generated and
mutated responses: when :func:`read_common` or :func:`common_kind` returns a kind, the strict
reader and the full checker return the same kind, with no finding at all (not even a
warning), and the same parsed message.

Shapes recognised (exact JSON types only: a subclass of dict, str or int is "unusual"):

- the envelope ``{"jsonrpc": "2.0", "id": <str or int>, "result"|"error": ...}`` with exactly
  those three members, and the request id, when given, equal with the same JSON type;
- an error ``{"code": <int>, "message": <str>}`` with an optional ``data``, whose code is
  outside -32099..-32002 on versions that warn about reserved codes;
- a complete result (``resultType: "complete"``, or absent where the version reads absence
  as complete) with ``content`` of bare text blocks ``{"type": "text", "text": <str>}`` (and,
  parsed values only, image or audio blocks ``{"type", "data", "mimeType"}`` the version
  defines: on the wire these go to the strict reader first); ``isError``
  absent or a JSON boolean; ``structuredContent`` where the version defines it (an object
  where the version requires one); ``_meta`` an object; no other member;
- an ``input_required`` result (on versions that define it, with no client capabilities to
  check) whose requests are all form-mode elicitations with a requested schema of
  primitive properties;
- the open-shaped values inside them (structuredContent, _meta, error data, the requested
  schema) hold only JSON values with finite numbers and string member names, within the
  depth limit and the node budget: the bounds ``_walk.check_value`` applies.

Two ways in, one contract:

- :func:`read_common` reads wire text. The shapes above are declared as types, and msgspec
  reads the text against them in C, so every member it returns already has the JSON type its
  declaration names; a member not declared is dropped, and ``_parser.read_quick``'s proof
  (orjson writes the value back as exactly the text) then fails, so nothing undeclared, no
  repeated member name and no rewritten value gets through. What types cannot say (version
  rules, the request id, reserved codes, property types, the depth and node bounds) is
  checked after the read.
- :func:`common_kind` checks a parsed value: the caller's, or the strict reader's (which
  reads 1e400 as infinity). Every value is inspected: exact types, finite numbers, string
  member names.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final, Literal, NotRequired, TypedDict

import msgspec

from ._kind import Kind
from ._parser import NOT_PARSED, read_quick
from ._walk import Options

_ABSENT: Final = object()
_PRIMITIVE_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "array"})
_MEDIA: Final = frozenset({"image", "audio"})
_CONTAINERS: Final = frozenset({dict, list})
_PLAIN_SCALARS: Final = frozenset({str, int, bool, type(None)})  # JSON scalars with nothing to check
_STRINGS: Final = frozenset({str})
_SHORT_TEXT: Final = 4096  # bytes; below it, counting brackets is cheaper than looking at values
# Enum members are slow to look up on their class; these are read once.
_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE
_TOOL_ERROR: Final = Kind.TOOL_ERROR
_INPUT_REQUIRED: Final = Kind.INPUT_REQUIRED
_PROTOCOL_ERROR: Final = Kind.PROTOCOL_ERROR


# --- wire text: the common shapes, declared for msgspec -------------------------------------

class _TextBlock(TypedDict):
    type: Literal["text"]
    text: str


class _RequestedSchema(TypedDict):
    type: Literal["object"]
    properties: dict[str, dict[str, Any]]  # each property's type is checked after the read
    required: NotRequired[list[str]]


class _FormParams(TypedDict):
    mode: NotRequired[Literal["form"]]
    message: str
    requestedSchema: _RequestedSchema


class _Elicitation(TypedDict):
    method: Literal["elicitation/create"]
    params: _FormParams


class _Result(TypedDict, total=False):  # which members go together is checked after the read
    resultType: Literal["complete", "input_required"]
    content: list[_TextBlock]
    isError: bool
    structuredContent: Any
    _meta: dict[str, Any]
    inputRequests: dict[str, _Elicitation]
    requestState: str


class _Error(TypedDict):
    code: int
    message: str
    data: NotRequired[Any]


class _Envelope(TypedDict):
    jsonrpc: Literal["2.0"]
    id: int | str
    result: NotRequired[_Result]
    error: NotRequired[_Error]


_READ_COMMON: Final = msgspec.json.Decoder(_Envelope).decode


def read_common(data: bytes, options: Options, request_id: str | int | None) -> tuple[Kind, Any] | None:
    """Read a common well-formed response from wire text: ``(kind, message)``; ``None`` to
    leave the text to the strict reader and the full checker."""
    message: Any = read_quick(data, _READ_COMMON)
    if message is NOT_PARSED or len(message) != 3:  # 3: jsonrpc, id and one of result and error
        return None
    if request_id is not None and (type(message["id"]) is not type(request_id) or message["id"] != request_id):
        return None
    rules = options.rules
    result = message.get("result")
    if result is None:
        error = message["error"]
        if rules.result_type_required and -32099 <= error["code"] <= -32002:
            return None  # maybe a reserved or retired code: the full checker decides on a warning
        kind = _PROTOCOL_ERROR
        if "data" in error and not _within_bounds(data, error, options):
            return None
    else:
        result_type = result.get("resultType")
        if result_type is None and rules.result_type_required:
            return None
        if result_type == "input_required":
            if (not rules.input_required or options.client_capabilities is not None
                    or "content" in result or "isError" in result or "structuredContent" in result):
                return None
            requests = result.get("inputRequests")
            if requests is None:
                if "requestState" not in result:
                    return None  # neither inputRequests nor requestState
            elif not requests:
                return None
            else:
                for request in requests.values():
                    for definition in request["params"]["requestedSchema"]["properties"].values():
                        property_type = definition.get("type")
                        if type(property_type) is not str or property_type not in _PRIMITIVE_TYPES:
                            return None
            kind = _INPUT_REQUIRED
        else:
            if "content" not in result or "inputRequests" in result or "requestState" in result:
                return None
            if "structuredContent" in result and (
                    rules.structured_content == "undefined"
                    or (rules.structured_content == "object" and type(result["structuredContent"]) is not dict)):
                return None
            kind = _TOOL_ERROR if result.get("isError") is True else _NORMAL_COMPLETE
        if (("structuredContent" in result or "_meta" in result or "inputRequests" in result)
                and not _within_bounds(data, result, options)):
            return None
    return kind, message


def _within_bounds(data: bytes, owner: Any, options: Options) -> bool:
    """The open-shaped values in ``owner`` (a result or an error read by :func:`read_common`)
    are within the depth limit and the node budget.

    Every value starts at its own byte, so a text no longer than the node budget holds no
    more values. A value nested at level L (the envelope being level 1) has L opening
    brackets before it, so a text with few brackets nests no deeper; counting them is the
    cheapest check on a short text, and on a long one, seeing that the open-shaped values
    are flat (nothing nested in them). Else they are walked, as ``_walk.check_value`` would.
    """
    if len(data) <= options.max_nodes:
        if len(data) <= _SHORT_TEXT:
            if data.count(b"{") + data.count(b"[") <= options.max_depth:
                return True
        elif options.max_depth >= 3 and "inputRequests" not in owner and all(
                _flat(owner[name]) for name in ("_meta", "structuredContent", "data") if name in owner):
            return True
    values = [(owner[name], 3) for name in ("_meta", "structuredContent", "data") if name in owner]
    values.extend((request["params"]["requestedSchema"], 6) for request in owner.get("inputRequests", {}).values())
    budget = options.max_nodes
    for value, depth in values:
        budget = _open_value(value, depth, options.max_depth, budget)
        if budget < 0:
            return False
    return True


def _flat(value: Any) -> bool:
    """A JSON value read by msgspec with no object or array inside it."""
    kind = type(value)
    if kind is dict:
        return _CONTAINERS.isdisjoint(map(type, value.values()))
    return kind is not list or _CONTAINERS.isdisjoint(map(type, value))


# --- parsed values ----------------------------------------------------------------------------

def common_kind(message: object, options: Options, request_id: str | int | None) -> Kind | None:
    """The kind of a common well-formed parsed response; ``None`` to leave it to the full
    checker."""
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
        return _error(message.get("error", _ABSENT), options)
    if type(result) is not dict:
        return None
    rules = options.rules
    budget = options.max_nodes
    known = 0  # members of result checked so far
    meta = result.get("_meta", _ABSENT)
    if meta is not _ABSENT:
        if type(meta) is not dict:
            return None
        budget = _open_value(meta, 3, options.max_depth, budget)
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
        return _input_required(result, options, budget, known + 1)
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
        if _open_value(structured, 3, options.max_depth, budget) < 0:
            return None
        known += 1
    if len(result) != known:  # a member no rule names: the full checker walks it
        return None
    return _TOOL_ERROR if flag is True else _NORMAL_COMPLETE


def _error(error: object, options: Options) -> Kind | None:
    """A JSON-RPC error object of the common shape."""
    if type(error) is not dict:
        return None
    code = error.get("code")
    if type(code) is not int or type(error.get("message")) is not str:
        return None
    if options.rules.result_type_required and -32099 <= code <= -32002:
        return None  # maybe a reserved or retired code: the full checker decides on a warning
    if len(error) != 2 and (len(error) != 3 or "data" not in error
                            or _open_value(error["data"], 3, options.max_depth, options.max_nodes) < 0):
        return None
    return _PROTOCOL_ERROR


def _input_required(result: dict[str, object], options: Options, budget: int, known: int) -> Kind | None:
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
            # The schema {"type": "object", "properties": {...}, "required": [...]} is walked
            # here member by member, as _walk.check_value would walk it from depth 6.
            schema_type = schema.get("type")
            properties = schema.get("properties")
            required = schema.get("required", _ABSENT)
            if (type(schema_type) is not str or schema_type != "object" or type(properties) is not dict
                    or len(schema) != 2 + (required is not _ABSENT) or options.max_depth < 7):
                return None
            budget -= 1 + len(schema) + len(properties)  # the schema, its members, its properties
            if required is not _ABSENT:
                if type(required) is not list:
                    return None
                budget -= len(required)
                for name in required:
                    if type(name) is not str:
                        return None
            for name, definition in properties.items():
                if type(name) is not str or type(definition) is not dict:
                    return None
                kind = definition.get("type")
                if type(kind) is not str or kind not in _PRIMITIVE_TYPES:
                    return None
                budget = _open_value(definition, 8, options.max_depth, budget + 1)  # charged above
                if budget < 0:
                    return None
    if len(result) != known:
        return None
    return _INPUT_REQUIRED


def _open_value(value: object, depth: int, max_depth: int, budget: int) -> int:
    """Hold an open-shaped value at nesting ``depth`` to ``_walk.check_value``'s bounds.

    Returns the node budget left, or -1 when the value is unusual: an object or array nested
    deeper than ``max_depth``, more values than the ``budget`` (one per value, as
    ``check_value`` charges), or anything but exact JSON types with finite numbers and string
    member names.
    """
    budget -= 1
    kind = type(value)
    if kind is not dict and kind is not list:
        if kind is str or kind is int or kind is bool or value is None:
            return budget
        return budget if kind is float and value - value == 0.0 else -1  # type: ignore[operator]
    if (kind is dict and depth <= max_depth and _PLAIN_SCALARS.issuperset(map(type, value.values()))  # type: ignore[attr-defined]
            and _STRINGS.issuperset(map(type, value))):  # type: ignore[call-overload]
        return budget - len(value)  # type: ignore[arg-type]  # a flat object, the common case
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        container, level = stack.pop()
        if level > max_depth:
            return -1
        items: Collection[Any]
        if type(container) is dict:
            items = container.values()
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
