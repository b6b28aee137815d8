"""The fast path's look at a parsed value (:func:`common_kind`): the common well-formed shapes
(``_fastpath``'s docstring lists them), told on a value the caller parsed, the strict reader
read, or msgspec's typed read returned with its proof. Like ``_fastpath`` it enforces no rule of
its own and never produces a finding: it returns a kind only where the full checker returns the
same with no finding (``tests/test_fastpath.py``), ``None`` for anything else. What its checks
look at: the envelope and the error, a complete result's content blocks (text, resource_link,
image and audio), ``structuredContent`` and ``_meta`` (its keys in the key name format, a plain
serverInfo, no other reserved key), an ``input_required`` result of form-mode elicitations with
plain properties, and every open-shaped value's JSON types, numbers, member names and UTF-8
within the depth and the node budget (:func:`_open_value`).
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any, Final

from ._kind import Kind
from ._meta_keys import key_names_valid
from ._nodes import LOOKED, more_values
from ._options import Options
from ._versions import SERVER_INFO, TRACE_CONTEXT_KEYS, VersionRules

_ABSENT: Final = object()
_PLAIN_PROPERTY_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "array"})
_PLAIN_PROPERTY_TEXT: Final = frozenset({"title", "description"})
_STRING_BOUNDS: Final = frozenset({"minLength", "maxLength"})
_ITEM_BOUNDS: Final = frozenset({"minItems", "maxItems"})
_NUMBER_KEYWORDS: Final = frozenset({"default", "minimum", "maximum"})
_IMPLEMENTATION_TEXT: Final = frozenset({"name", "version", "title", "description", "websiteUrl"})
_MEDIA: Final = frozenset({"image", "audio"})
_PLAIN_SCALARS: Final = frozenset({str, int, bool, type(None)})  # JSON scalars with nothing to check
_STRINGS: Final = frozenset({str})
_FEW_MEMBERS: Final = 8  # up to this many, one look at each member is cheaper than two set checks
# Enum members are slow to look up on their class; these are read once.
_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE
_TOOL_ERROR: Final = Kind.TOOL_ERROR
_INPUT_REQUIRED: Final = Kind.INPUT_REQUIRED
_PROTOCOL_ERROR: Final = Kind.PROTOCOL_ERROR

_LINK_STRINGS: Final = frozenset({"uri", "name", "title", "description", "mimeType"})


def common_kind(message: object, options: Options, request_id: str | int | None, caller: bool = False
                ) -> Kind | None:
    """The kind of a common well-formed parsed response; ``None`` to leave it to the full
    checker. ``caller``: the value is the caller's, not a reader's: a string of it (a member name
    included) may hold a surrogate, which makes it unusual (:func:`_unencodable`)."""
    if type(message) is not dict or len(message) != 3:
        return None
    jsonrpc = message.get("jsonrpc")
    response_id = message.get("id")
    id_type = type(response_id)
    if type(jsonrpc) is not str or jsonrpc != "2.0" or (id_type is not int and id_type is not str):
        return None
    if request_id is not None and (id_type is not type(request_id) or response_id != request_id):
        return None
    if caller and id_type is str and not _carried(response_id):  # type: ignore[arg-type]
        return None
    result = message.get("result", _ABSENT)
    if result is _ABSENT:
        return _error(message.get("error", _ABSENT), options, caller)
    if type(result) is not dict:
        return None
    rules = options.rules
    budget = options.max_nodes
    known = 0  # members of result checked so far
    meta = result.get("_meta", _ABSENT)
    if meta is not _ABSENT:
        if type(meta) is not dict or not plain_meta(meta, rules):
            return None  # no object, a key out of format, a trace-context key, a richer reserved key: _meta's
        budget = _open_value(meta, 3, options.max_depth, budget, caller)
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
    elif result_type == "input_required" and rules.input_required:
        return _input_required(result, options, budget, known + 1, caller)
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
            if caller and not _carried(block["text"]):
                return None
            continue
        block_type = block.get("type")
        if type(block_type) is not str:
            return None
        if block_type == "resource_link":
            if not _plain_link(block, rules, caller):
                return None
        elif (len(block) != 3 or block_type not in _MEDIA or block_type not in rules.content_types
                or type(block.get("data")) is not str or type(block.get("mimeType")) is not str
                or (caller and not (_carried(block["data"]) and _carried(block["mimeType"])))):
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
        if _open_value(structured, 3, options.max_depth, budget, caller) < 0:
            return None
        known += 1
    if len(result) != known:  # a member no rule names: the full checker walks it
        return None
    return _TOOL_ERROR if flag is True else _NORMAL_COMPLETE


def _plain_link(block: dict[str, Any], rules: VersionRules, caller: bool = False) -> bool:
    """A resource_link block of the version with string uri and name, and at most a string
    title, description and mimeType and an integer size: no rule of ``_content`` can fire
    (``caller``: strings UTF-8 can carry, :func:`common_kind`)."""
    if "resource_link" not in rules.content_types or "uri" not in block or "name" not in block:
        return False
    for key, value in block.items():
        if key in _LINK_STRINGS:
            if type(value) is not str or (caller and not value.isascii() and _unencodable(value)):
                return False
        elif key == "size":
            if type(value) is not int:
                return False
        elif key != "type":
            return False
    return True


def _error(error: object, options: Options, caller: bool = False) -> Kind | None:
    """A JSON-RPC error object of the common shape (``caller``: its strings UTF-8 can carry,
    :func:`common_kind`)."""
    if type(error) is not dict:
        return None
    code = error.get("code")
    if type(code) is not int or type(error.get("message")) is not str:
        return None
    if caller and not _carried(error["message"]):
        return None
    if code in options.rules.full_check_codes:
        return None  # maybe a reserved or retired code (a warning), or one whose data the version defines
    if len(error) != 2 and (len(error) != 3 or "data" not in error
                            or _open_value(error["data"], 3, options.max_depth, options.max_nodes, caller) < 0):
        return None
    return _PROTOCOL_ERROR


def _input_required(result: dict[str, object], options: Options, budget: int, known: int, caller: bool = False
                    ) -> Kind | None:
    """An input_required result whose requests are form-mode elicitations (``caller``: its
    strings UTF-8 can carry, :func:`common_kind`)."""
    state = result.get("requestState", _ABSENT)
    if state is not _ABSENT:
        if type(state) is not str or (caller and not _carried(state)):
            return None
        known += 1
    requests = result.get("inputRequests", _ABSENT)
    if requests is _ABSENT:
        if state is _ABSENT:
            return None  # neither inputRequests nor requestState
    elif type(requests) is not dict or not requests or not options.form_elicitation:
        return None
    else:
        known += 1
        for key, request in requests.items():
            if type(key) is not str or type(request) is not dict or len(request) != 2 \
                    or (caller and not _carried(key)):
                return None
            method = request.get("method")
            params = request.get("params")
            if type(method) is not str or method != "elicitation/create" or type(params) is not dict:
                return None
            schema = params.get("requestedSchema")
            if type(params.get("message")) is not str or type(schema) is not dict \
                    or (caller and not _carried(params["message"])):
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
                    if type(name) is not str or (caller and not _carried(name)):
                        return None
            for name, definition in properties.items():
                if type(name) is not str or type(definition) is not dict or (caller and not _carried(name)):
                    return None
                if not _plain_property(definition):
                    return None
                budget = _open_value(definition, 8, options.max_depth, budget + 1, caller)  # charged above
                if budget < 0:
                    return None
    if len(result) != known:
        return None
    return _INPUT_REQUIRED


def _plain_property(definition: dict[str, Any]) -> bool:
    """A requested property of a common shape on which no rule of ``_elicitation`` can fire:
    a string (title, description, default, minLength, maxLength, a supported format, an enum
    of strings), number or integer (title, description, default, minimum, maximum), boolean
    (title, description, default) or untitled multi-select (title, description, items of a
    string enum, minItems, maxItems, a default of strings) whose every keyword has its exact
    JSON type. Any other definition (titled options, integral floats...) is the full
    checker's."""
    kind = definition.get("type")
    if type(kind) is not str or kind not in _PLAIN_PROPERTY_TYPES:
        return False
    if len(definition) == 1:  # {"type": ...} alone, the commonest: only a multi-select needs more
        return kind != "array"
    if kind == "array" and "items" not in definition:
        return False
    for key, value in definition.items():
        value_type = type(value)
        if key == "type" or (value_type is str and key in _PLAIN_PROPERTY_TEXT):
            continue
        if kind == "string":
            if ((value_type is int and key in _STRING_BOUNDS) or (value_type is str and key == "default")
                    or (value_type is str and key == "format" and value in _formats())
                    or (value_type is list and key == "enum" and _STRINGS.issuperset(map(type, value)))):
                continue
        elif kind == "boolean":
            if value_type is bool and key == "default":
                continue
        elif kind == "array":
            if ((value_type is int and key in _ITEM_BOUNDS)
                    or (value_type is list and key == "default" and _STRINGS.issuperset(map(type, value)))
                    or (value_type is dict and key == "items" and _string_enum(value))):
                continue
        elif (value_type is int or value_type is float) and key in _NUMBER_KEYWORDS:
            continue  # a number or integer schema; finiteness is the open walk's
        return False
    return True


@functools.cache
def _formats() -> frozenset[str]:
    """``_elicitation.FORMATS``, imported by the first string property with a format: an import
    of classify does not load the elicitation rules for it."""
    from ._elicitation import FORMATS
    return FORMATS


def _string_enum(items: dict[str, Any]) -> bool:
    """A multi-select's items exactly ``{"type": "string", "enum": [strings]}``."""
    kind = items.get("type")
    values = items.get("enum")
    return (len(items) == 2 and type(kind) is str and kind == "string" and type(values) is list
            and _STRINGS.issuperset(map(type, values)))


def plain_meta(meta: dict[str, Any], rules: VersionRules) -> bool:
    """A result ``_meta`` on which no rule of ``_meta`` can fire: every key in the key name format
    where the version has it (``_meta_keys``), no trace-context key where the version formats
    them (``_trace_context``), and no key the version reserves but a serverInfo of the plainest
    Implementation shape (string name, version, title, description, websiteUrl)."""
    if rules.meta_key_names and not key_names_valid(meta):
        return False
    if rules.trace_context and not TRACE_CONTEXT_KEYS.isdisjoint(meta):
        return False  # (their W3C formats are _trace_context's)
    reserved = rules.reserved_result_meta
    info = meta.get(SERVER_INFO, _ABSENT) if SERVER_INFO in reserved else _ABSENT
    if info is _ABSENT:
        return reserved.isdisjoint(meta)
    if type(info) is not dict or len(reserved) != 1:  # another reserved key would need its own check
        return False
    if type(info.get("name")) is not str or type(info.get("version")) is not str:
        return False
    for key, value in info.items():
        if type(value) is not str or key not in _IMPLEMENTATION_TEXT:
            break
    else:
        return True
    return False


def _open_value(value: object, depth: int, max_depth: int, budget: int, caller: bool = False) -> int:
    """Hold an open-shaped value at nesting ``depth`` to ``_walk.check_value``'s bounds.

    Returns the node budget left, or -1 when the value is unusual: an object or array nested
    deeper than ``max_depth``, more values than the ``budget`` (one per value, as
    ``check_value`` charges), or anything but exact JSON types with finite numbers and string
    member names (``caller``: strings UTF-8 can carry, member names included: :func:`common_kind`).
    """
    budget -= 1
    kind = type(value)
    if kind is not dict and kind is not list:
        if kind is str:
            return budget if not caller or _carried(value) else -1  # type: ignore[arg-type]
        if kind is int or kind is bool or value is None:
            return budget
        return budget if kind is float and value - value == 0.0 else -1  # type: ignore[operator]
    if kind is dict and depth <= max_depth:  # a flat object is the common case: seen at once
        if len(value) > _FEW_MEMBERS:  # type: ignore[arg-type]
            if (_PLAIN_SCALARS.issuperset(map(type, value.values()))  # type: ignore[attr-defined]
                    and _STRINGS.issuperset(map(type, value))  # type: ignore[call-overload]
                    and (not caller or _ascii_members(value))):  # type: ignore[arg-type]
                return budget - len(value)  # type: ignore[arg-type]
        else:
            for key, item in value.items():  # type: ignore[attr-defined]
                item_kind = type(item)
                if type(key) is not str or not (item_kind is str or item_kind is int or item_kind is bool
                                                 or item is None or (item_kind is float and item - item == 0.0)):
                    break  # something to look into: the walk below decides
                if caller and not (key.isascii() and (item_kind is not str or item.isascii())):
                    break  # a string past ASCII: the walk below encodes it
            else:
                return budget - len(value)  # type: ignore[arg-type]
    stack: list[tuple[Any, int]] = [(value, depth)]
    limit = budget + 1  # (the value's own, charged above)
    looked = budget - LOOKED  # (past it, one count of the distinct containers says if the budget holds)
    while stack:
        container, level = stack.pop()
        if level > max_depth:
            return -1
        items: Collection[Any]
        if type(container) is dict:
            items = container.values()
            if caller:
                for key in container:
                    if type(key) is not str or (not key.isascii() and _unencodable(key)):
                        return -1
            else:
                for key in container:
                    if type(key) is not str:
                        return -1
        else:
            items = container
        budget -= len(items)
        if budget <= looked:
            if budget < 0 or more_values(value, limit):
                return -1
            looked = -1
        for item in items:
            kind = type(item)
            if kind is str:
                if caller and not item.isascii() and _unencodable(item):
                    return -1
                continue
            if kind is int or kind is bool or item is None:
                continue
            if kind is dict or kind is list:
                stack.append((item, level + 1))
            elif kind is not float or item - item != 0.0:  # NaN and the infinities
                return -1
    return budget


def _unencodable(text: str) -> bool:
    """Whether ``text`` (an exact ``str``; the callers have told an ASCII one at once, which holds
    none) holds a surrogate code point, U+D800..U+DFFF, which UTF-8 cannot carry: an encoder, in
    C, says so (UTF-32's: of CPython's, the quickest to refuse one whatever the characters, ~0.2
    ns a character of Latin-1, ~0.6 past it, measured; UTF-8's costs ~0.6-1.2)."""
    try:
        text.encode("utf-32-le")
    except UnicodeEncodeError:
        return True
    return False


def _carried(text: str) -> bool:
    """Whether UTF-8 can carry ``text``, an exact ``str`` (:func:`_unencodable`). A value that is no
    string (its type is checked where it is read, but a caller may look first) is not this test's
    to refuse: True (at no cost to a string)."""
    try:
        return text.isascii() or not _unencodable(text)
    except AttributeError:
        return True


def _ascii_members(value: dict[str, Any]) -> bool:
    """Whether the member names and the string values of a flat object (names all strings,
    values all JSON scalars) are all ASCII, told in C: a string past ASCII among them is left to
    :func:`_open_value`'s walk, which encodes it."""
    return "".join(value).isascii() and "".join([item for item in value.values() if type(item) is str]).isascii()
