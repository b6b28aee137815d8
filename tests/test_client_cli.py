"""`mcp-verdict call`, `tools` and `demo`, run for real as subprocesses against the demo server."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_verdict.demo import stdio_command

from .terminal import in_a_terminal

CLI = [sys.executable, "-m", "mcp_verdict"]
SERVER = shlex.join(stdio_command())


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, check=False,
                          stdin=subprocess.DEVNULL)


# (tool, arguments, exit status, decision) — exit codes as documented in the README
CALLS = [
    ("get_forecast", '{"city": "Lisbon"}', 0, "accept"),
    ("charge_card", '{"amount_cents": 100}', 12, "return_to_model"),
    ("add_integers", '{"a": 1, "b": "x"}', 13, "fix_request"),
    ("string_is_error", "{}", 20, "investigate"),
    ("count_open_tickets", '{"queue": "q"}', 21, "investigate"),
    ("confirm_delete", '{"path": "/tmp/x"}', 13, "add_capability"),  # no terminal, no --answers
]


@pytest.mark.parametrize(("tool", "arguments", "status", "action"), CALLS)
def test_call_json(tool: str, arguments: str, status: int, action: str) -> None:
    run = cli("call", "--stdio", SERVER, tool, arguments, "--json")
    assert run.returncode == status, run.stderr
    data = json.loads(run.stdout)
    assert data["decision"]["action"] == action
    assert {"kind", "findings"} <= set(data["verdict"])
    assert data["rounds"] and data["rounds"][0]["request"].startswith("{")


def test_call_answers_input_from_a_file(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"form": {"*": {"confirm": True}}}))
    run = cli("call", "--stdio", SERVER, "confirm_delete", '{"path": "/tmp/x"}', "--answers", str(answers), "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [r["kind"] for r in data["rounds"]] == ["input_required", "normal_complete"]


def test_call_human_output() -> None:
    run = cli("call", "--stdio", SERVER, "charge_card", '{"amount_cents": 100}')
    assert run.returncode == 12
    assert "tool_error" in run.stdout and "return_to_model" in run.stdout


@pytest.mark.parametrize(("args", "status"), [
    (["call", "--stdio", SERVER, "get_forecast", "not json"], 2),
    (["call", "--stdio", SERVER, "get_forecast", "[1]"], 2),
    (["call", "get_forecast"], 2),
    (["call", "--url", "http://127.0.0.1:9/mcp", "get_forecast", "{}", "--timeout", "3"], 3),
])
def test_call_usage_and_connection_errors(args: list[str], status: int) -> None:
    assert cli(*args).returncode == status


def test_tools_json() -> None:
    run = cli("tools", "--stdio", SERVER, "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["version"] == "2026-07-28"
    names = {tool["name"] for tool in data["tools"]}
    assert {"get_forecast", "confirm_delete", "hang_up"} <= names


@pytest.mark.parametrize("transport", [[], ["--http"]])
def test_demo_runs_every_tool_and_exits_zero(transport: list[str],
                                             demo_json: subprocess.CompletedProcess[str]) -> None:
    run = demo_cli("--json", *transport, columns=80) if transport else demo_json  # (stdio: the module's one run)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = json.loads(run.stdout)
    assert all(row["ok"] for row in rows)
    by_tool = {row["tool"]: row for row in rows}
    assert by_tool["string_is_error"]["naive"] == "success" and by_tool["string_is_error"]["verdict"] == "unclassified"
    assert by_tool["hang_up"]["decision"] == "check_state"


def test_interactive_elicitation_in_a_terminal() -> None:
    """In a real pseudo-terminal the form is asked field by field and the call completes."""
    status, output = in_a_terminal(["call", "--stdio", SERVER, "confirm_delete", '{"path": "/tmp/x"}'],
                                   [(b"accept, decline or cancel", b"accept\n"), (b"Delete the file", b"y\n")])
    text = output.decode("utf-8", "replace")
    assert status == 0, text
    assert "normal_complete" in text and "accept" in text


# --- the demo's layout: 80 columns, wider, narrower, piped ---------------------------------------

def demo_cli(*args: str, columns: int) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([*CLI, "demo", *args], capture_output=True, text=True, timeout=120, check=False,
                          stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": str(columns)})


@pytest.fixture(scope="module")
def demo_json() -> subprocess.CompletedProcess[str]:
    """``demo --json`` over stdio, run once for the module (its rows do not depend on the width)."""
    return demo_cli("--json", columns=80)


@pytest.fixture(scope="module")
def demo_rows(demo_json: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    run = demo_json
    assert run.returncode == 0, run.stderr
    rows: list[dict[str, object]] = json.loads(run.stdout)
    assert all(row["ok"] for row in rows)  # each row as the catalogue states it by hand
    return rows


@pytest.mark.parametrize("columns", [40, 80, 120, 200])
def test_the_demo_never_cuts_the_verdict_the_finding_or_the_decision(columns: int,
                                                                      demo_rows: list[dict[str, object]]) -> None:
    run = demo_cli(columns=columns)  # piped: no colours, the width rich is told
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stderr == ""
    lines = run.stdout.splitlines()
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
    assert "…" not in run.stdout
    tokens = {token for line in lines for token in line.replace("│", " ").split()}
    for row in demo_rows:
        for value in (row["verdict"], row["decision"], row["why"]):
            assert not value or value in tokens or f"{value}:" in tokens, (columns, row["tool"], value)
    assert "A naive receiver called 10 of 23 calls a success that mcp-verdict does not" in " ".join(
        run.stdout.split())


def test_the_demo_over_http_has_a_clean_stderr_and_shows_logs_with_v() -> None:
    quiet = demo_cli("--http", columns=80)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    loud = demo_cli("--http", "-v", columns=80)
    assert loud.returncode == 0
    assert "logs:" in loud.stderr and "hang_up" in loud.stderr


def test_the_demo_prints_peer_text_literally() -> None:
    """The demo's renderer, fed rows whose tool names and descriptions are hostile peer text."""
    import io

    from rich.console import Console

    from mcp_verdict import Action, Kind, classify, evaluate
    from mcp_verdict.cli._demo import Row, render

    hostile = "[/] [bold]x[/bold] \x1b]0;pwned\x07 \x1b[2J " + "L" * 10_000
    verdict = classify(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"no"}}')
    outcome = evaluate(verdict)
    rows = [Row(f"tool{hostile}", hostile, outcome, "success", Kind.UNCLASSIFIED, Action.INVESTIGATE, "success")]
    for width in (40, 80, 200):
        out = io.StringIO()
        render(Console(file=out, width=width, highlight=False, color_system=None), rows, "stdio")
        text = out.getvalue()
        assert "\x1b" not in text and "\x07" not in text
        flat = text.replace("\n", "")
        assert "[/] [bold]x[/bold] \\x1b]0;pwned\\a \\x1b[2J" in flat.replace("  ", " ") or width < 80
        assert flat.count("L") >= 20_000 and all(len(line) <= width for line in text.splitlines())
        assert "result.is_error" in text and "investigate" in text
