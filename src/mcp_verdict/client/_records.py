"""What a call through the client records (:class:`Round`, one request and its answer;
:class:`CallRecord`, everything one call did) and the bounds of what it keeps: a running task's
polls past :data:`_POLLS_KEPT` shed (:func:`_shed_polls`), the history's calls within
:data:`_HISTORY` and :data:`_HISTORY_BYTES`, each counted by :func:`_held`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..judgement._outcome import Outcome
from ..verdict._verdict import Verdict
from ._wire import Frame, bytes_field

_HISTORY: Final = 100
_HISTORY_BYTES: Final = 64 * 1024 * 1024
"""What the history's calls may hold together (:func:`_held`): 100 calls answered with many
megabytes each were all kept, their frames and the verdicts' parse of them."""
_POLLS_KEPT: Final = 100
"""The polls of a running task one call's record keeps (:attr:`CallRecord.polls_shed`)."""


@dataclass(frozen=True, slots=True)
class Round:
    """One request/answer exchange of a call: a ``tools/call`` round, or a task request."""

    method: str
    request: bytes | None
    response: bytes | None
    """The bytes judged (the answer), or None when no answer came."""
    verdict: Verdict
    """The verdict of this round: of its answer (a tools/call round, a terminal task result), or,
    for a task request whose task is still running, the call's task verdict."""
    started_at: float
    finished_at: float
    request_sent: bool = True
    frames: tuple[Frame, ...] = ()
    """Every frame of the exchange: the request, what came in for it, the answer."""
    noise: tuple[Frame, ...] = ()
    """Lines that were not JSON-RPC messages (stdio), recorded and not taken as the answer (the
    ones the wire log kept)."""
    status: str | None = None
    """The task's status, for a task request (tasks/get, tasks/result)."""
    noise_shed: int = 0
    """Noise lines of the exchange the wire log was too full to keep: counted, not kept."""

    @property
    def noise_count(self) -> int:
        """Every noise line the server wrote during the exchange, kept or not."""
        return len(self.noise) + self.noise_shed

    @property
    def kind(self) -> str:
        """What this round was: the kind of its verdict (``task`` while a task is running)."""
        return self.verdict.kind.value

    def to_dict(self, *, raw_bytes: bool = False) -> dict[str, Any]:
        """JSON form; ``raw_bytes``: the request's, the response's and the frames' bytes as they
        are (:func:`bytes_field`)."""
        out: dict[str, Any] = {"method": self.method, "kind": self.kind}
        if self.status is not None:
            out["status"] = self.status
        out["findings"] = [f.code for f in self.verdict.findings]
        out.update(bytes_field("request", self.request, raw=raw_bytes))
        out.update(bytes_field("response", self.response, raw=raw_bytes))
        out["request_sent"] = self.request_sent
        out["started_at"], out["finished_at"] = self.started_at, self.finished_at
        out["frames"] = [frame.to_dict(raw_bytes=raw_bytes) for frame in self.frames]
        return out


@dataclass
class CallRecord:
    """Everything one call_tool did: its rounds (MRTR retries, task polls) and its outcome."""

    name: str
    arguments: Mapping[str, Any]
    rounds: list[Round] = field(default_factory=list)
    outcome: Outcome | None = None
    polls_shed: int = 0
    """Task polls of a still-running task not kept in :attr:`rounds`: past :data:`_POLLS_KEPT`
    of them the first and the latest are kept (a task polled every 10 ms for ``task_timeout``
    would otherwise hold thousands of rounds, each with its bytes), the ones between counted;
    the polls that brought input requests and the tasks/update requests are always kept."""


def _held(record: CallRecord) -> int:
    """What a call's record holds, counted: the bytes of its rounds' frames, and of their answers
    once more (the verdict's parse of an answer: its length for a text block; JSON of many small
    values takes more)."""
    return sum(sum(len(frame.data) for frame in round_.frames) + len(round_.response or b"")
               for round_ in record.rounds)


def _shed_polls(record: CallRecord, first_poll: int, pinned: set[int]) -> None:
    """Past :data:`_POLLS_KEPT` rounds of a task, shed the oldest poll after the first that is not
    pinned (a poll that brought input requests, a tasks/update), counted in ``polls_shed``."""
    if len(record.rounds) - first_poll <= _POLLS_KEPT:
        return
    for at in range(first_poll + 1, len(record.rounds) - 1):
        if id(record.rounds[at]) not in pinned:
            del record.rounds[at]
            record.polls_shed += 1
            return
