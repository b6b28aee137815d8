"""Repeated member names in long texts of dense tokens: found by the skim, with jiter's finding.

A duplicate name is well-formed JSON, so msgspec's raw skip passes it; where the text's
member names are sparse, the skim then looks for a repeated name itself, without building any
value (``_parser`` module docstring), and names it as jiter does: code ``json.duplicate_key``,
the JSON pointer of the repeated member, jiter's words for the name and its byte (RFC 8259
section 4: "The names within an object SHOULD be unique"; MCP reads JSON-RPC messages, which
are JSON). Each table row writes the expected code and pointer out by hand, and the test also
checks the finding against jiter alone on the same bytes (``parse`` told the text was already
skimmed), message and byte included. Memory and time are measured in
benchmarks/bench_bounds.py, not here.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, Limits, classify
from mcp_verdict.verdict._findings import Finding
from mcp_verdict.verdict._parser import (
    _RAW,
    SKIM_BYTES,
    _dense,
    _duplicate,
    _first_duplicate,
    _sparse_names,
    parse,
    skim,
)

STRUCTURED = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":'
SC = "/result/structuredContent"
NUMBERS = b"1," * 150_000 + b"1"  # 150,001 one-digit numbers: a token every two bytes
HALF = b"1," * 75_000 + b"1"  # 75,001 of them (indexes 0 to 75,000)
# short strings, one with an escaped quote every 8 kB (its backslash still sparse)
STRINGS = (b'"ab",' * 1_637 + b'"c\\"d",') * 37 + b'"z"'


def spread(unit: bytes) -> bytes:
    """A listing of 150,001 one-digit numbers with ``unit`` every 60 kB of them (none of them
    where the names' density is sampled: ``_sparse_names``)."""
    return (b"1," * 30_000 + unit + b",") * 5 + b"1"


# an object nested three deep, and strings holding what looks like names, brackets and colons
NESTED = spread(b'{"a":{"b":[1,{"c":2}]},"d":"e"}')
TRICKY = spread(b'"\\":{[\\"x\\":1,\\"x\\":2]}"')

def text(members: bytes) -> bytes:
    """A tools/call response whose structuredContent holds ``members``."""
    return STRUCTURED + b"{" + members + b"}}}"


# (id, text, the finding's code and pointer or None where the text has none)
CASES = [
    ("number listing, duplicate at the end", text(b'"v":[' + NUMBERS + b'],"v":0'), "json.duplicate_key", f"{SC}/v"),
    ("number listing, no duplicate", text(b'"v":[' + NUMBERS + b'],"w":0'), None, None),
    ("duplicate at the start", text(b'"k":1,"k":2,"v":[' + NUMBERS + b"]"), "json.duplicate_key", f"{SC}/k"),
    ("duplicate in the middle, in an object inside the listing",
     text(b'"v":[' + HALF + b',{"a":1,"b":{"c":2,"c":3}},' + HALF + b"]"), "json.duplicate_key", f"{SC}/v/75001/b/c"),
    ("string listing with escapes, duplicate at the end", text(b'"s":[' + STRINGS + b'],"s":0'),
     "json.duplicate_key", f"{SC}/s"),
    ("string listing with escapes, no duplicate", text(b'"s":[' + STRINGS + b'],"t":0'), None, None),
    ("a name escaped as \\u0073, the same as s", text(b'"s":[' + STRINGS + b'],"\\u0073":0'),
     "json.duplicate_key", f"{SC}/s"),
    ("nested objects inside a listing, no duplicate", text(b'"v":[' + NESTED + b'],"a":{"a":{"a":1}}'), None, None),
    ("nested objects inside a listing, a duplicate three deep at the end",
     text(b'"v":[' + NESTED + b'],"o":{"p":{"q":1,"r":[{"s":1},{"s":2}],"q":2}}'), "json.duplicate_key", f"{SC}/o/p/q"),
    ("names holding a colon, a brace, a quote and brackets",
     text(b'"v":[' + NUMBERS + b'],"a:{\\"[]}":1,"b":2,"a:{\\"[]}":3'), "json.duplicate_key", f'{SC}/a:{{"[]}}'),
    ("strings holding \\\": and braces, no duplicate",
     text(b'"v":[' + TRICKY + b'],"t":"\\":{}[\\":","u":"x\\\\","t2":1'), None, None),
    ("a string holding \\\"t\\\": before the listing, then t again",
     text(b'"t":"\\":1,\\"t\\":2","v":[' + TRICKY + b'],"t":3'), "json.duplicate_key", f"{SC}/t"),
    ("the same name in sibling objects, no duplicate", text(b'"v":[' + HALF + b',{"a":1},{"a":1},' + HALF + b"]"),
     None, None),
    ("spaces and newlines around the colon (jiter's byte after a newline)",
     text(b'"v":[' + NUMBERS + b'],"k" : 1,\n"k"\n:\n2'), "json.duplicate_key", f"{SC}/k"),
    ("an escaped backslash ending a name, and the same name as \\u005c",
     text(b'"v":[' + NUMBERS + b'],"a\\\\":1,"a\\u005c":2'), "json.duplicate_key", f"{SC}/a\\"),
    ("a non-ASCII name, raw and escaped", text(b'"v":[' + NUMBERS + b'],"\xc3\xa9":1,"\\u00e9":2'),
     "json.duplicate_key", f"{SC}/\u00e9"),
    ("a surrogate pair escaped, and the same character raw",
     text(b'"v":[' + NUMBERS + b'],"\\ud83d\\ude00":1,"\xf0\x9f\x98\x80":2'), "json.duplicate_key", f"{SC}/\U0001f600"),
    ("a control character escaped in a name", text(b'"v":[' + NUMBERS + b'],"\\u007f":1,"\x7f":2'),
     "json.duplicate_key", f"{SC}/\x7f"),
]


def alone(data: bytes) -> Finding | None:
    """jiter's finding alone, within classify's default limits (the strict reader told the text
    was skimmed, so no skim runs)."""
    return parse(data, Limits().max_bytes, Limits().max_depth, skimmed=True)[1]


@pytest.mark.parametrize(("data", "code", "path"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_repeated_name_in_a_long_text_gets_jiters_finding(data: bytes, code: str | None, path: str | None) -> None:
    """Guard (old code passes: jiter found these): the finding is the one written out here and
    the one jiter alone gives, message and byte included."""
    assert len(data) > SKIM_BYTES and _dense(data) and _sparse_names(data)
    verdict = classify(data)
    expected = alone(data)
    if code is None:
        assert expected is None and not [f for f in verdict.findings if f.code.startswith("json.")]
        return
    assert expected is not None and (expected.code, expected.path) == (code, path)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert verdict.findings == (expected,)


@pytest.mark.parametrize(("data", "code", "path"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_skim_finds_the_repeated_name_without_jiter(data: bytes, code: str | None, path: str | None) -> None:
    """New: the skim itself names the repeated name (nothing is built), and only with its
    duplicate search on."""
    found = skim(data)
    if code is None:
        assert found is None and _first_duplicate(data, len(data)) == (-1, -1, -1)
        return
    assert found is not None and (found.code, found.path) == (code, path)
    assert found == alone(data)
    assert skim(data, duplicates=False) is None


# Where jiter stops before the repeated name, or the names are dense, the skim leaves the text
# to jiter: the finding is still jiter's.
LEFT = [
    ("an integer of 4,400 digits before the duplicate (jiter: number out of range)",
     text(b'"n":' + b"1" * 4_400 + b',"v":[' + NUMBERS + b'],"v":0'), "json.syntax", f"{SC}/n"),
    ("objects nested 201 deep before the duplicate", text(b'"d":' + b'{"a":' * 201 + b"1" + b"}" * 201
                                                          + b',"v":[' + NUMBERS + b'],"v":0'), "json.too_deep", None),
    ("a listing of small objects: names dense", text(b'"v":[' + b'{"a":1},' * 40_000 + b'1],"v":0'),
     "json.duplicate_key", f"{SC}/v"),
    ("300 braces and colons where no window looks, past the search's budget (137)",
     text(b'"v":[' + b'{"a":1},' * 100 + NUMBERS + b'],"v":0'), "json.duplicate_key", f"{SC}/v"),
]


@pytest.mark.parametrize(("data", "code", "path"), [case[1:] for case in LEFT], ids=[case[0] for case in LEFT])
def test_what_jiter_meets_first_is_left_to_jiter(data: bytes, code: str, path: str | None) -> None:
    assert skim(data) is None and _duplicate(data) is None
    expected = alone(data)
    assert expected is not None and expected.code == code
    if path is not None:
        assert expected.path == path
    assert classify(data).findings == (expected,)


# Bytes that are no UTF-8 in a string: msgspec's skip does not read strings' UTF-8, so jiter
# built the listing before it met them (5.8x the text at 1 and 8 MiB), after orjson.loads had
# refused the text at once (it checks UTF-8 first: ~150x faster). A long text that is not ASCII
# is checked first, a block at a time, and bytes that are no UTF-8 are named at once, wherever
# they sit (RFC 8259 section 8.1: JSON text exchanged between systems MUST be encoded using
# UTF-8): jiter alone (its explanation) names the same finding, also where a repeated name came
# before them, which jiter met first (_parser's docstring: the bytes are named first; named the
# name until 2026-12-06). (id, text, the finding's code and pointer, whether jiter alone names it too)
UTF8_CASES = [
    ("after the listing", text(b'"v":[' + NUMBERS + b'],"x":"\xff"'), "json.encoding", "", True),
    ("inside the listing, after a valid non-ASCII character", text(b'"v":[' + NUMBERS + b',"a\xc3\xa9\xff"]'),
     "json.encoding", "", True),
    ("before a repeated name", text(b'"x":"\xff","v":[' + NUMBERS + b'],"v":0'), "json.encoding", "", True),
    ("a sequence cut short (a lead byte, then ASCII)", text(b'"v":[' + NUMBERS + b'],"x":"\xe2\x82"'),
     "json.encoding", "", True),
    ("after a repeated name", text(b'"v":[' + NUMBERS + b'],"v":0,"x":"\xff"'), "json.encoding", "", True),
    ("after a repeated name past the name search's budget",
     text(b'"v":[' + b'{"a":1},' * 100 + NUMBERS + b'],"v":0,"x":"\xff"'), "json.encoding", "", True),
]


@pytest.mark.parametrize(("data", "code", "path", "agrees"), [case[1:] for case in UTF8_CASES],
                         ids=[case[0] for case in UTF8_CASES])
def test_the_skim_names_bytes_that_are_no_utf8_first(data: bytes, code: str, path: str, agrees: bool) -> None:
    """New (skim gave None on every row, and the listing was built): the skim names the bytes,
    in the words jiter's finding has for them."""
    assert len(data) > SKIM_BYTES and _dense(data)
    found = skim(data)
    assert found is not None and (found.code, found.path) == (code, path)
    assert classify(data).findings == (found,)
    expected = alone(data)
    assert expected is not None
    assert (expected == found) is agrees
    if not agrees:
        assert expected.code == "json.duplicate_key"


# The same check runs first on long texts whose tokens are sparse (long strings), which are not
# skimmed: jiter read the string and met the byte at its end, after the fast path's typed read
# had read it too (35-54x orjson.loads, which refuses such a text at once). Named in the same
# words and at the same byte as jiter's error path names it where jiter meets the byte first,
# and before a repeated name that came earlier, as on dense texts (RFC 8259 section 8.1).
# (id, text, message, whether jiter alone names it too)
LONG_STRING = b"x" * (SKIM_BYTES + 1000)
SPARSE_UTF8_CASES = [
    ("at the end of a long string", text(b'"s":"' + LONG_STRING + b'\xff"'),
     f"the message is not UTF-8: invalid start byte at byte {len(STRUCTURED) + 6 + len(LONG_STRING)}", True),
    ("a lead byte cut short at the end of a long string", text(b'"s":"' + LONG_STRING + b'\xc3"'),
     f"the message is not UTF-8: invalid continuation byte at byte {len(STRUCTURED) + 6 + len(LONG_STRING)}", True),
    ("after valid non-ASCII text, on a block boundary", text(b'"s":"' + "\u00e9".encode() * (1 << 17) + b'\xff"'),
     f"the message is not UTF-8: invalid start byte at byte {len(STRUCTURED) + 6 + (1 << 18)}", True),
    ("a surrogate encoded in UTF-8, early", text(b'"s":"\xed\xa0\x80' + LONG_STRING + b'"'),
     f"the message is not UTF-8: invalid continuation byte at byte {len(STRUCTURED) + 6}", True),
    ("after a repeated name", text(b'"s":1,"s":"' + LONG_STRING + b'\xff"'),
     f"the message is not UTF-8: invalid start byte at byte {len(STRUCTURED) + 12 + len(LONG_STRING)}", True),
]


@pytest.mark.parametrize(("data", "message", "agrees"), [case[1:] for case in SPARSE_UTF8_CASES],
                         ids=[case[0] for case in SPARSE_UTF8_CASES])
def test_the_skim_names_bytes_that_are_no_utf8_in_a_sparse_text_first(data: bytes, message: str, agrees: bool) -> None:
    """New (a sparse text was not checked: the skim gave None, and a repeated name before the
    bytes was named instead): the bytes are named at once, at the byte bytes.decode names."""
    assert len(data) > SKIM_BYTES and not _dense(data)
    found = skim(data)
    assert found is not None and (found.code, found.path, found.message) == ("json.encoding", "", message)
    assert classify(data).findings == (found,)
    expected = alone(data)
    assert expected is not None
    assert (expected == found) is agrees


def test_the_search_gives_up_past_its_budget() -> None:
    """One brace, colon or backslash per 4 KiB (and 64) is the most the search visits; past it
    the text is left to the read after it (here: three, then 64)."""
    data = text(b'"a":1,"b":2,"v":[' + NUMBERS + b'],"v":0')
    assert _first_duplicate(data, 3) is None
    assert _first_duplicate(data, 64) is not None


# Differential: long texts holding these shapes, each example breaking, inserting or deleting
# one byte, mostly among the shapes. classify never raises; a repeated name gets jiter's
# finding alone, message and byte included, and any other wire error jiter's code and pointer
# (a syntax error the skim finds is worded by msgspec); where msgspec's skip finds a syntax
# error, the documented precedence holds (that error is named even where jiter names a
# duplicate first).
_SHAPES = (b'"k\\u0061":"\\":{[","q":[{"r":1}],"a:{\\"}":{"x":1},"\xc3\xa9":"\\\\",'
           b'"s":"x\\":1,\\"s\\":2","o":{"p":{"q":1,"r":[{"s":1},{"s":2}]}},')  # six names, none repeated
_PLAIN = b'"ka":"x:{}","b":[":","}{"],"c":{"ka":1,"d":"\xc3\xa9:"},"ka" :1'  # ka repeated
PROPERTY_TEXTS = [
    text(b'"h":{' + _SHAPES + b'"kb":0},"v":[' + NUMBERS + b'],"t":{' + _SHAPES + b'"ka":0}'),  # ka repeated
    text(b'"h":{' + _SHAPES + b'"ka":0},"v":[' + NUMBERS + b'],"t":{' + _SHAPES + b'"kb":0}'),  # one byte from it
    text(b'"v":[' + HALF + b",{" + _SHAPES + b'"kb" : \n1},' + HALF + b"]"),  # the shapes inside the listing
    # short strings, then names and strings holding colons and braces with no backslash after
    # them (whether a byte is in a string: the quotes after it counted)
    text(b'"s":[' + b'"ab","cd",' * 30_000 + b'"e"],' + _PLAIN.replace(b'"ka"', b'"kb"', 1) + b"," + _PLAIN),
]
_BREAKERS = [b'"', b"\\", b":", b",", b"{", b"}", b"[", b"]", b"a", b"b", b"0", b"u", b" ", b"\n", b"\xff"]


def _shapes(data: bytes) -> list[int]:
    """Where the shapes start in ``data`` (the text's last 200 bytes where it holds none)."""
    found = [start for start in (data.find(_SHAPES), data.rfind(_SHAPES)) if start >= 0]
    return found or [len(data) - 200]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(PROPERTY_TEXTS))), st.floats(0, 1, exclude_max=True), st.sampled_from([0, 1, None]),
       st.sampled_from(_BREAKERS), st.sampled_from(["replace", "insert", "delete"]))
def test_a_long_text_broken_among_its_names_gets_jiters_finding(which: int, share: float, region: int | None,
                                                                byte: bytes, how: str) -> None:
    valid = PROPERTY_TEXTS[which]
    assert len(valid) > SKIM_BYTES and _dense(valid) and _sparse_names(valid)
    if region is None:  # anywhere
        where = int(share * len(valid))
    else:  # among the shapes (and the few bytes after them)
        starts = _shapes(valid)
        where = starts[region % len(starts)] + int(share * (len(_SHAPES) + 12))
    if how == "replace":
        data = valid[:where] + byte + valid[where + 1:]
    elif how == "insert":
        data = valid[:where] + byte + valid[where:]
    else:
        data = valid[:where] + valid[where + 1:]
    verdict = classify(data)
    expected = alone(data)
    wire = tuple(f for f in verdict.findings if f.code.startswith("json."))
    if expected is None:
        assert wire == ()
        return
    assert verdict.kind is Kind.UNCLASSIFIED
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:  # a long text that is not UTF-8: named so first, wherever
        assert [(f.code, f.path) for f in wire] == [("json.encoding", "")]
        assert wire[0].message.endswith(f" at byte {exc.start}")
        return
    try:
        _RAW.decode(data)
    except Exception:  # a syntax error msgspec finds: named first, even after a repeated name
        if expected.code == "json.duplicate_key" and len(wire) == 1 and wire[0].code != "json.duplicate_key":
            return
    if expected.code == "json.duplicate_key":
        assert wire == (expected,)
    else:  # the skim's syntax errors are worded by msgspec: the code and pointer are jiter's
        assert [(f.code, f.path) for f in wire] == [(expected.code, expected.path)]


# Differential on well-formed values: objects written member by member (so a name may repeat),
# names and strings from characters that need escaping or not, each written raw, with json's
# escapes or with every character as \uXXXX, and whitespace anywhere JSON allows it. The skim's
# finding is jiter's alone: the first repeated name, or none.
_CHARACTERS = ["a", "b", "\u00e9", '"', "\\", ":", "{", "]", "\U0001f600", "\x7f", "\n", "/"]
_WHITESPACE = st.sampled_from(["", " ", "\n", "\t", "\r\n "])


@st.composite
def _string(draw: st.DrawFn) -> str:
    value = "".join(draw(st.lists(st.sampled_from(_CHARACTERS), max_size=3)))
    how = draw(st.sampled_from(["ascii", "raw", "all"]))
    if how == "all":  # every character escaped, a pair for one past U+FFFF
        units = value.encode("utf-16-be")
        return '"' + "".join(f"\\u{int.from_bytes(units[i:i + 2], 'big'):04x}" for i in range(0, len(units), 2)) + '"'
    return json.dumps(value, ensure_ascii=how == "ascii")


def _values(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    member = st.tuples(_string(), _WHITESPACE, _WHITESPACE, children)
    return st.one_of(
        st.lists(member, max_size=4).map(lambda members: "{" + ",".join(
            f"{name}{before}:{after}{value}" for name, before, after, value in members) + "}"),
        st.lists(children, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"))


_VALUE = st.recursive(st.one_of(_string(), st.sampled_from(["1", "-2.5e3", "true", "null"])), _values, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_VALUE, _VALUE, st.booleans())
def test_the_skim_names_the_first_repeated_name_jiter_names(head: str, tail: str, repeat: bool) -> None:
    # 600 kB: the search visits up to 210 braces, colons and backslashes; two values hold ~150
    members = (f'"h":{head},"v":[' + "1," * 300_000 + f'1],"t":{tail}' + (',"v":0' if repeat else "")).encode()
    data = text(members)
    assert _dense(data) and _sparse_names(data)
    assert skim(data) == alone(data)
