"""What crossed the wire, byte for byte, and which frame answers which request.

The recording transports append every frame they see to a :class:`WireLog`: each outgoing
request body, each incoming line (stdio) or message (an HTTP JSON body, or one SSE event's
data), and what went wrong at the transport (end of stream, an HTTP status without a JSON-RPC
body). The client reads the frames of one call from the log and classifies the raw bytes of
the response — never the SDK's parsed, coerced view of it.

Correlation never trusts a coerced id: an incoming frame answers our ``tools/call`` when it is
not a notification, not a server-to-client request, and not the answer to another request we
sent (an implicit ``tools/list``). ``classify`` then checks the id with its JSON type.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

Direction = Literal["out", "in"]
FrameKind = Literal["message", "eof", "http_error", "send_failed"]

_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class Frame:
    """One thing seen on the wire."""

    seq: int
    direction: Direction
    kind: FrameKind
    data: bytes
    """The exact bytes (a message), or a description (eof, http_error, send_failed)."""
    at: float
    """Wall-clock time the frame was recorded."""
    exchange: int | None = None
    """The HTTP exchange (one POST) the frame belongs to; None on stdio."""
    status: int | None = None
    """The HTTP status of the exchange, for incoming HTTP frames."""

    def peek(self) -> Any:
        """A lenient parse, for routing only (never for the verdict); None if it is not JSON."""
        try:
            return json.loads(self.data)
        except ValueError:
            return None


@dataclass
class WireLog:
    """An append-only record of frames, shared by a client and its transport."""

    frames: list[Frame] = field(default_factory=list)
    max_frames: int = 10_000
    _seq: int = 0
    _dropped: int = 0

    def add(self, direction: Direction, kind: FrameKind, data: bytes, *, exchange: int | None = None,
            status: int | None = None) -> Frame:
        frame = Frame(self._seq, direction, kind, data, time.time(), exchange, status)
        self._seq += 1
        self.frames.append(frame)
        if len(self.frames) > self.max_frames:  # bounded memory on a long-lived client
            drop = len(self.frames) - self.max_frames
            del self.frames[:drop]
            self._dropped += drop
        return frame

    def mark(self) -> int:
        return self._seq

    def since(self, mark: int) -> list[Frame]:
        return [f for f in self.frames if f.seq >= mark]


@dataclass(frozen=True, slots=True)
class Request:
    """An outgoing request as sent: its id exactly as serialised, its method and params."""

    frame: Frame
    id: Any
    method: str
    params: dict[str, Any]


def requests(frames: list[Frame]) -> Iterator[Request]:
    for frame in frames:
        if frame.direction != "out" or frame.kind != "message":
            continue
        body = frame.peek()
        if isinstance(body, dict) and "id" in body and isinstance(body.get("method"), str):
            params = body.get("params")
            yield Request(frame, body["id"], body["method"], params if isinstance(params, dict) else {})


def _same_id(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def response_to(frames: list[Frame], request: Request) -> Frame | None:
    """The incoming frame that answers ``request``, or None if none arrived.

    On HTTP the answer travels in the request's own exchange. On stdio it is the first
    incoming frame after the request that is neither a notification, nor a request from the
    server, nor the answer to another of our requests. A frame that cannot be parsed at all
    counts as the answer (a malformed answer is still the answer).
    """
    others = [r.id for r in requests(frames) if r.frame.seq != request.frame.seq]
    for frame in frames:
        if frame.direction != "in" or frame.seq < request.frame.seq:
            continue
        if request.frame.exchange is not None and frame.exchange != request.frame.exchange:
            continue
        if frame.kind != "message":
            continue
        body = frame.peek()
        if isinstance(body, dict):
            if "method" in body and "result" not in body and "error" not in body:
                continue  # a notification or a server-to-client request
            if "id" in body and any(_same_id(body["id"], other) for other in others) \
                    and not _same_id(body["id"], request.id):
                continue  # the answer to another request of ours
        return frame
    return None


def transport_failure(frames: list[Frame], request: Request | None) -> Frame | None:
    """An end-of-stream or HTTP failure frame after the request (in its exchange on HTTP)."""
    for frame in frames:
        if frame.kind in ("message",) or frame.direction != "in":
            continue
        if request is not None:
            if frame.seq < request.frame.seq:
                continue
            if request.frame.exchange is not None and frame.exchange not in (None, request.frame.exchange):
                continue
        return frame
    return None
