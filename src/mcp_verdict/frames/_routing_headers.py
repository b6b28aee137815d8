"""The Streamable HTTP routing headers of a 2026-07-28 request, checked against its body: the
one rule the demo server (``demo/_core``) and the proxy (``proxy/_headers``, ``_params``,
``_http_upstream``) both apply (sans-I/O: a body read and its header fields in, a reason out).

2026-07-28 basic/transports/streamable-http
(https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http):

- Protocol Version Header: the ``MCP-Protocol-Version`` header "MUST match the
  ``io.modelcontextprotocol/protocolVersion`` field carried in the request body's ``_meta``";
  "A server that supports clients implementing protocol versions earlier than ``2025-06-18``
  [...] MAY treat a request that omits the header as protocol version ``2025-03-26``": both
  servers here support them (the demo's ``initialize`` takes 2025-03-26 and 2024-11-05; the
  proxy passes any version), so a request without that header is required no routing header
  — the one looseness the spec allows a server here. A routing header it does give is still
  checked when the body's ``_meta`` states 2026-07-28 or later (:func:`applies`): Server
  Validation's "MUST reject requests where the values specified in the headers do not match
  the corresponding values in the request body" names no version, and an intermediary may
  have routed on it.
- Standard Request Headers: ``Mcp-Method`` (``method``) on every request, ``Mcp-Name``
  (``params.name`` or ``params.uri``) on ``tools/call``, ``resources/read`` and ``prompts/get``
  — "These headers are **REQUIRED** for compliance" — and, by the tasks extension
  (``io.modelcontextprotocol/tasks``, ext-tasks specification/draft/tasks.md, Streamable HTTP:
  Routing Headers), ``Mcp-Name`` on ``tasks/get``, ``tasks/update`` and ``tasks/cancel``:
  "the client **MUST** set the ``Mcp-Name`` header to the value of ``params.taskId``"
  (:data:`NAMED`).
- Value Encoding: a value outside visible ASCII, or with leading or trailing whitespace, or in
  the sentinel's own shape, is carried as ``=?base64?{Base64 of its UTF-8}?=``
  (:func:`header_value`); "servers **MUST** decode an encoded ``Mcp-Name`` [...] value before
  comparing it" (:func:`decoded`). A value in the sentinel's shape that does not decode is
  refused, not compared as written: a conforming client never sends one ("clients **MUST**
  also Base64-encode any plain-ASCII value that matches the sentinel pattern"), so no body
  value can be its plain reading.
- Case Sensitivity: header names compare case-insensitively, values case-sensitively.
- Server Validation: "Servers that process the request body **MUST** reject requests where the
  values specified in the headers do not match the corresponding values in the request body"
  with 400 and HeaderMismatch (-32020); the failure conditions: "A required standard header
  (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``) is missing", "A header value does not
  match the corresponding request body value", "A header value contains invalid characters"
  (:func:`one_header`: visible ASCII, space and tab, after RFC 9110 s5.5; a header given twice
  is malformed too — which of its values would an intermediary have routed on?).
- Value Encoding does not say whether a sentinel is recognised on ``Mcp-Method`` or
  ``MCP-Protocol-Version``: it names ``Mcp-Name`` and ``Mcp-Param-{Name}`` only, so those two
  are compared as written.

The ``Mcp-Param-{name}`` headers of a tool's ``inputSchema`` (Custom Headers from Tool
Parameters) are the proxy's alone (``proxy/_params``): the demo's tools declare none.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, Protocol

from ..verdict._peer_text import cut, neutral

__all__ = ["NAMED", "PROTOCOL_VERSION_KEY", "STATELESS", "FieldList", "Fields", "applies", "decoded",
           "field_text", "header_value", "mismatch", "one_header", "shown_value", "stateless"]

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
"""The body's ``_meta`` member the ``MCP-Protocol-Version`` header mirrors."""
STATELESS: Final = "2026-07-28"
"""The first protocol version whose requests carry the routing headers (and no session)."""

NAMED: Final[Mapping[str, str]] = {
    "tools/call": "name", "prompts/get": "name", "resources/read": "uri",
    "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId",
}
"""The requests whose ``Mcp-Name`` header is required, and the ``params`` member it mirrors
(Standard Request Headers; the tasks extension's three, Streamable HTTP: Routing Headers). A
client writes it from the body (the proxy for a stdio host); a server requires it when the body
holds that member as a string (without, the request is malformed and the server says so)."""

_SENTINEL: Final = ("=?base64?", "?=")
_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class Fields(Protocol):
    """A request's header fields: every value given for a name (names case-insensitive), as
    ``multidict``'s ``CIMultiDict`` (the proxy's) and :class:`FieldList` (the demo's) give them."""

    def getall(self, key: str, default: Sequence[str], /) -> Sequence[str]: ...


class FieldList(Mapping[str, str]):
    """Header fields as read off the wire, each value of a repeated name kept in order; as a
    mapping, a name (case-insensitive) gives its last value."""

    __slots__ = ("_by_name",)

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        by_name: dict[str, list[str]] = {}
        for name, value in pairs:
            by_name.setdefault(name.lower(), []).append(value)
        self._by_name: Final = {name: tuple(values) for name, values in by_name.items()}

    def getall(self, key: str, default: Sequence[str] = (), /) -> Sequence[str]:
        return self._by_name.get(key.lower(), default)

    def __getitem__(self, key: str) -> str:
        return self._by_name[key.lower()][-1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self._by_name


@functools.lru_cache(maxsize=64)
def stateless(version: str | None) -> bool:
    """``version`` (an ``MCP-Protocol-Version`` or a ``_meta`` version) is 2026-07-28 or later
    (versions are dates). Read once per text (a host sends the same one on each request; at most
    64 texts kept)."""
    return version is not None and _DATE.fullmatch(version) is not None and version >= STATELESS


def shown_value(value: str) -> str:
    """A header or body value in a reason: quoted, cut short, neutralised (peer text)."""
    return "'" + neutral(cut(value, 120)) + "'"


def one_header(headers: Fields, name: str) -> tuple[str | None, str | None]:
    """(the value of the header ``name``, or None when absent; why it is malformed, or None):
    given more than once, or holding a character a header value may not (visible ASCII, space
    and tab only: Value Encoding, after RFC 9110 s5.5)."""
    values = headers.getall(name, ())
    if not values:
        return None, None
    if len(values) > 1:
        return values[0], f"the {name} header is given {len(values)} times"
    value = values[0]
    if not field_text(value):
        return value, f"the {name} header holds a character outside visible ASCII, space and tab"
    return value, None


def _visible(value: str) -> bool:
    """Every character of ``value`` is visible ASCII or a space (0x20-0x7E). In C: ASCII, and
    printable as ``str.isprintable`` says, which in ASCII is exactly 0x20-0x7E (the control
    characters and DEL are not) — where a generator over the characters cost ~1 µs a header."""
    return value.isascii() and value.isprintable()


def field_text(value: str) -> bool:
    """Every character of ``value`` is one a header field value may hold as this module takes
    it: visible ASCII, space and tab (after RFC 9110 s5.5; :func:`_visible`, a tab read as a
    space). The proxy's trace-context headers are held to it too (``proxy/_otel``)."""
    return _visible(value.replace("\t", " "))  # (no tab: the value itself, not a copy)


def header_value(value: str) -> str:
    """A value for ``Mcp-Name`` / ``Mcp-Param-*`` as a client writes it: as is when plain visible
    ASCII (and inner spaces), else the Base64 sentinel — a tab too: a control character, which a
    client MUST encode (Value Encoding; RFC 9110 lets a field value hold one, and
    :func:`one_header` takes it) — and a value in the sentinel's shape."""
    plain = value == value.strip() and _visible(value)
    if plain and not (value.startswith(_SENTINEL[0]) and value.endswith(_SENTINEL[1])):
        return value
    return _SENTINEL[0] + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii") + _SENTINEL[1]


def decoded(value: str) -> str | None:
    """A header value with the Base64 sentinel (``=?base64?...?=``) decoded (UTF-8), as is
    without it; None: a sentinel that does not decode (not Base64 with its padding, or not
    UTF-8), which a server refuses (the module's rule)."""
    if not (value.startswith(_SENTINEL[0]) and value.endswith(_SENTINEL[1]) and len(value) >= 11):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def _stated(params: Mapping[str, Any]) -> str | None:
    """The protocol version the body's ``_meta`` states, when a string."""
    meta = params.get("_meta")
    stated = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, Mapping) else None
    return stated if isinstance(stated, str) else None


def applies(kind: str, params: Mapping[str, Any], headers: Fields) -> bool:
    """The routing headers of a message of ``kind`` (``"request"`` or ``"notification"``) with
    ``params`` are checked against its body (:func:`mismatch`): its ``MCP-Protocol-Version``
    header or its body's ``_meta`` names 2026-07-28 or later (before, no routing header was
    defined: a 2025 request's are not looked at)."""
    if kind not in ("request", "notification"):
        return False
    for version in headers.getall("MCP-Protocol-Version", ()):
        if stateless(version):
            return True
    return stateless(_stated(params))


def mismatch(kind: str, method: str, params: Mapping[str, Any], headers: Fields) -> str | None:
    """Why the routing ``headers`` of a message :func:`applies` holds for (``kind``, its
    ``method`` and ``params``) fail Server Validation, or None; the server answers 400 and
    HeaderMismatch (-32020) with it. In order: ``MCP-Protocol-Version`` given once, in visible
    ASCII, and the ``_meta`` version when the body states one as a string (without, the server
    answers the missing field); ``Mcp-Method`` likewise, required on a request and matching
    ``method`` (on a notification, when given); on a request of :data:`NAMED` whose body holds
    that member as a string, ``Mcp-Name`` likewise, required, and matching it once a Base64
    sentinel is decoded (one that does not decode is refused). Without an
    ``MCP-Protocol-Version`` header nothing is required, and what is given is checked (the
    module's rule)."""
    version, problem = one_header(headers, "MCP-Protocol-Version")
    if problem is not None:
        return problem
    required = version is not None
    stated = _stated(params)
    if version is not None and stated is not None and version != stated:
        return (f"the MCP-Protocol-Version header {shown_value(version or '')} does not match the body's _meta "
                f"{PROTOCOL_VERSION_KEY} {shown_value(stated)}")
    given, problem = one_header(headers, "Mcp-Method")
    if problem is not None:
        return problem
    if given is None and kind == "request" and required:
        return "the Mcp-Method header is missing (required on every request)"
    if given is not None and given != method:
        return f"the Mcp-Method header {shown_value(given)} does not match the body's method {shown_value(method)}"
    source = NAMED.get(method) if kind == "request" else None
    target = params.get(source) if source is not None else None
    if not isinstance(target, str):
        return None
    given, problem = one_header(headers, "Mcp-Name")
    if problem is not None:
        return problem
    if given is None:
        return f"the Mcp-Name header is missing (required on {method}: params.{source})" if required else None
    named = decoded(given)
    if named is None:
        return f"the Mcp-Name header {shown_value(given)} is a Base64 sentinel that does not decode to UTF-8"
    if named != target:
        return (f"the Mcp-Name header {shown_value(given)} does not match the body's params.{source} "
                f"{shown_value(target)}")
    return None
