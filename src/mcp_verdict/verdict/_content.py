"""Content blocks of a complete ``tools/call`` result, per protocol version.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool-result and
each version's ``schema.json``):

- every block is an object (``content.not_object``) whose ``type`` is a string naming a
  block type some version defines (``content.type``) and that the negotiated version has
  (``content.type_version``): text, image, resource since 2024-11-05; audio since
  2025-03-26; resource_link since 2025-06-18;
- required fields and their types (``content.field_missing``, ``content.field_type``):
  text {text}; image and audio {data, mimeType}; resource_link {uri, name}; resource
  {resource: {uri, and text or blob}} (exactly one of text and blob: ``content.resource_body``);
- optional fields the version defines are type-checked too: annotations (audience of
  "user"/"assistant", priority a number in 0..1, lastModified a string since 2025-06-18:
  ``content.annotations``), ``_meta`` objects since 2025-06-18, resource_link title,
  description, mimeType (strings), size (an integer as JSON Schema counts them: 2048.0 is one)
  and icons (since 2025-11-25, ``_icons``).

:func:`check_block` takes the block's nesting level, so that the blocks a sampling request
carries (``_sampling``: its messages' text, image and audio blocks, a tool result's content)
are held to these same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ._findings import describe, pointer, quoted
from ._icons import check_icons
from ._meta import check_meta_keys
from ._versions import ALL_CONTENT_TYPES, RULES_BY_VERSION
from ._walk import Context, check_extras, check_value

_TEXT_KEYS: Final = frozenset({"type", "text", "annotations", "_meta"})
_MEDIA_KEYS: Final = frozenset({"type", "data", "mimeType", "annotations", "_meta"})
_LINK_KEYS: Final = frozenset({"type", "uri", "name", "title", "description", "mimeType", "size",
                               "icons", "annotations", "_meta"})
_RESOURCE_KEYS: Final = frozenset({"type", "resource", "annotations", "_meta"})
_CONTENTS_KEYS: Final = frozenset({"uri", "mimeType", "text", "blob", "_meta"})
_ANNOTATION_KEYS: Final = frozenset({"audience", "priority", "lastModified"})
_ROLES: Final = frozenset({"user", "assistant"})
_FIRST_VERSION: Final = {
    kind: next(v for v, rules in RULES_BY_VERSION.items() if kind in rules.content_types)
    for kind in ALL_CONTENT_TYPES
}

# Depths: the message is 1, result 2, content 3, a block 4, a block's members 5.
_BLOCK_DEPTH: Final = 4


def check_content(ctx: Context, content: list[Any], base: str, depth: int = _BLOCK_DEPTH - 1) -> None:
    """Check every block of a content list whose pointer is ``base`` and nesting level
    ``depth`` (a tools/call result's content is level 3)."""
    allowed = ctx.rules.content_types
    for index, block in enumerate(content):
        # Fast path: a bare text block, by far the most common shape.
        if (type(block) is dict and len(block) == 2 and block.get("type") == "text"
                and type(block.get("text")) is str):
            continue
        check_block(ctx, block, pointer(base, index), allowed, depth + 1)


def check_block(ctx: Context, block: object, path: str, allowed: frozenset[str],
                depth: int = _BLOCK_DEPTH) -> None:
    """Check one content block at nesting ``depth`` whose type must be in ``allowed``."""
    if not isinstance(block, dict):
        ctx.add(path, "content.not_object", f"the block is {describe(block)}, not an object")
        return
    kind = block.get("type")
    if not isinstance(kind, str):
        ctx.add(pointer(path, "type") if "type" in block else path, "content.type",
                f"the block's type is {describe(kind)}" if "type" in block else "the block has no type")
        return
    if kind not in ALL_CONTENT_TYPES:
        ctx.add(pointer(path, "type"), "content.type",
                f"{quoted(kind)} is not a content block type of a tool result "
                f"(text, image, audio, resource_link, resource)")
        return
    if kind not in allowed:
        ctx.add(pointer(path, "type"), "content.type_version",
                f"{kind!r} blocks exist from {_FIRST_VERSION[kind]}; this response is "
                f"{ctx.rules.version}")
        return
    _CHECKS[kind](ctx, block, path, depth)


def _field(ctx: Context, obj: Mapping[str, Any], name: str, path: str, *, required: bool,
           kind: type = str, what: str = "a string") -> bool:
    """Check one member's JSON type; True when present and well typed."""
    if name not in obj:
        if required:
            ctx.add(path, "content.field_missing", f"the block has no {name}")
        return False
    value = obj[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        ctx.add(pointer(path, name), "content.field_type", f"{name} is {describe(value)}; expected {what}",
                value)
        return False
    return True


def check_common(ctx: Context, block: Mapping[str, Any], path: str, known: frozenset[str], depth: int) -> None:
    """annotations, _meta and unknown members, shared by every block type (also the sampling
    blocks of ``_sampling``)."""
    if "annotations" in block:
        _annotations(ctx, block["annotations"], pointer(path, "annotations"), depth + 1)
    if not ctx.rules.block_meta:
        known = known - {"_meta"}  # not defined before 2025-06-18: an unknown member
    elif "_meta" in block and _field(ctx, block, "_meta", path, required=False, kind=dict,
                                     what="an object"):
        check_meta_keys(ctx, block["_meta"], pointer(path, "_meta"))
        check_value(ctx, block["_meta"], pointer(path, "_meta"), depth + 1)
    check_extras(ctx, block, known, path, depth)


def _annotations(ctx: Context, value: object, path: str, depth: int) -> None:
    if not isinstance(value, dict):
        ctx.add(path, "content.annotations", f"annotations is {describe(value)}, not an object")
        return
    audience = value.get("audience")
    if "audience" in value and (not isinstance(audience, list)
                                or any(not isinstance(r, str) or r not in _ROLES for r in audience)):
        ctx.add(pointer(path, "audience"), "content.annotations",
                f'audience is {describe(audience)}; expected an array of "user" and "assistant"')
    priority = value.get("priority")
    if "priority" in value and (isinstance(priority, bool) or not isinstance(priority, (int, float))
                                or not 0 <= priority <= 1):
        ctx.add(pointer(path, "priority"), "content.annotations",
                f"priority is {describe(priority)}; expected a number from 0 to 1", priority)
    known = _ANNOTATION_KEYS
    if ctx.rules.annotations_last_modified:
        if "lastModified" in value and not isinstance(value["lastModified"], str):
            ctx.add(pointer(path, "lastModified"), "content.annotations",
                    f"lastModified is {describe(value['lastModified'])}; expected a string")
    else:
        known = known - {"lastModified"}
    check_extras(ctx, value, known, path, depth)


def _text(ctx: Context, block: Mapping[str, Any], path: str, depth: int) -> None:
    _field(ctx, block, "text", path, required=True)
    check_common(ctx, block, path, _TEXT_KEYS, depth)


def _media(ctx: Context, block: Mapping[str, Any], path: str, depth: int) -> None:
    _field(ctx, block, "data", path, required=True)
    _field(ctx, block, "mimeType", path, required=True)
    check_common(ctx, block, path, _MEDIA_KEYS, depth)


def _resource_link(ctx: Context, block: Mapping[str, Any], path: str, depth: int) -> None:
    _field(ctx, block, "uri", path, required=True)
    _field(ctx, block, "name", path, required=True)
    for name in ("title", "description", "mimeType"):
        _field(ctx, block, name, path, required=False)
    size = block.get("size")
    if "size" in block and not (isinstance(size, float) and size.is_integer()):  # JSON Schema: 2048.0 is an integer
        _field(ctx, block, "size", path, required=False, kind=int, what="an integer")
    known = _LINK_KEYS
    if ctx.rules.resource_link_icons:
        if "icons" in block:
            check_icons(ctx, block["icons"], pointer(path, "icons"), depth + 1)
    else:
        known = known - {"icons"}
    check_common(ctx, block, path, known, depth)


def _resource(ctx: Context, block: Mapping[str, Any], path: str, depth: int) -> None:
    if _field(ctx, block, "resource", path, required=True, kind=dict, what="an object"):
        contents = block["resource"]
        where = pointer(path, "resource")
        _field(ctx, contents, "uri", where, required=True)
        _field(ctx, contents, "mimeType", where, required=False)
        has_text = "text" in contents
        has_blob = "blob" in contents
        if has_text and has_blob:
            ctx.add(where, "content.resource_body",
                    "the resource has both text and blob; readers would disagree on its body")
        elif not has_text and not has_blob:
            ctx.add(where, "content.resource_body", "the resource has neither text nor blob")
        else:
            _field(ctx, contents, "text" if has_text else "blob", where, required=True)
        known = _CONTENTS_KEYS
        if ctx.rules.block_meta:
            if _field(ctx, contents, "_meta", where, required=False, kind=dict, what="an object"):
                check_meta_keys(ctx, contents["_meta"], pointer(where, "_meta"))
                check_value(ctx, contents["_meta"], pointer(where, "_meta"), depth + 2)
        else:
            known = known - {"_meta"}
        check_extras(ctx, contents, known, where, depth + 1)
    check_common(ctx, block, path, _RESOURCE_KEYS, depth)


_CHECKS: Final[dict[str, Callable[[Context, Mapping[str, Any], str, int], None]]] = {
    "text": _text,
    "image": _media,
    "audio": _media,
    "resource_link": _resource_link,
    "resource": _resource,
}
