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
  check) whose requests are all form-mode elicitations with a requested schema of the
  plainest properties: a string, number, integer or boolean type with at most a string
  title and description (anything richer is left to ``_elicitation``);
- no result ``_meta`` key the version reserves with a type (``_meta`` checks those);
- the open-shaped values inside them (structuredContent, _meta, error data, the requested
  schema) hold only JSON values with finite numbers and string member names, within the
  depth limit and the node budget: the bounds ``_walk.check_value`` applies.

Two ways in, one contract:

- :func:`read_common` reads wire text. The shapes above are declared as types, per version
  and depth limit, and msgspec reads the text against them in C (refusing what the strict
  reader, ``_parser``, refuses: invalid UTF-8, lone surrogates, NaN and Infinity, numbers
  beyond a double such as 1e400, control characters, trailing data...). So every member it
  returns already has the JSON type its declaration names, an open-shaped value nests no
  deeper than the limit, and a member not declared is dropped. What types cannot say (the
  request id, reserved codes, which members go together, property types) is checked after
  the read.
- :func:`common_kind` checks a parsed value: the caller's, or the strict reader's (which
  reads 1e400 as infinity). Every value is inspected: exact types, finite numbers, string
  member names.

msgspec keeps the last copy of a repeated member name silently, and drops undeclared ones;
its value is used only when orjson, writing it back, produces exactly the text (followed by
nothing but whitespace). The text is then the writing of Python dicts, whose keys are
distinct, with orjson's one-to-one escaping: it repeats no member name and holds no member
the value lacks. Compact JSON as the TypeScript and Python SDKs write it is such a text; any
other (spaces after the colons, escaped non-ASCII, ``1e2``...) goes to the strict reader,
which decides and explains.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from typing import Any, Final, Literal, NotRequired, TypedDict, Union

import msgspec
import orjson

from ._kind import Kind
from ._verdict import Verdict, make_verdict
from ._versions import RULES_BY_VERSION, VersionRules
from ._walk import Options

_ABSENT: Final = object()
_WRITE: Final = orjson.dumps
_PLAIN_PROPERTY_TYPES: Final = frozenset({"string", "number", "integer", "boolean"})
_PLAIN_PROPERTY_TEXT: Final = frozenset({"title", "description"})
_MEDIA: Final = frozenset({"image", "audio"})
_PLAIN_SCALARS: Final = frozenset({str, int, bool, type(None)})  # JSON scalars with nothing to check
_STRINGS: Final = frozenset({str})
_FEW_MEMBERS: Final = 8  # up to this many, one look at each member is cheaper than two set checks
# Enum members are slow to look up on their class; these are read once.
_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE
_TOOL_ERROR: Final = Kind.TOOL_ERROR
_INPUT_REQUIRED: Final = Kind.INPUT_REQUIRED
_PROTOCOL_ERROR: Final = Kind.PROTOCOL_ERROR


# --- wire text: the common shapes, declared for msgspec -------------------------------------
# The shapes are declared per version (the members a version defines, the resultType values
# it knows, the shape of structuredContent) and per depth limit: an open-shaped value is
# declared as JSON nested no deeper than the limit allows, so that msgspec itself refuses a
# value nested too deep. Declaring nesting level by level costs msgspec a type node per
# possible path, twice as many per level; past _TYPED_DEPTH a value is left to the full
# checker, which reads it at any depth the limit allows.

_TYPED_DEPTH: Final = 10
"""The deepest level (the envelope being level 1) at which the declared shapes hold an
object or array; ``structuredContent`` may thus nest eight levels inside itself."""
_FIXED_DEPTH: Final = 9
"""The level of the deepest member the common shapes fix: a requested property's members."""
# The shapes are built from member types computed at run time, which mypy cannot read as
# types: it sees these as plain values.
_TYPED_DICT: Final[Any] = TypedDict
_UNION: Final[Any] = Union
_NOT_REQUIRED: Final[Any] = NotRequired
_DICT: Final[Any] = dict
_LIST: Final[Any] = list


_TEXT_BLOCK: Final = _TYPED_DICT("_TextBlock", {"type": Literal["text"], "text": str})


def _json_levels(deepest: int) -> dict[int, Any]:
    """The type of a JSON value at each nesting level from 3 on, holding objects and arrays
    at levels up to ``deepest`` only."""
    levels: dict[int, Any] = {deepest + 1: _UNION[str, int, float, bool, None]}
    for level in range(deepest, 2, -1):
        inner = levels[level + 1]
        levels[level] = _UNION[str, int, float, bool, None, _DICT[str, inner], _LIST[inner]]
    return levels


def _envelope_type(rules: VersionRules, deepest: int) -> Any:
    """The common response shapes of one version, open-shaped values nested at most to
    level ``deepest``."""
    levels = _json_levels(deepest)
    result: dict[str, Any] = {
        "resultType": Literal["complete", "input_required"] if rules.input_required else Literal["complete"],
        "content": _NOT_REQUIRED[_LIST[_TEXT_BLOCK]],
        "isError": _NOT_REQUIRED[bool],
        "_meta": _NOT_REQUIRED[_DICT[str, levels[4]]],
    }
    if not rules.result_type_required:
        result["resultType"] = _NOT_REQUIRED[result["resultType"]]
    if rules.structured_content == "object":
        result["structuredContent"] = _NOT_REQUIRED[_DICT[str, levels[4]]]
    elif rules.structured_content == "any":
        result["structuredContent"] = _NOT_REQUIRED[levels[3]]
    if rules.input_required:
        schema = _TYPED_DICT("_RequestedSchema", {
            "type": Literal["object"],
            "properties": _DICT[str, _DICT[str, levels[9]]],  # each property's type is checked after the read
            "required": _NOT_REQUIRED[_LIST[str]]})
        params = _TYPED_DICT("_FormParams", {
            "mode": _NOT_REQUIRED[Literal["form"]], "message": str, "requestedSchema": schema})
        elicitation = _TYPED_DICT("_Elicitation", {"method": Literal["elicitation/create"], "params": params})
        result["inputRequests"] = _NOT_REQUIRED[_DICT[str, elicitation]]
        result["requestState"] = _NOT_REQUIRED[str]
    error = _TYPED_DICT("_Error", {"code": int, "message": str, "data": _NOT_REQUIRED[levels[3]]})
    return _TYPED_DICT("_Envelope", {
        "jsonrpc": Literal["2.0"], "id": int | str,
        "result": _NOT_REQUIRED[_TYPED_DICT("_Result", result)], "error": _NOT_REQUIRED[error]})


def common_reader(version: str, max_depth: int) -> Callable[[bytes], Any] | None:
    """msgspec's reader of the common shapes of ``version`` under a depth limit, for
    ``Options.read_common``; ``None`` when the limit leaves no room for them."""
    return _reader(version, min(max_depth, _TYPED_DEPTH)) if max_depth >= _FIXED_DEPTH else None


@functools.cache
def _reader(version: str, deepest: int) -> Callable[[bytes], Any]:
    """Built on first use (a few milliseconds), remembered: a pure function of its arguments."""
    return msgspec.json.Decoder(_envelope_type(RULES_BY_VERSION[version], deepest)).decode


def read_common(data: bytes, options: Options, request_id: str | int | None,
                count_values: bool = False) -> Verdict | None:
    """The verdict on a common well-formed response read from wire text; ``None`` to leave
    the text to the strict reader and the full checker. ``options.read_common`` is set;
    ``count_values`` when the text is longer than ``options.max_nodes``."""
    try:
        message: Any = options.read_common(data)  # type: ignore[misc]
        written = _WRITE(message)
    except Exception:  # msgspec: not JSON or not the shapes, 1e400, too deep; orjson: an integer beyond 64 bits
        return None
    # The proof (module docstring): msgspec accepted all of data, so whatever follows the
    # written value is whitespace.
    if (written != data and not data.startswith(written)) or len(message) != 3:  # jsonrpc, id, result|error
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
        owner = error
    elif rules.reserved_result_meta and not rules.reserved_result_meta.isdisjoint(result.get("_meta", ())):
        return None  # a reserved _meta key: its type is _meta's to check
    elif result.get("resultType") != "input_required":
        if "content" not in result or "inputRequests" in result or "requestState" in result:
            return None
        kind = _TOOL_ERROR if result.get("isError") is True else _NORMAL_COMPLETE
        owner = result
    else:
        if (options.client_capabilities is not None
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
                    if not _plain_property(definition):
                        return None
        kind = _INPUT_REQUIRED
        owner = result
    if count_values and not _within_budget(owner, options):
        return None
    return make_verdict(kind, (), rules.version, message)


def _within_budget(owner: Any, options: Options) -> bool:
    """The open-shaped values in ``owner`` (a result or an error read by :func:`read_common`)
    hold no more values than the node budget, counted as ``_walk.check_value`` counts them."""
    values = [(owner[name], 3) for name in ("_meta", "structuredContent", "data") if name in owner]
    values.extend((request["params"]["requestedSchema"], 6) for request in owner.get("inputRequests", {}).values())
    budget = options.max_nodes
    for value, depth in values:
        budget = _open_value(value, depth, options.max_depth, budget)
        if budget < 0:
            return False
    return True


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
        if type(meta) is not dict or not rules.reserved_result_meta.isdisjoint(meta):
            return None  # not an object, or a reserved key whose type is _meta's to check
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
                if not _plain_property(definition):
                    return None
                budget = _open_value(definition, 8, options.max_depth, budget + 1)  # charged above
                if budget < 0:
                    return None
    if len(result) != known:
        return None
    return _INPUT_REQUIRED


def _plain_property(definition: dict[str, Any]) -> bool:
    """A requested property of the plainest shape, on which no rule of ``_elicitation`` can
    fire: a string, number, integer or boolean type and at most a string title and
    description. Any other definition (formats, bounds, defaults, enums) is the full
    checker's."""
    kind = definition.get("type")
    if type(kind) is not str or kind not in _PLAIN_PROPERTY_TYPES:
        return False
    for key, value in definition.items():
        if key != "type" and (key not in _PLAIN_PROPERTY_TEXT or type(value) is not str):
            return False
    return True


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
    if kind is dict and depth <= max_depth:  # a flat object is the common case: seen at once
        if len(value) > _FEW_MEMBERS:  # type: ignore[arg-type]
            if (_PLAIN_SCALARS.issuperset(map(type, value.values()))  # type: ignore[attr-defined]
                    and _STRINGS.issuperset(map(type, value))):  # type: ignore[call-overload]
                return budget - len(value)  # type: ignore[arg-type]
        else:
            for key, item in value.items():  # type: ignore[attr-defined]
                item_kind = type(item)
                if type(key) is not str or not (item_kind is str or item_kind is int or item_kind is bool
                                                 or item is None or (item_kind is float and item - item == 0.0)):
                    break  # something to look into: the walk below decides
            else:
                return budget - len(value)  # type: ignore[arg-type]
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
