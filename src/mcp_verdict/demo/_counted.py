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

from ._call import Call, Services, structured, text_content, tool
from ._wire import Reply, dumps

DEFAULT_WRITE_SECONDS: Final = 0.1
_EXECUTIONS: Final[dict[tuple[int, str], int]] = {}
"""Executions per (server, key); the server is its Services object (one per DemoServer)."""


def _key(services: Services, key: str) -> tuple[int, str]:
    return (id(services), key)


@tool("Write, slowly", "Records one execution under `key` at once, then answers after `seconds` (default "
      f"{DEFAULT_WRITE_SECONDS:g}). Outcome: success, late — a client that times out first has still caused "
      "the write (write_count shows it).",
      inputs={"key": {"type": "string", "minLength": 1}, "seconds": {"type": "number", "minimum": 0, "maximum": 30}},
      required=("key",), outputs={"key": {"type": "string"}, "execution": {"type": "integer"}},
      output_required=("key", "execution"), read_only=False)
def slow_write(call: Call) -> Reply:
    key = str(call.arguments["key"])
    slot = _key(call.services, key)
    _EXECUTIONS[slot] = count = _EXECUTIONS.get(slot, 0) + 1
    seconds = float(call.arguments.get("seconds", DEFAULT_WRITE_SECONDS))
    return call.result(structured({"key": key, "execution": count}), delay=seconds)


@tool("Count the writes", "How many times slow_write ran for `key` in this server process. Outcome: success.",
      inputs={"key": {"type": "string", "minLength": 1}}, required=("key",),
      outputs={"key": {"type": "string"}, "executions": {"type": "integer"}}, output_required=("key", "executions"))
def write_count(call: Call) -> Reply:
    key = str(call.arguments["key"])
    return call.result(structured({"key": key, "executions": _EXECUTIONS.get(_key(call.services, key), 0)}))


@tool("Unknown resultType, every version",
      "Outcome: a result with resultType \"deferred\" on every protocol version, a 2025 session included.")
def deferred_everywhere(call: Call) -> Reply:
    fields = {"content": text_content("Backup scheduled."), "isError": False}
    if call.modern:
        return call.result(fields, result_type="deferred")
    return call.raw_result(dumps({"resultType": "deferred", **fields}))
