"""``call --answers FILE``: a file the call cannot use is a usage error (exit 2, README "The CLI")
naming what is wrong, said before the server is started and the tool called.

Before, the file was read whole whatever its size (``--answers /dev/zero`` ate the memory until
the kernel killed the process), and a section of another shape than the README's (``"form": 5``,
an answer ``"yes"`` to a URL, a root without a ``uri``) was accepted: the tool was called, then
the handler raised a TypeError once the server asked (``the elicitation/create handler raised
TypeError: argument of type 'int' is not iterable``), a URL answer of ``"yes"`` was a refusal,
a root without a uri went to the server as it was (MCP 2025-11-25, client/roots: a Root has a
string ``uri``).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_verdict.demo import stdio_command

CLI = [sys.executable, "-m", "mcp_verdict"]

# (name, the file's bytes, what the usage error says after "Invalid value for --answers: ")
CASES = [
    ("larger than 1 MiB", b" " * (2 << 20) + b"{}",
     "cannot read answers: larger than 1 MiB; an answers file is one small JSON object"),
    ("a section that is no object", b'{"form": 5}',
     'the "form" section is an object of answers by key ("*": any key), not 5'),
    ("a section that is a list", b'{"sampling": []}',
     'the "sampling" section is an object of answers by key ("*": any key), not []'),
    ("a form answer that is a number", b'{"form": {"*": 5}}',
     "the form answer for '*' is an object, \"decline\" or \"cancel\", not 5"),
    ("a URL answer that is a string", b'{"url": {"login": "yes"}}',
     "the url answer for 'login' is true or false, not 'yes'"),
    ("a sampling answer that is a number", b'{"sampling": {"*": 5}}',
     "the sampling answer for '*' is an object (the model's reply), not 5"),
    ("roots that are no list", b'{"roots": {"uri": "file:///w"}}',
     "the \"roots\" section is a list of roots, not {'uri': 'file:///w'}"),
    ("a root without a string uri", b'{"roots": [{"uri": 5}]}',
     "each root is an object with a string \"uri\", not {'uri': 5}"),
    ("a key with a terminal escape", b'{"form": {"\\u001b[2J": 5}}',
     "the form answer for '\\x1b[2J' is an object, \"decline\" or \"cancel\", not 5"),
]


@pytest.mark.parametrize(("name", "data", "says"), CASES, ids=[case[0] for case in CASES])
def test_an_answers_file_the_call_cannot_use_is_a_usage_error_before_the_call(tmp_path: Path, name: str,
                                                                              data: bytes, says: str) -> None:
    answers = tmp_path / "answers.json"
    answers.write_bytes(data)
    started = tmp_path / "started"
    server = shlex.join(["sh", "-c", f"touch {shlex.quote(str(started))} && exec {shlex.join(stdio_command())}"])
    run = subprocess.run([*CLI, "call", "--stdio", server, "get_forecast", '{"city": "Lisbon"}', "--answers",
                          str(answers)], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
                         check=False)
    assert (run.returncode, run.stderr.splitlines()[-1:]) == (2, [f"Error: Invalid value for --answers: {says}"])
    assert "\x1b" not in run.stderr
    assert not started.exists()  # the server never started: no tool called
