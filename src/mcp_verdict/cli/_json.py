"""The CLI's ``--json`` output: JSON a terminal, a line splitter and a UTF-8 stream take as it is.

``json.dumps(ensure_ascii=False)`` keeps non-ASCII text readable but leaves raw what a reader of
the lines should not meet: DEL, the C1 controls (U+009B is CSI to a terminal), the bidi controls
(``verdict._peer_text``'s table), the line and paragraph separators (line ends to
``str.splitlines`` and to JavaScript before ES2019) and lone surrogates (no UTF-8 stream carries
one). Each only ever stands inside a JSON string, where its ``\\uXXXX`` escape is the same
string: :func:`json_text` writes that escape, so the text stays the same JSON value. (No rich
here: ``classify --json`` loads no terminal library.)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, Final

from ..verdict._peer_text import neutral
from ._style import OutputFailed

ESCAPED: Final = {code: f"\\u{code:04x}" for code in (*range(0x7F, 0x2070), *range(0xD800, 0xE000))
                  if code in (0x2028, 0x2029) or neutral(chr(code)) != chr(code)}
"""The characters :func:`json_text` writes as their ``\\uXXXX`` escape (module docstring)."""


def json_text(value: object, *, indent: int | None = None, default: Callable[[Any], Any] | None = None) -> str:
    """``value`` as JSON: non-ASCII text as it is, but for :data:`ESCAPED`."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, default=default)
    return text if text.isascii() and "\x7f" not in text else text.translate(ESCAPED)


def json_line(value: object) -> str:
    """One line of JSON Lines: :func:`json_text` then a line end."""
    return json_text(value) + "\n"


def echo_json(value: object, *, indent: int | None = None, default: Callable[[Any], Any] | None = None) -> None:
    """Write ``value`` to stdout as :func:`json_text` and a line end (UTF-8 whatever the locale:
    every character outside ASCII left is one UTF-8 carries). A stdout that is closed or whose
    write fails (but for a reader gone) raises :class:`~._style.OutputFailed`."""
    out = sys.stdout
    if out is None:  # closed (`>&-`): Python has no stdout
        raise OutputFailed("standard output is closed")
    data = (json_text(value, indent=indent, default=default) + "\n").encode("utf-8")
    buffer = getattr(out, "buffer", None)
    try:
        if buffer is None:  # (a text stream with no bytes under it: a test's capture)
            out.write(data.decode("utf-8"))
            out.flush()
            return
        out.flush()
        buffer.write(data)
        buffer.flush()
    except BrokenPipeError:
        raise  # the reader gone: READER_GONE, quietly
    except OSError as exc:  # a full disk, an I/O error: said, never a traceback
        raise OutputFailed(exc.strerror or str(exc)) from None


__all__ = ["ESCAPED", "echo_json", "json_line", "json_text"]
