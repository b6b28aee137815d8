"""The six kinds of verdict."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """What a ``tools/call`` response turned out to be.

    Only ``normal_complete`` can ever lead to success, and only after the content check
    and (for writes) an observed completion. ``unclassified`` is never promoted to success.
    """

    PROTOCOL_ERROR = "protocol_error"
    """A JSON-RPC error response: the request itself failed."""
    TOOL_ERROR = "tool_error"
    """A complete result with ``isError: true``: the tool ran and reported a failure."""
    INPUT_REQUIRED = "input_required"
    """The server needs input (elicitation, sampling, roots) before it can finish (2026-07-28)."""
    NORMAL_COMPLETE = "normal_complete"
    """A well-formed complete result without ``isError: true``. Not business success yet."""
    TASK = "task"
    """A task handle: the work continues asynchronously (tasks extension)."""
    UNCLASSIFIED = "unclassified"
    """Malformed or not allowed here; the findings say why. Never success."""
