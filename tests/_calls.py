"""The Python function calls a piece of work makes: a measure of that work which no timing gives
on a shared machine (tests that hold a cost to "the same whatever the input's size")."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def python_calls(work: Callable[[], T]) -> tuple[int, T]:
    """(the Python function calls ``work()`` made, what it returned)."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        result = work()
    finally:
        sys.setprofile(None)
    return calls, result
