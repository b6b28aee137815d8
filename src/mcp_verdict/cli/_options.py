"""Options more than one command takes."""

from __future__ import annotations

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
