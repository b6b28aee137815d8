"""Tools for the adapters' tests: a slow write that counts its executions, and a fault every era sees.

- ``slow_write``: a write (not read-only, not idempotent) that counts one execution under
  ``key`` as soon as it runs, then answers after ``seconds`` (default 0.1). A client that times
  out first has still caused the execution — the effect of a timed-out write is unknown to it,
  and a blind retry executes it again (server/tools#tool: annotations are hints; a client must
  not assume a write is safe to repeat).
- ``write_count``: a read: how many times ``slow_write`` ran for ``key`` in this server process.
- ``deferred_everywhere``: a result with ``resultType: "deferred"`` on every protocol version —
  on a 2025 (``initialize``) session too, where results carry no resultType and the only value
  any version defines is ``"complete"`` (basic/index#resulttype: an unrecognised value MUST be
  considered invalid). ``unknown_result_type`` leaves resultType out on 2025 sessions; this one
  lets an mcp 1.x client meet the fault.
"""

from __future__ import annotations

from typing import Final

from ._call import Call, Services, Tool, object_schema, outcome_tool, structured, text_content, tool_annotations
from ._wire import Reply, dumps

DEFAULT_WRITE_SECONDS: Final = 0.1
_EXECUTIONS: Final[dict[tuple[int, str], int]] = {}
"""Executions per (server, key); the server is its Services object (one per DemoServer)."""


def _key(services: Services, key: str) -> tuple[int, str]:
    return (id(services), key)


def _slow_write(call: Call) -> Reply:
    key = str(call.arguments["key"])
    slot = _key(call.services, key)
    _EXECUTIONS[slot] = count = _EXECUTIONS.get(slot, 0) + 1
    seconds = float(call.arguments.get("seconds", DEFAULT_WRITE_SECONDS))
    return call.result(structured({"key": key, "execution": count}), delay=seconds)


slow_write: Final = Tool({
    "name": "slow_write",
    "title": "Write, slowly",
    "description": "Records one execution under `key` at once, then answers after `seconds` (default "
                   f"{DEFAULT_WRITE_SECONDS:g}). Outcome: success, late — a client that times out first has still "
                   "caused the write (write_count shows it).",
    "inputSchema": object_schema({"key": {"type": "string", "minLength": 1},
                                  "seconds": {"type": "number", "minimum": 0, "maximum": 30}}, ("key",)),
    "outputSchema": object_schema({"key": {"type": "string"}, "execution": {"type": "integer"}},
                                  ("key", "execution")),
    "annotations": tool_annotations("Write, slowly", read_only=False, destructive=False, idempotent=False),
}, _slow_write)


def _write_count(call: Call) -> Reply:
    key = str(call.arguments["key"])
    return call.result(structured({"key": key, "executions": _EXECUTIONS.get(_key(call.services, key), 0)}))


write_count: Final = Tool({
    "name": "write_count",
    "title": "Count the writes",
    "description": "How many times slow_write ran for `key` in this server process. Outcome: success.",
    "inputSchema": object_schema({"key": {"type": "string", "minLength": 1}}, ("key",)),
    "outputSchema": object_schema({"key": {"type": "string"}, "executions": {"type": "integer"}},
                                  ("key", "executions")),
    "annotations": tool_annotations("Count the writes", read_only=True),
}, _write_count)


def _deferred(call: Call) -> Reply:
    fields = {"content": text_content("Backup scheduled."), "isError": False}
    if call.modern:
        return call.result(fields, result_type="deferred")
    return call.raw_result(dumps({"resultType": "deferred", **fields}))


deferred_everywhere: Final = outcome_tool("deferred_everywhere", "Unknown resultType, every version",
                                          "Outcome: a result with resultType \"deferred\" on every protocol "
                                          "version, a 2025 session included.", _deferred)
