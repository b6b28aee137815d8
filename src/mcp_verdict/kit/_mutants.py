"""Mutants of the real classifier: the proof that a test suite catches bad receivers.

Each mutant is the package's own source with one rule broken by a textual patch, loaded
under a private package name. Nothing in the classifier knows about mutants: there are no
hooks. Every patch must match the source exactly once, so a mutant cannot silently stop
mutating when the code it targets changes (``MutantError`` says which one broke).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final

_PACKAGE_DIR: Final = Path(__file__).resolve().parent.parent / "verdict"
"""The verdict layer, which imports nothing outside itself: a mutant is a copy of it."""
_counter = itertools.count()


class MutantError(RuntimeError):
    """A mutant's patch no longer matches the classifier's source."""


@dataclass(frozen=True, slots=True)
class Mutant:
    name: str
    description: str
    patches: tuple[tuple[str, str, str], ...]
    """(module file, exact original text, replacement)."""


def _m(name: str, description: str, *patches: tuple[str, str, str]) -> Mutant:
    return Mutant(name, description, patches)


MUTANTS: Final[tuple[Mutant, ...]] = (
    _m("result_means_success", "design note: a result is present → normal_complete",
       ("_judge.py", "kind = _classify(ctx, checked, request_id)",
        'kind = Kind.NORMAL_COMPLETE if isinstance(checked, dict) and "result" in checked '
        "else _classify(ctx, checked, request_id)"),
       ("_common_kind.py", "if type(result) is not dict:\n        return None\n    rules = options.rules",
        "return _NORMAL_COMPLETE"),
       ("_fastpath.py", 'return make_verdict(_TOOL_ERROR if result.get("isError") is True else _NORMAL_COMPLETE, (),',
        "return make_verdict(_NORMAL_COMPLETE, (),"),
       ("_fastpath.py", "return make_verdict(_INPUT_REQUIRED, (), options.rules.version, message)",
        "return make_verdict(_NORMAL_COMPLETE, (), options.rules.version, message)")),
    _m("complete_ignores_is_error", "design note: complete ignores isError",
       ("_result.py", "if flag is not True and flag is not False:", "if False:"),
       ("_result.py", "return Kind.TOOL_ERROR if flag is True else Kind.NORMAL_COMPLETE",
        "return Kind.NORMAL_COMPLETE"),
       ("_common_kind.py", "if flag is not True and flag is not False:", "if False:"),
       ("_common_kind.py", "return _TOOL_ERROR if flag is True else _NORMAL_COMPLETE", "return _NORMAL_COMPLETE"),
       ("_fastpath.py", 'return make_verdict(_TOOL_ERROR if result.get("isError") is True else _NORMAL_COMPLETE, (),',
        "return make_verdict(_NORMAL_COMPLETE, (),")),
    _m("bool_coercion", "isError read with bool(): \"false\" is an error, 0 is success",
       ("_result.py", 'flag = result.get("isError", False)', 'flag = bool(result.get("isError", False))')),
    _m("flag_equals_false", "isError == False is success: 0 and 0.0 pass",
       ("_result.py", "if flag is not True and flag is not False:", "if False:"),
       ("_result.py", "return Kind.TOOL_ERROR if flag is True else Kind.NORMAL_COMPLETE",
        "return Kind.NORMAL_COMPLETE if flag == False else Kind.TOOL_ERROR  # noqa: E712")),
    _m("back_compat_on_2026", "2025 back-compat applied on 2026-07-28: absent resultType is complete",
       ("_result.py", "if not ctx.options.absent_is_complete:", "if False:")),
    _m("unknown_result_type_is_complete", "an unknown resultType is read as complete",
       ("_result.py",
        'ctx.add("/result/resultType", "result.result_type_unknown", _why_unknown(ctx, result_type))\n'
        "    return None",
        "return _check_complete(ctx, result)")),
    _m("result_type_case_insensitive", "resultType compared without case",
       ("_result.py", 'if result_type == "complete":', 'if result_type.lower() == "complete":')),
    _m("content_not_validated", "content blocks are not validated",
       ("_result.py", 'check_content(ctx, content, "/result/content")', "pass")),
    _m("block_version_ignored", "blocks newer than the version are accepted",
       ("_content.py", "if kind not in allowed:", "if False:")),
    _m("resource_body_unchecked", "an embedded resource may carry both text and blob",
       ("_content.py", "if has_text and has_blob:", "if False:")),
    _m("id_not_checked", "the response id is not checked",
       ("_envelope.py", 'if "id" in message:', "if False:"),
       ("_envelope.py", "elif has_result:\n        ctx.add(", "elif False:\n        ctx.add(")),
    _m("id_compared_as_text", 'the id is compared as text: 7 matches "7"',
       ("_envelope.py", "(type(response_id) is not type(request_id)\n"
        "                                         or response_id != request_id)",
        "str(response_id) != str(request_id)")),
    _m("jsonrpc_not_checked", 'the "jsonrpc": "2.0" member is not checked',
       ("_envelope.py", 'if jsonrpc != "2.0" or not isinstance(jsonrpc, str):', "if False:")),
    _m("duplicate_keys_last_wins", "duplicate keys are accepted, the last copy wins",
       ("_parser.py", "catch_duplicate_keys=True", "catch_duplicate_keys=False")),
    _m("nan_accepted", "NaN and Infinity are accepted on the wire",
       ("_parser.py", "allow_inf_nan=False", "allow_inf_nan=True"),
       ("_walk.py", "if item - item == 0.0:  # type: ignore[operator]", "if True:")),
    _m("error_code_any_number", "a float error code is accepted",
       ("_error.py", "if isinstance(code, bool) or not isinstance(code, int):",
        "if isinstance(code, bool) or not isinstance(code, (int, float)):")),
    _m("error_data_ignored", "an error's data is not held to the shape its version types for the code",
       ("_error.py", "if type(code) is int and code in ctx.rules.error_data:", "if False:")),
    _m("input_needs_nothing", "input_required accepted without inputRequests or requestState",
       ("_input.py", "if not has_requests and not has_state:", "if False:")),
    _m("capabilities_ignored", "the client's declared capabilities are ignored",
       ("_input.py", "declared = ctx.options.client_capabilities", "declared = None")),
    _m("structured_content_2026_on_2025", "2026 structuredContent rules applied to 2025 versions",
       ("_result.py", 'if rules.structured_content == "object" and not isinstance(value, dict):',
        "if False:")),
    _m("task_without_extension", "a task result is accepted without the tasks extension",
       ("_result.py",
        'if result_type == "task" and rules.task_shape == "extension" and TASKS_EXTENSION in ctx.options.extensions:',
        'if result_type == "task":')),
    _m("task_status_unchecked", "any task status is accepted",
       ("_task.py", "elif status not in STATUSES:", "elif False:")),
    _m("deep_values_accepted", "open-shaped values are not held to the depth limit",
       ("_walk.py", "if level > max_depth:\n                break\n            for key, member in item.items()",
        "if False:\n                break\n            for key, member in item.items()"),
       ("_common_kind.py", "if level > max_depth:\n            return -1",
        "if level > max_depth and type(container) is not dict:\n            return -1")),
    # --- the fast path: _fastpath.read_common (wire text, with the quick reader's proof in
    # _parser) and _common_kind.common_kind (parsed values); a rule broken in the fast path is
    # broken in both ways in, where both know it ----------------------------------------------
    _m("fast_duplicates_unchecked", "fast path: the quick reader's value is trusted without the proof",
       ("_fastpath.py",
        "if written != data and (data[11] == 32 or not (written and data.startswith(written))) and (",
        "if False and (")),
    _m("fast_escaped_colon_counted", "fast path: a colon written \\u003a in a string is counted as if raw",
       ("_fastpath.py", " or data.find(_ESCAPED_COLON) >= 0):", "):")),
    _m("fast_colons_uncounted", "fast path: a text the write-back cannot prove is trusted without counting its colons",
       ("_fastpath.py", 'or data.count(b":") != written.count(b":") or data.find', "or data.find")),
    _m("fast_jsonrpc_unchecked", 'fast path: "jsonrpc" is not checked',
       ("_common_kind.py", 'if type(jsonrpc) is not str or jsonrpc != "2.0" or (id_type', "if (id_type"),
       ("_fastpath.py", '"jsonrpc": Literal["2.0"]', '"jsonrpc": Any')),
    _m("fast_id_unmatched", "fast path: the response id is not matched to the request id",
       ("_common_kind.py",
        "if request_id is not None and (id_type is not type(request_id) or response_id != request_id):", "if False:"),
       ("_fastpath.py", 'if request_id is not None and (type(message["id"]) is not type(request_id)',
        'if False and (type(message["id"]) is not type(request_id)')),
    _m("fast_result_type_optional", "fast path: an absent resultType is complete on every version",
       ("_common_kind.py", "if result_type is _ABSENT:\n        if rules.result_type_required:",
        "if result_type is _ABSENT:\n        if False:"),
       ("_fastpath.py", "    if not rules.result_type_required and not rules.input_required:  # (read_typed",
        "    if True:  # (read_typed"),
       ("_fastpath.py", 'or result["resultType"] != "input_required":',
        'or result.get("resultType") != "input_required":')),
    _m("fast_is_error_any", "fast path: any isError value passes (only true is an error)",
       ("_common_kind.py", "if flag is not True and flag is not False:", "if False:"),
       ("_fastpath.py", '"isError": _NOT_REQUIRED[bool],', '"isError": _NOT_REQUIRED[Any],')),
    _m("fast_text_unchecked", "fast path: a text block's text is not type-checked",
       ("_common_kind.py", 'block.get("type") == "text" and type(block.get("text")) is str',
        'block.get("type") == "text"'),
       ("_fastpath.py", '{"type": Literal["text"], "text": str}', '{"type": Literal["text"], "text": Any}')),
    _m("fast_block_version_ignored", "fast path: media blocks newer than the version pass",
       ("_common_kind.py", " or block_type not in rules.content_types", "")),
    _m("fast_structured_any", "fast path: 2026 structuredContent rules applied to every version",
       ("_common_kind.py", 'if shape == "undefined" or (shape == "object" and type(structured) is not dict):',
        "if False:"),
       ("_fastpath.py", '    if rules.structured_content == "object":\n        result["structuredContent"]',
        '    if False:\n        result["structuredContent"]'),
       ("_fastpath.py", '    elif rules.structured_content == "any":\n', "    else:\n")),
    _m("fast_nan_accepted", "fast path: NaN and infinities pass in open-shaped values",
       ("_common_kind.py", "kind is float and value - value == 0.0 else", "kind is float else"),
       ("_common_kind.py", "elif kind is not float or item - item != 0.0:", "elif kind is not float:"),
       ("_common_kind.py", "or (item_kind is float and item - item == 0.0)", "or item_kind is float")),
    _m("fast_error_code_any_number", "fast path: a float error code passes",
       ("_common_kind.py", "if type(code) is not int or type(error.get",
        "if type(code) not in (int, float) or type(error.get"),
       ("_fastpath.py", '"code": int,', '"code": int | float,')),
    _m("fast_capabilities_ignored", "fast path: input requests pass whatever the client declared",
       ("_fastpath.py", "elif not requests or not options.form_elicitation:", "elif not requests:"),
       ("_common_kind.py", "or not requests or not options.form_elicitation:", "or not requests:")),
    _m("fast_schema_unchecked", "fast path: a requested schema's properties are not checked",
       ("_common_kind.py", "if type(kind) is not str or kind not in _PLAIN_PROPERTY_TYPES:\n        return False",
        "if True:\n        return True")),
    _m("fast_envelope_members_unchecked", "fast path: members beside jsonrpc, id and result/error pass",
       ("_common_kind.py", "if type(message) is not dict or len(message) != 3:",
        "if type(message) is not dict or len(message) < 3:"),
       ("_fastpath.py", "    if len(message) != 3:  # jsonrpc", "    if len(message) < 3:  # jsonrpc")),
    _m("fast_depth_unbounded", "fast path: open-shaped values read from the wire are not held to the depth limit",
       ("_fastpath.py", "levels: dict[int, Any] = {deepest + 1: _UNION[str, int, float, bool, None]}",
        "levels: dict[int, Any] = {deepest + 1: Any}")),
    _m("elicitation_property_unchecked", "a requested property passes whatever its keywords hold",
       ("_elicitation.py", "if any(variant.first_problem(definition) is None for variant in variants):", "if True:")),
    _m("elicitation_schema_required_unchecked", "requestedSchema.required may be anything",
       ("_elicitation.py", 'if "required" in schema and (not isinstance(schema["required"], list)',
        'if False and (not isinstance(schema["required"], list)')),
    _m("elicitation_url_relative", "a url-mode elicitation's url may be any string",
       ("_elicitation.py", "elif not _ABSOLUTE_URL.fullmatch(url):", "elif False:")),
    _m("sampling_blocks_unchecked", "the blocks of sampling messages are not checked",
       ("_sampling.py", "def _block(ctx: Context, block: object, path: str, depth: int) -> None:\n",
        "def _block(ctx: Context, block: object, path: str, depth: int) -> None:\n    return\n")),
    _m("sampling_pairing_unchecked", "tool uses and tool results need not balance",
       ("_sampling.py", "    if well_formed:\n        _pairing(ctx, messages, path)", "    pass")),
    _m("sampling_mixed_results", "a user message may mix tool results with other blocks",
       ("_sampling.py", 'if results and message["role"] == "user" and len(results) != len(blocks):', "if False:")),
    _m("sampling_params_unchecked", "modelPreferences, systemPrompt, includeContext... are not checked",
       ("_sampling.py", "    _optional_params(ctx, params, where)\n", "")),
    _m("sampling_tools_unchecked", "the tools of a sampling request are not checked",
       ("_sampling.py", '        _tools(ctx, params["tools"], pointer(where, "tools"))', "        pass")),
    _m("sampling_tool_choice_unchecked", "toolChoice is not checked",
       ("_sampling.py", '_tool_choice(ctx, params["toolChoice"], pointer(where, "toolChoice"))', "pass")),
    _m("tool_choice_needs_no_capability", "toolChoice alone does not need sampling.tools",
       ("_sampling.py", 'return "tools" in params or "toolChoice" in params', 'return "tools" in params')),
    _m("roots_meta_unchecked", "a roots request's params._meta may be anything",
       ("_input.py", 'if "_meta" in params and not isinstance(params["_meta"], dict):', "if False:")),
    _m("icons_unchecked", "icons are not checked",
       ("_icons.py", '    """Check an ``icons`` member at nesting ``depth`` (each icon is one level deeper)."""\n',
        "    return\n")),
    _m("reserved_meta_unchecked", "the reserved result _meta key serverInfo may hold anything",
       ("_meta.py", "    if SERVER_INFO in meta and SERVER_INFO in reserved:\n", "    if False:\n")),
    _m("related_task_unchecked", "2025-11-25's reserved result _meta key related-task may hold anything",
       ("_meta.py", "    if RELATED_TASK in meta and RELATED_TASK in reserved:\n", "    if False:\n")),
    _m("meta_key_name_unchecked", "a _meta key may have any name",
       ("_meta_keys.py", "    if not ctx.rules.meta_key_names or key_names_valid(meta):\n",
        "    if True:\n")),
    _m("meta_key_prefix_any", "a _meta key's prefix may be any text before its slash",
       ("_meta_keys.py", '_LABEL: Final = r"[A-Za-z][A-Za-z0-9-]*+(?<!-)"', '_LABEL: Final = r"[^/]*+"')),
    _m("trace_context_unchecked", "a _meta traceparent, tracestate or baggage may hold anything",
       ("_trace_context.py",
        "    if not ctx.rules.trace_context or TRACE_CONTEXT_KEYS.isdisjoint(meta):\n        return\n",
        "    return\n")),
    _m("fast_trace_context_taken", "fast path: a result _meta trace-context key passes unread",
       ("_common_kind.py", "    if rules.trace_context and not TRACE_CONTEXT_KEYS.isdisjoint(meta):\n",
        "    if False:\n")),
    _m("fast_meta_key_names_taken", "fast path: a result _meta key out of format passes unreported",
       ("_common_kind.py", "    if rules.meta_key_names and not key_names_valid(meta):\n        return False\n", "")),
    _m("error_id_optional_everywhere", "an error response may omit its id on every version",
       ("_envelope.py", "    elif ctx.rules.error_id_required:\n", "    elif False:\n")),
    _m("fast_reserved_meta_taken", "fast path: a reserved result _meta key passes untyped",
       ("_common_kind.py", "    info = meta.get(SERVER_INFO, _ABSENT) if SERVER_INFO in reserved else _ABSENT\n"
        "    if info is _ABSENT:",
        "    return True\n    info = meta.get(SERVER_INFO, _ABSENT) if SERVER_INFO in reserved else _ABSENT\n"
        "    if info is _ABSENT:")),
)


class _Loader(importlib.abc.SourceLoader):
    def __init__(self, path: Path, patches: Sequence[tuple[str, str]], mutant: str) -> None:
        self._path = path
        self._patches = patches
        self._mutant = mutant

    def get_filename(self, fullname: str) -> str:
        return str(self._path)

    def get_data(self, path: str) -> bytes:
        source = self._path.read_text("utf-8")
        for original, replacement in self._patches:
            count = source.count(original)
            if count != 1:
                raise MutantError(f"mutant {self._mutant}: {original!r} occurs {count} times in "
                                  f"{self._path.name}, expected once")
            source = source.replace(original, replacement)
        return source.encode("utf-8")


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, package: str, mutant: Mutant) -> None:
        self._package = package
        self._mutant = mutant

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname == self._package:
            return importlib.util.spec_from_loader(fullname, None, is_package=True)
        prefix = self._package + "."
        if not fullname.startswith(prefix) or "." in fullname[len(prefix):]:
            return None
        file = _PACKAGE_DIR / (fullname[len(prefix):] + ".py")
        if not file.is_file():
            return None
        patches = [(old, new) for name, old, new in self._mutant.patches if name == file.name]
        return importlib.util.spec_from_loader(fullname, _Loader(file, patches, self._mutant.name))


def build(mutant: Mutant) -> Callable[..., Any]:
    """Load the mutated classifier and return its ``classify``."""
    for file, original, _ in mutant.patches:
        if (_PACKAGE_DIR / file).read_text("utf-8").count(original) != 1:
            raise MutantError(f"mutant {mutant.name}: its patch of {file} no longer matches once")
    package = f"_mcp_verdict_mutant_{next(_counter)}_{mutant.name}"
    finder = _Finder(package, mutant)
    sys.meta_path.insert(0, finder)
    try:
        module = importlib.import_module(package + "._classify")
        # classify imports some of its modules on their first use (the full checker's rules, the
        # views): all are imported now, while the finder serves the mutant, and stay in
        # sys.modules (under the mutant's own package name) for those imports to find
        for path in sorted(_PACKAGE_DIR.glob("_*.py")):
            importlib.import_module(f"{package}.{path.stem}")
    finally:
        sys.meta_path.remove(finder)
    mutated: Callable[..., Any] = module.classify
    limits_type = module.Limits

    def classify(response: object, **options: Any) -> Any:
        if "limits" in options:  # the mutant has its own copy of the Limits class
            limits = options["limits"]
            options["limits"] = limits_type(limits.max_bytes, limits.max_depth, limits.max_nodes)
        return mutated(response, **options)

    return classify
