"""The Streamable HTTP routing headers, checked against the body (the core applies them to a
request that came with headers, i.e. over HTTP).

basic/transports/streamable-http#protocol-version-header and #server-validation
(https://modelcontextprotocol.io/specification/2026-07-28/): a header that is present must
match the body — ``MCP-Protocol-Version`` the ``_meta`` version, ``Mcp-Method`` the method,
``Mcp-Name`` ``params.name`` (``params.uri``, ``params.taskId``; Base64 sentinel decoded) — else
400 -32020; an absent header is tolerated (loose).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any, Final

PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
_NAME_PARAM: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
                      "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


def decode_header_value(value: str) -> str:
    """Undo the ``=?base64?...?=`` sentinel (streamable-http#value-encoding); other values as is."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return value
    return value


def header_mismatch(message: Mapping[str, Any], headers: Mapping[str, str]) -> str | None:
    """Why the present routing headers disagree with the body, or ``None`` (loose: an absent
    header is not checked). Only called for modern requests with the required ``_meta``."""
    params = message.get("params")
    params = params if isinstance(params, Mapping) else {}
    meta = params.get("_meta")
    version = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, Mapping) else None
    method = message.get("method")
    given = headers.get("mcp-protocol-version")
    if given is not None and given != version:
        return f"MCP-Protocol-Version header {given!r} does not match _meta protocolVersion {version!r}"
    given = headers.get("mcp-method")
    if given is not None and given != method:
        return f"Mcp-Method header {given!r} does not match body method {method!r}"
    given = headers.get("mcp-name")
    source = _NAME_PARAM.get(method) if isinstance(method, str) else None
    if given is not None and source is not None and decode_header_value(given) != params.get(source):
        return f"Mcp-Name header {given!r} does not match body params.{source} {params.get(source)!r}"
    return None
