"""The typed views a caller reads from a verdict: content blocks, input requests, a task, an
error, built on access from the checked message (``Verdict``'s accessors).

Kept apart from ``_verdict`` so that ``classify`` and its first call do not pay for building
these classes (frozen dataclasses cost ~0.5 ms each to define; there are ten): this module is
imported by the first accessor that hands one out, or by the first import of one of its names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

JSON = Any
"""A JSON value as Python holds it: dict, list, str, int, float, bool or None."""


def _integer(value: Any) -> Any:
    """An integer member as its view types it: one written with a zero fractional part
    (2048.0, which the checker takes as JSON Schema does) as the int it is; anything else as is."""
    return int(value) if type(value) is float and value.is_integer() else value


# --- protocol errors ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """The JSON-RPC error of a ``protocol_error`` verdict."""

    code: int
    message: str
    data: JSON = None
    has_data: bool = False


# --- content blocks -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str
    annotations: Mapping[str, JSON] | None = None
    meta: Mapping[str, JSON] | None = None
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ImageBlock:
    data: str
    mime_type: str
    annotations: Mapping[str, JSON] | None = None
    meta: Mapping[str, JSON] | None = None
    type: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class AudioBlock:
    data: str
    mime_type: str
    annotations: Mapping[str, JSON] | None = None
    meta: Mapping[str, JSON] | None = None
    type: Literal["audio"] = "audio"


@dataclass(frozen=True, slots=True)
class ResourceLinkBlock:
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Mapping[str, JSON] | None = None
    meta: Mapping[str, JSON] | None = None
    type: Literal["resource_link"] = "resource_link"


@dataclass(frozen=True, slots=True)
class EmbeddedResourceBlock:
    uri: str
    text: str | None = None
    blob: str | None = None
    mime_type: str | None = None
    annotations: Mapping[str, JSON] | None = None
    meta: Mapping[str, JSON] | None = None
    type: Literal["resource"] = "resource"


ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock


def _block(raw: Mapping[str, JSON]) -> ContentBlock:
    kind = raw["type"]
    annotations = raw.get("annotations")
    meta = raw.get("_meta")
    if kind == "text":
        return TextBlock(raw["text"], annotations, meta)
    if kind == "image":
        return ImageBlock(raw["data"], raw["mimeType"], annotations, meta)
    if kind == "audio":
        return AudioBlock(raw["data"], raw["mimeType"], annotations, meta)
    if kind == "resource_link":
        return ResourceLinkBlock(raw["uri"], raw["name"], raw.get("title"), raw.get("description"),
                                 raw.get("mimeType"), _integer(raw.get("size")), annotations, meta)
    resource = raw["resource"]
    return EmbeddedResourceBlock(resource["uri"], resource.get("text"), resource.get("blob"),
                                 resource.get("mimeType"), annotations, meta)


# --- input requests -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """An ``elicitation/create`` input request; ``mode`` is "form" when the server omitted it."""

    key: str
    mode: Literal["form", "url"]
    message: str
    requested_schema: Mapping[str, JSON] | None
    url: str | None
    params: Mapping[str, JSON]
    method: Literal["elicitation/create"] = "elicitation/create"


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """A ``sampling/createMessage`` input request."""

    key: str
    messages: tuple[Mapping[str, JSON], ...]
    max_tokens: int
    params: Mapping[str, JSON]
    method: Literal["sampling/createMessage"] = "sampling/createMessage"


@dataclass(frozen=True, slots=True)
class RootsRequest:
    """A ``roots/list`` input request."""

    key: str
    params: Mapping[str, JSON]
    method: Literal["roots/list"] = "roots/list"


InputRequest = ElicitationRequest | SamplingRequest | RootsRequest


def _input_request(key: str, raw: Mapping[str, JSON]) -> InputRequest:
    method = raw["method"]
    params = raw.get("params") or {}
    if method == "elicitation/create":
        mode = params.get("mode", "form")
        return ElicitationRequest(key, mode, params["message"], params.get("requestedSchema"),
                                  params.get("url"), params)
    if method == "sampling/createMessage":
        return SamplingRequest(key, tuple(params["messages"]), _integer(params["maxTokens"]), params)
    return RootsRequest(key, params)


# --- tasks ----------------------------------------------------------------------------------

TaskStatus = Literal["working", "input_required", "completed", "cancelled", "failed"]


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """A task handle (2026-07-28 tasks extension, or a 2025-11-25 CreateTaskResult)."""

    task_id: str
    status: TaskStatus
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    status_message: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in ("completed", "cancelled", "failed")


def _task(result: Mapping[str, JSON]) -> TaskInfo:
    if "task" in result and "resultType" not in result:  # 2025-11-25 CreateTaskResult
        task = result["task"]
        return TaskInfo(task["taskId"], task["status"], task["createdAt"], task["lastUpdatedAt"],
                        _integer(task["ttl"]), _integer(task.get("pollInterval")), task.get("statusMessage"))
    return TaskInfo(result["taskId"], result["status"], result["createdAt"],
                    result["lastUpdatedAt"], _integer(result["ttlMs"]), _integer(result.get("pollIntervalMs")),
                    result.get("statusMessage"))
