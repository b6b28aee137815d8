"""What the audit says: one :class:`CallRow` per ``tools/call``, one :class:`Problem` per line
that is not part of a readable conversation, and the line categories that make the counts add up.

Every input line lands in exactly one category of :data:`CATEGORIES`; a call's request and answer
lines (every round, every task poll) count as ``call`` lines.

The rows are frozen msgspec structs: built in C (a row of 37 columns costs well under a
microsecond, where a frozen dataclass paid a Python ``object.__setattr__`` per column), and
sent between the audit's processes as MessagePack (:data:`ENCODE`, :data:`DECODE`). They are
untracked by the cycle collector (``gc=False``): a row holds text, numbers and tuples of other
rows, made before it, so no reference cycle can pass through one; untracked, the rows the
parent of the audit's processes decodes cost the collector nothing (its CPU fell ~0.03 s per
100 MB log).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from math import isfinite
from typing import Any, Final, Literal

import msgspec

CATEGORIES: Final = ("call", "notification", "message", "transport", "stray", "unreadable", "redacted", "blank")
"""``call``: a request or answer of a tools/call (its rounds and task polls included);
``notification``: a JSON-RPC notification; ``message``: any other JSON-RPC message (initialize,
tools/list, ping, server requests and their answers); ``transport``: a frame log record that
is no message (open, close, eof, error, noise, refused); ``stray``: an answer to no request
waiting on its connection (or a second answer); ``unreadable``: a line that is not a record of
its format, or a frame that no parser reads and that answers nothing; ``redacted``: a message
whose payload was not logged (digest and size only), which cannot be judged; ``blank``.
A JSON-RPC batch the audit follows (2025-03-26, the one version with batches) is one line, counted
in the first of ``call``, ``message``, ``notification``, ``stray``, ``unreadable`` its messages are."""

Category = Literal["call", "notification", "message", "transport", "stray", "unreadable", "redacted", "blank"]
End = Literal["answered", "closed", "log_ended", "evicted", "reused_id"]
Fidelity = Literal["wire", "parsed", "status"]


def utc(at: float) -> datetime | None:
    """A recorded time (Unix seconds) as a UTC datetime; None when no datetime holds it (a frame
    log's ``t`` is any number: 1e300 is kept in the rows as written, shown as no time)."""
    try:
        return datetime.fromtimestamp(at, UTC)
    except (OverflowError, OSError, ValueError):
        return None


FIDELITY: Final[Mapping[str, str]] = {
    "wire": "the exact bytes of each frame: every finding is visible (duplicate keys, NaN, bad UTF-8)",
    "parsed": "a result recorded as parsed JSON: wire findings (json.*, envelope.*) cannot be seen",
    "status": "a span's status only: the kind is known for protocol errors and tool errors, "
              "nothing else is judged",
}


class RoundRow(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One round of a call: a tools/call retry, a task request, or a 2025 server's own request
    made while the call waited (its ``request_id`` the server's)."""

    method: str
    request_id: str
    kind: str | None
    """The round's verdict kind (None for a task poll that says the task is still running, an
    acknowledgement, or a server request that is no input request: a ``ping``). A server's
    ``elicitation/create``, ``sampling/createMessage`` or ``roots/list`` is ``input_required``
    when mcp-verdict accepts it, else ``unclassified`` (the call's findings say why)."""
    status: str | None
    """The task status a task round reported."""
    started_at: float | None
    ended_at: float | None
    request_bytes: int
    response_bytes: int | None
    line: int
    answer_line: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "request_id": self.request_id, "kind": self.kind, "status": self.status,
                "started_at": self.started_at, "ended_at": self.ended_at, "request_bytes": self.request_bytes,
                "response_bytes": self.response_bytes, "line": self.line, "answer_line": self.answer_line}


class FindingRow(msgspec.Struct, frozen=True, array_like=True, gc=False):
    code: str
    severity: str
    path: str
    message: str


class CallRow(msgspec.Struct, frozen=True, array_like=True, gc=False, tag="call"):
    """One tools/call as the audit judged it (the Parquet schema has one column per field)."""

    source: str
    line: int
    input_format: str
    fidelity: Fidelity
    conn: str
    call: int
    server: str | None
    server_version: str | None
    transport: str | None
    tool: str | None
    request_id: str
    """The request id as JSON text (``7`` and ``"7"`` stay apart)."""
    protocol_version: str
    version_source: str
    extensions: tuple[str, ...]
    started_at: float | None
    ended_at: float | None
    rounds: tuple[RoundRow, ...]
    """The rounds kept, in order: all of them up to 200; past that the first 100 and the last 100
    (``_held.ROUNDS_FIRST``, ``ROUNDS_LAST``), the :attr:`rounds_shed` between counted."""
    kind: str | None
    """The final verdict kind; None when the input cannot say (a span without a result)."""
    first_kind: str | None
    error_code: int | None
    findings: tuple[FindingRow, ...]
    action: str | None
    rule: str | None
    reason: str | None
    stage: str | None
    accepted: bool
    content_checked: bool
    """The tool's outputSchema was known (its tools/list answer is in the input)."""
    naive: str
    """What ``"result" in json.loads(first answer)`` concludes: success, failure, crash, no_response."""
    naive_false_success: bool | None
    """The naive receiver took the first answer as success and mcp-verdict does not accept it
    (None when the call could not be judged)."""
    unknown_effect: bool
    answered: bool
    finished: bool
    """The call reached a terminal answer (not left at input_required or a running task)."""
    end: End
    task_id: str | None
    order: tuple[Any, ...] = ()
    """Where the row was completed, for a stable merge of parallel audits (not a column; the
    same for any number of processes)."""
    rounds_shed: int = 0
    """The rounds of the call not in :attr:`rounds` (those after its first 100 and before its
    last 100): :attr:`round_count` counts them, :attr:`request_bytes` and :attr:`response_bytes`
    their bytes."""
    shed_request_bytes: int = 0
    """The request bytes of the rounds shed (not a column: in :attr:`request_bytes`)."""
    shed_response_bytes: int = 0
    """The answer bytes of the rounds shed (not a column: in :attr:`response_bytes`)."""

    @property
    def round_count(self) -> int:
        """Every round of the call, kept or shed (the ``rounds`` column)."""
        return len(self.rounds) + self.rounds_shed

    @property
    def duration_ms(self) -> float | None:
        """None without both times, or when the span is past what a float holds (times near its
        limits either side: an infinity, which no JSON number is)."""
        if self.started_at is None or self.ended_at is None:
            return None
        duration = round((self.ended_at - self.started_at) * 1000, 3)
        return duration if isfinite(duration) else None

    @property
    def finding(self) -> str | None:
        """The first error finding's code (else the first finding's)."""
        for item in self.findings:
            if item.severity == "error":
                return item.code
        return self.findings[0].code if self.findings else None

    @property
    def request_bytes(self) -> int:
        return sum(r.request_bytes for r in self.rounds) + self.shed_request_bytes

    @property
    def response_bytes(self) -> int:
        return sum(r.response_bytes or 0 for r in self.rounds) + self.shed_response_bytes

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON (``--json``): every column, the rounds kept (``rounds_shed`` counts the others)
        and the findings in full."""
        return {
            "type": "call", "source": self.source, "line": self.line, "input_format": self.input_format,
            "fidelity": self.fidelity, "conn": self.conn, "call": self.call, "server": self.server,
            "server_version": self.server_version, "transport": self.transport, "tool": self.tool,
            "request_id": self.request_id, "protocol_version": self.protocol_version,
            "version_source": self.version_source, "extensions": list(self.extensions),
            "started_at": self.started_at, "ended_at": self.ended_at, "duration_ms": self.duration_ms,
            "kind": self.kind, "first_kind": self.first_kind, "error_code": self.error_code,
            "finding": self.finding,
            "findings": [{"code": f.code, "severity": f.severity, "path": f.path, "message": f.message}
                         for f in self.findings],
            "decision": None if self.action is None else {"action": self.action, "rule": self.rule,
                                                          "reason": self.reason},
            "stage": self.stage, "accepted": self.accepted, "content_checked": self.content_checked,
            "naive": self.naive, "naive_false_success": self.naive_false_success,
            "unknown_effect": self.unknown_effect, "answered": self.answered, "finished": self.finished,
            "end": self.end, "task_id": self.task_id, "request_bytes": self.request_bytes,
            "response_bytes": self.response_bytes, "rounds": [r.to_dict() for r in self.rounds],
            "rounds_shed": self.rounds_shed,
        }


class Problem(msgspec.Struct, frozen=True, array_like=True, gc=False, tag="problem"):
    """A line the audit could not make part of a call or a message: where it is and why."""

    source: str
    line: int
    category: Literal["stray", "unreadable"]
    reason: str
    conn: str | None = None
    text: bytes = b""
    """The line's (or frame's) first 200 bytes."""
    order: tuple[Any, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"type": "problem", "source": self.source, "line": self.line, "category": self.category,
                "reason": self.reason, "conn": self.conn, "text": self.text.decode("utf-8", "replace")}


Entry = CallRow | Problem
"""What the audit yields, in its order."""

ENCODE: Final = msgspec.msgpack.Encoder()
"""Entries as MessagePack (a list of them per message between the audit's processes)."""
DECODE: Final = msgspec.msgpack.Decoder(list[Entry])
"""The entries back, typed: every row rebuilt in C."""
