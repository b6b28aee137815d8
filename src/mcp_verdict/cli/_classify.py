"""``mcp-verdict classify``: one response, or JSON Lines of them, from a file or stdin."""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

import click
import jiter

from ..verdict._classify import Limits, classify
from ..verdict._kind import Kind
from ..verdict._peer_text import one_line
from ..verdict._verdict import Verdict
from ..verdict._versions import LATEST_VERSION, VERSIONS
from ._json import echo_json
from ._options import json_value, limits_option
from ._style import _STYLE, EXIT_CODES

if TYPE_CHECKING:
    from rich.console import Console


def _request_id(value: str | None) -> str | int | None:
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except RecursionError:  # nested too deep to be a string or an integer
        parsed = None
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


_BLANK: Final = b" \t\r\n"
"""JSON's whitespace (RFC 8259 s2): a line of nothing else is blank, no response. (Python's own
``bytes.strip`` also takes VT and FF for blanks: a line of them is not JSON, and is judged.)"""


def _lines_of(data: bytes, size: int | None = None) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of ``data`` (of its first ``size`` bytes when given; a CR before the LF
    dropped), each with its line number, one at a time: a list of them would hold an object per
    line (tens of them per byte of a file of short lines)."""
    start, number = 0, 0
    size = len(data) if size is None else size
    while start <= size:
        end = data.find(b"\n", start, size)
        if end < 0:
            end = size
        number += 1
        line = data[start:end]
        if line.strip(_BLANK):
            yield number, line.removesuffix(b"\r")
        start = end + 1


def _last_line(data: bytes) -> int:
    """The number of the last non-blank line of ``data`` (0 when there is none)."""
    kept = data.rstrip(_BLANK)
    return kept.count(b"\n") + 1 if kept else 0


def _messages(data: bytes, mode: str) -> Iterable[tuple[int | None, bytes]]:
    """The responses in ``data``, each with its line number (None: the whole input is one).

    ``auto``: one response when the whole input reads as one JSON value (a pretty-printed
    response included); otherwise JSON Lines when at least two lines hold text and one of them
    reads as a JSON value by itself — then every line is classified where it is, a bad one
    included; otherwise one response (whose verdict says what is wrong with it)."""
    if mode == "lines":
        return _lines_of(data)
    if mode == "single" or len(list(itertools.islice(_lines_of(data), 2))) < 2 or _one_value(data):
        return [(None, data)]
    if any(_one_value(line) for _, line in _lines_of(data)):
        return _lines_of(data)
    return [(None, data)]


def _lines_begin(data: bytes) -> bool:
    """An input too long to be one response begins as JSON Lines: two lines at least, and one of
    its complete lines (those before its last LF: the line after it may be cut) reads as a JSON
    value by itself. The lines are read one at a time, as :func:`_lines_of` says why."""
    last = data.rfind(b"\n")
    return last >= 0 and any(_one_value(line) for _, line in _lines_of(data, last))


def _stream_lines(file: Any, first: bytes, limit: int) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of ``first`` and the rest of ``file``, numbered from 1, read in
    chunks: a line longer than ``limit`` is handed out as its first ``limit + 1`` bytes (its
    verdict says json.too_large) and the rest of it skipped."""
    buffer = bytearray(first)
    number = 0
    skipping = False  # the rest of a line already handed out cut
    while True:
        cut = buffer.find(b"\n")
        if cut >= 0:
            line = bytes(buffer[:cut]).removesuffix(b"\r")
            del buffer[: cut + 1]
            if skipping:
                skipping = False
                continue
            number += 1
            if line.strip(_BLANK):
                yield number, line
            continue
        if skipping:
            buffer.clear()
        elif len(buffer) > limit:
            number += 1
            yield number, bytes(buffer[: limit + 1])
            skipping = True
            buffer.clear()
        chunk = _read(file, 65536, some=True)
        if not chunk:
            break
        buffer += chunk
    if buffer.strip(_BLANK) and not skipping:
        yield number + 1, bytes(buffer).removesuffix(b"\r")


class _Input(click.File):
    """FILE, or ``-`` for stdin: a closed stdin (a daemon's, ``<&-``) is a usage error saying so,
    where click raises a RuntimeError. A FILE that cannot be opened is named with its control,
    bidi and line-break characters as visible escapes: click writes the name as it is (a name made
    by someone else, ``for f in logs/*``, could clear the screen, reorder the line or start
    another), where its other messages write a name's ``repr``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except RuntimeError:
            if value != "-":
                raise
            self.fail("there is no standard input to read (it is closed): give FILE", param, ctx)
        except click.BadParameter as exc:
            self.fail(one_line(exc.message), param, ctx)


@click.command("classify")
@click.argument("file", type=_Input("rb"), default="-")
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
    13 protocol_error, 20 unclassified (the highest over all responses; also JSON Lines with
    no response, every line blank, as one empty response is), 2 usage error.
    """
    caps = None
    if capabilities is not None:
        caps = json_value(capabilities, "--capabilities", standard=False)
    options: dict[str, Any] = {
        "version": version, "request_id": _request_id(request_id), "extensions": tuple(extensions),
        "client_capabilities": caps, "absent_result_type": absent_result_type,
        "limits": Limits(max_bytes=max_bytes, max_depth=max_depth),
    }
    # Bounded reading: at most max_bytes + 1 bytes to judge the input whole (more is json.too_large
    # of them), JSON Lines streamed a line at a time, none held past max_bytes + 1; each verdict
    # printed as it is made, none kept.
    width = 0  # of the line numbers, known when the input is held whole
    if _is_terminal(file):  # `mcp-verdict classify` alone: say what it waits for, never wait in silence
        click.echo("mcp-verdict classify: reading a response from the terminal; end it with Ctrl-D "
                   "(or give FILE, or pipe it in)", err=True)
    data = _read(file, max_bytes + 1) if lines is not True else b""
    if lines is True or (lines is None and len(data) > max_bytes and _lines_begin(data)):
        messages: Iterable[tuple[int | None, bytes]] = _stream_lines(file, data, max_bytes)
    else:
        messages = _messages(data, "single" if lines is False or len(data) > max_bytes else "auto")
        width = 0 if isinstance(messages, list) else len(str(_last_line(data)))
    verdicts = ((number, classify(message, **options)) for number, message in messages)
    try:
        first = next(verdicts, None)  # the options are checked by the first call
    except ValueError as exc:  # a bad option, never a bad response
        raise click.UsageError(str(exc)) from None
    if first is None:  # JSON Lines, every line blank: nothing judged is no success (0)
        click.echo("mcp-verdict classify: no response in the input: every line is blank", err=True)
        sys.exit(EXIT_CODES[Kind.UNCLASSIFIED])
    status = 0
    console = None
    if not as_json:
        from ._term import make_console  # rich loads only to print to a terminal, not for --json

        console = make_console(highlight=False)
    for number, verdict in itertools.chain([first], verdicts):
        status = max(status, EXIT_CODES[verdict.kind])
        if console is None:
            out = verdict.to_dict()
            if number is not None:
                out["line"] = number
            echo_json(out)
        else:
            print_verdicts(console, [(number, verdict)], width=width)
    sys.exit(status)


def _is_terminal(file: Any) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _read(file: Any, size: int, *, some: bool = False) -> bytes:
    """Up to ``size`` bytes of ``file``; with ``some``, what is there once anything is (``read1``:
    JSON Lines from a pipe, ``tail -f``, are judged as they come, not once 64 KiB have). A read
    that fails (EIO, EISDIR...) is a usage error naming the file, never a traceback."""
    try:
        read = getattr(file, "read1", file.read) if some else file.read
        data: bytes = read(size)
    except OSError as exc:
        raise click.BadParameter(f"cannot read {click.format_filename(file.name)!r}: {exc.strerror or exc}",
                                 param_hint="FILE") from None
    return data


def print_verdicts(console: Console, verdicts: Sequence[tuple[int | None, Verdict]], *, width: int = 0) -> None:
    """Each verdict (with its line number in JSON Lines, right-aligned to ``width``) and its
    findings (the first ``FINDINGS_SHOWN``, then how many more); peer text literal."""
    from rich.text import Text

    from ._term import FINDINGS_SHOWN, findings_left_out, literal_line, literal_path

    for number, verdict in verdicts:
        prefix = f"line {number:>{width}}  " if number is not None else ""
        line = Text.assemble(prefix, (verdict.kind.value, _STYLE[verdict.kind]))
        summary = _summary(verdict)
        if summary:
            line.append("  ")
            line.append_text(literal_line(summary))
        console.print(line)
        for item in verdict.findings[:FINDINGS_SHOWN]:
            console.print(Text.assemble(" " * len(prefix), "  ", (item.severity, "dim"), " ", (item.code, "bold"),
                                        " at ", literal_path(item.path), ": ", literal_line(item.message)))
        left_out = findings_left_out(len(verdict.findings))
        if left_out is not None:
            console.print(Text.assemble(" " * len(prefix), "  ", (left_out, "dim")))


def _summary(verdict: Verdict) -> str:
    kind = verdict.kind
    if kind is Kind.PROTOCOL_ERROR:
        return f"code {verdict.error_code}: {verdict.error_message}"
    if kind in (Kind.TOOL_ERROR, Kind.NORMAL_COMPLETE):
        types = [block.type for block in verdict.content]
        extra = " + structuredContent" if verdict.has_structured_content else ""
        return f"{len(types)} block(s) {', '.join(types)}{extra}".replace("  ", " ").rstrip()
    if kind is Kind.INPUT_REQUIRED:
        asks = ", ".join(f"{key} ({req.method})" for key, req in verdict.input_requests.items())
        state = "" if verdict.request_state is None else " + requestState"
        return f"asks for {asks or 'nothing'}{state}"
    if kind is Kind.TASK:
        task = verdict.task
        assert task is not None
        return f"task {task.task_id} {task.status}"
    return ""
