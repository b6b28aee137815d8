"""The content check's regular expressions: ECMA-262 on both validators, bounded on every schema.

Spec: JSON Schema 2020-12 core, "Regular Expressions" (patterns are ECMA-262); MCP 2026-07-28
basic/index#json-schema-usage (the outputSchema is JSON Schema, 2020-12 by default). A server
lists the schema and writes the instance, so a pattern built to backtrack must cost a bounded
time whatever string it meets: before, a schema with ``$ref`` ran its patterns on Python's
``re`` (``^(a+)+$`` on 27 characters: ~20 s, growing 2x per character, past any budget), and a
schema without ``$ref`` ran a backreference pattern at ~0.3 s a property name, uninterruptible.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcp_verdict import SchemaLimits, check_output, classify

EVIL_LONG = "a" * 27 + "!"  # ^(a+)+$ on Python's re: ~2^27 steps


def complete(structured: Any) -> Any:
    return classify({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": "x"}], "structuredContent": structured}})


def tool(schema: Any) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}


def by_ref(inner: dict[str, Any], **outer: Any) -> dict[str, Any]:
    """``inner`` reached through ``$ref``: the schema goes to the ``jsonschema`` package."""
    return {"$ref": "#/$defs/v", "$defs": {"v": inner}, **outer}


ROOMY = SchemaLimits(time_budget=30.0)
"""A budget far above any row's validation (the slowest, a backreference pattern giving up after
100,000 steps on the guarded engine, takes ~10-20 ms): a row's verdict is the pattern's, never
the machine's speed (under the default 0.5 s a loaded machine came within ~25 times of it)."""

DIGITS = {"type": "object", "properties": {"n": {"type": "string", "pattern": "^\\d+$"}}}
END = {"type": "object", "properties": {"n": {"type": "string", "pattern": "^abc$"}}}

# (label, schema, instance, expected passed, expected codes, a fragment of the first message)
CASES = [
    ("$ref: nested quantifier on a near match is a plain mismatch",
     by_ref({"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a+)+$"}}}),
     {"v": EVIL_LONG}, False, ("output.schema",), "does not match '^(a+)+$'"),
    ("$ref: the same pattern matching passes",
     by_ref({"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a+)+$"}}}),
     {"v": "aaaa"}, True, (), None),
    ("$ref: patternProperties under additionalProperties false",
     by_ref({"type": "object", "patternProperties": {"^(a+)+$": {"type": "integer"}},
             "additionalProperties": False}),
     {EVIL_LONG: 1}, False, ("output.schema",), "does not match any of the regexes: '^(a+)+$'"),
    ("$ref: patternProperties descends into a matching name",
     by_ref({"type": "object", "patternProperties": {"^x-": {"type": "integer"}}}),
     {"x-a": "one"}, False, ("output.schema",), "'one' is not of type 'integer'"),
    ("$ref: additionalProperties leaves pattern-named properties alone",
     by_ref({"type": "object", "properties": {"id": {}}, "patternProperties": {"^x-": {}},
             "additionalProperties": False}),
     {"id": 1, "x-a": 2}, True, (), None),
    ("$ref: additionalProperties false names the extra",
     by_ref({"type": "object", "properties": {"id": {}}, "additionalProperties": False}),
     {"id": 1, "extra": 2}, False, ("output.schema",), "('extra' was unexpected)"),
    ("$ref 2020-12: unevaluatedProperties with patternProperties",
     by_ref({"patternProperties": {"^(a+)+$": {}}}, unevaluatedProperties=False),
     {EVIL_LONG: 1}, False, ("output.schema",), "Unevaluated properties are not allowed"),
    ("$ref 2020-12: a pattern-named property is evaluated",
     by_ref({"patternProperties": {"^(a+)+$": {}}}, unevaluatedProperties=False),
     {"aaa": 1}, True, (), None),
    ("$ref 2019-09: unevaluatedProperties with patternProperties",
     by_ref({"patternProperties": {"^(a+)+$": {}}}, unevaluatedProperties=False,
            **{"$schema": "https://json-schema.org/draft/2019-09/schema"}),
     {EVIL_LONG: 1, "aa": 2}, False, ("output.schema",), "('aaaaaaaaaaaaaaaaaaaaaaaaaaa!' was unexpected)"),
    ("$ref 2020-12: allOf branch evaluates a property",
     by_ref({"allOf": [{"properties": {"a": {}}}]}, unevaluatedProperties=False),
     {"a": 1, "b": 2}, False, ("output.schema",), "('b' was unexpected)"),
    # ECMA-262, as jsonschema-rs reads a schema without $ref: \d is ASCII, $ ends the text
    ("no $ref: \\d is 0-9 only", DIGITS, {"n": "\u0661\u0662"}, False, ("output.schema",), "does not match"),
    ("$ref: \\d is 0-9 only, alike", by_ref(DIGITS), {"n": "\u0661\u0662"}, False, ("output.schema",),
     "does not match"),
    ("no $ref: $ does not match before a final newline", END, {"n": "abc\n"}, False, ("output.schema",),
     "does not match"),
    ("$ref: $ does not match before a final newline, alike", by_ref(END), {"n": "abc\n"}, False,
     ("output.schema",), "does not match"),
    ("$ref: \\p{L} is a valid pattern (Python's re refuses it)",
     by_ref({"type": "string", "pattern": "^\\p{L}+$"}), "été", True, (), None),
    ("$ref: a named group (?<y>...) is a valid pattern",
     by_ref({"type": "string", "pattern": "^(?<y>\\d{4})$"}), "2026", True, (), None),
    # Python-only syntax is not a pattern this validator can run: refused, never a pass
    ("$ref: Python's (?#comment) is refused", by_ref({"type": "string", "pattern": "(?#c)a"}), "a", False,
     ("output.schema_invalid",), "is not a"),
    ("no $ref: Python's atomic group is refused", {"type": "string", "pattern": "(?>a)"}, "a", False,
     ("output.schema_invalid",), "is not a"),
    ("$ref: a patternProperties name Python alone reads is refused",
     by_ref({"patternProperties": {"a\\Z": {}}}), {}, False, ("output.schema_invalid",), "is not a"),
    # a pattern that must backtrack (a backreference) gives up after a bounded number of steps
    ("no $ref: a backreference pattern that gives up is an error, never a pass",
     {"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a*)*\\1$"}}},
     {"v": "a" * 30 + "b"}, False, ("output.schema",), "gave up after 100,000 backtracking steps"),
    ("no $ref: a backreference pattern that matches passes",
     {"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a+)-\\1$"}}},
     {"v": "aa-aa"}, True, (), None),
    ("no $ref: lookahead works", {"type": "string", "pattern": "^(?!admin$)[a-z]+$"}, "admin", False,
     ("output.schema",), "does not match"),
]


@pytest.mark.parametrize(("label", "schema", "instance", "passed", "codes", "message"), CASES,
                         ids=[c[0] for c in CASES])
def test_patterns(label: str, schema: Any, instance: Any, passed: bool, codes: tuple[str, ...],
                  message: str | None) -> None:
    check = check_output(complete(instance), tool(schema), schema_limits=ROOMY)
    assert check.passed is passed, check.findings
    assert check.codes == codes, check.findings
    if message is not None:
        assert message in check.findings[0].message, check.findings[0].message


def test_many_names_that_make_the_engine_give_up_stop_at_the_budget() -> None:
    """5,000 property names against a pattern each makes give up (~10 ms each here): the budget
    stops the validation (before: jsonschema-rs ran them all, ~0.3 s each, uninterruptible)."""
    schema = {"type": "object", "patternProperties": {"^(a*)*\\1$": {"type": "integer"}}}
    instance = {"a" * 30 + "b" + str(i): 1 for i in range(5000)}
    started = time.monotonic()
    check = check_output(complete(instance), tool(schema), schema_limits=SchemaLimits(time_budget=0.2))
    assert check.codes == ("output.budget",), check.findings
    assert time.monotonic() - started < 60  # a hang guard, far above the budget; not a speed target


def test_a_ref_free_schema_of_linear_patterns_stays_on_jsonschema_rs() -> None:
    from mcp_verdict.judgement._schema import compile_schema

    linear = compile_schema({"type": "string", "pattern": "^(a+)+$"}, "/x")
    backreference = compile_schema({"type": "string", "pattern": "^(a)\\1$"}, "/x")
    assert (linear.engine, backreference.engine) == ("jsonschema-rs", "jsonschema")
