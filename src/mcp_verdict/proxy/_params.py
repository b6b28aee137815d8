"""The ``Mcp-Param-{name}`` header values of a 2026-07-28 ``tools/call``, one rule for the proxy
as the client (an HTTP upstream: the headers it writes for a stdio host, ``_http_upstream``) and
as the server (a stdio upstream: the headers of an HTTP host's POST checked against its body,
``_headers``), and the exact and first-kept readings of a body (``_twice`` reads them too). The
standard headers' rule (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``), the Value
Encoding (the Base64 sentinel, both ways) and what a malformed header is are
``frames/_routing_headers``', shared with the demo server.

2026-07-28 basic/transports/streamable-http, Custom Headers from Tool Parameters (Schema
Extension, Value Encoding, Server Behavior for Custom Headers), Server Validation; server/tools,
x-mcp-header:

- a tool's ``inputSchema`` declares a header ``Mcp-Param-{name}`` with ``"x-mcp-header": name``
  on a property reached from the root by ``properties`` keys alone, of type ``integer``,
  ``string`` or ``boolean``; ``name`` a non-empty RFC 9110 token, case-insensitively unique in
  the schema. An ``x-mcp-header`` anywhere else, or breaking one of these, makes the tool
  definition invalid: a client MUST drop the tool (the proxy writes no ``Mcp-Param`` header
  for it and, as the server, checks none: :func:`declared` is None);
- the header mirrors the argument at that property's path: absent (or null) there, no header;
  a boolean ``true``/``false``, an integer its decimal form, a string as is — each written as
  is when plain visible ASCII (inner spaces too) without leading or trailing blanks, else as
  ``=?base64?{Base64 of its UTF-8}?=`` (so is a plain value that looks like that sentinel);
- a server that processes the body MUST reject (400, HeaderMismatch -32020) a request whose
  declared header is missing while its argument is there, holds an invalid character, or does
  not match the argument once decoded (integers SHOULD compare numerically: ``42.0`` is
  ``42``). A header whose argument is absent matches nothing in the body: refused too (as the
  official Python SDK's server does). A ``Mcp-Param-*`` header the schema does not declare is
  not the server's (an intermediary forwards it and otherwise ignores it);
- a body in which a member name is given twice (a ``\\u`` escape may spell one of them) is
  read two ways: orjson keeps the last, a server's parser may keep the first (:func:`first_read`);
  the server checks its headers against both readings, so a header matches what the server
  acts on whichever it keeps;
- the argument compared is the number the body writes, exactly (:func:`exact_read`): orjson,
  which reads the body first, holds an integer past 64 bits, and any number with a fraction or
  an exponent, as the nearest float (``18446744073709551617`` as ``...616``, ``1e-400`` as
  ``0``), which a header may not match while the body does, or match while the body does not.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, Final

import msgspec
from multidict import CIMultiDict, CIMultiDictProxy

from ..frames._routing_headers import decoded, header_value, one_header, shown_value
from ..verdict._peer_text import cut, neutral

__all__ = ["Declared", "DeclaredCache", "Headers", "declared", "exact_arguments", "exact_read", "first_read",
           "param_headers", "param_mismatch"]

Headers = CIMultiDictProxy[str] | CIMultiDict[str]

_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""RFC 9110 s5.6.2 ``token`` (``1*tchar``)."""
_PRIMITIVE: Final = frozenset({"integer", "string", "boolean"})
_DECIMAL: Final = re.compile(r"-?[0-9]+(\.[0-9]+)?")
"""A header value an integer argument is compared with numerically (no exponent, no sign +)."""
# The JSON Schema 2020-12 keywords whose values are subschemas (one; a list; a map of them): an
# ``x-mcp-header`` reached through any of these is off the ``properties`` chain. Other members
# (``default``, ``const``, ``examples``, ...) hold data, never read as schemas.
_ONE: Final = frozenset({"items", "contains", "unevaluatedItems", "additionalProperties", "propertyNames",
                         "unevaluatedProperties", "not", "if", "then", "else", "contentSchema"})
_LIST: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP: Final = frozenset({"patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies"})

Declared = tuple[tuple[tuple[str, ...], str, str], ...]
"""Each declared header: (the path of ``properties`` keys to its property, its name, its type)."""


def declared(schema: object) -> Declared | None:
    """The ``Mcp-Param`` headers a tool's ``inputSchema`` declares (the module's rule); None: an
    ``x-mcp-header`` the constraints refuse (the tool definition is invalid). Each subschema is
    visited once, without recursion (a schema is bounded by the tools the relay keeps,
    ``frames._tools``)."""
    if not isinstance(schema, dict):
        return ()
    out: list[tuple[tuple[str, ...], str, str]] = []
    names: set[str] = set()
    stack: list[tuple[tuple[str, ...] | None, object]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        if "x-mcp-header" in node:
            name, kind = node["x-mcp-header"], node.get("type")
            if not path or not isinstance(name, str) or _TOKEN.fullmatch(name) is None \
                    or not isinstance(kind, str) or kind not in _PRIMITIVE or name.lower() in names:
                return None
            names.add(name.lower())
            out.append((path, name, kind))
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                stack.extend(((*path, k) if path is not None else None, sub) for k, sub in reversed(value.items()))
            elif key in _ONE:
                stack.append((None, value))
            elif key in _LIST and isinstance(value, list):
                stack.extend((None, sub) for sub in value)
            elif key in _MAP and isinstance(value, dict):
                stack.extend((None, sub) for sub in value.values())
    return tuple(out)


class DeclaredCache:
    """:func:`declared` of each listed tool's ``inputSchema``, worked out once (a schema of tens of
    thousands of properties takes a tenth of a second to walk; each call used to walk it). An
    entry holds while its tool's definition is the one given (the same object); the owner clears
    them all whenever its tools change (a listing's page), so none keeps a dropped definition."""

    __slots__ = ("_by_name",)

    def __init__(self) -> None:
        self._by_name: dict[str, tuple[object, Declared | None]] = {}

    def of(self, name: str, tool: Mapping[str, Any]) -> Declared | None:
        kept = self._by_name.get(name)
        if kept is not None and kept[0] is tool:
            return kept[1]
        found = declared(tool.get("inputSchema"))
        self._by_name[name] = (tool, found)
        return found

    def clear(self) -> None:
        self._by_name.clear()


_ABSENT: Final = object()
_EXACT: Final = msgspec.json.Decoder(float_hook=Decimal)
_DIGITS: Final = 4300
"""The most digits of an integral number an argument's header is written from (Python's
default limit of int to str; the official Python SDK's client writes none past it either)."""


def exact_read(data: bytes) -> object:
    """The JSON text ``data`` with its numbers exact (an integer an ``int`` whatever its size, a
    number with a fraction or an exponent a ``Decimal``), or :data:`_ABSENT` when it does not
    read. msgspec first (C); then Python's json, which also reads what a lenient server's parser
    does (``NaN``, ``Infinity``, a lone surrogate escape) — neither past its nesting limit (about
    a thousand: Python's recursion limit). Never raises; linear time."""
    try:
        return _EXACT.decode(data)
    except (msgspec.DecodeError, RecursionError):  # (msgspec: past its nesting limit, a RecursionError)
        pass
    try:
        return json.loads(data.decode("utf-8"), parse_float=Decimal)
    except (ValueError, RecursionError):  # (UnicodeDecodeError, an integer past Python's digits, too deep)
        return _ABSENT


def _first_kept(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, value in pairs:
        kept.setdefault(name, value)
    return kept


def first_read(data: bytes) -> object:
    """The JSON text ``data`` as a parser that keeps the first of a member name given twice reads
    it (cJSON and many others; orjson, msgspec and Python's json keep the last), its numbers
    exact as :func:`exact_read` reads them, or :data:`_ABSENT` when it does not read (Python's
    json: ``NaN`` and a lone surrogate escape read, not past about a thousand levels). Never
    raises; linear time."""
    try:
        return json.loads(data.decode("utf-8"), parse_float=Decimal, object_pairs_hook=_first_kept)
    except (ValueError, RecursionError):
        return _ABSENT


def exact_arguments(data: bytes) -> object:
    """The ``params.arguments`` of the request ``data`` read with exact numbers (:func:`exact_read`),
    or :data:`_ABSENT`."""
    message = exact_read(data)
    params = message.get("params") if isinstance(message, dict) else None
    return params.get("arguments", _ABSENT) if isinstance(params, dict) else _ABSENT


class _Exact:
    """The argument at a path as the body writes it: the one read first, but a float (orjson's:
    maybe not the number written) from the body read again, once (``exact``: the arguments read
    again, or :data:`_ABSENT`; None: never)."""

    __slots__ = ("again", "exact")

    def __init__(self, exact: Callable[[], object] | None) -> None:
        self.exact = exact
        self.again: object = None

    def at(self, arguments: object, path: tuple[str, ...]) -> object:
        value = _at(arguments, path)
        if type(value) is not float or self.exact is None:
            return value
        if self.again is None:
            self.again = self.exact()
        return value if self.again is _ABSENT else _at(self.again, path)


def _at(arguments: object, path: tuple[str, ...]) -> object:
    """The argument at ``path`` (keys of objects), or :data:`_ABSENT`."""
    node = arguments
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return _ABSENT
        node = node[key]
    return node


def _rendered(value: object) -> str | None:
    """An argument as its header writes it before encoding (a boolean ``true``/``false``, an
    integer — or a number with no fraction — its decimal form, a string as is); None: one no
    header mirrors (null, an object, an array, a number with a fraction)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # (past Python's digits for int to str: no parser of the proxy makes one)
            return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if isinstance(value, Decimal):  # (an exact read: a number with a fraction or an exponent)
        if not value.is_finite() or value.adjusted() >= _DIGITS or value != value.to_integral_value():
            return None
        return str(int(value))
    return value if isinstance(value, str) else None


def param_headers(found: Declared | None, arguments: object,
                  exact: Callable[[], object] | None = None) -> list[tuple[str, str]]:
    """The ``Mcp-Param-{name}`` headers of a ``tools/call`` with ``arguments`` to a tool whose
    ``inputSchema`` declares ``found`` (:func:`declared`; None for an invalid one: none),
    encoded (the module's rule). ``exact``: the arguments read again with exact numbers
    (:func:`exact_arguments`), asked at most once, when an argument mirrored is a float."""
    out: list[tuple[str, str]] = []
    values = _Exact(exact)
    for path, name, _kind in found or ():
        value = _rendered(values.at(arguments, path))
        if value is not None:
            out.append((f"Mcp-Param-{name}", header_value(value)))
    return out


def _matches(given: str, value: object, rendered: str) -> bool:
    if given == rendered:
        return True
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool) \
            and _DECIMAL.fullmatch(given) is not None:
        return Decimal(given) == Decimal(value)  # (exact: 42.0 is 42; no float rounding either side)
    return False


def param_mismatch(found: Declared | None, arguments: object, headers: Headers,
                   exact: Callable[[], object] | None = None) -> str | None:
    """Why a ``tools/call``'s ``Mcp-Param`` ``headers`` disagree with its ``arguments``, the
    headers the tool's ``inputSchema`` declares being ``found`` (:func:`declared`), or None (the
    module's rule). Each header the schema declares: given more than once or with an invalid
    character; given for an argument that is absent or null, or that no header mirrors; missing
    for an argument there; a Base64 sentinel that does not decode; a value that is not the
    argument's. An invalid schema (None): None.
    ``exact``: the arguments read again with exact numbers (:func:`exact_arguments`), asked at
    most once, when an argument compared is a float."""
    values = _Exact(exact)
    for path, name, _kind in found or ():
        header = f"Mcp-Param-{name}"
        given, problem = one_header(headers, header)
        value = values.at(arguments, path)
        if problem is not None:
            return problem
        rendered = _rendered(value)
        if rendered is None:
            if given is not None:
                what = "absent" if value is _ABSENT else "null" if value is None else "not a string, integer or boolean"
                return f"the {header} header {shown_value(given)} is given but the body's {_where(path)} is {what}"
            continue
        if given is None:
            return f"the {header} header is missing (required: the body's {_where(path)} is {shown_value(rendered)})"
        text = decoded(given)
        if text is None:
            return f"the {header} header {shown_value(given)} is a Base64 sentinel that does not decode to UTF-8"
        if not _matches(text, value, rendered):
            return (f"the {header} header {shown_value(given)} does not match the body's {_where(path)} "
                    f"{shown_value(rendered)}")
    return None


def _where(path: tuple[str, ...]) -> str:
    """The argument at ``path`` in a reason (the schema's property names: peer text, neutralised, cut)."""
    return neutral(cut("arguments." + ".".join(path), 120))
