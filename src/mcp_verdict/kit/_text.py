"""Peer text in the kit's own messages: what a receiver raised or returned, and a case's content.

A failure reaches a terminal (pytest's report, ``mcp-verdict conform``), so every control
character but LF and TAB, DEL, every C1 control and every bidi control is shown as its visible
escape (``\\x1b``, ``\\r``, ``\\u202e``), the same table as the CLI's ``_term.neutral`` (the kit
may not import the CLI). A lone surrogate, which no terminal or UTF-8 stream can take, is shown
as its escape too. JSON reports keep the receiver's text as it was.
"""

from __future__ import annotations

import re
from typing import Final

_NAMED: Final = {0x0D: "\\r", 0x08: "\\b", 0x0C: "\\f", 0x0B: "\\v", 0x00: "\\0", 0x07: "\\a", 0x1B: "\\x1b"}
_BIDI: Final = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))


def _table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in (*range(0x20), *range(0x7F, 0xA0)):
        if code not in (0x09, 0x0A):
            table[code] = _NAMED.get(code, f"\\x{code:02x}")
    for code in _BIDI:
        table[code] = f"\\u{code:04x}"
    return table


_TABLE: Final = _table()
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def neutral(text: str) -> str:
    """``text`` with every control, bidi and lone surrogate character shown as its visible escape."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text.translate(_TABLE))


__all__ = ["neutral"]
