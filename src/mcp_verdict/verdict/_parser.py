"""Strict reading of wire text: UTF-8, standard JSON, no duplicate keys, bounded size.

Rules (RFC 8259 as MCP uses it; each maps to a ``json.*`` code in ``_findings``):

- the text is UTF-8; a string escaping a lone surrogate cannot be carried by UTF-8 and is
  refused (``json.encoding``); a byte order mark is refused (``json.bom``);
- standard JSON only: no NaN or Infinity, no single quotes, comments or trailing commas
  (``json.syntax``) and nothing after the value but whitespace (``json.trailing_data``);
- no object repeats a member name (``json.duplicate_key``);
- the text is at most ``Limits.max_bytes`` long (``json.too_large``) and nests at most
  ``Limits.max_depth`` deep (``json.too_deep``; the parser itself stops at
  :data:`PARSER_MAX_DEPTH`, so a 100,000-deep nesting costs nothing).

The reader is jiter with duplicate-key detection: the only fast parser measured (see README)
that reports duplicate keys instead of silently keeping one copy. It is the authority: every
finding about wire text comes from it. (The fast path, ``_fastpath.read_common``, reads the
common responses more quickly, and only where it can prove it reads them as this module would.)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final

import jiter

from ._findings import Finding, finding, pointer

PARSER_MAX_DEPTH: Final = 200
"""jiter's own nesting limit; ``Limits.max_depth`` cannot be set above it."""

_BOM: Final = b"\xef\xbb\xbf"
_POSITION: Final = re.compile(r" at line (\d+) column (\d+)$")
_TOKEN: Final = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\],:]', re.DOTALL)
_NOT_PARSED: Final = object()


def parse(raw: bytes | bytearray | memoryview | str, max_bytes: int, max_depth: int,
          ) -> tuple[object, Finding | None]:
    """Parse one message. Returns ``(value, None)`` or ``(NOT_PARSED, finding)``."""
    if isinstance(raw, str):
        try:
            data = raw.encode("utf-8")
        except UnicodeEncodeError as exc:
            return _NOT_PARSED, finding(
                "", "json.encoding",
                f"the text holds a lone surrogate (U+{ord(raw[exc.start]):04X}) at character "
                f"{exc.start}, which UTF-8 cannot encode")
    elif isinstance(raw, bytes):
        data = raw
    else:
        data = bytes(raw)
    if len(data) > max_bytes:
        return _NOT_PARSED, finding(
            "", "json.too_large", f"the message is {len(data)} bytes; the limit is {max_bytes}")
    if data.startswith(_BOM):
        return _NOT_PARSED, finding("", "json.bom", "the message starts with a UTF-8 byte order mark")
    try:
        value = jiter.from_json(data, allow_inf_nan=False, cache_mode="none",
                                catch_duplicate_keys=True)
    except ValueError as exc:
        return _NOT_PARSED, _explain(data, str(exc), max_depth)
    return value, None


NOT_PARSED: Final = _NOT_PARSED
"""Sentinel returned in place of a value when the text could not be parsed."""

def _explain(data: bytes, reason: str, max_depth: int) -> Finding:
    """Turn a parser error into a finding at the JSON pointer where it happened."""
    match = _POSITION.search(reason)
    offset = _offset(data, int(match.group(1)), int(match.group(2))) if match else 0
    where = f" (byte {offset})" if match else ""
    text = reason[: match.start()] if match else reason
    if text.startswith("Detected duplicate key"):
        return finding(_locate(data, offset), "json.duplicate_key",
                       f"{text.replace('Detected d', 'd', 1)}{where}")
    if text == "recursion limit exceeded":
        return finding(_locate(data, offset), "json.too_deep",
                       f"the value nests deeper than the limit of {max_depth} levels{where}")
    if text == "trailing characters":
        return finding("", "json.trailing_data", f"data follows the JSON value{where}")
    if "surrogate" in text or "hex escape" in text or "unicode code point" in text:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return finding("", "json.encoding", f"the message is not UTF-8: {exc.reason} at byte {exc.start}")
        return finding(_locate(data, offset), "json.encoding",
                       f"a string escapes a lone surrogate, which UTF-8 cannot carry{where}")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return finding("", "json.encoding", f"the message is not UTF-8: {exc.reason} at byte {exc.start}")
    return finding(_locate(data, offset), "json.syntax", f"not standard JSON: {text}{where}")


def _offset(data: bytes, line: int, column: int) -> int:
    """Byte offset of jiter's 1-based line and byte column."""
    start = 0
    for _ in range(line - 1):
        nxt = data.find(b"\n", start)
        if nxt < 0:
            break
        start = nxt + 1
    return min(len(data), start + max(column - 1, 0))


@dataclass(slots=True)
class _Frame:
    is_object: bool
    key: str | int | None
    expecting_key: bool


def _locate(data: bytes, offset: int) -> str:
    """The JSON pointer of the innermost member or element open at ``offset``.

    Scans the text before ``offset`` token by token (strings are skipped whole), tracking
    the open containers, the current member name and element index. Error path only.
    """
    stack: list[_Frame] = []
    for match in _TOKEN.finditer(data, 0, offset):
        token = match.group()
        first = token[:1]
        if first == b"{":
            stack.append(_Frame(True, None, True))
        elif first == b"[":
            stack.append(_Frame(False, 0, False))
        elif first in (b"}", b"]"):
            if stack:
                stack.pop()
        elif first == b",":
            if stack:
                top = stack[-1]
                if top.is_object:
                    top.expecting_key = True
                elif isinstance(top.key, int):
                    top.key += 1
        elif first == b":":
            if stack:
                stack[-1].expecting_key = False
        elif stack and stack[-1].is_object and stack[-1].expecting_key:
            try:
                key = json.loads(token)
            except ValueError:
                key = token.decode("utf-8", "replace")[1:-1]
            stack[-1].key = key if isinstance(key, str) else str(key)
    path = ""
    for frame in stack:
        if frame.key is None:
            break
        path = pointer(path, frame.key)
    return path
