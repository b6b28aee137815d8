"""What the tap knows of one connection (:class:`_Conn`), the bounds of what it keeps per
connection, and the noise a stdio server writes between a request and its answer
(``transport.noise``: counted whole, the last lines kept, a few shown).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from ..frames import Exchange, Stray, id_key
from ..frames._tools import TOOLS_BYTES, TOOLS_KEPT, ListedTools
from ..judgement._decide import RetryPolicy
from ..judgement._schema import CompiledSchema, SchemaLimits
from ..verdict._findings import finding
from ..verdict._input import RefusedCalls
from ..verdict._verdict import Verdict, make_verdict

if TYPE_CHECKING:
    from ._block import WriteProxy

_KEEP: Final = 4096
"""Per connection: request exchanges and failures remembered (bounded memory)."""
_UNCLAIMED: Final = 256
"""Per connection: tools/call answers kept for a judging block that learns its call's id late
(a session linked by content, a connection opened inside the block); a claimed call is judged
when its answer arrives and nothing of it is kept."""
_TOOLS_KEPT: Final = TOOLS_KEPT
"""Per connection: the most listed tools kept (their definitions, for judging their calls:
``frames._tools``, the rule the audit and the proxy keep too)."""
_TOOLS_BYTES: Final = TOOLS_BYTES
"""Per connection: the most bytes its kept tools count (each its JSON and an upper bound of its
parsed form: :func:`frames._tools.tool_size`; 10,000 tools of a few fields count about 20 MB);
and, for all the connections a tap keeps together, twice this (:data:`_ALL_TOOLS_BYTES`)."""
_ALL_TOOLS_BYTES: Final = 2 * _TOOLS_BYTES
"""What the kept connections' tools count together at most: past it, the tools of the oldest
closed connections are forgotten first, then a new listing's are not kept."""
_CLOSED_KEPT: Final = 64
"""Closed connections kept (their answers, tools and strays, for a block that judges late); an
older closed connection is forgotten, so a tap serving one connection per call stays bounded.
What they hold of answers shares one byte bound with the open ones' (:class:`_Held`)."""
_NOISE_KEPT: Final = 64
"""Per connection: the last stdio lines that were no JSON-RPC message (noise) kept, for the
verdicts of the calls they came during (every one is counted: ``_Conn.noise_count``)."""
_NOISE_SHOWN: Final = 60
"""Characters of a noise line a verdict's ``transport.noise`` message shows (``_preview``): each
line kept is kept to one byte more (whether it went on), never whole."""
_NOISE_MARKS: Final = 4096
"""Per connection with noise: the noise count at each client frame and tools/call answer, the
last this many (a call counts the noise between its request and its answer from them)."""
Attempt = tuple[int, RetryPolicy] | None
"""The attempt at a call and the retry policy its outcome carries; None for attempt 1 under
``DEFAULT_RETRY`` (what ``evaluate_listed`` gives every outcome)."""


@dataclass(frozen=True, slots=True)
class _Failure:
    """HTTP: what went wrong in an exchange without a JSON-RPC answer."""

    note: str
    status: int | None = None
    """The status of an HTTP error response (its body no JSON-RPC answer); None for a broken exchange."""
    retry_after: int | None = None
    """The seconds its Retry-After asked for (``frames.retry_after``)."""


@dataclass(slots=True)
class _Conn:
    id: str
    transport: Literal["stdio", "http"]
    seq: itertools.count[int] = field(default_factory=itertools.count)
    answered: OrderedDict[tuple[str, Any], Exchange] = field(default_factory=OrderedDict)
    strays: deque[Stray] = field(default_factory=lambda: deque(maxlen=256))
    listed: ListedTools = field(default_factory=ListedTools)
    """The tools kept of the server's listings, within the connection's budget (``frames._tools``)."""
    tools: dict[str, dict[str, Any]] = field(init=False)
    """``listed.tools`` (the same dict, read here: every call reads it)."""
    schemas: dict[str, str | bytes | None] = field(default_factory=dict)
    """Per listed tool with an outputSchema: its content as listed (``schema_key``)."""
    compiled: dict[str, tuple[SchemaLimits, CompiledSchema]] = field(default_factory=dict)
    """Per listed tool: its outputSchema compiled, under the schema limits of the last call."""
    tools_unkept: int = 0
    """The listed tools this connection did not keep (past the budget), every listing counted."""
    unread_told: set[str] = field(default_factory=set)
    """The finding codes of the tools/list answers no strict parser reads that a warning told
    (one per code: ``_tools``)."""
    exchange_of: OrderedDict[tuple[str, Any], int] = field(default_factory=OrderedDict)
    """HTTP: the exchange (POST) each request went out in."""
    failures: dict[int, _Failure] = field(default_factory=dict)
    """HTTP: what went wrong in an exchange without a JSON-RPC answer (status, broken body)."""
    not_sent: OrderedDict[tuple[str, Any], None] = field(default_factory=OrderedDict)
    """The requests that were not sent (the last ``_KEEP``); a request sent again under the same
    id is no longer one of them."""
    unwritten: OrderedDict[tuple[str, Any], str] = field(default_factory=OrderedDict)
    """stdio: why each request the SDK could not write was not sent (the last ``_KEEP``)."""
    tool_calls: deque[tuple[Any, str | None]] = field(default_factory=lambda: deque(maxlen=256))
    """HTTP: the tools/call requests sent (id, tool name), for blocks that opened this connection."""
    closed: str | None = None
    proxy: WriteProxy | None = None
    noise: deque[tuple[int, bytes]] = field(default_factory=lambda: deque(maxlen=_NOISE_KEPT))
    """stdio: (seq, first bytes) of the last lines that were no JSON-RPC message (a sample: the
    first ``_NOISE_SHOWN`` + 1 bytes of each, what a verdict shows of it)."""
    noise_count: int = 0
    """stdio: every line that was no JSON-RPC message, kept or not."""
    noise_from: int | None = None
    """The seq of the first of them (no noise came before it)."""
    noise_marks: OrderedDict[int, int] = field(default_factory=OrderedDict)
    """seq -> ``noise_count`` when that frame came, for the client's frames and the tools/call
    answers after the first noise line (the last ``_NOISE_MARKS``)."""
    cancelled: OrderedDict[tuple[str, Any], tuple[Exchange | None, str | None, Mapping[str, Any], Attempt]] = field(
        default_factory=OrderedDict)
    """The tools/call requests judged cancelled while they were waiting, with the tool's name,
    the block's options and its attempt (the last ``_UNCLAIMED``): an answer arriving later is
    judged as theirs (a late answer), never as another call's. None for a request the SDK had
    handed the transport but the tap had not yet recorded going out (stdio: queued behind a
    large request the server is slow to read): its answer pairs with it when it goes out."""
    reused: dict[int, tuple[str, Any]] = field(default_factory=dict)
    """HTTP: exchange -> the id key of the request it carried, when that id was already waiting on
    this client (two sessions over one client): its answer cannot be told from the other's."""
    ended: OrderedDict[tuple[str, Any], Exchange] = field(default_factory=OrderedDict)
    """The client's tools/call requests still waiting when the connection closed (the last
    ``_UNCLAIMED``), for judging them without their answer as the waiting ones are: the context
    in force and the noise since each request."""
    refused: RefusedCalls = field(default_factory=lambda: RefusedCalls(_UNCLAIMED))
    """The tools/call requests during which a 2025 server made a request mcp-verdict refuses (the
    last ``_UNCLAIMED``)."""
    tasks_forgotten: bool = False
    """A task call of this connection was let go (``VerdictTap._tasks``' bound): a request naming a
    task the tracker knows and the tap no longer keeps is no call's (it may be that task's)."""
    calls_waiting: dict[tuple[str, Any], Exchange] | None = None
    """The client's tools/call requests (and polls of a task the tap judged) as they began to wait,
    by id key: what :meth:`VerdictTap._asking` finds the only one waiting in, where a scan of every
    request waiting made each server request cost as many steps as there were (the server's own
    requests never answered among them). Made by the connection's first server request (from the
    tracker's requests waiting; None before: a connection whose server asks nothing pays nothing
    per call), kept from then on lazily: one no longer waiting stays until a look-up meets it, or
    the table holds more than twice the requests waiting (and 64), then it is rebuilt."""

    def __post_init__(self) -> None:
        self.tools = self.listed.tools


def _with_noise(verdict: Verdict, state: _Conn, after: int, response: Any) -> Verdict:
    """The verdict with a ``transport.noise`` warning when the server wrote lines that are no
    JSON-RPC message between the request and its answer (or since the request, unanswered):
    the client's reading (``mcp_verdict.client``), where the noise is never the answer. Every
    line is counted, and the message says how many of them the tap kept (the last
    ``_NOISE_KEPT`` of the connection) and shows the first three of those."""
    until = response.seq if response is not None else None
    lines = [data for seq, data in state.noise if seq > after and (until is None or seq < until)]
    seen = _noise_between(state, after, until)
    at_least = seen is None  # (the count at the request was no longer kept: the lines kept, at least)
    count = len(lines) if seen is None else seen
    if not count:
        return verdict
    what = "1 line that is not a JSON-RPC message" if count == 1 else \
        f"{count} lines that are not JSON-RPC messages"
    when = "before its answer" if response is not None else "and no answer"
    kept = ""
    if at_least or len(lines) < count:
        kept = f" (the tap kept the last {len(lines)} of them)" if lines else " (the tap kept none of them)"
    shown = ", ".join(_preview(line) for line in lines[:3]) + (", …" if count > 3 else "")
    message = f"the server wrote {'at least ' if at_least else ''}{what} {when}{kept}" + (f": {shown}" if lines else "")
    extra = finding("", "transport.noise", message)
    return make_verdict(verdict.kind, (*verdict.findings, extra), verdict.version, verdict.message)


def _with_refused(verdict: Verdict, state: _Conn, call: Exchange) -> Verdict:
    """``verdict`` of the tools/call ``call``, with the findings of the 2025 server requests
    refused during it (:meth:`VerdictTap._asked`): ``unclassified``, the answer's own findings
    first (the client's rule: the server asked for what it must not)."""
    return state.refused.verdict(id_key(call.request_id), call.request.seq, verdict)


def _sent_again(state: _Conn, key: tuple[str, Any]) -> None:
    """Request ``key`` goes out (again): it is no longer marked not sent."""
    if key in state.not_sent:
        del state.not_sent[key]
        state.unwritten.pop(key, None)


def _mark_noise(state: _Conn, seq: int) -> None:
    """Note the connection's noise count at frame ``seq`` (the last ``_NOISE_MARKS`` are kept)."""
    marks = state.noise_marks
    marks[seq] = state.noise_count
    if len(marks) > _NOISE_MARKS:
        marks.popitem(last=False)


def _noise_between(state: _Conn, after: int, until: int | None) -> int | None:
    """How many noise lines came after frame ``after`` and before frame ``until`` (None: up to
    now); None when the count at one of them is no longer kept."""
    first = state.noise_from
    if first is None:
        return 0
    marks = state.noise_marks
    end = state.noise_count if until is None else 0 if until < first else marks.get(until)
    start = 0 if after < first else marks.get(after)
    return None if end is None or start is None else end - start


def _preview(data: bytes, limit: int = 60) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return repr(text + ("…" if len(data) > limit else ""))
