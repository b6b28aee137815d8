"""A judging block (:class:`Judged`: the calls judged inside one ``VerdictTap.judging`` block or
one ``call_tool``) and the write stream that tells it the ids of the requests it sends
(:class:`WriteProxy`, in the caller's task, where the SDK writes them; the context variable
:data:`_CURRENT` says which block is running).
"""

from __future__ import annotations

import contextvars
import sys
from collections import deque
from collections.abc import Awaitable, Mapping
from contextlib import suppress
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, cast

from ..judgement._outcome import Outcome
from ..verdict._kind import Kind
from ..verdict._verdict import Verdict
from ._conn import Attempt
from ._error import VerdictError
from ._history import TapCall

if TYPE_CHECKING:
    from ._tap import VerdictTap

_CURRENT: Final[contextvars.ContextVar[Judged | None]] = contextvars.ContextVar("mcp_verdict_tap_call",
                                                                                default=None)


_NO_OPTIONS: Final[Mapping[str, Any]] = MappingProxyType({})
"""The options of a judging block given none (shared: read only)."""


class WriteProxy:
    """Stands in for a session's write stream: forwards everything, and tells the tap the id of
    each request a judged call sends (in the caller's task, where the SDK writes it)."""

    def __init__(self, inner: Any, tap: VerdictTap, conn: str | None) -> None:
        self._inner = inner
        self._tap = tap
        self._route: tuple[VerdictTap, Any, str | None] = (tap, inner, conn)
        """(``_tap``, ``_inner``, ``conn``) in one attribute, what ``send`` reads per request: each
        attribute read on a class with ``__getattr__`` takes the slow path (~370 instructions,
        valgrind), and this one read stands for three."""
        self.sent: deque[tuple[str, tuple[str, Any], Any]] = deque(maxlen=64)
        """Requests sent while not linked to a connection: (method, id key, params)."""

    @property
    def conn(self) -> str | None:
        """The connection this proxy's requests go out on (None: not linked to one yet)."""
        return self._route[2]

    @conn.setter
    def conn(self, conn: str | None) -> None:
        self._route = (self._tap, self._inner, conn)

    def send(self, item: Any) -> Awaitable[None]:
        """The inner stream's ``send(item)``, to await (noted first; no coroutine of its own)."""
        tap, inner, conn = self._route
        tap._sent(self, conn, item)
        return inner.send(item)  # type: ignore[no-any-return]

    def send_nowait(self, item: Any) -> None:
        tap, inner, conn = self._route
        tap._sent(self, conn, item)
        inner.send_nowait(item)

    async def __aenter__(self) -> WriteProxy:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Done(tuple[()]):
    """An awaitable that is done at once, with None (what ``Judged.__aexit__`` returns: the
    block's exit has nothing to wait for, and suppresses nothing): awaiting it iterates an empty
    tuple, in C."""

    __slots__ = ()
    __await__ = tuple.__iter__


_DONE: Final = cast("Awaitable[None]", _Done())


class Judged:
    """The calls judged inside one :meth:`VerdictTap.judging` block (or one ``call_tool``).

    It is the block itself: entering it (``with`` or ``async with``) sets the context variable
    the write proxies read, leaving it resets it (cheaper than a generator-based context manager,
    and one object per judged block)."""

    __slots__ = ("__weakref__", "_attempt", "_done", "_eager", "_options", "_tap", "_token", "error", "opened", "sent",
                 "tokens")

    def __init__(self, tap: VerdictTap, options: Mapping[str, Any], attempt: Attempt = None) -> None:
        self._tap = tap
        self._token: contextvars.Token[Judged | None] | None = None
        self._options = dict(options) if options else _NO_OPTIONS
        self._attempt = attempt
        """(attempt, retry policy) every outcome of the block carries, None for (1, DEFAULT_RETRY)."""
        self.sent: list[tuple[WriteProxy, Any, str | None]] = []
        """(proxy, request id, tool name) of every tools/call sent, in order."""
        self.opened: list[str] = []
        """Connections opened inside the block (a stack that connects per call): their tools/call
        requests belong to the block when no proxy saw one."""
        self.error: BaseException | None = None
        """What the SDK raised, if anything (the verdict comes from the wire all the same)."""
        self.tokens: list[list[Any]] = []
        """Per tools/call sent: what each observer kept when it was sent (a span...)."""
        self._done: list[TapCall] = []
        self._eager: dict[int, TapCall] = {}

    def __enter__(self) -> Judged:
        self._token = _CURRENT.set(self)
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if self._token is not None:
            _CURRENT.reset(self._token)
            self._token = None
        if error is not None and _is_cancelled(error):
            self._cancelled(error)  # type: ignore[arg-type]

    async def __aenter__(self) -> Judged:  # __enter__, written out (one call less per judged call)
        self._token = _CURRENT.set(self)
        return self

    def __aexit__(self, kind: object, error: object, trace: object) -> Awaitable[None]:
        """``__exit__``, written out, and an awaitable that is done at once (no coroutine made
        per judged block: it had nothing to wait for)."""
        if self._token is not None:
            _CURRENT.reset(self._token)
            self._token = None
        if error is not None and _is_cancelled(error):
            self._cancelled(error)  # type: ignore[arg-type]
        return _DONE

    def _cancelled(self, error: BaseException) -> None:
        """The block was cancelled (a timeout of the caller's: ``move_on_after``, ``wait_for``):
        every call it sent and whose answer has not arrived is judged now, without it (its
        request was sent: its effect is unknown), and is no longer waited for — nobody will ask
        for its verdict; an answer arriving later is judged as its late answer (on the history,
        ``TapCall.late``), never as a call of its own."""
        if self.error is None:
            self.error = error
        with suppress(Exception):  # judging never turns a cancellation into another error
            _ = self.calls

    def _targets(self) -> list[tuple[WriteProxy | str, Any, str | None]]:
        if self.sent:
            return list(self.sent)
        return [(conn, rid, name) for conn in self.opened for rid, name in self._tap._tool_calls(conn)]

    @property
    def any_sent(self) -> bool:
        """A tools/call of this block reached the transport."""
        return bool(self._targets())

    @property
    def calls(self) -> list[TapCall]:
        """Every tools/call of the block, judged (a round-trip retry is a call of its own); a call
        whose answer arrived is judged when it arrives, the others when first asked for."""
        done = self._done
        if self.sent and len(done) == len(self.sent):  # every call sent is judged (what the loop below finds,
            return done if not self._tap._amended else self._now(done)  # without a copy)
        targets = self._targets()
        while len(done) < len(targets):
            index = len(done)
            call = self._eager.pop(index, None)
            if call is None:
                target, rid, name = targets[index]
                call = self._tap._judge(target, rid, name, self._options, self.error, attempt=self._attempt)
                if self._tap._fresh is not None:
                    self._tap._hold(self, index, call)
                self._tap._observe(call, self.tokens[index] if index < len(self.tokens) else [])
            done.append(call)
        return done if not self._tap._amended else self._now(done)

    def _now(self, done: list[TapCall]) -> list[TapCall]:
        """The block's calls as they are now: a task's call judged again since it was judged
        (:meth:`VerdictTap._task_refused`) as it is now (the block keeps each as first judged)."""
        current = self._tap._current_of
        return [current(call) for call in done]

    @property
    def outcomes(self) -> list[Outcome]:
        return [call.outcome for call in self.calls]

    @property
    def outcome(self) -> Outcome:
        """The outcome of the block's last tools/call (the final round of a multi-round call)."""
        done = self._done
        if done and len(done) == len(self.sent):  # every call sent is judged (what ``calls`` returns then)
            return done[-1].outcome if not self._tap._amended else self._tap._current_of(done[-1]).outcome
        calls = self.calls
        if not calls:
            raise LookupError("no tools/call was sent in this block")
        return calls[-1].outcome

    @property
    def verdict(self) -> Verdict:
        return self.outcome.verdict

    def check(self) -> Outcome:
        """The outcome; raises :class:`VerdictError` when its verdict is ``unclassified``."""
        outcome = self.outcome
        if outcome.verdict.kind is Kind.UNCLASSIFIED:
            raise VerdictError(outcome, response=self.calls[-1].response)
        return outcome


def _is_cancelled(error: object) -> bool:
    """A cancellation (asyncio's ``CancelledError``, which anyio raises on asyncio; trio's
    ``Cancelled``): the caller gave up on the block, not the server. Neither is imported here (a
    cancellation of a loop means its module is loaded)."""
    loop = sys.modules.get("asyncio")
    if loop is not None and isinstance(error, loop.CancelledError):
        return True
    return type(error).__name__ == "Cancelled" and type(error).__module__.startswith("trio")
