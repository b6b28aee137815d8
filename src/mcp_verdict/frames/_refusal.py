"""The frames mcp-verdict writes itself as an intermediary: its JSON-RPC error codes and the
``data`` of a refused answer — one definition for the proxy and the FastMCP middleware.

An intermediary answers a host's request itself only when the upstream's answer cannot be passed
on (its verdict refuses it) or never comes. Those answers must never be mistaken for errors the
server sent (basic/index#error-codes, 2026-07-28: "Implementations surfacing local errors in
JSON-RPC-shaped structures should ensure they cannot be mistaken for errors received from the
peer"; new codes "SHOULD be allocated outside the JSON-RPC reserved range (-32768 to -32000)").
So the codes lie below that range, each with one meaning, and ``data.source`` names the writer:

=========  ===========================================================================
-31000     REFUSED: the upstream answered, and the verdict refused the answer (``unclassified``,
           or an unknown effect where the caller enforces that). ``data.verdict`` holds the kind,
           the version and the findings, ``data.sha256``/``data.size`` the original bytes' digest.
-31001     UPSTREAM_CLOSED: the upstream exited or closed the stream before answering.
-31002     UPSTREAM_TIMEOUT: no answer within the timeout.
-31003     TOO_LARGE: a frame passed the size limit (the request, or its answer).
-31004     UPSTREAM_UNAVAILABLE: the upstream cannot be reached (not started, restarting,
           refused the connection, answered HTTP without a JSON-RPC body).
=========  ===========================================================================
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final

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
"""Every code mcp-verdict writes, and what it means (the README's table is kept equal to it)."""
META_KEY: Final = "dev.mcp-verdict/refused"
"""The ``_meta`` key of a refusal written as a tool error (the second label is not ``mcp``, so
the key is not reserved: basic/index#_meta)."""


def digest(data: bytes) -> dict[str, Any]:
    """The digest of the bytes a refusal stands in for: ``sha256`` (hex) and ``size``."""
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def verdict_data(verdict: Verdict, original: bytes | None, *, source: str, messages: bool = True,
                 decision: str | None = None) -> dict[str, Any]:
    """The ``data`` of a refusal: who wrote it, the verdict (kind, version, findings), the
    decision where the writer made one, and the original bytes' digest when they are known."""
    findings = [{"code": f.code, "path": f.path, "severity": f.severity, **({"message": f.message} if messages else {})}
                for f in verdict.findings]
    data: dict[str, Any] = {"source": source, "verdict": {"kind": verdict.kind.value, "version": verdict.version,
                                                          "findings": findings}}
    if decision is not None:
        data["decision"] = decision
    if original is not None:
        data.update(digest(original))
    return data
