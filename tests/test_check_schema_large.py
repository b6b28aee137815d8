"""A large schema is compiled without a copy of its annotations, and a cache hit without a copy at all.

``compile_schema`` writes the schema's key (its canonical JSON text) and must prove it faithful
(a NaN is written as ``null``, a tuple as an array...): it read the key back into a Python copy
and compared it with the schema, on every call, cache hits included, and a cache miss compiled
that copy, annotations and all (``default``, ``examples``, ``description``... which are dropped
before compiling). The copy is some 7 times the text of small objects: a schema of 18 MB with a
``default`` of 300,000 objects peaked at 173 MB RSS on a miss and 170 MB on each hit. Now a large
schema of plain JSON values (exact types, finite floats) is proven by a walk, without a copy,
and a miss copies it piece by piece, each piece checked against the key at its place, the
annotations' values checked and let go (``_copy_verified``).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from typing import Any

import orjson
import pytest

from mcp_verdict import check_output
from mcp_verdict.judgement._schema import _UNPARSED, DEFAULT_SCHEMA_LIMITS, _copy_verified, _plain

from ._schema_check import complete, tool

LARGE = [{"a": i} for i in range(100_000)]  # ~1.1 MB of text: past the 1 MiB that proves a key by a walk

# (schema, its copy as the compile reads it: each subschema's annotations of their kind dropped) — by hand
COPIES: list[tuple[str, Any, Any]] = [
    ("root annotations", {"title": "t", "description": "d", "$comment": "c", "default": [1], "examples": [2],
                          "type": "object"}, {"type": "object"}),
    ("2019-09 annotations", {"deprecated": True, "readOnly": False, "writeOnly": True, "minimum": 1}, {"minimum": 1}),
    ("annotations of another kind are kept for the meta-validation",
     {"title": 5, "examples": "x", "deprecated": "yes", "description": None}, {"title": 5, "examples": "x",
                                                                               "deprecated": "yes",
                                                                               "description": None}),
    ("properties named as annotations are subschemas",
     {"properties": {"default": {"type": "integer", "title": "t"}, "title": {"type": "string"}, "deprecated": False}},
     {"properties": {"default": {"type": "integer"}, "title": {"type": "string"}, "deprecated": False}}),
    ("annotation names in values are values",
     {"enum": [{"default": 1, "title": 2}], "const": {"examples": [1]}, "required": ["title"]},
     {"enum": [{"default": 1, "title": 2}], "const": {"examples": [1]}, "required": ["title"]}),
    ("every subschema keyword",
     {"not": {"title": "n"}, "if": {"title": "i"}, "then": {"title": "t"}, "else": {"title": "e"},
      "items": {"title": "i"}, "contains": {"title": "c"}, "additionalProperties": {"title": "a"},
      "unevaluatedItems": {"title": "u"}, "unevaluatedProperties": {"title": "u"}, "propertyNames": {"title": "p"},
      "allOf": [{"title": 1, "description": "a"}, True], "anyOf": [{"default": 0}], "oneOf": [False, {"title": "o"}],
      "prefixItems": [{"examples": []}], "patternProperties": {"^x": {"title": "x"}}, "$defs": {"d": {"title": "d"}},
      "dependentSchemas": {"a": {"title": "a"}}},
     {"not": {}, "if": {}, "then": {}, "else": {}, "items": {}, "contains": {}, "additionalProperties": {},
      "unevaluatedItems": {}, "unevaluatedProperties": {}, "propertyNames": {}, "allOf": [{"title": 1}, True],
      "anyOf": [{}], "oneOf": [False, {}], "prefixItems": [{}], "patternProperties": {"^x": {}}, "$defs": {"d": {}},
      "dependentSchemas": {"a": {}}}),
    ("draft-07 tuple items, additionalItems, definitions, dependencies",
     {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"title": "0"}, {"type": "string"}],
      "additionalItems": {"description": "a"}, "definitions": {"d": {"default": 1}},
      "dependencies": {"a": ["b", "title"], "c": {"title": "c", "required": ["d"]}}},
     {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{}, {"type": "string"}], "additionalItems": {},
      "definitions": {"d": {}}, "dependencies": {"a": ["b", "title"], "c": {"required": ["d"]}}}),
    ("a subschema keyword holding a value", {"not": 5, "allOf": {"title": "x"}, "properties": [1]},
     {"not": 5, "allOf": {"title": "x"}, "properties": [1]}),
    ("names and strings to escape", {"properties": {"a\"b\\c\n": {"title": "é\u2028"}, "é": {"const": "\u0000"}}},
     {"properties": {"a\"b\\c\n": {}, "é": {"const": "\u0000"}}}),
    ("numbers", {"minimum": 1.0, "maximum": 1e30, "multipleOf": 0.1, "const": 2**63, "default": -0.0},
     {"minimum": 1.0, "maximum": 1e30, "multipleOf": 0.1, "const": 2**63}),
    ("a boolean schema", True, True),
]


@pytest.mark.parametrize(("case", "schema", "expected"), COPIES, ids=[c[0] for c in COPIES])
def test_the_copy_drops_each_subschemas_annotations(case: str, schema: Any, expected: Any) -> None:
    key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    copy = _copy_verified(key, schema, DEFAULT_SCHEMA_LIMITS)
    assert copy == expected
    assert json.dumps(copy, sort_keys=True) == json.dumps(expected, sort_keys=True)  # (1.0 stays a float)
    if isinstance(copy, dict):
        assert list(copy) == sorted(copy)  # in the key's order, as json.loads(key) reads it


# (the schema the key was written from, the schema given now, what the copy is) — by hand
CHANGED: list[tuple[str, Any, Any, Any]] = [
    ("a value changed", {"enum": [1, 2]}, {"enum": [1, 3]}, _UNPARSED),
    ("an annotation changed", {"title": "a", "type": "string"}, {"title": "b", "type": "string"}, _UNPARSED),
    ("a member added", {"type": "string"}, {"type": "string", "minLength": 1}, _UNPARSED),
    ("a member removed", {"type": "string", "minLength": 1}, {"type": "string"}, _UNPARSED),
    ("a subschema became a value", {"not": {"type": "string"}}, {"not": [{"type": "string"}]}, _UNPARSED),
    ("a NaN, written as the key's null: the key's content", {"const": None}, {"const": math.nan}, {"const": None}),
]


@pytest.mark.parametrize(("case", "written", "given", "expected"), CHANGED, ids=[c[0] for c in CHANGED])
def test_a_schema_that_is_not_the_keys_is_parsed_from_the_key(case: str, written: Any, given: Any,
                                                              expected: Any) -> None:
    """The copy is the key's content whatever the schema given holds now (a caller's schema
    changed since the key was written): a piece that does not match the key at its place means
    the key is parsed whole (``_UNPARSED``), as before."""
    key = orjson.dumps(written, option=orjson.OPT_SORT_KEYS)
    assert _copy_verified(key, given, DEFAULT_SCHEMA_LIMITS) == expected


@pytest.mark.parametrize(("value", "plain"), [
    ({"a": [1, 2.5, "x", True, None, {"b": []}]}, True),
    ({"a": [math.nan]}, False),
    ({"a": math.inf}, False),
    ({"a": (1, 2)}, False),
    ({"a": [1, 2]} | {"b": type("S", (str,), {})("x")}, False),
    (True, True),
])
def test_only_plain_json_is_proven_without_a_copy(value: Any, plain: bool) -> None:
    assert _plain(value) is plain


PATH = "/result/structuredContent"
# (instance, expected (code, path) findings) for LARGE_SCHEMA — by hand
LARGE_SCHEMA: dict[str, Any] = {
    "type": "object", "description": "a schema past 1 MiB by its default", "default": LARGE,
    "required": ["title"],
    "properties": {
        "default": {"type": "integer", "title": "a property named default"},
        "title": {"type": "string", "description": "a property named title"},
        "deprecated": False,
        "e": {"enum": [{"default": 1, "title": 2}]},
        "c": {"const": {"examples": [1]}},
        "n": {"not": {"description": "d", "type": "null"}},
        "t": {"prefixItems": [{"type": "integer", "readOnly": True}], "items": False},
    },
    "dependentSchemas": {"title": {"required": ["default"], "title": "title needs default"}},
}
LARGE_CASES: list[tuple[Any, list[tuple[str, str]]]] = [
    ({"title": "x", "default": 1}, []),
    ({"title": "x", "default": "s"}, [("output.schema", PATH + "/default")]),
    ({"title": 1, "default": 1}, [("output.schema", PATH + "/title")]),
    ({"title": "x", "default": 1, "deprecated": 1}, [("output.schema", PATH + "/deprecated")]),
    ({"title": "x"}, [("output.schema", PATH)]),
    ({"default": 1}, [("output.schema", PATH)]),
    ({"title": "x", "default": 1, "e": {"title": 2, "default": 1}}, []),
    ({"title": "x", "default": 1, "e": {"default": 1}}, [("output.schema", PATH + "/e")]),
    ({"title": "x", "default": 1, "c": {"examples": [1]}}, []),
    ({"title": "x", "default": 1, "c": {"examples": [2]}}, [("output.schema", PATH + "/c")]),
    ({"title": "x", "default": 1, "n": None}, [("output.schema", PATH + "/n")]),
    ({"title": "x", "default": 1, "t": [1]}, []),
    ({"title": "x", "default": 1, "t": [1, 2]}, [("output.schema", PATH + "/t/1")]),
]


@pytest.mark.parametrize(("instance", "expected"), LARGE_CASES, ids=[repr(c[0])[:50] for c in LARGE_CASES])
def test_a_large_schema_is_held_to_as_written(instance: Any, expected: list[tuple[str, str]]) -> None:
    assert len(orjson.dumps(LARGE_SCHEMA)) > 1 << 20
    check = check_output(complete(instance), tool(LARGE_SCHEMA))
    assert [(f.code, f.path) for f in check.findings] == expected


@pytest.mark.parametrize(("annotation", "path"), [
    ({"title": 5}, "/outputSchema/title"),
    ({"examples": "x"}, "/outputSchema/examples"),
    ({"deprecated": "yes"}, "/outputSchema/deprecated"),
    ({"properties": {"a": {"description": ["x"]}}}, "/outputSchema/properties/a/description"),
])
def test_a_large_schemas_annotation_of_another_kind_is_invalid(annotation: dict[str, Any], path: str) -> None:
    schema = {"type": "object", "default": LARGE, **annotation}
    check = check_output(complete({}), tool(schema))
    assert [(f.code, f.path) for f in check.findings] == [("output.schema_invalid", path)]


PROBE = r"""
import json, sys
import orjson
from mcp_verdict.judgement._schema import compile_schema

def rss(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith(field))

schema = {"title": "t", "type": "object", "default": [{"a": i, "b": [i, i + 1]} for i in range(300_000)]}
text = len(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS))
out = {"text": text}
for call in ("miss", "hit"):
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak RSS is the RSS now
    before = rss("VmRSS")
    compiled = compile_schema(schema, "/outputSchema")
    assert compiled.problem is None
    out[call] = rss("VmHWM") - before
print(json.dumps(out))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="peak RSS is read from Linux's /proc")
def test_compiling_a_large_schema_copies_no_annotation_and_a_hit_nothing() -> None:
    """Peak RSS (not tracemalloc: it counts orjson's output buffer at its allocated size, some
    4-40 times the text, pages never touched): a ``default`` of 300,000 objects, 9.6 MB of
    text, peaked at 137 MB on a miss and 136 MB on a hit, read back on every call. Now a miss
    holds the key and the default's text once more (checked against the key, 19 MB), a hit
    the key and the walk's stack (12 MB)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300,
                         check=False)
    if run.returncode != 0 and "clear_refs" in run.stderr:
        pytest.skip("/proc/self/clear_refs is not writable here")
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    text = found["text"]
    assert found["miss"] < 3 * text, found  # was ~14x the text
    assert found["hit"] < 2 * text, found  # was ~14x the text
