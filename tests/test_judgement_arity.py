"""Whether a caller's predicate can take its one argument, read from a plain function's code
(``judgement/_suspect._takes``: an expectation is given on each call judged, often as a fresh
lambda, and ``inspect.signature`` costs about twenty times as much), against what
``inspect.signature(...).bind`` says of the same callable (Python's own reading of a signature:
the oracle). Each row's expected value is written by hand; the table checks both agree with it."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from mcp_verdict.judgement._suspect import _takes, call_problem


class Holder:
    def one(self, verdict: Any) -> bool:
        return True

    def none(self) -> bool:
        return True

    @staticmethod
    def static(verdict: Any) -> bool:
        return True

    @classmethod
    def klass(cls, verdict: Any) -> bool:
        return True


def two(verdict: Any, tool: Any) -> bool:
    return True


@functools.wraps(two)
def wraps_two(*args: Any) -> bool:  # inspect follows __wrapped__: two's signature
    return True


def tagged(verdict: Any) -> bool:
    return True


tagged.note = "an attribute"  # type: ignore[attr-defined]  # (a __dict__: inspect decides)

# (callable, can it take one positional argument, can _takes read it from its code)
ROWS: list[tuple[str, Callable[..., Any], bool, bool]] = [
    ("one", lambda v: True, True, True),
    ("none", lambda: True, False, True),
    ("two", lambda v, t: True, False, True),
    ("one with a default", lambda v, t=1: True, True, True),
    ("all defaulted", lambda v=1, t=2: True, True, True),
    ("*args", lambda *a: True, True, True),
    ("one, *args", lambda v, *a: True, True, True),
    ("two, *args", lambda a, b, *c: True, False, True),
    ("keyword-only required", lambda *, k: True, False, True),
    ("one, keyword-only defaulted", lambda v, *, k=1: True, True, True),
    ("one, keyword-only required", lambda v, *, k: True, False, True),
    ("positional-only defaulted", lambda v=1, /: True, True, True),
    ("positional-only then required", lambda a, /, b: True, False, True),
    ("**kwargs only", lambda **kw: True, False, True),
    ("one, **kwargs", lambda v, **kw: True, True, True),
    ("bound method", Holder().one, True, True),
    ("bound method of no argument", Holder().none, False, True),
    ("staticmethod", Holder.static, True, True),
    ("classmethod", Holder.klass, True, True),
    ("partial", functools.partial(two, 1), True, False),
    ("partial of too many", functools.partial(lambda a, b, c: True, 1), False, False),
    ("wraps: the wrapped signature", wraps_two, False, False),
    ("a function with a __dict__", tagged, True, False),
    ("a builtin", len, True, False),
    ("a class without a signature", dict, True, False),
]


@pytest.mark.parametrize(("name", "function", "takes", "from_code"), ROWS, ids=[row[0] for row in ROWS])
def test_a_predicate_can_take_one_argument(name: str, function: Callable[..., Any], takes: bool,
                                           from_code: bool) -> None:
    try:
        signature = inspect.signature(function)
    except ValueError:  # no signature to read (a builtin type): taken, as call_problem takes it
        oracle = True
    else:
        try:
            signature.bind(None)
            oracle = True
        except TypeError:
            oracle = False
    assert (oracle, call_problem(function) is None) == (takes, takes)
    # read from the code only where the code says it all; and then never more lenient than inspect
    assert _takes(function, 1) == (takes and from_code)
