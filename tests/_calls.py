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


def python_steps(work: Callable[[], T]) -> tuple[int, T]:
    """(the Python function calls and lines ``work()`` ran, what it returned): a line run again
    counts again, so each turn of a loop or a comprehension is a step (``python_calls`` sees none
    of a loop that calls nothing)."""
    steps = 0

    def count(frame: Any, event: str, arg: Any) -> Any:
        nonlocal steps
        if event in ("call", "line"):
            steps += 1
        return count

    sys.settrace(count)
    try:
        result = work()
    finally:
        sys.settrace(None)
    return steps, result
