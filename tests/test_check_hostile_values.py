"""The content check against a server's hostile values: bounded and never raising.

- A string or member name with a lone surrogate, which ``json.loads`` reads from ``"\\ud800"``,
  in a verdict's message: ``classify`` no longer takes one in a parsed value (``json.encoding``, as
  on the wire: tests/test_classify_surrogates.py), but a ``Verdict`` built otherwise may hold one.
  jsonschema-rs cannot read it (it raised ``UnicodeEncodeError`` out of ``check_output``), nor can
  the regular expression engine both validators match patterns on, when a keyword has to read it.
  It is an ``output.schema`` finding naming the string, never a pass and never an exception (RFC
  8259 section 8.2: such a string is no interoperable JSON;
  https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema).
- A result that breaks an outputSchema without ``$ref`` in many places: jsonschema-rs built
  every error at once, each with a copy of its value (a 300 KB answer held to an ``allOf`` of
  1,000 type checks needed more than 3 GB, and the allocator aborted the process). It reports
  its first violation; the ``jsonschema`` engine (a schema with ``$ref``, under the time budget)
  still reports up to 20.
- A validator's message writes the failing value whole (the whole structuredContent, up to the
  64 MiB a response may have): a finding keeps its head and its tail, about 500 characters.
- So does a message about the schema itself (``output.schema_invalid``, ``output.ref`` for a $ref
  that resolves to nothing), which writes the server's wrong value whole; a dialect or a $ref
  outside the schema is named by its first 196 characters. Before, a 100 KB string where the
  schema was wrong made a finding of 100-200 KB.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import Kind, Verdict, check_output, classify

from .test_check import complete, tool


def parsed(structured: Any) -> Verdict:
    """A normal_complete verdict of a parsed response holding ``structured``, built as it is (``classify``
    finds a lone surrogate in it: ``json.encoding``)."""
    return Verdict(Kind.NORMAL_COMPLETE, (), "2026-07-28", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": "done"}], "structuredContent": structured}})


def with_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as one ``$ref`` to it (validated by the ``jsonschema`` engine)."""
    return {"$defs": {"it": schema}, "$ref": "#/$defs/it"}


SURROGATE = "\ud800"
UNREADABLE = ("the string '\\ud800' holds a lone surrogate, which no JSON text can carry: it cannot be held to the "
              "schema")
UNMATCHABLE = "'\\ud800' holds a lone surrogate, which no JSON text can carry: it cannot be matched against '^a'"

# (label, structuredContent, outputSchema, expected findings as (code, path, message)) — by hand
SURROGATE_CASES: list[tuple[str, Any, Any, list[tuple[str, str, str]]]] = [
    ("string, type (jsonschema-rs)", {"a": SURROGATE}, {"properties": {"a": {"type": "integer"}}},
     [("output.schema", "/result/structuredContent/a", UNREADABLE)]),
    ("string, enum (jsonschema-rs)", {"a": SURROGATE}, {"properties": {"a": {"enum": ["x"]}}},
     [("output.schema", "/result/structuredContent/a", UNREADABLE)]),
    ("the second string of an array", {"a": ["ok", "x" + SURROGATE]},
     {"properties": {"a": {"items": {"pattern": "^[a-z]+$"}}}},
     [("output.schema", "/result/structuredContent/a/1",
       "the string 'x\\ud800' holds a lone surrogate, which no JSON text can carry: it cannot be held to the schema")]),
    ("member name (jsonschema-rs)", {SURROGATE: 1}, {"additionalProperties": False},
     [("output.schema", "/result/structuredContent/\ud800",
       "the member name '\\ud800' holds a lone surrogate, which no JSON text can carry: it cannot be held to the "
       "schema")]),
    ("pattern (jsonschema, $ref)", {"a": SURROGATE}, with_ref({"properties": {"a": {"pattern": "^a"}}}),
     [("output.schema", "/result/structuredContent/a", UNMATCHABLE)]),
    ("pattern with lookahead (jsonschema)", {"a": SURROGATE}, {"properties": {"a": {"pattern": "^(?=a)"}}},
     [("output.schema", "/result/structuredContent/a",
       "'\\ud800' holds a lone surrogate, which no JSON text can carry: it cannot be matched against '^(?=a)'")]),
    # a string jsonschema-rs never has to write out is validated as any other
    ("a member no keyword reads", {"a": 1, "b": SURROGATE}, {"properties": {"a": {"type": "integer"}}}, []),
    ("a length", {"a": SURROGATE}, {"properties": {"a": {"minLength": 1}}}, []),
]


@pytest.mark.parametrize(("structured", "schema", "expected"), [case[1:] for case in SURROGATE_CASES],
                         ids=[case[0] for case in SURROGATE_CASES])
def test_a_lone_surrogate_is_a_finding_never_an_exception(structured: Any, schema: Any,
                                                          expected: list[tuple[str, str, str]]) -> None:
    check = check_output(parsed(structured), tool(schema))
    assert [(f.code, f.path, f.message) for f in check.findings] == expected
    assert check.passed is (not expected)


def test_a_schema_expectation_reads_a_lone_surrogate_as_a_failure_not_its_own_error() -> None:
    check = check_output(parsed({"a": SURROGATE}), None, expect={"type": "object", "title": "mine",
                                                                 "properties": {"a": {"type": "integer"}}})
    assert [(f.code, f.message) for f in check.findings] == [
        ("expect.failed", "mine: /result/structuredContent/a: " + UNREADABLE)]


# (label, structuredContent, outputSchema, expected findings as (code, path)) — by hand: a schema
# without $ref reports its first violation, one with $ref up to 20
MANY_CASES: list[tuple[str, Any, Any, list[tuple[str, str]]]] = [
    ("allOf of 30 type checks (jsonschema-rs)", {"n": 1}, {"allOf": [{"type": "string"}] * 30},
     [("output.schema", "/result/structuredContent")]),
    ("30 items of the wrong type (jsonschema-rs)", list(range(30)), {"items": {"type": "string"}},
     [("output.schema", "/result/structuredContent/0")]),
    ("30 items against an enum of 300 (jsonschema-rs)", [{"k": -1}] * 30,
     {"items": {"enum": [{"k": k} for k in range(300)]}}, [("output.schema", "/result/structuredContent/0")]),
    ("3 items of the wrong type (jsonschema, $ref)", [1, 2, 3], with_ref({"items": {"type": "string"}}),
     [("output.schema", "/result/structuredContent/0"), ("output.schema", "/result/structuredContent/1"),
      ("output.schema", "/result/structuredContent/2")]),
]


@pytest.mark.parametrize(("structured", "schema", "expected"), [case[1:] for case in MANY_CASES],
                         ids=[case[0] for case in MANY_CASES])
def test_violations_are_listed_at_a_bounded_cost(structured: Any, schema: Any,
                                                 expected: list[tuple[str, str]]) -> None:
    check = check_output(complete(structured), tool(schema))
    assert [(f.code, f.path) for f in check.findings] == expected


BIG = {"a": list(range(20_000))}
# (label, outputSchema, the message's head, the count of the whole, its tail) — by hand: the
# value's text has 88,890 digits and 19,999 separators ("," for jsonschema-rs, ", " for
# jsonschema), 8 or 9 characters of brackets and name, then the 24 of ' is not of type "string"'
MESSAGE_CASES: list[tuple[str, Any, str, int, str]] = [
    ("jsonschema-rs", {"type": "string"}, '{"a":[0,1,2,3,4,5,', 108_921, '19998,19999]} is not of type "string"'),
    ("jsonschema", with_ref({"type": "string"}), "{'a': [0, 1, 2, 3, 4, 5, ", 128_921,
     "19998, 19999]} is not of type 'string'"),
]


@pytest.mark.parametrize(("schema", "head", "whole", "tail"), [case[1:] for case in MESSAGE_CASES],
                         ids=[case[0] for case in MESSAGE_CASES])
def test_a_findings_message_is_bounded_whatever_the_value(schema: Any, head: str, whole: int, tail: str) -> None:
    (found,) = check_output(complete(BIG), tool(schema)).findings
    assert (found.code, found.path) == ("output.schema", "/result/structuredContent")
    middle = f"… ({whole} characters in all) …"
    assert found.message.startswith(head) and found.message.endswith(tail)
    assert found.message[250:-250] == middle and len(found.message) == 500 + len(middle)


# Integers past Python's digit limit for str (sys.get_int_max_str_digits, 4,300 by default), which
# a parsed value may hold (classify takes it; the wire parser refuses a number that long). A JSON
# number is an arbitrary-precision decimal (https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.1):
# jsonschema-rs read such an integer as null (so {"maximum": 1} passed 10^5000 and {"type": "null"}
# failed it as null), and the jsonschema engine raised ValueError out of check_output writing any
# message about it. Each is held to the schema exactly, its messages naming it by its size.
HUGE = 10 ** 5000
HUGE_SHOWN = "<an integer of about 5000 digits>"
AT_N = "/result/structuredContent/n"
# (label, structuredContent, outputSchema, expected findings as (code, path, message)) — by hand
HUGE_CASES: list[tuple[str, Any, Any, list[tuple[str, str, str]]]] = [
    ("maximum (jsonschema-rs)", {"n": HUGE}, {"type": "object", "properties": {"n": {"maximum": 1}}},
     [("output.schema", AT_N, f"{HUGE_SHOWN} is greater than the maximum of 1")]),
    ("maximum (jsonschema, $ref)", {"n": HUGE}, with_ref({"type": "object", "properties": {"n": {"maximum": 1}}}),
     [("output.schema", AT_N, f"{HUGE_SHOWN} is greater than the maximum of 1")]),
    ("minimum, met (jsonschema-rs)", {"n": HUGE}, {"properties": {"n": {"minimum": 1}}}, []),
    ("minimum, met (jsonschema, $ref)", {"n": HUGE}, with_ref({"properties": {"n": {"minimum": 1}}}), []),
    ("negative, minimum (jsonschema-rs)", {"n": -HUGE}, {"properties": {"n": {"minimum": 0}}},
     [("output.schema", AT_N, "<an integer of about 5000 digits> is less than the minimum of 0")]),
    ("type integer (jsonschema-rs)", {"n": HUGE}, {"properties": {"n": {"type": "integer"}}}, []),
    ("type null (jsonschema-rs)", {"n": HUGE}, {"properties": {"n": {"type": "null"}}},
     [("output.schema", AT_N, f"{HUGE_SHOWN} does not conform to type 'null'")]),
    ("const (jsonschema-rs)", {"n": HUGE}, {"properties": {"n": {"const": 1}}},
     [("output.schema", AT_N, "1 was expected")]),  # (the jsonschema package's message names no instance)
    ("enum (jsonschema, $ref)", {"n": HUGE}, with_ref({"properties": {"n": {"enum": [1, 2]}}}),
     [("output.schema", AT_N, f"{HUGE_SHOWN} is not one of [1, 2]")]),
    ("multipleOf 3, not met (jsonschema-rs)", {"n": HUGE}, {"properties": {"n": {"multipleOf": 3}}},
     [("output.schema", AT_N, f"{HUGE_SHOWN} is not a multiple of 3")]),
    ("multipleOf 5, met (jsonschema-rs)", {"n": HUGE}, {"properties": {"n": {"multipleOf": 5}}}, []),
    ("unique items, distinct (jsonschema-rs)", [HUGE, HUGE + 1], {"uniqueItems": True}, []),
    ("unique items, twice (jsonschema-rs)", [HUGE, HUGE], {"uniqueItems": True},
     [("output.schema", "/result/structuredContent", f"[{HUGE_SHOWN}, {HUGE_SHOWN}] does not conform to "
                                                     "uniqueItems True")]),
    ("an object holding one (jsonschema, $ref)", {"n": HUGE}, with_ref({"minProperties": 2}),
     [("output.schema", "/result/structuredContent", f"{{'n': {HUGE_SHOWN}}} does not conform to minProperties 2")]),
    ("a false subschema (jsonschema, $ref)", {"n": HUGE}, with_ref({"properties": {"n": False}}),
     [("output.schema", "/result/structuredContent", f"{{'n': {HUGE_SHOWN}}} does not conform to properties "
                                                     "{'n': False}")]),
    ("the schema false", {"n": HUGE}, False,
     [("output.schema", "/result/structuredContent", f"{{'n': {HUGE_SHOWN}}} does not conform to the schema")]),
    ("the schema true", {"n": HUGE}, True, []),
    ("below a value no keyword reads into (jsonschema-rs)", {"a": {"n": HUGE}},
     {"properties": {"a": {"type": "object"}}}, []),
    ("below a value that fails (jsonschema-rs)", {"a": {"n": HUGE}}, {"properties": {"a": {"type": "string"}}},
     [("output.schema", "/result/structuredContent/a", f"{{'n': {HUGE_SHOWN}}} does not conform to type 'string'")]),
    ("a member no keyword reads (jsonschema, $ref)", {"a": 1, "n": HUGE},
     with_ref({"properties": {"a": {"type": "integer"}}}), []),
    ("another member's finding (jsonschema, $ref)", {"a": "x", "n": HUGE},
     with_ref({"properties": {"a": {"type": "integer"}}}),
     [("output.schema", "/result/structuredContent/a", "'x' is not of type 'integer'")]),
]


@pytest.mark.parametrize(("structured", "schema", "expected"), [case[1:] for case in HUGE_CASES],
                         ids=[case[0] for case in HUGE_CASES])
def test_an_integer_past_pythons_digit_limit_is_held_to_the_schema_exactly(
        structured: Any, schema: Any, expected: list[tuple[str, str, str]]) -> None:
    check = check_output(parsed(structured), tool(schema))
    assert [(f.code, f.path, f.message) for f in check.findings] == expected
    assert check.passed is (not expected)


# Integers past 64 bits within the digit limit: both engines compare them exactly (jsonschema-rs
# reads them through their decimal text), from the wire as parsed. (label, wire number, outputSchema
# member, passed) — by hand
LONG_CASES: list[tuple[str, str, Any, bool]] = [
    ("2^64 > maximum 2^64 - 1", "18446744073709551616", {"maximum": 18446744073709551615}, False),
    ("2^64 = maximum 2^64", "18446744073709551616", {"maximum": 18446744073709551616}, True),
    ("2^64 + 1 > maximum 2^64", "18446744073709551617", {"maximum": 18446744073709551616}, False),
    ("2^70 is an integer", "1180591620717411303424", {"type": "integer"}, True),
    ("2^70 + 1 is not const 2^70", "1180591620717411303425", {"const": 1180591620717411303424}, False),
    ("10^30 in enum", "1000000000000000000000000000000", {"enum": [1, 1000000000000000000000000000000]}, True),
    ("10^30 + 1 not in enum", "1000000000000000000000000000001", {"enum": [1000000000000000000000000000000]},
     False),
    ("10^30 < minimum 10^30 + 1", "1000000000000000000000000000000", {"minimum": 1000000000000000000000000000001},
     False),
    ("-2^63 - 1 < minimum -2^63", "-9223372036854775809", {"minimum": -9223372036854775808}, False),
    ("-2^63 - 1 <= maximum -2^63", "-9223372036854775809", {"maximum": -9223372036854775808}, True),
    ("10^4000 + 1 > maximum 10^4000 - 1 (4,001 digits)", "1" + "0" * 3999 + "1", {"maximum": 10 ** 4000 - 1}, False),
]


@pytest.mark.parametrize("engine", ["jsonschema-rs", "jsonschema"])
@pytest.mark.parametrize(("number", "member", "passed"), [case[1:] for case in LONG_CASES],
                         ids=[case[0] for case in LONG_CASES])
def test_an_integer_past_64_bits_is_compared_exactly(number: str, member: Any, passed: bool, engine: str) -> None:
    schema: Any = {"type": "object", "properties": {"n": member}}
    if engine == "jsonschema":
        schema = with_ref(schema)
    wire = ('{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"n":'
            + number + "}}}")
    for verdict in (classify(wire.encode()), parsed({"n": int(number)})):
        assert verdict.kind is Kind.NORMAL_COMPLETE
        check = check_output(verdict, tool(schema))
        assert check.passed is passed
        assert [(f.code, f.path) for f in check.findings] == ([] if passed else [("output.schema", AT_N)])


# An outputSchema (or expect schema) holding an integer past Python's digit limit for str: a
# caller's parsed schema only (the wire's reader refuses such a number: json.syntax). A JSON
# number has no such limit (https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.1),
# so the schema is valid; the check cannot write its key nor hand the number to jsonschema-rs
# (which reads it through its decimal text), so it refuses the schema as past its bounds,
# naming where the integer is and its size. It was "the schema is not a JSON value"
# (output.schema_invalid), which named neither. 10^5000 has 5,001 digits.
BIG_SCHEMA_MESSAGE = ("the schema holds an integer of about 5001 digits, past the 4300 Python reads and writes as "
                      "text (sys.get_int_max_str_digits): the check cannot read it exactly, so the schema is refused")
# (label, schema, the finding's path)
BIG_SCHEMAS: list[tuple[str, Any, str]] = [
    ("maximum", {"type": "object", "properties": {"n": {"maximum": HUGE}}}, "/outputSchema/properties/n/maximum"),
    ("negative minimum", {"properties": {"n": {"minimum": -HUGE}}}, "/outputSchema/properties/n/minimum"),
    ("deep in an enum", {"properties": {"n": {"enum": [1, [2, {"a~b": HUGE}]]}}},
     "/outputSchema/properties/n/enum/1/1/a~0b"),
    ("with a $ref", with_ref({"properties": {"n": {"const": HUGE}}}), "/outputSchema/$defs/it/properties/n/const"),
    ("in a default (dropped before compiling, but read first)", {"default": HUGE}, "/outputSchema/default"),
]


@pytest.mark.parametrize(("schema", "path"), [case[1:] for case in BIG_SCHEMAS], ids=[case[0] for case in BIG_SCHEMAS])
def test_a_schema_holding_an_integer_past_the_digit_limit_is_refused_by_name(schema: Any, path: str) -> None:
    check = check_output(parsed({"n": 1}), tool(schema))
    assert [(f.code, f.path, f.message) for f in check.findings] == [("output.bounds", path, BIG_SCHEMA_MESSAGE)]
    assert check.passed is False


def test_an_expect_schema_holding_an_integer_past_the_digit_limit_says_where() -> None:
    from mcp_verdict import OptionError

    with pytest.raises(OptionError) as raised:
        check_output(parsed({"n": 1}), expect={"properties": {"n": {"maximum": HUGE}}})
    assert str(raised.value) == f"expect is a JSON Schema that cannot be used: at /properties/n/maximum: " \
                                f"{BIG_SCHEMA_MESSAGE}"


def test_a_schema_holding_an_integer_within_the_digit_limit_compiles() -> None:
    """4,300 digits, the limit itself: written and read exactly (10^4299 has 4,300 digits)."""
    schema = {"properties": {"n": {"maximum": 10 ** 4299}}}
    assert check_output(parsed({"n": 10 ** 4299}), tool(schema)).passed
    assert not check_output(parsed({"n": 10 ** 4299 + 1}), tool(schema)).passed


X = "x" * 100_000
# A server's schema may hold a string of any length where it is wrong (a 100 KB type, dialect,
# $ref or pattern): the finding that names it wrote it whole, once or twice (a 100 KB pattern in
# a `then` list: a message of 100,088 characters; an unresolvable local $ref of 100 KB: 200,113).
# It keeps the validator's message as output.schema keeps it (its head and tail, about 500
# characters), and the value it names itself by its first 196 characters.
# (label, outputSchema, code, path, the message's head, the count of the whole or None, its tail)
SCHEMA_MESSAGE_CASES: list[tuple[str, Any, str, str, str, int | None, str]] = [
    ("a type of 100 KB, jsonschema-rs", {"type": X}, "output.schema_invalid", "/outputSchema/type",
     'the schema is invalid: "xxx',
     100_002 + len(" is not valid under any of the schemas listed in the 'anyOf' keyword"),
     "xxx\" is not valid under any of the schemas listed in the 'anyOf' keyword"),
    ("a type of 100 KB, jsonschema", with_ref({"type": X}), "output.schema_invalid", "/outputSchema/$defs/it/type",
     "the schema is invalid: 'xxx", 100_002 + len(" is not valid under any of the given schemas"),
     "xxx' is not valid under any of the given schemas"),
    ("a pattern of 100 KB only Python reads, jsonschema", {**with_ref({}), "pattern": "(?#" + X + ")"},
     "output.schema_invalid", "/outputSchema/pattern", "the schema is invalid: '(?#xxx",
     100_006 + len(" is not a 'regex'"), "xxx)' is not a 'regex'"),
    ("a dialect of 100 KB", {"$schema": X}, "output.dialect", "/outputSchema/$schema",
     "dialect '" + "x" * 196 + "... is not supported; supported: https://json-schema.org/draft/2020-12/schema", None,
     "http://json-schema.org/draft-04/schema"),
    ("a $ref of 100 KB outside the schema", {"$ref": "http://x/" + X}, "output.ref", "/outputSchema/$ref",
     "$ref 'http://x/" + "x" * 187 + "... points outside the schema; it is never fetched", None,
     "rather than treated as permissive"),
    ("a $ref of 100 KB inside the schema that resolves to nothing", {"$ref": "#/$defs/" + X}, "output.ref",
     "/result/structuredContent", "a $ref does not resolve inside the schema: PointerToNowhere: '/$defs/xxx", None,
     "xxx'}"),
]


@pytest.mark.parametrize(("schema", "code", "path", "head", "whole", "tail"),
                         [case[1:] for case in SCHEMA_MESSAGE_CASES], ids=[case[0] for case in SCHEMA_MESSAGE_CASES])
def test_a_long_string_in_a_bad_schema_is_named_by_its_head(schema: Any, code: str, path: str, head: str,
                                                              whole: int | None, tail: str) -> None:
    (found,) = check_output(complete({"a": 1}), tool(schema)).findings
    assert (found.code, found.path) == (code, path)
    assert found.message.startswith(head) and found.message.endswith(tail), found.message[:300]
    assert len(found.message) < 650, len(found.message)
    if whole is not None:
        assert f"… ({whole} characters in all) …" in found.message
