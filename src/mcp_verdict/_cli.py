"""The ``mcp-verdict`` command line (the edge: reads files, prints, exits)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, Final

import click
from rich.console import Console
from rich.table import Table

from ._classify import classify
from ._kind import Kind
from ._verdict import Verdict
from ._versions import LATEST_VERSION, VERSIONS

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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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


def _messages(data: bytes, mode: str) -> list[bytes]:
    """One message, or JSON Lines: auto picks lines when the first non-blank line is a whole
    JSON value by itself and more lines follow."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    if mode == "lines":
        return lines
    if mode == "single" or len(lines) < 2:
        return [data]
    try:
        json.loads(lines[0])
    except ValueError:
        return [data]
    return lines


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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per response.")
def classify_command(file: Any, version: str, request_id: str | None, extensions: Sequence[str],
                     capabilities: str | None, absent_result_type: str, lines: bool | None,
                     as_json: bool) -> None:
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
    }
    data = file.read()
    mode = "auto" if lines is None else ("lines" if lines else "single")
    try:
        verdicts = [classify(message, **options) for message in _messages(data, mode)]
    except ValueError as exc:  # a bad option, never a bad response
        raise click.UsageError(str(exc)) from None
    if as_json:
        for verdict in verdicts:
            click.echo(json.dumps(verdict.to_dict(), ensure_ascii=False))
    else:
        _print(Console(highlight=False, soft_wrap=True), verdicts)
    sys.exit(max((EXIT_CODES[v.kind] for v in verdicts), default=0))


def _print(console: Console, verdicts: Sequence[Verdict]) -> None:
    for number, verdict in enumerate(verdicts, start=1):
        prefix = f"{number:>4}  " if len(verdicts) > 1 else ""
        style = _STYLE[verdict.kind]
        summary = _summary(verdict)
        console.print(f"{prefix}[{style}]{verdict.kind.value}[/]  {summary}".rstrip())
        for item in verdict.findings:
            console.print(f"{' ' * len(prefix)}  [dim]{item.severity}[/] {item.code} at "
                          f"{item.path or '/'}: {item.message}", markup=True)


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


@main.command("mutants")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
def mutants_command(as_json: bool) -> None:
    """Print the kill table: each mutant of the classifier and the corpus cases it fails.

    Exit status 1 when the real classifier fails a case or a mutant survives.
    """
    from . import corpus
    from ._mutants import MUTANTS, MutantError, build

    cases = corpus.load()
    rows: list[tuple[str, str, list[str]]] = []
    real = [c.id for c in cases if classify(c.input, **c.kwargs()).kind != c.expect]
    rows.append(("real classifier", "mcp_verdict.classify", real))
    for mutant in MUTANTS:
        try:
            receiver = build(mutant)
        except MutantError as exc:
            raise click.ClickException(str(exc)) from None
        failing = [c.id for c in cases if receiver(c.input, **c.kwargs()).kind != c.expect]
        rows.append((mutant.name, mutant.description, failing))
    healthy = not real and all(failing for _, _, failing in rows[1:])
    if as_json:
        click.echo(json.dumps({"cases": len(cases), "rows": [
            {"receiver": name, "description": text, "failing": failing} for name, text, failing in rows]},
            indent=2))
    else:
        table = Table(title=f"Kill table over {len(cases)} corpus cases")
        table.add_column("receiver")
        table.add_column("failing", justify="right")
        table.add_column("first failing cases")
        table.add_column("result")
        for index, (name, _, failing) in enumerate(rows):
            if index == 0:
                verdict = "[green]passes all[/]" if not failing else "[red]FAILS[/]"
            else:
                verdict = "[green]killed[/]" if failing else "[red]SURVIVED[/]"
            table.add_row(name, str(len(failing)), ", ".join(failing[:3]), verdict)
        Console().print(table)
    sys.exit(0 if healthy else 1)
