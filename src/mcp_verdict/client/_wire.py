"""What crossed the wire, byte for byte, and which frame answers which request.

The recording transports append every frame they see to a :class:`WireLog`: each outgoing
message, each incoming line (stdio) or message (an HTTP JSON body, or one SSE event's data),
and what went wrong at the transport (end of stream, an HTTP status without a JSON-RPC body).
The client reads the frames of one call from the log and classifies the raw bytes of the
answer — never the SDK's parsed, coerced view of it.

Which frame answers a request (:func:`exchange_of`), read with the routing peek of
:mod:`mcp_verdict.frames` (ids compared with their JSON type, ids recovered from frames no
parser reads):

1. the first incoming frame whose id is the request's id, with the same JSON type (a frame
   that does not parse counts when the id recovered from it is the request's);
2. otherwise the first incoming response that answers none of our other requests — a response
   whose id was altered (``7`` answered as ``"7"``), or an error without an id (the server
   could not read ours); ``classify`` then reports the id it carries;
3. otherwise, on HTTP only, the first frame of the request's own exchange that is not a
   JSON-RPC message: the body of our POST is its answer, however malformed.

On stdio a line that is not a JSON-RPC message (a debug print, a log line, a truncated frame
without a readable id) is **noise**: it is recorded, it never stands in for the answer, and it
is reported on the call (``transport.noise``), counted in full even where the bounded log
could not keep it all (:attr:`Exchange.noise_shed`). The client pairs after the call, with every
frame of it in hand, rather than frame by frame as :class:`mcp_verdict.frames.Tracker` does for
a tap: the tracker pairs an unreadable frame without an id with the only request waiting,
which is right for an observer that cannot wait, and wrong for a client that can see the
matching answer arrive a moment later.
"""

from __future__ import annotations

import base64
import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..frames import Id, Peek, error_json, id_key, peek, peek_shape, recover_id

Direction = Literal["out", "in"]
FrameKind = Literal["message", "event", "eof", "http_error", "send_failed"]
"""``event``: the data of a server-sent event whose type is not ``message`` — recorded, but no
JSON-RPC message (the SDKs read only ``message`` events, as a browser's ``onmessage`` does)."""
_ANSWERS: Final = frozenset({"response", "error"})
_NOT_MESSAGES: Final = frozenset({"unreadable", "invalid"})
NOT_MESSAGES: Final = _NOT_MESSAGES
"""The kinds of frame that are no JSON-RPC message (noise on stdio, unless it carries a request's id)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One thing seen on the wire."""

    seq: int
    direction: Direction
    kind: FrameKind
    data: bytes
    """The exact bytes (a message, an event's data), or a description (eof, http_error, send_failed)."""
    at: float
    """Wall-clock time the frame was recorded."""
    exchange: int | None = None
    """The HTTP exchange (one POST or GET) the frame belongs to; None on stdio."""
    status: int | None = None
    """The HTTP status of the exchange, for incoming HTTP frames."""
    noise_shed: int = 0
    """How many stdio noise lines the log had shed (counted, not kept) before this frame: the
    difference between two frames is the noise that came between them and is not in the log."""
    retry_after: int | None = None
    """The seconds an HTTP error response's Retry-After asked the client to wait (RFC 9110
    s10.2.3: delay-seconds, or an HTTP-date counted from when it came), for an ``http_error``."""
    cut: bool = False
    """The recorder cut the message at max_bytes (its first max_bytes + 1 bytes are ``data``): no
    whole message, read for its id alone by :meth:`peek` (not in :meth:`to_dict`: the bytes say it)."""

    def peek(self) -> Peek:
        """The routing read of the frame (never the verdict: ``classify`` reads the bytes). A cut
        frame is unreadable, its id read from the bytes (:func:`recover_id`), never parsed: orjson,
        failing on a text of many megabytes, allocated ~12 times its size (a 16 MB cut event
        ~192 MB, a good part of it touched). An incoming frame past 1 MiB is read for its kind, id
        and method alone (:func:`~mcp_verdict.frames.peek_shape`: its ``message`` is None): the
        pairing of a 50 MiB answer built all its values, and allocated ~13 times its size, before
        ``classify`` read it again."""
        if self.cut:
            found, value = recover_id(self.data)
            return Peek("unreadable", value, found, problem="the message was cut at the size limit")
        return peek_shape(self.data) if self.direction == "in" else peek(self.data)

    def to_dict(self, *, raw_bytes: bool = False) -> dict[str, Any]:
        """JSON form: the bytes as text when they are UTF-8, else as base64 — never lossy.
        ``raw_bytes``: the bytes as they are (:func:`bytes_field`)."""
        out: dict[str, Any] = {"seq": self.seq, "direction": self.direction, "kind": self.kind, "at": self.at}
        if self.exchange is not None:
            out["exchange"] = self.exchange
        if self.status is not None:
            out["status"] = self.status
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        out.update(bytes_field("data", self.data, raw=raw_bytes))
        return out


def bytes_field(name: str, data: bytes | None, *, raw: bool = False) -> dict[str, Any]:
    """``{name: text}`` for UTF-8 bytes, ``{name + "_base64": ...}`` otherwise, ``{name: None}``
    for no bytes at all: the bytes the verdict judged, shown without loss. ``raw``: ``{name:
    data}``, the bytes as they are, for a writer that writes them so a piece at a time (the CLI's
    ``--json``: a decoded copy of each, and its escaped copy, cost several times max_bytes)."""
    if data is None:
        return {name: None}
    if raw:
        return {name: data}
    try:
        return {name: data.decode("utf-8")}
    except UnicodeDecodeError:
        return {f"{name}_base64": base64.b64encode(data).decode("ascii")}


@dataclass
class WireLog:
    """An append-only record of frames, shared by a client and its transport.

    Memory is bounded by ``max_frames``: the oldest frames go first, but never a frame of the
    call in progress (from the ``hold`` mark on) while older ones remain. When the call's own
    frames reach the bound, incoming notifications and stdio noise are no longer kept (counted
    in ``shed``); only if the call's essential frames alone pass the bound are its oldest ones
    dropped, and :meth:`lost_since` says so (the request then left the client: never "not
    sent"). And by ``max_bytes``, the frames' bytes together: past it the oldest frames before
    the call in progress go first (the call's own, and the last frame, are always kept whole),
    and once the call's own frames reach it, its notifications and noise are shed as above;
    10,000 answers (or noise lines) of many megabytes were all kept."""

    frames: list[Frame] = field(default_factory=list)
    max_frames: int = 10_000
    max_bytes: int = 64 * 1024 * 1024
    _bytes: int = 0
    """The bytes of the frames kept."""
    _seq: int = 0
    _dropped: int = 0
    shed: int = 0
    """Notifications and noise of a call in progress not kept because the log was full."""
    shed_noise: int = 0
    """Of ``shed``, the stdio noise lines (each frame records the count so far: ``noise_shed``)."""
    _hold: int | None = None
    _lost_through: int = -1
    """The highest sequence number of a frame dropped from the front."""

    def add(self, direction: Direction, kind: FrameKind, data: bytes, *, exchange: int | None = None,
            status: int | None = None, retry_after: int | None = None, cut: bool = False) -> Frame:
        frame = Frame(self._seq, direction, kind, data, time.time(), exchange, status, self.shed_noise, retry_after,
                      cut)
        self._seq += 1
        hold = self._hold
        # During a call, a tenth of the log stays free for its essential frames (its answer).
        soft = self.max_frames if hold is None else self.max_frames - max(1, self.max_frames // 10)
        full = len(self.frames) >= soft or self._bytes + len(data) > self.max_bytes
        if hold is not None and full and (not self.frames or self.frames[0].seq >= hold):
            sheddable = _sheddable(frame)
            if sheddable is not None:
                self.shed += 1
                self.shed_noise += sheddable == "noise"
                return frame
        self.frames.append(frame)
        self._bytes += len(data)
        if len(self.frames) > soft:  # bounded memory on a long-lived client: the oldest go first
            drop = len(self.frames) - soft
            if hold is not None:
                drop = sum(1 for f in itertools.islice(self.frames, drop) if f.seq < hold)
            if len(self.frames) - drop > self.max_frames:  # the call's own frames alone pass the bound
                drop = len(self.frames) - self.max_frames
            self._drop(drop)
        if self._bytes > self.max_bytes:  # the oldest before the call in progress, never the last
            drop, size = 0, self._bytes
            while size > self.max_bytes and drop < len(self.frames) - 1 and (
                    hold is None or self.frames[drop].seq < hold):
                size -= len(self.frames[drop].data)
                drop += 1
            self._drop(drop)
        return frame

    def _drop(self, count: int) -> None:
        """Drop the ``count`` oldest frames."""
        if count:
            self._lost_through = max(self._lost_through, self.frames[count - 1].seq)
            self._bytes -= sum(len(f.data) for f in itertools.islice(self.frames, count))
            del self.frames[:count]
            self._dropped += count

    def mark(self) -> int:
        return self._seq

    def hold(self, mark: int | None) -> None:
        """Keep the frames from ``mark`` on (a call in progress) before any other; None ends it."""
        self._hold = mark

    def lost_since(self, mark: int) -> bool:
        """Whether a frame recorded at or after ``mark`` was dropped from the log."""
        return self._lost_through >= mark

    def since(self, mark: int) -> list[Frame]:
        return [f for f in self.frames if f.seq >= mark]


def _sheddable(frame: Frame) -> Literal["notification", "noise"] | None:
    """An incoming notification, an SSE event of a type other than ``message``, or a stdio line
    that is no JSON-RPC message and carries no id (noise): nothing a call's answer can be."""
    if frame.direction == "in" and frame.kind == "event":
        return "notification"  # an event of another type: no message, nothing a call waits for
    if frame.direction != "in" or frame.kind != "message":
        return None
    look = frame.peek()
    if look.kind == "notification":
        return "notification"
    if frame.exchange is None and look.kind in _NOT_MESSAGES and not look.has_id:
        return "noise"
    return None


@dataclass(frozen=True, slots=True)
class Request:
    """An outgoing request as sent: its id exactly as serialised, its method and params."""

    frame: Frame
    id: Id
    method: str
    params: dict[str, Any]


def requests(frames: Sequence[Frame]) -> Iterator[Request]:
    for frame in frames:
        if frame.direction != "out" or frame.kind != "message":
            continue
        look = frame.peek()
        if look.kind == "request" and look.method is not None:
            yield Request(frame, look.id, look.method, look.params)


@dataclass(frozen=True, slots=True)
class Exchange:
    """A request, what answered it, and every frame seen while it was waiting."""

    request: Request
    answer: Frame | None
    frames: tuple[Frame, ...]
    """The request, the incoming frames for it (server requests and notifications, our replies
    to them, noise) and the answer — not the frames of our other requests."""
    noise: tuple[Frame, ...]
    """Incoming frames that are not JSON-RPC messages and did not answer the request (the ones
    the log kept)."""
    failure: Frame | None
    """An end of stream or HTTP failure seen after the request (in its exchange on HTTP)."""
    noise_shed: int = 0
    """Noise lines of the exchange the log did not keep (it was full): counted, not kept."""

    @property
    def noise_count(self) -> int:
        """Every noise line the server wrote during the exchange, kept or not."""
        return len(self.noise) + self.noise_shed


def _is_noise(look: Peek, request_key: tuple[str, Any]) -> bool:
    """Not a JSON-RPC message, and not carrying the request's id (which would make it the
    request's malformed answer)."""
    return look.kind in _NOT_MESSAGES and not (look.has_id and id_key(look.id) == request_key)


def exchange_of(frames: Sequence[Frame], request: Request, *, shed_noise: int | None = None) -> Exchange:
    """Pair ``request`` with its answer among ``frames`` (the frames of one call, in order).
    ``shed_noise``: the log's :attr:`WireLog.shed_noise` now, for the noise it shed after its
    last frame when no answer came (else the last frame's count is taken)."""
    key = id_key(request.id)
    ours = list(requests(frames))
    others = {id_key(r.id) for r in ours if r.frame.seq != request.frame.seq}
    other_seqs = {r.frame.seq for r in ours if r.frame.seq != request.frame.seq}
    http = request.frame.exchange is not None
    later = [f for f in frames if f.seq > request.frame.seq]
    incoming = [(f, f.peek()) for f in later if f.direction == "in" and f.kind == "message"]

    def own_exchange(frame: Frame) -> bool:
        return not http or frame.exchange == request.frame.exchange

    answer: Frame | None = next((f for f, look in incoming if look.has_id and id_key(look.id) == key
                                 and look.kind in (*_ANSWERS, *_NOT_MESSAGES)), None)
    if answer is None:
        answer = next((f for f, look in incoming if own_exchange(f) and look.kind in (*_ANSWERS, "batch")
                       and not (look.has_id and id_key(look.id) in others)), None)
    if answer is None and http:
        answer = next((f for f, look in incoming if own_exchange(f) and look.kind in _NOT_MESSAGES), None)
    end = answer.seq if answer is not None else (later[-1].seq if later else request.frame.seq)
    answered_others = {f.seq for f, look in incoming if look.has_id and id_key(look.id) in others
                       and look.kind in _ANSWERS}
    kept = [request.frame]
    noise = []
    for frame in later:
        if frame.seq > end:
            break
        if frame.seq in other_seqs or frame.seq in answered_others or (not own_exchange(frame) and frame is not answer):
            continue
        kept.append(frame)
        if frame is not answer and frame.direction == "in" and frame.kind == "message" \
                and _is_noise(frame.peek(), key):
            noise.append(frame)
    if answer is not None:
        shed_by_end = answer.noise_shed
    else:
        shed_by_end = shed_noise if shed_noise is not None else max((f.noise_shed for f in later), default=0)
    shed = max(shed_by_end - request.frame.noise_shed, 0)
    return Exchange(request, answer, tuple(kept), tuple(noise), transport_failure(frames, request), shed)


def transport_failure(frames: Sequence[Frame], request: Request | None) -> Frame | None:
    """An end-of-stream or HTTP failure frame after the request (in its exchange on HTTP)."""
    for frame in frames:
        if frame.kind in ("message", "event") or frame.direction != "in":
            continue
        if request is not None:
            if frame.seq < request.frame.seq:
                continue
            if request.frame.exchange is not None and frame.exchange not in (None, request.frame.exchange):
                continue
        return frame
    return None


def unsent(frames: Sequence[Frame], request: Request) -> Frame | None:
    """The ``send_failed`` frame that says ``request`` never reached the server, or None. On
    HTTP, one of the request's own exchange: its POST could not be sent (no connection). On
    stdio, the first after the request with no message written between them: the transport
    writes one message at a time, in order, and records each before writing it, so that failure
    was the request's own write (the server had closed its stdin: it never read the line whole)."""
    http = request.frame.exchange is not None
    for frame in frames:
        if frame.seq <= request.frame.seq:
            continue
        if http:
            if frame.kind == "send_failed" and frame.exchange == request.frame.exchange:
                return frame
        elif frame.direction == "out":
            return None
        elif frame.kind == "send_failed":
            return frame
    return None


READ_FROM_BYTES: Final = frozenset({"tools/call", "tools/list", "tasks/get", "tasks/result", "tasks/update",
                                    "tasks/cancel"})
"""The methods whose answers the client reads from their recorded bytes alone (``classify``, or the
strict parser for a listing and the task requests): what the SDK makes of them is dropped."""
STAND_IN_BYTES: Final = 1 << 20
"""The size past which such an answer is not handed to the SDK (:func:`stand_in`)."""


def stand_in(frame: Frame, look: Peek | None = None) -> bytes | None:
    """The small JSON-RPC error the SDK is handed in place of ``frame``, an answer past
    :data:`STAND_IN_BYTES` to a request of :data:`READ_FROM_BYTES` (the caller knows the
    request), or None to hand it the frame as it is. The stand-in carries the answer's own id,
    so the SDK pairs it as it would the answer, and ends the request at once; the verdict reads
    the recorded frame, never the SDK's view. Handed the answer, the SDK held a second and a
    third copy of it (its parse; over SSE the event's decoded text too), kept the last message it
    read until the next came, and checked the structured content against the outputSchema a
    second time: a 50 MiB text block held 3x its size after the call, 5x over SSE. An answer
    without a string or integer id is handed as it is (the SDK fails it as before). ``look``:
    the frame's :meth:`Frame.peek`, when the caller has it."""
    if len(frame.data) <= STAND_IN_BYTES or frame.cut or frame.kind != "message":
        return None
    look = look if look is not None else frame.peek()
    if look.kind not in _ANSWERS or not look.has_id or type(look.id) not in (int, str):
        return None
    return error_json(look.id, -32603, f"mcp-verdict: an answer of {len(frame.data)} bytes, judged from the bytes "
                                       "recorded and not read by the SDK")


def not_messages(count: int) -> str:
    """``count`` lines of noise, in words (a warning's, a connection failure's)."""
    return "1 line that is not a JSON-RPC message" if count == 1 else \
        f"{count} lines that are not JSON-RPC messages"


def preview(data: bytes, limit: int = 80) -> str:
    """A short, exact-enough rendering of a frame for a message (repr-escaped, cut at ``limit``):
    its text, or, when it is not UTF-8, its bytes (``b'caf\\xe9'``) — a text repr would show an
    undecodable byte as ``\\\\xe9``, a backslash the server never wrote, beside real control
    characters shown as ``\\x15``."""
    head = data[: limit * 4]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(head) == len(data) or exc.start < len(head) - 3:  # not UTF-8, not only cut mid-character
            return repr(bytes(data[:limit])) + ("…" if len(data) > limit else "")
        text = head[: exc.start].decode("utf-8")
    shown = repr(text[:limit])
    return shown + ("…" if len(text) > limit or len(data) > limit * 4 else "")
