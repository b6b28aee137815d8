"""`mcp-verdict call` in a terminal when the input ends or an answer cannot be used: the
documented status and one message, never a traceback (README "The CLI").

Before, in a terminal (where a spinner runs beside the call), a form answer from ``--answers``
that fails the requested schema ended in an ``ExceptionGroup`` traceback and status 1 (piped, it
was the documented message and status 2), and Ctrl-D at a question in a traceback ending
``HandlerError: the elicitation/create handler raised EOFError``, status 1. Now Ctrl-D at a form
cancels the elicitation (the server is told, the call goes on), at a URL consent answers no, and
at a sampling reply stops the call with status 2, saying why.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from mcp_verdict.demo import stdio_command

from .terminal import in_a_terminal

SERVER = shlex.join(stdio_command())

# (case: tool, arguments, the --answers file's content or None, (prompt, what is typed)...;
#  exit status, a line the terminal shows)
CASES = {
    "an --answers form answer that fails the schema": (
        "confirm_delete", '{"path": "/tmp/x"}', {"form": {"*": {"confirm": "yes"}}}, [],
        2, '/confirm: "yes" is not of type "boolean"'),
    "Ctrl-D at a form: the elicitation is cancelled": (
        "confirm_delete", '{"path": "/tmp/x"}', None, [(b"accept, decline or cancel", b"\x04")],
        0, 'content   {"path":"/tmp/x","deleted":false,"answer":"cancel"}'),
    "Ctrl-D at a sampling reply: the call stops": (
        "summarize_text", '{"text": "abc"}', None, [(b"reply:", b"\x04")],
        2, "mcp-verdict: input ended (Ctrl-D) before a reply was typed"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_call_in_a_terminal_ends_with_its_status_and_no_traceback(tmp_path: Path, case: str) -> None:
    tool, arguments, answers, typed, status, shown = CASES[case]
    args = ["call", "--stdio", SERVER, tool, arguments]
    if answers is not None:
        (tmp_path / "answers.json").write_text(json.dumps(answers))
        args += ["--answers", str(tmp_path / "answers.json")]
    got, output = in_a_terminal(args, typed)
    lines = [line.strip() for line in output.decode("utf-8", "replace").replace("\r", "").splitlines()]
    assert (got, shown in lines, "Traceback" in output.decode("utf-8", "replace")) == (status, True, False), output
