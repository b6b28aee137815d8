"""What each protocol version defines for a ``tools/call`` response.

Every version-dependent rule reads its facts from :data:`RULES_BY_VERSION`; nothing else in
the package compares version strings. Sources: the official ``schema.json`` of each version
and its changelog (https://modelcontextprotocol.io/specification/<version>/changelog).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
"""Every protocol version the classifier knows, oldest first."""

LATEST_VERSION: Final = "2026-07-28"

TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
"""The official tasks extension (https://github.com/modelcontextprotocol/ext-tasks)."""

SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
"""The result ``_meta`` key naming the server software (an Implementation), 2026-07-28."""


class VersionRules(msgspec.Struct, frozen=True):  # a frozen Struct: defined in C, unlike a dataclass (~0.5 ms)
    version: str
    content_types: frozenset[str]
    """Content block types a tools/call result may carry."""
    result_type_required: bool
    """2026-07-28: results carry a required resultType (SEP-2322)."""
    input_required: bool
    """2026-07-28: the multi round-trip pattern and its input_required results exist."""
    structured_content: Literal["undefined", "object", "any"]
    """structuredContent: absent from the schema, an object (2025-06-18, 2025-11-25), any JSON."""
    task_shape: Literal["none", "augmented", "extension"]
    """How a task handle looks when tasks were negotiated: not at all, the 2025-11-25
    experimental ``{"task": {...}}`` CreateTaskResult, or the 2026-07-28 extension's flat
    ``resultType: "task"`` result."""
    block_meta: bool
    """Content blocks and resource contents may carry ``_meta`` (since 2025-06-18)."""
    annotations_last_modified: bool
    """Annotations define ``lastModified`` (since 2025-06-18)."""
    resource_link_icons: bool
    """Resource links may carry ``icons`` (since 2025-11-25)."""
    error_id_required: bool
    """The version's schema and prose require an id on every error response (up to 2025-06-18:
    "Responses MUST include the same ID as the request they correspond to")."""
    reserved_result_meta: frozenset[str] = frozenset()
    """Result ``_meta`` keys the version's schema reserves with a defined type
    (2026-07-28: ``ResultMetaObject``'s ``io.modelcontextprotocol/serverInfo``)."""


_BASE_TYPES: Final = frozenset({"text", "image", "resource"})

RULES_BY_VERSION: Final[dict[str, VersionRules]] = {
    "2024-11-05": VersionRules(
        "2024-11-05", _BASE_TYPES, False, False, "undefined", "none",
        block_meta=False, annotations_last_modified=False, resource_link_icons=False,
        error_id_required=True),
    "2025-03-26": VersionRules(
        "2025-03-26", _BASE_TYPES | {"audio"}, False, False, "undefined", "none",
        block_meta=False, annotations_last_modified=False, resource_link_icons=False,
        error_id_required=True),
    "2025-06-18": VersionRules(
        "2025-06-18", _BASE_TYPES | {"audio", "resource_link"}, False, False, "object", "none",
        block_meta=True, annotations_last_modified=True, resource_link_icons=False,
        error_id_required=True),
    "2025-11-25": VersionRules(
        "2025-11-25", _BASE_TYPES | {"audio", "resource_link"}, False, False, "object",
        "augmented", block_meta=True, annotations_last_modified=True,
        resource_link_icons=True, error_id_required=False),
    "2026-07-28": VersionRules(
        "2026-07-28", _BASE_TYPES | {"audio", "resource_link"}, True, True, "any", "extension",
        block_meta=True, annotations_last_modified=True, resource_link_icons=True,
        error_id_required=False, reserved_result_meta=frozenset({SERVER_INFO})),
}

ALL_CONTENT_TYPES: Final = frozenset({"text", "image", "audio", "resource_link", "resource"})
"""Every block type some version defines for tool results (to tell "too new" from "unknown")."""
