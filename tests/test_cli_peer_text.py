"""`mcp-verdict call` prints what a server sent literally, wherever it comes through: the choices
and the default of an elicitation form asked in a terminal, and the SDK's own log lines that
quote the server (an SSE event name). Control sequences are shown as their visible escapes
(``\\x1b``), never sent to the terminal; the reply goes back to the server exactly as it sent
the choice. The servers are real processes (tests/servers/misbehaving.py) on stdio and HTTP."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .servers.misbehaving import HOSTILE_CHOICE
from .terminal import CLI, in_a_terminal
from .test_client_transport_faults import ROOT, http_server

RAW_OSC = b"\x1b]0;PWNED"  # the window-title sequence the server's text carries


@pytest.mark.parametrize(("typed", "server_got"), [
    (b"\n", b"got the hostile choice as sent"),  # the default, shown neutralised, sent as the server wrote it
    (b"red\\x1b]0;PWNED\\a\n", b"got the hostile choice as sent"),  # the choice as shown, typed
    (b"blue\n", b"got 'blue'"),
])
def test_a_forms_choices_are_shown_neutralised_and_answered_as_sent(typed: bytes, server_got: bytes) -> None:
    assert HOSTILE_CHOICE == "red\x1b]0;PWNED\x07"
    status, output = in_a_terminal(
        ["call", "--stdio", f"{sys.executable} -m tests.servers.misbehaving stdio elicit_hostile", "t"],
        [(b"accept, decline or cancel", b"accept\n"), (b"colour", typed)], cwd=ROOT)
    assert status == 0, output
    assert RAW_OSC not in output
    assert b"red\\x1b]0;PWNED\\a" in output  # the choice and the default, as visible escapes
    assert server_got in output


def test_the_sdks_log_lines_quoting_the_server_are_neutralised() -> None:
    with http_server() as base:
        done = subprocess.run([*CLI, "call", "--url", f"{base}/hostile_sse/mcp", "t"], capture_output=True,
                              cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in done.stderr
    assert b"Unknown SSE event: \\x1b[2J\\x1b]0;PWNED\\aboom" in done.stderr
