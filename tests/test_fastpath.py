"""Differential tests of the fast path against the full checker.

The fast path (``_fastpath.read_common`` on wire text, with msgspec's typed read and the
proof that the text repeats no member name, and
``_common_kind.common_kind`` on parsed values) may only ever say "well-formed, of this kind"
when the strict reader and the full checker say the same with no finding at all. These tests hold it to that
on every corpus case (parsed and on the wire) and on generated responses built to sit on the
fast path's boundaries: odd flags and ids, near-miss blocks, deep and wide open values, NaN,
tight limits, duplicate member names written on the wire, escaped colons and spaced-out text.

The reference is the classifier without any fast path: the strict reader, then every rule.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mcp_verdict import TASKS_EXTENSION, VERSIONS, Kind, Limits, Verdict, classify, corpus
from mcp_verdict.verdict._classify import DEFAULT_LIMITS
from mcp_verdict.verdict._common_kind import common_kind
from mcp_verdict.verdict._fastpath import _WIDE_BYTES, _spliced, read_common, read_quoted, wide_text
from mcp_verdict.verdict._judge import _options, check_fully
from mcp_verdict.verdict._options import SKIM_BYTES
from mcp_verdict.verdict._parser import NOT_PARSED, parse
from mcp_verdict.verdict._verdict import make_verdict
from mcp_verdict.verdict._walk import Options

from . import test_parser
from .test_properties import mutated

CASES = corpus.load()


def options_of(kwargs: dict[str, Any]) -> tuple[Options, Any]:
    """The checked options of a classify call, and its request id."""
    kwargs = dict(kwargs)
    request_id = kwargs.pop("request_id", None)
    options = _options(kwargs.pop("version", "2026-07-28"), kwargs.pop("client_capabilities", None),
                       kwargs.pop("extensions", ()), kwargs.pop("absent_result_type", "invalid"),
                       kwargs.pop("limits", DEFAULT_LIMITS))
    assert not kwargs
    return options, request_id


def reference(response: Any, kwargs: dict[str, Any]) -> Verdict:
    """classify with no fast path: the strict reader, then the full checker."""
    options, request_id = options_of(kwargs)
    message = response
    raw = isinstance(response, (bytes, bytearray, memoryview, str))
    if raw:
        message, problem = parse(response, options.max_bytes, options.max_depth)
        if problem is not None:
            return make_verdict(Kind.UNCLASSIFIED, (problem,), options.rules.version, None)
    return check_fully(message, options, request_id, caller=not raw)  # (a caller's value: its strings looked at)


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values with the same Python types (1, 1.0 and True differ) and key order."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def check_parsed(message: Any, kwargs: dict[str, Any]) -> Kind | None:
    """The fast path on a parsed value agrees with the full checker; returns its answer."""
    options, request_id = options_of(kwargs)
    kind = common_kind(message, options, request_id, caller=True)
    if kind is not None:
        full = check_fully(message, options, request_id, caller=True)
        assert (full.kind, full.findings) == (kind, ()), f"fast path said {kind} of {message!r}"
    assert classify(message, **kwargs) == reference(message, kwargs)
    return kind


def is_utf8(wire: bytes) -> bool:
    try:
        wire.decode()
    except UnicodeDecodeError:
        return False
    return True


def check_wire(wire: bytes, kwargs: dict[str, Any]) -> Kind | None:
    """The fast path on wire text agrees with the strict reader and the full checker, value
    for value; returns its answer."""
    options, request_id = options_of(kwargs)
    expected = reference(wire, kwargs)
    seen = (read_common(wire, options, request_id, count_values=len(wire) > options.max_nodes)
            if len(wire) <= options.max_bytes and options.read_common is not None else None)
    if seen is False and len(wire) > _WIDE_BYTES and not wire.isascii() and is_utf8(wire):
        # a long text past ASCII, left unread until the caller has checked its UTF-8: read after it
        seen = read_common(wire, options, request_id, count_values=len(wire) > options.max_nodes, utf8=True)
    if seen is False:  # its reader refused the text as no UTF-8 (RFC 8259 s8.1): so does the strict reader
        assert [f.code for f in expected.findings] == ["json.encoding"], f"fast path said no UTF-8 of {wire[:200]!r}"
        seen = None
    if seen is not None:
        assert (expected.kind, expected.findings) == (seen.kind, ()), f"fast path said {seen.kind} of {wire!r}"
        assert same_json(seen.message, expected.message)
    actual = classify(wire, **kwargs)
    assert actual == expected
    if expected.message is not None:
        assert same_json(actual.message, expected.message)
    return seen.kind if seen is not None else None


# --- every corpus case ------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_case(case: corpus.Case) -> None:
    if not case.raw:
        check_parsed(case.input, case.kwargs())
    check_wire(case.wire(), case.kwargs())


def test_the_fast_path_takes_the_common_cases() -> None:
    """Guards the guard: a fast path that always deferred would pass every test above."""
    taken = dict.fromkeys(Kind, 0)
    for case in CASES:
        if not case.raw and check_wire(case.wire(), case.kwargs()) is not None:
            taken[case.expect] += 1
    assert taken[Kind.NORMAL_COMPLETE] >= 100, taken
    assert taken[Kind.TOOL_ERROR] >= 10, taken
    assert taken[Kind.PROTOCOL_ERROR] >= 20, taken
    assert taken[Kind.INPUT_REQUIRED] >= 5, taken
    assert taken[Kind.UNCLASSIFIED] == 0, taken


_LINK = {"type": "resource_link", "uri": "file:///project/src/a.py", "name": "a.py", "mimeType": "text/x-python"}
_TEXT = {"type": "text", "text": "Found 2 files: « a.py » and b.py"}


def _links_result(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": list(blocks)}}


# (response, options, written compact, fast path takes it on the wire, fast path takes it parsed)
LINK_CASES: list[tuple[dict[str, Any], dict[str, Any], bool, bool]] = [
    # resource_link blocks, alone or beside text blocks (2025-06-18 schema: ResourceLink)
    (_links_result(_LINK, {**_LINK, "uri": "file:///b.py", "name": "b.py"}), {}, True, True),
    (_links_result(_TEXT, _LINK, _TEXT), {}, True, True),
    (_links_result({**_LINK, "title": "A", "description": "module a", "size": 1024}), {}, True, True),
    (_links_result(_LINK), {"version": "2025-06-18"}, True, True),
    # members the fast path does not declare: the full checker decides (here: no finding)
    (_links_result({**_LINK, "icons": []}), {}, False, False),
    (_links_result({**_LINK, "annotations": {"audience": ["user"]}}), {}, False, False),
    # wrong types or a missing name: the full checker explains
    (_links_result({**_LINK, "size": 1.5}), {}, False, False),
    (_links_result({**_LINK, "size": True}), {}, False, False),
    (_links_result({"type": "resource_link", "uri": "file:///a.py"}), {}, False, False),
    (_links_result({**_LINK, "text": "x"}), {}, False, False),
    # resource_link does not exist before 2025-06-18: content.type_version
    (_links_result(_LINK), {"version": "2025-03-26"}, False, False),
    # an image beside a link: the strict reader on the wire, the fast path on the parsed value
    (_links_result(_LINK, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}), {}, False, True),
]


@pytest.mark.parametrize(("message", "opts", "wire_fast", "parsed_fast"), LINK_CASES)
def test_resource_link_blocks_take_the_fast_path(message: dict[str, Any], opts: dict[str, Any],
                                                 wire_fast: bool, parsed_fast: bool) -> None:
    assert (check_wire(_compact(message).encode(), opts) is not None) is wire_fast
    assert (check_parsed(message, opts) is not None) is parsed_fast
    check_wire(json.dumps(message).encode(), opts)  # spaced and escaped: the strict reader, same verdict


# --- generated responses on the fast path's boundaries ----------------------------------------
# Responses of the common shapes, then (most of the time) one to three perturbations: a value
# replaced by a near miss, a member added or deleted. Options and limits vary too.

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(max_size=4), inner, max_size=3), max_leaves=12)
nested = st.integers(1, 70).map(lambda n: json.loads("[" * n + "]" * n))
open_values = st.one_of(json_values, json_values, nested,
                        st.dictionaries(st.text(max_size=3), json_values | nested, max_size=3))
odd: st.SearchStrategy[Any] = st.sampled_from([True, False, 0, 1, 0.0, "false", "true", None, [], {}, 1.5, -1,
                                               "", "2.0", "text", "complete", float("nan"), float("inf")])
json_text = st.text(alphabet=st.sampled_from('ab: "\\/\u00e9\n\x01'), max_size=8)

text_block = st.fixed_dictionaries({"type": st.just("text"), "text": json_text})
media_block = st.fixed_dictionaries({"type": st.sampled_from(["image", "audio"]), "data": st.text(max_size=4),
                                     "mimeType": st.sampled_from(["image/png", "audio/wav"])})
link_block: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {"type": st.just("resource_link"), "uri": st.sampled_from(["file:///a.py", "https://x/y"]), "name": json_text},
    optional={"title": json_text, "description": json_text, "mimeType": st.just("text/plain"),
              "size": st.integers(-1, 2**70) | st.floats(0, 10) | st.booleans(),
              "icons": st.sampled_from([[], [{"src": "a.png"}], [{"src": "a.png", "theme": "dark", "sizes": ["any"]}],
                                        [{"src": 1}], [{"src": "a.png", "theme": "blue"}], [{"src": "a.png",
                                                                                            "sizes": "48x48"}],
                                        ["a.png"], "a.png"])})
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
server_info = st.sampled_from([{"name": "s", "version": "1"}, {"name": "s"}, "s", None,
                               {"name": "s", "version": "1", "icons": [{"src": 1}]}])
metas = st.dictionaries(st.text(max_size=3), open_values, max_size=2) | st.builds(
    lambda info, rest: {SERVER_INFO: info, **rest}, server_info, st.dictionaries(st.text(max_size=3), open_values,
                                                                                  max_size=1))
complete = st.fixed_dictionaries(
    {"resultType": st.just("complete"), "content": st.lists(text_block | media_block | link_block, max_size=3)},
    optional={"isError": st.booleans(), "structuredContent": open_values, "_meta": metas})
schema = st.fixed_dictionaries(
    {"type": st.just("object"),
     "properties": st.dictionaries(st.text(max_size=3), st.fixed_dictionaries(
         {"type": st.sampled_from(["string", "number", "integer", "boolean", "array"])},
         optional={"description": json_text, "title": json_text | st.integers(),
                   "enum": st.lists(json_text, max_size=2), "default": odd, "format": st.sampled_from(
                       ["email", "phone"]), "minLength": odd, "items": st.just({"type": "string", "enum": ["a"]})}),
         max_size=2)},
    optional={"required": st.lists(st.text(max_size=3), max_size=2), "$defs": open_values})
elicitation = st.fixed_dictionaries(
    {"method": st.just("elicitation/create"),
     "params": st.fixed_dictionaries({"message": json_text, "requestedSchema": schema},
                                     optional={"mode": st.just("form")})})
input_required = st.fixed_dictionaries(
    {"resultType": st.just("input_required"),
     "inputRequests": st.dictionaries(json_text, elicitation, min_size=1, max_size=2)},
    optional={"requestState": json_text, "_meta": metas})
error = st.fixed_dictionaries(
    {"code": st.sampled_from([-32700, -32600, -32601, -32602, -32603, -32000, 404])
     | st.sampled_from([-32002, -32042, -32020, -32021, -32099, -32100, 0]) | st.integers(),
     "message": json_text},
    optional={"data": open_values})
common = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": st.integers(-2, 2) | st.text(max_size=2),
                                "result": complete | input_required}) | st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": st.integers(-2, 2) | st.text(max_size=2), "error": error})
keys = st.sampled_from(["jsonrpc", "id", "result", "error", "method", "resultType", "content", "isError",
                        "structuredContent", "_meta", "type", "text", "data", "mimeType", "code", "message",
                        "inputRequests", "requestState", "params", "mode", "requestedSchema", "properties",
                        "required", "annotations", "task", "x", "uri", "name", "title", "description", "size",
                        "icons"])


@st.composite
def responses(draw: st.DrawFn) -> Any:
    message: Any = copy.deepcopy(draw(common))  # perturbed in place below: never the strategy's own objects
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2, 3]))):
        target: Any = message
        for _ in range(draw(st.integers(0, 6))):  # down to a random container
            children = list(target.values()) if isinstance(target, dict) else target
            containers = [c for c in children if isinstance(c, (dict, list))]
            if not containers:
                break
            target = draw(st.sampled_from(containers))
        action = draw(st.sampled_from(["replace", "replace", "add", "delete"]))
        if isinstance(target, dict):
            if target and action != "add":
                key = draw(st.sampled_from(sorted(target)))
                if action == "delete":
                    del target[key]
                else:
                    target[key] = copy.deepcopy(draw(odd | json_values | nested | text_block | media_block
                                                      | link_block))
            else:
                target[draw(keys)] = copy.deepcopy(draw(odd | json_values))
        elif target and action != "add":
            index = draw(st.integers(0, len(target) - 1))
            if action == "delete":
                del target[index]
            else:
                target[index] = copy.deepcopy(draw(odd | json_values | text_block | media_block | link_block))
        else:
            target.append(copy.deepcopy(draw(odd | text_block | media_block | link_block)))
    return message


call_options = st.fixed_dictionaries({}, optional={
    "version": st.sampled_from(VERSIONS),
    "request_id": st.sampled_from([0, 1, -1, "1", "a"]),
    "client_capabilities": st.sampled_from([{}, {"elicitation": {}}, {"elicitation": {"url": {}}},
                                            {"elicitation": {"form": {}}}, {"elicitation": {"form": {}, "url": {}}},
                                            {"sampling": {}, "roots": {}}]),
    "extensions": st.just((TASKS_EXTENSION,)),
    "absent_result_type": st.just("complete"),
    "limits": st.builds(Limits, max_depth=st.integers(1, 8), max_nodes=st.integers(1, 30)),
})


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


WRITERS: list[Callable[[Any], str]] = [
    _compact,  # as the SDKs write it
    json.dumps,  # spaced out, non-ASCII escaped: the strict reader's job
    lambda v: json.dumps(v, separators=(",", ":")),  # compact, non-ASCII escaped: the strict reader's proof
    lambda v: _compact(v) + "\n",  # a line of JSON Lines
]


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(responses(), st.one_of(st.just({}), call_options), st.sampled_from(range(len(WRITERS))))
@example({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                "structuredContent": float("nan")}}, {}, 0)
def test_generated_responses(message: Any, opts: dict[str, Any], writer: int) -> None:
    check_parsed(message, opts)
    try:
        wire = WRITERS[writer](message).encode("utf-8", "surrogatepass")
    except ValueError:
        return
    check_wire(wire, opts)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_corpus_responses(pair: tuple[Any, dict[str, Any]]) -> None:
    message, opts = pair
    check_parsed(message, opts)
    check_wire(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"),
               opts)


# --- duplicate member names and escaped colons on the wire ------------------------------------

def write(value: Any, duplicate: int, escape_colons: bool) -> str:
    """Compact JSON; the ``duplicate``-th object met (depth first) writes its first member
    twice, the first copy with another value; colons in strings optionally as \\u003a."""
    seen = 0

    def string(text: str) -> str:
        out = json.dumps(text, ensure_ascii=False)
        return out.replace(":", "\\u003a") if escape_colons else out

    def go(item: Any) -> str:
        nonlocal seen
        if isinstance(item, dict):
            parts = [f"{string(k)}:{go(v)}" for k, v in item.items()]
            if item and seen == duplicate:
                first = next(iter(item))
                parts.insert(0, f"{string(first)}:{json.dumps(item[first] is None)}")
            seen += 1
            return "{" + ",".join(parts) + "}"
        if isinstance(item, list):
            return "[" + ",".join(go(v) for v in item) + "]"
        if isinstance(item, str):
            return string(item)
        return json.dumps(item)

    return go(value)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([c for c in CASES if not c.raw]), st.integers(-1, 6), st.booleans())
def test_duplicates_and_escaped_colons_never_pass_the_quick_reader(case: corpus.Case, duplicate: int,
                                                                    escape_colons: bool) -> None:
    wire = write(case.input, duplicate, escape_colons).encode("utf-8", "surrogatepass")
    check_wire(wire, case.kwargs())
    if duplicate >= 0:
        assert read_quick(wire, _DECODE) is NOT_PARSED or wire == json.dumps(
            case.input, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("wire", [
    b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"a:"}],'
    b'"isError":false,"isError":true}}',
    b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"a\\u003a"}],'
    b'"isError":false,"isError":true}}',
    b'{"jsonrpc":"2.0","id":1,"id":1,"result":{"resultType":"complete","content":[]}}',
    b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"a":1,"a":1}}}',
    b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"a":1,"\\u0061":1}}}',
])
def test_duplicates_are_found_by_the_strict_reader(wire: bytes) -> None:
    verdict = classify(wire)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [f.code for f in verdict.findings] == ["json.duplicate_key"]
    assert verdict == reference(wire, {})


_DECODE = msgspec.json.Decoder().decode


def read_quick(data: bytes, decode: Any) -> Any:
    """The premise of ``read_common``'s proof, on any text: a value msgspec read is used only
    when orjson writes it back as exactly the text, followed by nothing but whitespace."""
    try:
        value = decode(data)
        written = orjson.dumps(value)
    except Exception:
        return NOT_PARSED
    return value if written == data or data.startswith(written) else NOT_PARSED


def test_the_quick_reader_takes_only_what_it_can_prove() -> None:
    compact = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'
    assert read_quick(compact, _DECODE) == json.loads(compact)
    assert read_quick(compact + b" \n", _DECODE) == json.loads(compact)
    spaced = b'{"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}}'
    assert read_quick(spaced, _DECODE) is NOT_PARSED
    assert classify(spaced).kind is Kind.NORMAL_COMPLETE
    big = b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{"resultType":"complete","content":[]}}'
    assert read_quick(big, _DECODE) is NOT_PARSED
    assert classify(big).id == 123456789012345678901234567890
    for refused in (b'{"a":1,"a":2}', b'{"a":NaN}', b'{"a":1e400}', b'{"a":"\\ud800"}', b'\xef\xbb\xbf{}', b'{} x',
                    b'{"a":"\xff"}', b"[" * 2000 + b"]" * 2000):
        assert read_quick(refused, _DECODE) is NOT_PARSED, refused


def _nested_structured(lists: int) -> bytes:
    """A complete result whose structuredContent is ``lists`` nested arrays: the outermost
    at level 3 (envelope 1, result 2), the innermost at level ``lists + 2``."""
    return (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":'
            + b"[" * lists + b"]" * lists + b"}}")


@pytest.mark.parametrize(("lists", "limits", "fast", "kind", "codes"), [
    # innermost level 8: the deepest the declared shapes hold (_fastpath._TYPED_DEPTH)
    (6, DEFAULT_LIMITS, True, Kind.NORMAL_COMPLETE, []),
    # level 9, within the default limit of 64: left to the full checker, which accepts it
    (7, DEFAULT_LIMITS, False, Kind.NORMAL_COMPLETE, []),
    # level 64, the limit itself (basic/index: the receiver bounds nesting; README "Limits")
    (62, DEFAULT_LIMITS, False, Kind.NORMAL_COMPLETE, []),
    # level 65, past the limit
    (63, DEFAULT_LIMITS, False, Kind.UNCLASSIFIED, ["json.too_deep"]),
    # the tightest limit the common shapes allow (9) is still deeper than the declared shapes
    (6, Limits(max_depth=9), True, Kind.NORMAL_COMPLETE, []),
    (7, Limits(max_depth=9), False, Kind.NORMAL_COMPLETE, []),
    (8, Limits(max_depth=9), False, Kind.UNCLASSIFIED, ["json.too_deep"]),
    # a limit too tight for the common shapes themselves: no fast path
    (1, Limits(max_depth=8), False, Kind.NORMAL_COMPLETE, []),
])
def test_the_depth_limit_is_declared_to_the_typed_reader(lists: int, limits: Limits, fast: bool, kind: Kind,
                                                         codes: list[str]) -> None:
    wire = _nested_structured(lists)
    options, _ = options_of({"limits": limits})
    seen = read_common(wire, options, None) if options.read_common is not None else None
    assert (seen is not None) is fast
    verdict = classify(wire, limits=limits)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)


def _form(definition: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {"q": {
        "method": "elicitation/create", "params": {"message": "m", "requestedSchema": {
            "type": "object", "properties": {"p": definition}}}}}}}


# (response, version, does the fast path take it, the kind, the codes): the fast path takes
# only common requested properties with exact JSON types and only the plainest serverInfo; the
# rules of _elicitation and _meta decide the rest (client/elicitation#requested-schema,
# 2026-07-28/schema#resultmetaobject).
ROUTED: list[tuple[dict[str, Any], str, bool, Kind, list[str]]] = [
    (_form({"type": "string", "title": "T", "description": "D"}), "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    (_form({"type": "boolean"}), "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    # a property of its type alone, seen in read_typed's loop: the four primitive types; any other
    # type alone (an array needs its items), a list of types, a title without a type are not
    (_form({"type": "string"}), "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    (_form({"type": "number"}), "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    (_form({"type": "integer"}), "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    (_form({"type": "object"}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": "null"}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": ["string"]}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": 1}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"title": "string"}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": "string", "format": "email", "minLength": 3, "default": "a@b.c"}), "2026-07-28", True,
     Kind.INPUT_REQUIRED, []),
    (_form({"type": "string", "enum": ["a", "b"]}), "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    (_form({"type": "number", "minimum": 0.5, "default": 1}), "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    (_form({"type": "string", "minLength": 3.0}), "2026-07-28", False, Kind.INPUT_REQUIRED, []),
    (_form({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 1, "default": ["a"]}),
     "2026-07-28", True, Kind.INPUT_REQUIRED, []),
    (_form({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}), "2026-07-28", False,
     Kind.INPUT_REQUIRED, []),
    (_form({"type": "array", "items": {"type": "string", "enum": [1]}}), "2026-07-28", False,
     Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": "string", "enum": [1]}), "2026-07-28", False, Kind.INPUT_REQUIRED, []),
    (_form({"type": "boolean", "default": "no"}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": "string", "format": "phone"}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": "array"}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": "string", "title": 1}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    (_form({"type": "integer", "default": "1"}), "2026-07-28", False, Kind.UNCLASSIFIED, ["elicitation.property"]),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                            "_meta": {SERVER_INFO: "s"}}},
     "2026-07-28", False, Kind.UNCLASSIFIED, ["meta.reserved"]),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                            "_meta": {SERVER_INFO: {"name": "s", "version": "1"}}}},
     "2026-07-28", True, Kind.NORMAL_COMPLETE, []),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [], "_meta": {
        SERVER_INFO: {"name": "s", "version": "1", "icons": [{"src": "i.png"}]}, "k": 1}}},
     "2026-07-28", False, Kind.NORMAL_COMPLETE, []),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                            "_meta": {SERVER_INFO: {"name": "s"}}}},
     "2026-07-28", False, Kind.UNCLASSIFIED, ["meta.reserved"]),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "x",
                                            "_meta": {SERVER_INFO: 1}}},
     "2026-07-28", False, Kind.UNCLASSIFIED, ["meta.reserved"]),
    ({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "_meta": {SERVER_INFO: "s"}}},
     "2025-11-25", True, Kind.NORMAL_COMPLETE, []),
    # resultType: absent before 2026-07-28, where no result is input_required (read_typed does not
    # look); required from 2026-07-28 (the typed read declares it so; read_typed reads it at once)
    ({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}}, "2025-11-25", True, Kind.TOOL_ERROR,
     []),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}}, "2025-06-18", True,
     Kind.NORMAL_COMPLETE, []),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}}, "2025-11-25",
     False, Kind.UNCLASSIFIED, ["result.result_type_unknown"]),
    ({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}, "2026-07-28", False, Kind.UNCLASSIFIED,
     ["result.result_type_missing"]),
    # a member of the other kind of result is one no rule names there: held to the JSON rules alone, by the
    # full checker (_walk.check_extras)
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s", "content": []}},
     "2026-07-28", False, Kind.INPUT_REQUIRED, []),
    ({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [], "requestState": "s"}},
     "2026-07-28", False, Kind.NORMAL_COMPLETE, []),
]


@pytest.mark.parametrize(("message", "version", "fast", "kind", "codes"), ROUTED)
def test_the_new_rules_hold_on_the_fast_path(message: dict[str, Any], version: str, fast: bool, kind: Kind,
                                             codes: list[str]) -> None:
    kwargs = {"version": version}
    assert (check_wire(_compact(message).encode("utf-8"), kwargs) is not None) is fast
    assert (check_parsed(message, kwargs) is not None) is fast
    verdict = classify(message, version=version)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)


_FORM = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s1", "inputRequests": {
    "ok": {"method": "elicitation/create", "params": {"mode": "form", "message": "Delete?", "requestedSchema": {
        "type": "object", "properties": {"confirm": {"type": "boolean"}}}}}}}}
_STATE_ONLY = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s1"}}

# (response, the client's declared capabilities, the fast path takes it, kind, finding codes).
# client/elicitation#capabilities (2025-11-25 and 2026-07-28): "elicitation": {} means form mode
# alone; with members, form mode needs "form"; a client that declares no elicitation MUST NOT be
# asked (input.capability, _input._require_capability).
CAPABILITY_CASES: list[tuple[dict[str, Any], dict[str, Any] | None, bool, Kind, list[str]]] = [
    (_FORM, None, True, Kind.INPUT_REQUIRED, []),
    (_FORM, {"elicitation": {}}, True, Kind.INPUT_REQUIRED, []),
    (_FORM, {"elicitation": {"form": {}}}, True, Kind.INPUT_REQUIRED, []),
    (_FORM, {"elicitation": {"form": {}, "url": {}}, "sampling": {}}, True, Kind.INPUT_REQUIRED, []),
    (_FORM, {"elicitation": {"form": {}}, "extensions": {TASKS_EXTENSION: {}}}, True, Kind.INPUT_REQUIRED, []),
    (_FORM, {"elicitation": {"url": {}}}, False, Kind.UNCLASSIFIED, ["input.capability"]),
    (_FORM, {}, False, Kind.UNCLASSIFIED, ["input.capability"]),
    (_FORM, {"sampling": {}, "roots": {}}, False, Kind.UNCLASSIFIED, ["input.capability"]),
    # no input request: no capability is asked for
    (_STATE_ONLY, {}, True, Kind.INPUT_REQUIRED, []),
    (_STATE_ONLY, {"elicitation": {"url": {}}}, True, Kind.INPUT_REQUIRED, []),
]


@pytest.mark.parametrize(("message", "capabilities", "fast", "kind", "codes"), CAPABILITY_CASES)
def test_input_required_takes_the_fast_path_under_declared_capabilities(
        message: dict[str, Any], capabilities: dict[str, Any] | None, fast: bool, kind: Kind,
        codes: list[str]) -> None:
    kwargs = {"client_capabilities": capabilities}
    assert (check_wire(_compact(message).encode("utf-8"), kwargs) is not None) is fast
    assert (check_parsed(message, kwargs) is not None) is fast
    for response in (message, _compact(message).encode("utf-8"), json.dumps(message).encode("utf-8")):
        verdict = classify(response, client_capabilities=capabilities)
        assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)


def test_a_member_the_declared_shapes_do_not_name_is_not_dropped() -> None:
    """The typed reader drops an undeclared member; the proof then sends the text on."""
    extra = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"x":[1e400]}}'
    options, _ = options_of({})
    assert read_common(extra, options, None) is None
    assert [f.code for f in classify(extra).findings] == ["json.number_out_of_range"]
    method = b'{"jsonrpc":"2.0","id":1,"method":"x","result":{"resultType":"complete","content":[]}}'
    assert read_common(method, options, None) is None
    assert [f.code for f in classify(method).findings] == ["envelope.request_shape"]


@settings(max_examples=400)
@given(st.one_of(test_parser.json_text, json_values.map(_compact), json_values.map(_compact).map(lambda t: t + " "),
                 st.lists(test_parser.fragments, max_size=12).map("".join)).map(
    lambda t: t.encode("utf-8", "surrogatepass")) | st.binary(max_size=40))
@example(b'{"a":1,"a":2}')
@example(b'{"a":"\\u003a","a":1}')
@example(b'[1e400]')
def test_the_quick_reader_agrees_with_the_strict_stdlib(data: bytes) -> None:
    """What the quick reader takes, a strict json (no NaN, no duplicates, UTF-8) takes too,
    with the same value; it may refuse more (text not written compactly), never less."""
    value = read_quick(data, _DECODE)
    if value is NOT_PARSED:
        return
    try:
        expected = test_parser._stdlib(data)
    except test_parser._Rejected:
        raise AssertionError(f"the quick reader took what the strict stdlib refuses: {data!r}") from None
    assert same_json(value, expected)


@pytest.mark.parametrize(("max_depth", "fast", "kind", "codes"), [
    # a multi-select's enum is an array at level 10 (envelope 1, result 2, inputRequests 3, the
    # request 4, params 5, requestedSchema 6, properties 7, the property 8, items 9)
    (9, False, Kind.UNCLASSIFIED, ["json.too_deep"]),
    (10, True, Kind.INPUT_REQUIRED, []),
])
def test_a_multi_select_is_held_to_the_depth_limit(max_depth: int, fast: bool, kind: Kind, codes: list[str]) -> None:
    message = _form({"type": "array", "items": {"type": "string", "enum": ["a"]}})
    wire = _compact(message).encode("utf-8")
    kwargs: dict[str, Any] = {"limits": Limits(max_depth=max_depth)}
    assert (check_wire(wire, kwargs) is not None) is fast
    assert (check_parsed(message, kwargs) is not None) is fast
    verdict = classify(wire, **kwargs)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)


_SPACED = (b'{"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", '
           b'"content": [{"type": "text", "text": "a: b"}]}}')
_ESCAPED = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"caf\\u00e9"}'

# (wire text the write-back cannot prove, the fast path takes it)
STRICT_PROOF_CASES = [
    (_ESCAPED + b"]}}", True),  # an escaped é: the strict reader proves it
    (_ESCAPED + b'],"structuredContent":{"n":1e2}}}', True),  # 1e2 written back as 100.0
    (_ESCAPED[:-1] + b',"text":"x"}]}}', False),  # a repeated name (RFC 8259 section 4): json.duplicate_key
    (_ESCAPED + b'],"x":1}}', False),  # a member the shapes do not declare: the full checker walks it
    (_ESCAPED + b"]}}" + b" " * 5000, False),  # longer than the strict proof and the colon count take
    # the colon count: the text holds as many colons as the value written back, so no name repeats
    # and no member was dropped; a colon written \u003a inside a string could hide a repeated name
    (_SPACED, True),  # json.dumps' separators
    (_SPACED[:-3] + b', "text": "x"}]}}', False),  # a repeated name: one colon more than the write-back
    (_ESCAPED + b'],"structuredContent":{"a":1,"a":2,"b":"\\u003a"}}}', False),  # json.duplicate_key
    (b" " * 5000 + _SPACED, True),  # long and spaced: orjson reads it, the quote count proves it
]


@pytest.mark.parametrize(("wire", "fast"), STRICT_PROOF_CASES)
def test_the_strict_reader_proves_what_the_write_back_cannot(wire: bytes, fast: bool) -> None:
    assert (check_wire(wire, {}) is not None) is fast


def _long_spaced(result: str, envelope: str = '"id": 1') -> bytes:
    """A response as ``json.dumps`` writes it (spaced, non-ASCII escaped), longer than the
    strict proof takes (4 KiB): 1,500 é written ``\\u00e9`` in its first text block; ``result``
    the members after content, written as they are."""
    text = json.dumps("é" * 1500)
    return (f'{{"jsonrpc": "2.0", {envelope}, "result": {{"resultType": "complete", "content": '
            f'[{{"type": "text", "text": {text}}}]{result}}}}}').encode()


# (wire text longer than 4 KiB as json.dumps writes it; the fast path takes it; kind; findings):
# orjson reads it, and the quote count proves no member name repeats (module docstring of
# _fastpath): a text holds 2 quote bytes per string plus one per \" escape. RFC 8259 s4: names
# SHOULD be unique (json.duplicate_key); s6: integers past 64 bits are read exactly.
QUOTE_PROOF_CASES: list[tuple[bytes, bool, Kind, list[str]]] = [
    (_long_spaced(""), True, Kind.NORMAL_COMPLETE, []),
    (_long_spaced(', "isError": true'), True, Kind.TOOL_ERROR, []),
    (_long_spaced(', "structuredContent": {"q": "say \\"hi\\"", "a\\"b": [1, 2.5, null]}'), True,
     Kind.NORMAL_COMPLETE, []),
    (_long_spaced("", '"id": "r-7"'), True, Kind.NORMAL_COMPLETE, []),
    # a repeated name: two quote bytes more than the value's strings
    (_long_spaced(', "isError": false, "isError": true'), False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_long_spaced("", '"id": 1, "id": 1'), False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_long_spaced(', "structuredContent": {"a": "x\\"y", "a": 1}'), False, Kind.UNCLASSIFIED,
     ["json.duplicate_key"]),
    (_long_spaced(', "structuredContent": {"q": "\\"", "a": 1, "a": 2}'), False, Kind.UNCLASSIFIED,
     ["json.duplicate_key"]),
    # a quote written \u0022 is a quote of the value but no quote byte: two of them balance a
    # repeated name's two, so the count proves nothing and the strict reader reads the text
    (_long_spaced(', "structuredContent": {"q": "\\u0022\\u0022"}, "isError": false, "isError": true'), False,
     Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_long_spaced(', "structuredContent": {"q": "\\u0022"}'), False, Kind.NORMAL_COMPLETE, []),
    # an integer past 64 bits: orjson reads a float, the strict reader the integer
    (_long_spaced(', "structuredContent": {"n": 18446744073709551616}'), False, Kind.NORMAL_COMPLETE, []),
    (_long_spaced(', "structuredContent": {"n": -9223372036854775809}'), False, Kind.NORMAL_COMPLETE, []),
    (_long_spaced(', "structuredContent": {"n": 1e19}'), False, Kind.NORMAL_COMPLETE, []),  # (written as a float)
    (_long_spaced(', "structuredContent": {"n": 9223372036854775807, "m": -9223372036854775808}'), True,
     Kind.NORMAL_COMPLETE, []),
    # what orjson refuses, the strict reader explains
    (_long_spaced(', "structuredContent": {"n": NaN}'), False, Kind.UNCLASSIFIED, ["json.syntax"]),  # s6
    (_long_spaced(', "structuredContent": {"s": "\\ud800"}'), False, Kind.UNCLASSIFIED, ["json.encoding"]),  # s8.2
    # a member no rule names (results are open): the full checker walks it
    (_long_spaced(', "x": 1'), False, Kind.NORMAL_COMPLETE, []),
]


@pytest.mark.parametrize(("wire", "fast", "kind", "codes"), QUOTE_PROOF_CASES)
def test_the_quote_count_proves_a_long_spaced_text(wire: bytes, fast: bool, kind: Kind, codes: list[str]) -> None:
    assert len(wire) > 4096 and wire[11] == 32
    assert (check_wire(wire, {}) is not None) is fast
    verdict = classify(wire)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)
    if verdict.message is not None:
        assert same_json(verdict.message, json.loads(wire))


_WIDE = "心有其理，理智不知。夏天、男孩。🎉 "


def _long_wide(result: str, envelope: str = '"id":1', chars: int = 4000, after: bytes = b"") -> bytes:
    """A compact response (as orjson and the SDKs write it: characters past ASCII as they are)
    whose first text block holds ``chars`` characters of CJK and emoji (4,000: ~12 kB, past the
    8 KiB from which orjson reads such a text); ``result`` the members after content;
    ``after``: bytes put after the text's first quarter, inside the string."""
    text = json.dumps((_WIDE * (chars // len(_WIDE) + 1))[:chars], ensure_ascii=False).encode()
    quarter = len(text) // 4
    while text[quarter] & 0xC0 == 0x80:  # (a character's first byte)
        quarter += 1
    return (b'{"jsonrpc":"2.0",' + envelope.encode() + b',"result":{"resultType":"complete","content":'
            b'[{"type":"text","text":' + text[:quarter] + after + text[quarter:] + b"}]" + result.encode() + b"}}")


# (a compact text that is mostly long strings past ASCII, 12 kB or, with 100,000 characters,
# ~300 kB, past the skim's 256 KiB; whether the fast path takes it; kind; findings): orjson reads
# it and the quote count proves it, as for a long spaced text (module docstring of _fastpath);
# what it cannot prove, the strict reader reads and explains. RFC 8259 s4 (names SHOULD be
# unique: json.duplicate_key), s6 (integers past 64 bits read exactly), s8.1 (UTF-8:
# json.encoding, named wherever the byte sits), s8.2 (a lone surrogate).
WIDE_CASES: list[tuple[bytes, bool, Kind, list[str]]] = [
    (_long_wide(""), True, Kind.NORMAL_COMPLETE, []),
    (_long_wide(',"isError":true'), True, Kind.TOOL_ERROR, []),
    (_long_wide('', '"id":"r-7"'), True, Kind.NORMAL_COMPLETE, []),
    (_long_wide(',"structuredContent":{"q":"说 \\"你好\\"","a\\"b":[1,2.5,null]}'), True, Kind.NORMAL_COMPLETE, []),
    (_long_wide("", after=b'\\"'), True, Kind.NORMAL_COMPLETE, []),  # a quote in the text, escaped
    (_long_wide(',"isError":false,"isError":true'), False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_long_wide("", '"id":1,"id":1'), False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_long_wide(',"structuredContent":{"q":"\\u0022\\u0022"},"isError":false,"isError":true'), False,
     Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_long_wide(',"structuredContent":{"n":18446744073709551616}'), False, Kind.NORMAL_COMPLETE, []),
    (_long_wide(',"isError":"false"'), False, Kind.UNCLASSIFIED, ["result.is_error"]),
    (_long_wide("", after=b"\xff"), False, Kind.UNCLASSIFIED, ["json.encoding"]),
    (_long_wide("", after=b"\\ud800"), False, Kind.UNCLASSIFIED, ["json.encoding"]),
    # past the skim's 256 KiB: orjson first (it checks the UTF-8 itself), else the skim
    (_long_wide("", chars=100_000), True, Kind.NORMAL_COMPLETE, []),
    (_long_wide(',"isError":false,"isError":true', chars=100_000), False, Kind.UNCLASSIFIED,
     ["json.duplicate_key"]),
    (_long_wide("", chars=100_000, after=b"\xc3("), False, Kind.UNCLASSIFIED, ["json.encoding"]),
    (_long_wide("", chars=100_000, after=b"\\q"), False, Kind.UNCLASSIFIED, ["json.syntax"]),  # s7: no \q escape
    (_long_wide(',"structuredContent":{"n":NaN}', chars=100_000), False, Kind.UNCLASSIFIED, ["json.syntax"]),
]


@pytest.mark.parametrize(("wire", "fast", "kind", "codes"), WIDE_CASES)
def test_the_quote_count_proves_a_long_wide_text(wire: bytes, fast: bool, kind: Kind, codes: list[str]) -> None:
    assert len(wire) > 8192 and wire[11] != 32 and not wire.isascii()
    assert wide_text(wire)
    if len(wire) <= SKIM_BYTES:  # (past it, judge tries orjson before the skim: classify's own route)
        assert (check_wire(wire, {}) is not None) is fast
    else:
        assert bool(read_quoted(wire, _options("2026-07-28"), None)) is fast
        check_wire(wire, {})
    verdict = classify(wire)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)
    if verdict.message is not None:
        assert same_json(verdict.message, json.loads(wire))


def _wide_first(result: str = "", before: str = "", chars: int = 1000, text: bytes | None = None,
                after: bytes = b"") -> bytes:
    """A compact response of ~3 kB whose first content block is a text of ``chars`` characters
    past ASCII (past the 2.5 KiB from which orjson reads such texts, below 8 KiB); ``before``
    the result's members before content, ``result`` those after it; ``text`` the block's text
    as written, else that text; ``after``: bytes after the whole response."""
    if text is None:
        text = json.dumps((_WIDE * (chars // len(_WIDE) + 1))[:chars], ensure_ascii=False).encode()
    return (b'{"jsonrpc":"2.0","id":1,"result":{' + before.encode() + b'"resultType":"complete","content":'
            b'[{"type":"text","text":' + text + b"}]" + result.encode() + b"}}" + after)


_WIDE_TEXT = json.dumps((_WIDE * 60)[:1000], ensure_ascii=False)[1:-1]

# (a compact text whose first block is a long text past ASCII, under 8 KiB: orjson reads it; whether
# the write-back with that text left out proves orjson's value and msgspec's typed read's (one bool
# for both) (_fastpath._spliced: the writing with the text swapped for "\u0000", and the text's
# bytes one string token in its place); whether the fast path takes it; kind; findings).
# What the splice does not prove, the quote count or the strict reader
# decides as before. RFC 8259 s4: names SHOULD be unique (json.duplicate_key); s7: strings.
SPLICE_CASES: list[tuple[bytes, bool | tuple[bool, bool], bool, Kind, list[str]]] = [
    (_wide_first(), True, True, Kind.NORMAL_COMPLETE, []),
    (_wide_first(',"isError":true'), True, True, Kind.TOOL_ERROR, []),
    (_wide_first(',"structuredContent":{"n":"\\u0000"}'), True, True, Kind.NORMAL_COMPLETE, []),
    # escapes in the text: one string token still (no quote byte inside, the last quote not escaped)
    (_wide_first(text=f'"{_WIDE_TEXT}\\n\\t\\u0022\\u00e9"'.encode()), True, True, Kind.NORMAL_COMPLETE, []),
    # a quote byte inside (escaped), or a text ending with an escaped backslash: not proven by the
    # splice (its test is the quote bytes), the whole write-back proves them
    (_wide_first(text=f'"{_WIDE_TEXT}\\"!"'.encode()), False, True, Kind.NORMAL_COMPLETE, []),
    (_wide_first(text=f'"{_WIDE_TEXT}\\\\"'.encode()), False, True, Kind.NORMAL_COMPLETE, []),
    # "\u0000" earlier in the result: the sentinel's first writing is not the text's
    (_wide_first(before='"structuredContent":{"s":"\\u0000"},'), False, True, Kind.NORMAL_COMPLETE, []),
    (_wide_first(after=b"\n"), False, True, Kind.NORMAL_COMPLETE, []),  # whitespace after: the write-back's
    # a repeated name: the splice's two parts do not hold the text (msgspec kept the last copy)
    (_wide_first(text=b'"x","text":' + f'"{_WIDE_TEXT}"'.encode()), False, False, Kind.UNCLASSIFIED,
     ["json.duplicate_key"]),
    (_wide_first(text=f'"{_WIDE_TEXT}","text":"x"'.encode()), False, False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_wide_first(',"isError":false,"isError":true'), False, False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_wide_first(',"structuredContent":{"a":1,"a":2}'), False, False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_wide_first(before='"isError":true,"isError":false,'), False, False, Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    # ... where the writing of numbers makes up the repeated member's length (1e6 written back as
    # 1000000.0): the two parts, not only the length, must be the text's
    (_wide_first(before='"isError":true,"isError":true,"structuredContent":{"n":[1e6,1e6,1e3]},'), False, False,
     Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    (_wide_first(',"structuredContent":{"n":[1e6,1e6,1e3]},"isError":true,"isError":true'), False, False,
     Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    # a member the shapes do not declare: orjson's value holds it (the splice proves it), msgspec's
    # typed read drops it (the splice does not); either way the full checker walks it
    (_wide_first(',"x":1'), (True, False), False, Kind.NORMAL_COMPLETE, []),
    # an integer past 64 bits: orjson reads a float (written back otherwise), so neither the splice
    # nor the quote count proves orjson's value: the strict reader reads it exactly (RFC 8259 s6)
    (_wide_first(',"structuredContent":{"n":18446744073709551616}'), False, False, Kind.NORMAL_COMPLETE, []),
    (_wide_first(chars=100, result=',"structuredContent":{"t":"' + "\u4e2d" * 900 + '"}'), False, True,
     Kind.NORMAL_COMPLETE, []),  # a short first text (the rest wide): the quote count
]


@pytest.mark.parametrize(("wire", "spliced", "fast", "kind", "codes"), SPLICE_CASES)
def test_the_write_back_leaves_a_long_wide_text_out(wire: bytes, spliced: bool | tuple[bool, bool], fast: bool,
                                                    kind: Kind, codes: list[str]) -> None:
    options = _options("2026-07-28")
    assert options.read_common is not None and _WIDE_BYTES < len(wire) <= 8192 and wide_text(wire)
    by_reader = spliced if isinstance(spliced, tuple) else (spliced, spliced)
    for read, proven in zip((orjson.loads, options.read_common), by_reader, strict=True):  # (orjson: the route's)
        try:
            message = read(wire)
        except (msgspec.ValidationError, msgspec.DecodeError, orjson.JSONDecodeError):
            message = None
        if message is not None:
            before = copy.deepcopy(message)
            assert _spliced(wire, message) is proven
            assert same_json(message, before)  # (the text swapped back)
        else:
            assert not proven
    assert (check_wire(wire, {}) is not None) is fast
    verdict = classify(wire)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)
    if verdict.message is not None:
        assert same_json(verdict.message, json.loads(wire))


# (a compact text; whether it reads as mostly long strings past ASCII): a byte past ASCII and no
# quote in the 512 bytes at the middle; a listing, or an ASCII text, is left to the typed read
WIDE_TEXT_CASES = [
    (_long_wide(""), True),
    (_long_wide("").replace("心".encode(), b"x").replace("理".encode(), b"y"), True),  # (still emoji and CJK)
    (orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [
        {"type": "text", "text": "a plain ASCII text. " * 600}]}}), False),
    (orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                   "structuredContent": {"files": [{"name": f"文件{i}.txt", "size": i} for i in range(600)]}}}), False),
]


@pytest.mark.parametrize(("wire", "wide"), WIDE_TEXT_CASES)
def test_which_texts_read_as_wide(wire: bytes, wide: bool) -> None:
    assert wide_text(wire) is wide
    check_wire(wire, {})


_WIDE_WIRE = _long_wide(',"structuredContent":{"q":"说 \\"你好\\"","n":[1,2.5,null,true]},"isError":false')
_WIDE_LONG = _long_wide(',"isError":false', chars=100_000)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from([_WIDE_WIRE, _WIDE_LONG]), st.floats(0, 1), st.sampled_from(["flip", "insert", "delete"]),
       st.binary(min_size=1, max_size=3))
def test_a_wide_text_broken_anywhere_reads_as_the_strict_reader_reads_it(wire: bytes, where: float, how: str,
                                                                           junk: bytes) -> None:
    """A long text past ASCII (orjson's route, and past 256 KiB orjson before the skim) with
    bytes changed, put in or taken out anywhere: the verdict is the strict reader's and the full
    checker's, finding for finding (check_wire)."""
    at = min(int(where * len(wire)), len(wire) - 1)
    if how == "flip":
        broken = wire[:at] + bytes([wire[at] ^ junk[0] or 1]) + wire[at + 1:]
    elif how == "insert":
        broken = wire[:at] + junk + wire[at:]
    else:
        broken = wire[:at] + wire[at + len(junk):]
    check_wire(broken, {})


# (a text of 512 bytes or less: the window is the whole text, never counted from its end)
@pytest.mark.parametrize(("wire", "wide"), [
    ("东京".encode() * 10, True),
    ("东京".encode() * 10 + b'"', False),
    (b"x" * 300, False),
    (b"", False),
])
def test_a_short_texts_window_is_its_start(wire: bytes, wide: bool) -> None:
    assert wide_text(wire) is wide


def write_spaced(value: Any, duplicate: int, quote_escape: str, compact: bool = False) -> tuple[str, bool]:
    """``json.dumps``' writing (spaced, ASCII), except: the ``duplicate``-th object met (depth
    first) writes its first member twice, the first copy with another value; a quote in a
    string written ``quote_escape`` (``\\"`` or ``\\u0022``). ``compact``: as orjson and the
    SDKs write (no spaces, characters past ASCII as they are). Returns (the text, whether a
    member was written twice)."""
    seen = 0
    repeated = False
    comma, colon = (",", ":") if compact else (", ", ": ")

    def go(item: Any) -> str:
        nonlocal seen, repeated
        if isinstance(item, dict):
            parts = [f"{go(k)}{colon}{go(v)}" for k, v in item.items()]
            if item and seen == duplicate:
                first = next(iter(item))
                parts.insert(0, f"{go(first)}{colon}{go(first)}")
                repeated = True
            seen += 1
            return "{" + comma.join(parts) + "}"
        if isinstance(item, list):
            return "[" + comma.join(go(v) for v in item) + "]"
        if isinstance(item, str):  # each escape pair read left to right: "\\" then a quote is no escaped quote
            return re.sub(r'\\(.)', lambda pair: quote_escape if pair.group(1) == '"' else pair.group(0),
                          json.dumps(item, ensure_ascii=not compact))
        return json.dumps(item)

    return go(value), repeated


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.integers(-1, 4), st.sampled_from(['\\"', "\\u0022"]), st.booleans(), st.booleans())
@example({"\\": None}, -1, "\\u0022", False, False)  # a name ending in a backslash: the writer once broke its text
@example({"\\": None}, 1, "\\u0022", False, False)
@example({"\\": None}, 1, "\\u0022", False, True)
def test_duplicates_never_pass_the_quote_count(structured: Any, duplicate: int, quote_escape: str,
                                               error: bool, compact: bool) -> None:
    """Long texts on the quote count's route, spaced or compact and wide (:func:`wide_text`),
    with a repeated member name anywhere and quotes written either way, agree with the strict
    reader and the full checker."""
    text = _WIDE * 400 if compact else 'é "q" ' * 800
    result: dict[str, Any] = {"resultType": "complete", "content": [{"type": "text", "text": text}],
                              "structuredContent": {"v": structured}}
    if error:
        result["isError"] = True
    written, repeated = write_spaced({"jsonrpc": "2.0", "id": 1, "result": result}, duplicate, quote_escape, compact)
    wire = written.encode()
    assert len(wire) > 8192 and (wide_text(wire) if compact else wire[11] == 32)
    check_wire(wire, {})
    try:
        json.dumps(structured, allow_nan=False)
        finite = True
    except ValueError:  # NaN or an infinity, which json.dumps writes as no JSON text holds
        finite = False
    codes = [f.code for f in classify(wire).findings]
    if not finite and repeated:  # the first of the two in the text
        assert codes in (["json.syntax"], ["json.duplicate_key"])
    elif not finite:
        assert codes == ["json.syntax"]  # RFC 8259 s6
    elif repeated:
        assert codes == ["json.duplicate_key"]  # s4


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.text(alphabet=st.sampled_from('ab "\\\x00\n\u00e9\u4e2d'), max_size=12),
       st.integers(-1, 4), st.sampled_from(['\\"', "\\u0022"]), st.booleans(), st.booleans())
@example({"s": "\x00"}, "", -1, '\\"', True, False)  # the sentinel's writing before the text's
@example({"s": "\x00"}, "\\", 0, '\\"', False, False)
def test_duplicates_never_pass_the_splice(structured: Any, tail: str, duplicate: int, quote_escape: str,
                                          first: bool, error: bool) -> None:
    """Texts of 2.5 to 8 KiB whose first block is a long text past ASCII (the write-back with that
    text left out, :func:`_fastpath._spliced`), its end holding quotes, backslashes and control
    characters, with a repeated member name anywhere and "\\u0000" in other strings, agree with
    the strict reader and the full checker."""
    content = [{"type": "text", "text": _WIDE * 60 + tail}]
    result: dict[str, Any] = ({"structuredContent": {"v": structured}, "resultType": "complete", "content": content}
                              if first else
                              {"resultType": "complete", "content": content, "structuredContent": {"v": structured}})
    if error:
        result["isError"] = True
    written, repeated = write_spaced({"jsonrpc": "2.0", "id": 1, "result": result}, duplicate, quote_escape, True)
    wire = written.encode()
    assert _WIDE_BYTES < len(wire) <= 8192 and wide_text(wire)  # (orjson's route, below the 8 KiB of the rows above)
    check_wire(wire, {})
    if repeated:
        assert [f.code for f in classify(wire).findings] in (["json.duplicate_key"], ["json.syntax"])  # RFC 8259 s4
