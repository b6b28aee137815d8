"""What the client sends through the official SDK and reads of it: the requests it sends raw, whose
answers are read from their bytes (:class:`_Raw`, :class:`_RawCall`, :class:`_RawList`, answered as
:data:`_ANY`), the SDK's own reading of a listed tool (:func:`_sdk_checks`), and the first error of
a pydantic ValidationError (:func:`_first_error`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import mcp_types as types
from pydantic import ConfigDict, ValidationError

from ..verdict._peer_text import cut


class _Raw(types.Request[dict[str, Any], str]):
    """A request the SDK has no model for, or whose result it must not model (tasks/*)."""

    name_param = "taskId"


class _RawCall(types.Request[dict[str, Any], str]):
    """A tools/call the SDK's call_tool cannot send (a 2025-11-25 task-augmented call)."""

    name_param = "name"


class _RawList(types.Request[dict[str, Any] | None, str]):
    """tools/list, sent raw: its answer is read from the bytes, not through the SDK's models."""


class _AnyResult(types.Result):
    """Accept any result object (the raw bytes are judged separately)."""

    model_config = ConfigDict(extra="allow")


_ANY: Final = _AnyResult


def _sdk_checks(version: str, tool: dict[str, Any]) -> None:
    """Raise the ValidationError the SDK's own reading of this tool in a tools/list raises (its
    per-version result models: a 2025 inputSchema without ``type`` fails there). Only what it
    says of the tool counts: the rest of the listing is supplied here."""
    try:
        from mcp_types import methods
    except ImportError:  # pragma: no cover - another SDK layout: the model check alone
        return
    listing = {"tools": [tool], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
    try:
        methods.validate_server_result("tools/list", version, listing)
    except KeyError:  # pragma: no cover - no model for this version
        return
    except ValidationError as exc:
        if any(tuple(error.get("loc", ()))[:1] == ("tools",) for error in exc.errors()):
            raise


def _first_error(exc: ValidationError) -> str:
    """Where the first error of a pydantic ValidationError is, and what it says (cut)."""
    errors = exc.errors()
    first: Mapping[str, Any] = errors[0] if errors else {"loc": (), "msg": str(exc)}
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{cut(where, 80)}: {cut(str(first.get('msg')), 120)}"
