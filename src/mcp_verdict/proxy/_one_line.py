"""A frame written on one line for a peer that reads one frame per line (stdio): :func:`one_line`,
its meaning and its validity unchanged (a raw CR or LF between tokens a space, one inside a string
of a frame no strict parser reads a vertical tab), and the notes the relay's frame-log record
gives such a frame (:data:`_ONE_LINE`, :data:`_ONE_LINE_UP`).
"""

from __future__ import annotations

import re
from typing import Final

import orjson

_ONE_LINE: Final = ("written to the host as one line: each CR and LF between tokens a space, one inside a string "
                    "(a frame no strict parser reads) a vertical tab")
_ONE_LINE_UP: Final = ("written to the upstream as one line: each CR and LF between tokens a space, one inside a "
                       "string (a frame no strict parser reads) a vertical tab")
_BREAKS: Final = bytes.maketrans(b"\r\n", b"  ")


def one_line(data: bytes) -> bytes:
    """``data`` on one line, for a peer that reads one frame per line (stdio), its meaning and
    its validity unchanged. In valid JSON a raw CR or LF can only be whitespace between tokens,
    each written as a space. In a frame no strict parser reads (observe forwards it), a raw CR
    or LF inside a string is itself what makes it invalid (RFC 8259 s7: a control character
    inside a string must be escaped): it is written as a raw vertical tab (0x0B), a control
    character a strict parser refuses alike, so that the peer reads the frame the proxy was
    given as invalid, never a repaired one (a space there would make a valid message of it);
    those between tokens become spaces. The frame log keeps the bytes as they came."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:  # (a string holding a raw line break, or another fault)
        data = _STRING.sub(_tab_breaks, data)
    return data.translate(_BREAKS)


_STRING: Final = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
"""A string token, from its opening quote to its closing one (matched from the left, each
string whole, so a closing quote is never taken for an opening one)."""
_TABS: Final = bytes.maketrans(b"\r\n", b"\x0b\x0b")


def _tab_breaks(found: re.Match[bytes]) -> bytes:
    text = found.group()
    return text.translate(_TABS) if text.find(b"\n") >= 0 or text.find(b"\r") >= 0 else text


__all__ = ["one_line"]
