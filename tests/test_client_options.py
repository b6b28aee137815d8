"""VerdictClient's options are checked when the client is made: a wrong one is a ValueError naming
the option and the value, never a failure at the first connect, call or settle (before,
``trusted_server="yes"`` surfaced as a ValueError at the first settle, ``limits`` given as a dict
as an AttributeError inside the connect, ``url=5`` as an AttributeError at connect, ``tasks="no"``
declared the tasks extension, ``timeout="5"`` was a bare TypeError, ``connect_timeout=inf`` let a
silent server hang the connect)."""

from __future__ import annotations

import math
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import Limits
from mcp_verdict.client import Handlers, VerdictClient
from mcp_verdict.verdict._shown import shown

SERVER = ["python", "-c", "pass"]  # never started: only the constructor runs

# (option, value, the ValueError's message), written by hand
BAD: list[tuple[str, object, str]] = [
    ("trusted_server", "yes", "trusted_server must be True or False, not 'yes'"),
    ("trusted_server", 1, "trusted_server must be True or False, not 1"),
    ("trusted_server", None, "trusted_server must be True or False, not None"),
    ("tasks", "no", "tasks must be True or False, not 'no'"),
    ("tasks", 0, "tasks must be True or False, not 0"),
    ("limits", {"max_bytes": 5}, "limits must be a Limits, not {'max_bytes': 5}"),
    ("absent_result_type", "maybe", "absent_result_type must be \"invalid\" or \"complete\", not 'maybe'"),
    ("timeout", "5", "timeout must be a positive finite number of seconds, not '5'"),
    ("timeout", True, "timeout must be a positive finite number of seconds, not True"),
    ("timeout", 0, "timeout must be a positive finite number of seconds, not 0"),
    ("timeout", -1.5, "timeout must be a positive finite number of seconds, not -1.5"),
    ("timeout", math.nan, "timeout must be a positive finite number of seconds, not nan"),
    ("connect_timeout", math.inf, "connect_timeout must be a positive finite number of seconds, not inf"),
    ("timeout", 10**5000, "timeout must be a positive finite number of seconds, not <an integer of about 5000 "
     "digits>"),  # past the float range (OverflowError before)
    ("task_timeout", None, "task_timeout must be a positive finite number of seconds, not None"),
    ("handlers", "h", "handlers must be a Handlers or None, not 'h'"),
    ("handlers", {}, "handlers must be a Handlers or None, not {}"),
    ("client_info", "ab", "client_info must be a (name, version) pair of strings, not 'ab'"),
    ("client_info", ("app", 2), "client_info must be a (name, version) pair of strings, not ('app', 2)"),
    ("client_info", ("app", "1", "x"), "client_info must be a (name, version) pair of strings, not ('app', '1', 'x')"),
    ("env", 5, "env must be a mapping of strings to strings or None, not 5"),
    ("env", {"PATH": 1}, "env must be a mapping of strings to strings or None, not {'PATH': 1}"),
    ("headers", "abc", "headers must be a mapping of strings to strings or None, not 'abc'"),
    ("headers", {"x-a": None}, "headers must be a mapping of strings to strings or None, not {'x-a': None}"),
    ("cwd", 5, "cwd must be a path (a string or os.PathLike) or None, not 5"),
    ("command", [1, 2], "command must be a string or a sequence of strings, not [1, 2]"),
    ("command", ["python", b"-V"], "command must be a string or a sequence of strings, not ['python', b'-V']"),
    ("command", 5, "command must be a string or a sequence of strings, not 5"),
    ("url", 5, "url must be a string, not 5"),
    ("url", b"http://localhost/mcp", "url must be a string, not b'http://localhost/mcp'"),
]


@pytest.mark.parametrize(("option", "value", "message"), BAD, ids=[f"{row[0]}={shown(row[1])}" for row in BAD])
def test_a_wrong_option_is_refused_when_the_client_is_made(option: str, value: object, message: str) -> None:
    target: dict[str, Any] = {option: value} if option in ("command", "url") else {"command": SERVER, option: value}
    with pytest.raises(ValueError) as caught:
        VerdictClient(**target)
    assert str(caught.value) == message


# (option, value, what the client holds), written by hand: accepted values stay accepted
GOOD: list[tuple[str, object, str, object]] = [
    ("trusted_server", True, "trusted_server", True),
    ("tasks", True, "tasks", True),
    ("timeout", 5, "timeout", 5.0),
    ("timeout", Fraction(1, 2), "timeout", 0.5),
    ("connect_timeout", None, "connect_timeout", 30.0),
    ("task_timeout", 0.25, "task_timeout", 0.25),
    ("limits", Limits(max_bytes=10), "limits", Limits(max_bytes=10)),
    ("absent_result_type", "complete", "absent_result_type", "complete"),
    ("handlers", None, "handlers", Handlers()),
    ("env", {"A": "1"}, "_env", {"A": "1"}),
    ("env", None, "_env", None),
    ("cwd", Path("/tmp"), "_cwd", Path("/tmp")),
    ("headers", {"x-a": "1"}, "_headers", {"x-a": "1"}),
    ("client_info", ("app", "1.0"), "_client_info", None),
]


@pytest.mark.parametrize(("option", "value", "attribute", "held"), GOOD,
                         ids=[f"{row[0]}={row[1]!r}" for row in GOOD])
def test_a_right_option_is_taken(option: str, value: object, attribute: str, held: object) -> None:
    options: dict[str, Any] = {option: value}
    client = VerdictClient(command=SERVER, **options)
    if attribute == "_client_info":
        assert (client._client_info.name, client._client_info.version) == ("app", "1.0")
    else:
        assert getattr(client, attribute) == held


def test_the_environment_and_a_command_string_are_taken() -> None:
    client = VerdictClient(command="python -c pass", env=os.environ)
    assert client.target == "python -c pass"
