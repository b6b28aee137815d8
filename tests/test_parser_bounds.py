"""Wire errors far into long texts: the right finding, at the right pointer and byte.

The strict reader's explanation of where an error sits (``_parser._locate``) reads the text
before the error in blocks of 64 KiB; these cases put the error, and what the pointer must
name (a long member name, escapes, strings holding brackets), on and across block boundaries.
Each expected pointer and byte is worked out by hand from how the text is built: the byte is
where jiter stops (a duplicate name: the start of its value; a bad escape: the character
after the backslash; trailing data: its first byte; a trailing comma: the bracket after it).
Time and memory are measured in benchmarks/bench_bounds.py, not here (RFC 8259 sections 2, 4,
7; the limits of README "Bad input never crashes").
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, classify
from mcp_verdict.verdict._parser import PARSER_MAX_DEPTH, SKIM_BYTES, _dense, parse

HEAD = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"'
HEAD_LEN = 92
LONG = 200_000  # three blocks and more
STRUCTURED = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":'
STRUCTURED_LEN = 91

# (text, code, pointer, byte in the message or None)
CASES = [
    # a long string, then a duplicate member name: the byte is where its value starts
    (HEAD + b"x" * LONG + b'","text":"b"}]}}', "json.duplicate_key", "/result/content/0/text",
     HEAD_LEN + LONG + 9),
    # a long string, then a bad escape: the byte after the backslash
    (HEAD + b"x" * LONG + b'\\q"}]}}', "json.syntax", "/result/content/0/text", HEAD_LEN + LONG + 1),
    # a long string, then trailing data
    (HEAD + b"x" * LONG + b'"}]}} {"jsonrpc":"2.0"}', "json.trailing_data", "", HEAD_LEN + LONG + 6),
    # many small tokens then a trailing comma: the pointer names the element after the last
    (STRUCTURED + b'{"v":[' + b"1," * 100_000 + b"]}}}", "json.syntax", "/result/structuredContent/v/100000",
     STRUCTURED_LEN + 6 + 200_000),
    # escapes on every block boundary: a run of escaped backslashes and escaped quotes
    (HEAD + b'\\\\\\"' * 60_000 + b'","text":"b"}]}}', "json.duplicate_key", "/result/content/0/text",
     HEAD_LEN + 240_000 + 9),
    # a string holding brackets, commas, colons and quotes (escaped): none of them counts
    (STRUCTURED + b'{"a":["' + b'[{,:\\"}' * 30_000 + b'",1,"' + b"]," * 40_000 + b'",2,'
     + b'{"k":1,"k":2}]}}}', "json.duplicate_key", "/result/structuredContent/a/4/k",
     STRUCTURED_LEN + 7 + 210_000 + 5 + 80_000 + 4 + 11),
    # a member name 150 kB long, crossing two block boundaries, then a duplicate inside it (the
    # path holds the name's first 32 characters and its length: Finding)
    (STRUCTURED + b'{"' + b"n" * 150_000 + b'":{"k":1,"k":2}}}}', "json.duplicate_key",
     "/result/structuredContent/" + "n" * 32 + "~…[150000 characters]/k", STRUCTURED_LEN + 2 + 150_000 + 2 + 11),
    # a member name with escapes (a quote, a slash, a tilde, é), far into the text
    (STRUCTURED + b'{"pad":"' + b"p" * 100_000 + b'","a\\"/~\\u00e9":{"k":1,"k":2}}}}', "json.duplicate_key",
     '/result/structuredContent/a"~1~0\u00e9/k', STRUCTURED_LEN + 8 + 100_000 + 2 + 13 + 1 + 11),
    # deep arrays inside a long listing: indexes counted at each level
    (STRUCTURED + b'{"rows":[' + b"[[1],[2]]," * 10_000 + b'[[1],[2,{"k":1,"k":2}]]]}}}', "json.duplicate_key",
     "/result/structuredContent/rows/10000/1/1/k", STRUCTURED_LEN + 9 + 100_000 + 8 + 11),
    # a control character in a long string
    (HEAD + b"x" * LONG + b'\x01"}]}}', "json.syntax", "/result/content/0/text", HEAD_LEN + LONG),
    # invalid UTF-8 far into the text: the byte is where bytes.decode stops
    (HEAD + b"x" * LONG + b'\xff"}]}}', "json.encoding", "", HEAD_LEN + LONG),
    # an error on a later line: the byte counts every line before it
    (STRUCTURED + b'{"v":[\n' + b"1,\n" * 100_000 + b"]}}}", "json.syntax", "/result/structuredContent/v/100000",
     STRUCTURED_LEN + 7 + 300_000),
]


@pytest.mark.parametrize(("text", "code", "path", "byte"), CASES,
                         ids=[f"{code}-{path[:40]}-{len(text)}" for text, code, path, _ in CASES])
def test_a_wire_error_far_into_the_text_is_found_and_placed(text: bytes, code: str, path: str, byte: int) -> None:
    assert len(HEAD) == HEAD_LEN and len(STRUCTURED) == STRUCTURED_LEN
    verdict = classify(text)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [(f.code, f.path) for f in verdict.findings] == [(code, path)]
    assert f"byte {byte}" in verdict.findings[0].message


# Texts longer than the skim threshold (256 KiB) of dense tokens: a syntax error is found by
# msgspec's raw skip before any value is built, and explained the same way (pointer and byte as
# above). What the skip cannot see, or leaves to jiter, still gets jiter's finding; a text of
# sparse tokens is not skimmed (``_parser`` module docstring).
SKIMMED = 300_000
DENSE = STRUCTURED + b'{"pad":[' + b"1," * 150_000 + b'1],"t":"'  # then the string member t
DENSE_LEN = STRUCTURED_LEN + 8 + 300_000 + 8
SKIM_CASES = [
    # a bad escape: the byte after the backslash
    (DENSE + b'ab\\q"}}}', "json.syntax", "/result/structuredContent/t", DENSE_LEN + 3),
    # trailing data: its first byte
    (DENSE + b'ab"}}} {"jsonrpc":"2.0"}', "json.trailing_data", "", DENSE_LEN + 7),
    # 150,000 small tokens, then a trailing comma: the bracket after it
    (STRUCTURED + b'{"v":[' + b"1," * 150_000 + b"]}}}", "json.syntax", "/result/structuredContent/v/150000",
     STRUCTURED_LEN + 6 + 300_000),
    # the same listing, cut off after its last number: the byte is the text's last
    (STRUCTURED + b'{"v":[' + b"1," * 150_000 + b"1", "json.syntax", "/result/structuredContent/v/150000",
     STRUCTURED_LEN + 6 + 300_000),
    # a control character in a string: its own byte
    (DENSE + b'ab\x01"}}}', "json.syntax", "/result/structuredContent/t", DENSE_LEN + 2),
    # bad UTF-8, then a trailing comma: the encoding is named first, as for a short text
    (DENSE + b'ab\xff"},}}', "json.encoding", "", DENSE_LEN + 2),
    # a byte order mark before a long wrong text
    (b"\xef\xbb\xbf" + DENSE + b'\\q"}}}', "json.bom", "", None),
    # a lone surrogate escape: the skip calls it a truncation; jiter names it
    (DENSE + b'\\ud800"}}}', "json.encoding", "/result/structuredContent/t", None),
    # a duplicate name: the skip cannot see it; jiter finds it, at the start of its value
    (DENSE + b'b","t":"c"}}}', "json.duplicate_key", "/result/structuredContent/t", DENSE_LEN + 7),
    # a duplicate name, then a syntax error: the syntax error is named (the documented exception),
    # at the object, whose member pad had closed before the comma (a name was due, none came)
    (STRUCTURED + b'{"k":1,"k":2,"pad":[' + b"1," * 150_000 + b'1],}}}', "json.syntax",
     "/result/structuredContent", STRUCTURED_LEN + 20 + 300_003),
    # the same in sparse tokens (a long string): not skimmed, so jiter names the duplicate first
    (STRUCTURED + b'{"k":1,"k":2,"pad":"' + b"p" * SKIMMED + b'",}}}', "json.duplicate_key",
     "/result/structuredContent/k", STRUCTURED_LEN + 11),
    # nesting past jiter's 200 levels before a syntax error: jiter stops at the nesting first
    (STRUCTURED + b'{"pad":[' + b"1," * 150_000 + b'1],"d":' + b"[" * 300 + b"1,]", "json.too_deep", None, None),
    # ... and before trailing data
    (STRUCTURED + b'{"pad":[' + b"1," * 150_000 + b'1],"d":' + b"[" * 300 + b"]" * 300 + b"}}} x", "json.too_deep",
     None, None),
    # bad UTF-8 in the trailing data itself: jiter names the trailing data; the skim checks a long
    # text's UTF-8 first (as orjson does), and names the byte, its own
    (STRUCTURED + b'{"v":[' + b"1," * 150_000 + b"1]}}} \xff", "json.encoding", "", STRUCTURED_LEN + 300_012),
]


@pytest.mark.parametrize(("text", "code", "path", "byte"), SKIM_CASES,
                         ids=[f"{code}-{(path or '')[:40]}-{len(text)}" for text, code, path, _ in SKIM_CASES])
def test_a_long_wrong_text_is_skimmed_and_explained_alike(text: bytes, code: str, path: str | None,
                                                          byte: int | None) -> None:
    assert len(text) > SKIM_BYTES
    for response in (text, text.decode("utf-8", "surrogateescape") if b"\xff" not in text else text):
        verdict = classify(response)
        assert verdict.kind is Kind.UNCLASSIFIED
        assert [f.code for f in verdict.findings] == [code]
        if path is not None:
            assert verdict.findings[0].path == path
        if byte is not None:
            assert f"byte {byte}" in verdict.findings[0].message


# One long well-formed response of every kind of token (names, escapes, non-ASCII, numbers of
# each form, literals, nesting), written by json.dumps both ways; each example breaks one byte.
_ROWS = [{"id": i, "name": f"row \u00e9\"{i}\"\\", "score": -i / 7, "big": 10 ** 20 + i, "ok": i % 2 == 0,
          "none": None, "tags": ["a", "b\n", ["c", {"d": []}]], "e": 1.5e-9} for i in range(2_000)]
_LONG = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                               "structuredContent": {"rows": _ROWS}}}
LONG_TEXTS = [json.dumps(_LONG).encode(),  # spaced, \\u escapes: the strict reader's route
              json.dumps(_LONG, separators=(",", ":"), ensure_ascii=False).encode()]  # compact: the fast path's
_BREAKERS = [b'"', b",", b":", b"[", b"]", b"{", b"}", b"\\", b"\x01", b"\xff", b" ", b"x", b"0", b"-", b"."]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(LONG_TEXTS))), st.floats(0, 1, exclude_max=True), st.sampled_from(_BREAKERS),
       st.sampled_from(["replace", "insert", "delete"]))
def test_a_long_text_broken_anywhere_gets_the_finding_jiter_gives(which: int, share: float, byte: bytes,
                                                                  how: str) -> None:
    """Differential: on a long text with one byte broken, the skim's finding (code and pointer)
    is the one the strict reader alone gives (``parse`` told the text was skimmed)."""
    valid = LONG_TEXTS[which]
    assert len(valid) > SKIM_BYTES and _dense(valid)  # skimmed
    where = int(share * len(valid))
    if how == "replace":
        text = valid[:where] + byte + valid[where + 1:]
    elif how == "insert":
        text = valid[:where] + byte + valid[where:]
    else:
        text = valid[:where] + valid[where + 1:]
    _, alone = parse(text, 1 << 26, PARSER_MAX_DEPTH, skimmed=True)
    verdict = classify(text)
    if alone is None:  # still JSON: no wire finding either way
        assert not [f for f in verdict.findings if f.code.startswith("json.")]
        return
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [(f.code, f.path) for f in verdict.findings] == [(alone.code, alone.path)]
