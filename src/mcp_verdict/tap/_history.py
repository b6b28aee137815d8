"""What the tap keeps of its judged calls, within a byte bound: :class:`TapCall` (one judged
``tools/call``), the history's bound (:data:`HISTORY_BYTES`, each call counted by
:func:`held_bytes`), and :class:`_Held` (the answers no block has claimed yet and the answers to
nothing, for blocks that judge late, under one bound for every connection kept).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable
from typing import Any, Final

import msgspec

from ..frames import Exchange, Stray, id_key
from ..frames._tools import parsed_bound
from ..judgement._outcome import Outcome
from ..verdict._verdict import Verdict
from ._conn import _UNCLAIMED, _Conn


class TapCall(msgspec.Struct, frozen=True, gc=False):
    """One judged ``tools/call``: where it went, the exact bytes, the verdict and the outcome.

    A frozen msgspec Struct, as the frames' values are: built in C (one per judged call), and
    untracked by the cycle collector (it holds bytes and immutable values, which cannot refer
    back to it)."""

    conn: str | None
    name: str | None
    """The tool's name; a lone surrogate in it (a request's bytes that are no UTF-8, read
    leniently) as its escape, ``\\udcff``."""
    request_id: Any
    request: bytes | None
    response: bytes | None
    verdict: Verdict
    outcome: Outcome
    round: int = 1
    late: bool = False
    """The answer of a call already judged cancelled (``transport.cancelled``), which arrived
    afterwards: judged on its own bytes, kept on the history, never handed to the caller (what
    the server did with the cancelled request: observed completion, or its error)."""
    held: int = 0
    """For a call whose request or answer is over ``_HISTORY_BIG`` bytes: what ``VerdictTap.history``
    counts of it against :data:`HISTORY_BYTES` (:func:`held_bytes`: its bytes and an upper bound
    of the parsed answer its verdict holds); 0 for a smaller call (counted when needed)."""


HISTORY_BYTES: Final = 64 * 1024 * 1024
"""The most bytes ``VerdictTap.history`` holds once a large call is on it, counted per call by
:func:`held_bytes` (its request's and answer's bytes and an upper bound of the parsed answer its
verdict holds); and, apart, the most bytes the connections a tap keeps (open, and the last
``_CLOSED_KEPT`` closed) hold together of the calls no block has claimed yet (their requests and
answers, kept without their parsed message) and of the answers to nothing (strays): :class:`_Held`."""
_HISTORY_BIG: Final = 16 * 1024
"""A request or answer longer than this bounds the history by bytes when its call is added. A
smaller call holds at most its bytes and a parsed answer of a few times them (measured: at most
35 times, for an array of small objects; an upper bound of 134 times by :func:`held_bytes`):
100 of them, about 60 MiB at the very most."""


def held_bytes(call: TapCall) -> int:
    """What ``VerdictTap.history`` counts of ``call`` against :data:`HISTORY_BYTES`: the bytes of
    its request and answer, and an upper bound of the parsed answer its verdict holds (when the
    answer was parsed): the answer's length once more (five times when it is not ASCII or holds
    a ``\\u`` escape: a character may take four bytes in a Python string, and the string may
    keep its UTF-8 form beside them) and ``frames._tools.PARSED_TOKEN``
    bytes per ``{``, ``[``, ``,`` or ``:`` and one more (the whole). Linear in the answer's size,
    in C (~1.5 ms per MiB)."""
    request, response = call.request, call.response
    size = (len(request) if request is not None else 0) + (len(response) if response is not None else 0)
    if response is None or call.verdict.message is None:
        return size
    return size + parsed_bound(response)


def _kept(sizes: Iterable[int]) -> int:
    """How many of the newest entries (their sizes given newest first) fit in
    :data:`HISTORY_BYTES` together; the newest always does, whatever its size."""
    total = kept = 0
    for size in sizes:
        total += size
        if kept and total > HISTORY_BYTES:
            break
        kept += 1
    return kept


def _bound_history(history: deque[TapCall]) -> None:
    """Drop the oldest calls of ``history`` past :data:`HISTORY_BYTES`, each counted by
    :func:`held_bytes` (the newest is kept, whatever its size). Run when a call of more than
    ``_HISTORY_BIG`` bytes is added (it carries its count: ``TapCall.held``; a smaller one is
    counted here, at most that many bytes read)."""
    for _ in range(len(history) - _kept(call.held or held_bytes(call) for call in reversed(history))):
        history.popleft()


class _Held:
    """What the connections a tap keeps (open, and the last ``_CLOSED_KEPT`` closed) hold for
    blocks that judge late: the calls no block claimed yet (``_Conn.answered``: a block that
    learns its call's id later asks for it) and the answers to nothing (``_Conn.strays``: a late
    answer, an id of another JSON type are read from them), each without its parsed message (its
    bytes are judged again when asked for). All of them together hold at most
    :data:`HISTORY_BYTES` of requests and answers, the newest always kept whatever its size;
    past it the oldest are dropped, whichever connection holds them — where each connection kept
    its own 64 MiB of each, and 64 closed ones theirs (8 GiB). What a connection still holds is
    claimed as before; one dropped is judged as an answer that was not kept."""

    __slots__ = ("order", "size")

    def __init__(self) -> None:
        self.order: OrderedDict[int, tuple[_Conn, Exchange | Stray, int]] = OrderedDict()
        """id of each kept answer -> (its connection, it, its bytes), oldest first."""
        self.size = 0
        """Bytes of everything in ``order``."""

    def answer(self, state: _Conn, key: tuple[str, Any], exchange: Exchange) -> None:
        """Keep the call ``exchange`` (answered, no block claimed it) on ``state`` under its id
        ``key``: the newest of its answers, the last ``_UNCLAIMED`` of the connection kept."""
        answered = state.answered
        older = answered.pop(key, None)
        if older is not None:
            self.drop(older)
        look = exchange.response_peek
        if look is not None and look.message is not None:
            exchange = msgspec.structs.replace(exchange, response_peek=msgspec.structs.replace(look, message=None))
        answered[key] = exchange
        self._add(state, exchange, len(exchange.request.data)
                  + (len(exchange.response.data) if exchange.response is not None else 0))
        if len(answered) > _UNCLAIMED:
            self.drop(answered.popitem(last=False)[1])
        self._bound()

    def stray(self, state: _Conn, stray: Stray) -> None:
        """Keep an answer to nothing on ``state`` (the last 256 of the connection)."""
        strays = state.strays
        if strays and len(strays) == strays.maxlen:
            self.drop(strays[0])  # the deque drops it on append
        if stray.peek.message is not None:
            stray = msgspec.structs.replace(stray, peek=msgspec.structs.replace(stray.peek, message=None))
        strays.append(stray)
        self._add(state, stray, len(stray.seen.data))
        self._bound()

    def drop(self, kept: Exchange | Stray) -> None:
        """``kept`` is no longer held (its connection let it go)."""
        entry = self.order.pop(id(kept), None)
        if entry is not None:
            self.size -= entry[2]

    def forget(self, state: _Conn) -> None:
        """The connection ``state`` is forgotten, and what it held with it."""
        for exchange in state.answered.values():
            self.drop(exchange)
        for stray in state.strays:
            self.drop(stray)

    def _add(self, state: _Conn, kept: Exchange | Stray, size: int) -> None:
        self.order[id(kept)] = (state, kept, size)
        self.size += size

    def _bound(self) -> None:
        """Drop the oldest held past :data:`HISTORY_BYTES` (the newest stays, whatever its size)."""
        order = self.order
        while self.size > HISTORY_BYTES and len(order) > 1:
            _, (state, kept, size) = order.popitem(last=False)
            self.size -= size
            if isinstance(kept, Stray):
                strays = state.strays
                if strays and strays[0] is kept:  # the connection's oldest: held in the order they came
                    strays.popleft()
                else:
                    for index, stray in enumerate(strays):
                        if stray is kept:
                            del strays[index]
                            break
            else:
                key = id_key(kept.request_id)
                if state.answered.get(key) is kept:
                    del state.answered[key]
