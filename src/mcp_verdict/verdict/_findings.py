"""Findings: what a verdict says about a response, and the catalogue of their codes.

Every check in the classifier reports through a code listed here. The catalogue is the one
place that says, for each code, how severe it is and which part of the specification it
enforces; the check itself lives in the module named for what it inspects (``_parser``,
``_envelope``, ``_error``, ``_result``, ``_meta``, ``_content``, ``_icons``, ``_input``,
``_elicitation``, ``_sampling``, ``_task``).

An ``error`` finding makes the verdict ``unclassified``; a ``warning`` never changes the kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final, Literal

import msgspec

Severity = Literal["error", "warning"]

_SPEC: Final = "https://modelcontextprotocol.io/specification/"
_LATEST: Final = _SPEC + "2026-07-28/"
_TASKS: Final = "https://github.com/modelcontextprotocol/ext-tasks/blob/main/schema/draft/schema.ts"
_TASKS_SPEC: Final = "https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md"
_RFC8259: Final = "https://www.rfc-editor.org/rfc/rfc8259"
_JSONRPC: Final = "https://www.jsonrpc.org/specification#response_object"


class Rule(msgspec.Struct, frozen=True):  # a frozen Struct: defined in C, unlike a dataclass (~0.8 ms)
    """One entry of the catalogue: a finding code, its severity and the text it enforces."""

    code: str
    severity: Severity
    spec: str
    summary: str


def _rules(*rules: Rule) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for rule in rules:
        if rule.code in table:  # pragma: no cover - guards the literal table below
            raise AssertionError(f"duplicate rule code {rule.code}")
        table[rule.code] = rule
    return table


RULES: dict[str, Rule]
"""The catalogue: each finding code's rule. Built by its first use (:func:`_catalogue`, through
the module's ``__getattr__``, PEP 562): an import of classify, and the common answers, which
hold no finding, do not pay for it."""

_CATALOGUE: Final[dict[str, Rule]] = {}
""":data:`RULES` itself: empty until :func:`_catalogue` fills it (``_CATALOGUE or _catalogue()``
costs a finding no more than a look in a module global)."""


def __getattr__(name: str) -> Any:
    if name == "RULES":
        return _catalogue()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _catalogue() -> dict[str, Rule]:
    """:data:`RULES`, filled once (~0.06 ms) and held in the module from then on (two threads
    filling it at once fill the one table with the same rules)."""
    if _CATALOGUE:
        return _CATALOGUE
    _CATALOGUE.update(_rules(
        # --- raw wire text (_parser) -------------------------------------------------------
        Rule("json.too_large", "error", _RFC8259 + "#section-9",
             "The wire text is longer than Limits.max_bytes."),
        Rule("json.encoding", "error", _RFC8259 + "#section-8.1",
             "The wire text is not UTF-8, or a string escapes a lone surrogate that UTF-8 cannot carry (in a parsed "
             "value: a string or member name holds a surrogate code point)."),
        Rule("json.bom", "error", _RFC8259 + "#section-8.1",
             "The wire text starts with a byte order mark, which senders MUST NOT add."),
        Rule("json.syntax", "error", _RFC8259 + "#section-2",
             "The wire text is not standard JSON (NaN, Infinity, single quotes, comments, "
             "trailing commas, bare words, control characters, empty input)."),
        Rule("json.trailing_data", "error", _RFC8259 + "#section-2",
             "Something follows the JSON value on the wire."),
        Rule("json.duplicate_key", "error", _RFC8259 + "#section-4",
             "An object repeats a member name: parsers disagree on which copy wins, so the message "
             "could say one thing to a gateway and another to the host."),
        Rule("json.too_deep", "error", _RFC8259 + "#section-9",
             "The value nests deeper than Limits.max_depth."),
        Rule("json.too_many_nodes", "error", _RFC8259 + "#section-9",
             "A parsed value holds more than Limits.max_nodes values (shared or cyclic references)."),
        Rule("json.number_out_of_range", "error", _RFC8259 + "#section-6",
             "A number is not a finite IEEE 754 double (1e400, NaN or infinity in a parsed value)."),
        Rule("json.not_json_value", "error", _RFC8259 + "#section-3",
             "A parsed value holds something JSON cannot carry (a tuple, set, bytes, object, or a "
             "non-string key)."),
        # --- JSON-RPC envelope (_envelope) ------------------------------------------------------
        Rule("envelope.batch", "error", _JSONRPC,
             "A JSON array: a batch is not the single response to one tools/call."),
        Rule("envelope.not_object", "error", _LATEST + "basic/index#responses",
             "The response is not a JSON object (a string, number, boolean or null)."),
        Rule("envelope.jsonrpc", "error", _LATEST + "basic/index#messages",
             'The "jsonrpc" member is missing or is not exactly the string "2.0".'),
        Rule("envelope.result_and_error", "error", _JSONRPC,
             "Both result and error are present; a response carries exactly one."),
        Rule("envelope.no_result_or_error", "error", _JSONRPC,
             "Neither result nor error is present."),
        Rule("envelope.request_shape", "error", _LATEST + "basic/index#requests",
             'A "method" member makes the message a request or notification, not a response.'),
        Rule("envelope.id_missing", "error", _LATEST + "basic/index#result-responses",
             "A result response has no id."),
        Rule("envelope.id_type", "error", _LATEST + "basic/index#requests",
             "The id is not a string or an integer (a bool, float, null, array or object)."),
        Rule("envelope.id_mismatch", "error", _LATEST + "basic/index#result-responses",
             "The id is not the request's id, compared with its JSON type (7 is not \"7\")."),
        Rule("envelope.id_absent_on_error", "warning", _LATEST + "basic/index#error-responses",
             "An error response without an id (2025-11-25 on): allowed only when the request id could "
             "not be read, and it cannot be correlated with a request."),
        Rule("envelope.error_id_missing", "error", _SPEC + "2025-06-18/basic/index#responses",
             "An error response without an id on a version that requires one (up to 2025-06-18: "
             '"Responses MUST include the same ID as the request they correspond to", and the '
             "schema's JSONRPCError requires id)."),
        # --- JSON-RPC error object (_error) -----------------------------------------------------
        Rule("error.not_object", "error", _LATEST + "basic/index#error-responses",
             "The error member is not an object."),
        Rule("error.code", "error", _LATEST + "basic/index#error-responses",
             "The error code is missing or not an integer (a fraction, bool or string; -32603.0 is an "
             "integer, as JSON Schema counts them)."),
        Rule("error.message", "error", _LATEST + "basic/index#error-responses",
             "The error message is missing or not a string."),
        Rule("error.reserved_code", "warning", _LATEST + "basic/index#error-codes",
             "A code in -32020..-32099 that the specification does not define, or one it retired."),
        Rule("error.data", "error", _LATEST + "schema#missingrequiredclientcapabilityerror",
             "An error whose code the version defines with a data shape carries data that breaks it "
             "(2026-07-28: -32021's data.requiredCapabilities a ClientCapabilities object, -32022's "
             "data.supported a list of strings and data.requested a string; 2025-11-25: -32042's "
             "data.elicitations a list of url-mode elicitations, each with its elicitationId: \"Any "
             "elicitations returned in the error MUST be URL mode elicitations and have an "
             "elicitationId property\")."),
        # --- result object (_result) ------------------------------------------------------------
        Rule("result.not_object", "error", _LATEST + "basic/index#result-responses",
             "The result member is not an object (null, a list, a string, a number)."),
        Rule("result.result_type_missing", "error", _LATEST + "basic/index#resulttype",
             "A 2026-07-28 result has no resultType (opt in to the back-compat reading with "
             'absent_result_type="complete").'),
        Rule("result.result_type_assumed", "warning", _LATEST + "basic/index#resulttype",
             'A 2026-07-28 result has no resultType and was read as "complete" because the caller '
             "opted in."),
        Rule("result.result_type_type", "error", _LATEST + "basic/index#resulttype",
             "The resultType is not a string."),
        Rule("result.result_type_unknown", "error", _LATEST + "basic/index#resulttype",
             "The resultType is not one this version and the negotiated extensions define (an "
             "unrecognized resultType MUST be considered invalid)."),
        Rule("result.meta", "error", _LATEST + "basic/index#_meta",
             "The result's _meta is not an object."),
        Rule("meta.reserved", "error", _LATEST + "schema#resultmetaobject",
             "A reserved result _meta key has a value of the wrong type (2026-07-28: "
             "io.modelcontextprotocol/serverInfo is an Implementation with string name and version, "
             "and string title, description, websiteUrl and icons when present; 2025-11-25: "
             "io.modelcontextprotocol/related-task is an object whose taskId is a string, in a "
             "CreateTaskResult the created task's id)."),
        Rule("meta.key_name", "warning", _LATEST + "basic/index#_meta",
             "A _meta key (of the result, a content block, a resource, or an input request's params, "
             "message, block or tool) is out of the key name format: an optional prefix of "
             "dot-separated labels (a letter first, a letter or digit last, hyphens inside) and a "
             "slash, then a name that, unless empty, begins and ends with a letter or digit and holds "
             "only those, '-', '_' and '.' (since 2025-06-18; one warning per _meta object)."),
        Rule("meta.trace_context", "warning", _LATEST + "basic/index#_meta",
             "A _meta traceparent, tracestate or baggage value is out of its W3C format (Trace Context: "
             "version-traceid-parentid-flags in lowercase hex, no all-zero ids, no version ff; a list of "
             "at most 32 key=value members; Baggage: at most 180 key=value members with properties, "
             "a '%' in a value only as a percent-encoding) (2026-07-28)."),
        Rule("result.content_missing", "error", _LATEST + "server/tools#tool-result",
             "A complete tools/call result has no content list."),
        Rule("result.content_type", "error", _LATEST + "server/tools#tool-result",
             "The content member is not a list."),
        Rule("result.is_error", "error", _LATEST + "server/tools#error-handling",
             'isError is not a JSON boolean ("false", "true", 0, 1, null, [], {} are not).'),
        Rule("result.structured_content", "error", _SPEC + "2025-06-18/server/tools#structured-content",
             "structuredContent is not an object (required on 2025-06-18 and 2025-11-25; any JSON "
             "value is allowed from 2026-07-28)."),
        Rule("result.structured_content_undefined", "warning", _SPEC + "2025-06-18/changelog",
             "structuredContent arrived on a version that does not define it (before 2025-06-18)."),
        # --- content blocks (_content) ----------------------------------------------------------
        Rule("content.not_object", "error", _LATEST + "server/tools#tool-result",
             "A content block is not an object."),
        Rule("content.type", "error", _LATEST + "server/tools#tool-result",
             "A content block has no type, a type that is not a string, or a type no version defines "
             "for tool results."),
        Rule("content.type_version", "error", _SPEC + "2025-06-18/changelog",
             "A content block type newer than the negotiated version (audio before 2025-03-26, "
             "resource_link before 2025-06-18)."),
        Rule("content.field_missing", "error", _LATEST + "server/tools#tool-result",
             "A content block lacks a required field (text, data, mimeType, uri, name, resource)."),
        Rule("content.field_type", "error", _LATEST + "server/tools#tool-result",
             "A content block field has the wrong JSON type."),
        Rule("content.resource_body", "error", _LATEST + "server/resources#resource-contents",
             "An embedded resource has neither text nor blob, or has both."),
        Rule("content.annotations", "error", _LATEST + "server/resources#annotations",
             "Block annotations are malformed (audience of user/assistant, priority 0..1, "
             "lastModified a string)."),
        # --- icons (_icons) ---------------------------------------------------------------------
        Rule("icon.field", "error", _SPEC + "2025-11-25/basic/index#icons",
             "icons is not an array of Icon objects: src a string (required), mimeType a string, "
             'sizes an array of strings, theme "light" or "dark" (since 2025-11-25).'),
        # --- input_required (_input) ------------------------------------------------------------
        Rule("input.empty", "error", _LATEST + "basic/patterns/mrtr#server-requirements-basic-workflow",
             "An input_required result has neither inputRequests nor requestState."),
        Rule("input.requests_type", "error", _LATEST + "basic/patterns/mrtr#inputrequests",
             "inputRequests is not an object."),
        Rule("input.requests_empty", "warning", _LATEST + "basic/patterns/mrtr#inputrequests",
             "inputRequests is an empty object: there is nothing to fulfil."),
        Rule("input.unanswerable", "error", _LATEST + "basic/patterns/mrtr#client-requirements-basic-workflow",
             "An input_required answer whose inputRequests is empty and which has no requestState (the "
             "client's own check): it asks for input and names none to answer, and a retry would carry "
             "neither answers nor state, the first request again unchanged. The client ends the call "
             "on that round rather than retrying it."),
        Rule("input.request_state_type", "error", _LATEST + "basic/patterns/mrtr#inputrequiredresult",
             "requestState is not a string."),
        Rule("input.request", "error", _LATEST + "basic/patterns/mrtr#inputrequests",
             "An input request is not an object, or its method is not elicitation/create, "
             "sampling/createMessage or roots/list."),
        Rule("input.params", "error", _LATEST + "basic/patterns/mrtr#inputrequests",
             "An input request's params are missing or malformed for its method."),
        Rule("input.elicitation_mode", "error", _LATEST + "client/elicitation#protocol-messages",
             'An elicitation mode other than "form" (or absent) and "url".'),
        # --- elicitation requests (_elicitation) -------------------------------------------------
        Rule("elicitation.url", "error", _LATEST + "client/elicitation#url-mode-elicitation-requests",
             'A url-mode elicitation\'s url is not an absolute URL ("The url parameter MUST contain a '
             'valid URL"; stricter than the schema, whose format: uri is not asserted).'),
        Rule("elicitation.schema", "error", _LATEST + "client/elicitation#requested-schema",
             'A requestedSchema is not a flat object schema: type "object", properties an object, '
             "required an array of strings, $schema a string."),
        Rule("elicitation.property", "error", _LATEST + "client/elicitation#requested-schema",
             "A requested property is not a primitive schema definition: string (title, description, "
             "default, minLength, maxLength, format date/date-time/email/uri), number or integer "
             "(default, minimum, maximum), boolean, or an enum (untitled or titled, single or multi "
             "select, legacy enumNames), each keyword of its JSON type."),
        # --- sampling requests (_sampling) -------------------------------------------------------
        Rule("sampling.message", "error", _LATEST + "client/sampling#messages",
             "A sampling message is not an object with role user or assistant, content one block or an "
             "array of blocks, and _meta an object."),
        Rule("sampling.content", "error", _LATEST + "client/sampling#data-types",
             "A sampling message block is not text, image, audio, tool_use (id, name, input object) or "
             "tool_result (toolUseId, content blocks, boolean isError), or a member has the wrong type."),
        Rule("sampling.tool_result_mixed", "error", _LATEST + "client/sampling#tool-result-messages",
             'A user message with tool results holds other blocks too ("it MUST contain ONLY tool '
             'results"; stricter than the schema).'),
        Rule("sampling.tool_pairing", "error", _LATEST + "client/sampling#tool-use-and-result-balance",
             "A tool use is not answered by the next message, a user message of tool results, or a tool "
             "result answers no previous tool use (MUST; stricter than the schema)."),
        Rule("sampling.param", "error", _LATEST + "client/sampling#model-preferences",
             "A sampling parameter has the wrong type: modelPreferences (hints with string names, "
             "priorities numbers in 0..1), systemPrompt, includeContext (none, thisServer, allServers), "
             "temperature, stopSequences (strings), metadata (an object)."),
        Rule("sampling.include_context", "warning", _LATEST + "client/sampling#capabilities",
             'includeContext "thisServer" or "allServers": deprecated (SEP-2596); servers SHOULD avoid '
             "them, and SHOULD NOT use them unless the client declares sampling.context."),
        Rule("sampling.tool", "error", _LATEST + "client/sampling#tools-in-sampling",
             'A sampling tool is not a Tool: name a string, inputSchema an object with type "object", '
             "title, description, icons, annotations, outputSchema and _meta of their types."),
        Rule("sampling.tool_choice", "error", _LATEST + "client/sampling#tool-choice-modes",
             "toolChoice is not an object whose mode is auto, none or required."),
        Rule("input.capability", "error", _LATEST + "basic/patterns/mrtr#server-requirements-basic-workflow",
             "The server asked for input the client did not declare (elicitation, its url mode, "
             "sampling or roots): servers MUST NOT send such requests."),
        # --- task handles (_task) ---------------------------------------------------------------
        Rule("task.field", "error", _TASKS,
             "A task handle lacks a required field or has one of the wrong type (taskId, status, "
             "createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, statusMessage; the inputRequests of an "
             "input_required task)."),
        Rule("task.status", "error", _TASKS,
             "The task status is not working, input_required, completed, cancelled or failed."),
        Rule("task.input", "error", _TASKS_SPEC + "#task-update-requests",
             "A task's input went wrong (the client's own check): the task is input_required with an "
             "empty inputRequests (it asks for input and names none to answer; tasks/get MUST list the "
             "outstanding requests), tasks/update, carrying the answers to the task's inputRequests, was "
             "answered with an error or without an acknowledgement, or the server reused a key already "
             "answered for another request (keys MUST be unique over a task's life). The task cannot go "
             "on, or the answers may not have reached it: its outcome is unknown."),
        # --- content check (_schema, _suspect, _check) -------------------------------------------
        Rule("output.not_complete", "error", _LATEST + "server/tools#error-handling",
             "Only a normal_complete verdict can pass a content check (tool errors are not held to "
             "the outputSchema, and are never success)."),
        Rule("output.structured_missing", "error", _LATEST + "server/tools#output-schema",
             "The tool declares an outputSchema but the result carries no structuredContent."),
        Rule("output.schema", "error", _LATEST + "server/tools#output-schema",
             "structuredContent does not conform to the tool's outputSchema."),
        Rule("output.dialect", "error", _LATEST + "basic/index#schema-dialect",
             "The schema's $schema names a dialect the validator does not support: refused, never a pass."),
        Rule("output.ref", "error", _LATEST + "basic/index#ref-resolution",
             "A $ref points outside the schema (network or file): never fetched, the schema is rejected."),
        Rule("output.bounds", "error", _LATEST + "basic/index#composition-keyword-resource-use",
             "The schema nests deeper, holds more subschemas (objects and booleans), has longer "
             "subschema locations in all, or more keyword values, than SchemaLimits allow; or it holds an "
             "integer past Python's digit limit for text (sys.get_int_max_str_digits), which the check cannot "
             "read exactly."),
        Rule("output.budget", "error", _LATEST + "basic/index#composition-keyword-resource-use",
             "Validation ran past SchemaLimits.time_budget and was stopped (an instance too large to validate "
             "on jsonschema-rs within the budget goes to the guarded engine, which stops)."),
        Rule("output.schema_invalid", "error", _LATEST + "basic/index#schema-validation",
             "The schema is not valid in its dialect (or is not a JSON object or boolean)."),
        Rule("content.suspect_error", "error", _LATEST + "server/tools#error-handling",
             "A result without isError: true whose content reads like a failure (status error, "
             "success false, an error key, an Error: or traceback text)."),
        Rule("expect.failed", "error", _LATEST + "server/tools#security-considerations",
             "A caller expectation (schema, pydantic model or callable) rejected the content."),
        Rule("expect.error", "error", _LATEST + "server/tools#security-considerations",
             "A caller expectation raised instead of answering."),
        # --- the client's own failures (local, not the peer's message) ----------------------------
        Rule("transport.timeout", "error", _LATEST + "server/tools#security-considerations",
             "No response arrived within the timeout."),
        Rule("transport.closed", "error", _LATEST + "basic/transports/index",
             "The server exited or closed the stream before responding."),
        Rule("transport.error", "error", _LATEST + "basic/transports/index",
             "The transport failed (connection refused, HTTP error status, malformed frame)."),
        Rule("transport.cancelled", "error", _LATEST + "basic/patterns/cancellation#timing-considerations",
             "The caller cancelled the call before its answer arrived; the request was sent, so the server "
             "may have completed it."),
        Rule("transport.unwritable", "error", _RFC8259 + "#section-8.2",
             "The client could not write the request as JSON text: a string in it (the id or the "
             "arguments) holds a lone surrogate, which encodes no Unicode character and which UTF-8 "
             "cannot carry. The request was not sent; sent again unchanged, it fails the same way."),
        Rule("transport.refused", "error", _LATEST + "basic/transports/streamable-http#sending-messages",
             "The HTTP server refused the POSTed request with a status that says it did not run it, "
             "and no JSON-RPC answer: 400, 404 (the endpoint or the session is gone), 405, 406, 413, "
             "415, 421, 431, 401 and 403 (authorization: basic/authorization#error-handling), 429 "
             "(RFC 6585 s4), or 503 with a Retry-After (RFC 9110 s15.6.4: the service is unavailable "
             "for that long). The message starts with the status and the Retry-After in seconds. "
             "A 500, 502, 504 or a 503 without Retry-After stays transport.error: a gateway may send "
             "it after the server ran the request."),
        Rule("transport.rounds", "error", _LATEST + "basic/patterns/mrtr",
             "The server kept asking for input past the client's rounds cap."),
        Rule("transport.noise", "warning", _LATEST + "basic/transports/stdio",
             "The server wrote lines to stdout that are not JSON-RPC messages (it MUST NOT); they "
             "were recorded and not taken as the answer."),
    ))
    globals()["RULES"] = _CATALOGUE
    return _CATALOGUE


class Finding(msgspec.Struct, frozen=True):  # a frozen Struct, as Rule
    """One observation about a response.

    ``path`` is a JSON pointer (RFC 6901) to the offending value (``""`` is the whole
    message), ``code`` a stable identifier from :data:`RULES`, ``message`` text for humans.

    The path is bounded, whatever member names the peer chose (:func:`pointer` builds every
    path): a reference token longer than :data:`PATH_TOKEN_LIMIT` (64) characters keeps its
    first :data:`PATH_TOKEN_KEPT` (32), escaped as RFC 6901 escapes them, then
    ``~…[N characters]``, N the whole token's length (a 1,048,576-character name in ``_meta``:
    ``/result/_meta/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa~…[1048576 characters]``); a path longer than
    :data:`PATH_LIMIT` (1,024) characters keeps its leading tokens within 256 characters
    (``/result/structuredContent`` stays), then one token ``~…[K tokens]`` for the K tokens left
    out, then as many of its trailing tokens as fit in 1,024 characters (the offending member
    is always among them). In a pointer ``~`` is followed by ``0`` or ``1`` only: ``~…`` marks
    a cut or an elision, never a member name (a name holding ``~…`` is written ``~0…``), and a
    path holding it resolves to nothing rather than to a wrong value.
    """

    path: str
    code: str
    message: str
    severity: Severity = "error"

    @property
    def spec(self) -> str:
        """The specification text this finding enforces."""
        rule = (_CATALOGUE or _catalogue()).get(self.code)
        return rule.spec if rule is not None else ""

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "code": self.code, "message": self.message,
                "severity": self.severity, "spec": self.spec}


def finding(path: str, code: str, message: str) -> Finding:
    """Build a finding whose severity comes from the catalogue (unknown codes are bugs)."""
    return Finding(path, code, message, (_CATALOGUE or _catalogue())[code].severity)


REFUSING: Final = frozenset({400, 401, 403, 404, 405, 406, 413, 415, 421, 429, 431})
"""HTTP statuses to a POSTed request, without a JSON-RPC answer, that say the request was not
run (with 503 when a Retry-After comes with it): see ``transport.refused``."""
_REFUSED: Final = r"HTTP (\d{3})(?:, Retry-After (\d+) s)?(, session ended)?: "
"""How :func:`refused` starts its message: compiled by :func:`refusal`'s first use (re keeps it)."""


def refuses(status: int | None, retry_after: int | None) -> bool:
    """Whether an HTTP status (and Retry-After) to a POSTed request without a JSON-RPC answer
    says the server did not run it (``transport.refused``)."""
    return status in REFUSING or (status == 503 and retry_after is not None)


def refused(status: int, retry_after: int | None, said: str, *, session_ended: bool = False) -> Finding:
    """The ``transport.refused`` finding: its message starts with the status, the Retry-After
    in seconds (429, 503) and whether the session ended, in one fixed form (:func:`refusal` reads it back),
    then what the server said."""
    # Retry-After means "try later" only with 429 (RFC 6585 s4) and 503 (RFC 9110 s15.6.4)
    wait = f", Retry-After {retry_after} s" if retry_after is not None and status in (429, 503) else ""
    ended = ", session ended" if session_ended else ""
    return finding("", "transport.refused", f"HTTP {status}{wait}{ended}: the server refused the request, which "
                                            f"it did not run ({said})")


def refusal(item: Finding) -> tuple[int, int | None, bool] | None:
    """A ``transport.refused`` finding's status, Retry-After seconds and session end."""
    match = re.match(_REFUSED, item.message) if item.code == "transport.refused" else None
    if match is None:
        return None
    return int(match[1]), int(match[2]) if match[2] is not None else None, match[3] is not None


TASK_ID_REUSED: Final = "the task id "
"""How a ``task.field`` finding saying a task id was created again while a task with it ran starts
(``frames._tasks``: :func:`task_taken`, :func:`task_reused`, :func:`task_unowned`, each followed by
the id as ``shown``): every other ``task.field`` message starts with fixed words of its own, never
these (:func:`task_id_reused` reads it back, as :func:`refusal` reads ``transport.refused``)."""


def task_id_reused(item: Finding) -> bool:
    """Whether ``item`` says its call's task id was created again while a task with it ran
    (2025-11-25 basic/utilities/tasks: task IDs MUST be unique among the receiver's tasks): the
    polls naming the id cannot be told to be its task's, so the call's outcome is unknown."""
    return item.code == "task.field" and item.message.startswith(TASK_ID_REUSED)


PATH_TOKEN_LIMIT: Final = 64
"""The most characters of a reference token (a member name) a finding's path holds whole."""
PATH_TOKEN_KEPT: Final = 32
"""The characters of a longer token that its path keeps, before ``~…[N characters]``."""
PATH_LIMIT: Final = 1024
"""The most characters of a finding's path (:func:`pointer`)."""
_HEAD: Final = 256
"""The most characters of the leading tokens an elided path keeps (``/result/inputRequests/``,
which the proxy reads its requests' paths by, always among them)."""
ELIDED: Final = "~…["
"""How the one token that stands for elided tokens starts (``~…[K tokens]``; no real token
does: ``~`` escapes as ``~0``, and a cut token starts with the name's first characters)."""
_COUNTED: Final = " tokens]"


def pointer(parent: str, token: str | int) -> str:
    """Append one reference token to a JSON pointer, escaping ``~`` and ``/`` (RFC 6901).

    Every finding's path is built here, one token at a time from its root, so that it stays
    bounded (see :class:`Finding`): a token longer than :data:`PATH_TOKEN_LIMIT` characters is
    cut, a path longer than :data:`PATH_LIMIT` has tokens elided: a path a walk builds for each
    member it passes holds at most those bounds, never the peer's name."""
    # (the bounds written as numbers: a module constant's look-up costs this function ~10%)
    if isinstance(token, int):
        path = f"{parent}/{token}"
        return path if len(path) <= 1024 else _elided(path)  # PATH_LIMIT
    if "~" in token or "/" in token:
        return _escaped(parent, token)
    path = f"{parent}/{token}"
    if len(path) <= 65:  # (the common path: the token within PATH_TOKEN_LIMIT, the path within PATH_LIMIT)
        return path
    if len(token) > 64:  # PATH_TOKEN_LIMIT
        path = f"{parent}/{_cut(token)}"
    return path if len(path) <= 1024 else _elided(path)  # PATH_LIMIT


def _escaped(parent: str, token: str) -> str:
    """:func:`pointer` of a token that holds ``~`` or ``/``."""
    path = f"{parent}/{_cut(token) if len(token) > PATH_TOKEN_LIMIT else token.replace('~', '~0').replace('/', '~1')}"
    return path if len(path) <= PATH_LIMIT else _elided(path)


def _cut(token: str) -> str:
    """A token longer than :data:`PATH_TOKEN_LIMIT`: its first :data:`PATH_TOKEN_KEPT`
    characters, escaped, and its length."""
    head = token[:PATH_TOKEN_KEPT]
    if "~" in head or "/" in head:
        head = head.replace("~", "~0").replace("/", "~1")
    return f"{head}~…[{len(token)} characters]"


def pointer_of(parent: str, tokens: Iterable[str | int]) -> str:
    """The pointer of the value reached from ``parent`` through ``tokens`` (member names and
    array indices), as :func:`pointer` bounds it."""
    for token in tokens:
        parent = pointer(parent, token)
    return parent


def pointer_in(parent: str, path: str) -> str:
    """The pointer ``path`` (built by :func:`pointer`) of a value that sits at ``parent``, held
    to :data:`PATH_LIMIT` as :func:`pointer` holds a path."""
    whole = parent + path
    return whole if len(whole) <= PATH_LIMIT else _elided(whole)


def _elided(path: str) -> str:
    """``path``, longer than :data:`PATH_LIMIT`, within it: its leading tokens within
    :data:`_HEAD` characters, then one ``~…[K tokens]`` for the K tokens left out (with those an
    earlier elision counted), then as many trailing tokens as fit. Built one token at a time by
    :func:`pointer`, a path comes out as the whole path elided once would: the leading tokens
    are the same, and the trailing ones are the most that fit with the count."""
    tokens = path.split("/")
    end, size = 1, len(tokens[0])  # tokens[0]: "" (what a pointer holds before its first "/")
    while end < len(tokens) and not tokens[end].startswith(ELIDED) and size + 1 + len(tokens[end]) <= _HEAD:
        size += 1 + len(tokens[end])
        end += 1
    count = sum(int(token[len(ELIDED):-len(_COUNTED)]) if token.startswith(ELIDED) else 1 for token in tokens[end:])
    start = len(tokens)
    fixed = size + 1 + len(ELIDED) + len(_COUNTED)  # the leading tokens and the count's token but its digits
    while start > end and count > 1 and not tokens[start - 1].startswith(ELIDED):
        # (a longer tail never makes the path shorter: a token takes at least its "/", the count
        # loses at most one digit; so the first token that does not fit ends the tail)
        grown = 1 + len(tokens[start - 1])
        if fixed + grown + len(str(count - 1)) > PATH_LIMIT:
            break
        fixed += grown
        count -= 1
        start -= 1
    return "/".join([*tokens[:end], f"{ELIDED}{count}{_COUNTED}", *tokens[start:]])


QUOTED_LIMIT: Final = 40
"""The most characters of a peer's string a finding's message writes (:func:`quoted`)."""


def quoted(text: str) -> str:
    """A peer's string for a finding's message: its ``repr``, of its first 37 characters and
    ``...`` past :data:`QUOTED_LIMIT`, whatever its length (a 1 MB ``resultType`` wrote the
    message 1 MB long). A subclass is read as the string it is: none of its methods runs."""
    plain = str.__str__(text)  # (an exact str: a subclass's own __len__, __getitem__, __repr__ never run)
    return repr(plain if len(plain) <= QUOTED_LIMIT else plain[:QUOTED_LIMIT - 3] + "...")


def integer_text(value: int) -> str:
    """An integer's decimal text, or past Python's digit limit for ``str``
    (``sys.get_int_max_str_digits()``, 4,300 by default: ``str`` raises there) its size, ``an
    integer of about N digits``. A subclass is read as the integer it is."""
    try:
        return int.__repr__(value)
    except ValueError:
        return f"an integer of about {value.bit_length() * 0.30103:.0f} digits"


def describe(value: object) -> str:
    """A short, exact description of a JSON value for a finding message, at a bounded length
    (a string by its first characters: :func:`quoted`); never raises, and never runs a method of
    the value's own (a subclass of a JSON type is described as that type's value, through the
    type's methods: a parsed value handed to ``classify`` may hold any object)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {quoted(value)}"
    if isinstance(value, int):
        text = integer_text(value)
        return text if text.startswith("an ") else f"the integer {text}"
    if isinstance(value, float):
        return f"the number {float.__repr__(value)}"
    if isinstance(value, list):
        return f"an array of {list.__len__(value)}"
    if isinstance(value, dict):
        return f"an object of {dict.__len__(value)} members"
    return f"a Python {type(value).__name__}"

