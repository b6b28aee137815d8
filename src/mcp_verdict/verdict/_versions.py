"""What each protocol version defines for a ``tools/call`` response, and for the input requests
a server makes (2026-07-28: inside an input_required result; before: JSON-RPC requests to the
client, which ``_input.check_server_request`` judges by the same rules under the version's facts).

Every version-dependent rule reads its facts from :data:`RULES_BY_VERSION`; nothing else in
the package compares version strings. Sources: the official ``schema.json`` of each version
and its changelog (https://modelcontextprotocol.io/specification/<version>/changelog).
"""

from __future__ import annotations

from typing import Final, Literal

from ._frozen import Frozen

VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
"""Every protocol version the classifier knows, oldest first."""

LATEST_VERSION: Final = "2026-07-28"

TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
"""The official tasks extension (https://github.com/modelcontextprotocol/ext-tasks)."""

SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
"""The result ``_meta`` key naming the server software (an Implementation), 2026-07-28."""
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
"""The ``_meta`` key naming the task a message belongs to (2025-11-25's tasks)."""
TRACE_CONTEXT_KEYS: Final = frozenset({"traceparent", "tracestate", "baggage"})
"""The ``_meta`` keys of OpenTelemetry trace context, whose values have W3C formats (2026-07-28)."""


class VersionRules(Frozen):  # a plain immutable class: an import of classify does not load msgspec (_frozen)
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
    elicitation_modes: frozenset[str]
    """The elicitation modes the version defines: none before 2025-06-18 (no elicitation/create);
    form alone on 2025-06-18, whose params define no ``mode`` member; form and url since
    2025-11-25 (``ElicitRequestFormParams``, ``ElicitRequestURLParams``)."""
    elicitation_id: bool
    """A url-mode elicitation needs ``elicitationId``, a string (2025-11-25's
    ``ElicitRequestURLParams``; 2026-07-28's defines none)."""
    request_params: frozenset[str]
    """Members the params of elicitation/create and sampling/createMessage define besides their
    own: 2025-11-25's ``_meta`` (an object) and ``task`` (``TaskMetadata``: an object whose
    ``ttl`` is an integer). 2025-06-18 and 2026-07-28 define neither there."""
    progress_token: bool
    """Server requests are JSON-RPC requests whose params' ``_meta``, where defined, types
    ``progressToken``: a string or an integer (``ProgressToken``, up to 2025-11-25; 2026-07-28's
    input requests, inside a result, have a plain ``MetaObject``)."""
    requested_schema_defaults: bool
    """A requestedSchema's ``$schema`` (a string), a ``default`` of its type for string, number and
    enum properties, and the titled and multi-select enums (since 2025-11-25). 2025-06-18 has
    string, number, boolean and enum (``enumNames``) properties, a default on boolean alone."""
    sampling_tools: bool
    """Tool use in sampling: ``tools``, ``toolChoice``, tool_use and tool_result blocks, a
    message's content an array of blocks, and a message's ``_meta`` (since 2025-11-25)."""
    sampling_context: bool
    """The ``sampling.context`` capability, without which servers SHOULD NOT use includeContext
    ``thisServer`` and ``allServers`` (2025-11-25: soft-deprecated; 2026-07-28: deprecated,
    SEP-2596). Before 2025-11-25 the values carry no such rule."""
    typed_tool_schemas: bool
    """A sampling request's Tool types its inputSchema's and outputSchema's ``properties`` (an
    object of objects) and ``required`` (strings), its outputSchema needs ``type: "object"``,
    and ``execution.taskSupport`` is forbidden, optional or required (2025-11-25, the first
    version whose sampling carries tools; 2026-07-28 leaves the schemas open)."""
    reserved_result_meta: frozenset[str]
    """Result ``_meta`` keys the version reserves with a defined type (2026-07-28: the schema's
    ``ResultMetaObject``'s ``io.modelcontextprotocol/serverInfo``; 2025-11-25: the tasks prose's
    ``io.modelcontextprotocol/related-task``, a ``RelatedTaskMetadata``)."""
    meta_key_names: bool
    """Every ``_meta`` key is in the key name format (``_meta_keys``; basic/index "Key name
    format", since 2025-06-18)."""
    trace_context: bool
    """A ``_meta`` object's ``traceparent``, ``tracestate`` and ``baggage`` follow the W3C formats
    (``_trace_context``; basic/index "OpenTelemetry trace context", 2026-07-28)."""
    error_data: frozenset[int]
    """Error codes whose ``data`` the version defines (``_error``): 2025-11-25's -32042
    (``URLElicitationRequiredError``: the url-mode elicitations to complete; 2026-07-28 retired
    the code), 2026-07-28's -32021 (``MissingRequiredClientCapabilityError``: the capabilities
    required) and -32022 (``UnsupportedProtocolVersionError``: the versions supported and the one
    requested)."""

    __match_args__ = (  # in __init__'s order, which pickling follows (_frozen)
        "version",
        "content_types",
        "result_type_required",
        "input_required",
        "structured_content",
        "task_shape",
        "block_meta",
        "annotations_last_modified",
        "resource_link_icons",
        "error_id_required",
        "elicitation_modes",
        "elicitation_id",
        "request_params",
        "progress_token",
        "requested_schema_defaults",
        "sampling_tools",
        "sampling_context",
        "typed_tool_schemas",
        "reserved_result_meta",
        "error_data",
        "meta_key_names",
        "trace_context",
    )
    __slots__ = (*__match_args__, "full_check_codes")
    full_check_codes: frozenset[int]
    """Derived, not a member: the error codes the fast path leaves to the full checker (``_error``):
    the range reserved for the specification where the version warns about its codes
    (-32099..-32002 with ``result_type_required``), and the codes whose data it types
    (``error_data``)."""

    def __init__(self, version: str, content_types: frozenset[str], result_type_required: bool, input_required: bool,
                 structured_content: Literal["undefined", "object", "any"],
                 task_shape: Literal["none", "augmented", "extension"], block_meta: bool,
                 annotations_last_modified: bool, resource_link_icons: bool, error_id_required: bool,
                 elicitation_modes: frozenset[str], elicitation_id: bool, request_params: frozenset[str],
                 progress_token: bool, requested_schema_defaults: bool, sampling_tools: bool, sampling_context: bool,
                 typed_tool_schemas: bool, reserved_result_meta: frozenset[str] = frozenset(),
                 error_data: frozenset[int] = frozenset(), meta_key_names: bool = False,
                 trace_context: bool = False) -> None:
        self._hold(version=version, content_types=content_types, result_type_required=result_type_required,
                   input_required=input_required, structured_content=structured_content, task_shape=task_shape,
                   block_meta=block_meta, annotations_last_modified=annotations_last_modified,
                   resource_link_icons=resource_link_icons, error_id_required=error_id_required,
                   elicitation_modes=elicitation_modes, elicitation_id=elicitation_id, request_params=request_params,
                   progress_token=progress_token, requested_schema_defaults=requested_schema_defaults,
                   sampling_tools=sampling_tools, sampling_context=sampling_context,
                   typed_tool_schemas=typed_tool_schemas, reserved_result_meta=reserved_result_meta,
                   error_data=error_data, meta_key_names=meta_key_names, trace_context=trace_context)
        object.__setattr__(self, "full_check_codes",
                           frozenset(range(-32099, -32001)) | error_data if result_type_required else error_data)


_BASE_TYPES: Final = frozenset({"text", "image", "resource"})

_FORM: Final = frozenset({"form"})
_FORM_URL: Final = frozenset({"form", "url"})
_NONE: Final[frozenset[str]] = frozenset()

RULES_BY_VERSION: Final[dict[str, VersionRules]] = {
    "2024-11-05": VersionRules(
        "2024-11-05", _BASE_TYPES, False, False, "undefined", "none",
        block_meta=False, annotations_last_modified=False, resource_link_icons=False,
        error_id_required=True, elicitation_modes=_NONE, elicitation_id=False, request_params=_NONE,
        progress_token=True, requested_schema_defaults=False, sampling_tools=False, sampling_context=False,
        typed_tool_schemas=False),
    "2025-03-26": VersionRules(
        "2025-03-26", _BASE_TYPES | {"audio"}, False, False, "undefined", "none",
        block_meta=False, annotations_last_modified=False, resource_link_icons=False,
        error_id_required=True, elicitation_modes=_NONE, elicitation_id=False, request_params=_NONE,
        progress_token=True, requested_schema_defaults=False, sampling_tools=False, sampling_context=False,
        typed_tool_schemas=False),
    "2025-06-18": VersionRules(
        "2025-06-18", _BASE_TYPES | {"audio", "resource_link"}, False, False, "object", "none",
        block_meta=True, annotations_last_modified=True, resource_link_icons=False,
        error_id_required=True, elicitation_modes=_FORM, elicitation_id=False, request_params=_NONE,
        progress_token=True, requested_schema_defaults=False, sampling_tools=False, sampling_context=False,
        typed_tool_schemas=False, meta_key_names=True),
    "2025-11-25": VersionRules(
        "2025-11-25", _BASE_TYPES | {"audio", "resource_link"}, False, False, "object",
        "augmented", block_meta=True, annotations_last_modified=True,
        resource_link_icons=True, error_id_required=False, elicitation_modes=_FORM_URL, elicitation_id=True,
        request_params=frozenset({"_meta", "task"}), progress_token=True, requested_schema_defaults=True,
        sampling_tools=True, sampling_context=True, typed_tool_schemas=True,
        reserved_result_meta=frozenset({RELATED_TASK}), error_data=frozenset({-32042}), meta_key_names=True),
    "2026-07-28": VersionRules(
        "2026-07-28", _BASE_TYPES | {"audio", "resource_link"}, True, True, "any", "extension",
        block_meta=True, annotations_last_modified=True, resource_link_icons=True,
        error_id_required=False, elicitation_modes=_FORM_URL, elicitation_id=False, request_params=_NONE,
        progress_token=False, requested_schema_defaults=True, sampling_tools=True, sampling_context=True,
        typed_tool_schemas=False, reserved_result_meta=frozenset({SERVER_INFO}),
        error_data=frozenset({-32021, -32022}), meta_key_names=True, trace_context=True),
}

ALL_CONTENT_TYPES: Final = frozenset({"text", "image", "audio", "resource_link", "resource"})
"""Every block type some version defines for tool results (to tell "too new" from "unknown")."""
