"""Icons, wherever a tools/call response may carry them (since 2025-11-25).

Rules (the schema's ``Icon`` and ``Icons``,
https://modelcontextprotocol.io/specification/2025-11-25/basic/index#icons):

- ``icons`` is an array of Icon objects;
- an Icon has a ``src`` string (required), and optionally a ``mimeType`` string, ``sizes`` an
  array of strings and ``theme`` one of ``"light"`` and ``"dark"`` (``icon.field``);
- any other member is open: held to the JSON rules only.

Icons appear in a response in a resource_link block (``_content``), in the server's
Implementation under the result ``_meta`` key ``io.modelcontextprotocol/serverInfo``
(``_meta``) and in the tools of a sampling request (``_sampling``); each calls
:func:`check_icons` with the icons' own nesting level.
"""

from __future__ import annotations

from typing import Final

from ._findings import describe, pointer
from ._walk import Context, check_extras, is_strings

_ICON_KEYS: Final = frozenset({"src", "mimeType", "sizes", "theme"})
_THEMES: Final = frozenset({"light", "dark"})


def check_icons(ctx: Context, icons: object, path: str, depth: int) -> None:
    """Check an ``icons`` member at nesting ``depth`` (each icon is one level deeper)."""
    if not isinstance(icons, list):
        ctx.add(path, "icon.field", f"icons is {describe(icons)}; expected an array of icons")
        return
    for index, icon in enumerate(icons):
        where = pointer(path, index)
        if not isinstance(icon, dict):
            ctx.add(where, "icon.field", f"the icon is {describe(icon)}, not an object")
            continue
        if "src" not in icon:
            ctx.add(where, "icon.field", "the icon has no src")
        elif not isinstance(icon["src"], str):
            ctx.add(pointer(where, "src"), "icon.field", f"src is {describe(icon['src'])}; expected a string")
        if "mimeType" in icon and not isinstance(icon["mimeType"], str):
            ctx.add(pointer(where, "mimeType"), "icon.field",
                    f"mimeType is {describe(icon['mimeType'])}; expected a string")
        if "sizes" in icon and not is_strings(icon["sizes"]):
            ctx.add(pointer(where, "sizes"), "icon.field",
                    f"sizes is {describe(icon['sizes'])}; expected an array of strings such as \"48x48\" or \"any\"")
        ctx.check_choice(icon, "theme", _THEMES, where, "icon.field", '"light" or "dark"')
        check_extras(ctx, icon, _ICON_KEYS, where, depth + 1)
