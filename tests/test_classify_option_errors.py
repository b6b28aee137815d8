"""classify's checks of its options are the one place for their rules: a bad option is an
``OptionError`` (a ValueError) saying which option or member is wrong (``option``), what it must
be (``expected``) and what was given (``value``), so the corpus loader names a data line's member
from them instead of a copy of the rules. An extension that cannot be hashed (``[{}]``) was a
TypeError out of classify."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import Limits, classify
from mcp_verdict.verdict._classify import OptionError, check_option

ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'
VERSIONS = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"

# classify's options → (option, expected, value, the message), written by hand
BAD: list[tuple[str, dict[str, Any], str, str, object, str]] = [
    ("unknown version", {"version": "1999"}, "version", f"one of {VERSIONS}", "1999",
     f"unknown protocol version '1999'; expected one of {VERSIONS}"),
    ("request_id a float", {"request_id": 1.5}, "request_id", "a string or an integer", 1.5,
     "request_id must be a string, an integer or None, not 1.5"),
    ("request_id true", {"request_id": True}, "request_id", "a string or an integer", True,
     "request_id must be a string, an integer or None, not True"),
    ("capabilities a list", {"client_capabilities": []}, "client_capabilities", "the capabilities object", [],
     "client_capabilities must be the capabilities object (a mapping), not []"),
    ("roots a number", {"client_capabilities": {"roots": 1}}, "client_capabilities.roots", "an object", 1,
     "client_capabilities['roots'] must be an object, not 1"),
    ("extensions a string", {"extensions": "x"}, "extensions", "an iterable of extension id strings", "x",
     "extensions must be an iterable of extension id strings, not 'x'"),
    ("extension a number", {"extensions": ["a", 1]}, "extensions[1]", "an extension id string", 1,
     "extensions[1] must be an extension id string, not 1"),
    ("extension an object", {"extensions": ("a", {})}, "extensions[1]", "an extension id string", {},
     "extensions[1] must be an extension id string, not {}"),
    ("extension a list", {"extensions": [[]]}, "extensions[0]", "an extension id string", [],
     "extensions[0] must be an extension id string, not []"),
    ("a set with a number", {"extensions": {2}}, "extensions", "an iterable of extension id strings", {2},
     "extensions must be an iterable of extension id strings, not {2}"),
    ("absent_result_type", {"absent_result_type": "maybe"}, "absent_result_type", '"invalid" or "complete"', "maybe",
     "absent_result_type must be \"invalid\" or \"complete\", not 'maybe'"),
    ("limits a dict", {"limits": {"max_bytes": 1}}, "limits", "a Limits", {"max_bytes": 1},
     "limits must be a Limits, not {'max_bytes': 1}"),
]


@pytest.mark.parametrize(("options", "option", "expected", "value", "message"), [row[1:] for row in BAD],
                         ids=[row[0] for row in BAD])
def test_a_bad_option_says_where_what_and_why(options: dict[str, Any], option: str, expected: str, value: object,
                                              message: str) -> None:
    with pytest.raises(OptionError) as caught:
        classify(ANSWER, **options)
    error = caught.value
    assert (error.option, error.expected, error.value, str(error)) == (option, expected, value, message)
    assert isinstance(error, ValueError)


# Limits' fields → (option, expected, value, the message), written by hand
BAD_LIMITS: list[tuple[dict[str, Any], str, str, object, str]] = [
    ({"max_bytes": 0}, "limits.max_bytes", "a positive integer", 0,
     "Limits.max_bytes must be a positive integer, not 0"),
    ({"max_nodes": "10"}, "limits.max_nodes", "a positive integer", "10",
     "Limits.max_nodes must be a positive integer, not '10'"),
    ({"max_depth": 201}, "limits.max_depth", "a positive integer of at most 200", 201,
     "Limits.max_depth must be a positive integer of at most 200 (the wire parser bound), not 201"),
    ({"max_depth": True}, "limits.max_depth", "a positive integer of at most 200", True,
     "Limits.max_depth must be a positive integer of at most 200 (the wire parser bound), not True"),
]


@pytest.mark.parametrize(("fields", "option", "expected", "value", "message"), BAD_LIMITS)
def test_a_bad_limit_says_where_what_and_why(fields: dict[str, Any], option: str, expected: str, value: object,
                                             message: str) -> None:
    with pytest.raises(OptionError) as caught:
        Limits(**fields)
    error = caught.value
    assert (error.option, error.expected, error.value, str(error)) == (option, expected, value, message)


# check_option: one option alone, as classify checks it → the option the error names (None: fine)
ALONE: list[tuple[str, object, str | None]] = [
    ("request_id", None, None),
    ("request_id", "a", None),
    ("request_id", [1], "request_id"),
    ("client_capabilities", {"sampling": {}, "tasks": 5}, None),
    ("client_capabilities", {"elicitation": "yes"}, "client_capabilities.elicitation"),
    ("extensions", ["io.modelcontextprotocol/tasks"], None),
    ("extensions", [{}], "extensions[0]"),
    ("absent_result_type", "complete", None),
    ("absent_result_type", None, "absent_result_type"),
    ("limits", Limits(max_depth=3), None),
    ("limits", None, "limits"),
]


@pytest.mark.parametrize(("name", "value", "option"), ALONE)
def test_one_option_is_checked_alone_by_classifys_checks(name: str, value: object, option: str | None) -> None:
    try:
        check_option(name, value)
    except OptionError as error:
        assert error.option == option
    else:
        assert option is None


def test_an_unknown_option_is_no_option_error() -> None:
    with pytest.raises(ValueError) as caught:
        check_option("request-id", 1)
    assert type(caught.value) is ValueError
    assert str(caught.value) == ("unknown option 'request-id'; classify's options are request_id, client_capabilities, "
                                 "extensions, absent_result_type, limits")
