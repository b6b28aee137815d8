"""What an :class:`~mcp_verdict.audit.Auditor` holds while it reads: of each call in flight
(:class:`_Call`) its rounds, the first :data:`ROUNDS_FIRST` and the last :data:`ROUNDS_LAST` kept,
those between counted (:class:`_Rounds`); of each connection (:class:`_Conn`) its server, its
transport, the tools kept of its listings and their outputSchemas compiled once per listing
(:func:`_listed_schema`); and :class:`Held`, what it hands over of one connection to another
auditor of the same recording (``Auditor.export``, ``Auditor.adopt``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from ..frames import Exchange
from ..frames._tools import ListedTools
from ..judgement._schema import CompiledSchema, compile_key, schema_key
from ..verdict._input import RefusedAsks
from ..verdict._verdict import Verdict
from ._methods import _TASK_METHODS
from ._rows import RoundRow

ROUNDS_FIRST: Final = 100
"""The first rounds of a call its row keeps (``CallRow.rounds``; :class:`_Rounds`)."""
ROUNDS_LAST: Final = 100
"""The last rounds of a call its row keeps after its first :data:`ROUNDS_FIRST`: the rounds
between are counted (``CallRow.rounds_shed``, their bytes in ``request_bytes`` and
``response_bytes``), not kept. A task polled without end, or a server asking a million times
during one call, holds at most ``ROUNDS_FIRST + ROUNDS_LAST`` rounds."""


class _Rounds(msgspec.Struct):
    """A call's rounds (or those of the server requests made while it waits), in order: the first
    :data:`ROUNDS_FIRST` and the last :data:`ROUNDS_LAST` kept, those between counted; what its
    row says of all of them (how many, how many answers, their bytes) counted as they come."""

    head: list[RoundRow] = msgspec.field(default_factory=list)
    tail: list[RoundRow] = msgspec.field(default_factory=list)
    """The last rounds, once :attr:`head` is full (at most :data:`ROUNDS_LAST`)."""
    total: int = 0
    answers: int = 0
    """The rounds that are answers to the client's call (a tools/call, a task request): what the
    naive receiver's first answer is compared with (:meth:`Auditor._finish`)."""
    shed_request_bytes: int = 0
    shed_response_bytes: int = 0

    def add(self, row: RoundRow) -> None:
        self.total += 1
        method = row.method
        if method == "tools/call" or method in _TASK_METHODS:
            self.answers += 1
        head = self.head
        if len(head) < ROUNDS_FIRST:
            head.append(row)
            return
        tail = self.tail
        tail.append(row)
        if len(tail) > ROUNDS_LAST:
            self._shed(tail.pop(0))

    def _shed(self, row: RoundRow) -> None:
        self.shed_request_bytes += row.request_bytes
        self.shed_response_bytes += row.response_bytes or 0

    def extend(self, other: _Rounds) -> None:
        """``other``'s rounds after these, as if added one by one."""
        total, answers = self.total + other.total, self.answers + other.answers
        for row in other.head:
            self.add(row)
        if other.shed:  # (then its head was full, so is ours now; its ROUNDS_LAST last rounds come after the
            for row in self.tail:  # ones it shed: every round in our tail goes)
                self._shed(row)
            self.tail = []
            self.shed_request_bytes += other.shed_request_bytes
            self.shed_response_bytes += other.shed_response_bytes
        for row in other.tail:
            self.add(row)
        self.total, self.answers = total, answers

    @property
    def shed(self) -> int:
        """The rounds counted, not kept."""
        return self.total - len(self.head) - len(self.tail)

    def kept(self) -> tuple[RoundRow, ...]:
        return (*self.head, *self.tail) if self.tail else tuple(self.head)


class _Call(msgspec.Struct):
    first: Exchange
    source: str
    line: int
    rounds: _Rounds = msgspec.field(default_factory=_Rounds)
    """Each round's row, made when the round is over (a call's row takes those kept as they are)."""
    verdict: Verdict | None = None
    first_verdict: Verdict | None = None
    naive: str = "no_response"
    task_id: str | None = None
    answered: bool = False
    refused: RefusedAsks | None = None
    """The 2025 server requests made during the call that mcp-verdict refuses: its final verdict
    takes their findings and ends ``unclassified``."""


class _Conn(msgspec.Struct):
    server: str | None = None
    server_version: str | None = None
    transport: str | None = None
    listed: ListedTools = msgspec.field(default_factory=ListedTools)
    """The tools kept of the server's listings (``frames._tools``: a whole listing replaces them;
    at most 10,000 tools and 64 MiB)."""
    schemas: dict[str, CompiledSchema | None] = msgspec.field(default_factory=dict)
    """Per kept tool called: its outputSchema compiled as listed, None when it has none (once per
    listing, not per call: :func:`_listed_schema`); forgotten with the tool."""

    def dropped(self, name: str, tool: Any, size: int) -> None:
        """Tool ``name`` is no longer kept: its compiled schema neither."""
        self.schemas.pop(name, None)


class Held(msgspec.Struct):
    """What an :class:`Auditor` holds of one connection (:meth:`Auditor.export`)."""

    tracker: Any
    info: _Conn
    open: list[tuple[tuple[str, int], _Call]]
    asked: list[tuple[tuple[str, int], _Rounds]]
    lines: list[tuple[tuple[str, int], tuple[str, int]]]
    aside: list[tuple[tuple[str, tuple[str, Any]], list[Exchange]]] = msgspec.field(default_factory=list)
    cancels: list[tuple[tuple[str, int], tuple[str, int, str | None]]] = msgspec.field(default_factory=list)
    shared: list[tuple[tuple[str, int], int]] = msgspec.field(default_factory=list)
    """The batches whose requests wait: how many wait (``Auditor._shared``)."""
    refused: list[tuple[tuple[str, int], RefusedAsks]] = msgspec.field(default_factory=list)
    """The server requests refused while a call waits (``Auditor._refused``)."""
    asks: list[tuple[tuple[str, int], tuple[int, RoundRow | None]]] = msgspec.field(default_factory=list)
    """The server requests made during a call that the client has not answered (``Auditor._asks``)."""
    asks_of: list[tuple[tuple[str, int], dict[tuple[str, int], None]]] = \
        msgspec.field(default_factory=list)
    """Per call, its keys of ``asks`` (``Auditor._asks_of``)."""


def _listed_schema(info: _Conn, name: str, tool: Mapping[str, Any]) -> CompiledSchema | None:
    """The outputSchema of a listed tool, compiled once per listing and kept in ``info.schemas``
    (None: the tool declares none, or its schema is no JSON value, which the content check
    reports from the tool itself)."""
    schema = tool.get("outputSchema")
    key = schema_key(schema) if "outputSchema" in tool else None
    # (a large key copied from the schema on a miss, not parsed whole: compile_key's source)
    compiled = info.schemas[name] = compile_key(key, "/outputSchema", source=schema) if key is not None else None
    return compiled
