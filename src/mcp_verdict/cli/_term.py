"""Peer text on a terminal: printed literally, never as markup, never as control sequences.

Anything that came from a server, a client or a log — tool text, error messages, finding
messages that quote a value, tool names, URLs — is data. Two things could turn it into more:

- rich markup: ``[/]`` in a message would crash the print, ``[blink]x`` would blink. Peer text
  is therefore only ever handed to rich as :class:`rich.text.Text` (which rich never parses for
  markup), built by :func:`literal`, or escaped with :func:`markup_safe` where it is spliced into a
  markup string of our own.
- terminal control (ESC sequences, CR, the bidi controls, a lone surrogate): :func:`neutral`
  shows each as its visible escape, so the sequence it would have started is printed as text
  (the one table, in ``verdict._peer_text``, which the conformance kit's messages use too).

``--json`` output is not written here but by ``_json``: JSON, with what ``json.dumps`` leaves raw
that a terminal or a line splitter acts on (DEL, the C1 and bidi controls, U+2028/U+2029, lone
surrogates) written as its ``\\uXXXX`` escape, the same string.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ..verdict._peer_text import cut, neutral, one_line
from ._style import READER_GONE, OutputFailed, output_errors, quiet_stdout


def literal(text: str, style: str = "") -> Text:
    """Peer text as a rich Text: shown literally, control sequences neutralised; long lines fold
    rather than being cut."""
    return Text(neutral(text), style=style, overflow="fold", no_wrap=False)


def literal_path(path: str) -> Text:
    """A finding's path (``/`` for the whole message) as :func:`literal` shows peer text, on one
    line: the member names in it are the peer's, and a line break or TAB in one is shown as its
    escape (``\\n``, ``\\t``), or it would start a line that reads as a finding of its own."""
    return Text(one_line(path or "/"), overflow="fold", no_wrap=False)


def literal_line(text: str, style: str = "") -> Text:
    """Peer text on a line of ours that holds one value (a finding's message, a protocol error's
    message, a decision's reason, a round's method), as :func:`literal` shows it, on one line: a
    line break or TAB in it is shown as its escape (``\\n``, ``\\t``), or the text after it
    would start a line of its own, which could read as one of ours (a finding, a decision)."""
    return Text(one_line(text), style=style, overflow="fold", no_wrap=False)


def markup_safe(text: str) -> str:
    """Peer text to splice into a markup string of our own: neutralised, then markup-escaped."""
    return escape(neutral(text))


def table_width(heads: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The width a table of these columns takes with every cell and header on one line (rich's
    default box: borders and a space either side of each cell)."""
    from rich.cells import cell_len

    return sum(max([cell_len(head), *(cell_len(row[number]) for row in rows)])
               for number, head in enumerate(heads)) + 3 * len(heads) + 1


def print_rows(console: Console, title: str, heads: Sequence[str], rows: Sequence[Sequence[str]], *,
               styles: dict[str, str] | None = None) -> None:
    """Rows of peer text (neutralised here) as a table when the console holds every cell whole;
    else a block per row: its first cell on lines of its own, the others named below it.
    Numbers are right-aligned; nothing is cut at any width."""
    from rich.table import Table

    if table_width(heads, [[neutral(cell) for cell in row] for row in rows]) <= console.width:
        table = Table(title=title, title_justify="left")
        for number, head in enumerate(heads):
            numeric = bool(rows) and all(row[number].isdigit() for row in rows)
            table.add_column(head, justify="right" if numeric else "left", no_wrap=True)
        for row in rows:
            table.add_row(*(literal(cell, (styles or {}).get(cell, "")) for cell in row))
        console.print(table)
        return
    console.print(Text(title, style="italic", overflow="fold"))
    for first, *others in rows:
        print_whole(console, neutral(first), (styles or {}).get(first, "bold"))
        details = Text(overflow="fold")
        for head, cell in zip(heads[1:], others, strict=True):
            details.append_text(Text.assemble(", " if details else "", f"{head} ", literal(cell)))
        if others:
            print_indented(console, details)


def print_whole(console: Console, text: str, style: str = "") -> None:
    """A name (already neutralised) on lines of its own, whole: cut only where it is wider than
    the console, at the console's width — never at a space, never with an ellipsis — so the
    lines put back together are the name."""
    from rich.cells import chop_cells

    for piece in [piece for piece in chop_cells(text, max(console.width, 1)) if piece] or [""]:
        console.print(Text(piece, style=style, no_wrap=True, overflow="ignore"), crop=False)


_INDENTED: Final = 10
"""The narrowest console details are indented in."""


def print_indented(console: Console, text: Text) -> None:
    """Details under a name: folded to the console's width, every line indented by two where
    there is room to, no trailing spaces."""
    width = max(console.width, 1)
    indent = 2 if width >= _INDENTED else 0
    for line in text.wrap(console, width - indent):
        line.rstrip()
        console.print(Text.assemble(" " * indent, line), no_wrap=True, crop=False)


FINDINGS_SHOWN: Final = 100
"""The findings of one verdict (or content check) a terminal shows, in their order: an answer of a
few MB can hold hundreds of thousands (300,000 broken blocks took two minutes and 600,000 lines to
print); ``--json`` lists every one."""


def findings_left_out(count: int) -> str | None:
    """The line saying how many of ``count`` findings are not shown, or None when all are."""
    left = count - FINDINGS_SHOWN
    return f"… {left:,} more finding{'s' if left > 1 else ''} (--json lists every one)" if left > 0 else None


_NARROWEST: Final = 20


class _Console(Console):
    """rich's Console, but a reader that stopped reading (``| head``) ends the command with
    READER_GONE, as the commands' other writes do (rich exits 1, a status ``audit`` gives to a
    naive false success), and an output that cannot be written raises :class:`OutputFailed`."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        quiet_stdout()
        raise SystemExit(READER_GONE)

    def _write_buffer(self) -> None:
        """rich's write, but a stdout that is closed (rich writes nothing, silently: the command's
        output lost) or a stream whose write fails (a full disk: a traceback) raises
        :class:`OutputFailed`; a reader gone stays rich's (``on_broken_pipe``). A closed stderr
        stays rich's: its lines (prompts, warnings) are no command's output."""
        if self._file is None and not self.stderr and sys.stdout is None:
            raise OutputFailed("standard output is closed")
        with output_errors():
            super()._write_buffer()


def make_console(**options: Any) -> Console:
    """A rich Console for the CLI's output. An absurd width in ``COLUMNS`` (0, negative, under
    20 columns: rich takes 0 at its word and prints nothing at all) is ignored for 80."""
    columns = os.environ.get("COLUMNS", "").strip()
    try:
        absurd = bool(columns) and int(columns) < _NARROWEST
    except ValueError:
        absurd = False
    if absurd and "width" not in options:
        options["width"] = 80
    return _Console(**options)


_EXCEPTION_SHOWN: Final = 300
"""Characters of a logged exception's message shown (without -v) on its one line."""


@contextmanager
def neutral_logs(*, verbose: bool = False) -> Iterator[None]:
    """While a command talks to a server: log records (warnings and worse, what Python's last-resort
    handler prints) go to stderr neutralised, unless the application configured logging itself.
    The SDK's warnings quote what a server sent (an SSE event name, a content type, a tool name).
    A record with an exception (the SDK's ``logger.exception`` on a body it cannot parse) is one
    line, its message and ``ExceptionType: message`` (cut at 300 characters); its traceback only
    with ``verbose``: the verdict says what went wrong, a traceback reads like a crash.
    (``logging`` is imported here: the commands that talk to no server do without it.)"""
    import logging

    class NeutralLogs(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                if record.exc_info and record.exc_info[1] is not None and not verbose:
                    exc = record.exc_info[1]
                    said = " ".join(str(exc).split())
                    line = (f"{record.name} {record.levelname}: {record.getMessage()}: "
                            f"{type(exc).__name__}: {cut(said, _EXCEPTION_SHOWN)}")
                else:
                    line = self.format(record)
                sys.stderr.write(neutral(line) + "\n")
            except Exception:  # a log line never stops a command
                self.handleError(record)

    root = logging.getLogger()
    if root.handlers:
        yield
        return
    handler = NeutralLogs(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
