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

from ._call import Call, text_content, tool
from ._wire import Reply


@tool("isError as a string", "Outcome: a result whose isError is the string \"false\" (not a boolean).")
def string_is_error(call: Call) -> Reply:
    return call.result({"content": text_content("Backup finished: 42 files copied."), "isError": "false"})


@tool("No resultType", "Outcome: a 2026-07-28 result without resultType.")
def missing_result_type(call: Call) -> Reply:
    return call.result({"content": text_content("Backup finished: 42 files copied."), "isError": False},
                       result_type=None)


@tool("Unknown resultType", "Outcome: a result with resultType \"deferred\", which no version or extension defines.")
def unknown_result_type(call: Call) -> Reply:
    return call.result({"content": text_content("Backup scheduled."), "isError": False}, result_type="deferred")


@tool("Text block without text", "Outcome: a result whose content block {\"type\": \"text\"} has no text member.")
def text_block_without_text(call: Call) -> Reply:
    return call.result({"content": [{"type": "text"}], "isError": False})
