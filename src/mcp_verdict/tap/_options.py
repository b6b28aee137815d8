"""A judging block's options and attempt, checked when the block is made, before any request is
sent (:func:`_checked_options`, :func:`_attempt`): a call is never made only for its judgement
to refuse an option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..judgement._check import judging_options
from ..judgement._decide import DEFAULT_RETRY, RetryPolicy, plain_number
from ..judgement._outcome import evaluate_listed
from ..judgement._schema import DEFAULT_SCHEMA_LIMITS
from ..judgement._suspect import DEFAULT_SUSPECTS
from ..verdict._classify import OptionError, check_option
from ..verdict._shown import shown
from ..verdict._versions import LATEST_VERSION
from ._conn import Attempt
from ._error import local_verdict

_OPTIONS: Final = frozenset({"expect", "tool", "trusted_server", "suspects", "schema_limits", "absent_result_type",
                             "limits"})


def _attempt(attempt: object, retry: object) -> Attempt:
    """A judging block's attempt and policy (None for the defaults), or an OptionError naming
    them. An int subclass is read as its plain value (its comparisons are caller code)."""
    given = attempt if type(attempt) is int else plain_number(attempt)
    if type(given) is not int or given < 1:
        raise OptionError("attempt", "an integer from 1", attempt, f"attempt counts from 1, not {shown(attempt)}")
    if not isinstance(retry, RetryPolicy):
        raise OptionError("retry", "a RetryPolicy (mcp_verdict.RetryPolicy)", retry)
    return None if given == 1 and retry == DEFAULT_RETRY else (given, retry)


_OPTIONS_CHECKED: Final = local_verdict("transport.error", "no call: a judging block's options being checked",
                                       LATEST_VERSION)
"""The verdict the options of a judging block are checked with, before any call (never judged)."""


def _checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A judging block's options, checked when the block is made, before any request is sent:
    an unknown name is a TypeError, a wrong value the :class:`~mcp_verdict.OptionError` that
    judging the call would raise (classify's checks of ``limits`` and ``absent_result_type``, the
    content check's of ``tool``, ``expect``, ``suspects`` and ``schema_limits``, evaluate's of
    ``trusted_server``; None is the tap's default), so a call is never made only for its
    judgement to refuse an option. The suspects come back as a tuple, read once."""
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"unknown judge option(s): {', '.join(sorted(unknown))}")
    for name in ("limits", "absent_result_type"):
        value = options.get(name)
        if value is not None:
            check_option(name, value)
    trusted = options.get("trusted_server")
    if trusted is not None and trusted is not True and trusted is not False:
        evaluate_listed(_OPTIONS_CHECKED, None, None, trusted_server=trusted)  # raises: evaluate's own check
    checked = dict(options)
    expect, tool = options.get("expect"), options.get("tool")
    suspects = options.get("suspects", DEFAULT_SUSPECTS)
    schema_limits = options.get("schema_limits", DEFAULT_SCHEMA_LIMITS)
    if expect is not None or tool is not None or suspects is not DEFAULT_SUSPECTS \
            or schema_limits is not DEFAULT_SCHEMA_LIMITS:
        _, checked["suspects"] = judging_options(_OPTIONS_CHECKED, tool, expect, suspects, schema_limits)
    return checked
