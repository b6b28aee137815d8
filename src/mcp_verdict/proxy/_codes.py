"""The frames the proxy writes itself: its JSON-RPC error codes, the refusal of an answer, a
host's request under an id of the proxy's (:func:`with_id`) and a host's cancellation of it
(:func:`with_request_id`).

The codes, their meanings and the ``data`` of a refusal are defined once, for every writer, in
``frames/_refusal`` (re-exported here); ``data.source`` is always ``"mcp-verdict proxy"``.

``--refuse-as tool-error`` turns a REFUSED answer into a tool execution error instead
(``isError: true``, the findings as text, the same ``data`` in ``_meta``), for hosts that
surface tool errors to the model better than protocol errors.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any, Final, Literal

import orjson

from ..frames._jsonrpc import error_json, id_json, id_spans, id_text, peek
from ..frames._refusal import (
    CODES,
    META_KEY,
    REFUSED,
    TOO_LARGE,
    UPSTREAM_CLOSED,
    UPSTREAM_TIMEOUT,
    UPSTREAM_UNAVAILABLE,
    digest,
)
from ..frames._refusal import verdict_data as _verdict_data
from ..frames._request_ids import request_id_spans, request_id_text
from ..verdict._verdict import Verdict

__all__ = ["CODES", "HEADER_MISMATCH", "INVALID_PARAMS", "INVALID_REQUEST", "META_KEY", "PARSE_ERROR", "REFUSED",
           "SOURCE", "TOO_LARGE", "UPSTREAM_CLOSED", "UPSTREAM_TIMEOUT", "UPSTREAM_UNAVAILABLE", "RefuseAs",
           "cancelled", "cancelled_request", "digest", "error_frame", "fault_frame", "findings_codes", "refusal",
           "verdict_data", "with_id", "with_request_id"]

SOURCE: Final = "mcp-verdict proxy"
PARSE_ERROR: Final = -32700
"""JSON-RPC 2.0 s5.1: the proxy answers a host request it cannot read and cannot relay with it."""
INVALID_REQUEST: Final = -32600
"""JSON-RPC 2.0 s5.1: a request the proxy cannot relay as written (its id is a number it cannot hold)."""
INVALID_PARAMS: Final = -32602
"""JSON-RPC 2.0 s5.1: enforce answers a 2025 server's own request it refuses (an elicitation, a
sampling or a roots request whose params break its version's rules) with it, as mcp-verdict's
client does, in place of forwarding it to the host."""

HEADER_MISMATCH: Final = -32020
"""2026-07-28 basic/transports/streamable-http, Server Validation: a request's HTTP headers do not
match its body, or a required one is missing or malformed (HTTP 400)."""

RefuseAs = Literal["error", "tool-error"]


def verdict_data(verdict: Verdict, original: bytes, *, messages: bool = True) -> dict[str, Any]:
    """The ``data`` of the proxy's refusal (``frames/_refusal.verdict_data``, source the proxy)."""
    return _verdict_data(verdict, original, source=SOURCE, messages=messages)


def error_frame(request_id: object, code: int, message: str, data: Mapping[str, Any] | None = None) -> bytes:
    """A JSON-RPC error answer to ``request_id`` (written compactly, no line end; the id exactly:
    an int past 64 bits, a lone surrogate, ``bytes`` as they are, ``frames.id_json``)."""
    return error_json(request_id, code, message, {"source": SOURCE, **(data or {})})


def fault_frame(code: int, reason: str) -> bytes:
    """The proxy's JSON-RPC error answering no request (a null id): an HTTP host's error status
    or an upstream exchange of its own that failed, ``reason`` in its message and ``data``."""
    return error_frame(None, code, f"mcp-verdict proxy: {reason}", {"reason": reason})


def refusal(request_id: object, verdict: Verdict, original: bytes, *, refuse_as: RefuseAs, version: str,
            messages: bool = True) -> bytes:
    """What the host gets in place of a refused answer."""
    data = verdict_data(verdict, original, messages=messages)
    codes = ", ".join(sorted({f.code for f in verdict.errors})) or "no finding"
    if refuse_as == "error":
        return error_frame(request_id, REFUSED, f"mcp-verdict refused the server's answer ({codes})", data)
    lines = [f"The server's answer was refused by mcp-verdict: its verdict is {verdict.kind.value}."]
    lines += [f"- {f.code} at {f.path or '/'}" + (f": {f.message}" if messages else "") for f in verdict.findings]
    result: dict[str, Any] = {"content": [{"type": "text", "text": "\n".join(lines)}], "isError": True,
                              "_meta": {META_KEY: data}}
    if version >= "2026-07-28":
        result = {"resultType": "complete", **result}
    return b'{"jsonrpc":"2.0","id":' + id_json(request_id) + b',"result":' + orjson.dumps(result) + b"}"


def cancelled(request_id: object, reason: str) -> bytes:
    """``notifications/cancelled`` for a request the host gave up (basic/patterns/cancellation)."""
    try:
        return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": request_id, "reason": reason}})
    except TypeError:  # an id orjson cannot write (past 64 bits, a lone surrogate): written exactly
        return (b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":' + id_json(request_id)
                + b',"reason":' + orjson.dumps(reason) + b"}}")


def cancelled_request(data: bytes) -> tuple[bool, Any]:
    """Whether ``data`` is a ``notifications/cancelled``, and the request id it names (None: a
    list or an object). An id orjson does not read exactly (an integer past 64 bits, a lone
    surrogate: the proxy's own, :func:`cancelled`) is read by Python's json: the whole frame up to
    :data:`_WRITTEN_ANEW` bytes; a larger one by its members, as :func:`_read_members` finds them
    (Python's json builds the whole message: 8 MiB of ``NaN`` members took ~1 s and ~100 MiB)."""
    look = peek(data)
    method, params = look.method, look.params
    if look.kind == "unreadable" or type(params.get("requestId")) is float:
        if len(data) > _WRITTEN_ANEW:
            return _read_members(data)
        with contextlib.suppress(ValueError, RecursionError):
            message = json.loads(data)
            inner = message.get("params") if isinstance(message, dict) else None
            if isinstance(inner, dict):
                method, params = message.get("method"), inner
    request = params.get("requestId")
    return method == "notifications/cancelled", request if type(request) not in (list, dict) else None


_METHOD_AS_ID: Final = b'"id"    '
"""``"method"`` made a name the top-level ``"id"`` scan finds, its length kept (``_jsonrpc.id_text``)."""


def _read_members(data: bytes) -> tuple[bool, Any]:
    """:func:`cancelled_request` of a frame past :data:`_WRITTEN_ANEW` bytes that orjson does not
    read, from its bytes, as ``frames.recover_id`` reads an id: the last top-level ``"method"``
    member (found by the top-level ``"id"`` scan in a copy where each ``"id"`` name is ``"iD"`` and
    each ``"method"`` one ``"id"`` and four blanks: quotes, backslashes and brackets where they
    were, so the same strings and depths) is the string ``notifications/cancelled``, and the id is
    the value of the last ``requestId`` member of a top-level ``params`` object
    (``frames._request_ids``) as Python's json reads that value alone (None: an object, a list, a
    value cut short). A name written with an escape is not seen (then no cancellation), as the
    scans see none. Linear time, found in C a block at a time; memory: two copies of the frame."""
    method = id_text(data.replace(b'"id"', b'"iD"').replace(b'"method"', _METHOD_AS_ID))
    try:
        if method is None or json.loads(method) != "notifications/cancelled":
            return False, None
    except ValueError:
        return False, None
    text = request_id_text(data)
    if text is None:
        return True, None
    try:
        return True, json.loads(text)
    except ValueError:  # (an integer past Python's digits, a bad escape)
        return True, None


def findings_codes(verdict: Verdict) -> Sequence[str]:
    return [f.code for f in verdict.findings]


def with_id(data: bytes, new: bytes, message: Mapping[str, Any] | None) -> bytes:
    """The request ``data`` with its id replaced by ``new`` (the id as JSON), every other byte as
    the host wrote it (an integer past 64 bits, an exponent, an escape, the blanks): the value of
    each top-level ``"id"`` member is replaced (one written twice: every reader gets ``new``).
    When no member shows (its name escaped, ``"\\u0069d"``) the request is written anew: by
    Python's json (its integers exact), else (deeper than it goes) from ``message``, orjson's
    read of it."""
    spans = id_spans(data)
    if not spans:
        try:
            return json.dumps({**json.loads(data), "id": json.loads(new)}, separators=(",", ":")).encode()
        except (ValueError, TypeError, RecursionError):
            return orjson.dumps({**(message or {}), "id": json.loads(new)})
    return _spliced(data, spans, new)


def with_request_id(data: bytes, new: bytes) -> bytes | None:
    """The ``notifications/cancelled`` ``data`` with its ``params.requestId`` replaced by ``new``
    (an id as JSON), every other byte as the host wrote it (its reason, ``_meta``, the blanks):
    the value of each ``requestId`` member of each top-level ``params`` object is replaced, as
    :func:`with_id` replaces the id, found in C a block at a time (``frames._request_ids``: a
    regular expression of strings and brackets took a Python step per token, ~0.1 s per MiB of
    small values). When none shows (a name escaped) a frame of up to :data:`_WRITTEN_ANEW`
    bytes is written anew by Python's json (its integers exact); None when that cannot read it
    either, or the frame is larger (Python's json builds the whole message, ~3 times orjson's
    time: the HTTP host side then does not send it, for as written it names the host's id, which
    upstream may be another request's: ``HttpHost._cancelled_as_sent``)."""
    spans = request_id_spans(data)
    if not spans:
        if len(data) > _WRITTEN_ANEW:
            return None
        try:
            message = json.loads(data)
            message["params"]["requestId"] = json.loads(new)
            return json.dumps(message, separators=(",", ":")).encode()
        except (ValueError, TypeError, KeyError, RecursionError):
            return None
    return _spliced(data, spans, new)


_WRITTEN_ANEW: Final = 1 << 16
"""The largest cancellation :func:`with_request_id` writes anew when its ``requestId`` shows no
member (64 KiB: a reason or ``_meta`` far past any a host writes; Python's json reads and writes
one of small values in ~3 ms, where 1 MiB took ~70 ms, ~3 times orjson's read of it)."""


def _spliced(data: bytes, spans: list[tuple[int, int]], new: bytes) -> bytes:
    """``data`` with the bytes of each of ``spans`` (in order, apart) replaced by ``new``, joined in
    C (a frame of many members: no Python step each)."""
    places = list(chain.from_iterable(spans))
    return new.join(map(data.__getitem__, map(slice, chain((0,), places[1::2]), chain(places[0::2], (None,)))))
