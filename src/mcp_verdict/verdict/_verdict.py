"""The verdict value and the typed views a caller reads from it.

A :class:`Verdict` holds the kind, the findings and the parsed message. Its accessors only
hand out what the kind vouches for: ``is_error``, ``content`` and ``structured_content`` of
an ``unclassified`` verdict are ``None`` or empty, never a guess. The views are built on
access from the message, which the classifier has already checked, so building them cannot
fail. They hold the parsed JSON values as they arrived: treat them as read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import msgspec

from ._findings import Finding
from ._kind import Kind

JSON = Any
"""A JSON value as Python holds it: dict, list, str, int, float, bool or None."""


if TYPE_CHECKING:  # exported by __all__ below, loaded at run time by __getattr__
    from ._views import (
        AudioBlock,
        ContentBlock,
        ElicitationRequest,
        EmbeddedResourceBlock,
        ErrorInfo,
        ImageBlock,
        InputRequest,
        ResourceLinkBlock,
        RootsRequest,
        SamplingRequest,
        TaskInfo,
        TaskStatus,
        TextBlock,
    )

_VIEWS: Final = frozenset({"AudioBlock", "ContentBlock", "ElicitationRequest", "EmbeddedResourceBlock", "ErrorInfo",
                           "ImageBlock", "InputRequest", "ResourceLinkBlock", "RootsRequest", "SamplingRequest",
                           "TaskInfo", "TaskStatus", "TextBlock"})


def __getattr__(name: str) -> Any:
    """The view names, still importable from here: loaded from ``_views`` on first use (PEP 562)."""
    if name in _VIEWS:
        from . import _views
        return getattr(_views, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the verdict ----------------------------------------------------------------------------

_RESULT_KINDS: Final = frozenset({Kind.TOOL_ERROR, Kind.NORMAL_COMPLETE, Kind.INPUT_REQUIRED, Kind.TASK})
_COMPLETE_KINDS: Final = frozenset({Kind.TOOL_ERROR, Kind.NORMAL_COMPLETE})
_MISSING: Final = object()
_REPR_LIMIT: Final = 200
"""The most characters of the id and the error code a verdict's repr writes."""


class Verdict(msgspec.Struct, frozen=True):
    """What one ``tools/call`` response turned out to be. Immutable; build with ``classify``.

    A frozen msgspec Struct: built in C at a fraction of the cost of a Python ``__init__``
    (one is built per response), immutable, with the equality, hash, pickling and repr below.
    """

    kind: Kind
    findings: tuple[Finding, ...]
    version: str
    message: JSON
    """The parsed response as it arrived (``None`` when the wire text could not be parsed)."""

    __rich_repr__ = None  # type: ignore[assignment]  # rich prints a verdict by its repr, as before

    def __reduce__(self) -> tuple[type[Verdict], tuple[Kind, tuple[Finding, ...], str, JSON]]:
        return (Verdict, (self.kind, self.findings, self.version, self.message))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.kind == other.kind and self.version == other.version
                and self.findings == other.findings
                and (self.message is other.message or self.message == other.message))

    def __hash__(self) -> int:
        return hash((self.kind, self.version, self.findings))

    def __repr__(self) -> str:
        from ._shown import shown  # (loaded by the first repr: an import of classify does not load it)

        parts = [f"kind={self.kind.value!r}", f"version={self.version!r}"]
        # (the id and the code as repr writes them, but never raising nor unbounded: a parsed
        # value's integer past Python's digit limit for str, 10**5000, is named by its size)
        if self.id is not None:
            parts.append(f"id={shown(self.id, _REPR_LIMIT)}")
        if self.kind is Kind.PROTOCOL_ERROR:
            parts.append(f"error_code={shown(self.error_code, _REPR_LIMIT)}")
        if self.findings:
            parts.append("findings=[" + ", ".join(f"{f.code}@{f.path or '/'}" for f in self.findings) + "]")
        return f"Verdict({', '.join(parts)})"

    # -- envelope ------------------------------------------------------------------------
    @property
    def id(self) -> str | int | None:
        """The response id when it is a string or an integer, else ``None``."""
        message = self.message
        if type(message) is dict:
            value = message.get("id")
            if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
                return value
        return None

    @property
    def errors(self) -> tuple[Finding, ...]:
        """Findings of severity "error" (why a verdict is unclassified)."""
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    # -- protocol_error ------------------------------------------------------------------
    @property
    def error(self) -> ErrorInfo | None:
        if self.kind is not Kind.PROTOCOL_ERROR:
            return None
        from ._views import ErrorInfo, _integer
        raw = self.message["error"]
        data = raw.get("data", _MISSING)
        return ErrorInfo(_integer(raw["code"]), raw["message"], None if data is _MISSING else data,
                         data is not _MISSING)

    @property
    def error_code(self) -> int | None:
        if self.kind is not Kind.PROTOCOL_ERROR:
            return None
        code = self.message["error"]["code"]
        return int(code) if type(code) is float else code  # written with a zero fractional part

    @property
    def error_message(self) -> str | None:
        return self.message["error"]["message"] if self.kind is Kind.PROTOCOL_ERROR else None

    @property
    def error_data(self) -> JSON:
        return self.message["error"].get("data") if self.kind is Kind.PROTOCOL_ERROR else None

    # -- results -------------------------------------------------------------------------
    @property
    def result(self) -> Mapping[str, JSON] | None:
        """The result object of a result verdict; ``None`` for errors and unclassified."""
        return self.message["result"] if self.kind in _RESULT_KINDS else None

    @property
    def result_type(self) -> str | None:
        """The resultType exactly as sent, when it is a string (also on unclassified verdicts)."""
        message = self.message
        if type(message) is dict:
            result = message.get("result")
            if type(result) is dict:
                value = result.get("resultType")
                if isinstance(value, str):
                    return value
        return None

    @property
    def is_error(self) -> bool | None:
        """True for tool_error, False for normal_complete, None for every other kind."""
        kind = self.kind
        if kind is Kind.TOOL_ERROR:
            return True
        if kind is Kind.NORMAL_COMPLETE:
            return False
        return None

    @property
    def content(self) -> tuple[ContentBlock, ...]:
        """Content blocks of a tool_error or normal_complete verdict; empty otherwise."""
        if self.kind not in _COMPLETE_KINDS:
            return ()
        from ._views import _block
        return tuple(_block(raw) for raw in self.message["result"]["content"])

    @property
    def text(self) -> str:
        """The text blocks of the content joined by newlines ("" when there are none)."""
        if self.kind not in _COMPLETE_KINDS:
            return ""
        return "\n".join(raw["text"] for raw in self.message["result"]["content"] if raw["type"] == "text")

    @property
    def has_structured_content(self) -> bool:
        return self.kind in _COMPLETE_KINDS and "structuredContent" in self.message["result"]

    @property
    def structured_content(self) -> JSON:
        """structuredContent of a tool_error or normal_complete verdict (``None`` if absent;
        use ``has_structured_content`` to tell an absent value from a JSON null)."""
        if self.kind not in _COMPLETE_KINDS:
            return None
        return self.message["result"].get("structuredContent")

    # -- input_required ------------------------------------------------------------------
    @property
    def input_requests(self) -> Mapping[str, InputRequest]:
        if self.kind is not Kind.INPUT_REQUIRED:
            return {}
        from ._views import _input_request
        raw = self.message["result"].get("inputRequests") or {}
        return {key: _input_request(key, value) for key, value in raw.items()}

    @property
    def request_state(self) -> str | None:
        """The requestState exactly as sent (echo it byte for byte on the retry)."""
        if self.kind is not Kind.INPUT_REQUIRED:
            return None
        value = self.message["result"].get("requestState")
        return value if isinstance(value, str) else None

    # -- task ----------------------------------------------------------------------------
    @property
    def task(self) -> TaskInfo | None:
        if self.kind is not Kind.TASK:
            return None
        from ._views import _task
        return _task(self.message["result"])

    # -- serialisation -------------------------------------------------------------------
    def to_dict(self, *, payload: bool = True) -> dict[str, JSON]:
        """JSON-serialisable form. ``payload=False`` leaves out content and structured content."""
        out: dict[str, JSON] = {
            "kind": self.kind.value,
            "version": self.version,
            "id": self.id,
            "findings": [f.to_dict() for f in self.findings],
        }
        kind = self.kind
        if kind is Kind.PROTOCOL_ERROR:
            error = self.message["error"]
            out["error"] = {key: error[key] for key in ("code", "message", "data") if key in error}
            out["error"]["code"] = self.error_code
        elif kind in _COMPLETE_KINDS:
            result = self.message["result"]
            out["is_error"] = kind is Kind.TOOL_ERROR
            out["content_types"] = [block["type"] for block in result["content"]]
            if payload:
                out["content"] = result["content"]
                if "structuredContent" in result:
                    out["structured_content"] = result["structuredContent"]
        elif kind is Kind.INPUT_REQUIRED:
            result = self.message["result"]
            out["input_requests"] = result.get("inputRequests", {}) if payload else sorted(
                result.get("inputRequests", {}))
            out["request_state"] = result.get("requestState")
        elif kind is Kind.TASK:
            task = self.task
            assert task is not None
            out["task"] = {"task_id": task.task_id, "status": task.status,
                           "created_at": task.created_at, "last_updated_at": task.last_updated_at,
                           "ttl_ms": task.ttl_ms, "poll_interval_ms": task.poll_interval_ms,
                           "status_message": task.status_message}
        return out


make_verdict: Final = Verdict
"""Build a verdict (the classifier's name for the constructor)."""


__all__ = [
    "JSON",
    "AudioBlock",
    "ContentBlock",
    "ElicitationRequest",
    "EmbeddedResourceBlock",
    "ErrorInfo",
    "ImageBlock",
    "InputRequest",
    "ResourceLinkBlock",
    "RootsRequest",
    "SamplingRequest",
    "TaskInfo",
    "TaskStatus",
    "TextBlock",
    "Verdict",
]
