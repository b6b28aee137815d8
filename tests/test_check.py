"""The content check: outputSchema, dialects, $ref policy, bounds, and caller expectations."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from mcp_verdict import ContentCheck, Kind, SchemaLimits, Verdict, check_output, classify


def complete(structured: Any = ..., text: str = "done", **extra: Any) -> Verdict:
    result: dict[str, Any] = {"resultType": "complete", "content": [{"type": "text", "text": text}], **extra}
    if structured is not ...:
        result["structuredContent"] = structured
    verdict = classify({"jsonrpc": "2.0", "id": 1, "result": result})
    assert verdict.kind in (Kind.NORMAL_COMPLETE, Kind.TOOL_ERROR)
    return verdict


def tool(schema: Any, name: str = "t") -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, "outputSchema": schema}


COUNT_SCHEMA = {"type": "object", "properties": {"count": {"type": "integer", "minimum": 0}},
                "required": ["count"]}

# (label, verdict, tool, expected passed, expected codes) — spec: 2026-07-28 server/tools#output-schema,
# basic/index#json-schema-usage
SCHEMA_CASES = [
    ("conforms", complete({"count": 3}), tool(COUNT_SCHEMA), True, ()),
    ("violates type", complete({"count": "3"}), tool(COUNT_SCHEMA), False, ("output.schema",)),
    ("violates required", complete({}), tool(COUNT_SCHEMA), False, ("output.schema",)),
    ("no structuredContent", complete(), tool(COUNT_SCHEMA), False, ("output.structured_missing",)),
    ("no outputSchema: nothing to hold it to", complete({"anything": 1}), {"name": "t"}, True, ()),
    ("array schema", complete([{"id": "1"}]), tool({"type": "array", "items": {"required": ["id"]}}), True, ()),
    ("draft-07 by $schema", complete({"a": 1.5}),
     tool({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"type": "integer"}}}),
     False, ("output.schema",)),
    ("2020-12 by default: prefixItems applies", complete([1, "x"]),
     tool({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}]}), False, ("output.schema",)),
    ("unsupported dialect is refused, never a pass", complete({"a": 1}),
     tool({"$schema": "https://example.com/custom-dialect", "type": "object"}), False, ("output.dialect",)),
    ("network $ref rejected", complete({"a": 1}), tool({"$ref": "https://example.com/s.json"}), False,
     ("output.ref",)),
    ("file $ref rejected", complete({"a": 1}), tool({"properties": {"a": {"$ref": "file:///etc/passwd"}}}), False,
     ("output.ref",)),
    ("relative external $ref rejected", complete({"a": 1}), tool({"$ref": "other.json#/defs/a"}), False,
     ("output.ref",)),
    ("local $defs ref", complete({"a": -1}),
     tool({"properties": {"a": {"$ref": "#/$defs/pos"}}, "$defs": {"pos": {"minimum": 0}}}), False,
     ("output.schema",)),
    ("embedded $id ref resolves locally", complete({"a": "x"}),
     tool({"$id": "https://example.com/root", "$defs": {"s": {"$id": "str", "type": "string"}},
           "properties": {"a": {"$ref": "str"}}}), True, ()),
    ("invalid schema", complete({"a": 1}), tool({"type": "objekt"}), False, ("output.schema_invalid",)),
    ("schema not an object", complete({"a": 1}), tool(["type", "object"]), False, ("output.schema_invalid",)),
]


@pytest.mark.parametrize(("label", "verdict", "the_tool", "passed", "codes"), SCHEMA_CASES,
                         ids=[c[0] for c in SCHEMA_CASES])
def test_output_schema(label: str, verdict: Verdict, the_tool: dict[str, Any], passed: bool,
                       codes: tuple[str, ...]) -> None:
    check = check_output(verdict, the_tool)
    assert check.passed is passed, check.findings
    assert check.codes == codes


def test_tool_errors_are_not_held_to_the_output_schema_and_never_pass() -> None:
    verdict = complete(isError=True)
    assert verdict.kind is Kind.TOOL_ERROR
    check = check_output(verdict, tool(COUNT_SCHEMA))
    assert not check.passed and check.codes == ("output.not_complete",)
    assert not check.schema_checked


def test_unclassified_never_passes() -> None:
    verdict = classify(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":0}}')
    assert check_output(verdict).codes == ("output.not_complete",)


def test_schema_bounds() -> None:
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(40):
        deep = {"properties": {"a": deep}}
    assert check_output(complete({}), tool(deep)).codes == ("output.bounds",)
    wide = {"anyOf": [{"type": "integer"}] * 50}
    assert check_output(complete({}), tool(wide), schema_limits=SchemaLimits(max_subschemas=10)).codes == (
        "output.bounds",)


def test_time_budget_stops_a_hostile_schema() -> None:
    branch = {"items": {"$ref": "#/$defs/a"}, "minItems": 1, "maxItems": 0}
    evil = {"$defs": {"a": {"anyOf": [branch, branch, {"items": {"$ref": "#/$defs/a"}}]}}, "$ref": "#/$defs/a"}
    instance: Any = 0
    for _ in range(25):
        instance = [instance]
    check = check_output(complete(instance), tool(evil), schema_limits=SchemaLimits(time_budget=0.05))
    assert check.codes == ("output.budget",)


def test_compiled_schemas_are_cached_by_content() -> None:
    from mcp_verdict.judgement._schema import _compile

    _compile.cache_clear()
    for _ in range(3):
        check_output(complete({"count": 1}), tool(dict(COUNT_SCHEMA)))
    info = _compile.cache_info()
    assert (info.misses, info.hits) == (1, 2)


# --- caller expectations ---------------------------------------------------------------------------

class Count(pydantic.BaseModel):
    count: int


def count_in_range(verdict: Verdict) -> bool | str:
    """README example 1: a read-only count: the key is present, an integer, in range."""
    data = verdict.structured_content
    if not isinstance(data, dict) or "count" not in data:
        return "no count"
    count = data["count"]
    if type(count) is not int:
        return f"count is {count!r}, not an integer"
    return 0 <= count <= 1000 or f"count {count} is out of range"


def write_echoed(target: str, state: str) -> Any:
    """README example 2: a write: the target id is echoed and the new state is present."""
    def check(verdict: Verdict) -> bool | str:
        data = verdict.structured_content or {}
        if data.get("id") != target:
            return f"the write echoed id {data.get('id')!r}, not {target!r}"
        return data.get("state") == state or f"state is {data.get('state')!r}, not {state!r}"
    return check


EXPECT_CASES = [
    ("schema passes", complete({"count": 2}), COUNT_SCHEMA, True),
    ("schema fails", complete({"count": -2}), COUNT_SCHEMA, False),
    ("pydantic model passes", complete({"count": 2}), Count, True),
    ("pydantic strict: no coercion of '2'", complete({"count": "2"}), Count, False),
    ("TypeAdapter strict", complete([1, 2]), pydantic.TypeAdapter(list[int]), True),
    ("TypeAdapter strict: no coercion of 1.0", complete([1.0]), pydantic.TypeAdapter(list[int]), False),
    ("count in range", complete({"count": 7}), count_in_range, True),
    ("count not an integer", complete({"count": 7.0}), count_in_range, False),
    ("count out of range", complete({"count": 7000}), count_in_range, False),
    ("write echoed", complete({"id": "item-9", "state": "archived"}), write_echoed("item-9", "archived"), True),
    ("write echoed another id", complete({"id": "item-8", "state": "archived"}), write_echoed("item-9", "archived"),
     False),
    ("write without new state", complete({"id": "item-9"}), write_echoed("item-9", "archived"), False),
    ("text parsed as JSON when no structuredContent", complete(text='{"count": 4}'), COUNT_SCHEMA, True),
    ("text that is not JSON", complete(text="four"), COUNT_SCHEMA, False),
    ("several combine: all must pass", complete({"count": 5}), [COUNT_SCHEMA, Count, count_in_range], True),
    ("several combine: one fails", complete({"count": 5000}), [COUNT_SCHEMA, Count, count_in_range], False),
]


@pytest.mark.parametrize(("label", "verdict", "expect", "passed"), EXPECT_CASES, ids=[c[0] for c in EXPECT_CASES])
def test_expectations(label: str, verdict: Verdict, expect: Any, passed: bool) -> None:
    check = check_output(verdict, expect=expect)
    assert check.passed is passed, check.findings
    assert all(code == "expect.failed" for code in check.codes)


def test_a_failing_expectation_says_why() -> None:
    check = check_output(complete({"count": 7000}), expect=count_in_range)
    assert check.expectations[0].reason == "count 7000 is out of range"
    assert check.findings[0].message == "count_in_range: count 7000 is out of range"


@pytest.mark.parametrize(("expect", "why"), [
    (lambda v: 1 / 0, "raised ZeroDivisionError"),
    (lambda v: None, "returned None"),
])  # an expectation of no kind (42) is the caller's mistake: tests/test_judgement_option_errors.py
def test_misbehaving_expectations_are_reported_not_raised(expect: Any, why: str) -> None:
    check = check_output(complete({"a": 1}), expect=expect)
    assert not check.passed and check.codes == ("expect.error",)
    assert why in check.findings[0].message


def test_content_check_serialises() -> None:
    check: ContentCheck = check_output(complete({"count": "x"}), tool(COUNT_SCHEMA), expect=Count)
    data = check.to_dict()
    assert data["passed"] is False and data["schema_checked"] is True
    assert {f["code"] for f in data["findings"]} == {"output.schema", "expect.failed"}
