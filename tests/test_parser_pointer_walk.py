"""The pointer's walk on listings of containers: the right member or element, fast.

Where a wire error sits far into a text, its JSON pointer comes from one walk over the text
before it (``_parser._open_at``): each 64 KiB block reduced in C to its structural tokens, the
brackets walked in Python. A listing of small objects or arrays put every bracket in Python
(~0.5 us each: 170 ms for 1 MiB of ``{"a":1},``, 8x ``orjson.loads``); now the containers a
block closes are taken out where they repeat, each shape by one ``bytes.replace`` in C
(``_collapse``), keeping what the walk needs of them: their strings (the member names are
found by number), one element of their parent, and how deep they went (the nesting limit).

Two tables: errors after such listings, with the pointer and byte worked out by hand from how
the text is built; and the walk with and without the collapse, at offsets anywhere in texts of
repeated, mixed, nested and deep containers (the walk without it is the one these tables and
tests/test_parser_bounds.py held before), which must agree on the pointer and the depth.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, classify
from mcp_verdict.verdict import _parser

STRUCTURED = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":'
STRUCTURED_LEN = 91
RECORD = b'{"a":1,"b":[2,{"c":"x"}]},'  # 26 bytes, three levels deep
RECORDS = 20_000

# (id, text, code, pointer, byte named in the message) -- RFC 6901 pointers; the byte is where
# jiter stops (a repeated name: the start of its value; a trailing comma: the bracket after it)
CASES = [
    ("a repeated name in the record after 20,000 records",
     STRUCTURED + b'{"v":[' + RECORD * RECORDS + b'{"a":1,"a":2}],"w":0}}}',
     "json.duplicate_key", f"/result/structuredContent/v/{RECORDS}/a", STRUCTURED_LEN + 6 + 26 * RECORDS + 11),
    ("a repeated name after the listing of small objects",
     STRUCTURED + b'{"v":[' + b'{"a":1},' * 40_000 + b'9],"v":0}}}',
     "json.duplicate_key", "/result/structuredContent/v", STRUCTURED_LEN + 6 + 8 * 40_000 + 7),
    ("a repeated name inside a record's inner object, after 20,000 records",
     STRUCTURED + b'{"v":[' + RECORD * RECORDS + b'{"a":1,"b":[2,{"c":"x","c":"y"}]}]}}}',
     "json.duplicate_key", f"/result/structuredContent/v/{RECORDS}/b/1/c",
     STRUCTURED_LEN + 6 + 26 * RECORDS + 27),
    ("a repeated name after arrays of arrays",
     STRUCTURED + b'{"v":[' + b"[[1],[2,[3]]]," * 30_000 + b'[]],"w":{"k":1,"k":2}}}}',
     "json.duplicate_key", "/result/structuredContent/w/k", STRUCTURED_LEN + 6 + 14 * 30_000 + 8 + 11),
    ("a trailing comma in the listing after three alternating shapes",
     STRUCTURED + b'{"v":[' + b'{"k":"a"},{"k":[1]},{"k":{"x":[]}},' * 10_000 + b']}}}',
     "json.syntax", "/result/structuredContent/v/30000", STRUCTURED_LEN + 6 + 35 * 10_000),
]


@pytest.mark.parametrize(("text", "code", "path", "byte"), [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_an_error_after_a_listing_of_containers_is_placed(text: bytes, code: str, path: str, byte: int) -> None:
    assert len(STRUCTURED) == STRUCTURED_LEN and len(RECORD) == 26
    verdict = classify(text)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [(f.code, f.path) for f in verdict.findings] == [(code, path)]
    assert f"byte {byte}" in verdict.findings[0].message


def _shapes(count: int) -> bytes:
    """Records of ``count`` shapes, each a different number of members and of elements."""
    return b"".join(b"{" + b'"a":1,' * (i % 5) + b'"z":[' + b"1," * (i % 7) + b'{"q":[]}]},' for i in range(count))


WALK_TEXTS = [
    STRUCTURED + b'{"v":[' + RECORD * 8_000 + b'{"a":1}],"w":0}}}',  # one shape, three deep
    STRUCTURED + b'{"v":[' + b"[[1],[2,[3]]]," * 12_000 + b"[]]}}}",  # arrays of arrays
    STRUCTURED + b'{"v":[' + b'{"k":"a"},{"k":[1]},{"k":{"x":[]}},' * 5_000 + b"0]}}}",  # three alternating
    STRUCTURED + b'{"v":[' + _shapes(6_000) + b"0]}}}",  # 35 shapes: more than a block takes out
    STRUCTURED + b'{"v":[' + b'{"a":[[[[[[1]]]]]]},' * 8_000 + b"0]}}}",  # deeper than the heights taken out
    # nesting at the parser's limit: three objects, 192 arrays, then records four deep (199),
    # then elements five deep (200) and six deep (201)
    STRUCTURED + b'{"v":' + b"[" * 192 + b'{"a":[[[1]]]},' * 6_000 + b'[[[[[1]]]]],[[[[[[1]]]]]],' * 3
    + b'{"a":[[[1]]]},' * 6_000 + b"0" + b"]" * 192 + b"}}}",
    # names and strings holding brackets, quotes and backslashes between the records
    STRUCTURED + b'{"v":[' + (b'{"a":"[{\\"}","b\\\\":[1]},' * 3 + b'{"c":{"d":"]"}},') * 4_000 + b"0]}}}",
]


def _without_collapse(tokens: bytes, innermost: object) -> tuple[bytes, int]:
    return tokens, 0


def _walks(data: bytes, offset: int) -> tuple[tuple[str, int], tuple[str, int]]:
    """(the walk's pointer and deepest nesting at ``offset``, the same without the collapse)."""
    collapsed = _parser._open_at(data, offset)
    original = _parser._collapse
    _parser._collapse = _without_collapse
    try:
        return collapsed, _parser._open_at(data, offset)
    finally:
        _parser._collapse = original


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(WALK_TEXTS))), st.floats(0, 1, exclude_max=True))
def test_the_walk_with_the_collapse_agrees_with_the_walk_without(which: int, share: float) -> None:
    data = WALK_TEXTS[which]
    collapsed, walked = _walks(data, int(share * len(data)))
    assert collapsed == walked


@pytest.mark.parametrize("which", range(len(WALK_TEXTS)))
def test_the_walk_agrees_at_the_end_of_each_text(which: int) -> None:
    """The end of each text: every block walked, the deepest nesting included (the sixth text
    reaches 201, past the limit of 200, in one element of its listing)."""
    collapsed, walked = _walks(WALK_TEXTS[which], len(WALK_TEXTS[which]) - 1)
    assert collapsed == walked
    if which == 5:
        assert collapsed[1] == _parser.PARSER_MAX_DEPTH + 1
