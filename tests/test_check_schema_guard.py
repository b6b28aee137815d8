"""A schema that may recurse is validated on the deadline-guarded ``jsonschema`` engine, all of it.

Two ways out of the guard, both the server's to take (its outputSchema):

- ``$recursiveRef`` (2019-09) was not read as a reference, so a schema recursing through it
  alone went to jsonschema-rs, which cannot be interrupted: an ``anyOf`` of two recursive
  branches against arrays nested 16 deep ran 4.7 s past a budget of 0.05 s, 20 deep more than a
  minute;
- the ``jsonschema`` package builds the validator of each subschema it descends into by the
  subschema's ``$schema``, from its registry: below a subschema holding ``$schema`` the classes
  were the unguarded ones, no keyword checked the deadline, and ``pattern`` ran on Python's
  ``re`` (``^\\p{L}+$`` raised ``re.error`` out of ``check_output``; ``\\d`` took an
  Arabic-Indic digit; ``^(a+)+$`` on 26 characters ran seconds in ``re``, doubling per
  character, where the bounded engine answers at once).

Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/index#composition-keyword-resource-use
and #json-schema-usage (the regular expressions are ECMA-262's).
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import SchemaLimits, check_output

from ._schema_check import assert_first_finding, complete

DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"
DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"


def nested(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def by_ref(subschema: dict[str, Any]) -> dict[str, Any]:
    """A schema whose member ``s`` is ``subschema`` through a ``$ref`` (the guarded engine's)."""
    return {"type": "object", "properties": {"s": {"$ref": "#/$defs/a"}}, "$defs": {"a": subschema}}


def recursive(reference: str, dialect: str) -> dict[str, Any]:
    """Arrays whose items are the schema again, by two branches of an ``anyOf``, and a leaf that
    is no array: both branches fail at every level, 2^depth paths (the budget's case)."""
    target = {reference: "#"}
    schema: dict[str, Any] = {"$schema": dialect, "type": "array",
                              "anyOf": [{"items": target}, {"items": target, "minItems": 1}]}
    if reference == "$recursiveRef":
        schema["$recursiveAnchor"] = True
    return schema


BUDGET = SchemaLimits(time_budget=0.05)

# (label, schema, structuredContent, limits, expected codes, expected path, message fragment)
CASES: list[tuple[str, dict[str, Any], Any, SchemaLimits, tuple[str, ...], str | None, str | None]] = [
    # ECMA-262 patterns as jsonschema-rs's engine runs them, with or without $schema in the subschema
    ("\\p{L} below a subschema's $schema", by_ref({"$schema": DRAFT_2020, "pattern": "^\\p{L}+$"}), {"s": "é"},
     SchemaLimits(), (), None, None),
    ("\\p{L} without $schema", by_ref({"pattern": "^\\p{L}+$"}), {"s": "é"}, SchemaLimits(), (), None, None),
    ("\\d below a subschema's $schema: ASCII digits only", by_ref({"$schema": DRAFT_2020, "pattern": "^\\d$"}),
     {"s": "\u0663"}, SchemaLimits(), ("output.schema",), "/result/structuredContent/s", "does not match"),
    ("\\d without $schema: ASCII digits only", by_ref({"pattern": "^\\d$"}), {"s": "\u0663"}, SchemaLimits(),
     ("output.schema",), "/result/structuredContent/s", "does not match"),
    ("^(a+)+$ below a subschema's $schema: the bounded engine answers",
     by_ref({"$schema": DRAFT_2020, "pattern": "^(a+)+$"}), {"s": "a" * 26 + "!"}, SchemaLimits(),
     ("output.schema",), "/result/structuredContent/s", "does not match"),
    # recursion: the budget holds
    ("$recursiveRef through an anyOf, 16 deep", recursive("$recursiveRef", DRAFT_2019), nested(16), BUDGET,
     ("output.budget",), "/result/structuredContent", "validation ran past its budget of 0.05 s"),
    ("$ref to a root holding $schema, 16 deep", recursive("$ref", DRAFT_2020), nested(16), BUDGET,
     ("output.budget",), "/result/structuredContent", "validation ran past its budget of 0.05 s"),
    ("$recursiveRef, an instance that conforms", recursive("$recursiveRef", DRAFT_2019), [], SchemaLimits(),
     (), None, None),
]


@pytest.mark.parametrize(("schema", "structured", "limits", "codes", "path", "fragment"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_guard_holds_below_every_subschema(schema: dict[str, Any], structured: Any, limits: SchemaLimits,
                                               codes: tuple[str, ...], path: str | None,
                                               fragment: str | None) -> None:
    check = check_output(complete(structured), {"name": "t", "outputSchema": schema}, schema_limits=limits)
    assert_first_finding(check, codes, path, fragment)


def test_a_recursive_ref_schema_runs_on_the_guarded_engine() -> None:
    from mcp_verdict.judgement._schema import compile_schema

    compiled = compile_schema(recursive("$recursiveRef", DRAFT_2019), "/outputSchema")
    assert compiled.problem is None
    assert compiled.engine == "jsonschema"


@pytest.mark.parametrize("dialect", ["http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#",
                                     DRAFT_2019, DRAFT_2020])
def test_a_subschema_naming_a_dialect_is_validated_by_its_guarded_class(dialect: str) -> None:
    import jsonschema

    from mcp_verdict.judgement._schema import _DIALECTS, _guarded, compile_schema

    compiled = compile_schema(by_ref({"type": "string"}), "/outputSchema")
    assert compiled.engine == "jsonschema"
    evolved = compiled.validator.evolve(schema={"$schema": dialect, "pattern": "a"})
    assert type(evolved) is _guarded(getattr(jsonschema, _DIALECTS[dialect.rstrip("#")]))
