"""What the client lists and shows is all of it, or says what it left out: tools/list past its
page bound or in a cursor loop, a tool name listed twice, a large structuredContent in ``call``.

The server is real (tests/servers/listing_stdio.py, on stdio); each command runs as a subprocess;
expected values are written by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
SERVER = f"{sys.executable} -m tests.servers.listing_stdio"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, check=False, cwd=ROOT,
                          stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200"})


HUNDRED = ["tool_1", "big", *(f"tool_{n}" for n in range(2, 101))]

# (server flags, the tools listed in order, the warnings) - the client follows at most 100 pages
LISTINGS: list[tuple[str, list[str], list[str]]] = [
    ("--pages 3", ["tool_1", "big", "tool_2", "tool_3"], []),
    ("--pages 100", HUNDRED, []),
    ("--pages 101", HUNDRED, ["tools/list: stopped after 100 pages (101 tools) with more to come (nextCursor "
                              "'101'): the tools after them are not listed"]),
    ("--pages forever", HUNDRED, ["tools/list: stopped after 100 pages (101 tools) with more to come (nextCursor "
                                  "'101'): the tools after them are not listed"]),
    ("--pages forever --same-cursor", ["tool_1", "big", "tool_2"],
     ["tools/list: the server sent the cursor 'again' a second time (a loop): stopped after 2 pages (3 tools)"]),
    ("--twice", ["big", "twin"], ["tools/list: 1 name is listed more than once: 'twin' (2 times); the last listing "
                                  "of each is the one kept"]),
]


@pytest.mark.parametrize(("flags", "names", "warnings"), LISTINGS, ids=[c[0] for c in LISTINGS])
def test_tools_lists_every_page_or_says_where_it_stopped(flags: str, names: list[str], warnings: list[str]) -> None:
    run = cli("tools", "--mode", "legacy", "--stdio", f"{SERVER} {flags}", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert ([t["name"] for t in data["tools"]], data["warnings"]) == (names, warnings)
    if not warnings:
        return
    shown = cli("tools", "--mode", "legacy", "--stdio", f"{SERVER} {flags}")  # printed too, in full
    assert shown.returncode == 0, shown.stderr
    for warning in warnings:
        assert f"warning {warning}" in shown.stdout.replace("\n", " "), shown.stdout


# (server flags, the start of the one warning) - an answer past the limits is valid JSON the
# client does not read: it said "the answer is not valid JSON (json.too_deep: ...)"
UNREAD: list[tuple[str, str]] = [
    ("--deep", "tools/list: the answer cannot be read (json.too_deep: the value nests deeper than the limit of 64 "
               "levels (byte "),
]


@pytest.mark.parametrize(("flags", "start"), UNREAD, ids=[c[0] for c in UNREAD])
def test_a_listing_past_the_limits_is_said_unread_not_invalid(flags: str, start: str) -> None:
    run = cli("tools", "--mode", "legacy", "--stdio", f"{SERVER} {flags}", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert (data["tools"], len(data["warnings"]), data["warnings"][0].startswith(start)) == ([], 1, True), data


def test_a_tool_listed_twice_is_called_with_the_last_listing() -> None:
    data = json.loads(cli("tools", "--mode", "legacy", "--stdio", f"{SERVER} --twice", "--json").stdout)
    assert [t.get("annotations") for t in data["tools"] if t["name"] == "twin"] == [{"destructiveHint": True}]


def test_call_says_how_much_of_the_structured_content_it_left_out() -> None:
    run = cli("call", "--mode", "legacy", "--stdio", SERVER, "big")
    assert run.returncode == 0, run.stderr
    text = run.stdout.replace("\n", "")
    # {"data": "b...b"}: 5,012 characters, 2,000 shown (the text content is the same JSON)
    assert text.count('… (3012 more characters: see --json)') == 2, run.stdout
    assert text.count("b") == 2 * (2000 - len('{"data": "')), run.stdout
