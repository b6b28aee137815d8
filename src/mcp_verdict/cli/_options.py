"""Options more than one command takes."""

from __future__ import annotations

import json
from typing import Any

import click

from ..verdict._classify import DEFAULT_LIMITS
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


def json_value(text: str, param_hint: str, *, standard: bool = True) -> Any:
    """An option's JSON value, or a usage error naming the option: not JSON, nested too deep to
    read (never a RecursionError traceback), or, with ``standard``, holding NaN, Infinity or a
    number no double holds (which Python's reader accepts and a tool would receive as null)."""
    try:
        if standard:
            return json.loads(text, parse_constant=_not_standard, parse_float=_finite)
        return json.loads(text)
    except RecursionError:
        raise click.BadParameter("nested too deeply to read", param_hint=param_hint) from None
    except _NotStandard as exc:
        raise click.BadParameter(str(exc), param_hint=param_hint) from None
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint=param_hint) from None
