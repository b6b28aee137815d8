"""What every command shares: the exit status per kind and the colour per kind."""

from __future__ import annotations

from typing import Final

from ..verdict._kind import Kind

EXIT_CODES: Final[dict[Kind, int]] = {
    Kind.NORMAL_COMPLETE: 0,
    Kind.TASK: 10,
    Kind.INPUT_REQUIRED: 11,
    Kind.TOOL_ERROR: 12,
    Kind.PROTOCOL_ERROR: 13,
    Kind.UNCLASSIFIED: 20,
}
"""Exit status per kind; with several responses the highest one wins (unclassified is worst)."""

_STYLE: Final = {
    Kind.NORMAL_COMPLETE: "green",
    Kind.TOOL_ERROR: "yellow",
    Kind.INPUT_REQUIRED: "cyan",
    Kind.TASK: "blue",
    Kind.PROTOCOL_ERROR: "magenta",
    Kind.UNCLASSIFIED: "bold red",
}
