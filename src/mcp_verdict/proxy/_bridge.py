"""The bridge: a relay between one host side and one upstream side, whatever their transports.

A host side (stdio, or an HTTP server) hands the bridge each frame with the :class:`HostStream`
that should carry what answers it (stdout; the POST's response; a GET stream). An upstream side
(a stdio process, or an HTTP client) sends frames on and hands back each frame it reads with
the host stream it belongs to, when it knows one (the POST that caused it). The bridge asks the
relay what to do and routes each frame to the host: an answer to the stream its request came
on, a related message (progress) to its request's stream, anything else to the stream it came
with, else the host's standing stream (stdout, or an open GET stream), else it is logged as
refused (no stream to carry it: a 2026-07-28 host over HTTP opens none).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from typing import Any, Final, Literal, Protocol

from ..frames import id_key
from ..frames._jsonrpc import Id, Peek, peek
from ._codes import UPSTREAM_TIMEOUT, UPSTREAM_UNAVAILABLE, cancelled_request, error_frame
from ._faults import failed, told
from ._ids import as_written
from ._relay import Key, Out, Relay
from ._twice import PLAIN, counted, repeats

_NO_LONGER_AWAITED: Final = "the proxy no longer awaits the request it cancels: nothing goes to the host for it"
"""The note of a host's ``notifications/cancelled`` for a request in flight (:meth:`Bridge.host_cancelled`)."""


def _noted(note: str | None, more: str | None) -> str | None:
    """Two notes of one record as one (either may be None)."""
    return more if note is None else note if more is None else f"{note}; {more}"


class _Batch:
    """The requests one host batch opened (2025-03-26), while any waits: the host stream it came
    on carries the answer to each, the last one ``final`` (an HTTP host's POST of a batch is
    answered with every answer to its requests, 2025-03-26 basic/transports)."""

    __slots__ = ("_first", "keys", "left")

    def __init__(self, keys: tuple[Key, ...]) -> None:
        self.keys = keys
        self.left = set(keys)
        """The requests not answered yet (nor given up)."""
        self._first = 0

    def waits(self, relay: Relay) -> bool:
        """A request of the batch is still awaited by ``relay`` (amortised: each key looked at
        once past the ones answered, in order)."""
        keys = self.keys
        while self._first < len(keys) and not relay.is_waiting(keys[self._first]):
            self._first += 1
        return self._first < len(keys)


class HostStream(Protocol):
    """Where frames for the host go."""

    def send(self, data: bytes, *, final: bool, answer: bool = False) -> bool | None:
        """Send one frame; ``final``: it answers the request this stream was opened for (the last
        answer, for a batch); ``answer``: it answers one of a batch's other requests (kept as an
        answer is, not ending the stream). False: the stream no longer takes frames (closed, or its
        host does not read it), the frame is dropped."""


class Upstream(Protocol):
    """The upstream side, as the bridge drives it."""

    routes_by_key: bool
    """The upstream needs the id key of the request a frame opens to send it (an HTTP upstream
    posts it and routes its answer back); one that does not (a pipe) is sent each host frame
    before the relay reads it."""

    def send(self, data: bytes, *, key: Key | None, stream: HostStream | None,
             headers: Mapping[str, str] | None, own: bool = False) -> bool:
        """Send (or queue) one frame; False when the upstream cannot take it (with ``key`` given,
        the upstream has failed that request itself). ``own``: the proxy wrote it (its
        ``notifications/cancelled``, its error to a server request), not the host."""
        ...

    async def aclose(self) -> None: ...


class Bridge:
    """Routes the relay's frames between one host side and one upstream side."""

    def __init__(self, relay: Relay, upstream: Upstream | None = None, standing: HostStream | None = None) -> None:
        self.relay = relay
        relay.said = told  # (the relay's own faults in judging, said as the bridge's are)
        self.upstream = upstream
        self.standing = standing
        """The host stream for frames that belong to no request (stdout; a GET stream)."""
        self.one_stream = False
        """The host has one stream, ``standing``, for every frame (stdio): routing is moot."""
        self._judging = False
        self._streams: dict[Key, HostStream] = {}
        self._batches: dict[Key, _Batch] = {}
        """Each request of a host batch opening several, not answered yet: its batch."""
        self._heads: dict[Key, _Batch] = {}
        """Each host batch with a request not answered yet, by its first request's key."""
        self._timer: asyncio.TimerHandle | None = None

    # -- frames from the host ------------------------------------------------------------------
    def from_host(self, data: bytes, stream: HostStream | None = None, *, http: Mapping[str, Any] | None = None,
                  headers: Mapping[str, str] | None = None, read_first: bool = False,
                  note: str | None = None, withhold: str | None = None, look: Peek | None = None) -> Key | None:
        """A host frame; returns the id key of the request it opened (None: no request).

        To an upstream that does not route by key, a frame within the limit is sent first and
        read after: the upstream works on it while the relay tracks it — unless ``read_first``
        (a caller that found the frame unreadable: the relay may answer it instead). ``note``:
        what the host side changed in a notification (its record says it); ``withhold``: why the
        host side does not send this notification on (its record says it: not sent, not read for
        what it cancels). ``look``: ``peek(data)``, when the caller read it already."""
        relay = self.relay
        upstream = self.upstream
        if withhold is not None:
            self._dispatch(relay.from_host(data, http, forwarded=True, withheld=withhold, look=look), stream, None,
                           headers, host_frame=data)
            return None
        first = upstream is not None and not upstream.routes_by_key and len(data) <= relay.max_frame \
            and not read_first
        if first and relay.enforce:  # (enforce may refuse one read two ways: _twice)
            counts = counted(data)  # (once: repeats reads these counts, not the bytes again)
            if counts is not PLAIN:  # (a name counted twice: a 2026-07-28 request's "name", its clientInfo's)
                if look is None:
                    look = peek(data)  # (the relay's read of it, made before the send: given to it below)
                first = not repeats(data, look.message, counts)
            if first:
                relay.unrepeated = data  # (its from_host, next, does not scan it again)
        withheld = note
        cancels: Key | None = None
        if data.find(b"notifications/cancelled") >= 0:
            if upstream is not None:
                # (HTTP 2026-07-28: the stream's close is the cancel; stdio: its request was queued)
                withholds = getattr(upstream, "withholds", None)
                withheld = _noted(withheld, withholds(data, False, headers) if withholds is not None else None)
            cancels = self._cancels(data)  # (a queued one taken back is answered already: not waiting)
            if cancels is not None:
                withheld = _noted(withheld, _NO_LONGER_AWAITED)
        sent = upstream.send(data, key=None, stream=None, headers=headers) if first and upstream is not None \
            else True
        outs = relay.from_host(data, http, first, withheld, look)  # (forwarded, withheld, look: positional, as
        # relay.from_upstream's below: a Python call with keywords is not specialised, ~45 ns more on 3.11)
        key = relay.last_opened
        routed = stream is not None and not (self.one_stream and stream is self.standing)
        if key is not None and routed:
            assert stream is not None
            self._streams[key] = stream  # (one stream for every frame: nothing to route by)
        batch: tuple[Key, ...] = ()
        if relay.batch_opened:  # a batch: each of its requests' answers goes to its stream
            keys, relay.batch_opened = relay.batch_opened, ()
            if len(keys) > 1:
                self._open_batch(keys, stream if routed else None)
                batch = keys
        if outs:
            self._dispatch(outs, stream, key, headers, host_frame=data)
        opened = getattr(upstream, "batch_opened", None) if batch else None
        if opened is not None:  # (an HTTP upstream: the batch went in one POST, held by its first request)
            opened(batch)
        if cancels is not None and relay.is_waiting(cancels):
            self.host_cancelled(cancels)
        if not sent:
            why = getattr(upstream, "unsent_why", "the upstream is not running")
            if key is not None:
                self.fail(key, why, UPSTREAM_UNAVAILABLE)
            else:  # (a notification, a response: noted after its own record)
                undelivered = getattr(upstream, "undelivered", None)
                if undelivered is not None:
                    undelivered(data, why)
        if self._timer is None:
            self._arm()
        return key

    def _open_batch(self, keys: tuple[Key, ...], stream: HostStream | None) -> None:
        batch = _Batch(keys)
        self._heads[keys[0]] = batch
        for key in keys:
            self._batches[key] = batch
            if stream is not None:
                self._streams[key] = stream

    def _answered(self, *keys: Key) -> bool:
        """The requests ``keys`` are answered (or given up): True when no batch of theirs has a
        request left (the frame answering them is the last its host stream gets)."""
        touched = []
        for key in keys:
            batch = self._batches.pop(key, None)
            if batch is not None:
                batch.left.discard(key)
                touched.append(batch)
        for batch in touched:
            if batch.left:
                return False
            self._heads.pop(batch.keys[0], None)
        return True

    def batch_of(self, key: Key) -> tuple[Key, ...]:
        """The requests of the host batch whose first request is ``key`` (``key`` alone for a
        request sent alone, or a batch all answered)."""
        batch = self._heads.get(key)
        return batch.keys if batch is not None else (key,)

    def batch_head(self, key: Key) -> Key:
        """The first request of the host batch the request ``key`` is in, not all answered yet
        (the key of the batch's one upstream exchange); ``key`` itself for a request sent alone."""
        batch = self._batches.get(key)
        return batch.keys[0] if batch is not None else key

    def awaits(self, key: Key) -> bool:
        """The request ``key``, or one of the batch it is the first request of, is still awaited
        (an HTTP upstream reads a batch's response until each is answered)."""
        batch = self._heads.get(key)
        return batch.waits(self.relay) if batch is not None else self.relay.is_waiting(key)

    def host_too_large(self, prefix: bytes, size: int, stream: HostStream | None = None, *, whole: bool = True) -> None:
        self._dispatch(self.relay.host_too_large(prefix, size, whole=whole), stream, None, None)

    def host_no_session(self, data: bytes, stream: HostStream, http: Mapping[str, Any] | None = None) -> None:
        """A host body whose session id names no session the proxy holds: refused, its error to ``stream``."""
        self._dispatch(self.relay.host_no_session(data, http), stream, None, None)

    def host_reused(self, data: bytes, stream: HostStream, http: Mapping[str, Any] | None = None) -> None:
        """A host request whose id a request of its session has in flight: refused, its error to ``stream``."""
        self._dispatch(self.relay.host_reused(data, http), stream, None, None)

    def host_no_message(self, data: bytes, stream: HostStream, http: Mapping[str, Any] | None = None,
                        why: tuple[int, str] | None = None, answer_id: Id | bytes = None) -> None:
        """A host body that is no JSON-RPC message (``why``: the code and reason the host side
        found, ``_relay.unfollowed``; ``answer_id``: the id its error goes under, null unless
        given): refused, its error to ``stream``."""
        self._dispatch(self.relay.host_no_message(data, http, why, answer_id), stream, None, None)

    # -- frames from the upstream --------------------------------------------------------------
    def from_upstream(self, data: bytes, via: HostStream | None = None, *,
                      http: Mapping[str, Any] | None = None, on_exchange: Collection[Key] | None = None,
                      during: Key | None = None) -> None:
        """An upstream frame. In observe an answer reaches the host before it is judged (but one
        of 2 kB or more for a host of many streams, an HTTP host, whose routing reads it before
        it is sent: judged first, that read serving the routing, ``Relay.read_sent``), and a
        host with one stream (stdio) gets any frame the relay will forward unchanged before the
        relay reads it (an answer then read once, by its judge: ``Relay.read_sent``), and such an
        answer is judged (its verdict line, its span) as soon as all the relay sends for the frame
        is sent, not on the loop's next turn, as an answer the host gets from a writer is; in
        enforce, an answer whose verdict passes, before the relay's
        bookkeeping (``Relay.passes_early``). ``on_exchange``: the requests of the HTTP exchange it
        came on, the only ones it may answer (``Relay.from_upstream``); ``during``: the request whose
        exchange it came on (a server request there is made during it)."""
        relay = self.relay
        early = False
        try:
            if self.one_stream and self.standing is not None:
                # (passes_early is False in observe, forwards_unread in enforce: the one that can say yes)
                early = relay.passes_early(data) if relay.enforce else relay.forwards_unread(data)
            elif relay.enforce:  # (an answer whose verdict passes is then parsed once, by the judge;
                # the relay's from_upstream of this same data reuses that read — in observe too, a
                # long answer, which the routing must read before it is sent: read_sent's one read)
                relay.passes_early(data)
            elif relay.forwards_unread(data):
                relay.read_sent(data)
            if early:
                assert self.standing is not None
                self.standing.send(data, final=False)
                if not relay.enforce:  # (sent: judged now, the judge's read serving the routing too)
                    relay.read_sent(data)
            outs = relay.from_upstream(data, http, True, on_exchange, during)  # (defer: positional)
            if not early:
                self._dispatch(outs, via, None, None)
            elif self._streams or self._batches or len(outs) != 1 or outs[0][1] is not data or outs[0][0] != "host":
                self._dispatch(outs, via, None, None, data)
            # (else: the one Out is this frame, to the host, which has it, and no stream or batch waits for
            # it: _dispatch's, without a call; [1] and [0] are the Out's data and to)
            if early and not relay.enforce and relay._deferred:  # observe: the host has this frame (sent before
                # the relay read it) and all the relay sends for it: judged now, without a turn of the loop
                try:
                    relay.judge_deferred()
                except Exception as exc:  # (as the loop reports a callback's: the frames after it still relayed)
                    asyncio.get_running_loop().call_exception_handler(
                        {"message": "mcp-verdict proxy: judging an answer the host was sent failed", "exception": exc})
        except Exception as exc:  # (the pipe it came on kept: the frames after it relayed)
            self.faulted(data, exc, sent=early)
        finally:
            if not self._judging and (relay._deferred or relay._listing is not None):  # (relay.deferred's,
                # without a call)
                # judged on the loop's next turn: after the host stream's writer (an HTTP
                # response waits on its queue) has sent the answer
                self._judging = True
                asyncio.get_running_loop().call_soon(self._judge)

    def faulted(self, data: bytes, exc: Exception, host: HostStream | None = None, *, sent: bool = False) -> None:
        """A fault of the proxy's own (or of a library's) as it relayed ``data``: the host's frame,
        whose answer goes to ``host``, or (None) the upstream's, which the host has already when
        ``sent``. Said on one stderr line and in the frame log; the host's request it opens, or
        the one the upstream's answers, is answered now with UPSTREAM_UNAVAILABLE, never left to
        wait for ``--timeout`` (one whose answer the host has is no longer awaited). The pipe it
        came on is kept: an exception out of a protocol's callback closed it, and the proxy took
        that for the host's end of stdin or the upstream's exit. Never raises."""
        side = "host" if host is not None else "upstream"
        direction: Literal["c2s", "s2c"] = "c2s" if host is not None else "s2c"
        reason = failed(f"relaying the {side}'s frame", exc)
        told(reason)
        try:
            relay = self.relay
            look = peek(data)
            opens = look.kind == "request" if host is not None else look.kind in ("response", "error")
            key = id_key(look.id) if opens and look.id is not None else None
            if key is not None and sent and relay.is_waiting(key):
                relay.note("error", direction, f"{reason} (the host has it: no longer awaited)")
                self._streams.pop(key, None)
                self._answered(key)
                self._dispatch(relay.cancel(key, reason, notify=False), None, None, None)
            elif key is not None and relay.is_waiting(key):
                relay.note("error", direction, f"{reason} (answered UPSTREAM_UNAVAILABLE)")
                self.fail(key, reason, UPSTREAM_UNAVAILABLE)
            elif key is not None and host is not None:  # (a request the relay never took)
                relay.note("error", direction, f"{reason} (answered UPSTREAM_UNAVAILABLE)")
                host.send(error_frame(as_written(look.id, data), UPSTREAM_UNAVAILABLE, f"mcp-verdict proxy: {reason}",
                                      {"reason": reason}), final=True)
            else:
                relay.note("error", direction, reason)
        except Exception as again:  # (the relay's own fault, maybe: said, and the frames after it relayed)
            told(failed("answering for that frame", again))

    def _judge(self) -> None:
        self._judging = False
        self.relay.judge_deferred()

    def upstream_too_large(self, prefix: bytes, size: int, via: HostStream | None = None) -> None:
        self._dispatch(self.relay.upstream_too_large(prefix, size), via, None, None)

    def upstream_lost(self, reason: str, code: int | None = None) -> None:
        outs = self.relay.upstream_lost(reason) if code is None else self.relay.upstream_lost(reason, code)
        self._dispatch(outs, None, None, None)

    def fail(self, key: Key, reason: str, code: int) -> None:
        """The request ``key`` failed upstream (with every request of the batch it is the first
        of: they went in one exchange)."""
        for each in self.batch_of(key):
            self._dispatch(self.relay.fail(each, reason, code), None, None, None)

    def stopping(self, reason: str, keys: Collection[Key] | None = None) -> None:
        self._dispatch(self.relay.stopping(reason, keys), None, None, None)

    def host_lost(self, reason: str = "the host disconnected") -> None:
        self._dispatch(self.relay.host_lost(reason), None, None, None)
        self._streams.clear()
        self._batches.clear()
        self._heads.clear()

    def cancel(self, key: Key, reason: str, notify: bool = True) -> None:
        self._streams.pop(key, None)
        self._answered(key)
        self._dispatch(self.relay.cancel(key, reason, notify), None, None, None)

    def _cancels(self, data: bytes) -> Key | None:
        """The id key of the request in flight a host's ``notifications/cancelled`` names (None:
        it is no cancellation, or names no request the relay awaits)."""
        cancel, request = cancelled_request(data)
        if not cancel or request is None or isinstance(request, bool) or not isinstance(request, (int, str)):
            return None
        key = id_key(request)
        return key if self.relay.is_waiting(key) else None

    def host_cancelled(self, key: Key) -> None:
        """The host cancelled its request ``key`` in flight (its ``notifications/cancelled``, sent
        on as any notification is): MCP basic/utilities/cancellation, the sender ignores a
        response that arrives afterwards, the receiver should send none. The proxy stops awaiting
        it, as for a host's closed stream (:meth:`Relay.cancel`: no UPSTREAM_TIMEOUT later, a late
        answer refused), and sends the host nothing for it: an HTTP host's POST ends with no
        answer (``PostStream.end``)."""
        stream = self._streams.pop(key, None)
        last = self._answered(key)  # (a request of a batch: its stream ends with the batch's last)
        self._dispatch(self.relay.cancel(key, "its host cancelled it", notify=False), None, None, None)
        end = getattr(stream, "end", None)
        if end is not None and last:
            end()

    def stream_of(self, key: Key) -> HostStream | None:
        return self._streams.get(key)

    # -- routing -------------------------------------------------------------------------------
    def _dispatch(self, outs: list[Out], via: HostStream | None, key: Key | None,
                  headers: Mapping[str, str] | None, sent: bytes | None = None, *,
                  host_frame: bytes | None = None) -> None:
        """Send each frame where it goes; ``sent``: the host already has this frame (routed, not
        sent again); ``host_frame``: the host's frame these answer (a frame to the upstream that
        is not it is the proxy's own). A frame answering no request that the upstream does not
        take is noted as not sent (``undelivered``), as :meth:`from_host` notes the host's."""
        for out in outs:
            if sent is not None and out.to == "host" and out.data is sent:
                sent = None
                if out.answers is not None:
                    self._streams.pop(out.answers, None)
                    if self._batches:
                        for also in out.also:
                            self._streams.pop(also, None)
                        self._answered(out.answers, *out.also)
                continue
            if out.to == "upstream":
                upstream = self.upstream
                if upstream is not None:
                    own = out.data is not host_frame
                    if not upstream.send(out.data, key=key, stream=via if key is not None else None, headers=headers,
                                         own=own) and (key is None or own):
                        undelivered = getattr(upstream, "undelivered", None)
                        if undelivered is not None:
                            undelivered(out.data, getattr(upstream, "unsent_why", "the upstream is not running"),
                                        own=own)
                continue
            if out.answers is not None:
                stream = self._streams.pop(out.answers, None)
                for also in out.also:  # (a batch answering several requests)
                    stream = self._streams.pop(also, None) or stream
                final = self._answered(out.answers, *out.also) if self._batches else True
                stream = stream or via or self.standing
            else:
                stream = (self._streams.get(out.related) if out.related is not None else None) or via \
                    or self.standing
                final = False
            if stream is None:
                self.relay.note("error", "s2c", "no host stream to carry a frame: dropped")
                self.relay.stats.refused += 1
                continue
            sent_on = stream.send(out.data, final=final) if final or out.answers is None \
                else stream.send(out.data, final=False, answer=True)  # (a batch's answer, not its last)
            if sent_on is False:
                why = getattr(stream, "dropped_why", "") or "the host stream takes no more frames"
                self.relay.note("error", "s2c", f"{why}: dropped")
                self.relay.stats.refused += 1

    def _arm(self, least: float = 0.0) -> None:
        """Keep one timer for the earliest request deadline (at least ``least`` seconds away)."""
        deadline = self.relay.next_deadline
        if deadline is None or self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(least, deadline - self.relay.clock())
        self._timer = loop.call_later(min(delay, 3600.0) + 0.001, self._expire)

    def _expire(self) -> None:
        self._timer = None
        try:
            self._dispatch(self.relay.expire(), None, None, None)
        except Exception as exc:  # (out of the timer's callback, no timer was armed again: the calls past
            # their deadline, and the later ones, waited past --timeout)
            self._expire_failed(exc)
            return
        self._arm()

    def _expire_failed(self, exc: Exception) -> None:
        """A fault of the proxy's as it answered the requests past their deadline: said (stderr,
        the frame log); each is answered UPSTREAM_TIMEOUT with the fault as its reason, and the
        timer armed again (a second later at the soonest: a fault that stays is said once a
        second, not in a loop)."""
        reason = failed("answering the calls past --timeout", exc)
        told(reason)
        relay = self.relay
        try:
            relay.note("error", "s2c", reason)
            now = relay.clock()
            for key in relay.waiting_keys():  # (oldest first: the soonest deadline first, as the relay keeps
                # them; at most once each, so the loop ends whatever ``fail`` does)
                deadline = relay.next_deadline
                if deadline is None or deadline > now:
                    break
                self.fail(key, reason, UPSTREAM_TIMEOUT)
        except Exception as again:
            told(failed("answering for them", again))
        finally:
            self._arm(least=1.0)

    def close(self) -> None:
        """Judge what is left to judge; stop the deadline timer."""
        self.relay.judge_deferred()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
