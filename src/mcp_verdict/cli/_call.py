"""``mcp-verdict call`` and ``mcp-verdict tools``: the client from a terminal or a script.

Input requests are answered interactively in a terminal (form fields typed per the requested
schema, URL consent asked with the host shown, sampling answered by typing the reply), or from
an ``--answers`` file otherwise:

    {"form": {"<key>": {"name": "Ada"} | "decline" | "cancel", "*": ...},
     "url": {"<key>": true | false, "*": ...},
     "sampling": {"<key>": {CreateMessageResult}, "*": ...},
     "roots": [{"uri": "file:///...", "name": "..."}]}

Each section present declares that capability; ``*`` answers any key. 2025 servers, which ask
with server-to-client requests, are matched by ``*``. A form answer from the file that fails
the requested schema stops the call (exit 2, the problems shown): a file cannot be asked again.

Everything the server sent is printed literally (``_term``); ``--json`` prints the bytes as
they came (text, or base64 when they are not UTF-8).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NoReturn
from urllib.parse import urlsplit

import anyio
import click
from rich.console import Console
from rich.prompt import Confirm, Prompt
from rich.status import Status
from rich.table import Table
from rich.text import Text

from ..client._client import MODES, VerdictClient
from ..client._connect import CannotConnect
from ..client._handlers import AnswerRejected, ElicitAnswer, HandlerError, Handlers
from ..client._records import CallRecord
from ..judgement._outcome import Outcome
from ..verdict._classify import Limits, OptionError
from ..verdict._kind import Kind
from ..verdict._peer_text import neutral
from ..verdict._shown import shown
from ..verdict._verdict import ElicitationRequest, SamplingRequest, Verdict
from ._json import echo_json_pieces, json_head
from ._options import json_value, limits_option
from ._style import require_stdout
from ._term import (
    FINDINGS_SHOWN,
    findings_left_out,
    literal,
    literal_line,
    literal_path,
    make_console,
    markup_safe,
    neutral_logs,
    print_indented,
    print_whole,
)

EXIT_ACCEPT: Final = 0
EXIT_USAGE: Final = 2
EXIT_CONNECT: Final = 3
EXIT_CONTENT: Final = 21
"""normal_complete whose content check failed or whose completion was not observed."""
EXIT_BY_KIND: Final = {Kind.TASK: 10, Kind.INPUT_REQUIRED: 11, Kind.TOOL_ERROR: 12, Kind.PROTOCOL_ERROR: 13,
                       Kind.UNCLASSIFIED: 20, Kind.NORMAL_COMPLETE: EXIT_CONTENT}
_SHOWN: Final = 2000
"""Characters of tool content shown by ``call`` (the rest is in ``--json``)."""


class _Spinner:
    """A spinner for calls that take longer than a moment: it appears after ``delay`` seconds
    of waiting on the server, and steps aside while the user answers a prompt."""

    def __init__(self, console: Console, enabled: bool, delay: float = 0.4) -> None:
        self._status: Status | None = Status("calling…", console=console) if enabled else None
        self._delay = delay
        self._waiting = False
        self._prompting = False

    async def around(self, call: Callable[[], Awaitable[Outcome]]) -> Outcome:
        if self._status is None:
            return await call()
        result: list[Outcome] = []
        failed: list[Exception] = []
        async with anyio.create_task_group() as group:
            async def show_later() -> None:
                await anyio.sleep(self._delay)
                self._waiting = True
                self._refresh()

            group.start_soon(show_later)
            try:
                result.append(await call())
            except Exception as exc:  # raised as it is, not inside the task group's ExceptionGroup
                failed.append(exc)
            finally:
                group.cancel_scope.cancel()
                self._waiting = False
                self._refresh()
        if failed:
            raise failed[0]
        return result[0]

    def pause(self) -> None:
        self._prompting = True
        self._refresh()

    def resume(self) -> None:
        self._prompting = False
        self._refresh()

    def _refresh(self) -> None:
        if self._status is None:
            return
        if self._waiting and not self._prompting:
            self._status.start()
        else:
            self._status.stop()


def _interactive_handlers(console: Console, spinner: _Spinner) -> Handlers:
    async def form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
        spinner.pause()
        try:
            return await anyio.to_thread.run_sync(_ask_form, console, request, list(problems))
        except EOFError:  # Ctrl-D at a question: the user ends the form, which the server is told
            console.print("\n[dim]input ended: the elicitation is cancelled[/]")
            return ElicitAnswer("cancel")
        finally:
            spinner.resume()

    async def url(request: ElicitationRequest) -> bool:
        spinner.pause()
        try:
            host = urlsplit(request.url or "").hostname or "?"
            console.print(Text.assemble(("The server asks you to open a URL", "bold"), " (host ",
                                        literal(host, "bold"), "): ", literal(request.message)))
            console.print(Text.assemble("  ", literal(request.url or "")))
            console.print("  [dim]mcp-verdict never opens it for you.[/]")
            return bool(await anyio.to_thread.run_sync(lambda: Confirm.ask("Consent?", console=console)))
        except EOFError:  # Ctrl-D: no consent
            console.print("\n[dim]input ended: no consent[/]")
            return False
        finally:
            spinner.resume()

    async def sampling(request: SamplingRequest) -> Mapping[str, Any]:
        spinner.pause()
        try:
            console.print("[bold]The server asks for a model reply[/] to:")
            for message in request.messages:
                content = message.get("content")
                text = content.get("text") if isinstance(content, dict) else content
                console.print(Text.assemble("  ", literal(str(message.get("role"))), ": ", literal(str(text))))
            try:
                reply = await anyio.to_thread.run_sync(lambda: Prompt.ask("reply", console=console))
            except EOFError:  # Ctrl-D: no reply to send
                console.print()
                raise HandlerError("input ended (Ctrl-D) before a reply was typed") from None
            return {"role": "assistant", "content": {"type": "text", "text": reply}, "model": "human",
                    "stopReason": "endTurn"}
        finally:
            spinner.resume()

    return Handlers(form=form, url=url, sampling=sampling)


def _ask_form(console: Console, request: ElicitationRequest, problems: list[str]) -> ElicitAnswer:
    console.print(Text.assemble(("The server asks:", "bold"), " ", literal(request.message)))
    for problem in problems:
        console.print(Text.assemble("  ", literal(problem, "red")))
    choice = Prompt.ask("accept, decline or cancel", choices=["accept", "decline", "cancel"], default="accept",
                        console=console)
    if choice != "accept":
        return ElicitAnswer(choice)  # type: ignore[arg-type]
    schema = request.requested_schema or {}
    required = set(schema.get("required") or [])
    content: dict[str, Any] = {}
    for name, definition in (schema.get("properties") or {}).items():
        prop = definition if isinstance(definition, dict) else {}
        label = markup_safe(f"{prop.get('title') or name}{'' if name in required else ' (optional)'}")
        default = prop.get("default")
        kind = prop.get("type")
        if kind == "boolean":
            content[name] = Confirm.ask(label, default=bool(default), console=console)
            continue
        options = prop.get("enum") or [o.get("const") for o in prop.get("oneOf") or [] if isinstance(o, dict)]
        # peer text in the prompt is shown neutralised; the reply is mapped back to what the server sent
        shown: dict[str, str] = {}
        for option in options:
            shown.setdefault(neutral(str(option)), str(option))
        shown_default = None if default is None else neutral(str(default))
        reply = Prompt.ask(label, choices=list(shown) or None, default=shown_default, console=console)
        text: str | None = reply
        if reply is not None and reply in shown:
            text = shown[reply]
        elif default is not None and reply == shown_default:
            text = str(default)
        if not text and name not in required:
            continue
        if kind == "integer":
            content[name] = _number(text, int)
        elif kind == "number":
            content[name] = _number(text, float)
        else:
            content[name] = text
    return ElicitAnswer.accept(content)


def _number(text: str | None, kind: type) -> Any:
    try:
        return kind(text)
    except (TypeError, ValueError):
        return text  # the schema check reports it and the question is asked again


ANSWERS_MAX_BYTES: Final = 1 << 20
"""The largest ``--answers`` file read: one small JSON object (a device or a file of gigabytes was
read whole, until the kernel killed the process)."""


def _answers_problem(answers: dict[str, Any]) -> str | None:
    """What is wrong with the sections of an ``--answers`` object, said before the tool is called
    (a section of another shape was a TypeError from the handler once the server asked, the tool
    already called): ``form``, ``url`` and ``sampling`` are objects of answers by key, each a form
    answer (an object, "decline" or "cancel"), a consent (true or false) or a reply (an object);
    ``roots`` is a list of roots, each an object with a string ``uri``."""
    expected = {"form": 'an object, "decline" or "cancel"', "url": "true or false",
                "sampling": "an object (the model's reply)"}
    for section, answer_is in expected.items():
        table = answers.get(section, {})
        if not isinstance(table, dict):
            return f'the "{section}" section is an object of answers by key ("*": any key), not {shown(table, 60)}'
        for key, answer in table.items():
            fits = (isinstance(answer, dict) or answer in ("decline", "cancel") if section == "form"
                    else isinstance(answer, bool) if section == "url" else isinstance(answer, dict))
            if not fits:
                return f"the {section} answer for {shown(key, 60)} is {answer_is}, not {shown(answer, 60)}"
    roots = answers.get("roots", [])
    if not isinstance(roots, list):
        return f'the "roots" section is a list of roots, not {shown(roots, 60)}'
    for root in roots:
        if not isinstance(root, dict) or not isinstance(root.get("uri"), str):
            return f'each root is an object with a string "uri", not {shown(root, 60)}'
    return None


def _file_handlers(path: Path) -> Handlers:
    try:
        with path.open("rb") as file:
            data = file.read(ANSWERS_MAX_BYTES + 1)
    except OSError as exc:
        raise click.BadParameter(f"cannot read answers: {exc.strerror or exc}", param_hint="--answers") from None
    if len(data) > ANSWERS_MAX_BYTES:
        raise click.BadParameter("cannot read answers: larger than 1 MiB; an answers file is one small JSON object",
                                 param_hint="--answers")
    try:
        text = data.decode("utf-8")
    except ValueError as exc:
        raise click.BadParameter(f"cannot read answers: {exc}", param_hint="--answers") from None
    answers = json_value(text, "--answers")
    if not isinstance(answers, dict) or set(answers) - {"form", "url", "sampling", "roots"}:
        raise click.BadParameter('answers is an object with "form", "url", "sampling" and "roots" sections',
                                 param_hint="--answers")
    problem = _answers_problem(answers)
    if problem is not None:
        raise click.BadParameter(neutral(problem), param_hint="--answers")

    def pick(section: str, key: str) -> Any:
        table = answers[section]
        if key in table:
            return table[key]
        if "*" in table:
            return table["*"]
        raise HandlerError(f"no {section} answer for {key!r} in {path}")

    async def form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
        if problems:  # a file cannot be asked again: stop, and say why
            raise AnswerRejected(request.key or "*", problems)
        answer = pick("form", request.key)
        if answer in ("decline", "cancel"):
            return ElicitAnswer(answer)
        if not isinstance(answer, dict):
            raise AnswerRejected(request.key or "*", [f"the answer is {answer!r}, not an object, "
                                                      '"decline" or "cancel"'])
        return ElicitAnswer.accept(answer)

    async def url(request: ElicitationRequest) -> bool:
        return pick("url", request.key) is True

    async def sampling(request: SamplingRequest) -> Mapping[str, Any]:
        result: Mapping[str, Any] = pick("sampling", request.key)
        return result

    async def roots() -> Sequence[Mapping[str, Any]]:
        listed: Sequence[Mapping[str, Any]] = answers["roots"]
        return listed

    return Handlers(form=form if "form" in answers else None, url=url if "url" in answers else None,
                    sampling=sampling if "sampling" in answers else None,
                    roots=roots if "roots" in answers else None)


_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_FIELD_VALUE: Final = re.compile(r"[\t\x20-\x7e\x80-\xff]*")


def _client(stdio: str | None, url: str | None, headers: Sequence[str], **options: Any) -> VerdictClient:
    if (stdio is None) == (url is None):
        raise click.UsageError("give exactly one of --stdio CMD and --url URL")
    parsed: dict[str, str] = {}
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep:
            raise click.BadParameter(f"{header!r} is not NAME: VALUE", param_hint="--header")
        name, value = name.strip(), value.strip()
        if not _TOKEN.fullmatch(name):
            raise click.BadParameter(f"{header!r}: a header name is letters, digits and !#$%&'*+-.^_`|~ "
                                     "(RFC 9110 s5.1)", param_hint="--header")
        if not _FIELD_VALUE.fullmatch(value):
            raise click.BadParameter(f"{header!r}: a header value is visible ASCII, spaces and tabs, or Latin-1 "
                                     "(RFC 9110 s5.5): no line breaks or control characters", param_hint="--header")
        parsed[name] = value
    try:
        if stdio is not None:
            return VerdictClient.stdio(stdio, **options)
        assert url is not None
        return VerdictClient.http(url, headers=parsed, **options)
    except ValueError as exc:  # an empty command, an unbalanced quote
        raise click.UsageError(str(exc)) from None


class _Seconds(click.FloatRange):
    """A positive, finite number of seconds: click's range lets ``nan`` and ``inf`` through (no
    comparison refuses them), which the client then refused in words that do not name the option."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value} is not a finite number of seconds", param, ctx)
        return seconds


_server_options = [
    click.option("--stdio", "stdio", metavar="CMD", help='Spawn the server: --stdio "python server.py".'),
    click.option("--url", "url", metavar="URL", help="A Streamable HTTP endpoint."),
    click.option("--header", "headers", multiple=True, metavar="NAME: VALUE", help="An HTTP header (repeatable)."),
    click.option("--timeout", type=_Seconds(min=0, min_open=True), default=30.0, show_default=True,
                 help="Seconds per request, and per step of connecting."),
    click.option("--mode", type=click.Choice(MODES), default="auto", show_default=True,
                 help="auto: server/discover, falling back to initialize; modern: server/discover only; "
                      "legacy: initialize only."),
]


def _with_server_options(function: Any) -> Any:
    for option in reversed(_server_options):
        function = option(function)
    return limits_option(function)


@click.command("call")
@_with_server_options
@click.argument("tool")
@click.argument("arguments", default="{}")
@click.option("--answers", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Answers to input requests (JSON; see the docs). Without it, a terminal asks you.")
@click.option("--tasks", is_flag=True, help="Declare the tasks extension (2026-07-28) or send task-augmented "
                                            "calls (2025-11-25), and follow task handles.")
@click.option("--trusted", is_flag=True, help="Trust the server's tool annotations (retry decisions).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("-v", "--verbose", is_flag=True, help="Show every round and the server's stderr.")
def call_command(stdio: str | None, url: str | None, headers: Sequence[str], timeout: float, mode: Any,
                 max_bytes: int, max_depth: int, tool: str, arguments: str, answers: Path | None, tasks: bool,
                 trusted: bool, as_json: bool, verbose: bool) -> None:
    """Call TOOL with ARGUMENTS (a JSON object) and print its verdict, content check and decision.

    Exit status: 0 accepted; 21 normal_complete whose content check failed; 10 task,
    11 input_required (unfulfilled), 12 tool_error, 13 protocol_error, 20 unclassified
    (transport failures included); 3 cannot connect; 2 usage error (an answer from
    --answers that fails the requested schema included).
    """
    parsed = json_value(arguments, "ARGUMENTS")
    if not isinstance(parsed, dict):
        raise click.BadParameter("tool arguments are a JSON object", param_hint="ARGUMENTS")
    require_stdout()  # the tool is never called when its verdict could not be written
    console = make_console(stderr=as_json, highlight=False)
    errors = make_console(stderr=True, highlight=False)
    spinner = _Spinner(console, enabled=console.is_terminal and not as_json)
    if answers is not None:
        handlers = _file_handlers(answers)
    elif sys.stdin.isatty() and console.is_terminal:
        handlers = _interactive_handlers(console, spinner)
    else:
        handlers = Handlers()
    client = _client(stdio, url, headers, handlers=handlers, timeout=timeout, tasks=tasks, trusted_server=trusted,
                     mode=mode, limits=Limits(max_bytes=max_bytes, max_depth=max_depth))

    async def run() -> Outcome:
        async with client:
            return await spinner.around(lambda: client.call_tool(tool, parsed))

    try:
        outcome = _connect(errors, client, run, verbose=verbose)
    except HandlerError as exc:
        _handler_failed(errors, exc)
    except OptionError as exc:  # TOOL or ARGUMENTS no tool call can carry (a lone surrogate, 201 deep): none sent
        raise click.BadParameter(str(exc), param_hint="TOOL" if exc.option == "name" else "ARGUMENTS") from None
    record = client.history[-1] if client.history else None
    if as_json:
        data = outcome.to_dict(payload=True)
        data["version"] = outcome.verdict.version
        data["warnings"] = list(client.warnings)
        # (the bytes as they are, written a piece at a time: a cut answer of max_bytes is in the
        # output twice, its round's response and its frame's data, and json.dumps made several
        # whole copies of each: 16 MB added ~7x)
        data["rounds"] = [r.to_dict(raw_bytes=True) for r in (record.rounds if record else [])]
        data["polls_shed"] = record.polls_shed if record else 0
        echo_json_pieces(data, default=str)
    else:
        print_outcome(console, outcome, record, client.warnings, verbose=verbose)
        if verbose and client.server_stderr.data:
            _print_stderr(console, client.server_stderr.text().splitlines()[-20:])
    sys.exit(exit_status(outcome))


def _handler_failed(console: Console, exc: HandlerError) -> NoReturn:
    if isinstance(exc, AnswerRejected):
        console.print(Text.assemble(("mcp-verdict: ", "red"), "the answer for ", literal(repr(exc.key)),
                                    " in --answers does not fit the requested schema:"))
        for problem in exc.problems:
            console.print(Text.assemble("  ", literal(problem)))
    else:
        console.print(Text.assemble(("mcp-verdict: ", "red"), literal(str(exc))))
    sys.exit(EXIT_USAGE)


@click.command("tools")
@_with_server_options
@click.option("--json", "as_json", is_flag=True, help="Print the tools as the server sent them (JSON).")
def tools_command(stdio: str | None, url: str | None, headers: Sequence[str], timeout: float, mode: Any,
                  max_bytes: int, max_depth: int, as_json: bool) -> None:
    """List the server's tools with their annotations and schemas."""
    console = make_console(highlight=False)
    client = _client(stdio, url, headers, timeout=timeout, mode=mode,
                     limits=Limits(max_bytes=max_bytes, max_depth=max_depth))

    async def run() -> tuple[str, list[dict[str, Any]]]:
        async with client:
            return client.version, await client.list_tools()

    version, tools = _connect(make_console(stderr=True, highlight=False), client, run)
    if as_json:
        # (written a piece at a time, the same text as echo_json: built whole, a listing's output
        # was held as one str, escaped into another where it holds a character past ASCII, and
        # encoded into bytes, beside the listing itself)
        echo_json_pieces({"version": version, "tools": tools, "warnings": client.warnings})
        return
    print_tools(console, tools, version)
    _print_warnings(console, client.warnings)


_TABLE_FRAME: Final = 5 + 4 * 2
"""The tools table's borders and cell padding (four columns)."""
_TABLE_READABLE: Final = len("annotations") + len("arguments") + len("outputSchema")
"""The least the table's other columns need: a mark (``destructive``) or a header unbroken."""


def _tool_row(tool: Mapping[str, Any]) -> tuple[str, str, str, bool]:
    """A listed tool as (name, annotation marks, arguments, has an outputSchema); the name and
    the arguments are the server's text, neutralised."""
    hints = tool.get("annotations")
    hints = hints if isinstance(hints, dict) else {}
    marks = [name for key, name in (("readOnlyHint", "read-only"), ("idempotentHint", "idempotent"),
                                    ("destructiveHint", "destructive"), ("openWorldHint", "open-world"))
             if hints.get(key) is True]
    schema = tool.get("inputSchema")
    schema = schema if isinstance(schema, dict) else {}
    required = schema.get("required")
    required = {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    args = ", ".join(f"{name}{'' if name in required else '?'}: "
                     f"{(prop if isinstance(prop, dict) else {}).get('type', 'any')}"
                     for name, prop in properties.items())
    return neutral(str(tool["name"])), ", ".join(marks), neutral(args), "outputSchema" in tool


def print_tools(console: Console, tools: Sequence[Mapping[str, Any]], version: str) -> None:
    """The tools as a table when the console is wide enough for it with every name on one line;
    else one tool after the other, its name on lines of its own (folded only where the name
    alone is wider than the console), its annotations, arguments and output below. Nothing is
    cut: a user sees which tools exist at any width."""
    from rich.cells import cell_len

    rows = [_tool_row(tool) for tool in tools]
    title = f"{len(rows)} tool(s), protocol {version}"
    widest = max([len("tool"), *(cell_len(name) for name, _, _, _ in rows)])
    if widest + _TABLE_FRAME + _TABLE_READABLE <= console.width:
        table = Table(title=title)
        table.add_column("tool", no_wrap=True, min_width=widest)
        table.add_column("annotations", overflow="fold")
        table.add_column("arguments", overflow="fold")
        table.add_column("output", no_wrap=True)
        for name, marks, args, output in rows:
            table.add_row(Text(name), marks, Text(args, overflow="fold"), "outputSchema" if output else "")
        console.print(table)
        return
    console.print(Text(title, style="italic", overflow="fold"))
    for name, marks, args, output in rows:
        print_whole(console, name, "bold")
        details = "; ".join(part for part in (marks, f"arguments {args}" if args else "",
                                              "outputSchema" if output else "") if part)
        if details:
            print_indented(console, Text(details, overflow="fold"))


def _connect(console: Console, client: VerdictClient, run: Any, *, verbose: bool = False) -> Any:
    try:
        with neutral_logs(verbose=verbose):
            return anyio.run(run)
    except CannotConnect as exc:
        # one line: a line break in the command or in the server's error message shown as its escape
        line = str(exc).replace("\r", "\\r").replace("\n", "\\n")
        console.print(Text.assemble(("mcp-verdict: ", "red"), literal(line)), soft_wrap=True)
        if exc.stderr and (exc.cause != "exited" or len(exc.stderr) > 1):
            _print_stderr(console, list(exc.stderr))
        sys.exit(EXIT_CONNECT)


def _print_stderr(console: Console, lines: Sequence[str]) -> None:
    console.print("[dim]the server's stderr ends:[/]")
    for line in lines:
        console.print(Text.assemble("  ", literal(line, "dim")))


def _print_warnings(console: Console, warnings: Sequence[str]) -> None:
    for warning in warnings:
        console.print(Text.assemble(("warning ", "yellow"), literal_line(warning)))


def exit_status(outcome: Outcome) -> int:
    if outcome.succeeded:
        return EXIT_ACCEPT
    return EXIT_BY_KIND[outcome.verdict.kind]


def _findings(console: Console, verdict: Verdict) -> None:
    for item in verdict.findings[:FINDINGS_SHOWN]:
        console.print(Text.assemble("          ", (item.severity, "dim"), " ", (item.code, "bold"), " at ",
                                    literal_path(item.path), ": ", literal_line(item.message)))
    _left_out(console, len(verdict.findings))


def _left_out(console: Console, count: int) -> None:
    left_out = findings_left_out(count)
    if left_out is not None:
        console.print(Text.assemble("          ", (left_out, "dim")))


def _cut(text: str, size: int | None = None) -> str:
    """The first ``_SHOWN`` characters of a tool's content, and how many more there are (``size``:
    the length of the whole when ``text`` is its start)."""
    size = len(text) if size is None else size
    return text[:_SHOWN] + (f"… ({size - _SHOWN} more characters: see --json)" if size > _SHOWN else "")


def print_outcome(console: Console, outcome: Outcome, record: CallRecord | None, warnings: Sequence[str] = (), *,
                  verbose: bool = False) -> None:
    """The verdict, its findings, the content, the content check and the decision; peer text
    printed literally, nothing that decides cut short."""
    verdict = outcome.verdict
    rounds = record.rounds if record else []
    console.print(Text.assemble("verdict   ", (verdict.kind.value, "bold"),
                                f"  (protocol {verdict.version}, {len(rounds)} round(s))"))
    _findings(console, verdict)
    if verbose or len(rounds) > 1:
        for number, round_ in enumerate(rounds, 1):
            status = Text.assemble(" (", literal_line(round_.status), ")") if round_.status else ""
            console.print(Text.assemble(f"  round {number}  ", literal_line(round_.method), "  ",
                                        (round_.kind, "bold"), status))
        if record is not None and record.polls_shed:
            console.print(f"  ({record.polls_shed} more task polls of the running task not kept: the first "
                          "and the latest are)")
    if verdict.kind in (Kind.NORMAL_COMPLETE, Kind.TOOL_ERROR):
        text = verdict.text
        if text:
            console.print(Text.assemble("content   ", literal(_cut(text))))
        if verdict.has_structured_content:  # (its first characters as JSON: the whole text never made)
            head, size = json_head(verdict.structured_content, _SHOWN)
            console.print(Text.assemble("structured ", literal(_cut(head, size))))
    if verdict.kind is Kind.PROTOCOL_ERROR:
        console.print(Text.assemble("error     ", (str(verdict.error_code), "bold"), ": ",
                                    literal_line(str(verdict.error_message))))
    check = outcome.content_check
    if check is not None:
        state = ("passed", "green") if check.passed else ("failed", "red")
        console.print(Text.assemble("content check ", state, "" if check.schema_checked else " (no outputSchema)"))
        for item in check.findings[:FINDINGS_SHOWN]:
            console.print(Text.assemble("          ", (item.code, "bold"), " at ", literal_path(item.path), ": ",
                                        literal_line(item.message)))
        _left_out(console, len(check.findings))
    decision = outcome.decision
    console.print(Text.assemble("decision  ", (decision.action.value, "bold"), ": ", literal_line(decision.reason)))
    _print_warnings(console, warnings)
