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

from ._call import Call, outcome_tool, text_content
from ._wire import Reply


def _string_is_error(call: Call) -> Reply:
    return call.result({"content": text_content("Backup finished: 42 files copied."), "isError": "false"})


string_is_error: Final = outcome_tool("string_is_error", "isError as a string",
                        "Outcome: a result whose isError is the string \"false\" (not a boolean).", _string_is_error)


def _missing_result_type(call: Call) -> Reply:
    return call.result({"content": text_content("Backup finished: 42 files copied."), "isError": False},
                       result_type=None)


missing_result_type: Final = outcome_tool("missing_result_type", "No resultType",
                        "Outcome: a 2026-07-28 result without resultType.", _missing_result_type)


def _unknown_result_type(call: Call) -> Reply:
    return call.result({"content": text_content("Backup scheduled."), "isError": False}, result_type="deferred")


unknown_result_type: Final = outcome_tool("unknown_result_type", "Unknown resultType",
                        "Outcome: a result with resultType \"deferred\", which no version or extension defines.",
                        _unknown_result_type)


def _text_block_without_text(call: Call) -> Reply:
    return call.result({"content": [{"type": "text"}], "isError": False})


text_block_without_text: Final = outcome_tool("text_block_without_text", "Text block without text",
                        "Outcome: a result whose content block {\"type\": \"text\"} has no text member.",
                        _text_block_without_text)
