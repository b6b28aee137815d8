"""JSON-RPC batches through the relay: MCP 2025-03-26's, followed message by message.

MCP 2025-03-26 lets a client and a server send JSON-RPC batches (basic/index#batching: an
implementation MUST support receiving them; basic/transports: a stdio line or a POST body may
be an array of requests and notifications, or of responses). No other version has them
(2024-11-05 never did; 2025-06-18 removed them), so a batch is followed only where the version
in force on the connection is 2025-03-26 (:meth:`frames.Tracker.batch`); elsewhere it goes
through the relay as before: one frame that answers nothing.

A batch that is followed is read element by element, each element a frame of its own with its
exact bytes (:func:`frames._jsonrpc.batch_elements`), handed to the relay as if it had come
alone — so each request is awaited with its deadline and each answer is paired and judged
(every ``tools/call`` answer on its own bytes) as any other frame. What crosses:

- a host's batch is forwarded upstream unchanged (a host frame always is), and recorded as one
  ``message`` record (the bytes the upstream was sent); an element the proxy answers itself
  (an id in flight, an unreadable request it cannot await) gets its answer as a frame of its
  own, recorded as such. In ``enforce``, a request whose routing members two parsers read two
  ways (``_twice``) is answered so, recorded ``refused`` and left out: the upstream is sent the
  other elements, in order, as one batch (none: nothing), which the batch's record holds, its
  note naming each element left out (its place, the member; no record when none is sent); in
  ``observe`` such an element goes with the batch, and the batch's record notes it (its place and
  ``_twice.note``). The batch's record comes before its elements' own records (the proxy's
  answers, the refused ones), written once the elements are read;
- an upstream's batch, in ``observe``, reaches the host byte for byte, each call judged and
  its verdict line written (an element the relay alone would refuse, a late answer, goes with
  it: no ``refused`` record, the batch's record notes it); in ``enforce``, each element is what
  the relay makes of it alone: kept byte for byte, replaced (an unclassified answer becomes the proxy's REFUSED error or
  tool error, ``_codes.refusal``), or left out (an answer to no request the host waits for); the
  host gets the elements kept, in order, as one batch — the upstream's bytes unchanged when
  every element is kept — recorded as one ``message`` record, each element refused with its
  ``refused`` record. A batch left with no element is not sent. What the relay sends upstream
  for an element (an error for a server request no strict parser reads) goes as its own frame.

The element records are not written (a recorder that drops the elements' ``message`` records
while the batch's elements go through the relay): the frame log holds what crossed, the batch.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from ..frames import FrameRecord
from ..frames._jsonrpc import is_batch
from ._twice import may_repeat, two_readings
from ._twice import reason as twice_reason

if TYPE_CHECKING:
    from ._relay import Key, Out, Recorder, Relay

class _Elements:
    """A recorder that lets through everything but the ``message`` records of one direction (the
    batch's elements, which the batch's own record holds) and, when ``held`` is a list, the
    ``refused`` records of that direction, kept there with the element's place (``at``): an
    element observe forwards with its batch though the relay refused it alone. With ``later`` a
    list, the records let through are put there, for the caller to write after the batch's own
    record (a host's batch, whose record is written once its elements are read)."""

    def __init__(self, inner: Recorder, direction: Literal["c2s", "s2c"],
                 held: list[tuple[int, FrameRecord]] | None = None, later: list[FrameRecord] | None = None) -> None:
        self.inner = inner
        self.direction = direction
        self.held = held
        self.later = later
        self.at = 0

    def frame(self, record: FrameRecord) -> None:
        if record.dir == self.direction:
            if record.kind == "message":
                return
            if record.kind == "refused" and self.held is not None:
                self.held.append((self.at, record))
                return
        if self.later is not None:
            self.later.append(record)
            return
        self.inner.frame(record)

    def verdict(self, line: Mapping[str, Any]) -> None:
        self.inner.verdict(line)

    @property
    def wants_verdicts(self) -> bool:
        return self.inner.wants_verdicts

    redacts = False
    """The records it holds or passes on are given whole (the inner recorder redacts them)."""


def follows(relay: Relay, body: bytes, http: Mapping[str, Any] | None) -> bool:
    """An HTTP host's body is a batch the relay follows (the session's version is 2025-03-26):
    accepted, where a body that is no JSON-RPC message object is refused with 400. MCP 2025-03-26
    basic/transports (Streamable HTTP, Sending Messages to the Server): the body may be a batch of
    requests and notifications, or of responses; one of responses and notifications only gets 202,
    one holding requests an SSE stream or one JSON body — the proxy's answer carries every answer
    to the batch's requests: the upstream's batch of answers as one JSON body, or, when they come
    apart (an HTTP upstream's events, a stdio upstream's lines), SSE events as they come, the last
    one ending it (:class:`._bridge.Bridge`; an HTTP upstream's response to the batch is read until
    each is answered)."""
    return is_batch(body) and not isinstance(relay.tracker.batch(relay.conn, body, http), str)


def host_batch(relay: Relay, data: bytes, http: Mapping[str, Any] | None, forwarded: bool) -> list[Out] | None:
    """A host frame that is a batch: what to send (None: the batch is not followed, and goes
    through the relay as one frame). The relay's counts count each element as a frame; its
    ``last_opened`` is the first request the batch opened, ``batch_opened`` every one, in order."""
    from ._relay import Out

    elements = relay.tracker.batch(relay.conn, data, http)
    if isinstance(elements, str):
        return None
    seq = relay._seq  # (the batch's record comes first, written once its elements are read: its notes)
    relay._seq += 1
    at = time.time()
    outs: list[Out] = []
    opened: list[Key] = []
    sent: list[bytes] = []
    notes: list[str] = []
    later: list[FrameRecord] = []
    count = len(elements)
    relay.twice_note = None
    try:
        with _quiet(relay, "c2s", later=later):
            for index, part in enumerate(elements, 1):
                if is_batch(part):  # an array in a batch: no message (the tracker says so), sent on in it
                    relay.tracker.feed(relay.conn, "c2s", part, at=time.time(), seq=-1, http=http, element=True)
                    sent.append(part)
                    continue
                # (enforce: a request read two ways is answered by the relay and left out of the batch, _twice)
                member = two_readings(part) if relay.enforce and not forwarded and may_repeat(part) else None
                outs.extend(relay.from_host(part, http, forwarded=member is None))
                if member is not None:
                    notes.append(f"element {index} of {count} not forwarded (enforce): {twice_reason(member)}")
                    continue
                if relay.twice_note is not None:  # (observe: forwarded with the batch, its note the batch's)
                    notes.append(f"element {index} of {count}: {relay.twice_note}")
                    relay.twice_note = None
                sent.append(part)
                if relay.last_opened is not None:
                    opened.append(relay.last_opened)
    finally:  # the batch's record (the bytes the upstream is sent; none when it is sent none), then its elements'
        frame = data if forwarded or len(sent) == count else b"[" + b",".join(sent) + b"]" if sent else None
        if frame is not None:
            relay._log("c2s", "message", frame, http=http, seq=seq, at=at, note="; ".join(notes) if notes else None)
        recorder = relay.recorder
        if recorder is not None:
            for record in later:
                recorder.frame(record)
    # (an HTTP host's POST: the stream the batch's answers go to, every one: Bridge.from_host)
    relay.last_opened = opened[0] if opened else None
    relay.batch_opened = tuple(opened)
    if forwarded:
        return outs
    return [Out("upstream", frame), *outs] if frame is not None else outs


def upstream_batch(relay: Relay, data: bytes, http: Mapping[str, Any] | None) -> list[Out] | None:
    """An upstream frame that is a batch: what to send (None: the batch is not followed, and
    goes through the relay as one frame). The relay's counts count each element as a frame."""
    from ._relay import Out

    elements = relay.tracker.batch(relay.conn, data, http)
    if isinstance(elements, str):
        return None
    kept: list[bytes] = []
    answers: Key | None = None
    also: list[Key] = []
    others: list[Out] = []
    held: list[tuple[int, FrameRecord]] | None = None if relay.enforce else []
    refused = relay.stats.refused
    with _quiet(relay, "s2c", held) as quiet:
        for at, part in enumerate(elements, 1):
            if quiet is not None:
                quiet.at = at
            if is_batch(part):  # an array in a batch: no message (the tracker says so)
                relay.tracker.feed(relay.conn, "s2c", part, at=time.time(), seq=-1, http=http, element=True)
                if relay.enforce:
                    relay._log("s2c", "refused", part, http=http, note="enforce: an array inside a batch is not a "
                               "JSON-RPC message")
                else:
                    kept.append(part)
                continue
            for out in relay.from_upstream(part, http):
                if out.to != "host":
                    others.append(out)
                    continue
                kept.append(out.data)
                if out.answers is not None:
                    if answers is None:
                        answers = out.answers
                    else:
                        also.append(out.answers)
    note = None
    if not relay.enforce:  # observe: the batch as it came, whatever each element made
        frame = data
        late = relay.stats.refused - refused  # (observe refuses only a late answer: it reaches the host here)
        relay.stats.refused -= late
        relay.stats.forwarded += late
        if held:
            note = "; ".join(f"element {at} of {len(elements)} forwarded with the batch (observe): {record.note}"
                             for at, record in held)
    elif kept == elements:
        frame = data
    elif not kept:
        return others
    else:
        frame = b"[" + b",".join(kept) + b"]"
        note = "the upstream's batch as the proxy rewrote it (enforce)"
    relay._log("s2c", "message", frame, http=http, note=note)
    return [Out("host", frame, answers=answers, also=tuple(also)), *others]


class _quiet:
    """While the batch's elements go through the relay: its recorder drops their ``message``
    records of ``direction`` (and keeps their ``refused`` ones in ``held``, when given: the
    :class:`_Elements` it returns says which element each is of)."""

    def __init__(self, relay: Relay, direction: Literal["c2s", "s2c"],
                 held: list[tuple[int, FrameRecord]] | None = None, later: list[FrameRecord] | None = None) -> None:
        self.relay = relay
        self.direction = direction
        self.held = held
        self.later = later
        self.recorder: Recorder | None = None

    def __enter__(self) -> _Elements | None:
        self.recorder = self.relay.recorder
        if self.recorder is None:
            return None
        elements = _Elements(self.recorder, self.direction, self.held, self.later)
        self.relay.recorder = elements
        return elements

    def __exit__(self, *exc: object) -> None:
        self.relay.recorder = self.recorder
