"""A surrogate code point in a parsed value given to ``classify``.

RFC 8259 section 8.1: JSON text exchanged between systems is UTF-8; section 8.2: a string escaping
a lone surrogate (``"\\ud800"``) names no Unicode character, and UTF-8 cannot carry one. On the
wire the strict reader refuses such an escape: ``unclassified``, the one finding ``json.encoding``
at the string (a member name's: at its object). A parsed value is what a reader made of some text
(``json.loads`` reads ``"\\ud800"`` into a lone surrogate), so a string of it holding a surrogate —
a member name included, at any depth, in any member — is that same text: the same verdict, the
same finding at the same place. Before, a parsed value was judged as if the string were fine
(``normal_complete`` with a lone surrogate in a text block; ``protocol_error`` in an error's
message).

A character past the BMP written as itself (U+1F600) is fine wherever it sits. Two surrogate code
points in a Python string (``"\\ud83d\\ude00"``) are no character either: no reader builds them
(each reads that pair of escapes as U+1F600), no UTF-8 carries them, and ``classify`` given the same
characters as a ``str`` says ``json.encoding`` as well.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, classify
from mcp_verdict.verdict._judge import _options, check_fully

from ._calls import python_steps


def _result(**members: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", **members}}


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


class _Str(str):
    """A str subclass (a caller's value may hold one): read as the string it is."""


_ED_A0 = struct.unpack("<d", b"\xed\xa0\x00\x00\x00\x00\xf0\x3f")[0]
"""1.0000000000091476, whose binary (as marshal writes it) holds the bytes of a surrogate's UTF-8."""


def _shared(levels: int, leaf: str) -> list[Any]:
    """``levels`` lists, each holding the next twice (2**levels paths to ``leaf``, ``levels + 1`` objects)."""
    value: list[Any] = [leaf]
    for _ in range(levels):
        value = [value, value]
    return value


_ELICIT = {"method": "elicitation/create", "params": {"mode": "form", "message": "name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}}}}
_WIDE = {f"k{i}": f"v{i}" for i in range(9)}
"""A flat object of more than 8 members (the fast path looks at those at once)."""

ENCODING = "json.encoding"
SAME, OTHER, NO_TEXT = "same", "other", "no text"
"""How its json.dumps text (each surrogate a \\uXXXX escape) reads on the wire: the same verdict and place (a
member name's, after others too: the object, where the strict reader named the member before it until stop 51);
another verdict; not written (too long)."""
# (name, the parsed value, the verdict: kind and [(code, path)]; the wire's) — by hand: RFC 8259 s8.2 for the
# surrogates, the 2026-07-28 schema for the rest
CASES: list[tuple[str, Any, tuple[Kind, list[tuple[str, str]]], str]] = [
    ("a lone high surrogate in a text block", _result(content=_text("a\ud800b")),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/text")]), SAME),
    ("a lone low surrogate ending a text block", _result(content=_text("ok\udfff")),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/text")]), SAME),
    ("in a member name of structuredContent: at its object",
     _result(content=[], structuredContent={"a": {"\udc00": 1}}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/structuredContent/a")]), SAME),
    ("deep in structuredContent", _result(content=[], structuredContent={"a": {"b": [{"c": ["ok", "x\udfff"]}]}}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/structuredContent/a/b/0/c/1")]), SAME),
    ("in a flat structuredContent of 9 members", _result(content=[], structuredContent={**_WIDE, "k8": "\ud800"}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/structuredContent/k8")]), SAME),
    ("in a member name of a flat structuredContent of 9 members",
     _result(content=[], structuredContent={**_WIDE, "\ud800": 1}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/structuredContent")]), SAME),
    ("in a result _meta value", _result(content=[], _meta={"k": "\ud83d"}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/_meta/k")]), SAME),
    ("in a result _meta member name", _result(content=[], _meta={"\ud800": "v"}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/_meta")]), SAME),
    # after another member: at the object too, on the wire as in the value (the wire named "a" until stop 51)
    ("in a result _meta member name after another", _result(content=[], _meta={"a": 1, "\ud800": "v"}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/_meta")]), SAME),
    ("in an error's message", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "bad \ud800"}},
     (Kind.UNCLASSIFIED, [(ENCODING, "/error/message")]), SAME),
    ("deep in an error's data",
     {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "bad", "data": {"x": [1, "\udc80"]}}},
     (Kind.UNCLASSIFIED, [(ENCODING, "/error/data/x/1")]), SAME),
    ("in the id", {"jsonrpc": "2.0", "id": "\ud800", "result": {"resultType": "complete", "content": []}},
     (Kind.UNCLASSIFIED, [(ENCODING, "/id")]), SAME),
    ("in a resource_link's name",
     _result(content=[{"type": "resource_link", "uri": "file:///a", "name": "a\ud800"}]),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/name")]), SAME),
    ("in an image block's mimeType", _result(content=[{"type": "image", "data": "AA==", "mimeType": "\udbff"}]),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/mimeType")]), SAME),
    ("in an embedded resource's text (the full checker's)",
     _result(content=[{"type": "resource", "resource": {"uri": "file:///a", "text": "\ud800"}}]),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/resource/text")]), SAME),
    ("in an input request's name", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {"\ud800": _ELICIT}}},
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/inputRequests")]), SAME),
    ("in a requestState", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
                                                                 "requestState": "s\udc00"}},
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/requestState")]), SAME),
    ("in an elicitation's property name", {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {"a": {**_ELICIT, "params": {
            "message": "m", "requestedSchema": {"type": "object", "properties": {"n\ud800": {"type": "string"}}}}}}}},
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/inputRequests/a/params/requestedSchema/properties")]), SAME),
    ("in a member no rule names", _result(content=[], extra={"x": "\ud800"}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/extra/x")]), SAME),
    ("in a str subclass", _result(content=_text(_Str("a\ud800"))),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/text")]), SAME),
    # the one finding, as on the wire: the strict reader stops there (a wrong isError is not reached)
    ("with a wrong isError", _result(content=_text("\ud800"), isError="yes"),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/text")]), SAME),
    # the first in the order the text is written
    ("two: the first written", _result(content=_text("\ud800"), structuredContent={"\udc00": 1}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/text")]), SAME),
    ("a member name before its value", _result(content=[], structuredContent={"a": "\udc00", "\ud800": "b"}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/structuredContent/a")]), SAME),
    # no surrogate: as before
    ("U+1F600 written as itself in a text block", _result(content=_text("smile \U0001f600")),
     (Kind.NORMAL_COMPLETE, []), SAME),
    ("U+1F600 in a member name, _meta and an error",
     {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "\U0001f600", "data": {"\U0001f600": 1}}},
     (Kind.PROTOCOL_ERROR, []), SAME),
    ("U+1F600 in structuredContent and _meta",
     _result(content=[], structuredContent={"\U0001f600": ["\U0001f600"]}, _meta={"k": "\U0001f600"}),
     (Kind.NORMAL_COMPLETE, []), SAME),
    ("text past ASCII: Latin-1, CJK, U+FFFD", _result(content=_text("café 東京 \ufffd \ue000")),
     (Kind.NORMAL_COMPLETE, []), SAME),
    # the full checker's proof (_walk.unencodable): marshal's UTF-8 of the value holds no ED A0..BF; what does not
    # prove is looked through string by string
    ("Hangul (UTF-8 ED 80..9F) where the full checker looks", _result(content=_text("한국어"), extra={"k": "한국어"}),
     (Kind.NORMAL_COMPLETE, []), SAME),
    ("a float written ED A0 in binary", _result(content=[], extra={"n": _ED_A0}), (Kind.NORMAL_COMPLETE, []), SAME),
    ("beside an object marshal does not write", _result(content=[], extra=[_Str("ok"), "\ud800"]),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/extra/1")]), SAME),
    ("deep in 60 levels of shared lists", _result(content=[], structuredContent={"a": _shared(60, "\udc00")}),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/structuredContent/a" + "/0" * 61)]), NO_TEXT),  # (2**60 strings)
    # U+1F600's two surrogates as two code points: no character (on the wire, their escapes read as U+1F600)
    ("U+1F600's surrogates as two code points", _result(content=_text("\ud83d\ude00")),
     (Kind.UNCLASSIFIED, [(ENCODING, "/result/content/0/text")]), OTHER),
]


@pytest.mark.parametrize(("name", "value", "expected", "wire_reads"), CASES, ids=[c[0] for c in CASES])
def test_a_surrogate_in_a_parsed_value_is_json_encoding_as_on_the_wire(
        name: str, value: Any, expected: tuple[Kind, list[tuple[str, str]]], wire_reads: str) -> None:
    verdict = classify(value)
    assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == expected
    assert verdict.message is value  # (the parsed response as it arrived)
    if expected[1]:
        assert "lone surrogate (U+" in verdict.findings[0].message
    if wire_reads == NO_TEXT:
        return
    if expected[1]:
        assert classify(json.dumps(value, ensure_ascii=False)).findings[0].code == ENCODING  # the str text: alike
    wire = classify(json.dumps(value).encode())  # (each surrogate written as its \uXXXX escape)
    if wire_reads == SAME:
        assert (wire.kind, [(f.code, f.path) for f in wire.findings]) == expected
    else:
        assert (wire.kind, wire.findings) == (Kind.NORMAL_COMPLETE, ())


def test_the_finding_names_the_code_point_and_its_place() -> None:
    (finding,) = classify(_result(content=[], structuredContent={"a\udc01b": 1})).findings
    assert finding.message == ("a member name holds a lone surrogate (U+DC01) at character 1, which UTF-8 cannot "
                               "carry: no JSON text holds this value")


@pytest.mark.parametrize("leaf", ["\udc00", "ok"])
def test_shared_references_are_looked_through_once(leaf: str) -> None:
    """60 levels of [x, x]: 2**60 paths, 61 lists. The walk that names the surrogate (the full checker's, after its
    proof) looks through each list once: the Python steps it takes stay in the hundreds (without that, its budget of
    10,000,000 values). The verdict, as a strict reader would give on the text, is json.encoding; without a
    surrogate, the value holds more values than the node budget."""
    from mcp_verdict.verdict._walk import unencodable  # (here: the tests above run on code without it)

    value = _result(content=[], structuredContent={"a": _shared(60, leaf)})
    steps, verdict = python_steps(lambda: unencodable(value, 64, 10_000_000))
    if leaf == "ok":
        assert verdict is None
    else:
        assert verdict is not None and (verdict.code, verdict.path) == (ENCODING, "/result/structuredContent/a" +
                                                                         "/0" * 61)
    assert steps < 5_000


def _holds_surrogate(value: Any) -> bool:
    """The oracle: a string or member name of ``value`` holding a code point U+D800..U+DFFF."""
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_surrogate(v) for v in value)
    return False


# any text, surrogates included (hypothesis leaves them out of its characters by default)
texts = st.text(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr)), max_size=6)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)
responses = st.one_of(
    json_values.filter(lambda value: not isinstance(value, str)),  # (a str is wire text to classify)
    st.builds(lambda text, more: _result(content=[{"type": "text", "text": text}], **more), texts,
              st.fixed_dictionaries({}, optional={"structuredContent": st.dictionaries(texts, json_values, max_size=4),
                                                  "_meta": st.dictionaries(texts, json_values, max_size=3),
                                                  "isError": st.booleans()})),
    st.builds(lambda message, data: {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": message,
                                                                           "data": data}}, texts, json_values),
    st.builds(lambda key, state: {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "requestState": state, "inputRequests": {key: _ELICIT}}}, texts, texts),
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(responses, st.sampled_from(["2025-06-18", "2026-07-28"]))
def test_classify_never_raises_on_parsed_values_with_any_text(value: Any, version: str) -> None:
    verdict = classify(value, version=version)
    assert verdict.kind in Kind
    codes = [f.code for f in verdict.findings]
    if _holds_surrogate(value):
        assert (verdict.kind, codes) == (Kind.UNCLASSIFIED, [ENCODING])
    else:
        assert ENCODING not in codes
    # the fast path and the full checker agree, as on every value (tests/test_fastpath.py)
    full = check_fully(value, _options(version), None, caller=True)
    assert (full.kind, full.findings) == (verdict.kind, verdict.findings)
    json.dumps(verdict.to_dict())
    repr(verdict)
