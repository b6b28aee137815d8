"""The values a :class:`~mcp_verdict.frames.Tracker` makes and returns: a frame as it got it
(:class:`Seen`), what is in force for a request (:class:`Context`), a request and its answer
(:class:`Exchange`), the events a frame completes (:class:`Answered`, :class:`Unanswered`,
:class:`Stray`: :data:`Event`), and what it says of a task id created again (:class:`Reuse`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Literal, NamedTuple, TypeVar

import msgspec

from ._jsonrpc import Id, Peek

Origin = Literal["client", "server"]
VersionSource = Literal["request_meta", "initialize", "header", "default"]


# The values a frame makes are untracked by the cycle collector (``gc=False``): they hold bytes,
# JSON values as parsed and other such values, never anything that could refer back to them, so
# no reference cycle can pass through them; untracked, the many made per frame cost the
# collector nothing (its share of the tap's work per call fell by ~1,900 instructions).
class Seen(msgspec.Struct, frozen=True, gc=False):
    """A frame as the tracker got it."""

    data: bytes
    at: float
    seq: int
    http: Mapping[str, Any] | None = None


class Context(msgspec.Struct, frozen=True, gc=False):
    """What is in force for one request: the options ``classify`` needs to judge its answer."""

    version: str
    source: VersionSource
    claimed: str | None = None
    """The version string as the wire gave it, when it is not one ``classify`` knows."""
    client_capabilities: Mapping[str, Any] | None = None
    extensions: tuple[str, ...] = ()

    def classify_options(self) -> dict[str, Any]:
        """Keyword arguments for ``classify`` (with the request id added by the caller)."""
        return {"version": self.version, "client_capabilities": self.client_capabilities,
                "extensions": self.extensions}


class Exchange(msgspec.Struct, frozen=True, gc=False):
    """A request and the frame that answers it (``response`` is None while unanswered)."""

    conn: str
    origin: Origin
    """Who sent the request: the client (tools/call...) or the server (elicitation/create...)."""
    method: str
    request_id: Id
    request: Seen
    response: Seen | None
    context: Context
    call: int
    """The logical call this exchange belongs to (numbered per connection from 1)."""
    round: int
    """1 for the call's first request; each MRTR retry and each task request adds one."""
    tool: str | None = None
    task_id: str | None = None
    response_peek: Peek | None = None
    batched: bool = False
    """The request was an element of a JSON-RPC batch (2025-03-26): an element of the server's
    batch answers it. A request sent alone that an element of a batch answers has the whole
    batch as its ``response`` (JSON-RPC 2.0 section 6: a batch is the answer to a batch only),
    so its verdict reads the array the server sent in reply to it."""


class Answered(msgspec.Struct, frozen=True, gc=False):
    exchange: Exchange


class Unanswered(msgspec.Struct, frozen=True, gc=False):
    exchange: Exchange
    reason: str
    evicted: bool = False
    """True when the request was dropped for the bound on requests waiting (``max_pending``)."""


class Stray(msgspec.Struct, frozen=True, gc=False):
    """A frame that answers nothing this tracker knows of."""

    conn: str
    direction: Literal["c2s", "s2c"]
    seen: Seen
    peek: Peek
    reason: str


Event = Answered | Unanswered | Stray
_T = TypeVar("_T")


class Reuse(NamedTuple, Generic[_T]):
    """What :meth:`Tracker.task_reuse` says of a task id a tools/call's answer created."""

    reused: bool
    """The id was in use: the answer broke the rule that task ids are unique."""
    first: _T | None
    """The caller's record of the call whose task held the id (reused for the first time), else None."""
