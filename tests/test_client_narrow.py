"""The client commands at any terminal width: nothing a server listed or answered is cut.

``tools`` lists every tool name in full at every width: in its table when the width holds one
(each name on one line), else one tool after the other with the name on lines of its own
(folded only when the name alone is wider than the terminal). The commands run for real as
subprocesses against the demo server and the raw handshake-era server (tests/servers), piped
with ``COLUMNS`` set, and in a pseudo-terminal of a given size with no ``COLUMNS`` at all.
Expected values are written by hand.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_verdict.demo import stdio_command

from .terminal import in_a_terminal

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
DEMO = shlex.join(stdio_command())
RAW_HOSTILE = shlex.join([sys.executable, "-m", "tests.servers.raw_server", "--hostile"])

# The demo server's catalogue, by hand (README: the demo's tools), and which of them declare an outputSchema.
DEMO_TOOLS = [
    "get_forecast", "charge_card", "add_integers", "confirm_delete", "summarize_text", "generate_report",
    "count_open_tickets", "slow_echo", "create_note", "get_note", "string_is_error", "missing_result_type",
    "unknown_result_type", "text_block_without_text", "duplicate_is_error", "nan_value", "mismatched_id",
    "hang_up", "malformed_json", "invalid_utf8", "slow_write", "write_count", "deferred_everywhere",
]
DEMO_WITH_OUTPUT_SCHEMA = 11
# The raw server's tools with --hostile; the last one's name carries markup and terminal escapes,
# shown as their visible escapes (58 characters).
HOSTILE_NAME = "evil[/] [bold]bold?[/bold] \\x1b]0;pwned\\a \\x1b[2J [blink]x"
RAW_TOOLS = ["echo", "fail", "invalid", HOSTILE_NAME]


def tools(server: str, columns: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "tools", "--stdio", server], capture_output=True, text=True, timeout=60,
                          check=False, cwd=ROOT, stdin=subprocess.DEVNULL,
                          env={**os.environ, "COLUMNS": str(columns), "TERM": "xterm-256color"})


SGR = re.compile(r"\x1b\[[0-9;]*m")  # a style: rich sizes a TERM=dumb console 80 wide, so xterm, no colour


def in_a_terminal_of(columns: int, args: list[str], timeout: float = 60) -> tuple[int, str]:
    """Run ``mcp-verdict ARGS`` in a pseudo-terminal ``columns`` wide (no COLUMNS, no colour):
    (exit status, what it showed: line ends as \\n, the styles it set (bold) taken out)."""
    status, output = in_a_terminal(args, [], cwd=ROOT, timeout=timeout, columns=columns)
    return status, SGR.sub("", output.decode("utf-8", "replace").replace("\r\n", "\n"))


def shown_in_full(name: str, text: str) -> bool:
    """The name is on one line, or folded over lines of its own (each line one piece of it)."""
    whole = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
    lines = text.splitlines()
    return any(whole.search(line) for line in lines) or any(
        whole.fullmatch("".join(lines[start:stop])) for start in range(len(lines))
        for stop in range(start + 2, len(lines) + 1) if lines[start] and name.startswith(lines[start]))


def effective(columns: int) -> int:
    """The width the CLI prints to: an absurd COLUMNS (under 20) is ignored for 80 (cli/_term)."""
    return 80 if columns < 20 else columns


# --- tools: every name, at every width -----------------------------------------------------------

WIDTHS = [1, 5, 12, 20, 30, 40, 60, 79, 80, 120, 300]


@pytest.mark.parametrize("columns", WIDTHS)
def test_tools_shows_every_demo_tool_name_in_full(columns: int) -> None:
    run = tools(DEMO, columns)
    assert run.returncode == 0, run.stderr
    missing = [name for name in DEMO_TOOLS if not shown_in_full(name, run.stdout)]
    assert missing == [], run.stdout
    assert "…" not in run.stdout, run.stdout  # nothing cut with an ellipsis
    assert "".join(run.stdout.splitlines()).count("outputSchema") == DEMO_WITH_OUTPUT_SCHEMA, run.stdout
    assert "23 tool(s)" in run.stdout.replace("\n", " ")
    assert all(len(line) <= effective(columns) for line in run.stdout.splitlines()), run.stdout


@pytest.mark.parametrize("columns", WIDTHS)
def test_tools_shows_a_hostile_tool_name_in_full_and_neutralised(columns: int) -> None:
    run = tools(RAW_HOSTILE, columns)
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout
    missing = [name for name in RAW_TOOLS if not shown_in_full(name, run.stdout)]
    assert missing == [], run.stdout
    assert all(len(line) <= effective(columns) for line in run.stdout.splitlines()), run.stdout


@pytest.mark.parametrize("columns", [1, 2, 5, 12, 20, 40])
def test_tools_in_a_narrow_terminal_shows_every_name(columns: int) -> None:
    status, shown = in_a_terminal_of(columns, ["tools", "--stdio", DEMO])
    assert status == 0, shown
    missing = [name for name in DEMO_TOOLS if not shown_in_full(name, shown)]
    assert missing == [], shown
    assert "…" not in shown, shown


# --- the conformance kit's tables: every kind and receiver whole ---------------------------------

KINDS = ["normal_complete", "tool_error", "input_required", "task", "protocol_error", "unclassified"]


@pytest.mark.parametrize("columns", [1, 12, 20, 40, 63, 64, 80, 200])
def test_conform_shows_every_kind_and_count_whole(columns: int) -> None:
    run = subprocess.run([*CLI, "conform", "--builtin", "minimal"], capture_output=True, text=True, timeout=120,
                         check=False, cwd=ROOT, stdin=subprocess.DEVNULL,
                         env={**os.environ, "COLUMNS": str(columns), "TERM": "xterm-256color"})
    assert run.returncode == 1, run.stderr  # the minimal classifier fails cases
    missing = [kind for kind in KINDS if not shown_in_full(kind, run.stdout)]
    assert missing == [], run.stdout
    assert "…" not in run.stdout, run.stdout


@pytest.mark.parametrize("columns", [20, 40])
def test_conform_in_a_narrow_terminal_shows_every_kind(columns: int) -> None:
    status, shown = in_a_terminal_of(columns, ["conform", "--builtin", "minimal"])
    assert status == 1, shown
    assert [kind for kind in KINDS if not shown_in_full(kind, shown)] == [], shown
    assert "…" not in shown, shown


LONG_RECEIVER = "a_receiver_whose_name_is_longer_than_a_narrow_terminal"


@pytest.mark.parametrize("columns", [12, 20, 40, 60, 80, 120])
def test_the_kill_table_shows_every_receiver_and_result_whole(columns: int) -> None:
    import io

    from rich.console import Console

    from mcp_verdict import corpus, kit
    from mcp_verdict.cli._kit import print_kill_table

    cases = corpus.load()[:60]
    real = kit.kill_table(cases, mutants=())[0]
    minimal = kit.run(kit.load_receiver("minimal"), cases, kit.KIND_LABELS)
    rows = [real, kit.KillRow(LONG_RECEIVER, "by hand", minimal, False),
            kit.KillRow("x", "by hand", real.report, False)]
    out = io.StringIO()
    print_kill_table(Console(file=out, width=columns, highlight=False, color_system=None), rows, len(cases))
    shown = out.getvalue()
    assert [name for name in ("real classifier", LONG_RECEIVER, "x") if not shown_in_full(name, shown)] == [], shown
    for result in ("passes all", "killed", "SURVIVED"):
        assert shown_in_full(result, shown), shown
    assert "…" not in shown, shown
    assert all(len(line) <= columns for line in shown.splitlines()), shown
