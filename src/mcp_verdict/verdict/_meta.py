"""The result's ``_meta``: an object, and its reserved keys where the version types them.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta and the
schema's ``ResultMetaObject``):

- ``_meta`` is an object (``result.meta``, checked by ``_result``); its values are open,
  held to the JSON rules;
- its keys are in the key name format (since 2025-06-18: ``_meta_keys``, which every ``_meta``
  object of a response is held to; a warning);
- on versions whose schema reserves a result ``_meta`` key with a defined type
  (``VersionRules.reserved_result_meta``), a present value has that type (``meta.reserved``).
  2026-07-28 reserves ``io.modelcontextprotocol/serverInfo``, an ``Implementation``: ``name``
  and ``version`` strings (required), ``title``, ``description`` and ``websiteUrl`` strings
  and ``icons`` (``_icons``), optional. 2025-11-25 reserves ``io.modelcontextprotocol/related-task``
  (basic/utilities/tasks#associating-task-related-messages: "with the value set to an object
  with a ``taskId`` matching the associated task ID"; the schema's ``RelatedTaskMetadata``, which
  its open result ``_meta`` does not apply: stricter than the schema): an object whose ``taskId``
  is a string, and in a CreateTaskResult the id of the task it creates. Other versions type no
  result ``_meta`` key: there the same key is an open value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._findings import describe, pointer
from ._icons import check_icons
from ._meta_keys import check_key_names
from ._trace_context import check_trace_context
from ._versions import RELATED_TASK, SERVER_INFO
from ._walk import Context, check_extras, check_value

_IMPLEMENTATION_STRINGS: Final = ("name", "version", "title", "description", "websiteUrl")
_IMPLEMENTATION_KEYS: Final = frozenset({*_IMPLEMENTATION_STRINGS, "icons"})
_TASK_ID: Final = frozenset({"taskId"})
# Depths: result 2, _meta 3, a reserved value 4, its members 5.
_VALUE_DEPTH: Final = 4


def check_meta_keys(ctx: Context, meta: object, path: str) -> None:
    """The rules on the keys of a ``_meta`` object at ``path``, any of those a response carries
    (the result's, a block's, a resource's, an input request's params', a sampling message's,
    block's and tool's): their name format (``_meta_keys``), and their trace-context values
    (``_trace_context``). A ``_meta`` that is no object is its caller's finding."""
    if isinstance(meta, dict):
        check_key_names(ctx, meta, path)
        check_trace_context(ctx, meta, path)


def check_result_meta(ctx: Context, meta: Mapping[str, Any], path: str) -> None:
    """Check a result ``_meta`` object (nesting level 3) whose pointer is ``path``."""
    check_meta_keys(ctx, meta, path)
    reserved = ctx.rules.reserved_result_meta
    if not reserved or reserved.isdisjoint(meta):
        check_value(ctx, meta, path, _VALUE_DEPTH - 1)
        return
    if SERVER_INFO in meta and SERVER_INFO in reserved:
        _implementation(ctx, meta[SERVER_INFO], pointer(path, SERVER_INFO))
    if RELATED_TASK in meta and RELATED_TASK in reserved:
        _related_task(ctx, meta[RELATED_TASK], pointer(path, RELATED_TASK))
    check_extras(ctx, meta, reserved, path, _VALUE_DEPTH - 1)


def _related_task(ctx: Context, value: object, path: str) -> None:
    if not isinstance(value, dict):
        check_value(ctx, value, path, _VALUE_DEPTH)
        ctx.add(path, "meta.reserved",
                f"{RELATED_TASK} is {describe(value)}; it is an object whose taskId names the task")
        return
    check_extras(ctx, value, _TASK_ID, path, _VALUE_DEPTH)
    if not isinstance(value.get("taskId"), str):
        ctx.add(pointer(path, "taskId") if "taskId" in value else path, "meta.reserved",
                f"the {RELATED_TASK} taskId is {describe(value['taskId'])}; expected a string" if "taskId" in value
                else f"the {RELATED_TASK} object has no taskId")


def related_task_matches(ctx: Context, meta: object, task_id: object, task_path: str) -> None:
    """In a 2025-11-25 CreateTaskResult, a related-task ``_meta`` entry names the task it creates."""
    if not isinstance(meta, dict) or RELATED_TASK not in ctx.rules.reserved_result_meta:
        return
    related = meta.get(RELATED_TASK)
    if isinstance(related, dict) and isinstance(related.get("taskId"), str) and isinstance(task_id, str) \
            and related["taskId"] != task_id:
        ctx.add(pointer(pointer("/result/_meta", RELATED_TASK), "taskId"), "meta.reserved",
                f"the {RELATED_TASK} taskId is {describe(related['taskId'])}, not the task this result creates "
                f"({describe(task_id)} at {task_path}/taskId)")


def _implementation(ctx: Context, value: object, path: str) -> None:
    if not isinstance(value, dict):
        ctx.add(path, "meta.reserved",
                f"{SERVER_INFO} is {describe(value)}; it is an Implementation object with name and version")
        return
    for name in _IMPLEMENTATION_STRINGS:
        if name not in value:
            if name in ("name", "version"):
                ctx.add(path, "meta.reserved", f"the {SERVER_INFO} Implementation has no {name}")
        elif not isinstance(value[name], str):
            ctx.add(pointer(path, name), "meta.reserved",
                    f"{name} is {describe(value[name])}; expected a string")
    if "icons" in value:
        check_icons(ctx, value["icons"], pointer(path, "icons"), _VALUE_DEPTH + 1)
    check_extras(ctx, value, _IMPLEMENTATION_KEYS, path, _VALUE_DEPTH)
