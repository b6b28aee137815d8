"""What a :class:`~mcp_verdict.frames.Tracker` holds of one connection (:class:`_Connection`:
the requests waiting, the rounds, requestStates and task ids it remembers, what is in force), and
the bounded tables in it: the requests waiting by HTTP exchange (:func:`_index_exchange`), the ids
both sides wait under (:func:`_both_wait`), a peer's strings remembered within :data:`KEYS_BYTES`
(:func:`_remember_text`).
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ._exchange import Context, Exchange, Origin


@dataclass
class _Connection:
    pending: dict[tuple[Origin, tuple[str, Any]], Exchange] = field(default_factory=dict)
    """The requests waiting, by (origin, id key): (exchange.origin, id_key(exchange.request_id))."""
    by_exchange: dict[tuple[Origin, int], dict[tuple[Origin, tuple[str, Any]], None]] = field(default_factory=dict)
    """The keys in ``pending`` of the requests that came in each HTTP exchange, by (origin, the
    exchange's number): an answer with no readable id pairs by it (:meth:`Tracker._match`).
    Kept lazily: a key whose request was answered since stays until a lookup meets it or the
    index is rebuilt, once it holds more than twice ``pending`` (:func:`_index_exchange`)."""
    indexed: int = 0
    """The keys ``by_exchange`` holds."""
    answered: set[tuple[Origin, tuple[str, Any]]] = field(default_factory=set)
    both: dict[tuple[str, Any], Origin] = field(default_factory=dict)
    """Per id key under which the client's and the server's requests have waited at once (each side
    numbers its own ids): the side whose request began waiting the later, its place in ``pending``
    after the other's (written when a request begins waiting while the other side's waits under its
    id: :meth:`Tracker.latest`). Kept lazily: a key whose requests no longer both wait stays until
    the table holds more than twice ``pending`` (and 64), then it is rebuilt (:func:`_both_wait`)."""
    version: str | None = None  # from initialize
    claimed: str | None = None
    capabilities: Mapping[str, Any] | None = None
    server_extensions: frozenset[str] | None = None
    calls: int = 0
    rounds: OrderedDict[int, int] = field(default_factory=OrderedDict)
    """The rounds seen of each call that has had more than one (a call not here is in its first)."""
    states: OrderedDict[str, int] = field(default_factory=OrderedDict)  # requestState -> call
    tasks: OrderedDict[str, int] = field(default_factory=OrderedDict)
    """taskId -> the call whose answer created it; negated once a later call's answer created it
    again (:meth:`Tracker.task_creator`): its polls and related requests are then no call's."""
    states_bytes: int = 0
    tasks_bytes: int = 0
    """What the keys of ``states`` and ``tasks`` hold (``sys.getsizeof``), each kept within
    :data:`KEYS_BYTES` (:func:`_remember_text`)."""
    initialize_id: tuple[str, Any] | None = None
    opened: Exchange | None = None  # the request the last frame fed opened
    context: Context | None = None
    """The context of the client's last request: the next one gets this same object while what
    is in force stays equal (a 2026-07-28 request carries its capabilities in its own _meta), so
    a judge keeps classify's options per context object (verdict's OptionsMemo)."""
    context_plain: tuple[str | None, str | None, Mapping[str, Any] | None, frozenset[str] | None, Context] | None \
        = None
    """(``version``, ``claimed``, ``capabilities``, ``server_extensions``, the context read from
    them) for a client request with no ``_meta`` and no ``task`` in a session (what is in force
    comes from ``initialize``): a request like it while those four are the same objects gets that
    context without reading again (what the reading would give: an equal context)."""
    batch: tuple[bytes, list[bytes], set[int]] | None = None
    """The batch :meth:`Tracker.batch` last gave the elements of (its bytes, the elements, their
    ``id``), while they are fed: a frame that is one of these objects is an element of it."""
    context_meta: tuple[dict[str, Any], frozenset[str] | None] | None = None
    """(the request's ``_meta``, ``server_extensions``) that ``context`` was read from, when only
    they decide it (a version of 2026-07-28 or later in the ``_meta``); else None. A request whose
    ``_meta`` equals it, the server's extensions unchanged, is given ``context`` without reading
    its ``_meta`` again (what the reading would give: an equal context, so this same object)."""


def _index_exchange(state: _Connection, key: tuple[Origin, tuple[str, Any]], exchange: Exchange) -> None:
    """Note in ``state.by_exchange`` that the request ``exchange``, waiting under ``key``, came in
    its HTTP exchange (none said: nothing). Past twice the requests waiting (and 64), the index is
    rebuilt from ``pending``, its stale keys gone: each rebuild follows as many notes as it reads
    requests, so the index costs a step or two per request whatever waits."""
    number = _exchange_no(exchange)
    if number is None:
        return
    index = state.by_exchange
    keys = index.setdefault((key[0], number), {})
    if key not in keys:
        keys[key] = None
        state.indexed += 1
    if state.indexed > 2 * len(state.pending) + 64:
        index.clear()
        state.indexed = 0
        for each, waiting in state.pending.items():
            at = _exchange_no(waiting)
            if at is not None:
                index.setdefault((each[0], at), {})[each] = None
                state.indexed += 1


def _both_wait(state: _Connection, key: tuple[str, Any], origin: Origin) -> None:
    """``origin``'s request under the id ``key`` began waiting while the other side's waits under
    it: ``origin``'s is the later (``state.both``, what :meth:`Tracker.latest` says). Past twice the
    requests waiting (and 64), the table is rebuilt with only the keys both sides still wait under:
    each rebuild reads at most a third again as many keys as it drops, so the table costs a step
    or two per note whatever waits."""
    both = state.both
    both[key] = origin
    if len(both) > 2 * len(state.pending) + 64:
        pending = state.pending
        state.both = {k: o for k, o in both.items() if ("client", k) in pending and ("server", k) in pending}


def _exchange_no(exchange: Exchange) -> int | None:
    """The HTTP exchange (POST) the request came in, when the feed said."""
    http = exchange.request.http
    number = http.get("exchange") if http else None
    return number if isinstance(number, int) else None


KEYS_BYTES: Final = 16 * 1024 * 1024
"""The most a connection's tracker holds of the ``requestState`` values it remembers, and apart of
the task ids (each key counted by ``sys.getsizeof``): past it the oldest are forgotten, as past
``max_answered`` of them. A peer's values are its own text of any length: 100,000 task ids of
1 MB each held 100 GB. Ids of a usual length (a UUID: 73 bytes) reach ``max_answered`` first."""


def _remember_text(table: OrderedDict[str, int], key: str, value: int, cap: int, size: int) -> int:
    """Set a key of a table of a peer's strings, forgetting the oldest entries past ``cap`` or past
    :data:`KEYS_BYTES` (the newest kept whatever its size): memory bounded on long connections.
    ``size`` is what the keys hold (``sys.getsizeof``); what they hold now is returned.

    An OrderedDict: forgetting its oldest entry is O(1), where ``del d[next(iter(d))]`` on a
    dict scans past every entry deleted before it (9% of the tap's time on a connection past
    ``max_answered`` calls, measured)."""
    if key in table:
        del table[key]
        size -= sys.getsizeof(key)
    table[key] = value
    size += sys.getsizeof(key)
    while len(table) > cap or (size > KEYS_BYTES and len(table) > 1):
        size -= sys.getsizeof(table.popitem(last=False)[0])
    return size
