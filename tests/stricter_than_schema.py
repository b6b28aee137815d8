"""Every rule by which ``classify`` refuses a response that the official JSON schema accepts.

The schema cannot say everything the specification says: it reads a parsed value (duplicate
keys are gone), it has no notion of the request (the id to correlate, the capabilities the
client declared), JSON Schema's ``integer`` takes ``1.0``, and some MUSTs are prose only. The
generative differential test (tests/test_schema_generative.py) reads this table: a response
the schema accepts and ``classify`` refuses must be refused only with codes listed here for
its version, and every row must be met at least once on each version it lists, so the table
neither hides a new divergence nor keeps a row that no longer happens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

ALL: Final = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"})
_SPEC: Final = "https://modelcontextprotocol.io/specification/"
_RFC8259: Final = "https://www.rfc-editor.org/rfc/rfc8259"
_JSONRPC: Final = "https://www.jsonrpc.org/specification#response_object"


@dataclass(frozen=True)
class Stricter:
    code: str
    versions: frozenset[str]
    must: str
    """The specification text the rule enforces, quoted."""
    reference: str
    witness: str
    """What a response the schema accepts and this rule refuses looks like."""


STRICTER: Final[tuple[Stricter, ...]] = (
    Stricter("json.duplicate_key", ALL,
             "The names within an object SHOULD be unique. [...] When the names within an object are "
             "not unique, the behavior of software that receives such an object is unpredictable.",
             _RFC8259 + "#section-4",
             "a member written twice on the wire; the schema sees the parsed value, one copy"),
    Stricter("envelope.id_mismatch", ALL,
             "Responses MUST include the same ID as the request they correspond to.",
             _SPEC + "2025-06-18/basic/index#responses",
             "an id of the right type that is not the request's (the schema never sees the request)"),
    Stricter("envelope.result_and_error", ALL,
             "Either the result member or error member MUST be included, but both members MUST NOT "
             "be included.", _JSONRPC,
             "a result response that also carries an error member (the response definitions are open)"),
    Stricter("envelope.id_type", ALL,
             "Responses MUST include the same ID as the request they correspond to. [...] Requests "
             "MUST include a string or integer ID.",
             _SPEC + "2025-06-18/basic/index#responses",
             "an id written with a fraction part (0.0): JSON Schema's integer takes it, but the id "
             "is the request's echoed, and a request's integer id is written without one, so 0.0 is "
             "not the ID the request wrote (the one integer rule stricter than the schema; maxTokens, "
             "size, error.code, ttl and the like take 0.0 as the schema does)"),
    Stricter("elicitation.url", frozenset({"2025-11-25", "2026-07-28"}),
             "The url parameter MUST contain a valid URL.",
             _SPEC + "2026-07-28/client/elicitation#url-mode-elicitation-requests",
             'a url-mode elicitation whose url is not an absolute URL ("not a uri"): the schema\'s '
             "format: uri annotates and is not asserted (2026-07-28: an input request's; 2025-11-25: one "
             "a -32042 error lists, client/elicitation#url-elicitation-required-error)"),
    Stricter("sampling.tool_result_mixed", frozenset({"2026-07-28"}),
             'When a user message contains tool results (type: "tool_result"), it MUST contain ONLY tool '
             "results.",
             _SPEC + "2026-07-28/client/sampling#tool-result-messages",
             "a user message of a sampling request with a tool_result beside a text block"),
    Stricter("sampling.tool_pairing", frozenset({"2026-07-28"}),
             "every assistant message containing ToolUseContent blocks MUST be followed by a user message "
             "that consists entirely of ToolResultContent blocks, with each tool use (e.g. with id: $id) "
             "matched by a corresponding tool result (with toolUseId: $id), before any other message.",
             _SPEC + "2026-07-28/client/sampling#tool-use-and-result-balance",
             "a sampling request whose tool_use is not answered by the next message, or whose tool_result "
             "answers no tool_use"),
    Stricter("content.resource_body", ALL,
             "The text of the item. This must only be set if the item can actually be represented as text "
             "(not binary data).",
             _SPEC + "2026-07-28/schema#textresourcecontents",
             "an embedded resource holding both a text and a blob (a base64 body): the schema's anyOf of "
             "TextResourceContents and BlobResourceContents, open definitions both, takes it"),
    Stricter("meta.reserved", frozenset({"2025-11-25"}),
             "All requests, notifications, and responses related to a task MUST include the "
             "io.modelcontextprotocol/related-task key in their _meta field, with the value set to an "
             "object with a taskId matching the associated task ID.",
             _SPEC + "2025-11-25/basic/utilities/tasks#associating-task-related-messages",
             "a result whose _meta holds io.modelcontextprotocol/related-task as a string, or a "
             "CreateTaskResult whose related-task names another task: the schema's result _meta is open"),
    Stricter("result.result_type_unknown", ALL,
             "A resultType of any value unrecognized by the client MUST be considered invalid.",
             _SPEC + "2026-07-28/basic/index#resulttype",
             'on 2026-07-28, a resultType other than "complete" and "input_required" (the schema '
             'types it as any string); before, a resultType other than "complete" (the older '
             "schemas leave a result's extra members open): a server writing resultType speaks the "
             "2026-07-28 protocol, whose rule this is, and a client of an older version recognizes "
             'no value but "complete", the meaning every older result has ("input_required" over '
             "an older version would be read as a complete result without content)"),
    Stricter("input.empty", frozenset({"2026-07-28"}),
             "Servers MUST include at least one of inputRequests or requestState in every "
             "InputRequiredResult response.",
             _SPEC + "2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow",
             "an input_required result with neither member (both are optional in the schema)"),
    Stricter("input.capability", frozenset({"2026-07-28"}),
             "Servers MUST NOT send an inputRequests that the client has not declared support for in "
             "its capabilities.",
             _SPEC + "2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow",
             "an input request for a capability the client did not declare (the schema never sees "
             "the capabilities)"),
)


def explains(code: str, version: str) -> bool:
    """Whether a row lists ``code`` for ``version``."""
    return any(row.code == code and version in row.versions for row in STRICTER)
