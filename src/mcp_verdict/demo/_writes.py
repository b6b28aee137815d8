"""A write and the read that observes it, eventually consistent.

server/tools#stateful-tools (https://modelcontextprotocol.io/specification/2026-07-28/server/tools):
``create_note`` returns the new note's id (the explicit handle); ``get_note`` reads it back.
The read only shows the note after ``lag_reads`` reads and ``lag_ms`` milliseconds (defaults 2
and 0) — until then it answers ``found: false`` — so a client observing the write's completion
must poll (the README's stage 3, observed completion).
"""

from __future__ import annotations

from typing import Final

from ._call import Call, structured, tool
from ._wire import Reply

DEFAULT_LAG_READS: Final = 2
DEFAULT_LAG_MS: Final = 0


@tool("Create a note", "Stores a note and returns its id. Outcome: success; the note becomes visible to get_note "
      f"only after `lag_reads` reads (default {DEFAULT_LAG_READS}) and `lag_ms` milliseconds "
      f"(default {DEFAULT_LAG_MS}) — eventual consistency.",
      inputs={"text": {"type": "string"}, "lag_reads": {"type": "integer", "minimum": 0, "maximum": 100},
              "lag_ms": {"type": "integer", "minimum": 0, "maximum": 60_000}}, required=("text",),
      outputs={"id": {"type": "string"}, "text": {"type": "string"}}, output_required=("id", "text"),
      read_only=False)
def create_note(call: Call) -> Reply:
    text = str(call.arguments["text"])
    note_id = call.services.notes.create(text, lag_reads=int(call.arguments.get("lag_reads", DEFAULT_LAG_READS)),
                                         lag_ms=int(call.arguments.get("lag_ms", DEFAULT_LAG_MS)))
    return call.result(structured({"id": note_id, "text": text}))


@tool("Read a note", "Reads a note by id. Outcome: success; found is false until the note is visible "
      "(see create_note), then true with its text.",
      inputs={"id": {"type": "string", "minLength": 1}}, required=("id",),
      outputs={"id": {"type": "string"}, "found": {"type": "boolean"}, "text": {"type": ["string", "null"]}},
      output_required=("id", "found", "text"))
def get_note(call: Call) -> Reply:
    note_id = str(call.arguments["id"])
    text = call.services.notes.read(note_id)
    return call.result(structured({"id": note_id, "found": text is not None, "text": text}))
