"""A receiver's message stays on the reason's one line in the kit's report.

The README: "Your receiver's text (exception messages, labels) ... shown literally: control and
bidi characters as visible escapes"; ``Outcome.reason`` is "in one line". A line break in what
the receiver raised (LF, U+2028, U+2029; a message that may carry a server's text) went through
as it was and forged the report's next lines (``  why: ...``, ``  spec: ...``) under the case —
in ``kit.describe`` (pytest's failure, ``conform -v``) and in ``conform``'s one line per failure.
They are visible escapes now (``--json`` keeps the reason as it was)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

from mcp_verdict import corpus, kit
from mcp_verdict.cli._kit import _print_report

CASE = corpus.get("design/string_flag")
HEAD = "design/string_flag (2026-07-28): the receiver raised ValueError: "


def raising(message: str) -> kit.Receiver:
    def receive(response: Any, version: str) -> str:
        raise ValueError(message)
    return kit.receiver_from(receive)


# (label, the receiver's message) → the report's first line; by hand
CASES: list[tuple[str, str, str]] = [
    ("LF", "boom\n  why: the receiver is right", HEAD + "boom\\n  why: the receiver is right"),
    ("U+2028 and U+2029", "a\u2028b\u2029c", HEAD + "a\\u2028b\\u2029c"),
    ("TAB, ESC, CR", "a\tb\x1b[2J\rc", HEAD + "a\\tb\\x1b[2J\\rc"),
]


@pytest.mark.parametrize(("message", "first"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_describe_keeps_the_reason_on_its_line(message: str, first: str) -> None:
    outcome = kit.check_case(raising(message), CASE)
    assert outcome.reason == "the receiver raised ValueError: " + message  # the data, as it was
    lines = kit.describe(outcome).splitlines()
    assert lines[0] == first
    assert lines[1] == '  why: isError must be a boolean, not the string "false"'
    assert len(lines) == 7


@pytest.mark.parametrize(("message", "first"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_conform_prints_one_line_per_failure(message: str, first: str) -> None:
    out = io.StringIO()
    console = Console(file=out, width=400, color_system=None, highlight=False, soft_wrap=True)
    _print_report(console, kit.run(raising(message), [CASE]), verbose=False)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"ERROR {first}  isError must be a boolean, not the string \"false\""
    assert not any(line.startswith("  why:") for line in lines)
