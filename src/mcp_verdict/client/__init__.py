"""The verdict-first MCP client (the edge: processes, sockets, the official SDK)."""

from ._client import CallRecord, Round, VerdictClient
from ._handlers import (
    ElicitAnswer,
    FormHandler,
    HandlerError,
    Handlers,
    RootsHandler,
    SamplingHandler,
    UrlConsentHandler,
)
from ._wire import Frame, WireLog

__all__ = [
    "CallRecord",
    "ElicitAnswer",
    "FormHandler",
    "Frame",
    "HandlerError",
    "Handlers",
    "RootsHandler",
    "Round",
    "SamplingHandler",
    "UrlConsentHandler",
    "VerdictClient",
    "WireLog",
]
