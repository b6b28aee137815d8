"""Sampling requests (``sampling/createMessage``) an input_required result carries.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/client/sampling and the
schema's ``CreateMessageRequestParams``; input requests exist on 2026-07-28 only):

- ``messages`` an array and ``maxTokens`` an integer (as JSON Schema counts them: 100.0 is
  one), both required (``input.params``);
- every message is an object with ``role`` ``"user"`` or ``"assistant"``, ``content`` one
  block or an array of blocks, and ``_meta`` an object when present (``sampling.message``);
- a block is text, image or audio (held to the content rules of ``_content``), tool_use
  (``id`` and ``name`` strings, ``input`` an object) or tool_result (``toolUseId`` a string,
  ``content`` an array of content blocks as a tool result holds them, ``isError`` a
  boolean, ``structuredContent`` any JSON value); ``_meta`` an object
  (``sampling.content``);
- a user message that holds a tool result holds only tool results (``sampling.tool_result_mixed``:
  "it MUST contain ONLY tool results");
- every assistant message with tool uses is followed by a user message whose tool results
  answer each of them, before any other message, and every tool result answers a previous
  tool use (``sampling.tool_pairing``: client/sampling#tool-use-and-result-balance, and the
  schema's "This MUST match the ID from a previous ToolUseContent");
- ``modelPreferences`` an object of ``hints`` (objects with a string ``name``) and the
  ``costPriority``, ``speedPriority`` and ``intelligencePriority`` numbers in 0..1;
  ``systemPrompt`` a string; ``includeContext`` one of none, thisServer, allServers;
  ``temperature`` a number; ``stopSequences`` strings; ``metadata`` an object
  (``sampling.param``);
- ``tools`` an array of Tool: ``name`` a string, ``inputSchema`` an object with ``type``
  exactly ``"object"`` and a string ``$schema`` when present; ``title`` and ``description``
  strings; ``icons`` (``_icons``); ``annotations`` with a string ``title`` and boolean hints;
  ``outputSchema`` an object with a string ``$schema``; ``_meta`` an object (``sampling.tool``);
- ``toolChoice`` an object whose ``mode`` is auto, none or required (``sampling.tool_choice``);
- ``includeContext`` ``"thisServer"`` or ``"allServers"`` draws the warning
  ``sampling.include_context``: deprecated (SEP-2596), "Servers SHOULD avoid using these
  values ... and SHOULD NOT use them unless the client declares ``sampling.context``";
- a request with ``tools`` or ``toolChoice`` is tool-enabled: :func:`check_sampling` says so,
  and ``_input`` requires the ``sampling.tools`` capability for it.

Per version (``_versions``; a 2025 server's own ``sampling/createMessage`` request,
``_input.check_server_request``): up to 2025-06-18 (``CreateMessageRequest``,
``SamplingMessage``) there is no tool use — ``tools`` and ``toolChoice`` are open members (so no
request is tool-enabled), a message's content is one text, image or audio block (audio since
2025-03-26), never an array nor a tool_use or tool_result block, and a message's ``_meta`` is
an open member; ``includeContext`` carries no deprecation before 2025-11-25. On 2025-11-25 a
tool result's ``structuredContent`` is an object, and a Tool's ``inputSchema`` and
``outputSchema`` type ``properties`` (an object of objects) and ``required`` (strings), the
outputSchema needs ``type: "object"``, and ``execution.taskSupport`` is forbidden, optional or
required (``sampling.tool``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._content import check_block, check_content
from ._findings import describe, pointer, quoted
from ._icons import check_icons
from ._meta import check_meta_keys
from ._walk import Context, check_extras, check_value, is_strings

_PARAMS_KEYS: Final = frozenset({"messages", "maxTokens", "modelPreferences", "systemPrompt", "includeContext",
                                 "temperature", "stopSequences", "metadata", "tools", "toolChoice"})
_PARAMS_KEYS_2025_06: Final = _PARAMS_KEYS - {"tools", "toolChoice"}
_MESSAGE_KEYS: Final = frozenset({"role", "content", "_meta"})
_MESSAGE_KEYS_2025_06: Final = frozenset({"role", "content"})
_ROLES: Final = frozenset({"user", "assistant"})
_MEDIA_TYPES: Final = frozenset({"text", "image", "audio"})
_BLOCK_TYPES: Final = _MEDIA_TYPES | {"tool_use", "tool_result"}
_TOOL_USE_KEYS: Final = frozenset({"type", "id", "name", "input", "_meta"})
_TOOL_RESULT_KEYS: Final = frozenset({"type", "toolUseId", "content", "isError", "structuredContent", "_meta"})
_PREFERENCE_KEYS: Final = frozenset({"hints", "costPriority", "speedPriority", "intelligencePriority"})
_PRIORITIES: Final = ("costPriority", "speedPriority", "intelligencePriority")
_CONTEXTS: Final = frozenset({"none", "thisServer", "allServers"})
_DEPRECATED_CONTEXTS: Final = frozenset({"thisServer", "allServers"})
_TOOL_KEYS: Final = frozenset({"name", "title", "description", "inputSchema", "outputSchema", "icons",
                               "annotations", "_meta"})
_HINTS: Final = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_TOOL_CHOICE_MODES: Final = frozenset({"auto", "none", "required"})
_TASK_SUPPORT: Final = frozenset({"forbidden", "optional", "required"})
# Depths: params 5, its members 6, a message 7, its members 8, a block in a content list 9.
_PARAMS_DEPTH: Final = 5
_MESSAGE_DEPTH: Final = 7


def check_sampling(ctx: Context, params: Mapping[str, Any], where: str) -> bool:
    """Check a sampling request's params (pointer ``where``); True when it is tool-enabled."""
    messages = params.get("messages")
    if not isinstance(messages, list):
        ctx.add_member(params, "messages", where, "input.params", "; expected an array",
                       "a sampling request needs messages")
    else:
        _messages(ctx, messages, pointer(where, "messages"))
    max_tokens = params.get("maxTokens")
    if not _is_integer(max_tokens):
        ctx.add_member(params, "maxTokens", where, "input.params", "; expected an integer",
                       "a sampling request needs maxTokens", number=True)
    _optional_params(ctx, params, where)
    if not ctx.rules.sampling_tools:  # no tool use before 2025-11-25: tools and toolChoice are open members
        check_extras(ctx, params, _PARAMS_KEYS_2025_06, where, _PARAMS_DEPTH)
        return False
    if "tools" in params:
        _tools(ctx, params["tools"], pointer(where, "tools"))
    if "toolChoice" in params:
        _tool_choice(ctx, params["toolChoice"], pointer(where, "toolChoice"))
    check_extras(ctx, params, _PARAMS_KEYS, where, _PARAMS_DEPTH)
    return "tools" in params or "toolChoice" in params


# --- messages and their blocks -----------------------------------------------------------------

def _messages(ctx: Context, messages: list[Any], path: str) -> None:
    well_formed = True
    for index, message in enumerate(messages):
        well_formed = _message(ctx, message, pointer(path, index)) and well_formed
    if well_formed:
        _pairing(ctx, messages, path)


def _message(ctx: Context, message: object, path: str) -> bool:
    """Check one message; True when its role and the shape of its content can be read."""
    if not isinstance(message, dict):
        ctx.add(path, "sampling.message", f"the message is {describe(message)}; expected an object with role "
                "and content")
        return False
    role = message.get("role")
    readable = True
    if not isinstance(role, str) or role not in _ROLES:
        ctx.add_member(message, "role", path, "sampling.message", '; expected "user" or "assistant"',
                       "the message has no role")
        readable = False
    content = message.get("content")
    where = pointer(path, "content")
    tools = ctx.rules.sampling_tools  # (blocks in an array came with tool use, 2025-11-25)
    if isinstance(content, dict):
        _block(ctx, content, where, _MESSAGE_DEPTH + 1)
    elif isinstance(content, list) and tools:
        for index, block in enumerate(content):
            _block(ctx, block, pointer(where, index), _MESSAGE_DEPTH + 2)
    else:
        ctx.add_member(message, "content", path, "sampling.message", "; expected a block or an array of blocks"
                       if tools else f"; expected one block ({ctx.rules.version} has no arrays of blocks)",
                       "the message has no content")
        readable = False
    if not tools:  # a message's _meta is an open member before 2025-11-25
        check_extras(ctx, message, _MESSAGE_KEYS_2025_06, path, _MESSAGE_DEPTH)
        return readable
    if "_meta" in message:
        if isinstance(message["_meta"], dict):
            check_meta_keys(ctx, message["_meta"], pointer(path, "_meta"))
            check_value(ctx, message["_meta"], pointer(path, "_meta"), _MESSAGE_DEPTH + 1)
        else:
            ctx.add(pointer(path, "_meta"), "sampling.message",
                    f"_meta is {describe(message['_meta'])}, not an object")
    check_extras(ctx, message, _MESSAGE_KEYS, path, _MESSAGE_DEPTH)
    return readable


def _block(ctx: Context, block: object, path: str, depth: int) -> None:
    kind = block.get("type") if isinstance(block, dict) else None
    rules = ctx.rules
    if not isinstance(block, dict) or not isinstance(kind, str) or kind not in _BLOCK_TYPES \
            or (kind not in _MEDIA_TYPES and not rules.sampling_tools):
        what = (f"a {quoted(kind)} block" if isinstance(kind, str) else
                f"a block whose type is {describe(kind)}" if isinstance(block, dict) else describe(block))
        ctx.add(pointer(path, "type") if isinstance(kind, str) else path, "sampling.content",
                f"{what} is not a sampling block: a message holds text, image, audio, tool_use and "
                "tool_result blocks" if rules.sampling_tools else
                f"{what} is not a sampling block on {rules.version}: a message holds one text, image or audio "
                "block (tool_use and tool_result arrived in 2025-11-25)")
        return
    if kind in _MEDIA_TYPES:
        check_block(ctx, block, path, _MEDIA_TYPES & rules.content_types, depth)  # (audio: since 2025-03-26)
        return
    if kind == "tool_use":
        for name in ("id", "name"):
            _need(ctx, block, name, path, isinstance(block.get(name), str), "a string")
        _need(ctx, block, "input", path, isinstance(block.get("input"), dict), "an object")
        known = _TOOL_USE_KEYS
        if isinstance(block.get("input"), dict):
            check_value(ctx, block["input"], pointer(path, "input"), depth + 1)
    else:
        _need(ctx, block, "toolUseId", path, isinstance(block.get("toolUseId"), str), "a string")
        content = block.get("content")
        _need(ctx, block, "content", path, isinstance(content, list), "an array of content blocks")
        if isinstance(content, list):
            check_content(ctx, content, pointer(path, "content"), depth + 1)
        if "isError" in block and block["isError"] is not True and block["isError"] is not False:
            ctx.add(pointer(path, "isError"), "sampling.content",
                    f"isError is {describe(block['isError'])}; expected a boolean", block["isError"])
        if "structuredContent" in block:
            value = block["structuredContent"]
            if rules.structured_content == "object" and not isinstance(value, dict):
                ctx.add(pointer(path, "structuredContent"), "sampling.content",
                        f"structuredContent is {describe(value)}; {rules.version} requires an object")
            else:
                check_value(ctx, value, pointer(path, "structuredContent"), depth + 1)
        known = _TOOL_RESULT_KEYS
    if "_meta" in block:
        if isinstance(block["_meta"], dict):
            check_meta_keys(ctx, block["_meta"], pointer(path, "_meta"))
            check_value(ctx, block["_meta"], pointer(path, "_meta"), depth + 1)
        else:
            ctx.add(pointer(path, "_meta"), "sampling.content", f"_meta is {describe(block['_meta'])}, not an object")
    check_extras(ctx, block, known, path, depth)


def _need(ctx: Context, obj: Mapping[str, Any], name: str, path: str, ok: bool, what: str) -> None:
    if name not in obj:
        ctx.add(path, "sampling.content", f"the {obj.get('type')} block has no {name}")
    elif not ok:
        ctx.add(pointer(path, name), "sampling.content", f"{name} is {describe(obj[name])}; expected {what}",
                obj[name])


def _blocks_of(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message["content"]
    blocks = [content] if isinstance(content, dict) else content
    return [block for block in blocks if isinstance(block, dict)]


def _ids(blocks: list[Mapping[str, Any]], name: str) -> list[str]:
    """The string ids of the blocks (a missing or mistyped id is reported by ``_block``)."""
    return [value for value in (block.get(name) for block in blocks) if isinstance(value, str)]


def _pairing(ctx: Context, messages: list[Any], path: str) -> None:
    """Tool uses and tool results balance (each message's role and content are readable)."""
    if not ctx.rules.sampling_tools:  # no tool blocks before 2025-11-25 (each one is refused)
        return
    used: set[str] = set()  # every tool use id so far (ids of the wrong type are reported already)
    pending: list[str] = []  # the tool uses of the message just before
    pending_at = ""
    for index, message in enumerate(messages):
        at = pointer(path, index)
        blocks = _blocks_of(message)
        results = [b for b in blocks if b.get("type") == "tool_result"]
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        if results and message["role"] == "user" and len(results) != len(blocks):
            ctx.add(pointer(at, "content"), "sampling.tool_result_mixed",
                    "a user message with tool results MUST contain only tool results; this one mixes in "
                    f"{len(blocks) - len(results)} other block(s)")
        answered = set(_ids(results, "toolUseId"))
        if pending:
            missing = [i for i in pending if i not in answered]
            if message["role"] != "user" or len(results) != len(blocks) or missing:
                ctx.add(pending_at, "sampling.tool_pairing",
                        f"the tool uses {missing or pending!r} are not answered by the next message, a user "
                        "message of tool results for each of them")
        for answer in _ids(results, "toolUseId"):
            if answer not in used:
                ctx.add(at, "sampling.tool_pairing", f"the tool result for {answer!r} matches no previous tool use")
                break
        pending = _ids(uses, "id") if message["role"] == "assistant" else []
        pending_at = at
        used.update(_ids(uses, "id"))
    if pending:
        ctx.add(pending_at, "sampling.tool_pairing",
                f"the last message asks for the tool uses {pending!r}; each MUST be followed by a user message "
                "of their tool results")


# --- the other parameters ----------------------------------------------------------------------

def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: object) -> bool:
    """A JSON Schema integer: an integer, or a number with a zero fractional part (100.0)."""
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_params(ctx: Context, params: Mapping[str, Any], where: str) -> None:
    if "systemPrompt" in params and not isinstance(params["systemPrompt"], str):
        _param(ctx, where, "systemPrompt", params["systemPrompt"], "a string")
    context = params.get("includeContext")
    if "includeContext" in params and (not isinstance(context, str) or context not in _CONTEXTS):
        _param(ctx, where, "includeContext", context, "none, thisServer or allServers")
    elif context in _DEPRECATED_CONTEXTS and ctx.rules.sampling_context:
        declared = ctx.options.client_capabilities
        unless = ("" if declared is None else
                  "; the client declared sampling.context" if "context" in declared.get("sampling", {}) else
                  "; the client did not declare sampling.context, without which servers SHOULD NOT use it")
        ctx.add(pointer(where, "includeContext"), "sampling.include_context",
                f"includeContext {context!r} is deprecated: servers SHOULD omit it or use \"none\"{unless}")
    if "temperature" in params and not _is_number(params["temperature"]):
        _param(ctx, where, "temperature", params["temperature"], "a number")
    if "stopSequences" in params and not is_strings(params["stopSequences"]):
        _param(ctx, where, "stopSequences", params["stopSequences"], "an array of strings")
    if "metadata" in params:
        if isinstance(params["metadata"], dict):
            check_value(ctx, params["metadata"], pointer(where, "metadata"), _PARAMS_DEPTH + 1)
        else:
            _param(ctx, where, "metadata", params["metadata"], "an object")
    if "modelPreferences" in params:
        _preferences(ctx, params["modelPreferences"], pointer(where, "modelPreferences"))


def _param(ctx: Context, where: str, name: str, value: object, what: str) -> None:
    ctx.add(pointer(where, name), "sampling.param", f"{name} is {describe(value)}; expected {what}", value)


def _preferences(ctx: Context, value: object, path: str) -> None:
    if not isinstance(value, dict):
        ctx.add(path, "sampling.param", f"modelPreferences is {describe(value)}, not an object")
        return
    hints = value.get("hints")
    if "hints" in value:
        if not isinstance(hints, list):
            _param(ctx, path, "hints", hints, "an array of model hints")
        else:
            for index, hint in enumerate(hints):
                at = pointer(pointer(path, "hints"), index)
                if not isinstance(hint, dict):
                    ctx.add(at, "sampling.param", f"the hint is {describe(hint)}; expected an object")
                elif "name" in hint and not isinstance(hint["name"], str):
                    _param(ctx, at, "name", hint["name"], "a string")
                else:
                    check_value(ctx, hint, at, _PARAMS_DEPTH + 3)
    for name in _PRIORITIES:
        priority = value.get(name)
        if name in value and (not _is_number(priority) or not 0 <= priority <= 1):  # type: ignore[operator]
            _param(ctx, path, name, priority, "a number from 0 to 1")
    check_extras(ctx, value, _PREFERENCE_KEYS, path, _PARAMS_DEPTH + 1)


def _tools(ctx: Context, tools: object, path: str) -> None:
    if not isinstance(tools, list):
        ctx.add(path, "sampling.tool", f"tools is {describe(tools)}; expected an array of tools")
        return
    for index, tool in enumerate(tools):
        _tool(ctx, tool, pointer(path, index))


def _tool(ctx: Context, tool: object, path: str) -> None:
    depth = _PARAMS_DEPTH + 2
    if not isinstance(tool, dict):
        ctx.add(path, "sampling.tool", f"the tool is {describe(tool)}, not an object")
        return
    if not isinstance(tool.get("name"), str):
        ctx.add_member(tool, "name", path, "sampling.tool", "; expected a string", "the tool has no name")
    for name in ("title", "description"):
        if name in tool and not isinstance(tool[name], str):
            ctx.add(pointer(path, name), "sampling.tool", f"{name} is {describe(tool[name])}; expected a string")
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        ctx.add_member(tool, "inputSchema", path, "sampling.tool", ", not an object", "the tool has no inputSchema")
    else:
        if schema.get("type") != "object" or not isinstance(schema.get("type"), str):
            ctx.add(pointer(pointer(path, "inputSchema"), "type") if "type" in schema else pointer(path, "inputSchema"),
                    "sampling.tool", f'inputSchema.type is {describe(schema.get("type"))}; expected "object"')
        _schema_dialect(ctx, schema, pointer(path, "inputSchema"))
        check_value(ctx, schema, pointer(path, "inputSchema"), depth + 1)
    typed = ctx.rules.typed_tool_schemas
    if "outputSchema" in tool:
        output = tool["outputSchema"]
        where = pointer(path, "outputSchema")
        if not isinstance(output, dict):
            ctx.add(where, "sampling.tool", f"outputSchema is {describe(output)}, not an object")
        else:
            if typed and (output.get("type") != "object" or not isinstance(output.get("type"), str)):
                ctx.add(pointer(where, "type") if "type" in output else where, "sampling.tool",
                        f'outputSchema.type is {describe(output.get("type"))}; {ctx.rules.version} requires "object"'
                        if "type" in output else f'outputSchema needs "type": "object" on {ctx.rules.version}')
            _schema_dialect(ctx, output, where)
            check_value(ctx, output, where, depth + 1)
    if typed:
        for name in ("inputSchema", "outputSchema"):
            if isinstance(tool.get(name), dict):
                _schema_members(ctx, tool[name], pointer(path, name))
        if "execution" in tool:
            _execution(ctx, tool["execution"], pointer(path, "execution"))
    if "icons" in tool:
        check_icons(ctx, tool["icons"], pointer(path, "icons"), depth + 1)
    if "annotations" in tool:
        _tool_annotations(ctx, tool["annotations"], pointer(path, "annotations"), depth + 1)
    if "_meta" in tool:
        if isinstance(tool["_meta"], dict):
            check_meta_keys(ctx, tool["_meta"], pointer(path, "_meta"))
            check_value(ctx, tool["_meta"], pointer(path, "_meta"), depth + 1)
        else:
            ctx.add(pointer(path, "_meta"), "sampling.tool", f"_meta is {describe(tool['_meta'])}, not an object")
    check_extras(ctx, tool, _TOOL_KEYS, path, depth)  # (execution too: walked to the JSON rules)


def _schema_members(ctx: Context, schema: Mapping[str, Any], path: str) -> None:
    """2025-11-25: a Tool schema's ``properties`` is an object of objects, its ``required`` an
    array of strings (walked to the JSON rules with the schema)."""
    properties = schema.get("properties")
    if "properties" in schema and (not isinstance(properties, dict)
                                   or not all(isinstance(value, dict) for value in properties.values())):
        ctx.add(pointer(path, "properties"), "sampling.tool",
                f"properties is {describe(properties)}; {ctx.rules.version} requires an object of schemas (objects)")
    if "required" in schema and not is_strings(schema["required"]):
        ctx.add(pointer(path, "required"), "sampling.tool",
                f"required is {describe(schema['required'])}; expected an array of strings")


def _execution(ctx: Context, value: object, path: str) -> None:
    """2025-11-25's ToolExecution: an object whose ``taskSupport`` is forbidden, optional or
    required (walked to the JSON rules with the tool's other members)."""
    if not isinstance(value, dict):
        ctx.add(path, "sampling.tool", f"execution is {describe(value)}, not an object")
        return
    ctx.check_choice(value, "taskSupport", _TASK_SUPPORT, path, "sampling.tool",
                     '"forbidden", "optional" or "required"')


def _schema_dialect(ctx: Context, schema: Mapping[str, Any], path: str) -> None:
    if "$schema" in schema and not isinstance(schema["$schema"], str):
        ctx.add(pointer(path, "$schema"), "sampling.tool",
                f"$schema is {describe(schema['$schema'])}; expected a string")


def _tool_annotations(ctx: Context, value: object, path: str, depth: int) -> None:
    if not isinstance(value, dict):
        ctx.add(path, "sampling.tool", f"annotations is {describe(value)}, not an object")
        return
    if "title" in value and not isinstance(value["title"], str):
        ctx.add(pointer(path, "title"), "sampling.tool", f"title is {describe(value['title'])}; expected a string")
    for name in _HINTS:
        if name in value and not isinstance(value[name], bool):
            ctx.add(pointer(path, name), "sampling.tool", f"{name} is {describe(value[name])}; expected a boolean")
    check_extras(ctx, value, frozenset({"title", *_HINTS}), path, depth)


def _tool_choice(ctx: Context, value: object, path: str) -> None:
    if not isinstance(value, dict):
        ctx.add(path, "sampling.tool_choice", f"toolChoice is {describe(value)}, not an object")
        return
    ctx.check_choice(value, "mode", _TOOL_CHOICE_MODES, path, "sampling.tool_choice", '"auto", "none" or "required"')
    check_extras(ctx, value, frozenset({"mode"}), path, _PARAMS_DEPTH + 1)
