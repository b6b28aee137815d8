"""The judgement's options: a wrong one is the caller's own mistake, an ``OptionError`` (a
ValueError) naming the option and the value, raised before any work and whatever the verdict,
as ``classify``'s options are; what the server's data reveals stays a finding.

Each row: the call, the option named (``OptionError.option``) and a fixed fragment of the
message. Before this table: ``schema_limits=None`` or a dict was ignored without an
outputSchema and an AttributeError or ``TypeError: unhashable type: 'dict'`` with one; a tool
given as a str or a list was read (``evaluate(verdict, ["t"])`` was content_verified, ``"t"``
a TypeError with an outputSchema to find); a verdict that is no Verdict an AttributeError;
``SchemaLimits(time_budget=inf)`` turned the time budget off and ``max_depth`` had no bound
(a schema nested 128 deep then crashed the jsonschema package's meta-validation);
``Observe.tool_call(5, [])`` and ``Suspect(1, None, "nope")`` were made; an expectation of no
kind (a str, an int, a set, a generator, a plain class) or a JSON Schema that cannot be used
was an ``expect.error`` finding, and none of them was looked at for a verdict with no content
to check; bad suspects passed for such a verdict too; ``decide`` and ``run_observation`` named
a wrong value's type or raised an AttributeError; ``Outcome("v", None)`` was made.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import anyio
import mcp.types
import pytest

from mcp_verdict import (
    DEFAULT_SUSPECTS,
    Observe,
    OptionError,
    Outcome,
    RetryPolicy,
    SchemaLimits,
    Suspect,
    Verdict,
    check_output,
    classify,
    decide,
    evaluate,
    run_observation,
    settle,
)

from .hostile import nested_list

NESTED = nested_list()
OK = classify({"jsonrpc": "2.0", "id": 1, "result": {
    "resultType": "complete", "content": [{"type": "text", "text": "ok"}], "structuredContent": {"a": 1}}})
TOOL_ERROR = classify({"jsonrpc": "2.0", "id": 1, "result": {
    "resultType": "complete", "content": [{"type": "text", "text": "no"}], "isError": True}})
INTERNAL = classify({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "internal"}})
TOOL = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
SDK_TOOL = mcp.types.Tool(name="t", input_schema={"type": "object"},
                          output_schema={"type": "object", "required": ["b"]})
EXPECTATION = ("a JSON Schema (a dict or a bool), a pydantic model class, a pydantic TypeAdapter or a plain "
               "(not async) callable taking the verdict")


class BadTitle(Mapping[str, Any]):
    """A schema mapping whose title cannot be read (and no JSON value: no dict)."""

    def __getitem__(self, key: str) -> Any:
        if key == "title":
            raise RuntimeError("no title")
        return {"type": "object"}[key]

    def __iter__(self) -> Iterator[str]:
        return iter(["type"])

    def __len__(self) -> int:
        return 1


async def async_predicate(verdict: Verdict) -> bool:
    return True


def coroutine_answer(verdict: Verdict) -> Any:  # a plain function answering a coroutine
    return async_predicate(verdict)


async def read() -> Any:
    return OK


def yes(value: Any) -> bool:
    return True


def no_match(verdict: Verdict) -> tuple[str, str] | None:
    return None


def generator() -> Iterator[Any]:
    yield {"type": "object"}


def observing(**options: Any) -> Callable[[], Any]:
    return lambda: Observe.tool_call(until=yes, **options)


# (id, the call, the option named, a fixed fragment of the message)
ROWS: list[tuple[str, Callable[[], Any], str, str]] = [
    # check_output, evaluate, settle: schema_limits
    ("check schema_limits None, no outputSchema", lambda: check_output(OK, schema_limits=None),  # type: ignore[arg-type]
     "schema_limits", "schema_limits must be a SchemaLimits, not None"),
    ("check schema_limits None, an outputSchema", lambda: check_output(OK, TOOL, schema_limits=None),  # type: ignore[arg-type]
     "schema_limits", "schema_limits must be a SchemaLimits, not None"),
    ("check schema_limits a dict", lambda: check_output(OK, TOOL, schema_limits={"max_depth": 3}),  # type: ignore[arg-type]
     "schema_limits", "schema_limits must be a SchemaLimits, not {'max_depth': 3}"),
    ("evaluate schema_limits a dict", lambda: evaluate(OK, TOOL, schema_limits={}),  # type: ignore[arg-type]
     "schema_limits", "schema_limits must be a SchemaLimits, not {}"),
    ("evaluate schema_limits, a tool error", lambda: evaluate(TOOL_ERROR, schema_limits=None),  # type: ignore[arg-type]
     "schema_limits", "schema_limits must be a SchemaLimits, not None"),
    ("settle schema_limits None", lambda: anyio.run(lambda: settle(OK, TOOL, schema_limits=None)),  # type: ignore[arg-type]
     "schema_limits", "schema_limits must be a SchemaLimits, not None"),
    # the tool
    ("check tool a str", lambda: check_output(OK, "outputSchema"),  # type: ignore[arg-type]
     "tool", "tool must be the tool as listed (a mapping) or None, not 'outputSchema'"),
    ("evaluate tool a list", lambda: evaluate(OK, ["t"]),  # type: ignore[arg-type]
     "tool", "tool must be the tool as listed (a mapping) or None, not ['t']"),
    ("evaluate tool a list, a tool error", lambda: evaluate(TOOL_ERROR, ["t"]),  # type: ignore[arg-type]
     "tool", "not ['t']"),
    ("settle tool a str", lambda: anyio.run(lambda: settle(OK, "t")),  # type: ignore[arg-type]
     "tool", "tool must be the tool as listed (a mapping) or None, not 't'"),
    # the SDK's Tool object (pydantic): its outputSchema was never seen ("outputSchema" in it is
    # False), so a result without the structuredContent it requires was content_verified
    ("evaluate tool the SDK's Tool", lambda: evaluate(OK, SDK_TOOL),  # type: ignore[arg-type]
     "tool", "; an SDK Tool: tool.model_dump(by_alias=True, exclude_none=True)"),
    # the verdict
    ("check verdict a dict", lambda: check_output({"x": 1}),  # type: ignore[arg-type]
     "verdict", "verdict must be a Verdict (what classify returns), not {'x': 1}"),
    ("check verdict None", lambda: check_output(None),  # type: ignore[arg-type]
     "verdict", "verdict must be a Verdict (what classify returns), not None"),
    ("evaluate verdict bytes", lambda: evaluate(b"{}"),  # type: ignore[arg-type]
     "verdict", "verdict must be a Verdict (what classify returns), not b'{}'"),
    ("settle verdict a str", lambda: anyio.run(lambda: settle("v")),  # type: ignore[arg-type]
     "verdict", "not 'v'"),
    # expect: what is no expectation is the caller's mistake, at once
    ("expect a str", lambda: check_output(OK, expect="count"),
     "expect", f"expect must be an expectation ({EXPECTATION}), a list or tuple of them, or None, not 'count'"),
    ("expect an int", lambda: check_output(OK, expect=42), "expect", "or None, not 42"),
    ("expect a set", lambda: check_output(OK, expect={"a"}), "expect", "or None, not {'a'}"),
    ("expect a generator", lambda: check_output(OK, expect=generator()), "expect", "or None, not <generator object"),
    ("expect a plain class", lambda: check_output(OK, expect=int), "expect",
     "not the class <class 'int'>, which is no pydantic model (pydantic.TypeAdapter(it) validates against it)"),
    ("expect an async predicate", lambda: check_output(OK, expect=async_predicate), "expect",
     "or None, not <function async_predicate"),
    ("expect[1] None", lambda: check_output(OK, expect=[yes, None]),
     "expect[1]", f"expect[1] must be {EXPECTATION}, not None"),
    ("expect[0] a str in a tuple", lambda: check_output(OK, expect=("x",)), "expect[0]", ", not 'x'"),
    ("expect an invalid schema", lambda: check_output(OK, expect={"type": 12}), "expect",
     "expect is a JSON Schema that cannot be used: at /type: the schema is invalid: 12 is not valid"),
    ("expect[0] a schema of an unknown dialect", lambda: check_output(OK, expect=[{"$schema": "urn:x"}]),
     "expect[0]", "expect[0] is a JSON Schema that cannot be used: at /$schema: dialect 'urn:x' is not supported"),
    ("expect a schema past the limits", lambda: check_output(OK, expect={"not": {"not": {}}},
                                                             schema_limits=SchemaLimits(max_depth=2)),
     "expect", "expect is a JSON Schema that cannot be used: at /not/not: the schema nests deeper than 2 levels"),
    ("expect a schema referring outside", lambda: check_output(OK, expect={"$ref": "https://x.example/s"}),
     "expect", "cannot be used: at /$ref: $ref 'https://x.example/s' points outside the schema"),
    ("expect a mapping that is no JSON value", lambda: check_output(OK, expect=BadTitle()),
     "expect", "expect is a JSON Schema that cannot be used: at /: the schema is not a JSON value"),
    ("expect, a tool error", lambda: evaluate(TOOL_ERROR, expect="count"), "expect", "or None, not 'count'"),
    ("expect, settle", lambda: anyio.run(lambda: settle(OK, expect=7)), "expect", "or None, not 7"),
    ("expect answering an awaitable", lambda: check_output(OK, expect=coroutine_answer), "expect",
     "expect must be a plain (not async) callable returning True, False or a reason string; it returned an "
     "awaitable"),
    # suspects
    ("suspects an int", lambda: check_output(OK, suspects=5),  # type: ignore[arg-type]
     "suspects", "suspects must be an iterable of Suspect values, not 5"),
    ("suspects[1] a str", lambda: check_output(OK, suspects=[DEFAULT_SUSPECTS[0], "x"]),  # type: ignore[list-item]
     "suspects[1]", "suspects must hold Suspect values, not 'x' (suspects[1])"),
    ("suspects, a tool error", lambda: evaluate(TOOL_ERROR, suspects=None),  # type: ignore[arg-type]
     "suspects", "not None"),
    # an endless generator of good heuristics: read past the bound, never for ever (it hung)
    ("suspects endless", lambda: check_output(OK, suspects=itertools.repeat(DEFAULT_SUSPECTS[0])),
     "suspects", "suspects must hold at most 10000 Suspect values; repeat("),
    ("trusted_server, a tool error", lambda: evaluate(TOOL_ERROR, trusted_server="yes"),  # type: ignore[arg-type]
     "trusted_server", "trusted_server must be True or False, not 'yes'"),
    # SchemaLimits
    ("time_budget inf", lambda: SchemaLimits(time_budget=math.inf),
     "SchemaLimits.time_budget", "SchemaLimits.time_budget must be a positive number of seconds, finite, not inf"),
    ("time_budget nan", lambda: SchemaLimits(time_budget=math.nan), "SchemaLimits.time_budget", "not nan"),
    ("time_budget 0", lambda: SchemaLimits(time_budget=0), "SchemaLimits.time_budget", "not 0"),
    ("time_budget negative", lambda: SchemaLimits(time_budget=-1.0), "SchemaLimits.time_budget", "not -1.0"),
    ("time_budget True", lambda: SchemaLimits(time_budget=True), "SchemaLimits.time_budget", "not True"),
    ("time_budget a str", lambda: SchemaLimits(time_budget="1"),  # type: ignore[arg-type]
     "SchemaLimits.time_budget", "not '1'"),
    # past the float range, and values whose repr cannot be written (it raised OverflowError, or
    # ValueError or RecursionError while writing the message)
    ("time_budget an int past the float range", lambda: SchemaLimits(time_budget=10**5000),
     "SchemaLimits.time_budget", "not <an integer of about 5000 digits>"),
    ("max_subschemas nested past the recursion limit", lambda: SchemaLimits(max_subschemas=NESTED),  # type: ignore[arg-type]
     "SchemaLimits.max_subschemas", "not [[[[[[[[[["),
    ("max_depth past the parser's bound", lambda: SchemaLimits(max_depth=201),
     "SchemaLimits.max_depth", "SchemaLimits.max_depth must be a positive integer of at most 200, not 201"),
    ("max_depth huge", lambda: SchemaLimits(max_depth=10**9), "SchemaLimits.max_depth", "not 1000000000"),
    ("max_depth 0", lambda: SchemaLimits(max_depth=0), "SchemaLimits.max_depth", "not 0"),
    ("max_depth True", lambda: SchemaLimits(max_depth=True), "SchemaLimits.max_depth", "not True"),
    ("max_depth a float", lambda: SchemaLimits(max_depth=2.0),  # type: ignore[arg-type]
     "SchemaLimits.max_depth", "not 2.0"),
    ("max_subschemas negative", lambda: SchemaLimits(max_subschemas=-5),
     "SchemaLimits.max_subschemas", "SchemaLimits.max_subschemas must be a positive integer, not -5"),
    ("max_subschemas nan", lambda: SchemaLimits(max_subschemas=math.nan),  # type: ignore[arg-type]
     "SchemaLimits.max_subschemas", "not nan"),
    ("max_location_chars 0", lambda: SchemaLimits(max_location_chars=0),
     "SchemaLimits.max_location_chars", "SchemaLimits.max_location_chars must be a positive integer, not 0"),
    ("max_location_chars False", lambda: SchemaLimits(max_location_chars=False),
     "SchemaLimits.max_location_chars", "not False"),
    ("max_location_chars a float", lambda: SchemaLimits(max_location_chars=1e6),  # type: ignore[arg-type]
     "SchemaLimits.max_location_chars", "not 1000000.0"),
    ("max_keyword_values 0", lambda: SchemaLimits(max_keyword_values=0),
     "SchemaLimits.max_keyword_values", "SchemaLimits.max_keyword_values must be a positive integer, not 0"),
    ("max_keyword_values True", lambda: SchemaLimits(max_keyword_values=True),
     "SchemaLimits.max_keyword_values", "not True"),
    ("max_keyword_values a str", lambda: SchemaLimits(max_keyword_values="100"),  # type: ignore[arg-type]
     "SchemaLimits.max_keyword_values", "not '100'"),
    # Observe
    ("tool_call name an int, arguments a list", lambda: Observe.tool_call(5, [], until=yes),  # type: ignore[arg-type]
     "Observe.tool_call.name", "Observe.tool_call's name must be the read tool's name (a non-empty string), not 5"),
    ("tool_call name empty", lambda: Observe.tool_call("", until=yes), "Observe.tool_call.name", "not ''"),
    ("tool_call arguments a list of pairs", lambda: Observe.tool_call("get", [("id", 1)], until=yes),  # type: ignore[arg-type]
     "Observe.tool_call.arguments",
     "Observe.tool_call's arguments must be the read tool's arguments (a mapping) or None, not [('id', 1)]"),
    ("tool_call arguments a str", lambda: Observe.tool_call("get", "ab", until=yes),  # type: ignore[arg-type]
     "Observe.tool_call.arguments", "not 'ab'"),
    ("Observe tool a str", lambda: Observe(until=yes, tool="get"),  # type: ignore[arg-type]
     "Observe.tool", "Observe.tool must be a (name, arguments) pair (Observe.tool_call makes it), not 'get'"),
    ("Observe attempts a float", lambda: Observe(read=read, until=yes, attempts=2.0),  # type: ignore[arg-type]
     "Observe.attempts", "Observe.attempts must be a positive integer, not 2.0"),
    ("Observe timeout inf", lambda: Observe(read=read, until=yes, timeout=math.inf),
     "Observe.timeout", "Observe.timeout is out of range: inf (it must be a finite number of seconds > 0)"),
    ("Observe interval an int past the float range", lambda: Observe(read=read, until=yes, interval=10**5000),
     "Observe.interval", "Observe.interval is out of range: <an integer of about 5000 digits> (it must be a finite "
     "number of seconds >= 0)"),
    ("Observe backoff below 1", lambda: Observe(read=read, until=yes, backoff=0.5),
     "Observe.backoff", "(it must be a finite number >= 1)"),
    ("settle observe a dict", lambda: anyio.run(lambda: settle(OK, observe={"read": read})),  # type: ignore[arg-type]
     "observe", "observe must be an Observe, not {'read': <function read"),
    ("run_observation observe a str", lambda: anyio.run(lambda: run_observation("x", read)),  # type: ignore[arg-type]
     "observe", "observe must be an Observe, not 'x'"),
    ("run_observation read an int", lambda: anyio.run(lambda: run_observation(Observe(read=read, until=yes), 5)),  # type: ignore[arg-type]
     "read", "read must be an async callable, not 5"),
    # Suspect
    ("Suspect id an int", lambda: Suspect(1, "d", no_match),  # type: ignore[arg-type]
     "Suspect.id", "Suspect.id must be a non-empty string, not 1"),
    ("Suspect id empty", lambda: Suspect("", "d", no_match), "Suspect.id", "not ''"),
    ("Suspect description None", lambda: Suspect("x", None, no_match),  # type: ignore[arg-type]
     "Suspect.description", "Suspect.description must be a string, not None"),
    ("Suspect test a str", lambda: Suspect("x", "d", "nope"),  # type: ignore[arg-type]
     "Suspect.test", "Suspect.test must be a plain (not async) callable taking the verdict, not 'nope'"),
    ("Suspect test async", lambda: Suspect("x", "d", async_predicate),  # type: ignore[arg-type]
     "Suspect.test", "not <function async_predicate"),
    # decide names the value, not its type
    ("decide a str", lambda: decide("verdict"),  # type: ignore[arg-type]
     "verdict", "decide takes a Verdict or an Outcome, not 'verdict'"),
    ("decide tool a str", lambda: decide(INTERNAL, tool="get"),  # type: ignore[arg-type]
     "tool", "tool must be the tool as listed (a mapping) or None, not 'get'"),
    ("decide attempt 0", lambda: decide(INTERNAL, attempt=0), "attempt", "attempt counts from 1, not 0"),
    ("decide request_sent 0", lambda: decide(INTERNAL, request_sent=0),  # type: ignore[arg-type]
     "request_sent", "request_sent must be True, False or None, not 0"),
    ("decide retry a dict", lambda: decide(INTERNAL, retry={"max_attempts": 3}),  # type: ignore[arg-type]
     "retry", "retry must be a RetryPolicy or None, not {'max_attempts': 3}"),
    # RetryPolicy
    ("RetryPolicy base_delay inf", lambda: RetryPolicy(base_delay=math.inf),
     "RetryPolicy.base_delay", "RetryPolicy.base_delay must be a finite number of seconds >= 0, not inf"),
    ("RetryPolicy max_delay an int past the float range", lambda: RetryPolicy(max_delay=10**5000),
     "RetryPolicy.max_delay", "not <an integer of about 5000 digits>"),
    ("RetryPolicy max_attempts nested past the recursion limit",
     lambda: RetryPolicy(max_attempts=NESTED),  # type: ignore[arg-type]
     "RetryPolicy.max_attempts", "RetryPolicy.max_attempts must be a positive integer, not [[[[[[[["),
    ("RetryPolicy max_attempts True", lambda: RetryPolicy(max_attempts=True),
     "RetryPolicy.max_attempts", "RetryPolicy.max_attempts must be a positive integer, not True"),
    # Outcome
    ("Outcome verdict a str", lambda: Outcome("v", None),  # type: ignore[arg-type]
     "Outcome.verdict", "Outcome.verdict must be a Verdict, not 'v'"),
    ("Outcome content_check a dict", lambda: Outcome(OK, {"passed": True}),  # type: ignore[arg-type]
     "Outcome.content_check", "Outcome.content_check must be a ContentCheck or None, not {'passed': True}"),
    ("Outcome trusted_server a str", lambda: Outcome(OK, None, trusted_server="yes"),  # type: ignore[arg-type]
     "Outcome.trusted_server", "Outcome.trusted_server must be True or False, not 'yes'"),
    ("Outcome tool a list", lambda: Outcome(OK, None, tool=["t"]),  # type: ignore[arg-type]
     "Outcome.tool", "Outcome.tool must be the tool as listed (a mapping) or None, not ['t']"),
]


@pytest.mark.parametrize(("call", "option", "fragment"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_a_wrong_option_is_an_option_error_naming_it_and_the_value(call: Callable[[], Any], option: str,
                                                                   fragment: str) -> None:
    with pytest.raises(OptionError) as raised:
        call()
    assert raised.value.option == option
    assert fragment in str(raised.value)
    assert isinstance(raised.value, ValueError)


def nested(keyword: str, levels: int, ref: bool = False) -> dict[str, Any]:
    """A schema ``levels`` subschemas deep through ``keyword`` (with an inner $ref when ``ref``)."""
    schema: dict[str, Any] = {"$defs": {"x": {}}, "$ref": "#/$defs/x"} if ref else {}
    inner = schema
    for _ in range(levels - 1):
        if keyword == "properties":
            inner["properties"] = {"p": {}}
            inner = inner["properties"]["p"]
        else:
            inner[keyword] = {}
            inner = inner[keyword]
    return schema


# A tool's outputSchema is the server's data: too deep a schema is a finding (output.bounds),
# whatever the limits allow; it was a RecursionError or jsonschema-rs's ValueError out of the check.
DEEP: list[tuple[str, dict[str, Any], SchemaLimits, str]] = [
    ("3000 deep, past what the JSON writers follow", nested("not", 3000), SchemaLimits(),
     "the schema nests deeper than 32 levels"),
    ("150 deep with a $ref, max_depth 200", nested("not", 150, ref=True), SchemaLimits(max_depth=200),
     "the schema nests too deeply to be checked"),
    ("200 deep through properties, max_depth 200", nested("properties", 200), SchemaLimits(max_depth=200),
     "the schema nests too deeply to be checked"),
]


@pytest.mark.parametrize(("schema", "limits", "message"), [row[1:] for row in DEEP], ids=[row[0] for row in DEEP])
def test_too_deep_an_output_schema_is_a_finding(schema: dict[str, Any], limits: SchemaLimits, message: str) -> None:
    check = check_output(OK, {"name": "t", "outputSchema": schema}, schema_limits=limits)
    assert check.codes == ("output.bounds",)
    assert check.findings[0].message == message


def test_a_retry_policy_whose_base_is_past_its_cap_waits_the_cap() -> None:
    """Documented clamping, not an error: ``max_delay`` caps every wait, the first included
    (the OpenAI Agents servers' base and cap are set apart and map here)."""
    decision = decide(INTERNAL, request_sent=False, retry=RetryPolicy(base_delay=2, max_delay=1))
    assert decision.rule == "not_sent"
    assert decision.delay is not None and 0.5 <= decision.delay <= 1.0


def test_what_the_server_data_reveals_stays_a_finding() -> None:
    """The other side of the line: a well-formed expectation that refuses the result, or raises
    on it, is a finding, never an exception."""
    assert check_output(OK, expect={"type": "object", "required": ["b"]}).codes == ("expect.failed",)
    assert check_output(OK, expect=lambda v: 1 / 0).codes == ("expect.error",)
