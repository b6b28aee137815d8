"""A member name given twice in one object of the JSON the user gives the CLI is a usage error
(exit 2) naming the name and the object (its JSON pointer, RFC 6901), said before the server is
started and the tool called: ``call``'s ARGUMENTS, ``call --answers FILE`` and ``classify
--capabilities`` (README "The CLI"; RFC 8259 s4: "The names within an object SHOULD be unique").

Before, Python's reader kept the last copy silently: ``call t '{"limit": 10, "limit": 100000}'``
ran the tool with 100000, the user never told (label files already refused a kind given twice).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_verdict.demo import stdio_command

CLI = [sys.executable, "-m", "mcp_verdict"]
RULE = "(a member name is given once: RFC 8259 s4)"

# (name, ARGUMENTS, the --answers file's text or None, what the usage error says after "Error: ")
CALL_CASES = [
    ("arguments: top level", '{"city": "Lisbon", "city": "Porto"}', None,
     f'Invalid value for ARGUMENTS: "city" is given twice in the top-level object {RULE}'),
    ("arguments: the same value twice", '{"city": "Lisbon", "city": "Lisbon"}', None,
     f'Invalid value for ARGUMENTS: "city" is given twice in the top-level object {RULE}'),
    ("arguments: nested", '{"city": "Lisbon", "options": {"units": "C", "days": 3, "units": "F"}}', None,
     f'Invalid value for ARGUMENTS: "units" is given twice in the object at "/options" {RULE}'),
    ("arguments: in an array, a name with a slash", '{"city": "Lisbon", "a/b": [0, {"k": 1, "k": 2}]}', None,
     f'Invalid value for ARGUMENTS: "k" is given twice in the object at "/a~1b/1" {RULE}'),
    ("arguments: the first object in the text is named", '{"x": {"p": 1, "p": 2}, "y": {"q": 1, "q": 2}}', None,
     f'Invalid value for ARGUMENTS: "p" is given twice in the object at "/x" {RULE}'),
    ("arguments: an escape that names the same member", '{"city": "Lisbon", "\\u0063ity": "Porto"}', None,
     f'Invalid value for ARGUMENTS: "city" is given twice in the top-level object {RULE}'),
    ("arguments: the empty name", '{"": 1, "": 2}', None,
     f'Invalid value for ARGUMENTS: "" is given twice in the top-level object {RULE}'),
    ("arguments: a name with a terminal escape", '{"\\u001b[2J": 1, "\\u001b[2J": 2}', None,
     f'Invalid value for ARGUMENTS: "\\u001b[2J" is given twice in the top-level object {RULE}'),
    ("answers: a section twice", '{"city": "Lisbon"}', '{"form": {"*": "decline"}, "form": {}}',
     f'Invalid value for --answers: "form" is given twice in the top-level object {RULE}'),
    ("answers: an answer twice", '{"city": "Lisbon"}', '{"url": {"login": false, "login": true}}',
     f'Invalid value for --answers: "login" is given twice in the object at "/url" {RULE}'),
    ("answers: inside a form answer", '{"city": "Lisbon"}',
     '{"form": {"*": {"name": "a",\n "age": 3,\n "name": "b"}}}',
     f'Invalid value for --answers: "name" is given twice in the object at "/form/*" {RULE}'),
]


@pytest.mark.parametrize(("name", "arguments", "answers", "says"), CALL_CASES, ids=[case[0] for case in CALL_CASES])
def test_a_name_given_twice_in_calls_json_is_a_usage_error_before_the_server_starts(
        tmp_path: Path, name: str, arguments: str, answers: str | None, says: str) -> None:
    started = tmp_path / "started"
    server = shlex.join(["sh", "-c", f"touch {shlex.quote(str(started))} && exec {shlex.join(stdio_command())}"])
    extra: list[str] = []
    if answers is not None:
        (tmp_path / "answers.json").write_text(answers, encoding="utf-8")
        extra = ["--answers", str(tmp_path / "answers.json")]
    run = subprocess.run([*CLI, "call", "--stdio", server, "get_forecast", arguments, *extra], capture_output=True,
                         text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
    assert (run.returncode, run.stderr.splitlines()[-1:]) == (2, [f"Error: {says}"])
    assert "\x1b" not in run.stderr
    assert not started.exists()  # the server never started: no tool called


RESPONSE = '{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}]}}'

# (name, --capabilities, exit status, the last line of stderr)
CAPABILITIES_CASES = [
    ("a capability twice", '{"elicitation": {}, "elicitation": {"form": {}}}', 2,
     f'Error: Invalid value for --capabilities: "elicitation" is given twice in the top-level object {RULE}'),
    ("nested", '{"elicitation": {"form": {}, "form": {}}}', 2,
     f'Error: Invalid value for --capabilities: "form" is given twice in the object at "/elicitation" {RULE}'),
    ("names differing in case are two names", '{"elicitation": {}, "Elicitation": {}}', 0, None),
]


@pytest.mark.parametrize(("name", "capabilities", "status", "last"), CAPABILITIES_CASES,
                         ids=[case[0] for case in CAPABILITIES_CASES])
def test_a_name_given_twice_in_classifys_capabilities_is_a_usage_error(name: str, capabilities: str, status: int,
                                                                      last: str | None) -> None:
    run = subprocess.run([*CLI, "classify", "--version", "2025-06-18", "--capabilities", capabilities],
                         input=RESPONSE, capture_output=True, text=True, timeout=60, check=False)
    assert (run.returncode, run.stderr.splitlines()[-1:]) == (status, [] if last is None else [last])
