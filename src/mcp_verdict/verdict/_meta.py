"""The result's ``_meta``: an object, and its reserved keys where the version types them.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta and the
schema's ``ResultMetaObject``):

- ``_meta`` is an object (``result.meta``, checked by ``_result``); its values are open,
  held to the JSON rules;
- on versions whose schema reserves a result ``_meta`` key with a defined type
  (``VersionRules.reserved_result_meta``), a present value has that type (``meta.reserved``).
  2026-07-28 reserves ``io.modelcontextprotocol/serverInfo``, an ``Implementation``: ``name``
  and ``version`` strings (required), ``title``, ``description`` and ``websiteUrl`` strings
  and ``icons`` (``_icons``), optional. Earlier versions type no result ``_meta`` key: there
  the same key is an open value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._findings import describe, pointer
from ._icons import check_icons
from ._versions import SERVER_INFO
from ._walk import Context, check_extras, check_value

_IMPLEMENTATION_STRINGS: Final = ("name", "version", "title", "description", "websiteUrl")
_IMPLEMENTATION_KEYS: Final = frozenset({*_IMPLEMENTATION_STRINGS, "icons"})
# Depths: result 2, _meta 3, a reserved value 4, its members 5.
_VALUE_DEPTH: Final = 4


def check_result_meta(ctx: Context, meta: Mapping[str, Any], path: str) -> None:
    """Check a result ``_meta`` object (nesting level 3) whose pointer is ``path``."""
    reserved = ctx.rules.reserved_result_meta
    if not reserved or reserved.isdisjoint(meta):
        check_value(ctx, meta, path, _VALUE_DEPTH - 1)
        return
    if SERVER_INFO in meta:
        _implementation(ctx, meta[SERVER_INFO], pointer(path, SERVER_INFO))
    check_extras(ctx, meta, reserved, path, _VALUE_DEPTH - 1)


def _implementation(ctx: Context, value: object, path: str) -> None:
    if not isinstance(value, dict):
        ctx.add(path, "meta.reserved",
                f"{SERVER_INFO} is {describe(value)}; it is an Implementation object with name and version")
        return
    for name in _IMPLEMENTATION_STRINGS:
        if name not in value:
            if name in ("name", "version"):
                ctx.add(path, "meta.reserved", f"the {SERVER_INFO} Implementation has no {name}")
        elif not isinstance(value[name], str):
            ctx.add(pointer(path, name), "meta.reserved",
                    f"{name} is {describe(value[name])}; expected a string")
    if "icons" in value:
        check_icons(ctx, value["icons"], pointer(path, "icons"), _VALUE_DEPTH + 1)
    check_extras(ctx, value, _IMPLEMENTATION_KEYS, path, _VALUE_DEPTH)
