"""An outputSchema whose subschema locations are huge is refused before a validator is built.

The outputSchema is the server's data. jsonschema-rs keeps every keyword's location (its JSON
pointer in the schema) whole: one member name of 100 KB above 500 subschemas, a schema of
0.1 MB, took 140 MB to compile, and a name of some MB above 2,000 subschemas many GB and
seconds. It built a node for each boolean subschema too, which ``max_subschemas`` did not count:
``{"allOf": [true, ...]}`` with a million took 490 MB. Both are ``output.bounds`` now, found
by the walk that checks the other bounds, before either engine sees the schema (spec:
https://modelcontextprotocol.io/specification/2026-07-28/basic/index#composition-keyword-resource-use).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from mcp_verdict import SchemaLimits, check_output

from ._schema_check import assert_first_finding, complete, tool

LONG = "x" * 100_000


SUBSCHEMAS = "the schema holds more than"
LOCATIONS = "the schema's subschema locations add up to more than"

# (label, schema, limits, structuredContent, expected codes, expected path, message fragment)
# The location sums are counted by hand: each subschema's pointer once, and once per member.
CASES: list[tuple[str, Any, SchemaLimits, Any, tuple[str, ...], str | None, str | None]] = [
    # "/properties/abc" is 15 characters, its object has 1 member: 15 * 2 = 30 (the root's is 0).
    ("locations at the bound", {"properties": {"abc": {"type": "string"}}}, SchemaLimits(max_location_chars=30),
     {"abc": "x"}, (), None, None),
    ("locations one past the bound", {"properties": {"abc": {"type": "string"}}},
     SchemaLimits(max_location_chars=29), {"abc": "x"}, ("output.bounds",), "/outputSchema",
     LOCATIONS + " 29 characters"),
    # "/properties/a~1b": the name's "/" escaped in two characters, 16; a boolean has no member.
    ("escaped name at the bound", {"properties": {"a/b": True}}, SchemaLimits(max_location_chars=16), {"a/b": 1},
     (), None, None),
    ("escaped name one past the bound", {"properties": {"a/b": True}}, SchemaLimits(max_location_chars=15),
     {"a/b": 1}, ("output.bounds",), "/outputSchema", LOCATIONS + " 15 characters"),
    # ~100,020 characters for each of 100 leaves, twice: some 20 million, past the default 4 MiB.
    ("long name above many subschemas (jsonschema-rs engine)",
     {"properties": {LONG: {"allOf": [{"type": "object"}] * 100}}}, SchemaLimits(), {},
     ("output.bounds",), "/outputSchema", LOCATIONS + " 4194304 characters"),
    ("long name above many subschemas, with a $ref (jsonschema engine)",
     {"$defs": {LONG: {"allOf": [{"type": "object"}] * 100}}, "$ref": "#/$defs/" + LONG}, SchemaLimits(), {},
     ("output.bounds",), "/outputSchema", LOCATIONS + " 4194304 characters"),
    ("long name above few subschemas passes", {"properties": {LONG: {"allOf": [{"type": "object"}] * 10}}},
     SchemaLimits(), {LONG: {}}, (), None, None),
    # Boolean subschemas count: the root and 2,000 trues are 2,001.
    ("2,000 boolean subschemas and the root", {"allOf": [True] * 2000}, SchemaLimits(), {},
     ("output.bounds",), "/outputSchema", SUBSCHEMAS + " 2000 subschemas"),
    ("1,999 boolean subschemas and the root", {"allOf": [True] * 1999}, SchemaLimits(), {}, (), None, None),
    ("boolean property schemas count", {"properties": {str(i): False for i in range(10)}},
     SchemaLimits(max_subschemas=10), {}, ("output.bounds",), "/outputSchema", SUBSCHEMAS + " 10 subschemas"),
    ("boolean dependencies count (draft-07)",
     {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {str(i): True for i in range(10)}},
     SchemaLimits(max_subschemas=10), {}, ("output.bounds",), "/outputSchema", SUBSCHEMAS + " 10 subschemas"),
    ("nine booleans and the root at the bound", {"anyOf": [True] * 9}, SchemaLimits(max_subschemas=10), {},
     (), None, None),
]


@pytest.mark.parametrize(("schema", "limits", "structured", "codes", "path", "fragment"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_schema_location_and_subschema_bounds(schema: Any, limits: SchemaLimits, structured: Any,
                                              codes: tuple[str, ...], path: str | None,
                                              fragment: str | None) -> None:
    check = check_output(complete(structured), tool(schema), schema_limits=limits)
    assert_first_finding(check, codes, path, fragment)


_CHILD = """
import json, resource, sys
import jsonschema_rs  # loaded before the baseline: the old code loads it, the new one need not
from mcp_verdict import check_output, classify
schema = json.loads(sys.stdin.read())
verdict = classify({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                          "structuredContent": {}}})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
check = check_output(verdict, {"name": "t", "outputSchema": schema})
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"codes": list(check.codes), "extra_kb": after - before}))
"""

# (label, schema) — each took the old code more than 60 MB (measured: 141 MiB and 69 MiB), and
# never more than ~200 MB, so the test stays light on a shared machine.
MEMORY = [
    ("a 100 KB name above 500 subschemas", {"properties": {LONG: {"allOf": [{"type": "object"}] * 500}}}),
    ("200,000 boolean subschemas", {"allOf": [True] * 200_000}),
]


@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="ru_maxrss as Linux and macOS report it")
@pytest.mark.parametrize("schema", [row[1] for row in MEMORY], ids=[row[0] for row in MEMORY])
def test_a_huge_location_schema_is_refused_in_little_memory(schema: Any) -> None:
    text = json.dumps(schema)
    done = subprocess.run([sys.executable, "-c", _CHILD], input=text, capture_output=True, text=True,
                          timeout=120, check=True)
    result = json.loads(done.stdout)
    assert result["codes"] == ["output.bounds"]
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    extra = result["extra_kb"] * scale
    # At most three times the schema's text, and 16 MiB for the interpreter's own noise.
    assert extra < 3 * len(text) + 16 * 1024 * 1024, (extra, len(text))


_WALK = """
import json, resource
from mcp_verdict.judgement._schema import DEFAULT_SCHEMA_LIMITS, _check_bounds_and_refs
schema = {"allOf": [{}] * 1_000_000}  # one object a million times: the schema itself is a list of 8 MB
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
problem, _, _ = _check_bounds_and_refs(schema, "/outputSchema", DEFAULT_SCHEMA_LIMITS)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": problem and problem.code, "message": problem and problem.message,
                  "extra_kb": after - before}))
"""


@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="ru_maxrss as Linux and macOS report it")
def test_the_bounds_walk_stacks_no_more_than_max_subschemas() -> None:
    """The walk stacked every member of an ``allOf`` (a tuple and a pointer each, some 140 MB for a
    million) before it counted one; it stops at the 2,001st now."""
    done = subprocess.run([sys.executable, "-c", _WALK], capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout)
    assert result["code"] == "output.bounds"
    assert result["message"] == "the schema holds more than 2000 subschemas"
    scale = 1 if sys.platform == "darwin" else 1024
    assert result["extra_kb"] * scale < 16 * 1024 * 1024, result


ANNOTATED = {"title": "t", "description": "d", "$comment": "c", "default": 0, "examples": [1],
             "deprecated": False, "readOnly": False, "writeOnly": False}
"""The eight annotations dropped before compiling (what no validator keeps a location for)."""

# (label, schema, limits, expected codes). "/properties/abc" is 15 characters: the subschema
# counts 15 once, and 15 per member the validators are given ("type" alone: 30 in all); its
# eight annotations would add 8 * 15 = 120 if counted.
ANNOTATION_CASES: list[tuple[str, Any, SchemaLimits, tuple[str, ...]]] = [
    ("annotations alone past the bound, dropped: passes",
     {"properties": {"abc": {"type": "string", **ANNOTATED}}}, SchemaLimits(max_location_chars=30), ()),
    ("what is compiled one past the bound, annotations or not",
     {"properties": {"abc": {"type": "string", **ANNOTATED}}}, SchemaLimits(max_location_chars=29),
     ("output.bounds",)),
    # an annotation of a kind no dialect allows is not dropped (the meta-validation refuses it): counted
    ("a title that is no string counts", {"properties": {"abc": {"type": "string", "title": 1}}},
     SchemaLimits(max_location_chars=44), ("output.bounds",)),
    # a $ref pointing into an annotation keeps them all: "/$defs/d" (8) once and for its two
    # members, 24; "/properties/abc" 15 once, for "type" and for 8 annotations: 150; 174 in all
    ("a $ref into an annotation keeps them, counted: at the bound",
     {"$defs": {"d": {"type": "string", "default": {}}}, "$ref": "#/$defs/d/default",
      "properties": {"abc": {"type": "string", **ANNOTATED}}}, SchemaLimits(max_location_chars=174), ()),
    ("a $ref into an annotation keeps them, counted: one past",
     {"$defs": {"d": {"type": "string", "default": {}}}, "$ref": "#/$defs/d/default",
      "properties": {"abc": {"type": "string", **ANNOTATED}}}, SchemaLimits(max_location_chars=173),
     ("output.bounds",)),
]


@pytest.mark.parametrize(("schema", "limits", "codes"), [c[1:] for c in ANNOTATION_CASES],
                         ids=[c[0] for c in ANNOTATION_CASES])
def test_locations_count_what_is_compiled_not_the_annotations(schema: Any, limits: SchemaLimits,
                                                              codes: tuple[str, ...]) -> None:
    """The annotations never reach a validator (they are dropped before compiling), so their
    locations take no memory there: a schema whose annotations alone pass
    ``max_location_chars`` compiles (the old walk counted a location for each and refused it)."""
    check = check_output(complete({"abc": "x"}), tool(schema), schema_limits=limits)
    assert tuple(f.code for f in check.findings) == codes
    if codes:
        assert LOCATIONS + f" {limits.max_location_chars} characters" in check.findings[0].message
