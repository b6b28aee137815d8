"""The Python function calls a piece of work makes: a measure of that work which no timing gives
on a shared machine (tests that hold a cost to "the same whatever the input's size")."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def python_calls(work: Callable[[], T]) -> tuple[int, T]:
    """(the Python function calls ``work()`` made, what it returned)."""
    return _counted(work, sys.setprofile, ("call",))


def python_steps(work: Callable[[], T]) -> tuple[int, T]:
    """(the Python function calls and lines ``work()`` ran, what it returned): a line run again
    counts again, so each turn of a loop or a comprehension is a step (``python_calls`` sees none
    of a loop that calls nothing)."""
    return _counted(work, sys.settrace, ("call", "line"))


def _counted(work: Callable[[], T], hook: Callable[[Any], None], events: tuple[str, ...]) -> tuple[int, T]:
    """(the ``events`` the interpreter reports to ``hook``'s function while ``work()`` runs, what it
    returned). A trace function returns itself to be called for each frame's lines too. The cyclic
    garbage collector is off meanwhile: a collection run inside ``work`` calls the finalizers of
    whatever else the process left behind (another test's transports, processes, files), whose
    lines would count as ``work``'s (a bound of 26 steps measured 37 in a full run under xdist)."""
    counted = 0
    collecting = gc.isenabled()
    gc.disable()

    def count(frame: Any, event: str, arg: Any) -> Any:
        nonlocal counted
        if event in events:
            counted += 1
        return count

    hook(count)
    try:
        result = work()
    finally:
        hook(None)
        if collecting:
            gc.enable()
    return counted, result
