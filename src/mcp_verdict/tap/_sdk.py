"""What differs between the official SDK's majors, in one place (mcp 1.x from 1.9, and 2.x).

- The message types: 1.x ``mcp.types.JSONRPCMessage`` (a root model, ``.root`` holds the
  request, response, error or notification); 2.x ``mcp_types`` with
  ``jsonrpc_message_adapter``. Both wrap a message in ``mcp.shared.message.SessionMessage``.
- How the SDK writes a message on stdio: 1.x ``model_dump_json(by_alias=True,
  exclude_none=True)``, 2.x ``exclude_unset=True`` — the tap writes what the SDK's own stdio
  transport would write, so a server sees the same bytes with or without the tap.
- Where a session keeps the stream it writes to: 1.x ``BaseSession._write_stream``; 2.x
  ``ClientSession._dispatcher._write_stream`` (the JSON-RPC dispatcher). Only
  :func:`write_stream_of` knows these names; the tap replaces the stream once with its
  recording proxy when a session it did not build is judged.

Nothing is imported until first use: ``import mcp_verdict.tap`` needs no SDK.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .._extras import MissingExtra

MIN_VERSION: Final = (1, 9)


@dataclass(frozen=True, slots=True)
class SDK:
    major: int
    parse: Callable[[bytes], Any]
    """Wire bytes → a SessionMessage (raises ValueError when the SDK cannot read them)."""
    dump: Callable[[Any], bytes]
    """A SessionMessage → the bytes the SDK's own stdio transport writes."""
    error: Callable[[Any, int, str], Any]
    """(request id, code, message) → a SessionMessage holding that JSON-RPC error, built from
    Python values: any id the SDK holds (past 64 bits, a string with a lone surrogate, which its
    JSON reader refuses)."""
    default_environment: Callable[[], dict[str, str]]


def _version() -> tuple[int, int]:
    try:
        text = importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        return (2, 0) if importlib.util.find_spec("mcp_types") is not None else (1, 99)
    parts = [*text.split("."), "0"][:2]
    return (int(parts[0]) if parts[0].isdigit() else 0, int(parts[1]) if parts[1].isdigit() else 0)


@functools.cache
def sdk() -> SDK:
    """The installed SDK's message functions; MissingExtra when it is absent or older than 1.9."""
    if importlib.util.find_spec("mcp") is None:
        raise MissingExtra("client", "the tap's transports", "the official SDK, mcp 1.9 or later, is not installed")
    version = _version()
    if version < MIN_VERSION:
        raise MissingExtra("client", "the tap's transports", f"mcp {version[0]}.{version[1]} is installed; "
                                                              "1.9 or later is needed")
    message_module = importlib.import_module("mcp.shared.message")
    session_message = message_module.SessionMessage
    stdio = importlib.import_module("mcp.client.stdio")
    if version[0] >= 2:
        types = importlib.import_module("mcp_types")
        adapter = types.jsonrpc_message_adapter

        def parse2(data: bytes) -> Any:
            return session_message(adapter.validate_json(data, by_name=False))

        def dump2(message: Any) -> bytes:
            text: str = message.message.model_dump_json(by_alias=True, exclude_unset=True)
            return text.encode("utf-8")

        def error2(request_id: Any, code: int, text: str) -> Any:
            return session_message(adapter.validate_python(_error(request_id, code, text), by_name=False))

        return SDK(version[0], parse2, dump2, error2, stdio.get_default_environment)
    model = importlib.import_module("mcp.types").JSONRPCMessage

    def parse1(data: bytes) -> Any:
        return session_message(model.model_validate_json(data))

    def dump1(message: Any) -> bytes:
        text: str = message.message.model_dump_json(by_alias=True, exclude_none=True)
        return text.encode("utf-8")

    def error1(request_id: Any, code: int, text: str) -> Any:
        return session_message(model.model_validate(_error(request_id, code, text)))

    return SDK(version[0], parse1, dump1, error1, stdio.get_default_environment)


def _error(request_id: Any, code: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}


def request_of(session_message: Any) -> tuple[str, Any, Any] | None:
    """(method, id, params) when a SessionMessage holds a request, else None.

    Reads the model's fields from its ``__dict__`` (pydantic keeps them there): a missing
    attribute on a pydantic model is an exception raised and caught inside ``getattr``, which
    would cost more than the rest of the tap's work on a call. The SessionMessage's own
    ``message`` is read as an attribute (a dataclass field: reading its ``__dict__`` would build
    one)."""
    try:
        message: Any = session_message.message
    except AttributeError:  # (what getattr with a default catches)
        return None
    inner = getattr(message, "__dict__", None) or {}
    if "root" in inner:  # 1.x: JSONRPCMessage is a root model
        inner = getattr(inner["root"], "__dict__", None) or {}
    method = inner.get("method")
    if (type(method) is not str and not isinstance(method, str)) or "id" not in inner:
        return None
    return method, inner["id"], inner.get("params")


def answer_id_of(session_message: Any) -> tuple[Any] | None:
    """(id,) when a SessionMessage holds a response or an error (the client's answer to a
    server's request), else None; read as :func:`request_of` reads."""
    fields = getattr(session_message, "__dict__", None) or {}
    message: Any = fields.get("message")
    inner = getattr(message, "__dict__", None) or {}
    if "root" in inner:  # 1.x: JSONRPCMessage is a root model
        inner = getattr(inner["root"], "__dict__", None) or {}
    if "method" in inner or "id" not in inner or not ("result" in inner or "error" in inner):
        return None
    return (inner["id"],)


def session_of(target: Any) -> Any:
    """The ClientSession behind an SDK ``Client`` (2.x), a FastMCP ``Client``, or the session itself."""
    if hasattr(target, "send_request"):
        return target
    inner = getattr(target, "session", None)
    if inner is not None and hasattr(inner, "send_request"):
        return inner
    raise TypeError(f"{type(target).__name__} is not an MCP ClientSession or Client")


def write_stream_of(session: Any) -> tuple[Any, str] | None:
    """(holder, attribute) of the stream a session writes its messages to, or None."""
    dispatcher = getattr(session, "_dispatcher", None)
    if dispatcher is not None and hasattr(dispatcher, "_write_stream"):
        return dispatcher, "_write_stream"
    if hasattr(session, "_write_stream"):
        return session, "_write_stream"
    return None
