"""The ``mcp-verdict`` command line (the edge: reads files, prints, exits)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, Final

import click
import jiter
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .. import corpus, kit
from ..kit._mutants import MutantError
from ..verdict._classify import DEFAULT_LIMITS, Limits, classify
from ..verdict._kind import Kind
from ..verdict._parser import PARSER_MAX_DEPTH
from ..verdict._verdict import Verdict
from ..verdict._versions import LATEST_VERSION, VERSIONS
from ._term import literal

EXIT_CODES: Final[dict[Kind, int]] = {
    Kind.NORMAL_COMPLETE: 0,
    Kind.TASK: 10,
    Kind.INPUT_REQUIRED: 11,
    Kind.TOOL_ERROR: 12,
    Kind.PROTOCOL_ERROR: 13,
    Kind.UNCLASSIFIED: 20,
}
"""Exit status per kind; with several responses the highest one wins (unclassified is worst)."""

_STYLE: Final = {
    Kind.NORMAL_COMPLETE: "green",
    Kind.TOOL_ERROR: "yellow",
    Kind.INPUT_REQUIRED: "cyan",
    Kind.TASK: "blue",
    Kind.PROTOCOL_ERROR: "magenta",
    Kind.UNCLASSIFIED: "bold red",
}


class _LazyGroup(click.Group):
    """Commands on an extra's stack are imported only when run: ``--help`` lists them from this
    table, so neither it nor ``classify`` loads the SDK; without the extra, running one prints
    which extra to install and exits 2."""

    LAZY: Final = {
        "call": ("mcp_verdict.cli._call:call_command", "client",
                 "Call one tool and print its verdict, content check and decision."),
        "tools": ("mcp_verdict.cli._call:tools_command", "client",
                  "List the server's tools with their annotations and schemas."),
        "demo": ("mcp_verdict.cli._demo:demo_command", "client",
                 "Run every tool of the embedded fault-injecting server through the client."),
        "proxy": ("mcp_verdict.cli._proxy:proxy_command", "proxy", "Judge every answer between a host and a server."),
        "audit": ("mcp_verdict.cli._audit:audit_command", "audit",
                  "Audit recorded traffic: every tools/call's verdict, and what a naive receiver concluded."),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.LAZY:
                rows.append((name, self.LAZY[name][2]))
            else:
                command = self.commands[name]
                rows.append((name, command.get_short_help_str(limit=formatter.width - 6 - len(name))))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LAZY and cmd_name not in self.commands:
            import importlib

            from .._extras import MissingExtra, require

            target, extra, _ = self.LAZY[cmd_name]
            module, _, name = target.partition(":")
            try:
                require(extra, f"mcp-verdict {cmd_name}")
            except MissingExtra as exc:
                return _missing_extra_command(cmd_name, str(exc))
            command: click.Command = getattr(importlib.import_module(module), name)
            return command
        return super().get_command(ctx, cmd_name)


def _missing_extra_command(name: str, message: str) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                           "help_option_names": []})
    def missing() -> None:
        click.echo(f"mcp-verdict: {message}", err=True)
        sys.exit(2)

    return missing


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mcp-verdict")
def main() -> None:
    """Tell truthfully what an MCP tools/call produced, and what to do next."""


def _request_id(value: str | None) -> str | int | None:
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    if isinstance(parsed, bool) or not isinstance(parsed, (str, int)):
        raise click.BadParameter("a request id is a string or an integer", param_hint="--request-id")
    return parsed


def _one_value(text: bytes) -> bool:
    """Whether ``text`` reads as one JSON value (leniently: NaN allowed, duplicates kept; never
    raises, whatever the nesting — jiter stops at its depth bound)."""
    try:
        jiter.from_json(text, allow_inf_nan=True, cache_mode=False)
    except ValueError:
        return False
    return True


def _messages(data: bytes, mode: str) -> list[tuple[int | None, bytes]]:
    """The responses in ``data``, each with its line number (None: the whole input is one).

    ``auto``: one response when the whole input reads as one JSON value (a pretty-printed
    response included); otherwise JSON Lines when at least two lines hold text and one of them
    reads as a JSON value by itself — then every line is classified where it is, a bad one
    included; otherwise one response (whose verdict says what is wrong with it)."""
    lines = [(number, line.removesuffix(b"\r")) for number, line in enumerate(data.split(b"\n"), 1)
             if line.strip()]
    if mode == "lines":
        return list(lines)
    if mode == "single" or len(lines) < 2 or _one_value(data):
        return [(None, data)]
    if any(_one_value(line) for _, line in lines):
        return list(lines)
    return [(None, data)]


def limits_option(function: Any) -> Any:
    """``--max-bytes`` and ``--max-depth``: the classifier's limits (``classify``, ``call``, ``tools``)."""
    function = click.option("--max-depth", type=click.IntRange(1, PARSER_MAX_DEPTH),
                            default=DEFAULT_LIMITS.max_depth, show_default=True,
                            help="Deepest nesting a response may have.")(function)
    return click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_LIMITS.max_bytes,
                        show_default=True, help="Largest response (and stdio line) read, in bytes.")(function)


@main.command("classify")
@click.argument("file", type=click.File("rb"), default="-")
@click.option("--version", "version", type=click.Choice(VERSIONS), default=LATEST_VERSION,
              show_default=True, help="Negotiated protocol version.")
@click.option("--request-id", help="The request's id (JSON: 7 is an integer, '\"7\"' a string).")
@click.option("--extension", "extensions", multiple=True,
              help="A negotiated extension, e.g. io.modelcontextprotocol/tasks (repeatable).")
@click.option("--capabilities", help="The client's declared capabilities, as a JSON object.")
@click.option("--absent-result-type", type=click.Choice(["invalid", "complete"]), default="invalid",
              show_default=True, help="How to read a 2026-07-28 result without resultType.")
@click.option("--lines/--single", "lines", default=None,
              help="Force JSON Lines or one message (default: detect).")
@limits_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per response.")
def classify_command(file: Any, version: str, request_id: str | None, extensions: Sequence[str],
                     capabilities: str | None, absent_result_type: str, lines: bool | None,
                     max_bytes: int, max_depth: int, as_json: bool) -> None:
    """Classify one JSON-RPC response (or JSON Lines of them) from FILE or stdin.

    Exit status: 0 normal_complete, 10 task, 11 input_required, 12 tool_error,
    13 protocol_error, 20 unclassified (the highest over all responses), 2 usage error.
    """
    caps = None
    if capabilities is not None:
        try:
            caps = json.loads(capabilities)
        except ValueError as exc:
            raise click.BadParameter(f"not JSON: {exc}", param_hint="--capabilities") from None
    options: dict[str, Any] = {
        "version": version, "request_id": _request_id(request_id), "extensions": tuple(extensions),
        "client_capabilities": caps, "absent_result_type": absent_result_type,
        "limits": Limits(max_bytes=max_bytes, max_depth=max_depth),
    }
    data = file.read(max_bytes + 1) if lines is False else file.read()
    mode = "auto" if lines is None else ("lines" if lines else "single")
    try:
        verdicts = [(number, classify(message, **options)) for number, message in _messages(data, mode)]
    except ValueError as exc:  # a bad option, never a bad response
        raise click.UsageError(str(exc)) from None
    if as_json:
        for number, verdict in verdicts:
            out = verdict.to_dict()
            if number is not None:
                out["line"] = number
            click.echo(json.dumps(out, ensure_ascii=False))
    else:
        print_verdicts(Console(highlight=False), verdicts)
    sys.exit(max((EXIT_CODES[v.kind] for _, v in verdicts), default=0))


def print_verdicts(console: Console, verdicts: Sequence[tuple[int | None, Verdict]]) -> None:
    """Each verdict (with its line number in JSON Lines) and its findings; peer text literal."""
    width = max((len(str(n)) for n, _ in verdicts if n is not None), default=0)
    for number, verdict in verdicts:
        prefix = f"line {number:>{width}}  " if number is not None else ""
        line = Text.assemble(prefix, (verdict.kind.value, _STYLE[verdict.kind]))
        summary = _summary(verdict)
        if summary:
            line.append("  ")
            line.append_text(literal(summary))
        console.print(line)
        for item in verdict.findings:
            console.print(Text.assemble(" " * len(prefix), "  ", (item.severity, "dim"), " ", (item.code, "bold"),
                                        " at ", literal(item.path or "/"), ": ", literal(item.message)))


def _summary(verdict: Verdict) -> str:
    kind = verdict.kind
    if kind is Kind.PROTOCOL_ERROR:
        return f"code {verdict.error_code}: {verdict.error_message}"
    if kind in (Kind.TOOL_ERROR, Kind.NORMAL_COMPLETE):
        types = [block.type for block in verdict.content]
        extra = " + structuredContent" if verdict.has_structured_content else ""
        return f"{len(types)} block(s) {', '.join(types)}{extra}".replace("  ", " ")
    if kind is Kind.INPUT_REQUIRED:
        asks = ", ".join(f"{key} ({req.method})" for key, req in verdict.input_requests.items())
        state = "" if verdict.request_state is None else " + requestState"
        return f"asks for {asks or 'nothing'}{state}"
    if kind is Kind.TASK:
        task = verdict.task
        assert task is not None
        return f"task {task.task_id} {task.status}"
    return ""


@main.command("conform")
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
@click.option("-v", "--verbose", is_flag=True, help="Explain each failure in full (description, spec, response).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def conform_command(receiver: str | None, builtin: str | None, labels_file: str | None, versions: Sequence[str],
                    input_mode: Any, verbose: bool, as_json: bool) -> None:
    """Run every corpus case against a receiver: MODULE:FUNCTION called as
    receiver(response, **options), returning a label, a Kind or an object with a .kind.

    Prints each failing case and a summary per kind. Exit status 0 when every case that
    ran passed, 1 on any failure or error (or when no case could run), 2 usage error.
    """
    if (receiver is None) == (builtin is None):
        raise click.UsageError("give a receiver MODULE:FUNCTION or --builtin NAME (one of them)")
    try:
        found = kit.load_receiver(receiver or str(builtin), input=input_mode)
        labels = kit.KIND_LABELS if labels_file is None else kit.load_labels(labels_file)
        cases = corpus.load(versions=kit.split_versions(versions))
    except ValueError as exc:  # KitError included: the user's setup, not a failing case
        raise click.UsageError(str(exc)) from None
    report = kit.run(found, cases, labels)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_report(Console(highlight=False, soft_wrap=True), report, verbose)
    sys.exit(0 if report.ok else 1)


def _print_report(console: Console, report: kit.Report, verbose: bool) -> None:
    for outcome in report.with_status("fail", "error"):
        tag = "[red]FAIL [/]" if outcome.status == "fail" else "[bold red]ERROR[/]"
        if verbose:
            console.print(f"{tag} {kit.describe(outcome)}", markup=True)
        else:
            case = outcome.case
            console.print(f"{tag} {case.id} ({case.version}): {outcome.reason}  [dim]{case.description}[/]",
                          markup=True)
    table = Table(title=f"{report.receiver.name} ({report.receiver.input} input) over corpus {corpus.CORPUS_VERSION}")
    for column in ("expected kind", "cases", "passed", "failed", "errors", "skipped"):
        table.add_column(column, justify="left" if column == "expected kind" else "right")
    for kind, counts in report.by_kind().items():
        table.add_row(kind.value, str(sum(counts.values())), str(counts["pass"]), str(counts["fail"]),
                      str(counts["error"]), str(counts["skip"]))
    console.print(table)
    for reason, count in report.skip_reasons().items():
        console.print(f"[dim]skipped {count}: {reason}[/]", markup=True)
    counts = report.counts()
    verdict = "[green]conforms[/]" if report.ok else "[bold red]FAILS[/]"
    console.print(f"{len(report.outcomes)} cases: {counts['pass']} passed, {counts['fail']} failed, "
                  f"{counts['error']} errors, {counts['skip']} skipped: {verdict}", markup=True)


@main.command("mutants")
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
        click.echo(json.dumps({"cases": len(cases), "corpus_version": corpus.CORPUS_VERSION, "rows": [
            {"receiver": row.name, "description": row.description, "failing": list(row.failing),
             "errors": list(row.errors), "result": row.result} for row in rows]}, indent=2))
    else:
        table = Table(title=f"Kill table over {len(cases)} corpus cases")
        table.add_column("receiver")
        table.add_column("failing", justify="right")
        table.add_column("errors", justify="right")
        table.add_column("first failing cases")
        table.add_column("result")
        for row in rows:
            style = "green" if row.healthy else "red"
            table.add_row(row.name, str(len(row.failing)), str(len(row.errors)),
                          ", ".join((row.failing + row.errors)[:3]), f"[{style}]{row.result}[/]")
        Console().print(table)
    sys.exit(0 if all(row.healthy for row in rows) else 1)
