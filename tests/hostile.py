"""Option values that break code which writes or walks them naively, shared by the option-error
tables: a list nested past the interpreter's recursion limit (its ``repr`` raises
RecursionError, a recursive walk overflows)."""

from __future__ import annotations

from typing import Any


def nested_list(levels: int = 100_000) -> list[Any]:
    """A list nested ``levels`` deep: ``[[[...]]]``."""
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value
