"""Tools whose result parses as JSON but breaks the result's shape.

Each breaks one rule of https://modelcontextprotocol.io/specification/2026-07-28/:

- ``string_is_error``: ``isError`` is the string ``"false"``, not a boolean (schema
  CallToolResult.isError: boolean);
- ``missing_result_type``: no ``resultType`` (basic/index#result-responses: "The result MUST
  include a resultType field"; clients MUST read an absent one as complete for back-compat, so
  this is only malformed for a strict 2026-07-28 reader);
- ``unknown_result_type``: ``resultType: "deferred"`` ("A resultType of any value unrecognized
  by the client MUST be considered invalid");
- ``text_block_without_text``: a ``{"type": "text"}`` content block without its ``text``
  (server/tools#text-content).

Every one of them looks like success to a receiver that only checks ``"result" in response``.
On a legacy session results carry no resultType at all, so there only the ``isError`` and
text-block faults remain faults.
"""

from __future__ import annotations

from typing import Final

from ._call import Call, Tool, object_schema, text_content, tool_annotations
from ._wire import Reply

_NO_ARGUMENTS: Final = object_schema({})


def _string_is_error(call: Call) -> Reply:
    return call.result({"content": text_content("Backup finished: 42 files copied."), "isError": "false"})


string_is_error: Final = Tool({
    "name": "string_is_error",
    "title": "isError as a string",
    "description": "Outcome: a result whose isError is the string \"false\" (not a boolean).",
    "inputSchema": _NO_ARGUMENTS,
    "annotations": tool_annotations("isError as a string", read_only=True),
}, _string_is_error)


def _missing_result_type(call: Call) -> Reply:
    return call.result({"content": text_content("Backup finished: 42 files copied."), "isError": False},
                       result_type=None)


missing_result_type: Final = Tool({
    "name": "missing_result_type",
    "title": "No resultType",
    "description": "Outcome: a 2026-07-28 result without resultType.",
    "inputSchema": _NO_ARGUMENTS,
    "annotations": tool_annotations("No resultType", read_only=True),
}, _missing_result_type)


def _unknown_result_type(call: Call) -> Reply:
    return call.result({"content": text_content("Backup scheduled."), "isError": False}, result_type="deferred")


unknown_result_type: Final = Tool({
    "name": "unknown_result_type",
    "title": "Unknown resultType",
    "description": "Outcome: a result with resultType \"deferred\", which no version or extension defines.",
    "inputSchema": _NO_ARGUMENTS,
    "annotations": tool_annotations("Unknown resultType", read_only=True),
}, _unknown_result_type)


def _text_block_without_text(call: Call) -> Reply:
    return call.result({"content": [{"type": "text"}], "isError": False})


text_block_without_text: Final = Tool({
    "name": "text_block_without_text",
    "title": "Text block without text",
    "description": "Outcome: a result whose content block {\"type\": \"text\"} has no text member.",
    "inputSchema": _NO_ARGUMENTS,
    "annotations": tool_annotations("Text block without text", read_only=True),
}, _text_block_without_text)
