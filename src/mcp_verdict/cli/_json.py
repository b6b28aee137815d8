"""The CLI's ``--json`` output: JSON a terminal, a line splitter and a UTF-8 stream take as it is.

``json.dumps(ensure_ascii=False)`` keeps non-ASCII text readable but leaves raw what a reader of
the lines should not meet: DEL, the C1 controls (U+009B is CSI to a terminal), the bidi controls
and the invisible ones (``verdict._peer_text``'s table), the line and paragraph separators (line
ends to ``str.splitlines`` and to JavaScript before ES2019) and lone surrogates (no UTF-8 stream
carries one). Each only ever stands inside a JSON string, where its ``\\uXXXX`` escape is the same
string: :func:`json_text` writes that escape, so the text stays the same JSON value. (No rich
here: ``classify --json`` loads no terminal library.) :func:`echo_json_pieces` writes the same
text a piece at a time, with bytes values as ``client._wire.bytes_field`` makes them: ``call
--json``, whose answer may be max_bytes long, and in it twice.
"""

from __future__ import annotations

import base64
import codecs
import json
import sys
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring
from typing import Any, Final, cast

from ..verdict._peer_text import neutral
from ._style import output_errors, require_stdout

ESCAPED: Final = {code: f"\\u{code:04x}" for code in (*range(0x7F, 0x2070), *range(0xD800, 0xE000), 0xFEFF)
                  if code in (0x2028, 0x2029) or neutral(chr(code)) != chr(code)}
"""The characters :func:`json_text` writes as their ``\\uXXXX`` escape (module docstring)."""


def json_text(value: object, *, indent: int | None = None, default: Callable[[Any], Any] | None = None) -> str:
    """``value`` as JSON: non-ASCII text as it is, but for :data:`ESCAPED`."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, default=default)
    return text if text.isascii() and "\x7f" not in text else text.translate(ESCAPED)


def json_line(value: object) -> str:
    """One line of JSON Lines: :func:`json_text` then a line end."""
    return json_text(value) + "\n"


_PIECE: Final = 1 << 16
"""Characters (or bytes) of a long string written at a time by :func:`echo_json_pieces`."""
_B64_PIECE: Final = 3 * (1 << 14)
"""Bytes base64-encoded at a time: a multiple of 3, so the pieces' encodings join into the whole's."""
_DONE: Final = object()


class _Pieces:
    """JSON text gathered into pieces of about ``_PIECE`` characters, each written as UTF-8 once
    full (with :data:`ESCAPED` applied, as :func:`json_text` does)."""

    __slots__ = ("_parts", "_size", "_write")

    def __init__(self, write: Callable[[str], object]) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._write = write

    def text(self, text: str) -> None:
        if not text.isascii() or "\x7f" in text:
            text = text.translate(ESCAPED)
        self._parts.append(text)
        self._size += len(text)
        if self._size >= _PIECE:
            self.flush()

    def string(self, value: str) -> None:
        """A JSON string, a long one escaped a piece at a time (the escapes of its pieces are its
        own: JSON escapes character by character)."""
        if len(value) <= _PIECE:
            self.text(encode_basestring(value))
            return
        self.text('"')
        for at in range(0, len(value), _PIECE):
            self.text(encode_basestring(value[at:at + _PIECE])[1:-1])
        self.text('"')

    def member_bytes(self, name: str, data: bytes) -> None:
        """The member ``name`` of bytes as ``client._wire.bytes_field`` writes it: the text under
        ``name`` when the bytes are UTF-8, else their base64 under ``name_base64``; read and
        written a piece at a time (never a whole copy of them, decoded or escaped)."""
        with memoryview(data) as view:
            utf8 = _is_utf8(view)
            self.string(name if utf8 else f"{name}_base64")
            self.text(': "')
            if utf8:
                decoder = codecs.getincrementaldecoder("utf-8")()
                for at in range(0, len(view), _PIECE):
                    self.text(encode_basestring(decoder.decode(view[at:at + _PIECE], at + _PIECE >= len(view)))[1:-1])
            else:
                for at in range(0, len(view), _B64_PIECE):
                    self.text(base64.b64encode(view[at:at + _B64_PIECE]).decode("ascii"))
            self.text('"')

    def flush(self) -> None:
        if self._parts:
            text = "".join(self._parts)
            self._parts, self._size = [], 0
            self._write(text)


def _is_utf8(view: memoryview) -> bool:
    """Whether the bytes are UTF-8 (as ``bytes.decode('utf-8')`` reads them), read a piece at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for at in range(0, len(view), _PIECE):
            decoder.decode(view[at:at + _PIECE], at + _PIECE >= len(view))
    except UnicodeDecodeError:
        return False
    return True


def _key(key: object) -> str:
    """A member name as ``json.dumps`` writes it (a number, true, false or null as its text)."""
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return json.dumps(key)
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, float):
        return json.dumps(float(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _write_pieces(value: object, out: _Pieces, default: Callable[[Any], Any] | None) -> None:
    """``value`` as ``json.dumps(value, ensure_ascii=False, default=default)`` writes it (the
    same text), but for a member whose value is bytes (:meth:`_Pieces.member_bytes`); walked
    without recursion, each long string written in pieces."""
    stack: list[tuple[Iterator[Any], bool, int]] = []
    path: set[int] = set()
    first = False
    pending: object = value
    while True:
        if pending is not _DONE:
            item, pending = pending, _DONE
            defaulted: set[int] = set()
            while True:
                if isinstance(item, str):
                    out.string(item)
                elif item is None or item is True or item is False:
                    out.text(json.dumps(item))
                elif isinstance(item, int):
                    out.text(int.__repr__(item))
                elif isinstance(item, float):
                    out.text(json.dumps(float(item)))
                elif isinstance(item, (list, tuple, dict)):
                    if id(item) in path:
                        raise ValueError("Circular reference detected")
                    path.add(id(item))
                    is_dict = isinstance(item, dict)
                    out.text("{" if is_dict else "[")
                    stack.append((iter(item.items() if isinstance(item, dict) else item), is_dict, id(item)))
                    first = True
                else:
                    if default is None:
                        raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")
                    if id(item) in defaulted:
                        raise ValueError("Circular reference detected")
                    defaulted.add(id(item))
                    item = default(item)
                    continue
                break
        if not stack:
            return
        items, is_dict, ident = stack[-1]
        entry = next(items, _DONE)
        if entry is _DONE:
            out.text("}" if is_dict else "]")
            path.discard(ident)
            stack.pop()
            first = False
            continue
        if not first:
            out.text(", ")
        first = False
        if not is_dict:
            pending = entry
            continue
        name, member = cast(tuple[Any, Any], entry)
        if isinstance(member, bytes):
            out.member_bytes(_key(name), member)
            continue
        out.string(_key(name))
        out.text(": ")
        pending = member


def echo_json_pieces(value: object, *, default: Callable[[Any], Any] | None = None) -> None:
    """:func:`echo_json` (no indent) written a piece at a time, the same text, but for a member
    whose value is bytes: written as ``client._wire.bytes_field`` would make it (the text when
    UTF-8, else ``<name>_base64``). Memory: a piece, never a copy of the whole output nor of a
    long string or bytes value (``call --json`` writes a cut answer of max_bytes twice: its
    round's ``response`` and its frame's ``data``)."""
    require_stdout()
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    with output_errors():
        if buffer is None:  # (a text stream with no bytes under it: a test's capture)
            write: Callable[[str], object] = out.write
        else:
            out.flush()
            write = lambda text: buffer.write(text.encode("utf-8"))  # noqa: E731
        pieces = _Pieces(write)
        _write_pieces(value, pieces, default)
        pieces.text("\n")
        pieces.flush()
        (out if buffer is None else buffer).flush()


class _Head(_Pieces):
    """The first ``limit`` characters of the text, and the length of the whole, counted as it is
    made (no piece kept past the limit, no escape of :data:`ESCAPED`: the text of ``json.dumps``)."""

    __slots__ = ("head", "kept", "limit", "size")

    def __init__(self, limit: int) -> None:
        super().__init__(lambda text: None)
        self.limit = limit
        self.head: list[str] = []
        self.kept = 0
        self.size = 0

    def text(self, text: str) -> None:
        if self.kept < self.limit:
            self.head.append(text[: self.limit - self.kept])
            self.kept += len(self.head[-1])
        self.size += len(text)


def json_head(value: object, limit: int) -> tuple[str, int]:
    """The first ``limit`` characters of ``json.dumps(value, ensure_ascii=False)`` and the length
    of that whole text, made a piece at a time (a long string escaped 65,536 characters at a
    time): never the whole text, which a structuredContent of many megabytes made once more
    (four bytes a character once one is past the BMP) to show its first 2,000 characters."""
    head = _Head(limit)
    _write_pieces(value, head, None)
    return "".join(head.head), head.size


def echo_json(value: object, *, indent: int | None = None, default: Callable[[Any], Any] | None = None) -> None:
    """Write ``value`` to stdout as :func:`json_text` and a line end (UTF-8 whatever the locale:
    every character outside ASCII left is one UTF-8 carries). A stdout that is closed or whose
    write fails (but for a reader gone) raises :class:`~._style.OutputFailed`."""
    require_stdout()
    out = sys.stdout
    data = (json_text(value, indent=indent, default=default) + "\n").encode("utf-8")
    buffer = getattr(out, "buffer", None)
    with output_errors():
        if buffer is None:  # (a text stream with no bytes under it: a test's capture)
            out.write(data.decode("utf-8"))
            out.flush()
            return
        out.flush()
        buffer.write(data)
        buffer.flush()


__all__ = ["ESCAPED", "echo_json", "echo_json_pieces", "json_head", "json_line", "json_text"]
