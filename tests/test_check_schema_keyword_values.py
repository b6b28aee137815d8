"""An outputSchema's keyword values are bounded, and its annotations never reach a validator.

The outputSchema is the server's data (``tools/list``). jsonschema-rs keeps every keyword's
value as values of its own, some 100-500 bytes per JSON value: a ``default`` of 300,000 small
objects (a schema of 6.5 MB) took it 470 MB to compile, an ``enum`` of 300,000 objects 710 MB,
one of 300,000 strings 49 MB, an unknown keyword's value as much as a ``default``. So:

- the annotations, which never change a verdict (``title``, ``description``, ``default``,
  ``examples``, ``deprecated``, ``readOnly``, ``writeOnly``: JSON Schema 2020-12 validation
  section 9, "annotations"; ``$comment``: core section 8.3, "MUST NOT [...] alter the validation
  outcome"), are dropped from each subschema before either engine sees the schema — a value of
  the wrong kind (``"title": 5``) is kept, for the meta-validation to refuse as before;
- the other keywords' values (``enum``, ``const``, ``required``, unknown keywords...) may hold at
  most ``SchemaLimits.max_keyword_values`` JSON values and member names in all, or the schema
  is ``output.bounds`` (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#composition-keyword-resource-use).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from mcp_verdict import SchemaLimits, check_output

from ._schema_check import complete, tool


def with_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as one ``$ref`` to it (validated by the ``jsonschema`` engine)."""
    return {"$defs": {"it": schema}, "$ref": "#/$defs/it"}


VALUES = "the schema's keywords hold more than"

# (label, schema, its keyword values counted by hand) — each keyword's value counts one, and each
# value and member name inside it (a map of subschemas: its names; a subschema: nothing, its own
# keywords are counted where it is)
COUNTS: list[tuple[str, Any, int]] = [
    ("enum of 3", {"enum": [1, 2, 3]}, 4),
    ("const object", {"const": {"a": [1, 2]}}, 5),
    ("properties and required", {"type": "object", "required": ["a", "b"],
                                 "properties": {"a": {"type": "string"}, "b": True}}, 8),
    ("unknown keyword", {"x-data": [1, 2, 3]}, 4),
    ("annotations are not counted", {"title": "t", "description": "d", "$comment": "c", "default": [1, 2, 3, 4, 5],
                                     "examples": [[1]], "deprecated": True, "readOnly": False, "writeOnly": False,
                                     "enum": [1]}, 2),
    ("a subschema's annotations", {"items": {"default": {"a": [1, 2, 3]}, "examples": [1, 2], "const": 1}}, 2),
    ("a $defs member's annotations", {"$defs": {"d": {"title": "x", "enum": ["a"]}}, "$ref": "#/$defs/d"}, 5),
    ("a $ref into an annotation keeps and counts them", {"$defs": {"x": {"default": {"type": "string"}}},
                                                         "$ref": "#/$defs/x/default"}, 6),
]


@pytest.mark.parametrize(("schema", "count"), [case[1:] for case in COUNTS], ids=[case[0] for case in COUNTS])
def test_keyword_values_are_bounded_at_their_count(schema: Any, count: int) -> None:
    at = check_output(complete(None), tool(schema), schema_limits=SchemaLimits(max_keyword_values=count))
    assert [f.code for f in at.findings if f.code.startswith("output.b")] == []
    past = check_output(complete(None), tool(schema), schema_limits=SchemaLimits(max_keyword_values=count - 1))
    assert [(f.code, f.path) for f in past.findings] == [("output.bounds", "/outputSchema")]
    assert past.findings[0].message == (
        f"{VALUES} {count - 1} JSON values (enum, const, required, unknown keywords...: each value and member "
        "name, which a validator keeps, some 100-500 bytes each)")


ANNOTATED = {"type": "object", "properties": {
    "a": {"type": "integer", "title": "A", "description": "an a", "default": "x", "examples": ["y"],
          "deprecated": True, "readOnly": True, "writeOnly": False, "$comment": "c"},
    "default": {"type": "string"}, "title": {"enum": [{"default": 1}]}}, "required": ["default"]}

REF_INTO = {"$defs": {"x": {"default": {"type": "string"}}}, "properties": {"a": {"$ref": "#/$defs/x/default"}}}
# (label, schema, structuredContent, expected findings as (code, path)) — by hand: dropping the
# annotations changes no verdict, and a member or value that is named like one is no annotation
VERDICTS: list[tuple[str, Any, Any, list[tuple[str, str]]]] = [
    ("annotated, conforms", ANNOTATED, {"a": 1, "default": "d", "title": {"default": 1}}, []),
    ("annotated, wrong type", ANNOTATED, {"a": "s", "default": "d"},
     [("output.schema", "/result/structuredContent/a")]),
    ("a property named default is required", ANNOTATED, {"a": 1}, [("output.schema", "/result/structuredContent")]),
    ("a property named default keeps its type", ANNOTATED, {"default": 1},
     [("output.schema", "/result/structuredContent/default")]),
    ("an enum value naming default", ANNOTATED, {"default": "d", "title": {}},
     [("output.schema", "/result/structuredContent/title")]),
    ("$ref: annotated, conforms", with_ref(ANNOTATED), {"a": 1, "default": "d", "title": {"default": 1}}, []),
    ("$ref: annotated, wrong type", with_ref(ANNOTATED), {"a": "s", "default": "d"},
     [("output.schema", "/result/structuredContent/a")]),
    ("$ref: an enum value naming default", with_ref(ANNOTATED), {"default": "d", "title": {}},
     [("output.schema", "/result/structuredContent/title")]),
    ("a $ref into a default, conforms", REF_INTO, {"a": "s"}, []),
    ("a $ref into a default, fails", REF_INTO, {"a": 1}, [("output.schema", "/result/structuredContent/a")]),
    ("a $ref into examples, fails", {"$defs": {"x": {"examples": [{"type": "string"}]}},
                                     "$ref": "#/%24defs/x/examples/0"}, 1,
     [("output.schema", "/result/structuredContent")]),
    ("a title of the wrong kind is still invalid", {"title": 5}, {},
     [("output.schema_invalid", "/outputSchema/title")]),
    ("examples not a list, still invalid", {"examples": 5}, {}, [("output.schema_invalid", "/outputSchema/examples")]),
    ("draft-07 readOnly not a boolean, still invalid", {"$schema": "http://json-schema.org/draft-07/schema#",
                                                        "readOnly": "yes"}, {},
     [("output.schema_invalid", "/outputSchema/readOnly")]),
]


@pytest.mark.parametrize(("schema", "structured", "expected"), [case[1:] for case in VERDICTS],
                         ids=[case[0] for case in VERDICTS])
def test_annotations_dropped_change_no_verdict(schema: Any, structured: Any, expected: list[tuple[str, str]]) -> None:
    check = check_output(complete(structured), tool(schema))
    assert [(f.code, f.path) for f in check.findings] == expected


# A fresh interpreter compiles a 9 MB outputSchema whose default holds 300,000 objects (and one
# whose enum holds 300,000 strings, refused), and reports the resident memory the compiled schema
# keeps and the peak, above a baseline taken with the schema already built. jsonschema-rs kept
# some 700 MB for the default; the check keeps the schema's canonical text (its cache key) and a
# validator without the annotation. The peak holds the private copy the compile proves the key
# with (Python's objects: ~10x the text), so its bound is looser.
MEMORY_SCRIPT = r"""
import gc, json, resource, sys
from mcp_verdict.judgement._schema import compile_schema
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()
kind = sys.argv[1]
n = 300_000
if kind == "default":
    schema = {"type": "object", "default": [{"key-%d" % (i % 7): i, "name": "value-%d" % i} for i in range(n)]}
else:
    schema = {"enum": ["value-%d" % i for i in range(n)]}
size = len(json.dumps(schema, separators=(",", ":")))
gc.collect()
before = resident()
peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
compiled = compile_schema(schema, "/outputSchema")
gc.collect()
kept = resident() - before
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - max(before, peak_before)
print(json.dumps({"size": size, "kept": kept, "peak": peak,
                  "problem": None if compiled.problem is None else compiled.problem.code}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
@pytest.mark.parametrize(("kind", "problem"), [("default", None), ("enum", "output.bounds")])
def test_a_large_schema_keeps_memory_near_its_size(kind: str, problem: str | None) -> None:
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, kind], capture_output=True, text=True, check=True,
                         timeout=300)
    measured = json.loads(out.stdout)
    assert measured["problem"] == problem
    if kind == "default":
        assert measured["size"] > 9_000_000
    assert measured["kept"] < 4 * measured["size"], measured
    assert measured["peak"] < 20 * measured["size"], measured
