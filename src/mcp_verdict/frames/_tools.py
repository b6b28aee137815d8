"""What a connection keeps of the tools its server listed (sans-I/O): one rule for the tap, the
audit and the proxy.

Each of them keeps the tools of a connection's ``tools/list`` answers to judge the later calls
(their outputSchema, the ``readOnlyHint`` and ``idempotentHint`` annotations; the proxy also
writes ``Mcp-Param`` headers from an ``inputSchema``'s ``x-mcp-header`` properties), in a
:class:`ListedTools`:

- **a whole listing replaces the tools kept**: a listing begins with a page asked with no
  ``cursor`` and is followed page by page, each asked with the ``nextCursor`` of the page before,
  to the page with no ``nextCursor`` (basic/utilities/pagination: the cursor is opaque, the last
  page has none); then a tool kept that it did not list is dropped, as the server no longer
  describes it. A listing read in part drops nothing; a page whose listing was not followed from
  its start (its cursor not the ``nextCursor`` last seen) adds its tools and drops nothing, and so
  does a page asked by a request no parser reads, or no strict parser (a member name given twice,
  one of them maybe written with ``\\u`` escapes: the reader here keeps the last, the server's
  may keep the first; whether it began a listing, or which page it asked, is not known, so two
  parsers' readings of it never drop a tool); a tool listed again replaces its earlier
  definition;
- **nothing is learnt from an answer no strict parser reads** (:func:`listing_problem`: a member
  name given twice anywhere in it — a tool's ``name`` or ``outputSchema``, the ``tools`` array,
  ``nextCursor`` —, one of them maybe written with ``\\u`` escapes, or nesting past the strict
  reader's bound, which the lenient routing read keeps): the reader here keeps the last copy, the
  client's (a host's, an SDK's) may keep the first (RFC 8259 s4: such an object's "behavior ...
  is unpredictable"), so a schema kept of it may not be the one the peers acted on. None of its
  tools is kept or dropped (the tools kept before stay as they were), the listing under way is
  no longer followed, and the caller is told why (:attr:`Listed.problem`), for it to say so;
- **a budget per connection**: at most :data:`TOOLS_KEPT` tools and :data:`TOOLS_BYTES` bytes,
  each tool counted by :func:`tool_size` (its JSON and an upper bound of its parsed form). A tool
  past it is not kept (its calls are judged as a tool whose listing was not kept); the caller
  may ask for a narrower one (``room``: the tap's bound for all its connections).

What is dropped (replaced, or no longer listed) is told to the caller as it goes (``dropped``),
which forgets what it made of it (a compiled schema, a cache, its share of a wider budget).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NamedTuple

import msgspec

from ..verdict._classify import DEFAULT_LIMITS
from ..verdict._findings import Finding
from ..verdict._parser import NOT_PARSED, parse, read_strict
from ..verdict._peer_text import cut, one_line
from ._exchange import Exchange
from ._jsonrpc import peek

TOOLS_KEPT: Final = 10_000
"""Per connection: the most listed tools kept (their definitions, for judging their calls)."""
TOOLS_BYTES: Final = 64 * 1024 * 1024
"""Per connection: the most bytes its kept tools count (each its JSON and an upper bound of its
parsed form: :func:`tool_size`; 10,000 tools of a few fields count about 20 MB)."""
_FOLLOWED: Final = 2 * TOOLS_KEPT
"""The most names a listing under way is followed for (and, together, :data:`TOOLS_BYTES` of
their text): a listing without end is then no longer followed, and drops nothing."""
PARSED_TOKEN: Final = 128
"""Bytes counted per token of a JSON text (``{``, ``[``, ``,`` or ``:``: each value and member
name of the parsed value but the whole follows one of them), for the object it is and its slot
in the object or array holding it (measured: at most 88, a list of one-character strings that
UTF-16 cannot hold; a dict of one member 64 per token with its name's). Those inside strings are
counted too: a text of many commas or colons counts more than it holds."""
_TOKENS: Final = b"{[,:"

Dropped = Callable[[str, dict[str, Any], int], None]
"""Told of each tool dropped: its name, its definition and what it counted (:func:`tool_size`)."""


class Listed(NamedTuple):
    """What :meth:`ListedTools.listed` made of one answer."""

    kept: list[str]
    """The names kept of the page, in order."""
    unkept: int
    """How many tools it listed that were not kept (past the budget)."""
    problem: Finding | None = None
    """Why no strict parser reads the answer, when none does (:func:`listing_problem`): nothing
    of it was kept; None otherwise."""


def listing_problem(exchange: Exchange) -> Finding | None:
    """Why no strict parser reads the answer to the ``tools/list`` ``exchange``, as the verdict
    layer's strict reader says it (``verdict._parser.parse``: a ``json.duplicate_key`` finding for
    a member name given twice, ``json.too_deep`` past its nesting bound...), None when one does
    (or it has no answer). The whole answer is read (once more than the routing read: about twice
    ``orjson.loads``' time, and its values built once more for the while)."""
    response = exchange.response
    if response is None:
        return None
    data = response.data
    return parse(data, len(data), DEFAULT_LIMITS.max_depth)[1]


def problem_words(problem: Finding) -> str:
    """A :attr:`Listed.problem` as a caller tells it (its code, place and words: peer text, each
    cut to 200 characters on one neutral line)."""
    return (f"{problem.code} at {one_line(cut(problem.path, 200)) or '/'}: "
            f"{one_line(cut(problem.message, 200))}")


def parsed_bound(data: bytes) -> int:
    """An upper bound of what the JSON ``data`` takes parsed: its length once more (five times
    when it is not ASCII or holds a ``\\u`` escape: a character may take four bytes in a Python
    string, and the string may keep its UTF-8 form beside them) and :data:`PARSED_TOKEN` bytes
    per ``{``, ``[``, ``,`` or ``:`` and one more (the whole). Linear in its size, in C."""
    tokens = len(data) - len(data.translate(None, _TOKENS)) + 1
    wide = not data.isascii() or b"\\u" in data
    return (5 if wide else 1) * len(data) + PARSED_TOKEN * tokens


def tool_size(tool: dict[str, Any]) -> int | None:
    """What a listed tool counts against the tools' budget: its JSON's bytes and an upper bound
    of its parsed form (:func:`parsed_bound`); its outputSchema's text is within the first. None
    when it cannot be written as JSON (then it is not kept)."""
    try:
        data = msgspec.json.encode(tool)
    except (msgspec.EncodeError, TypeError, ValueError, OverflowError, RecursionError):
        return None
    return len(data) + parsed_bound(data)


class ListedTools(msgspec.Struct):
    """The tools one connection keeps of its server's listings (the module's rule). It pickles
    (the audit hands a connection's to another process)."""

    tools: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    """Each kept tool's definition as listed, by name. Never rebound (a caller may hold it)."""
    sizes: dict[str, int] = msgspec.field(default_factory=dict)
    """Per kept tool: what it counts against the budget (:func:`tool_size`)."""
    size: int = 0
    """The sum of ``sizes``."""
    listing: set[str] | None = None
    """The names the listing under way has listed so far; None: no listing followed from its start."""
    listing_bytes: int = 0
    """The characters of those names."""
    cursor: Any = None
    """The ``nextCursor`` of the listing's last page: the cursor its next page is asked with."""

    def listed(self, exchange: Exchange, room: Callable[[int], bool] | None = None,
               dropped: Dropped | None = None,
               strict: Callable[[Exchange], Finding | None] = listing_problem) -> Listed:
        """Keep what the answer to the ``tools/list`` request ``exchange`` lists (the module's
        rule); a failed or unreadable answer, or one no strict parser reads, stops following the
        listing under way. ``room``: whether a tool of that size may be kept beyond this
        connection's budget (True: the caller counts it, and is told when it is dropped);
        ``dropped``: told of each tool dropped, as it is; ``strict``: why no strict parser reads
        the answer (:func:`listing_problem`; a caller that reads it strictly anyway gives its own
        reading, so that it is read once), asked only of an answer that lists tools. Returns the
        names kept of this page, in order, how many tools it listed that were not kept (past the
        budget), and why no strict parser reads it, if none does."""
        look = exchange.response_peek
        result = look.result if look is not None else None
        page = result.get("tools") if result is not None else None
        if result is None or not isinstance(page, list):
            self.unfollow()
            return Listed([], 0)
        problem = strict(exchange)
        if problem is not None:  # (two readings of it: nothing learnt, nothing dropped)
            self.unfollow()
            return Listed([], 0, problem)
        asked = peek(exchange.request.data)
        cursor = asked.params.get("cursor")
        if asked.message is None or read_strict(exchange.request.data) is NOT_PARSED:
            self.unfollow()  # (a request not read, or read two ways: whether it began a listing is not known)
        elif cursor is None:  # a page asked with no cursor begins a listing
            self.listing, self.listing_bytes = set(), 0
        elif self.listing is not None and cursor != self.cursor:
            self.unfollow()  # (not the next page of the listing under way)
        names = self.listing
        tools, sizes = self.tools, self.sizes
        kept: list[str] = []
        unkept = 0
        for tool in page:
            if not (isinstance(tool, dict) and isinstance(tool.get("name"), str)):
                continue
            name: str = tool["name"]
            if names is not None and name not in names:
                names.add(name)
                self.listing_bytes += len(name)
            self.drop(name, dropped)  # its earlier definition, if any
            size = tool_size(tool) if len(tools) < TOOLS_KEPT else None  # (none measured past the count)
            if size is None or self.size + size > TOOLS_BYTES or (room is not None and not room(size)):
                unkept += 1
                continue
            tools[name] = tool
            sizes[name] = size
            self.size += size
            kept.append(name)
        if names is None:
            return Listed(kept, unkept)
        next_cursor = result.get("nextCursor")
        if next_cursor is None:  # a whole listing: what it drops is gone
            self.unfollow()
            for gone in [name for name in tools if name not in names]:
                self.drop(gone, dropped)
        elif len(names) > _FOLLOWED or self.listing_bytes > TOOLS_BYTES:
            self.unfollow()  # (a listing without end: names beyond any budget are not followed)
        else:
            self.cursor = next_cursor
        return Listed(kept, unkept)

    def drop(self, name: str, dropped: Dropped | None = None) -> None:
        """Forget tool ``name`` (``dropped`` told of it, when it was kept)."""
        tool = self.tools.pop(name, None)
        if tool is None:
            return
        size = self.sizes.pop(name, 0)
        self.size -= size
        if dropped is not None:
            dropped(name, tool, size)

    def clear(self) -> None:
        """Forget every tool kept (the caller knows them: nobody is told)."""
        self.tools.clear()
        self.sizes.clear()
        self.size = 0

    def unfollow(self) -> None:
        """The listing under way is no longer followed (here: a page not read, or not the next one;
        the caller's: it keeps nothing of an answer to it, as the proxy's enforce refusing it, so
        its host never had that page); nothing is dropped."""
        self.listing, self.listing_bytes, self.cursor = None, 0, None


class ToolsBudget:
    """What the tools kept by several connections count together (the proxy's relays: one per
    upstream session, up to a thousand), beside each connection's own budget: a ``room`` for
    :meth:`ListedTools.listed`, given back as tools are dropped and connections end."""

    __slots__ = ("most", "size")

    def __init__(self, most: int) -> None:
        self.most = most
        self.size = 0

    def room(self, size: int) -> bool:
        """Whether a tool of ``size`` fits; counted when it does."""
        if self.size + size > self.most:
            return False
        self.size += size
        return True

    def release(self, size: int) -> None:
        self.size -= size

    def dropped(self, name: str, tool: dict[str, Any], size: int) -> None:
        """A tool it counted was dropped (:data:`Dropped`): its size given back."""
        self.size -= size
