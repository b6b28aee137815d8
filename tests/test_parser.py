"""The strict wire reader: a table of wire texts, and a differential test against the stdlib.

As h11 tests its parser against the standard library, the strict reader here must accept
exactly what a strict configuration of Python's ``json`` accepts (no NaN or Infinity, no
duplicate keys, UTF-8 bytes), and produce the same value.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, Limits, classify
from mcp_verdict.verdict._parser import parse

OK = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'

# wire text → (finding code, JSON pointer of the finding)
WIRE = [
    (b"", "json.syntax", ""),
    (b"   \n", "json.syntax", ""),
    (b"\xef\xbb\xbf" + OK, "json.bom", ""),
    (b'{"a":"\xff"}', "json.encoding", ""),
    (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":NaN}}',
     "json.syntax", "/result/isError"),
    (b"{'jsonrpc':'2.0'}", "json.syntax", ""),
    (OK + b" x", "json.trailing_data", ""),
    (OK + b"\n" + OK, "json.trailing_data", ""),
    (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":false,'
     b'"isError":true}}', "json.duplicate_key", "/result/isError"),
    (b'{"jsonrpc":"2.0","id":1,"id":2,"result":{}}', "json.duplicate_key", "/id"),
    (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"a"},'
     b'{"type":"text","text":"b","text":"c"}]}}', "json.duplicate_key", "/result/content/1/text"),
    (b'{"a/b":{"x~y":1,"x~y":2}}', "json.duplicate_key", "/a~1b/x~0y"),
    (b'{"\xc3\xa9":{"k":1,"k":2}}', "json.duplicate_key", "/\u00e9/k"),
    (b'"\\ud800"', "json.encoding", ""),
    (b'{"a":"x\x01"}', "json.syntax", "/a"),
    (b"[" * 100_000, "json.too_deep", "/0/0/0/0"),
    (b"[1,]", "json.syntax", ""),
]


@pytest.mark.parametrize(("wire", "code", "path"), WIRE, ids=[repr(w[:30]) for w, _, _ in WIRE])
def test_wire_findings(wire: bytes, code: str, path: str) -> None:
    verdict = classify(wire)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [f.code for f in verdict.findings] == [code]
    assert verdict.findings[0].path.startswith(path)
    assert verdict.message is None


def test_str_input_is_wire_text_and_lone_surrogates_are_refused() -> None:
    assert classify(OK.decode()).kind is Kind.NORMAL_COMPLETE
    assert classify(bytearray(OK)).kind is Kind.NORMAL_COMPLETE
    assert classify(memoryview(OK)).kind is Kind.NORMAL_COMPLETE
    verdict = classify('{"a":"\ud800"}')
    assert [f.code for f in verdict.findings] == ["json.encoding"]


def test_a_number_out_of_range_is_named_wherever_it_sits() -> None:
    for wire in (b'{"jsonrpc":"2.0","id":1e400,"result":{"resultType":"complete","content":[]}}',
                 b'{"jsonrpc":"2.0","id":1,"error":{"code":-1e400,"message":"m"}}',
                 b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],'
                 b'"structuredContent":[1e999]}}'):
        assert [f.code for f in classify(wire).findings] == ["json.number_out_of_range"]


def test_100k_deep_nesting_is_bounded() -> None:
    for wire in (b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000):
        verdict = classify(wire)
        assert [f.code for f in verdict.findings] == ["json.too_deep"]


def test_depth_limit_counts_the_envelope_as_one() -> None:
    def response(depth: int) -> bytes:
        inner = "[" * (depth - 2) + "]" * (depth - 2)  # message 1, result 2, structuredContent 3..
        return ('{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],'
                f'"structuredContent":{inner}}}}}').encode()
    assert classify(response(64)).kind is Kind.NORMAL_COMPLETE
    assert [f.code for f in classify(response(65)).findings] == ["json.too_deep"]
    assert classify(response(10), limits=Limits(max_depth=10)).kind is Kind.NORMAL_COMPLETE
    assert classify(response(11), limits=Limits(max_depth=10)).kind is Kind.UNCLASSIFIED


# --- differential: the strict reader against a strict stdlib json -------------------------------

class _Rejected(Exception):
    pass


def _stdlib(data: bytes) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise _Rejected("duplicate key")
        return dict(items)

    def constant(name: str) -> Any:
        raise _Rejected(name)

    try:
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            raise _Rejected("bom")
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
        json.dumps(value).encode("utf-8")  # lone surrogates cannot be UTF-8
        _reject_surrogates(value)
    except (_Rejected, ValueError, RecursionError):
        raise _Rejected from None
    return value


def _reject_surrogates(value: Any) -> None:
    if isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, list):
        for item in value:
            _reject_surrogates(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            key.encode("utf-8")
            _reject_surrogates(item)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


json_text = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=20,
).map(json.dumps)

fragments = st.sampled_from(['{', '}', '[', ']', ',', ':', '"a"', '"a"', '1', '-0', '1e400', 'NaN',
                             'true', 'null', ' ', '"\\ud800"', '"\\u00e9"', '"\\/"', '1.5e-3', "'x'",
                             '0x1', '01', '"\t"', '\ufeff'])


@settings(max_examples=400)
@given(st.one_of(json_text, st.lists(fragments, max_size=12).map("".join)).map(lambda t: t.encode())
       | st.binary(max_size=40))
@example(b'{"a":1,"a":2}')
@example(b'[1e400]')
@example(b'"\\udc00"')
def test_strict_reader_agrees_with_strict_stdlib(data: bytes) -> None:
    try:
        expected = _stdlib(data)
    except _Rejected:
        expected = _Rejected
    value, problem = parse(data, 1 << 20, 64)
    if expected is _Rejected:
        assert problem is not None, f"accepted what the strict stdlib refuses: {data!r} -> {value!r}"
    else:
        assert problem is None, f"refused valid JSON {data!r}: {problem}"
        assert _same(value, expected)
