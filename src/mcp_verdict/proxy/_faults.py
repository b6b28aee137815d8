"""The proxy's own faults (of its code, or of a library it calls) that reach a last-resort
handler: the reason each gives (:func:`failed`) and its one stderr line (:func:`told`).

Such a handler stands where an exception would otherwise end a task unseen ("Task exception was
never retrieved") or close a pipe (an asyncio protocol's callback): it says the fault, and what
waited for the work is answered (README, "The proxy", Faults)."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Final, Literal

from ..verdict._peer_text import cut, neutral

if TYPE_CHECKING:
    from ._relay import Relay

_SHOWN: Final = 300
"""Characters of a message shown on the proxy's one stderr line (:func:`told`)."""


def failed(doing: str, exc: BaseException) -> str:
    """The reason of a fault met while ``doing``: ``the proxy failed <doing>: <type>: <message>``."""
    return f"the proxy failed {doing}: {type(exc).__name__}: {exc}"


def told(text: str) -> None:
    """``text`` as one stderr line: ``mcp-verdict proxy:`` and the text cut at :data:`_SHOWN`
    characters, every control character shown as its escape (a peer's bytes may be in it). A
    stderr that cannot be written (closed) is no fault of the caller's: the line is lost."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"mcp-verdict proxy: {neutral(cut(text, _SHOWN))}\n")
        sys.stderr.flush()


def said(relay: Relay, reason: str, note: str | None = None, *, transport: Literal["stdio", "http"] | None = None,
         direction: Literal["c2s", "s2c"] = "s2c") -> None:
    """``reason`` :func:`told`, then noted in ``relay``'s frame log as an ``error`` record (its text
    ``note``, ``reason`` when None). A fault as it is noted (the fault may be the relay's own) is
    not raised: the stderr line has said it."""
    told(reason)
    with contextlib.suppress(Exception):
        relay.note("error", direction, reason if note is None else note, transport=transport)
