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

import pytest

from mcp_verdict import Kind, classify

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
    # a member name 150 kB long, crossing two block boundaries, then a duplicate inside it
    (STRUCTURED + b'{"' + b"n" * 150_000 + b'":{"k":1,"k":2}}}}', "json.duplicate_key",
     "/result/structuredContent/" + "n" * 150_000 + "/k", STRUCTURED_LEN + 2 + 150_000 + 2 + 11),
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
