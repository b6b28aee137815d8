"""The full checker's way through a parsed response: the envelope, then the error or the result.

Every rule lives in the module named for what it inspects; this one only says in which order
they run. ``_classify`` imports it (and with it the rules' modules) on the full checker's first
run: an import of classify, and the common answers the fast path proves, need none of them.
"""

from __future__ import annotations

from ._envelope import check_envelope
from ._error import check_error
from ._kind import Kind
from ._result import check_result
from ._walk import Context


def check_message(ctx: Context, message: object, request_id: str | int | None) -> Kind | None:
    """The kind of ``message`` by every rule, or None where the envelope leaves none; the
    findings go to ``ctx``."""
    branch = check_envelope(ctx, message, request_id)
    if branch is None:
        return None
    assert isinstance(message, dict)
    if branch == "error":
        check_error(ctx, message["error"])
        return Kind.PROTOCOL_ERROR
    return check_result(ctx, message["result"])
