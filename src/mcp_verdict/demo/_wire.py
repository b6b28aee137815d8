"""JSON-RPC on the wire: what the demo server sends, as exact bytes.

Every reply is built here as bytes, never through a library that would re-serialise it, so a
fault (a duplicated key, a NaN, invalid UTF-8, a wrong id) reaches the wire exactly as written.

Spec references (https://modelcontextprotocol.io/specification/2026-07-28/):

- basic/index#responses: a result response has the request's id and a ``result`` object with
  ``resultType``; an error response has ``error.code`` (integer) and ``error.message``, and its
  id may be absent (here: ``null``) when the request's id could not be read.
- basic/index#error-codes: -32700, -32600..-32603, and MCP's -32020 (HeaderMismatch), -32021
  (MissingRequiredClientCapability), -32022 (UnsupportedProtocolVersion).
- basic/transports/streamable-http#protocol-version-header: the HTTP status of each error
  (400, or 404 for -32601) — the HTTP edge reads it from :data:`HTTP_STATUS`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

JSONRPC_VERSION: Final = "2.0"

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
HEADER_MISMATCH: Final = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

HTTP_STATUS: Final[Mapping[int, int]] = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}
"""HTTP status per JSON-RPC error code (streamable-http: 400 for malformed requests, missing
``_meta`` fields, -32020/-32021/-32022; 404 for -32601). Any other error goes out with 200."""

RequestId = str | int
"""A JSON-RPC request id as the demo server accepts it: a string or an integer (never null,
never a boolean) — basic/index#requests."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What to do in answer to one message: the sans-I/O core's output, carried out by an edge.

    - ``frames``: the bytes to send, each one JSON-RPC message without a trailing newline. The
      stdio edge writes each as a line; the HTTP edge sends the first as the response body
      (a POST carries one response). Empty: nothing to send (a notification; HTTP 202).
    - ``delay``: seconds to wait before sending (the slow tool).
    - ``close``: after the frames (if any), hang up — the stdio edge exits the process, the HTTP
      edge drops the connection after the response headers, before any body.
    - ``error_code``: the JSON-RPC error code of an error reply (the HTTP edge maps it to a
      status with :data:`HTTP_STATUS`); ``None`` for results and faults.
    - ``request_id``: the request a delayed reply answers (so an edge can cancel it).
    - ``cancel``: a ``notifications/cancelled`` named this request: stop it, send nothing.
    """

    frames: tuple[bytes, ...] = ()
    delay: float = 0.0
    close: bool = False
    error_code: int | None = None
    request_id: RequestId | None = None
    cancel: RequestId | None = None

    @property
    def body(self) -> bytes | None:
        """The first frame (what an HTTP response carries), or ``None``."""
        return self.frames[0] if self.frames else None


NOTHING: Final = Reply()
"""No answer (notifications)."""


def dumps(value: Any) -> str:
    """Compact, standard JSON (no NaN): the serialisation of every well-formed frame."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def id_text(request_id: RequestId | None) -> str:
    """The id as JSON text (``null`` when the request's id could not be read)."""
    return dumps(request_id)


def result_frame(request_id: RequestId, result_text: str) -> bytes:
    """A result response around an already serialised ``result`` value (which may be faulty)."""
    return f'{{"jsonrpc":"2.0","id":{id_text(request_id)},"result":{result_text}}}'.encode()


def result_reply(request_id: RequestId, result: Mapping[str, Any], *, delay: float = 0.0) -> Reply:
    """A well-formed result response."""
    return Reply((result_frame(request_id, dumps(result)),), delay=delay)


def error_reply(request_id: RequestId | None, code: int, message: str, data: Any = None) -> Reply:
    """A JSON-RPC error response; ``data`` is omitted when ``None``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    frame = f'{{"jsonrpc":"2.0","id":{id_text(request_id)},"error":{dumps(error)}}}'.encode()
    return Reply((frame,), error_code=code)


class RequestError(Exception):
    """Raised inside the core to answer the current request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def readable_id(message: object) -> RequestId | None:
    """The request's id when it is a valid one (string or integer, not a boolean), else None."""
    if isinstance(message, dict):
        value = message.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    return None


_SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def parse_request(raw: bytes) -> object:
    """Parse one incoming message strictly: UTF-8, standard JSON (NaN and Infinity refused), and
    Unicode text (a ``\\ud800`` escape with no partner is no character: RFC 8259 s8.2).

    Raises ``ValueError`` (including ``UnicodeDecodeError`` and ``json.JSONDecodeError``).
    """

    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    value = json.loads(raw.decode("utf-8"), parse_constant=refuse)
    if _SURROGATE_ESCAPE.search(raw) and _lone_surrogate(value):
        raise ValueError("a \\u escape names a lone surrogate, which is no Unicode character (RFC 8259 s8.2)")
    return value


def _lone_surrogate(value: object) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= char <= "\udfff" for char in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
