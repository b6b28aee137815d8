"""The time budget holds on jsonschema-rs too: an instance too large for it goes to the guarded engine.

A schema without ``$ref`` runs on jsonschema-rs, which cannot be interrupted; it costs up to its
subschemas times the instance. ``{"items": {"allOf": [{"type": "integer"}] * 1990}}`` against
200,000 integers (a 1.3 MB answer) ran 1.8 s past a budget of 0.5 s, a million 13.3 s, and
``uniqueItems`` compares integers past 64 bits pairwise (16,000 of them: 83 s). Before
validating on jsonschema-rs the work is estimated from the schema's weights per depth and the
instance's values and characters at each depth; past ``time_budget`` times
``RS_WORK_PER_SECOND`` the instance is validated on the deadline-guarded ``jsonschema`` engine,
which stops at the budget (``output.budget``) or answers as jsonschema-rs would have.

Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/index#composition-keyword-resource-use
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import SchemaLimits, check_output

from ._schema_check import complete, tool

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
HEAVY: dict[str, Any] = {"items": {"allOf": [{"type": "integer"}] * 1990}}
"""1990 type checks per item: some 4 ns each on jsonschema-rs, a few µs each on the guarded engine."""
PATTERNS: dict[str, Any] = {"items": {"allOf": [{"pattern": "^[a-z]+[0-9]?$"}] * 500}}
ROW: dict[str, Any] = {"type": "object", "required": ["id"], "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "score": {"type": "number", "maximum": 100.5}}}
ROW_VALUE: dict[str, Any] = {"id": 1, "name": "row", "score": 1.5}
SMALL = SchemaLimits(time_budget=0.01)
STRUCTURED = "/result/structuredContent"


# (case, outputSchema, structuredContent, limits, expected (code, path) findings)
CASES: list[tuple[str, Any, Any, SchemaLimits, list[tuple[str, str]]]] = [
    # the brief's case scaled down: the old code passed it after ~1.8 s on jsonschema-rs
    ("allOf of 1990, 200,000 integers, default budget", HEAVY, list(range(200_000)), SchemaLimits(),
     [("output.budget", STRUCTURED)]),
    ("allOf of 1990, 2,000 integers, budget 0.01 s", HEAVY, list(range(2_000)), SMALL,
     [("output.budget", STRUCTURED)]),
    ("draft-07: allOf of 1990, 2,000 integers, budget 0.01 s", {"$schema": DRAFT_07, **HEAVY}, list(range(2_000)),
     SMALL, [("output.budget", STRUCTURED)]),
    ("500 patterns, 200 strings of 1,000 characters, budget 0.01 s", PATTERNS, ["abcdefghij" * 100] * 200, SMALL,
     [("output.budget", STRUCTURED)]),
    # within the budget: jsonschema-rs, as before
    ("allOf of 1990, 20 integers", HEAVY, list(range(20)), SchemaLimits(), []),
    ("allOf of 1990, a string at 5 of 20", HEAVY, [0, 1, 2, 3, 4, "5", *range(6, 20)], SchemaLimits(),
     [("output.schema", f"{STRUCTURED}/5")]),
    ("500 patterns, 3 short strings", PATTERNS, ["abc", "de1", "f"], SchemaLimits(), []),
    ("500 patterns, a capital letter", PATTERNS, ["abc", "Abc"], SchemaLimits(),
     [("output.schema", f"{STRUCTURED}/1")]),
    # large answers to ordinary schemas stay on jsonschema-rs, within the budget: the estimate
    # counts one of properties' subschemas per member, and a 64-bit integer bound as cheap
    ("a million integers, items minimum 0", {"items": {"type": "integer", "minimum": 0}}, list(range(1_000_000)),
     SchemaLimits(), []),
    ("100,000 rows of 3 members, a float maximum", {"items": ROW}, [ROW_VALUE] * 100_000, SchemaLimits(), []),
    ("100,000 rows of 3 members, the last score past the maximum", {"items": ROW},
     [ROW_VALUE] * 99_999 + [{**ROW_VALUE, "score": 100.6}], SchemaLimits(),
     [("output.schema", f"{STRUCTURED}/99999/score")]),
    # uniqueItems over integers past 64 bits: pairwise on jsonschema-rs (the old code: ~1.3 s);
    # the guarded engine answers the same, at once
    ("uniqueItems, 2,000 integers past 64 bits, all distinct", {"uniqueItems": True},
     [3**60 + i for i in range(2_000)], SchemaLimits(), []),
    ("uniqueItems, 2,000 integers past 64 bits, the last repeating the first", {"uniqueItems": True},
     [3**60 + i for i in range(1_999)] + [3**60], SchemaLimits(), [("output.schema", STRUCTURED)]),
]


@pytest.mark.parametrize(("case", "schema", "structured", "limits", "expected"), CASES, ids=[c[0] for c in CASES])
def test_budget_holds_on_schemas_without_ref(case: str, schema: Any, structured: Any, limits: SchemaLimits,
                                             expected: list[tuple[str, str]]) -> None:
    check = check_output(complete(structured), tool(schema), schema_limits=limits)
    assert [(f.code, f.path) for f in check.findings] == expected
    assert check.passed is (expected == [])


def test_an_expectation_schema_is_held_to_the_budget_too() -> None:
    """``expect=`` validates with the same engines: a caller's heavy schema on a large answer
    fails the expectation with the budget's reason (the old code passed it on jsonschema-rs)."""
    check = check_output(complete(list(range(2_000))), None, expect=HEAVY, schema_limits=SMALL)
    assert [f.code for f in check.findings] == ["expect.failed"]
    assert "ran past its budget of 0.01 s" in check.findings[0].message
