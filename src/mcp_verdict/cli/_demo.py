"""``mcp-verdict demo``: every demo tool through VerdictClient, side by side with a naive receiver.

Starts the embedded fault-injecting server (stdio by default, ``--http`` for Streamable HTTP on
127.0.0.1), calls each tool with scripted answers to its input requests, observes the write
through the read tool, and prints, for each call: the tool, what it is built to produce, the
verdict (and the finding that explains it), the decision, and what a receiver that calls a
response successful when ``"result" in response`` would have concluded. Exit 0 when every row
is what the catalogue says by hand.

The layout follows the terminal: a table when it is wide, two lines per call at 80 columns,
a block per call when narrower; piped output gets the same at the width rich assumes (80).
The verdict, the finding code and the decision are never cut: they are laid out first, and
only the description wraps. Logs (the SDK's, uvicorn's, the demo server's stderr) are kept
off the terminal and shown with ``-v``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import anyio
import click
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..client import ElicitAnswer, Handlers, VerdictClient
from ..demo import CATALOGUE, naive_conclusion, serve_http, stdio_command
from ..demo._catalogue import DemoTool
from ..judgement._decide import Action
from ..judgement._outcome import Observe, Outcome
from ..verdict._kind import Kind
from ..verdict._verdict import ElicitationRequest, SamplingRequest, Verdict
from ._json import echo_json
from ._style import _STYLE
from ._term import literal, make_console

_QUICK_SLOW = 1.0
"""slow_echo's delay in the demo (seconds), and the shorter client timeout that cuts it off."""
_TABLE_WIDTH: Final = 160
"""From this width on, the demo is one table with the description in its own column."""
_NAIVE: Final = {"success": "success", "failure": "failure", "crash": "crash", "no_response": "no response"}


async def _confirm(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    return ElicitAnswer.accept({"confirm": True})


async def _summarise(request: SamplingRequest) -> Mapping[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "Results can lie."}, "model": "demo-model",
            "stopReason": "endTurn"}


HANDLERS = Handlers(form=_confirm, sampling=_summarise)


@dataclass(frozen=True, slots=True)
class Row:
    tool: str
    produces: str
    outcome: Outcome
    naive: str
    expected_kind: Kind
    expected_action: Action
    expected_naive: str

    @property
    def ok(self) -> bool:
        return (self.outcome.verdict.kind, self.outcome.decision.action, self.naive) == (
            self.expected_kind, self.expected_action, self.expected_naive)

    @property
    def why(self) -> str:
        """The code that explains the outcome: the verdict's first error, else the content check's."""
        verdict = self.outcome.verdict
        errors = [f.code for f in verdict.findings if f.severity == "error"]
        if errors:
            return errors[0]
        check = self.outcome.content_check
        return check.findings[0].code if check is not None and check.findings else ""

    @property
    def misled(self) -> bool:
        """The naive receiver called it a success, and mcp-verdict does not accept it."""
        return self.naive == "success" and self.outcome.decision.action is not Action.ACCEPT


def _expectation(tool: DemoTool) -> tuple[Kind, Action, str]:
    first = tool.expected
    final = tool.follow_up or first
    action = tool.checked_action if final.kind is Kind.NORMAL_COMPLETE and tool.checked_action else final.action
    return final.kind, action, first.naive


def _found(verdict: Verdict) -> bool | str:
    data = verdict.structured_content
    return (isinstance(data, dict) and data.get("found") is True) or f"not visible yet: {data!r}"


async def _run_tools(client: VerdictClient, tools: Sequence[DemoTool]) -> list[Row]:
    rows = []
    for tool in tools:
        arguments = dict(tool.arguments)
        if tool.name == "slow_echo":
            arguments["seconds"] = _QUICK_SLOW
        outcome = await client.call_tool(tool.name, arguments)
        if tool.name == "create_note" and outcome.content_check and outcome.content_check.passed:
            note = (outcome.verdict.structured_content or {}).get("id")
            outcome = await client.observe(outcome, Observe.tool_call(
                "get_note", {"id": note}, until=_found, attempts=8, interval=0.05, timeout=5))
        record = next((r for r in reversed(client.history) if r.name == tool.name), None)
        first = record.rounds[0] if record and record.rounds else None
        naive = naive_conclusion(first.response if first else None)
        kind, action, expected_naive = _expectation(tool)
        rows.append(Row(tool.name, tool.produces, outcome, naive, kind, action, expected_naive))
    return rows


async def _demo(http: bool, stderr: list[str]) -> list[Row]:
    regular = [t for t in CATALOGUE if t.name not in ("hang_up", "get_note")]
    hang_up = [t for t in CATALOGUE if t.name == "hang_up"]

    def client_for(target: str | None, **options: Any) -> VerdictClient:
        return (VerdictClient.http(target, **options) if target is not None
                else VerdictClient.stdio(stdio_command(), **options))

    async def session(target: str | None, tools: Sequence[DemoTool], **options: Any) -> list[Row]:
        client = client_for(target, **options)
        try:
            async with client:
                return await _run_tools(client, tools)
        finally:
            stderr.extend(client.server_stderr.text().splitlines())

    async def timeout_row(target: str | None) -> list[Row]:
        """slow_echo again, with a client that gives up first: no response, effect unknown."""
        client = client_for(target, timeout=_QUICK_SLOW / 2, connect_timeout=10)
        try:
            async with client:
                outcome = await client.call_tool("slow_echo", {"text": "hello", "seconds": _QUICK_SLOW * 2})
        finally:
            stderr.extend(client.server_stderr.text().splitlines())
        return [Row("slow_echo (timeout)", f"the client times out after {_QUICK_SLOW / 2:g} s", outcome,
                    "no_response", Kind.UNCLASSIFIED, Action.CHECK_STATE, "no_response")]

    if http:
        async with serve_http() as url:
            rows = await session(url, regular, handlers=HANDLERS, tasks=True, timeout=5)
            rows += await timeout_row(url)
            rows += await session(url, hang_up, timeout=5)
    else:
        rows = await session(None, regular, handlers=HANDLERS, tasks=True, timeout=5)
        rows += await timeout_row(None)
        rows += await session(None, hang_up, timeout=5)  # the stdio server exits: its own process
    return rows


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name} {record.levelname}: {record.getMessage()}")
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            self.lines.append(f"  {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")


@contextmanager
def _captured_logs() -> Iterator[list[str]]:
    """Every log record (the SDK's, uvicorn's, the in-process server's) kept, not printed."""
    keep = _Keep()
    root = logging.getLogger()
    saved = root.level, root.handlers[:]
    root.handlers[:] = [keep]
    root.setLevel(logging.WARNING)
    try:
        yield keep.lines
    finally:
        root.handlers[:] = saved[1]
        root.setLevel(saved[0])


# --- the layout -----------------------------------------------------------------------------


def _verdict(row: Row) -> Text:
    kind = row.outcome.verdict.kind
    return Text(kind.value, style=_STYLE[kind])


def _decision(row: Row) -> Text:
    text = Text(row.outcome.decision.action.value, style="bold")
    if not row.ok:
        text.append(" (unexpected)", style="red")
    return text


def _naive(row: Row) -> Text:
    return Text(_NAIVE.get(row.naive, row.naive), style="red" if row.misled else "")


def render(console: Console, rows: Sequence[Row], transport: str) -> None:
    """Print the rows at the console's width; peer text (tool names, descriptions) literal."""
    width = console.width
    console.print(Text.assemble(("mcp-verdict demo", "bold"), f" over {transport}: each call through VerdictClient, "
                                'beside a naive receiver ("result" in response means success)'))
    if width >= max(_TABLE_WIDTH, _line_width(rows) + max(len(r.why) for r in rows) + 60):
        _table(console, rows)
    elif width >= _line_width(rows):
        _lines(console, rows)
    else:
        _blocks(console, rows)
    wrong = sum(r.misled for r in rows)
    console.print(Text.assemble("A naive receiver called ", (str(wrong), "bold"), f" of {len(rows)} calls a success "
                                "that mcp-verdict does not accept."))


def _table(console: Console, rows: Sequence[Row]) -> None:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("tool", no_wrap=True)
    table.add_column("built to produce", overflow="fold", ratio=1)
    table.add_column("verdict", no_wrap=True)
    table.add_column("finding", no_wrap=True)
    table.add_column("decision", no_wrap=True)
    table.add_column('"result" in response', no_wrap=True)
    for row in rows:
        table.add_row(literal(row.tool), literal(row.produces, "dim"), _verdict(row), literal(row.why),
                      _decision(row), _naive(row))
    console.print(table)


_HEADS: Final = ("tool", "verdict", "decision", "naive receiver")


def _widths(rows: Sequence[Row]) -> list[int]:
    cells = [(r.tool, r.outcome.verdict.kind.value, _decision(r).plain, _NAIVE.get(r.naive, r.naive)) for r in rows]
    return [max([len(head)] + [len(c[i]) for c in cells]) for i, head in enumerate(_HEADS)]


def _line_width(rows: Sequence[Row]) -> int:
    return sum(_widths(rows)) + 2 * (len(_HEADS) - 1)


def _lines(console: Console, rows: Sequence[Row]) -> None:
    """Two lines a call: the tool, verdict, decision and naive conclusion in columns, then the
    finding and the description, indented, wrapping."""
    widths = _widths(rows)
    head = Text("  ".join(h.ljust(w) for h, w in zip(_HEADS, widths, strict=True)).rstrip(), style="bold")
    console.print(head)
    for row in rows:
        line = Text()
        for cell, size in zip((literal(row.tool), _verdict(row), _decision(row), _naive(row)), widths, strict=True):
            cell.pad_right(size - cell.cell_len)
            line.append_text(cell)
            line.append("  ")
        line.rstrip()
        console.print(line)
        _print_detail(console, row)


def _print_detail(console: Console, row: Row) -> None:
    """The finding and the description, indented by two columns, wrapping under themselves."""
    detail = Text(overflow="fold")
    if row.why:
        detail.append(row.why, style="bold")
        detail.append(": ")
    detail.append_text(literal(row.produces, "dim"))
    for line in detail.wrap(console, max(console.width - 2, 10)):
        line.rstrip()
        console.print(Text.assemble("  ", line), overflow="fold")


def _blocks(console: Console, rows: Sequence[Row]) -> None:
    """Narrow terminals: a block a call, every value on its own line."""
    for row in rows:
        console.print(literal(row.tool, "bold"))
        for label, value in (("verdict", _verdict(row)), ("decision", _decision(row)), ("naive", _naive(row))):
            console.print(Text.assemble(f"  {label:<9}", value), overflow="fold")
        _print_detail(console, row)


@click.command("demo")
@click.option("--http", is_flag=True, help="Use Streamable HTTP on 127.0.0.1 instead of stdio.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("-v", "--verbose", is_flag=True, help="Also show the logs and the server's stderr (on stderr).")
def demo_command(http: bool, as_json: bool, verbose: bool) -> None:
    """Run every tool of the embedded fault-injecting server and compare with a naive receiver."""
    stderr: list[str] = []
    with _captured_logs() as logs:
        rows = anyio.run(_demo, http, stderr)
    if as_json:
        echo_json([{"tool": r.tool, "produces": r.produces, "verdict": r.outcome.verdict.kind.value,
                    "findings": [f.code for f in r.outcome.verdict.findings], "why": r.why,
                    "decision": r.outcome.decision.action.value, "naive": r.naive, "ok": r.ok} for r in rows],
                  indent=2)
    else:
        render(make_console(highlight=False), rows, "Streamable HTTP" if http else "stdio")
    if verbose:
        errors = make_console(stderr=True, highlight=False)
        for title, lines in (("logs", logs), ("the demo server's stderr", stderr)):
            errors.print(f"[dim]{title}: {len(lines)} line(s)[/]")
            for line in lines:
                errors.print(Text.assemble("  ", literal(line, "dim")))
    sys.exit(0 if all(r.ok for r in rows) else 1)
