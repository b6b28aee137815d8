"""The frames the proxy writes itself: its JSON-RPC error codes, and the refusal of an answer.

The codes, their meanings and the ``data`` of a refusal are defined once, for every writer, in
``frames/_refusal`` (re-exported here); ``data.source`` is always ``"mcp-verdict proxy"``.

``--refuse-as tool-error`` turns a REFUSED answer into a tool execution error instead
(``isError: true``, the findings as text, the same ``data`` in ``_meta``), for hosts that
surface tool errors to the model better than protocol errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

import orjson

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
from ..verdict._verdict import Verdict

__all__ = ["CODES", "META_KEY", "REFUSED", "SOURCE", "TOO_LARGE", "UPSTREAM_CLOSED", "UPSTREAM_TIMEOUT",
           "UPSTREAM_UNAVAILABLE", "RefuseAs", "cancelled", "digest", "error_frame", "findings_codes", "refusal",
           "verdict_data"]

SOURCE: Final = "mcp-verdict proxy"

RefuseAs = Literal["error", "tool-error"]


def verdict_data(verdict: Verdict, original: bytes, *, messages: bool = True) -> dict[str, Any]:
    """The ``data`` of the proxy's refusal (``frames/_refusal.verdict_data``, source the proxy)."""
    return _verdict_data(verdict, original, source=SOURCE, messages=messages)


def _id_json(request_id: object) -> bytes:
    return orjson.dumps(request_id)


def error_frame(request_id: object, code: int, message: str, data: Mapping[str, Any] | None = None) -> bytes:
    """A JSON-RPC error answer to ``request_id`` (written compactly, no line end)."""
    error: dict[str, Any] = {"code": code, "message": message}
    error["data"] = {"source": SOURCE, **(data or {})}
    return b'{"jsonrpc":"2.0","id":' + _id_json(request_id) + b',"error":' + orjson.dumps(error) + b"}"


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
    return b'{"jsonrpc":"2.0","id":' + _id_json(request_id) + b',"result":' + orjson.dumps(result) + b"}"


def cancelled(request_id: object, reason: str) -> bytes:
    """``notifications/cancelled`` for a request the host gave up (basic/patterns/cancellation)."""
    return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": request_id, "reason": reason}})


def findings_codes(verdict: Verdict) -> Sequence[str]:
    return [f.code for f in verdict.findings]
