"""The result object: dispatch on resultType, then the complete-result rules.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#resulttype,
server/tools#tool-result and #error-handling):

- ``result`` is an object (``result.not_object``), its ``_meta`` an object (``result.meta``)
  whose reserved keys have their types (``_meta``);
- resultType: before 2026-07-28 an absent resultType means "complete" (earlier servers never
  send it). On 2026-07-28 it is required (``result.result_type_missing``) unless the caller
  opts in to the specification's back-compat reading (``absent_result_type="complete"``,
  which leaves the warning ``result.result_type_assumed``);
- a present resultType is a string (``result.result_type_type``) and one this version and the
  negotiated extensions define, compared exactly (``result.result_type_unknown``): "complete";
  "input_required" on 2026-07-28; "task" on 2026-07-28 with the tasks extension;
- complete: ``content`` is a list of valid blocks (``result.content_missing``,
  ``result.content_type``, ``_content``); ``isError`` is absent or a real JSON boolean
  (``result.is_error``); ``structuredContent`` must be an object on 2025-06-18 and 2025-11-25
  and may be any JSON value on 2026-07-28 (``result.structured_content``); before 2025-06-18
  it is not defined (``result.structured_content_undefined``, a warning).
  ``isError: true`` → tool_error, otherwise normal_complete.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._content import check_content
from ._findings import describe, quoted
from ._input import check_input_required
from ._kind import Kind
from ._meta import check_result_meta, related_task_matches
from ._task import check_task
from ._versions import TASKS_EXTENSION
from ._walk import Context, check_extras, check_value

_COMPLETE_KEYS: Final = frozenset({"resultType", "content", "isError", "structuredContent", "_meta"})
_INPUT_KEYS: Final = frozenset({"resultType", "inputRequests", "requestState", "_meta"})
_AUGMENTED_KEYS: Final = frozenset({"task", "_meta"})


def check_result(ctx: Context, result: object) -> Kind | None:
    """Check a result object; return the kind it would have if no error was found."""
    if not isinstance(result, dict):
        ctx.add("/result", "result.not_object", f"result is {describe(result)}, not an object")
        return None
    if "_meta" in result:
        if isinstance(result["_meta"], dict):
            check_result_meta(ctx, result["_meta"], "/result/_meta")
        else:
            ctx.add("/result/_meta", "result.meta", f"_meta is {describe(result['_meta'])}, not an object")
    rules = ctx.rules
    if "resultType" not in result:
        if rules.task_shape == "augmented" and "task" in result and "content" not in result \
                and TASKS_EXTENSION in ctx.options.extensions:
            return _check_augmented_task(ctx, result)
        if rules.result_type_required:
            if not ctx.options.absent_is_complete:
                ctx.add("/result", "result.result_type_missing",
                        f"a {rules.version} result must carry resultType")
                return None
            ctx.add("/result", "result.result_type_assumed",
                    'resultType is absent; read as "complete" because the caller opted in')
        return _check_complete(ctx, result)
    result_type = result["resultType"]
    if not isinstance(result_type, str):
        ctx.add("/result/resultType", "result.result_type_type",
                f"resultType is {describe(result_type)}, not a string")
        return None
    if result_type == "complete":
        return _check_complete(ctx, result)
    if result_type == "input_required" and rules.input_required:
        check_input_required(ctx, result)
        check_extras(ctx, result, _INPUT_KEYS, "/result", 2)
        return Kind.INPUT_REQUIRED
    if result_type == "task" and rules.task_shape == "extension" and TASKS_EXTENSION in ctx.options.extensions:
        check_task(ctx, result, "/result", 2, legacy=False)
        return Kind.TASK
    ctx.add("/result/resultType", "result.result_type_unknown", _why_unknown(ctx, result_type))
    return None


def _why_unknown(ctx: Context, result_type: str) -> str:
    rules = ctx.rules
    if result_type == "input_required":
        return f'"input_required" results exist from 2026-07-28; this response is {rules.version}'
    if result_type == "task":
        if rules.task_shape != "extension":
            return f'"task" results exist from 2026-07-28 (tasks extension); this response is {rules.version}'
        return f'"task" needs the {TASKS_EXTENSION} extension, which was not negotiated'
    if result_type.lower() in ("complete", "input_required", "task"):
        return f"resultType {quoted(result_type)} is not recognized: values are case-sensitive"
    return f"resultType {quoted(result_type)} is not recognized and MUST be considered invalid"


def _check_complete(ctx: Context, result: Mapping[str, Any]) -> Kind:
    rules = ctx.rules
    if "content" not in result:
        ctx.add("/result", "result.content_missing", "a complete result needs a content list")
    else:
        content = result["content"]
        if isinstance(content, list):
            check_content(ctx, content, "/result/content")
        else:
            ctx.add("/result/content", "result.content_type", f"content is {describe(content)}, not a list")
    flag = result.get("isError", False)
    if flag is not True and flag is not False:
        ctx.add("/result/isError", "result.is_error",
                f"isError is {describe(flag)}; only the JSON booleans true and false are allowed", flag)
    known = _COMPLETE_KEYS
    if "structuredContent" in result:
        value = result["structuredContent"]
        if rules.structured_content == "object" and not isinstance(value, dict):
            ctx.add("/result/structuredContent", "result.structured_content",
                    f"structuredContent is {describe(value)}; {rules.version} requires an object")
        elif rules.structured_content == "undefined":
            ctx.add("/result/structuredContent", "result.structured_content_undefined",
                    f"structuredContent is not defined on {rules.version} (it arrived in 2025-06-18)")
            check_value(ctx, value, "/result/structuredContent", 3)
        else:
            check_value(ctx, value, "/result/structuredContent", 3)
    if len(result) > ("resultType" in result) + ("content" in result) + ("isError" in result) \
            + ("structuredContent" in result) + ("_meta" in result):
        check_extras(ctx, result, known, "/result", 2)
    return Kind.TOOL_ERROR if flag is True else Kind.NORMAL_COMPLETE


def _check_augmented_task(ctx: Context, result: Mapping[str, Any]) -> Kind | None:
    task = result["task"]
    if not isinstance(task, dict):
        ctx.add("/result/task", "task.field", f"task is {describe(task)}, not an object")
        return None
    check_task(ctx, task, "/result/task", 3, legacy=True)
    related_task_matches(ctx, result.get("_meta"), task.get("taskId"), "/result/task")
    check_extras(ctx, result, _AUGMENTED_KEYS, "/result", 2)
    return Kind.TASK
