"""Peer text shown on a terminal: every character that would act instead of being shown.

Anything that came from a server, a client, a receiver under test or a log is data. Terminal
control would turn it into more: ESC starts ANSI and OSC sequences (``\\x1b[2J`` clears the
screen, ``\\x1b]0;title\\x07`` retitles the window, OSC 8 forges links), CR overwrites a line,
and the bidirectional controls reorder what is shown (Trojan Source, CVE-2021-42574), and the
invisible characters hide what is there (a zero-width space makes ``read\\u200bfile`` look like
the tool ``readfile``: CVE-2021-42694). So every C0 control but LF and TAB, DEL, every C1
control, every bidi control and every invisible character that draws and joins nothing
(:data:`_INVISIBLE`) is shown as its visible escape (``\\x1b``, ``\\r``, ``\\u202e``,
``\\u200b``), and so is a lone surrogate, which no UTF-8 stream can carry. The zero-width joiner
and non-joiner (U+200D, U+200C) are kept: they draw emoji sequences and Arabic, Persian and
Indic words. The one table for the CLI (``cli._term``, which adds rich's markup escaping) and the
conformance kit's messages (pytest's report).
"""

from __future__ import annotations

from typing import Final

_NAMED: Final = {0x0D: "\\r", 0x08: "\\b", 0x0C: "\\f", 0x0B: "\\v", 0x00: "\\0", 0x07: "\\a", 0x1B: "\\x1b"}
_BIDI: Final = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_INVISIBLE: Final = (0x180E, 0x200B, *range(0x2060, 0x2065), 0xFEFF)
"""Zero-width characters that draw nothing and join nothing: the Mongolian vowel separator, the
zero-width space, the word joiner, the invisible operators (function application, times,
separator, plus) and the zero-width no-break space (a byte order mark inside a text)."""


def _table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in (*range(0x20), *range(0x7F, 0xA0)):
        if code not in (0x09, 0x0A):
            table[code] = _NAMED.get(code, f"\\x{code:02x}")
    for code in (*_BIDI, *_INVISIBLE):
        table[code] = f"\\u{code:04x}"
    return table


_TABLE: Final = _table()


def neutral(text: str) -> str:
    """``text`` with every control, bidi, invisible and lone surrogate character shown as its
    visible escape."""
    shown = text.translate(_TABLE)
    if shown.isascii():
        return shown
    try:
        shown.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 stream carries it; shown as \udXXX
        return shown.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown


_LINE: Final = {0x0A: "\\n", 0x09: "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"}
"""What :func:`one_line` shows as escapes beyond :func:`neutral`'s: the line breaks a terminal
keeps (LF, and U+2028/U+2029, which editors and log viewers break on) and TAB."""


def one_line(text: str) -> str:
    """:func:`neutral`'s ``text`` held on one line: LF, TAB, U+2028 and U+2029 as visible escapes
    too (a server's error message in a span's status, an exception's message, a log line: a
    newline in it would start a line the peer wrote)."""
    return neutral(text).translate(_LINE)


def cut(text: str, limit: int) -> str:
    """``text`` when it is at most ``limit`` characters, else its first ``limit`` and how many
    there were in all: a peer's text in one line (an exception's message, a span's status)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters in all)"


__all__ = ["cut", "neutral", "one_line"]


def utf8_text(text: str | None) -> str | None:
    """``text`` as it is, but a lone surrogate (bytes that are no UTF-8, read leniently with
    ``surrogateescape``: a request's tool name, ``frames.lenient_request``) as its escape
    (``\\udcff``), which no UTF-8 output (a log, JSON, Parquet, a terminal) could otherwise hold."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
