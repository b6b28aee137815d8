"""The frames the proxy writes itself: its JSON-RPC error codes, and the refusal of an answer.

The proxy answers a host's request itself only when the upstream's answer cannot be passed on
(``enforce`` refuses it) or never comes (the upstream failed, hung or sent a frame past the
limits). Those answers must never be mistaken for errors the server sent
(basic/index#error-codes, 2026-07-28: "Implementations surfacing local errors in JSON-RPC-shaped
structures should ensure they cannot be mistaken for errors received from the peer"; new codes
"SHOULD be allocated outside the JSON-RPC reserved range (-32768 to -32000)"). So the codes are
below that range, each with one meaning, and ``data.source`` is always ``"mcp-verdict proxy"``:

=========  ===========================================================================
-31000     REFUSED: the upstream answered, and ``enforce`` refused the answer (its verdict
           is ``unclassified``, or no strict parser reads it). ``data.verdict`` holds the
           kind and the findings, ``data.sha256``/``data.size`` the original bytes' digest.
-31001     UPSTREAM_CLOSED: the upstream exited or closed the stream before answering.
-31002     UPSTREAM_TIMEOUT: no answer within ``--timeout``.
-31003     TOO_LARGE: a frame passed ``--max-frame-bytes`` (the request, or its answer).
-31004     UPSTREAM_UNAVAILABLE: the upstream cannot be reached (not started, restarting,
           refused the connection, answered HTTP without a JSON-RPC body).
=========  ===========================================================================

``--refuse-as tool-error`` turns a REFUSED answer into a tool execution error instead
(``isError: true``, the findings as text, the same ``data`` in ``_meta``), for hosts that
surface tool errors to the model better than protocol errors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

import orjson

from ..verdict._verdict import Verdict

REFUSED: Final = -31000
UPSTREAM_CLOSED: Final = -31001
UPSTREAM_TIMEOUT: Final = -31002
TOO_LARGE: Final = -31003
UPSTREAM_UNAVAILABLE: Final = -31004
CODES: Final[Mapping[int, str]] = {
    REFUSED: "the upstream's answer was refused by its verdict",
    UPSTREAM_CLOSED: "the upstream closed before answering",
    UPSTREAM_TIMEOUT: "the upstream did not answer in time",
    TOO_LARGE: "a frame passed the proxy's size limit",
    UPSTREAM_UNAVAILABLE: "the upstream cannot be reached",
}
"""Every code the proxy writes, and what it means (the README's table is kept equal to it)."""
SOURCE: Final = "mcp-verdict proxy"
META_KEY: Final = "dev.mcp-verdict/refused"
"""The ``_meta`` key of a refusal written as a tool error (the second label is not ``mcp``, so
the key is not reserved: basic/index#_meta)."""

RefuseAs = Literal["error", "tool-error"]


def digest(data: bytes) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def verdict_data(verdict: Verdict, original: bytes, *, messages: bool = True) -> dict[str, Any]:
    """The ``data`` of a refusal: the verdict kind, its findings, the original bytes' digest."""
    findings = [{"code": f.code, "path": f.path, "severity": f.severity, **({"message": f.message} if messages else {})}
                for f in verdict.findings]
    return {"source": SOURCE, "verdict": {"kind": verdict.kind.value, "version": verdict.version,
                                          "findings": findings}, **digest(original)}


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
