"""The verdict does not depend on which engine validated: jsonschema-rs and the guarded engine agree.

A schema without ``$ref`` is validated on jsonschema-rs, unless the answer is too large for it
within the time budget (``costly``): then on the deadline-guarded ``jsonschema`` engine. The two
disagreed on ``format`` in drafts 04-07 (jsonschema-rs asserted it, the guarded engine never
did) and on ``multipleOf`` with decimals (the ``jsonschema`` package divides floats: 0.3 was no
multiple of 0.1 there; jsonschema-rs read a float past 2^53 as its binary value: 1e23 was no
multiple of 5), so a heavy schema's answer could pass or fail by its size alone.

Also jsonschema-rs asserted ``contentEncoding`` and ``contentMediaType`` in draft 06, which has
no such keywords, and ``dependencies`` in 2019-09 and 2020-12, which have none either; the
guarded engine did not.

Rules, as the README's content check states them:

- ``format`` is asserted in drafts 04, 06 and 07 (an implementation MAY assert it:
  https://json-schema.org/draft-04/draft-fge-json-schema-validation-00#section-7.2,
  https://json-schema.org/draft-07/json-schema-validation#section-7.2), as jsonschema-rs's
  checker of that draft reads it (it checks ``date``, ``time``, ``idn-email`` and ``regex`` from
  draft 04 on, the formats draft 06 and 07 add from those drafts, and never ``duration`` nor
  ``uuid``, which 2019-09 added); in 2019-09 and 2020-12 it is an annotation
  (https://json-schema.org/draft/2020-12/json-schema-validation#section-7.2.1: the
  format-assertion vocabulary is off in every dialect the check supports);
- ``multipleOf`` divides the decimal numbers the JSON text writes, exactly
  (https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.1: "number: An
  arbitrary-precision, base-10 decimal number value"; multipleOf,
  https://json-schema.org/draft/2020-12/json-schema-validation#section-6.2.1), in every draft;
- ``contentEncoding`` and ``contentMediaType`` are asserted in draft 07 (as jsonschema-rs does),
  an annotation in 2019-09 and 2020-12, no keywords in 04 and 06; ``dependencies`` is a keyword
  of drafts 04-07 only.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import SchemaLimits, check_output, classify
from mcp_verdict.judgement._schema import compile_schema, for_instance, validate
from mcp_verdict.judgement._schema_cost import costly

DRAFTS = {
    "04": "http://json-schema.org/draft-04/schema#",
    "06": "http://json-schema.org/draft-06/schema#",
    "07": "http://json-schema.org/draft-07/schema#",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}
OLD = frozenset({"04", "06", "07"})  # every draft that asserts format
FROM_06 = frozenset({"06", "07"})
ONLY_07 = frozenset({"07"})
NONE: frozenset[str] = frozenset()

# (format, instance, the drafts in which it fails, the rule that says the instance is not one)
FORMATS: list[tuple[str, str, frozenset[str], str]] = [
    ("date-time", "2024-02-29T12:00:00Z", NONE, "RFC 3339 §5.6 (2024 is a leap year)"),
    ("date-time", "2024-02-30T12:00:00Z", OLD, "RFC 3339 §5.7: no 30 February"),
    ("date-time", "2024-01-01T25:00:00Z", OLD, "RFC 3339 §5.6: time-hour is 00-23"),
    ("date-time", "2024-01-01T12:00:00", OLD, "RFC 3339 §5.6: a date-time has a time-offset"),
    ("date", "2024-02-29", NONE, "RFC 3339 full-date"),
    ("date", "2023-02-29", OLD, "RFC 3339 §5.7: 2023 is no leap year"),
    ("time", "12:00:00+01:00", NONE, "RFC 3339 full-time"),
    ("time", "25:00:00Z", OLD, "RFC 3339 §5.6: time-hour is 00-23"),
    ("duration", "P1D", NONE, "RFC 3339 Appendix A"),
    ("duration", "1D", NONE, "a 2019-09 format: not checked in 04-07, an annotation after"),
    ("email", "a@example.com", NONE, "RFC 5321 §4.1.2 Mailbox"),
    ("email", "not-an-email", OLD, "RFC 5321 §4.1.2: a Mailbox has an @"),
    ("idn-email", "ü@example.com", NONE, "RFC 6531"),
    ("idn-email", "nope", OLD, "RFC 6531: a Mailbox has an @"),
    ("hostname", "example.com", NONE, "RFC 1123 §2.1"),
    ("hostname", "-bad-.com", OLD, "RFC 1123 §2.1 / RFC 952: a label does not begin with a hyphen"),
    ("hostname", "a" * 64 + ".com", OLD, "RFC 1034 §3.1: a label is 63 octets at most"),
    ("idn-hostname", "bücher.example", NONE, "RFC 5890 §2.3.2.3"),
    ("idn-hostname", "-bad-", ONLY_07, "RFC 5891 §4.2.3.1: no leading or trailing hyphen (a draft-07 format)"),
    ("ipv4", "192.168.0.1", NONE, "RFC 2673 §3.2 dotted-quad"),
    ("ipv4", "256.0.0.1", OLD, "RFC 2673 §3.2: each part 0-255"),
    ("ipv6", "::1", NONE, "RFC 4291 §2.2"),
    ("ipv6", "12345::", OLD, "RFC 4291 §2.2: a piece is 1-4 hex digits"),
    ("uri", "https://example.com/a", NONE, "RFC 3986 §3"),
    ("uri", "/relative", OLD, "RFC 3986 §3: a URI has a scheme (a relative reference is no URI)"),
    ("uri-reference", "/relative", NONE, "RFC 3986 §4.1"),
    ("uri-reference", "http://x/ y", FROM_06, "RFC 3986 §2: no space (a draft-06 format)"),
    ("iri", "https://ü.example/", NONE, "RFC 3987 §2.2"),
    ("iri", "/rel", ONLY_07, "RFC 3987 §2.2: an IRI has a scheme (a draft-07 format)"),
    ("uuid", "123e4567-e89b-12d3-a456-426614174000", NONE, "RFC 4122 §3"),
    ("uuid", "xyz", NONE, "a 2019-09 format: not checked in 04-07, an annotation after"),
    ("regex", "^a+$", NONE, "ECMA-262"),
    ("regex", "(unclosed", OLD, "ECMA-262: an unclosed group"),
    ("json-pointer", "/a/b", NONE, "RFC 6901 §3"),
    ("json-pointer", "a/b", FROM_06, "RFC 6901 §3: a pointer is empty or begins with / (a draft-06 format)"),
    ("relative-json-pointer", "0/a", NONE, "draft-handrews-relative-json-pointer-01 §3"),
    ("relative-json-pointer", "/a", ONLY_07, "it begins with a non-negative integer (a draft-07 format)"),
    ("uri-template", "http://x/{id}", NONE, "RFC 6570 §2"),
    ("uri-template", "http://x/{id", FROM_06, "RFC 6570 §2: an expression is closed by } (a draft-06 format)"),
    ("made-up", "anything", NONE, "a format no draft defines passes"),
]

# (multipleOf, instance, whether the instance is a multiple of it, read as decimals)
MULTIPLES: list[tuple[Any, Any, bool]] = [
    (0.1, 0.3, True),
    (0.1, 0.7, True),
    (0.1, 1.1, True),
    (0.1, 0.35, False),
    (0.1, 0.30000000000000004, False),
    (0.1, 1e-8, False),
    (0.1, 1e308, True),  # 10^308 = 10^309 × 0.1
    (0.1, 10**30 + 1, True),  # any integer
    (0.1, 2**70, True),
    (0.01, 19.99, True),
    (0.01, 0.07, True),
    (0.01, 1.21, True),
    (0.01, 0.001, False),
    (0.01, 100.005, False),
    (1e-8, 3e-8, True),
    (1e-8, 1.5e-8, False),
    (1e-8, 0.12345678, True),
    (1e-8, 0.123456789, False),
    (1e-8, 1e308, True),
    (1.1, 1.21, False),  # 1.21 = 1.1 × 1.1
    (1.1, 2.2, True),
    (1.1, 3.3, True),
    (1.1, 11, True),
    (1.1, 1e308, False),  # 10^308 / 1.1 = 10^309 / 11
    (1.1, 10**30, False),
    (0.5, 1.5, True),
    (0.5, 1.25, False),
    (5, 1e23, True),  # the text 1e23 is 10^23 (the nearest float is 99999999999999991611392)
    (5, 1e308, True),
    (3, 1e308, False),
    (3, 2**70, False),  # 2^70 ≡ 1 (mod 3)
    (3, 9.0, True),
    (2, 5, False),
    (2, 10**30 + 1, False),
    (2.5, 1e23, True),
    (1e22, 1e23, True),
    (10**20, 1e308, True),
    (1e23, 10**30, True),
]


def engines(schema: Any, instance: Any) -> list[tuple[str, list[Any]]]:
    """The findings of each engine for ``instance`` (``fits``: True, jsonschema-rs; False, the
    guarded engine, as for an answer too large for jsonschema-rs)."""
    compiled = compile_schema(schema, "/s")
    assert compiled.problem is None
    assert compiled.engine == "jsonschema-rs"
    return [(engine, [(f.code, f.path) for f in validate(compiled, instance, "/i", fits=fits)])
            for engine, fits in (("jsonschema-rs", True), ("guarded", False))]


FORMAT_CASES = [(draft, form, instance, draft in failing, rule)
                for draft in DRAFTS for form, instance, failing, rule in FORMATS]


@pytest.mark.parametrize(("draft", "form", "instance", "fails", "rule"), FORMAT_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2][:24]}" for c in FORMAT_CASES])
def test_format_is_decided_alike_on_both_engines(draft: str, form: str, instance: str, fails: bool,
                                                  rule: str) -> None:
    expected = [("output.schema", "/i/v")] if fails else []
    schema = {"$schema": DRAFTS[draft], "type": "object", "properties": {"v": {"format": form}}}
    for engine, found in engines(schema, {"v": instance}):
        assert found == expected, (engine, rule)


MULTIPLE_CASES = [(draft, divisor, instance, multiple) for draft in DRAFTS for divisor, instance, multiple in MULTIPLES]


@pytest.mark.parametrize(("draft", "divisor", "instance", "multiple"), MULTIPLE_CASES,
                         ids=[f"{c[0]}-{c[2]!r:.24}-of-{c[1]!r}" for c in MULTIPLE_CASES])
def test_multiple_of_is_exact_decimal_on_both_engines(draft: str, divisor: Any, instance: Any, multiple: bool) -> None:
    expected = [] if multiple else [("output.schema", "/i/v")]
    schema = {"$schema": DRAFTS[draft], "type": "object", "properties": {"v": {"multipleOf": divisor}}}
    for engine, found in engines(schema, {"v": instance}):
        assert found == expected, engine


NEW_DRAFTS = frozenset({"2019-09", "2020-12"})
# (keyword schema, instance, the drafts in which it fails, the rule)
KEYWORDS: list[tuple[dict[str, Any], Any, frozenset[str], str]] = [
    ({"contentEncoding": "base64"}, "@@@", ONLY_07,
     "draft-07 validation §8 leaves asserting it to the implementation (jsonschema-rs does); an annotation in "
     "2019-09 and 2020-12 (2020-12 validation §8.1); no keyword of drafts 04 and 06"),
    ({"contentEncoding": "base64"}, "e30=", NONE, "RFC 4648 §4 base64"),
    ({"contentMediaType": "application/json"}, "{bad", ONLY_07, "as contentEncoding: asserted in draft 07 alone"),
    ({"contentMediaType": "application/json"}, "{}", NONE, "RFC 8259"),
    ({"contentMediaType": "application/json", "contentEncoding": "base64"}, "e30=", NONE, "base64 of {}"),
    ({"contentMediaType": "application/json", "contentEncoding": "base64"}, "{}", ONLY_07,
     "the media type describes the decoded string, and {} is no base64 (one finding)"),
    ({"dependencies": {"a": ["b"]}}, {"a": 1}, OLD,
     "draft-07 validation §6.5.7; 2019-09 split it into dependentRequired and dependentSchemas, so it is no "
     "keyword there (an unknown keyword asserts nothing: 2020-12 core §6.5)"),
    ({"dependentRequired": {"a": ["b"]}}, {"a": 1}, NEW_DRAFTS, "2020-12 validation §6.5.4; no keyword before 2019-09"),
]
KEYWORD_CASES = [(draft, schema, instance, draft in failing, rule)
                 for draft in DRAFTS for schema, instance, failing, rule in KEYWORDS]


@pytest.mark.parametrize(("draft", "subschema", "instance", "fails", "rule"), KEYWORD_CASES,
                         ids=[f"{c[0]}-{'+'.join(c[1])}-{c[2]!r:.16}" for c in KEYWORD_CASES])
def test_keywords_of_some_drafts_are_decided_alike_on_both_engines(draft: str, subschema: dict[str, Any],
                                                                   instance: Any, fails: bool, rule: str) -> None:
    expected = [("output.schema", "/i/v")] if fails else []
    schema = {"$schema": DRAFTS[draft], "type": "object", "properties": {"v": subschema}}
    for engine, found in engines(schema, {"v": instance}):
        assert found == expected, (engine, rule)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_non_finite_float_is_no_multiple_on_either_engine(value: float) -> None:
    """A caller's parsed value may hold what no JSON text does (classify finds it first): it
    is a finding on both engines, never a ValueError (the guarded engine raised for a NaN)."""
    for engine, found in engines({"properties": {"v": {"multipleOf": 0.1}}}, {"v": value}):
        assert found == [("output.schema", "/i/v")], engine


@pytest.mark.parametrize(("divisor", "value", "multiple"), [(3, 10**5000 + 1, False), (5, 10**5000, True),
                                                          (0.1, 10**5000 + 1, True)],
                         ids=["10^5000+1 of 3", "10^5000 of 5", "10^5000+1 of 0.1"])
def test_an_integer_past_pythons_digit_limit_is_decided_on_both_engines(divisor: Any, value: int,
                                                                         multiple: bool) -> None:
    """An integer of 5,000 digits (a caller's parsed value: classify takes it) is past what
    Python writes with ``str`` (4,300 digits): the old guarded engine raised ``ValueError``
    writing its message, and jsonschema-rs read it as null (no number: never a violation)."""
    expected = [] if multiple else [("output.schema", "/i/v")]
    for engine, found in engines({"properties": {"v": {"multipleOf": divisor}}}, {"v": value}):
        assert found == expected, engine


PAD = [10**3000 + i for i in range(200)]
"""An extra array of large integers: cheap to validate (the guarded engine's ``type: integer``
on them takes about a millisecond), but weighed as many values by the estimate (an integer past
64 bits is read at each comparison, in time that grows with the square of its digits: some
3 × 10^9 units for these 200), so it moves the answer to the guarded engine under ``GUARDED``
without a large answer. (3,000 digits: below Python's digit limit for ``str``, 4,300, past which
jsonschema-rs reads an integer as null.)"""
GUARDED = SchemaLimits(time_budget=1.0)
"""A budget the estimate for an answer with ``PAD`` passes (the guarded engine), and far above
what validating it takes on the guarded engine, even on a loaded machine: the verdict never
depends on the machine's speed (a budget of 0.05 s was missed by a descheduled test:
``output.budget``)."""
ROOMY = SchemaLimits(time_budget=60.0)
"""A budget the estimate for an answer with ``PAD`` stays within: jsonschema-rs (never timed)."""


def engine_of(schema: Any, instance: Any, limits: SchemaLimits) -> str:
    """The engine ``check_output`` validates ``instance`` on under ``limits``, as ``validate``
    picks it: the guarded engine for a schema with ``$ref``, or for an instance whose estimate
    (``costly``) passes the budget."""
    compiled = for_instance(compile_schema(schema, "/outputSchema", limits), instance)
    assert compiled.problem is None
    if compiled.engine != "jsonschema-rs":
        return "guarded"
    return "guarded" if costly(compiled, instance, limits) else "jsonschema-rs"

# (case, the schema of "value", value, expected findings (code, path))
SIZED: list[tuple[str, dict[str, Any], Any, list[tuple[str, str]]]] = [
    ("draft-07 email, invalid", {"$schema": DRAFTS["07"], "format": "email"}, "nope",
     [("output.schema", "/result/structuredContent/value")]),
    ("draft-07 email, valid", {"$schema": DRAFTS["07"], "format": "email"}, "a@example.com", []),
    ("draft-04 date-time, invalid", {"$schema": DRAFTS["04"], "format": "date-time"}, "2024-02-30T12:00:00Z",
     [("output.schema", "/result/structuredContent/value")]),
    ("2020-12 date-time, an annotation", {"format": "date-time"}, "2024-02-30T12:00:00Z", []),
    ("0.3 a multiple of 0.1", {"multipleOf": 0.1}, 0.3, []),
    ("19.99 a multiple of 0.01", {"multipleOf": 0.01}, 19.99, []),
    ("1e23 a multiple of 5", {"multipleOf": 5}, 1e23, []),
    ("10^30 no multiple of 1.1", {"multipleOf": 1.1}, 10**30,
     [("output.schema", "/result/structuredContent/value")]),
    ("draft-07 contentMediaType, invalid", {"$schema": DRAFTS["07"], "contentMediaType": "application/json"}, "{bad",
     [("output.schema", "/result/structuredContent/value")]),
    ("2020-12 dependencies, no keyword", {"dependencies": {"a": ["b"]}}, {"a": 1}, []),
]


def answer(structured: Any) -> Any:
    return classify({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                            "structuredContent": structured}})


@pytest.mark.parametrize(("case", "subschema", "value", "expected"), SIZED, ids=[c[0] for c in SIZED])
def test_the_verdict_does_not_depend_on_the_answers_size(case: str, subschema: dict[str, Any], value: Any,
                                                         expected: list[tuple[str, str]]) -> None:
    dialect = subschema.get("$schema")
    inner = {k: v for k, v in subschema.items() if k != "$schema"}
    schema: dict[str, Any] = {"type": "object", "required": ["value"],
                              "properties": {"value": inner, "pad": {"type": "array", "items": {"type": "integer"}}}}
    if dialect is not None:
        schema = {"$schema": dialect, **schema}
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}
    small, large = {"value": value}, {"value": value, "pad": PAD}
    assert compile_schema(schema, "/outputSchema", GUARDED).engine == "jsonschema-rs"
    routes = ((small, GUARDED, "jsonschema-rs"), (large, GUARDED, "guarded"), (large, ROOMY, "jsonschema-rs"))
    assert [engine_of(schema, structured, limits) for structured, limits, _ in routes] == [e for _, _, e in routes]
    for structured, limits, _ in routes:
        check = check_output(answer(structured), tool, schema_limits=limits)
        assert [(f.code, f.path) for f in check.findings] == expected, (len(structured), limits)
        assert check.passed is (expected == [])


def test_compiling_reads_the_schema_once() -> None:
    """``compile_schema`` proves the schema's key faithful by reading it back, and compiles that
    copy: it held the key and, at its peak, twice a parsed copy (orjson's reader holds its own
    document beside the values it makes), then parsed the key again to compile. Now the key and
    one copy (a key past 1 MiB is read back by the standard library's reader, which makes the
    values alone; a smaller one by orjson's, faster). Measured with tracemalloc: allocations,
    not time."""
    import json
    import tracemalloc

    import orjson

    schema = {"title": "compile once", "type": "object",
              "default": [{"a": i, "b": [i, i + 1]} for i in range(60_000)]}  # a key past 1 MiB
    tracemalloc.start()
    try:
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
        key_size = tracemalloc.get_traced_memory()[0]
        copy = json.loads(key)
        copy_size = tracemalloc.get_traced_memory()[0] - key_size
        del key, copy
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        compiled = compile_schema(schema, "/outputSchema")
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert compiled.problem is None
    assert peak < key_size + 1.5 * copy_size, (peak, key_size, copy_size)


# (root dialect, the dialect a subschema names, whether "nope" fails its "format": "email")
NESTED: list[tuple[str, str, bool]] = [
    ("2020-12", "07", True),
    ("2020-12", "2020-12", False),
    ("07", "07", True),
    ("07", "2020-12", False),
    ("2019-09", "04", True),
]


@pytest.mark.parametrize(("root", "inner", "fails"), NESTED, ids=[f"{r} holding {i}" for r, i, _ in NESTED])
def test_a_subschema_naming_its_dialect_is_held_to_it(root: str, inner: str, fails: bool) -> None:
    """An embedded resource's ``$schema`` is its dialect
    (https://json-schema.org/draft/2020-12/json-schema-core#section-8.1.1): jsonschema-rs read
    every subschema in the root's (it asserted a draft-07 resource's format under a 2020-12 root
    never, a 2020-12 resource's under a draft-07 root always), the guarded engine each in its
    own. Such a schema runs on the guarded engine, whatever the answer's size (the old code
    validated a small answer on jsonschema-rs, which follows an embedded resource's dialect, and
    a large one on the guarded engine, which asserted no format)."""
    schema: dict[str, Any] = {"type": "object", "properties": {
        "v": {"$id": "https://example.invalid/v", "$schema": DRAFTS[inner], "format": "email"},
        "pad": {"type": "array", "items": {"type": "integer"}}}}
    if root != "2020-12":
        schema = {"$schema": DRAFTS[root], **schema}
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}
    expected = [("output.schema", "/result/structuredContent/v")] if fails else []
    for structured in ({"v": "nope"}, {"v": "nope", "pad": PAD}):
        assert engine_of(schema, structured, GUARDED) == "guarded"
        check = check_output(answer(structured), tool, schema_limits=GUARDED)
        assert [(f.code, f.path) for f in check.findings] == expected, len(structured)


# Bounds, enum and const on exact decimals
# (https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.1: a number is an
# arbitrary-precision decimal; §4.2.2: two numbers are equal when their mathematical values are;
# maximum & co: https://json-schema.org/draft/2020-12/json-schema-validation#section-6.2). A float
# is the decimal its shortest text writes (1e30 is 10^30, as for multipleOf); Python, and both
# engines, compared an int with a float by the float's binary value (the float read from 1e30 is
# 10^30 + 19884624838656), so {"maximum": 1e30} passed 10^30 + 1 and {"maximum": 10**30} failed 1e30.
# Only an int and a float both past 2^53 compare otherwise than Python does.
# (keyword schema as 2020-12 writes it, instance, whether it passes, why) — by hand
E30 = 10**30
BOUNDS: list[tuple[dict[str, Any], Any, bool, str]] = [
    ({"maximum": 1e30}, E30 + 1, False, "10^30 + 1 > 10^30"),
    ({"maximum": 1e30}, E30, True, "equal"),
    ({"maximum": 1e30}, E30 - 1, True, "below"),
    ({"maximum": E30}, 1e30, True, "equal"),
    ({"maximum": E30 - 1}, 1e30, False, "10^30 > 10^30 - 1"),
    ({"minimum": E30 + 1}, 1e30, False, "10^30 < 10^30 + 1"),
    ({"minimum": E30}, 1e30, True, "equal"),
    ({"minimum": 1e30}, E30 - 1, False, "below"),
    ({"minimum": 9007199254740993}, 9007199254740992.0, False, "2^53 < 2^53 + 1"),
    ({"maximum": 9007199254740992.0}, 9007199254740993, False, "2^53 + 1 > 2^53"),
    ({"minimum": 9007199254740992.0}, 9007199254740993, True, "2^53 + 1 > 2^53"),
    ({"maximum": 1e23}, 10**23, True, "the text 1e23 is 10^23 (its float is 99999999999999991611392)"),
    ({"maximum": 99999999999999991611392}, 1e23, False, "10^23 > 99999999999999991611392"),
    ({"maximum": 2**64 + 1}, 1.8446744073709552e19, False, "18446744073709552000 > 2^64 + 1"),
    ({"minimum": 2**64}, 1.8446744073709552e19, True, "18446744073709552000 > 2^64"),
    ({"maximum": 1e300}, 10**300 + 1, False, "above"),
    ({"maximum": -1e30}, -E30 - 1, True, "negative: below"),
    ({"minimum": -1e30}, -E30 - 1, False, "negative: below"),
    ({"exclusiveMaximum": 1e30}, E30, False, "equal"),
    ({"exclusiveMaximum": 1e30}, E30 - 1, True, "below"),
    ({"exclusiveMaximum": E30}, 1e30, False, "equal"),
    ({"exclusiveMaximum": 9007199254740993}, 9007199254740992.0, True, "below"),
    ({"exclusiveMinimum": 1e30}, E30, False, "equal"),
    ({"exclusiveMinimum": 1e30}, E30 + 1, True, "above"),
    ({"exclusiveMinimum": E30}, 1e30, False, "equal"),
    ({"maximum": 1e30, "minimum": 0}, 5, True, "a small instance against a large bound"),
    ({"maximum": 0.1}, 0.1, True, "equal floats"),
    ({"enum": [1.0]}, 1, True, "1.0 and 1 are the same number"),
    ({"enum": [1]}, 1.0, True, "1.0 and 1 are the same number"),
    ({"enum": [True]}, 1, False, "a boolean is no number"),
    ({"enum": [1, "x"]}, True, False, "a boolean is no number"),
    ({"enum": [1e30, 0]}, False, False, "a boolean is no number"),
    ({"enum": ["1", [1]]}, 1, False, "a number is no string nor array"),
    ({"const": 0}, False, False, "a boolean is no number"),
    ({"enum": [1e30]}, E30, True, "equal"),
    ({"enum": ["x", E30]}, 1e30, True, "equal"),
    ({"enum": [1e30]}, E30 + 1, False, "not equal"),
    ({"enum": [1e23]}, 99999999999999991611392, False, "10^23 is not 99999999999999991611392"),
    ({"enum": [[1e30], {"a": 1e30}]}, {"a": E30}, True, "equal in an object"),
    ({"enum": [[1e30], {"a": 1e30}]}, [E30 + 1], False, "not equal in an array"),
    ({"enum": [9007199254740993]}, 9007199254740992.0, False, "2^53 is not 2^53 + 1"),
    ({"const": 1.0}, 1, True, "the same number"),
    ({"const": 1e30}, E30, True, "equal"),
    ({"const": E30}, 1e30, True, "equal"),
    ({"const": 1e23}, 10**23, True, "equal"),
    ({"const": 1e23}, 99999999999999991611392, False, "not equal"),
    ({"const": [1e30]}, [E30], True, "equal in an array"),
    ({"const": {"a": 1e30}}, {"a": E30 + 1}, False, "not equal in an object"),
    ({"const": 9007199254740992.0}, 9007199254740993, False, "2^53 is not 2^53 + 1"),
]


def in_draft(draft: str, subschema: dict[str, Any], passes: bool) -> tuple[dict[str, Any], bool]:
    """``subschema`` as ``draft`` writes it: draft 04's exclusive bounds are booleans beside
    ``maximum``/``minimum`` (its validation §5.1.2, §5.1.3), and it has no ``const`` (an
    unknown keyword asserts nothing)."""
    if draft != "04":
        return subschema, passes
    if "const" in subschema:
        return subschema, True
    out: dict[str, Any] = {}
    for keyword, value in subschema.items():
        if keyword.startswith("exclusiveM"):
            plain = "maximum" if keyword == "exclusiveMaximum" else "minimum"
            out.update({plain: value, keyword: True})
        else:
            out[keyword] = value
    return out, passes


BOUND_CASES = [(draft, *in_draft(draft, subschema, passes), instance, why)
               for draft in DRAFTS for subschema, instance, passes, why in BOUNDS]


@pytest.mark.parametrize(("draft", "subschema", "passes", "instance", "why"), BOUND_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[3]!r:.20}" for c in BOUND_CASES])
def test_bounds_enum_and_const_compare_exact_decimals_on_both_engines(draft: str, subschema: dict[str, Any],
                                                                      passes: bool, instance: Any, why: str) -> None:
    expected = [] if passes else [("output.schema", "/i/v")]
    schema = {"$schema": DRAFTS[draft], "type": "object", "properties": {"v": subschema}}
    for engine, found in engines(schema, {"v": instance}):
        assert found == expected, (engine, why)


# (schema, instance, the message on both engines) — by hand
BOUND_MESSAGES: list[tuple[dict[str, Any], Any, str]] = [
    ({"maximum": 1e30}, E30 + 1, "1000000000000000000000000000001 is greater than the maximum of 1e+30"),
    ({"exclusiveMinimum": E30}, 1e30,
     "1e+30 is less than or equal to the minimum of 1000000000000000000000000000000"),
    ({"$schema": DRAFTS["04"], "maximum": 1e30, "exclusiveMaximum": True}, E30,
     "1000000000000000000000000000000 is greater than or equal to the maximum of 1e+30"),
    ({"enum": [1e30, "x"]}, E30 + 1, "1000000000000000000000000000001 is not one of [1e+30, 'x']"),
    ({"const": 1e30}, 5, "1e+30 was expected"),
    # an enum without such a number, in a schema where another has one (jsonschema-rs asks its own)
    ({"properties": {"a": {"enum": [1e30]}, "b": {"enum": ["x", "y"]}}}, {"b": "z"}, "'z' is not one of ['x', 'y']"),
]


@pytest.mark.parametrize(("schema", "instance", "message"), BOUND_MESSAGES, ids=[m[:40] for _, _, m in BOUND_MESSAGES])
def test_an_exact_comparison_says_the_same_on_both_engines(schema: dict[str, Any], instance: Any, message: str) -> None:
    compiled = compile_schema(schema, "/s")
    for fits in (True, False):
        assert [f.message for f in validate(compiled, instance, "/i", fits=fits)] == [message], fits


@pytest.mark.parametrize(("schema", "big"), [
    ({"properties": {"a": {"maximum": 100, "minimum": -9007199254740992}, "b": {"enum": [1, 2.5, "x"]},
                     "c": {"const": 1e15}}}, set()),
    ({"description": "12345678901234567890 and 1e30 in a string", "default": 1e30, "maximum": 5}, set()),
    ({"properties": {"a": {"maximum": 9007199254740993}, "b": {"enum": [[1e30]]}}}, {"maximum", "enum"}),
    ({"allOf": [{"exclusiveMinimum": -1e20}, {"const": {"a": 2**64}}]}, {"exclusiveMinimum", "const"}),
])
def test_only_a_number_past_2_53_calls_back(schema: dict[str, Any], big: set[str]) -> None:
    """jsonschema-rs keeps its own (fast) bounds, enum and const for a schema whose numbers
    there are within 2^53 (exact already): only a schema holding one past 2^53 in such a keyword
    has them decided in Python, called back."""
    import json

    from mcp_verdict.judgement._keywords import big_keywords
    from mcp_verdict.judgement._schema import schema_key
    from mcp_verdict.judgement._schema_bounds import _drop_all_annotations, _nodes

    key = schema_key(schema)
    assert key is not None
    copy = _drop_all_annotations(json.loads(key))
    assert big_keywords(key, lambda: _nodes(copy)) == big


# uniqueItems on exact decimals: two items are equal as enum and const read them
# (https://json-schema.org/draft/2020-12/json-schema-validation#section-6.4.3; equality:
# https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.2, numbers by their
# mathematical value, so 1 and 1.0 are equal; arrays item by item, objects member by member), the
# same in drafts 04-07 (draft-04 validation §5.3.4, draft-07 §6.4.5). Both engines compared an int
# with a float by the float's binary value (Python's ==): [1e30, 10**30] passed, and
# [2**64, 1.8446744073709552e19] (that float's text is 18446744073709552000) failed.
# (instance of {"uniqueItems": true}, whether its items are unique, why) — by hand
UNIQUE: list[tuple[list[Any], bool, str]] = [
    ([1, 1.0], False, "1 and 1.0 are the same number"),
    ([[1], [1.0]], False, "the same number in an array"),
    ([{"a": 1}, {"a": 1.0}], False, "the same number in an object"),
    ([0, -0.0], False, "0 and -0.0 are the same number"),
    ([True, 1], True, "a boolean is no number"),
    ([[False], [0]], True, "a boolean is no number, in an array"),
    ([{"a": True}, {"a": 1.0}], True, "a boolean is no number, in an object"),
    ([9007199254740993, 9007199254740992.0], True, "2^53 + 1 is not 2^53"),
    ([9007199254740992, 9007199254740992.0], False, "2^53 twice"),
    ([1e16, 10000000000000000], False, "the text 1e16 is 10^16"),
    ([E30, 1e30], False, "the text 1e30 is 10^30 (its float is 10^30 + 19884624838656)"),
    ([1e30, E30 + 1], True, "10^30 is not 10^30 + 1"),
    ([-1e30, -E30], False, "negative: equal"),
    ([1e30, -E30], True, "opposite signs"),
    ([1e23, 10**23], False, "the text 1e23 is 10^23"),
    ([1e23, 99999999999999991611392], True, "10^23 is not 99999999999999991611392, 1e23's float"),
    ([2**64, 1.8446744073709552e19], True, "18446744073709552000 is not 2^64"),
    ([18446744073709552000, 1.8446744073709552e19], False, "18446744073709552000 twice"),
    ([[1e30], [E30]], False, "equal in an array"),
    ([[1e30], [E30 + 1]], True, "not equal in an array"),
    ([{"a": 1e30}, {"a": E30}], False, "equal in an object"),
    ([{"a": [1e23]}, {"a": [10**23]}], False, "equal two levels deep"),
    ([{"a": 1e30, "b": 1}, {"b": 1.0, "a": E30}], False, "equal members in another order"),
    ([{"a": 1e30}, {"a": E30, "b": 1}], True, "one object has a member more"),
    ([[1e30, E30]], True, "one item (its own items are not compared)"),
    (["x", 1e30, "x", E30 + 1], False, "a duplicate string beside unequal numbers"),
    ([1e30, E30 + 1, "x", 2**70], True, "all different"),
    ([0.1, 0.1], False, "the same float"),
    ([0.1, 0.30000000000000004], True, "different floats"),
]
UNIQUE_PATH = "/result/structuredContent/value"


def unique_schemas(draft: str) -> list[tuple[str, dict[str, Any]]]:
    """The outputSchema holding ``value`` to ``{"uniqueItems": true}`` in ``draft``: without
    ``$ref`` (jsonschema-rs, or the guarded engine for an answer too large for it) and through a
    ``$ref`` (the guarded engine always; alone in its subschema: drafts 04-07 ignore its siblings)."""
    pad = {"type": "array", "items": {"type": "integer"}}
    plain = {"$schema": DRAFTS[draft], "type": "object",
             "properties": {"value": {"type": "array", "uniqueItems": True}, "pad": pad}}
    referred = {"$schema": DRAFTS[draft], "type": "object",
                "definitions": {"u": {"type": "array", "uniqueItems": True}},
                "properties": {"value": {"$ref": "#/definitions/u"}, "pad": pad}}
    return [("plain", plain), ("$ref", referred)]


UNIQUE_CASES = [(draft, instance, is_unique, why) for draft in DRAFTS for instance, is_unique, why in UNIQUE]


@pytest.mark.parametrize(("draft", "instance", "is_unique", "why"), UNIQUE_CASES,
                         ids=[f"{c[0]}-{c[1]!r:.40}" for c in UNIQUE_CASES])
def test_unique_items_compares_exact_decimals_on_both_engines(draft: str, instance: list[Any], is_unique: bool,
                                                              why: str) -> None:
    """Through check_output: jsonschema-rs for the answer alone, the guarded engine for the answer
    with ``PAD`` under ``GUARDED``, and for a schema with ``$ref``."""
    expected = [] if is_unique else [("output.schema", UNIQUE_PATH)]
    for kind, schema in unique_schemas(draft):
        compiled = compile_schema(schema, "/outputSchema", GUARDED)
        assert compiled.engine == ("jsonschema-rs" if kind == "plain" else "jsonschema")
        small, large = {"value": instance}, {"value": instance, "pad": PAD}
        assert [engine_of(schema, s, GUARDED) for s in (small, large)] == (
            ["jsonschema-rs" if kind == "plain" else "guarded", "guarded"])
        for structured in (small, large):
            check = check_output(answer(structured), tool_of(schema), schema_limits=GUARDED)
            assert [(f.code, f.path) for f in check.findings] == expected, (kind, len(structured), why)


def tool_of(schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}


# (schema, instance, the findings' paths, the first's message on both engines) — by hand
UNIQUE_NESTED: list[tuple[dict[str, Any], Any, list[str], str]] = [
    ({"items": {"uniqueItems": True}}, [[1], [1e30, E30]], ["/i/1"],
     "[1e+30, 1000000000000000000000000000000] has non-unique elements"),
    ({"items": {"uniqueItems": True}}, [[1e30, E30 + 1], ["a"]], [], ""),
    ({"properties": {"a": {"items": {"uniqueItems": True}}}}, {"a": [[{"x": 1e23}, {"x": 10**23}]]}, ["/i/a/0"],
     "[{'x': 1e+23}, {'x': 100000000000000000000000}] has non-unique elements"),
    ({"uniqueItems": True, "items": {"maximum": 10**40}}, [2**64, 1.8446744073709552e19], [], ""),
]


@pytest.mark.parametrize(("schema", "instance", "paths", "message"), UNIQUE_NESTED,
                         ids=[f"{i!r:.40}" for _, i, _, _ in UNIQUE_NESTED])
def test_unique_items_deeper_says_the_same_on_both_engines(schema: dict[str, Any], instance: Any, paths: list[str],
                                                           message: str) -> None:
    compiled = compile_schema(schema, "/s")
    for fits in (True, False):
        found = validate(compiled, instance, "/i", fits=fits)
        assert [f.path for f in found] == paths, fits
        assert [f.message for f in found][:1] == ([message] if message else []), fits


@pytest.mark.parametrize(("schema", "instance", "twin"), [
    ({"uniqueItems": True}, [1, 2.5, "x", 9007199254740992], False),  # no number past 2^53
    ({"uniqueItems": True}, ["12345678901234567890", "1e30"], False),  # long digits in strings alone
    ({"uniqueItems": True}, [2**70, 2**80], False),  # ints alone: Python compares them exactly
    ({"uniqueItems": True}, [1e30, 1e40], False),  # floats alone
    ({"uniqueItems": False}, [1e30, E30], False),  # no uniqueItems: true
    ({"maximum": 5, "enum": [1, 2]}, [1e30, E30], False),  # no uniqueItems
    ({"uniqueItems": True}, [1e30, E30], True),
    ({"items": {"uniqueItems": True}}, {"a": [1e30], "b": {"c": 10**30}}, True),  # anywhere in the instance
])
def test_only_unique_items_with_an_int_and_a_float_past_2_53_takes_the_twin(schema: dict[str, Any], instance: Any,
                                                                          twin: bool) -> None:
    """jsonschema-rs keeps its own (fast) uniqueItems for a schema without it and for an
    instance without both an int and a float past 2^53 (Python and it compare those exactly)."""
    from mcp_verdict.judgement._schema import for_instance

    compiled = compile_schema(schema, "/s")
    assert (for_instance(compiled, instance) is not compiled) is twin


# 2019-09's unevaluatedItems with a boolean items (https://json-schema.org/draft/2019-09/json-schema-core#section-9.3.1.1:
# items "MUST be a valid JSON Schema" or an array of them, and a boolean is a schema, §4.3.2; a schema
# applies to every item, so every item is evaluated, §9.3.1.3). The jsonschema package took a boolean
# items for an array of schemas and raised TypeError (len(True)): check_output raised on the guarded
# engine (a schema with $ref, or a large answer) where jsonschema-rs passed.
# (subschema of "value" in 2019-09, instance, expected (code, path) findings) — by hand
EVALUATED_2019: list[tuple[dict[str, Any], Any, list[tuple[str, str]]]] = [
    ({"items": True, "unevaluatedItems": False}, [1, 2], []),
    ({"items": True, "unevaluatedItems": False}, [], []),
    ({"allOf": [{"items": True}], "unevaluatedItems": False}, [1, "a"], []),
    ({"anyOf": [{"type": "string"}, {"items": True}], "unevaluatedItems": False}, [1], []),
    ({"if": {"items": True}, "then": True, "unevaluatedItems": False}, [1], []),
    ({"if": False, "else": {"items": True}, "unevaluatedItems": {"type": "string"}}, [1], []),
    ({"items": {"type": "integer"}, "unevaluatedItems": False}, [1, 2], []),
    ({"items": [True], "unevaluatedItems": False}, [1, 2], [("output.schema", UNIQUE_PATH)]),
    ({"items": [True], "unevaluatedItems": {"type": "string"}}, [1, "a"], []),
    ({"allOf": [{"items": [True]}], "unevaluatedItems": False}, [1, 2], [("output.schema", UNIQUE_PATH)]),
]


@pytest.mark.parametrize(("subschema", "instance", "expected"), EVALUATED_2019,
                         ids=[f"{s}-{i!r}"[:60] for s, i, _ in EVALUATED_2019])
def test_unevaluated_items_after_a_boolean_items_on_both_engines(subschema: dict[str, Any], instance: Any,
                                                                 expected: list[tuple[str, str]]) -> None:
    pad = {"type": "array", "items": {"type": "integer"}}
    plain = {"$schema": DRAFTS["2019-09"], "type": "object", "properties": {"value": subschema, "pad": pad}}
    referred = {"$schema": DRAFTS["2019-09"], "type": "object", "$defs": {"u": subschema},
                "properties": {"value": {"$ref": "#/$defs/u"}, "pad": pad}}
    assert compile_schema(plain, "/outputSchema", GUARDED).engine == "jsonschema-rs"
    assert compile_schema(referred, "/outputSchema", GUARDED).engine == "jsonschema"
    for schema in (plain, referred):
        small, large = {"value": instance}, {"value": instance, "pad": PAD}
        assert [engine_of(schema, s, GUARDED) for s in (small, large)] == (
            ["jsonschema-rs" if schema is plain else "guarded", "guarded"])  # PAD: the guarded engine
        for structured in (small, large):
            check = check_output(answer(structured), tool_of(schema), schema_limits=GUARDED)
            assert [(f.code, f.path) for f in check.findings] == expected, (schema is plain, len(structured))


# A false subschema's violation is at the value it was given (https://json-schema.org/draft/2020-12/json-schema-core#section-4.3.2:
# false "always fails to validate"; the instance location of a subschema applied to a member is that
# member's, §12.4.2). The jsonschema package's descend left the member out of the error's path for
# false alone, and its 2020-12 items: false failed the array: the guarded engine said /value where
# jsonschema-rs said /value/a. Boolean schemas came with draft 06.
BOOLEAN_DRAFTS = ("06", "07", "2019-09", "2020-12")
TUPLE_DRAFTS = frozenset({"06", "07", "2019-09"})  # items as an array of schemas; 2020-12: prefixItems
V = UNIQUE_PATH
# (subschema of "value", the drafts, instance, expected first finding's path or None) — by hand
FALSE_SCHEMAS: list[tuple[dict[str, Any], frozenset[str], Any, str | None]] = [
    ({"properties": {"a": False}}, frozenset(BOOLEAN_DRAFTS), {"a": 1}, V + "/a"),
    ({"properties": {"a": False}}, frozenset(BOOLEAN_DRAFTS), {"b": 1}, None),
    ({"patternProperties": {"^a": False}}, frozenset(BOOLEAN_DRAFTS), {"ab": 1}, V + "/ab"),
    ({"properties": {"a": {"properties": {"b": False}}}}, frozenset(BOOLEAN_DRAFTS), {"a": {"b": 1}}, V + "/a/b"),
    ({"additionalProperties": {"properties": {"x": False}}}, frozenset(BOOLEAN_DRAFTS), {"a": {"x": 1}}, V + "/a/x"),
    ({"items": [True, False]}, TUPLE_DRAFTS, [1, 2], V + "/1"),
    ({"items": [True, False]}, TUPLE_DRAFTS, [1], None),
    ({"prefixItems": [True, False]}, frozenset({"2020-12"}), [1, 2], V + "/1"),
    ({"items": False}, frozenset(BOOLEAN_DRAFTS), [1], V + "/0"),
    ({"items": False}, frozenset(BOOLEAN_DRAFTS), [], None),
    ({"prefixItems": [True], "items": False}, frozenset({"2020-12"}), [1, 2], V + "/1"),
    ({"prefixItems": [True], "items": False}, frozenset({"2020-12"}), [1], None),
    ({"items": {"items": False}}, frozenset(BOOLEAN_DRAFTS), [[], [1]], V + "/1/0"),
    # the keywords that fail the object or the array itself, on both
    ({"additionalProperties": False}, frozenset(BOOLEAN_DRAFTS), {"a": 1}, V),
    ({"items": [True], "additionalItems": False}, TUPLE_DRAFTS, [1, 2], V),
    ({"propertyNames": False}, frozenset(BOOLEAN_DRAFTS), {"a": 1}, V),
    ({"contains": False}, frozenset(BOOLEAN_DRAFTS), [1], V),
    ({"allOf": [True, False]}, frozenset(BOOLEAN_DRAFTS), 1, V),
]
FALSE_CASES = [(draft, subschema, instance, path) for subschema, drafts, instance, path in FALSE_SCHEMAS
               for draft in BOOLEAN_DRAFTS if draft in drafts]


@pytest.mark.parametrize(("draft", "subschema", "instance", "path"), FALSE_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]!r}"[:70] for c in FALSE_CASES])
def test_a_false_subschema_fails_its_value_on_both_engines(draft: str, subschema: dict[str, Any], instance: Any,
                                                            path: str | None) -> None:
    pad = {"type": "array", "items": {"type": "integer"}}
    plain = {"$schema": DRAFTS[draft], "type": "object", "properties": {"value": subschema, "pad": pad}}
    referred = {"$schema": DRAFTS[draft], "type": "object", "definitions": {"u": subschema},
                "properties": {"value": {"$ref": "#/definitions/u"}, "pad": pad}}
    assert compile_schema(plain, "/outputSchema", GUARDED).engine == "jsonschema-rs"
    assert compile_schema(referred, "/outputSchema", GUARDED).engine == "jsonschema"
    for schema in (plain, referred):
        small, large = {"value": instance}, {"value": instance, "pad": PAD}
        assert [engine_of(schema, s, GUARDED) for s in (small, large)] == (
            ["jsonschema-rs" if schema is plain else "guarded", "guarded"])  # PAD: the guarded engine
        for structured in (small, large):
            check = check_output(answer(structured), tool_of(schema), schema_limits=GUARDED)
            first = [(f.code, f.path) for f in check.findings][:1]
            assert first == ([("output.schema", path)] if path else []), (schema is plain, len(structured))


# Draft 04's enum "MUST have at least one element. Elements in the array MUST be unique"
# (https://json-schema.org/draft-04/draft-fge-json-schema-validation-00#section-5.5.1.1; its
# meta-schema: minItems 1, uniqueItems true; drafts 06 on dropped both). jsonschema-rs's draft-04
# meta-validation let both pass, the guarded engine's refused them: the schema was refused with a
# $ref and held to without one. (subschema of "value" in draft 04, (path, message) or None) — by hand
ENUMS_04: list[tuple[dict[str, Any], tuple[str, str] | None]] = [
    ({"enum": []}, ("/properties/value/enum", "the schema is invalid: [] should be non-empty")),
    ({"enum": ["x", "x"]}, ("/properties/value/enum", "the schema is invalid: ['x', 'x'] has non-unique elements")),
    ({"enum": [1, 1.0]}, ("/properties/value/enum", "the schema is invalid: [1, 1.0] has non-unique elements")),
    ({"enum": [{"a": 1}, {"a": 1.0}]},
     ("/properties/value/enum", "the schema is invalid: [{'a': 1}, {'a': 1.0}] has non-unique elements")),
    ({"not": {"enum": []}}, ("/properties/value/not/enum", "the schema is invalid: [] should be non-empty")),
    ({"items": [{"enum": [2, 2]}]},
     ("/properties/value/items/0/enum", "the schema is invalid: [2, 2] has non-unique elements")),
    ({"enum": [True, 1]}, None),  # a boolean is no number
    ({"enum": [[1], [1, 1]]}, None),
    ({"enum": ["x"]}, None),
]


@pytest.mark.parametrize(("subschema", "problem"), ENUMS_04, ids=[repr(s)[:40] for s, _ in ENUMS_04])
def test_a_draft_04_enum_empty_or_repeating_is_invalid_on_both_engines(subschema: dict[str, Any],
                                                                        problem: tuple[str, str] | None) -> None:
    plain = {"$schema": DRAFTS["04"], "type": "object", "properties": {"value": subschema}}
    referred = {**plain, "definitions": {"x": {}}, "allOf": [{"$ref": "#/definitions/x"}]}
    for schema in (plain, referred):
        check = check_output(answer({"value": "x"}), tool_of(schema))
        found = [(f.code, f.path, f.message) for f in check.findings]
        if problem is None:
            assert "output.schema_invalid" not in [code for code, _, _ in found], (schema is plain, found)
        else:
            assert found == [("output.schema_invalid", "/outputSchema" + problem[0], problem[1])], (schema is plain)


# A draft-04 enum's items are unique (the meta-schema's uniqueItems on enum) as uniqueItems compares
# them everywhere here: numbers as the decimals they are written as (core §4.2.2, as in UNIQUE above),
# so [1e30, 10**30] repeats 10^30 and [2**64, 1.8446744073709552e19] does not (that float's text is
# 18446744073709552000). The guarded engine's meta-validation compared them as Python does (an int
# with a float by the float's binary value): behind a $ref it took [1e30, 10**30] and refused
# [2**64, 1.8446744073709552e19], where the same enum without $ref (jsonschema-rs, then the exact
# check) was refused and taken. Drafts 06 on have no uniqueness on enum: draft 07 takes each.
# The enum's places: in a property (jsonschema-rs), behind the root's $ref, behind a property's $ref
# (the guarded engine).
ENUM_PLACES: dict[str, tuple[dict[str, Any], str, str, Any]] = {
    # place: (the schema around {"enum": ...} as "E", the enum's path, the engine, how an instance sits)
    "property": ({"type": "object", "properties": {"value": "E"}}, "/properties/value/enum", "jsonschema-rs",
                 lambda x: {"value": x}),
    "root $ref": ({"definitions": {"e": "E"}, "$ref": "#/definitions/e"}, "/definitions/e/enum", "jsonschema",
                  lambda x: x),
    "property $ref": ({"type": "object", "definitions": {"e": "E"},
                       "properties": {"value": {"$ref": "#/definitions/e"}}},
                      "/definitions/e/enum", "jsonschema", lambda x: {"value": x}),
}
# (enum, the drafts that refuse it, instances at the enum's place that pass, that fail, when it is
# taken) — by hand
ENUMS_BIG: list[tuple[list[Any], frozenset[str], list[Any], list[Any]]] = [
    ([1e30, E30], frozenset({"04"}), [E30, 1e30], [E30 + 1, 1e31]),
    ([E30, 1e30], frozenset({"04"}), [E30, 1e30], [E30 + 1]),
    ([[1e30], [E30]], frozenset({"04"}), [[E30]], [[E30 + 1]]),
    ([{"a": 1e23}, {"a": 10**23}], frozenset({"04"}), [{"a": 10**23}], [{"a": 99999999999999991611392}]),
    ([1e30, E30 + 1], NONE, [E30, 1e30, E30 + 1], [E30 + 2]),
    ([2**64, 1.8446744073709552e19], NONE, [2**64, 18446744073709552000, 1.8446744073709552e19], [2**64 + 1]),
    ([2**63, 9.223372036854776e18], NONE, [2**63, 9223372036854776000], [2**63 + 1]),
    ([1, 1.0], frozenset({"04"}), [1, 1.0], [2]),
]
ENUM_BIG_CASES = [(draft, place, values, draft in refused, passing, failing)
                  for values, refused, passing, failing in ENUMS_BIG for draft in ("04", "07") for place in ENUM_PLACES]


def _placed(template: Any, enum: dict[str, Any]) -> Any:
    if template == "E":
        return enum
    if isinstance(template, dict):
        return {name: _placed(value, enum) for name, value in template.items()}
    return template


@pytest.mark.parametrize(("draft", "place", "values", "refused", "passing", "failing"), ENUM_BIG_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]!r:.40}" for c in ENUM_BIG_CASES])
def test_a_draft_04_enum_of_numbers_past_2_53_is_unique_alike_with_and_without_ref(
        draft: str, place: str, values: list[Any], refused: bool, passing: list[Any], failing: list[Any]) -> None:
    template, path, engine, instance_of = ENUM_PLACES[place]
    schema = {"$schema": DRAFTS[draft], **_placed(template, {"enum": values})}
    compiled = compile_schema(schema, "/outputSchema")
    if refused:
        assert compiled.problem is not None
        assert (compiled.problem.code, compiled.problem.path, compiled.problem.message) == (
            "output.schema_invalid", "/outputSchema" + path,
            f"the schema is invalid: {values!r} has non-unique elements")
        return
    assert compiled.problem is None, compiled.problem
    assert compiled.engine == engine
    for fits in ((True, False) if engine == "jsonschema-rs" else (None,)):  # jsonschema-rs, then the guarded engine
        for value in passing:
            assert validate(compiled, instance_of(value), "/i", fits=fits) == [], (value, fits)
        for value in failing:
            assert [f.code for f in validate(compiled, instance_of(value), "/i", fits=fits)] == ["output.schema"], (
                value, fits)


# readOnly and writeOnly: "The value of these keywords MUST be a boolean" (draft-07 validation §10.3,
# 2019-09 validation §9.4, 2020-12 validation §9.4); no keywords in drafts 04 and 06. The jsonschema
# package's draft-07 meta-schema lacks writeOnly (jsonschema-rs's has it), so a draft-07
# "writeOnly": "yes" was refused without a $ref and held to with one.
# (subschema of "value", the drafts where the schema is invalid, the invalid keyword's path) — by hand
READ_WRITE: list[tuple[dict[str, Any], frozenset[str], str]] = [
    ({"writeOnly": "yes"}, frozenset({"07", "2019-09", "2020-12"}), "/properties/value/writeOnly"),
    ({"readOnly": 1}, frozenset({"07", "2019-09", "2020-12"}), "/properties/value/readOnly"),
    ({"properties": {"a": {"writeOnly": []}}}, frozenset({"07", "2019-09", "2020-12"}),
     "/properties/value/properties/a/writeOnly"),
    ({"writeOnly": True, "readOnly": False}, frozenset(), ""),
]
READ_WRITE_CASES = [(draft, subschema, draft in drafts, path) for subschema, drafts, path in READ_WRITE
                    for draft in DRAFTS]


@pytest.mark.parametrize(("draft", "subschema", "invalid", "path"), READ_WRITE_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in READ_WRITE_CASES])
def test_read_only_and_write_only_are_booleans_on_both_engines(draft: str, subschema: dict[str, Any], invalid: bool,
                                                               path: str) -> None:
    plain = {"$schema": DRAFTS[draft], "type": "object", "properties": {"value": subschema}}
    referred = {**plain, "definitions": {"x": {}}, "allOf": [{"$ref": "#/definitions/x"}]}
    for schema in (plain, referred):
        check = check_output(answer({"value": "x"}), tool_of(schema))
        found = [(f.code, f.path) for f in check.findings]
        assert found == ([("output.schema_invalid", "/outputSchema" + path)] if invalid else []), (schema is plain)


# More keywords both engines must decide alike, per draft (a differential table: each row's verdict
# written by hand from the drafts, asserted on both engines). OLD, NONE... as above.
FROM_07 = frozenset({"07", "2019-09", "2020-12"})
SINCE_06 = frozenset({"06", "07", "2019-09", "2020-12"})  # (FROM_06 above: the formats of 06 and 07)
NEW = frozenset({"2019-09", "2020-12"})
ALL = frozenset(DRAFTS)
ONLY_2020 = frozenset({"2020-12"})
# (subschema of "v", instance of "v", the drafts in which it fails, the rule)
MORE: list[tuple[dict[str, Any], Any, frozenset[str], str]] = [
    # const / enum with nested objects holding floats and ints (core §4.2.2; const: draft 06 on)
    ({"const": {"a": 1.0, "b": [2, 3.0]}}, {"b": [2.0, 3], "a": 1}, NONE, "the same numbers, members in another order"),
    ({"const": {"a": 1.0}}, {"a": True}, SINCE_06, "a boolean is no number"),
    ({"const": {"a": {"b": 0.5}}}, {"a": {"b": 0.5, "c": 1}}, SINCE_06, "a member more"),
    ({"const": [1, [2.0]]}, [1.0, [2]], NONE, "the same numbers in arrays"),
    ({"enum": [{"a": [1.5]}, "x"]}, {"a": [1.5]}, NONE, "an equal object"),
    ({"enum": [{"a": [1.5]}]}, {"a": [1.50001]}, ALL, "another float"),
    ({"enum": [{"a": 1}]}, {"a": 1.0}, NONE, "1 and 1.0 in an object"),
    # propertyNames (draft 06 on)
    ({"propertyNames": {"maxLength": 2}}, {"abc": 1}, SINCE_06, "a name longer than 2"),
    ({"propertyNames": {"pattern": "^a"}}, {"ab": 1, "b": 2}, SINCE_06, "b does not match"),
    ({"propertyNames": {"enum": ["a", "b"]}}, {"a": 1, "b": 2}, NONE, "both named"),
    ({"propertyNames": False}, {}, NONE, "no name to fail"),
    ({"propertyNames": {"type": "number"}}, {"1": 1}, SINCE_06, "a name is a string"),
    # contains with minContains / maxContains (min/maxContains: 2019-09 on)
    ({"contains": {"type": "integer"}}, [], SINCE_06, "nothing contained"),
    ({"contains": {"type": "integer"}, "minContains": 0}, [], frozenset({"06", "07"}),
     "minContains 0 allows none (2019-09 on); before, contains needs one"),
    ({"contains": {"type": "integer"}, "minContains": 2}, [1, "a"], NEW, "one of two"),
    ({"contains": {"type": "integer"}, "maxContains": 1}, [1, 2], NEW, "two past one"),
    ({"contains": {"type": "integer"}, "maxContains": 1}, [1, "a"], NONE, "one"),
    ({"minContains": 2}, [1], NONE, "no contains: minContains asserts nothing"),
    ({"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3}, [1, 2, 3, 4], NEW, "four past three"),
    # unevaluatedProperties (2019-09 on)
    ({"properties": {"a": {}}, "unevaluatedProperties": False}, {"a": 1, "b": 2}, NEW, "b unevaluated"),
    ({"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False}, {"a": 1}, NONE, "a through allOf"),
    ({"anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}], "unevaluatedProperties": False},
     {"a": 1, "b": 1}, NONE, "both through anyOf"),
    ({"if": {"properties": {"a": {"const": 1}}}, "then": {"properties": {"b": {}}}, "unevaluatedProperties": False},
     {"a": 2, "b": 1}, NEW, "if fails: then's b is not evaluated (a is, by if's properties only when if passes)"),
    ({"patternProperties": {"^a": {}}, "unevaluatedProperties": False}, {"ab": 1}, NONE, "ab by patternProperties"),
    ({"additionalProperties": True, "unevaluatedProperties": False}, {"a": 1}, NONE, "a by additionalProperties"),
    ({"dependentSchemas": {"a": {"properties": {"b": {}}}}, "unevaluatedProperties": False}, {"a": 1, "b": 1}, NEW,
     "b through dependentSchemas, but a itself unevaluated"),
    ({"unevaluatedProperties": {"type": "integer"}}, {"a": "x"}, NEW, "a held to the subschema"),
    # dependentRequired (2019-09 on) and dependencies (04-07)
    ({"dependentRequired": {"a": ["b"]}}, {"b": 1}, NONE, "no a"),
    ({"dependentRequired": {"a": []}}, {"a": 1}, NONE, "nothing required"),
    ({"dependentRequired": {"a": ["b", "c"]}}, {"a": 1, "b": 1}, NEW, "c missing"),
    ({"dependentRequired": {"a": ["b"]}}, [1], NONE, "not an object"),
    ({"dependencies": {"a": {"required": ["b"]}}}, {"a": 1}, OLD, "a schema dependency (04-07)"),
    # $ref-free keywords of one draft only
    ({"prefixItems": [{"type": "string"}]}, [1], ONLY_2020, "prefixItems came with 2020-12"),
    ({"if": {"type": "integer"}, "then": {"minimum": 5}}, 1, FROM_07, "if/then came with draft 07"),
    ({"const": 1}, 2, SINCE_06, "const came with draft 06"),
    ({"exclusiveMinimum": 5}, 5, SINCE_06, "a number from draft 06 (draft 04's is a boolean beside minimum)"),
]
MORE_CASES = [(draft, subschema, instance, draft in failing, rule)
              for draft in DRAFTS for subschema, instance, failing, rule in MORE
              if not (draft == "04" and "exclusiveMinimum" in subschema)]  # (invalid in draft 04)


@pytest.mark.parametrize(("draft", "subschema", "instance", "fails", "rule"), MORE_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]!r}"[:80] for c in MORE_CASES])
def test_more_keywords_are_decided_alike_on_both_engines(draft: str, subschema: dict[str, Any], instance: Any,
                                                         fails: bool, rule: str) -> None:
    schema = {"$schema": DRAFTS[draft], "type": "object", "properties": {"v": subschema}}
    for engine, found in engines(schema, {"v": instance}):
        assert bool(found) is fails, (engine, rule, found)
        assert all(code == "output.schema" for code, _ in found), (engine, found)
