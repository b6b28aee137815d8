"""``mcp-verdict demo``: every demo tool through VerdictClient, side by side with a naive receiver.

Starts the embedded fault-injecting server (stdio by default, ``--http`` for Streamable HTTP on
127.0.0.1), calls each tool with scripted answers to its input requests, observes the write
through the read tool, and prints one table: the tool, what it is built to produce, the
verdict, the decision, and what a receiver that calls a response successful when ``"result" in
response`` would have concluded. Exit 0 when every row is what the catalogue says by hand.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import click
from rich.console import Console
from rich.table import Table

from ..client import ElicitAnswer, Handlers, VerdictClient
from ..demo import CATALOGUE, naive_conclusion, serve_http, stdio_command
from ..demo._catalogue import DemoTool
from ..judgement._decide import Action
from ..judgement._outcome import Observe, Outcome
from ..verdict._kind import Kind
from ..verdict._verdict import ElicitationRequest, SamplingRequest, Verdict

_QUICK_SLOW = 1.0
"""slow_echo's delay in the demo (seconds), and the shorter client timeout that cuts it off."""


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


async def _demo(http: bool) -> list[Row]:
    regular = [t for t in CATALOGUE if t.name not in ("hang_up", "get_note")]
    hang_up = [t for t in CATALOGUE if t.name == "hang_up"]

    async def session(target: str | None, tools: Sequence[DemoTool], **options: Any) -> list[Row]:
        client = (VerdictClient.http(target, **options) if target is not None
                  else VerdictClient.stdio(stdio_command(), **options))
        async with client:
            return await _run_tools(client, tools)

    if http:
        async with serve_http() as url:
            rows = await session(url, regular, handlers=HANDLERS, tasks=True, timeout=5)
            rows += await _timeout_row(url)
            rows += await session(url, hang_up, timeout=5)
    else:
        rows = await session(None, regular, handlers=HANDLERS, tasks=True, timeout=5)
        rows += await _timeout_row(None)
        rows += await session(None, hang_up, timeout=5)  # the stdio server exits: its own process
    return rows


async def _timeout_row(url: str | None) -> list[Row]:
    """slow_echo again, with a client that gives up first: no response, effect unknown."""
    options: dict[str, Any] = {"timeout": _QUICK_SLOW / 2}
    client = VerdictClient.http(url, **options) if url is not None else VerdictClient.stdio(stdio_command(), **options)
    async with client:
        outcome = await client.call_tool("slow_echo", {"text": "hello", "seconds": _QUICK_SLOW * 2})
    return [Row("slow_echo (timeout)", f"the client times out after {_QUICK_SLOW / 2:g} s", outcome,
                "no_response", Kind.UNCLASSIFIED, Action.CHECK_STATE, "no_response")]


_NAIVE = {"success": "[red]success[/]", "failure": "failure", "crash": "[red]crash[/]",
          "no_response": "no response"}


@click.command("demo")
@click.option("--http", is_flag=True, help="Use Streamable HTTP on 127.0.0.1 instead of stdio.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def demo_command(http: bool, as_json: bool) -> None:
    """Run every tool of the embedded fault-injecting server and compare with a naive receiver."""
    rows = anyio.run(_demo, http)
    if as_json:
        click.echo(json.dumps([{"tool": r.tool, "produces": r.produces, "verdict": r.outcome.verdict.kind.value,
                                "findings": [f.code for f in r.outcome.verdict.findings],
                                "decision": r.outcome.decision.action.value, "naive": r.naive, "ok": r.ok}
                               for r in rows], indent=2))
    else:
        console = Console(highlight=False)
        table = Table(title=f"mcp-verdict demo over {'Streamable HTTP' if http else 'stdio'}: "
                            "what each call produced, and what a naive receiver concluded")
        for column in ("tool", "built to produce", "verdict", "decision", '"result" in response'):
            table.add_column(column)
        for row in rows:
            verdict = row.outcome.verdict
            why = f" ({verdict.findings[0].code})" if verdict.kind is Kind.UNCLASSIFIED and verdict.findings else ""
            mark = "" if row.ok else " [red](unexpected)[/]"
            table.add_row(row.tool, row.produces, f"{verdict.kind.value}{why}",
                          f"{row.outcome.decision.action.value}{mark}", _NAIVE.get(row.naive, row.naive))
        console.print(table)
        wrong = sum(r.naive == "success" and r.outcome.decision.action is not Action.ACCEPT for r in rows)
        console.print(f"A naive receiver called {wrong} of {len(rows)} calls a success that mcp-verdict does not "
                      "accept.")
    sys.exit(0 if all(r.ok for r in rows) else 1)
