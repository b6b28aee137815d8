"""``mcp-verdict conform`` and ``mcp-verdict mutants``: the receiver conformance kit from a terminal."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Final

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .. import corpus, kit
from ..kit._apart import GaveUp, run_apart
from ..kit._mutants import MutantError
from ..verdict._peer_text import neutral, one_line
from ._json import echo_json
from ._style import require_stdout
from ._term import literal, make_console, markup_safe, print_indented, print_whole, table_width

DEFAULT_TIMEOUT: Final = 10.0
"""``conform --timeout``'s default, in seconds: a receiver takes microseconds to a few milliseconds
a case; ten seconds is a hang, not a slow machine."""
MAX_TIMEOUT: Final = 86_400
DEFAULT_GIVE_UP_AFTER: Final = 3
"""``conform --give-up-after``'s default: three cases in a row with no answer is a receiver that
hangs on every case (the 1,712 cases at 10 s each were 4¾ hours), not one case it hangs on."""
DEFAULT_GIVE_UP_TOTAL: Final = 10
"""``conform --give-up-total``'s default (none with ``--give-up-after 0``, which never gives up):
a receiver that hangs on every other case gives up no count in a row (half the 1,712 cases at
10 s each were 2⅓ hours); ten cases stopped in all is at most 100 s of waiting at the default
limit, and ten cases named in the report."""
INCOMPLETE: Final = 3
"""``conform``'s exit status when the run gave up before every case ran (as ``audit`` exits 3
when an input cannot be read: the job could not be done whole)."""


@click.command("conform")
@click.argument("receiver", required=False, metavar="[MODULE:FUNCTION]")
@click.option("--builtin", type=click.Choice(list(kit.BUILTINS)),
              help="Check a built-in receiver instead: mcp-verdict, the design note's minimal classifier, or the "
                   "official SDK's typed parse.")
@click.option("--labels", "labels_file", type=click.Path(dir_okay=False),
              help='JSON file mapping each kind to your label, e.g. {"normal_complete": "ok", ...}.')
@click.option("--versions", "versions", multiple=True, metavar="V[,V...]",
              help="Only the cases of these protocol versions (comma-separated or repeated).")
@click.option("--input", "input_mode", type=click.Choice(kit.INPUT_MODES),
              help="What the receiver takes (overrides its mcp_receiver_input attribute; default parsed).")
@click.option("--timeout", type=click.FloatRange(0, MAX_TIMEOUT, min_open=True), default=DEFAULT_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="The time the receiver has for one case: a case it has not answered by then is stopped, as an "
                   "error, and the run goes on with the next.")
@click.option("--give-up-after", type=click.IntRange(0), default=DEFAULT_GIVE_UP_AFTER, show_default=True,
              metavar="N",
              help="Give the run up after N cases in a row stopped at --timeout (a receiver that hangs on every "
                   "case): the cases left are reported as not run, exit status 3. 0: never give up.")
@click.option("--give-up-total", type=click.IntRange(0), default=None, metavar="N",
              help="Give the run up after N cases in all stopped at --timeout, in a row or not (a receiver that "
                   "hangs on every other case): the cases left are reported as not run, exit status 3. 0: no "
                   f"such limit. Default {DEFAULT_GIVE_UP_TOTAL}, or 0 when --give-up-after is 0 (never give up).")
@click.option("-v", "--verbose", is_flag=True, help="Explain each failure in full (description, spec, response).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def conform_command(receiver: str | None, builtin: str | None, labels_file: str | None, versions: Sequence[str],
                    input_mode: Any, timeout: float, give_up_after: int, give_up_total: int | None, verbose: bool,
                    as_json: bool) -> None:
    """Run every corpus case against a receiver: MODULE:FUNCTION called as
    receiver(response, **options), returning a label, a Kind or an object with a .kind.

    The receiver runs in a process of its own (POSIX): a case it does not answer within
    --timeout, or during which its process ends (os._exit, a crash), is an error saying so,
    and the run goes on with the next case (said on stderr as it happens). After
    --give-up-after cases in a row stopped at the time limit, or --give-up-total cases in
    all, the run gives up: the cases left are reported as not run. What the receiver starts
    (a server it talks to) is ended with its process, and with conform, even killed.

    Prints each failing case and a summary per kind. Exit status 0 when every case that
    ran passed, 1 on any failure or error (or when no case could run), 2 usage error, 3 the
    run gave up (cases not run).
    """
    if (receiver is None) == (builtin is None):
        raise click.UsageError("give a receiver MODULE:FUNCTION or --builtin NAME (one of them)")
    require_stdout()
    with _stdout_to_stderr() if as_json else contextlib.nullcontext():  # the receiver's prints never reach the JSON
        try:
            found = kit.load_receiver(receiver or str(builtin), input=input_mode)
            labels = kit.KIND_LABELS if labels_file is None else kit.load_labels(labels_file)
            cases = corpus.load(versions=kit.split_versions(versions))
        except ValueError as exc:  # KitError included: the user's setup, not a failing case
            raise click.UsageError(neutral(str(exc))) from None
        if give_up_total is None:
            give_up_total = DEFAULT_GIVE_UP_TOTAL if give_up_after else 0
        report = _run(found, cases, labels, timeout, give_up_after, give_up_total)
    if as_json:
        _write_json(report.to_dict())
    else:
        _print_report(make_console(highlight=False, soft_wrap=True), report, verbose)
    sys.exit(0 if report.ok else 1 if report.complete else INCOMPLETE)


def _notice(line: str) -> None:
    """A line on stderr as the run goes (a case stopped, the run given up, a warning)."""
    click.echo(f"mcp-verdict: {line}", err=True)


def _run(receiver: kit.Receiver, cases: Sequence[corpus.Case], labels: kit.Labels, timeout: float,
         give_up_after: int, give_up_total: int) -> kit.Report:
    """The receiver over the cases in a process of its own (:func:`~mcp_verdict.kit._apart.run_apart`):
    a case it hangs on or ends its process during is an error outcome, not the end of the run
    (a hang hung ``conform`` for ever; an ``os._exit`` ended it with the receiver's status and
    no report). No outcome keeps what the receiver raised (its reason, one bounded line, is
    all the report shows): a receiver raising a 1 MB message held 1 MB a case. A run given up
    (``give_up_after`` cases in a row stopped at the limit, or ``give_up_total`` in all) names
    the cases left as not run."""
    outcomes: list[kit.Outcome] = []
    run = run_apart(receiver, cases, labels, timeout=timeout, give_up_after=give_up_after,
                    give_up_total=give_up_total, notice=_notice)
    try:
        while True:
            outcomes.append(dataclasses.replace(next(run), exception=None))
    except StopIteration as end:
        given_up: GaveUp | None = end.value
    if given_up is None:
        return kit.Report(receiver, labels, tuple(outcomes))
    count = given_up.stopped
    how = ("in a row", f"--give-up-after {count}") if given_up.in_a_row else ("in all", f"--give-up-total {count}")
    return kit.Report(receiver, labels, tuple(outcomes), tuple(cases[len(outcomes):]),
                      f"the run gave up after {count} case{'s' if count > 1 else ''} {how[0]} gave no answer "
                      f"within {timeout:g} s (--timeout; {how[1]})")


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """What runs inside writes to stderr, from Python (``print``) and from the file descriptor 1 alike.
    (Stdout is open: ``require_stdout``.)"""
    require_stdout()
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def print_kill_table(console: Console, rows: Sequence[kit.KillRow], cases: int) -> None:
    """The kill table when the console holds it with every receiver name and result whole (the
    first failing cases fold), else a line per receiver: nothing cut at any width."""
    title = f"Kill table over {cases} corpus cases"
    cells = [(row.name, str(len(row.failing)), str(len(row.errors)), ", ".join((row.failing + row.errors)[:3]),
              row.result, "green" if row.healthy else "red") for row in rows]
    heads = ("receiver", "failing", "errors", "result", "first failing cases")
    if table_width(heads, [(name, failing, errors, result, heads[-1]) for name, failing, errors, _, result, _
                           in cells]) <= console.width:
        table = Table(title=title)
        table.add_column("receiver", no_wrap=True)
        table.add_column("failing", justify="right", no_wrap=True)
        table.add_column("errors", justify="right", no_wrap=True)
        table.add_column("first failing cases", overflow="fold")
        table.add_column("result", no_wrap=True)
        for name, failing, errors, first, result, style in cells:
            table.add_row(literal(name), failing, errors, literal(first), Text(result, style=style))
        console.print(table)
        return
    console.print(title, markup=False)
    for name, failing, errors, first, result, style in cells:
        print_whole(console, neutral(name), "bold")
        print_indented(console, Text.assemble((result, style), f" ({failing} failing, {errors} errors",
                                              "; first: " if first else "", literal(first), ")", overflow="fold"))


def _write_json(value: object) -> None:
    """The report as UTF-8 JSON, whatever the receiver's strings hold: a lone surrogate (which UTF-8
    cannot carry) is written as its JSON escape, ``\\ud800``, so the text stays valid JSON and the
    parser gives back the string the receiver made."""
    echo_json(value, indent=2)


def _peer(text: str) -> str:
    """The receiver's or the corpus's text for a markup string: shown literally, its controls, bidi
    characters and lone surrogates as visible escapes."""
    return markup_safe(neutral(text))


def _print_report(console: Console, report: kit.Report, verbose: bool) -> None:
    for outcome in report.with_status("fail", "error"):
        tag = "[red]FAIL [/]" if outcome.status == "fail" else "[bold red]ERROR[/]"
        if verbose:
            console.print(f"{tag} {_peer(kit.describe(outcome))}", markup=True)
        else:
            case = outcome.case
            console.print(f"{tag} {_peer(f'{case.id} ({case.version}): {one_line(outcome.reason)}')}  "
                          f"[dim]{_peer(case.description)}[/]", markup=True)
    title = literal(neutral(f"{report.receiver.name} ({report.receiver.input} input) over corpus "
                            f"{corpus.CORPUS_VERSION}"))
    rows = [(kind.value, str(sum(counts.values())), str(counts["pass"]), str(counts["fail"]), str(counts["error"]),
             str(counts["skip"])) for kind, counts in report.by_kind().items()]
    heads = ("expected kind", "cases", "passed", "failed", "errors", "skipped")
    if table_width(heads, rows) <= console.width:
        table = Table(title=title)
        for column in heads:
            table.add_column(column, justify="left" if column == "expected kind" else "right", no_wrap=True)
        for row in rows:
            table.add_row(*row)
        console.print(table)
    else:  # too narrow for the table with every kind and count whole: a line per kind
        console.print(title)
        for kind, cases, passed, failed, errors, skipped in rows:
            console.print(f"{kind}: {cases} cases, {passed} passed, {failed} failed, {errors} errors, "
                          f"{skipped} skipped", markup=False)
    for reason, count in report.skip_reasons().items():
        console.print(f"[dim]skipped {count}: {_peer(reason)}[/]", markup=True)
    counts = report.counts()
    if not report.complete:
        console.print(f"[bold red]NOT RUN[/] {len(report.not_run)} cases: {_peer(report.not_run_reason)}",
                      markup=True)
        console.print(f"{len(report.outcomes)} of {len(report.outcomes) + len(report.not_run)} cases run: "
                      f"{counts['pass']} passed, {counts['fail']} failed, {counts['error']} errors, "
                      f"{counts['skip']} skipped; {len(report.not_run)} not run: [bold red]INCOMPLETE[/]", markup=True)
        return
    verdict = "[green]conforms[/]" if report.ok else "[bold red]FAILS[/]"
    console.print(f"{len(report.outcomes)} cases: {counts['pass']} passed, {counts['fail']} failed, "
                  f"{counts['error']} errors, {counts['skip']} skipped: {verdict}", markup=True)


@click.command("mutants")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
def mutants_command(as_json: bool) -> None:
    """Print the kill table: the real classifier, then each mutant, with the corpus cases it
    fails and those it raises on.

    Exit status 1 when the real classifier fails a case or a mutant survives.
    """
    cases = corpus.load()
    try:
        rows = kit.kill_table(cases)
    except MutantError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        echo_json({"cases": len(cases), "corpus_version": corpus.CORPUS_VERSION, "rows": [
            {"receiver": row.name, "description": row.description, "failing": list(row.failing),
             "errors": list(row.errors), "result": row.result} for row in rows]}, indent=2)
    else:
        print_kill_table(make_console(), rows, len(cases))
    sys.exit(0 if all(row.healthy for row in rows) else 1)
