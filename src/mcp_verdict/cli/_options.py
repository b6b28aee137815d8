"""Options more than one command takes."""

from __future__ import annotations

import json
from typing import Any

import click

from ..corpus import _shown
from ..verdict._classify import DEFAULT_LIMITS
from ..verdict._findings import pointer
from ..verdict._parser import PARSER_MAX_DEPTH


def limits_option(function: Any) -> Any:
    """``--max-bytes`` and ``--max-depth``: the classifier's limits (``classify``, ``call``, ``tools``)."""
    function = click.option("--max-depth", type=click.IntRange(1, PARSER_MAX_DEPTH),
                            default=DEFAULT_LIMITS.max_depth, show_default=True,
                            help="Deepest nesting a response may have.")(function)
    return click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_LIMITS.max_bytes,
                        show_default=True, help="Largest response (and stdio line) read, in bytes.")(function)


class _NotStandard(ValueError):
    pass


def _not_standard(name: str) -> Any:
    raise _NotStandard(f"{name} is not standard JSON (RFC 8259 s6 has no NaN or Infinity)")


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise _NotStandard(f"{text} is not standard JSON here: it overflows a double (RFC 8259 s6)")
    return number


class _Objects:
    """The ``object_pairs_hook`` that keeps every member name's first copy in view: the objects
    read with a name given twice, by identity, and that name (the reader would keep the last copy
    silently; label files refuse them the same way, kit's ``_labels``)."""

    __slots__ = ("twice",)

    def __init__(self) -> None:
        self.twice: dict[int, str] = {}

    def __call__(self, items: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for name, value in items:
            if name in result and id(result) not in self.twice:
                self.twice[id(result)] = name
            result[name] = value
        return result

    def first(self, value: Any) -> tuple[str, str] | None:
        """The JSON pointer (RFC 6901) of the first object, in the text's order, with a name
        given twice, and that name (walked without recursion: the value may nest deep)."""
        if not self.twice:
            return None
        stack: list[tuple[str, Any]] = [("", value)]
        while stack:
            path, item = stack.pop()
            if isinstance(item, dict):
                if id(item) in self.twice:
                    return path, self.twice[id(item)]
                stack.extend((pointer(path, name), member) for name, member in reversed(item.items()))
            elif isinstance(item, list):
                stack.extend((pointer(path, index), member) for index, member in reversed(list(enumerate(item))))
        return None  # not reached: every object read is in the value


def json_value(text: str, param_hint: str, *, standard: bool = True) -> Any:
    """An option's JSON value, or a usage error naming the option: not JSON, nested too deep to
    read (never a RecursionError traceback), a member name given twice in one object (named, with
    the object's JSON pointer: Python's reader keeps the last copy silently, and a tool would run
    with the user's mistake; RFC 8259 s4), or, with ``standard``, holding NaN, Infinity or a
    number no double holds (which Python's reader accepts and a tool would receive as null)."""
    objects = _Objects()
    try:
        if standard:
            value = json.loads(text, object_pairs_hook=objects, parse_constant=_not_standard, parse_float=_finite)
        else:
            value = json.loads(text, object_pairs_hook=objects)
    except RecursionError:
        raise click.BadParameter("nested too deeply to read", param_hint=param_hint) from None
    except _NotStandard as exc:
        raise click.BadParameter(str(exc), param_hint=param_hint) from None
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint=param_hint) from None
    twice = objects.first(value)
    if twice is not None:
        path, name = twice
        where = "the top-level object" if not path else f"the object at {_shown(path)}"
        raise click.BadParameter(f"{_shown(name)} is given twice in {where} (a member name is given once: "
                                 "RFC 8259 s4)", param_hint=param_hint)
    return value
