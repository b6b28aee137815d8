"""What a host's POST must say in its headers under the 2026-07-28 Streamable HTTP transport,
checked against its body (:func:`header_mismatch`: ``MCP-Protocol-Version`` against the body's
``_meta`` version, ``Mcp-Method``, ``Mcp-Name``, and the tool's ``Mcp-Param-{name}`` headers by
``_params``), and the HTTP status of a stateless request's JSON-RPC error (:func:`_error_status`). 2026-07-28
basic/transports/streamable-http: Protocol Version Header, Standard Request Headers, Value
Encoding, Server Validation. The standard headers' rule itself (which request needs which
header, the Base64 sentinel, a malformed header, the reasons) is ``frames/_routing_headers``',
which the demo server applies too; this module adds what the proxy reads beyond it: the
``Mcp-Param-*`` headers (``_params``), and the bodies orjson does not read or reads one way of two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import orjson

from ..frames._jsonrpc import Peek, peek
from ..frames._routing_headers import applies, mismatch
from ..frames._routing_headers import stateless as _stateless
from ..verdict._parser import NOT_PARSED, read_strict
from ..verdict._peer_text import cut, neutral
from ._codes import HEADER_MISMATCH, PARSE_ERROR
from ._params import Declared, Headers, exact_arguments, exact_read, first_read, param_mismatch

_ERROR_STATUS: Final = {-32700: 400, -32600: 400, -32602: 400, -32020: 400, -32021: 400, -32022: 400, -32601: 404}
"""The HTTP status of a 2026-07-28 request's JSON-RPC error (basic/transports/streamable-http,
Protocol Version Header and Server Validation: HeaderMismatch and UnsupportedProtocolVersion
400, an unknown method 404 with -32601; basic/index: a request missing its required ``_meta``
fields -32602 and 400, MissingRequiredClientCapability 400) — the demo's HTTP edge's table."""


def _error_status(data: bytes, look: Peek | None = None) -> int:
    """The status of a stdio upstream's answer to a 2026-07-28 request, sent as one JSON body: a
    JSON-RPC error of :data:`_ERROR_STATUS` its status (a client tells eras and faults by it:
    basic/versioning, Backward Compatibility), else 200. ``look``: ``frames.peek``'s reading of
    ``data`` when the relay made it (``Relay.upstream_look``); without it, a search of the bytes
    for ``"error"`` first (CPython 3.11's search for a needle of several bytes took ~50–90 µs over a
    60 kB answer), then a read."""
    if look is None:
        if data.find(b'"error"') < 0:
            return 200
        look = peek(data)
    error = look.message.get("error") if look.kind == "error" and look.message is not None else None
    code = error.get("code") if type(error) is dict else None
    return _ERROR_STATUS.get(code, 200) if type(code) is int else 200


def header_mismatch(look: Peek, headers: Headers, tool: Callable[[str], Declared | None] | None = None,
                    body: bytes | None = None) -> tuple[int, str] | None:
    """Why a host's POST (its body read as ``look``, its HTTP ``headers``) fails the 2026-07-28
    transport's header validation, or None (2026-07-28 basic/transports/streamable-http, Protocol
    Version Header, Standard Request Headers, Value Encoding, Server Validation: a server that
    processes the body MUST reject, 400 and HeaderMismatch -32020, a request whose headers do
    not match its body or whose required header is missing or malformed).

    It applies to a request or notification whose ``MCP-Protocol-Version`` header, or whose
    body's ``_meta`` version, is 2026-07-28 or later; an absent ``MCP-Protocol-Version`` header is
    not required (a server MAY take the request as 2025-03-26's), and without it no header is
    required, nor an ``Mcp-Param-*`` one checked, but a given ``Mcp-Method`` or ``Mcp-Name`` must
    still match the body (before, none was checked). Checked, by the rule the demo
    server shares (``frames._routing_headers.applies`` and ``mismatch``): the header matches
    the ``_meta`` ``io.modelcontextprotocol/protocolVersion`` (when the body holds one as a string:
    without, the server answers the missing field); ``Mcp-Method``, required on a request,
    matches ``method`` (on a notification, when present); ``Mcp-Name``, required on ``tools/call``
    and ``prompts/get`` (``params.name``), ``resources/read`` (``params.uri``) and the tasks
    extension's ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` (``params.taskId``) when the
    body holds that string (``frames._routing_headers.NAMED``), matches it once a Base64 sentinel
    is decoded. Each given once, in visible ASCII. On ``tools/call``, the ``Mcp-Param-{name}``
    headers the tool's ``inputSchema`` declares
    (``x-mcp-header``) agree with its ``arguments`` (``_params.param_mismatch``: a header
    missing for an argument there, given for one absent, malformed, or not the argument's
    value), ``tool(name)`` being the headers the tool declares in the upstream's last listing of
    it (``Relay.param_declared``): for a tool it has not listed (no listing yet, or not in it),
    or whose annotations are invalid (None), which headers are its own is not known, and none
    is checked.

    Returns (the code, the reason): HeaderMismatch; or, for a body orjson does not read (a
    number past a double's range, ``NaN``, a lone surrogate escape, past 1,024 levels) that shows
    an id (the relay forwards it, awaited by that id: ``Relay._host_unreadable``; one without is
    answered by the proxy, unsent) under an ``MCP-Protocol-Version`` header of 2026-07-28 or
    later, the check is made on ``body`` as it reads exactly (``_params.exact_read``, which a
    lenient server's parser matches), and a body that does not read there either is refused as
    a parse error (-32700): its headers cannot be checked against it, and the server might read
    it (before, such a body went unchecked: an ``Mcp-Name`` naming another tool than the body's
    went through). A number the ``Mcp-Param`` check meets as a float is compared as ``body``
    writes it. ``body`` None (one past ``--max-frame-bytes``, refused as too large): neither.
    A body no strict parser reads is also checked as read by a parser that keeps the first of a
    member name given twice (``_params.first_read``; orjson keeps the last): the server may
    act on either reading, so a header must match both (before, an ``Mcp-Name`` matching the
    last of two ``name`` members went through while such a server called the first one's tool)."""
    if look.kind == "unreadable" and body is not None:
        if not look.has_id or not any(_stateless(v) for v in headers.getall("MCP-Protocol-Version", [])):
            return None  # (without an id it shows, the relay answers it itself, unsent: ``unfollowed``)
        message = exact_read(body)
        if not isinstance(message, dict):
            if isinstance(message, list):  # (a batch: refused as one, whatever its headers)
                return None
            problem = neutral(cut(look.problem or "not JSON", 200))
            return PARSE_ERROR, (f"the body does not read as a JSON object ({problem}): its headers cannot be "
                                 "checked against it")
        method = message.get("method")
        look = Peek("request" if "id" in message else "notification", look.id, look.has_id,
                    method if isinstance(method, str) else None, message)
        if look.method is None:
            return None
    if not applies(look.kind, look.params, headers):  # (a 2025 request: no header to check, asked once)
        return None
    exact = None if body is None else lambda: exact_arguments(body)
    reason = _header_reason(look, headers, tool, exact)
    if reason is None and body is not None and not _written_back(look, body) and read_strict(body) is NOT_PARSED:
        first = first_read(body)  # (a member name given twice: the server may keep the first)
        method = first.get("method") if isinstance(first, dict) else None
        if isinstance(first, dict) and isinstance(method, str):
            twice = Peek("request" if "id" in first else "notification", look.id, look.has_id, method, first)
            why = _header_reason(twice, headers, tool, None) if applies(twice.kind, twice.params, headers) else None
            if why is not None:
                reason = f"{why} (read as a parser that keeps the first of a member name given twice reads it)"
    return None if reason is None else (HEADER_MISMATCH, reason)


def _written_back(look: Peek, body: bytes) -> bool:
    """orjson writes the routing read ``look`` of ``body`` back as ``body`` itself, byte for byte
    (a compact body, as the SDKs write one): then no object of it gives a member name twice (the
    read keeps one of the two, and what it writes back would be shorter), so a parser that keeps
    the first of a repeated name reads what ``look`` holds, and the check :func:`header_mismatch`
    made on ``look`` stands for it. ~0.25 µs for a 2026-07-28 ``tools/call``, where the strict
    read that tells so otherwise costs ~2 µs. False: not shown (the strict read tells)."""
    message = look.message
    if message is None or look.kind == "unreadable":
        return False
    try:
        return orjson.dumps(message) == body
    except orjson.JSONEncodeError:  # (cannot be, for orjson's own read: the strict read tells instead)
        return False


def _header_reason(look: Peek, headers: Headers, tool: Callable[[str], Declared | None] | None,
                   exact: Callable[[], object] | None) -> str | None:
    """:func:`header_mismatch`'s HeaderMismatch reason for a message the headers' rule
    :func:`~..frames._routing_headers.applies` to, or None: the standard headers
    (``frames._routing_headers.mismatch``), then a ``tools/call``'s ``Mcp-Param-*`` headers."""
    params = look.params
    method = look.method or ""
    reason = mismatch(look.kind, method, params, headers)
    if reason is not None or tool is None or method != "tools/call" or look.kind != "request" \
            or not headers.getall("MCP-Protocol-Version", ()):  # (no version header: no Mcp-Param-* rule)
        return reason
    name = params.get("name")
    found = tool(name) if isinstance(name, str) else None
    if found is None:
        return None
    return param_mismatch(found, params.get("arguments"), headers, exact)
