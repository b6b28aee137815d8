"""``mcp-verdict audit``: recorded traffic → a verdict per tools/call and a report.

Reads frame logs (the format the proxy and the tap write), plain JSON-RPC JSON Lines and OTLP
JSON trace exports (detected, or named with ``--format``), streams them through the audit
(``--jobs N`` processes) and prints the report: totals by kind and decision, the calls a naive
``"result" in response`` receiver took as success that mcp-verdict does not accept (by server
and tool), the top findings, the calls with an unknown effect, the unreadable lines, and the
line counts, which add up. ``--json`` prints one JSON object per call and per problem line,
then the summary; ``--parquet`` and ``--html`` write the calls table and the page.

Exit status: 0 no naive false success found, 1 at least one, 2 usage error, 3 an input cannot be
read, 74 an output cannot be written (stdout closed or full, the page or the Parquet file that
cannot be opened: a directory, a missing folder, no permission, said before the audit runs; or
whose write fails: a full disk, an I/O error), as for every command.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Final

import click
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn
from rich.table import Table

from ..audit import FORMATS, MAX_JOBS, AuditError, CallRow, Problem, Totals, plan
from ..audit._files import shown_path
from ..audit._rows import FIDELITY
from ..audit._run import audit
from ..audit._summary import Summary, fidelity_statement, named_fidelities, redacted_note
from ..verdict._peer_text import neutral, one_line
from ._json import json_line
from ._style import OutputFailed, output_errors, require_stdout, stdout_gone
from ._term import literal, make_console, print_rows, table_width

PROGRESS_ABOVE: Final = 32 * 1024 * 1024
"""Inputs larger than this get a progress bar (on a terminal)."""
_KIND_STYLE: Final = {"normal_complete": "green", "tool_error": "yellow", "input_required": "cyan", "task": "blue",
                      "protocol_error": "magenta", "unclassified": "bold red"}


@click.command("audit")
@click.argument("files", nargs=-1, required=True, type=click.Path())  # plan() says why a path is no file (exit 3)
@click.option("--format", "format_", type=click.Choice(["auto", *FORMATS]), default="auto", show_default=True,
              help="The input format (auto: detected from each file's first line).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object per call and per problem, then the summary.")
@click.option("--parquet", "parquet", type=click.Path(),  # (what open says of a directory, as of any path)
              help="Write one row per call to this Parquet file.")
@click.option("--html", "html", type=click.Path(),
              help="Write the report as one self-contained HTML page.")
@click.option("--jobs", type=click.IntRange(1, MAX_JOBS), default=1, show_default=True, help="Processes to audit with.")
@click.option("--trusted", is_flag=True, help="Trust the servers' tool annotations (read-only, idempotent).")
def audit_command(files: Sequence[str], format_: str, as_json: bool, parquet: str | None, html: str | None,
                  jobs: int, trusted: bool) -> None:
    """Audit recorded MCP traffic: the verdict of every tools/call, and what a naive receiver concluded.

    FILES are frame logs, JSON-RPC JSON Lines or OTLP JSON trace exports (rotated logs NAME,
    NAME.1... are read as one recording). Exit status: 0 no naive false success, 1 some,
    2 usage error, 3 an input cannot be read.
    """
    require_stdout()  # the report (or the --json lines) could never be written: nothing audited
    try:
        inputs = plan(list(files), format_)
    except AuditError as exc:
        click.echo(neutral(f"mcp-verdict audit: {exc}"), err=True)
        sys.exit(3)
    for option, written in (("'--parquet'", parquet), ("'--html'", html)):
        if written is not None and any(_same_file(written, item.path) for item in inputs):  # opening empties it
            raise click.BadParameter(neutral(f"{shown_path(written)} is one of the files to audit: writing it would "
                                             "destroy it before it is read"), param_hint=option)
    if parquet is not None and html is not None and (_same_file(parquet, html) or
                                                     os.path.abspath(parquet) == os.path.abspath(html)):
        raise click.BadParameter(neutral(f"{shown_path(html)} is the --parquet file too"), param_hint="'--html'")
    sink = None
    if parquet is not None:
        from .._extras import MissingExtra, require

        try:
            require("audit", "mcp-verdict audit --parquet")
        except MissingExtra as exc:
            click.echo(f"mcp-verdict: {exc}", err=True)
            sys.exit(2)
        from ..audit._arrow import ParquetSink

        with _writing(parquet):  # opened before the audit: a file that cannot be written is said before, not after
            sink = ParquetSink(parquet)
    page = None
    if html is not None:
        try:
            with _writing(html):
                page = open(html, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OutputFailed:
            if sink is not None:
                with contextlib.suppress(OSError):
                    sink.close()
            raise
    summary = Summary()
    totals = Totals()
    size = sum(item.size for item in inputs)
    err = Console(stderr=True)
    show = size > PROGRESS_ABOVE and err.is_terminal and not os.environ.get("CI")
    progress = Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                        TransferSpeedColumn(), TimeRemainingColumn(), console=err, transient=True, disable=not show)
    out = sys.stdout
    try:
        with progress:
            task = progress.add_task("auditing", total=size)
            for entry in audit(inputs, totals, jobs=jobs, trusted_server=trusted,
                               progress=lambda n: progress.update(task, completed=n)):
                summary.add(entry)
                if sink is not None and isinstance(entry, CallRow):
                    with _writing(parquet):
                        sink.add(entry)
                if as_json:
                    _write(out, json_line(entry.to_dict()))
    except (AuditError, OSError) as exc:  # (an input's: the outputs' failures are OutputFailed)
        if isinstance(exc, BrokenPipeError) and stdout_gone():
            raise  # (the reader of --json stopped reading: READER_GONE, quietly)
        click.echo(neutral(f"mcp-verdict audit: {exc}"), err=True)
        sys.exit(3)
    finally:
        if sink is not None:
            with _writing(parquet):
                sink.close()
    # what each input carried, from its calls (a trace export's spans may record a result or a status only)
    stated = [fidelity_statement(item.format, summary.fidelity_by_source.get(item.name)) for item in inputs]
    # (path, format, fidelity); a file nothing could be detected in: (path, why, "none")
    described = [(item.name, item.format, said) if item.note is None else (item.name, item.note, "none")
                 for item, (said, _) in zip(inputs, stated, strict=True)]
    redacted = redacted_note(totals.tally.get("redacted", 0))
    if as_json:
        _write(out, json_line({"type": "summary", **summary.to_dict(), "lines": totals.lines,
                              "line_counts": totals.tally, "notes": [redacted] if redacted else [],
                              "inputs": [{"path": item.name, "format": item.format,
                                          "fidelity": said if said in FIDELITY else None,
                                          "calls_by_fidelity": counts, "note": item.note}
                                         for item, (said, counts) in zip(inputs, stated, strict=True)]}),
               flush=True)
    else:
        report(make_console(highlight=False, width=min(make_console().width, 100)), summary, totals, described)
    if page is not None:
        from ..audit._html import render

        with _writing(html), page:
            page.write(render(summary, totals.tally, described))
    sys.exit(1 if summary.false_successes else 0)


@contextlib.contextmanager
def _writing(path: str | None) -> Iterator[None]:
    """An open of or a write to the ``--html`` or ``--parquet`` file at ``path`` that fails (a
    directory, a missing folder, no permission; a full disk, an I/O error) raises
    :class:`OutputFailed` naming the file and the system's reason: status 74, as for stdout, not
    a usage error (2), 3 (an input that cannot be read) nor a traceback."""
    try:
        yield
    except OSError as exc:
        raise OutputFailed(neutral(f"{shown_path(str(path))}: {_why(exc)}")) from None


def _why(exc: OSError) -> str:
    """The system's words for an error number (``No space left on device``), where there is one:
    a library's ``strerror`` may be its own sentence around them (pyarrow's ``Error writing bytes
    to file. Detail: [errno 28] ...``)."""
    if exc.errno:
        with contextlib.suppress(ValueError, OverflowError):
            return os.strerror(exc.errno)
    return exc.strerror or str(exc)


def _write(out: IO[str] | None, text: str, *, flush: bool = False) -> None:
    """``--json``'s ``text`` to stdout; a stdout closed or whose write fails (but for a reader
    gone) raises :class:`OutputFailed`."""
    if out is None:  # (closed: require_stdout said it before the audit; kept for the type)
        raise OutputFailed("standard output is closed")
    with output_errors():
        out.write(text)
        if flush:
            out.flush()


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one existing file (by its device and inode: through any spelling or
    link)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


_FALSE_SHOWN: Final = 15
_FINDINGS_SHOWN: Final = 10


def _count_table(title: str, rows: Sequence[tuple[str, str]], style: dict[str, str] | None = None) -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column(title.rsplit(" ", maxsplit=1)[-1], no_wrap=True)
    table.add_column("calls", justify="right", no_wrap=True)
    for name, n in rows:
        table.add_row(literal(name, (style or {}).get(name, "")), n)
    return table


def _most(shown: int, total: int, what: str) -> str:
    """A title's note on a top-N table: how many there were in all, when not all are shown."""
    return f" (the {shown} most frequent of {total} {what})" if total > shown else ""


def report(console: Console, summary: Summary, totals: Totals, inputs: Sequence[tuple[str, str, str]]) -> None:
    """The terminal report (readable at 80 columns)."""
    for path, fmt, fidelity in inputs:
        if fidelity == "none":  # nothing detected in it: fmt says why
            console.print(literal(one_line(f"{path}: {fmt}"), "bold"))
            continue
        if fidelity in FIDELITY:
            console.print(literal(one_line(f"{path}: {fmt}, {fidelity} fidelity"), "bold"))
        else:  # a trace export with calls of two fidelities, or none
            console.print(literal(one_line(f"{path}: {fmt}, fidelity: {fidelity}"), "bold"))
        for name in named_fidelities(fidelity):
            console.print(literal(f"  {FIDELITY[name]}" if name == fidelity else f"  {name}: {FIDELITY[name]}", "dim"))
    tally = totals.tally
    parts = " + ".join(f"{n} {k}" for k, n in tally.items() if n)
    console.print(f"\n{totals.lines} lines = {parts or '0'}")
    redacted = redacted_note(tally.get("redacted", 0))
    if redacted:  # the proxy's log by default: the payloads' hashes and sizes, no bytes to judge
        console.print(redacted, style="bold yellow")
    share = f" ({100 * summary.false_successes / summary.calls:.1f}%)" if summary.calls else ""
    console.print(f"{summary.calls} tools/call; [bold red]{summary.false_successes}[/] naive false successes{share}; "
                  f"{summary.unknown_effect} with an unknown effect; {summary.unfinished} not followed to their end\n",
                  markup=True)
    if summary.calls:  # side by side when both fit whole, else one after the other
        kinds = [(one_line(name), str(n)) for name, n in summary.kinds.most_common()]
        actions = [(one_line(name), str(n)) for name, n in summary.actions.most_common()]
        if table_width(("kind", "calls"), kinds) + 4 + table_width(("decision", "calls"), actions) <= console.width:
            grid = Table.grid(padding=(0, 4))
            grid.add_row(_count_table("by kind", kinds, _KIND_STYLE), _count_table("by decision", actions))
            console.print(grid)
        else:
            print_rows(console, "by kind", ("kind", "calls"), kinds, styles=_KIND_STYLE)
            print_rows(console, "by decision", ("decision", "calls"), actions)
    if summary.false_by_tool:
        top = summary.false_by_tool.most_common(_FALSE_SHOWN)
        title = "Naive false successes: taken as success by \"result\" in response, not accepted"
        print_rows(console, title + _most(len(top), len(summary.false_by_tool), "server/tool pairs"),
                   ("server", "tool", "false", "of"),
                   [(one_line(server), one_line(tool), str(n), str(summary.calls_by_tool[(server, tool)]))
                    for (server, tool), n in top])
    if summary.findings:
        codes = summary.findings.most_common(_FINDINGS_SHOWN)
        print_rows(console, "Top findings" + _most(len(codes), len(summary.findings), "findings"),
                   ("finding", "calls"), [(one_line(code), str(n)) for code, n in codes])
    if summary.unknown_examples:
        print_rows(console, f"Unknown effect (check the state): first {len(summary.unknown_examples)} of "
                            f"{summary.unknown_effect}", ("server", "tool", "where", "why"),
                   [(one_line(row.server or ""), one_line(row.tool or ""), one_line(f"{row.source}:{row.line}"),
                     one_line(row.finding or "")) for row in summary.unknown_examples])
    problems: list[Problem] = summary.problem_examples
    if problems:
        console.print(f"Unreadable and stray lines: first {len(problems)} of {sum(summary.problems.values())}")
        for problem in problems:
            console.print(literal(one_line(f"  {problem.source}:{problem.line} {problem.category}: {problem.reason}")))
