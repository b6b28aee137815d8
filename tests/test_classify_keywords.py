"""classify takes the response by its place and every option by keyword only, as its signature
says (README, "The API in five minutes": ``classify(response, *, version=..., ...)``).

The options are not declared after ``*``: CPython 3.11 calls a function with keyword-only
parameters by its generic path, so they follow a second parameter that must not be given
(``_classify._KEYWORDS``); classify refuses it, as Python refused an option given by its place,
and ``inspect`` shows the signature as it was. These rows hold what was already right: each
passes on the code before that change too.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from mcp_verdict import Kind, Limits, classify

ANSWER = b'{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}'

# (positional arguments after the response, keyword arguments): each is a TypeError
REFUSED: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("the version by its place", ("2026-07-28",), {}),
    ("the version and the request id by their places", ("2026-07-28", 7), {}),
    ("None by its place", (None,), {}),
    ("a version by its place and by keyword", ("2026-07-28",), {"version": "2026-07-28"}),
    ("an unknown keyword", (), {"verison": "2026-07-28"}),
    ("the guard by keyword", (), {"_keywords": None}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), REFUSED, ids=[row[0] for row in REFUSED])
def test_an_option_given_by_its_place_is_refused(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        classify(ANSWER, *args, **kwargs)


# (keyword arguments, the kind): the same calls by keyword are read as before
TAKEN: list[tuple[dict[str, Any], Kind]] = [
    ({}, Kind.NORMAL_COMPLETE),
    ({"version": "2026-07-28", "request_id": 7}, Kind.NORMAL_COMPLETE),
    ({"request_id": 8}, Kind.UNCLASSIFIED),  # another id than the answer's
    ({"version": "2025-11-25", "limits": Limits(max_depth=16)}, Kind.NORMAL_COMPLETE),
]


@pytest.mark.parametrize(("kwargs", "kind"), TAKEN)
def test_options_given_by_keyword_are_read(kwargs: dict[str, Any], kind: Kind) -> None:
    assert classify(ANSWER, **kwargs).kind is kind
    assert classify(response=ANSWER, **kwargs).kind is kind


def test_the_signature_shows_the_options_keyword_only() -> None:
    assert str(inspect.signature(classify)) == (
        "(response: 'object', *, version: 'str' = '2026-07-28', request_id: 'str | int | None' = None, "
        "client_capabilities: 'Mapping[str, Any] | None' = None, extensions: 'Iterable[str]' = (), "
        "absent_result_type: 'AbsentResultType' = 'invalid', "
        "limits: 'Limits' = Limits(max_bytes=67108864, max_depth=64, max_nodes=10000000)) -> 'Verdict'")


def test_the_signature_shown_is_the_one_classify_takes() -> None:
    """``classify`` presents ``_classify._as_called``'s signature (``__wrapped__``): the two name
    the same options, in the same order, with the same defaults, but for the guard."""
    from mcp_verdict.verdict._classify import _as_called

    code, shown = classify.__code__, _as_called.__code__
    taken = code.co_varnames[:code.co_argcount]
    assert taken[1] == "_keywords"
    assert (taken[0], *taken[2:]) == shown.co_varnames[:shown.co_argcount + shown.co_kwonlyargcount]
    assert classify.__defaults__ is not None
    assert dict(zip(taken[2:], classify.__defaults__[1:], strict=True)) == _as_called.__kwdefaults__
    assert classify.__annotations__ | {"_keywords": None} == _as_called.__annotations__ | {"_keywords": None}
