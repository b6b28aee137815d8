"""A text its fast reader refuses as no UTF-8 is named without the strict reader's read.

RFC 8259 section 8.1: JSON text exchanged between systems MUST be encoded in UTF-8; a text that
is not is no JSON text at all (``json.encoding``, at the first byte that is no UTF-8, as
``bytes.decode`` names it). msgspec's typed read and orjson (the fast path's readers) refuse such
a text; the fast path says so (``read_common``'s ``False``), and classify names the byte at once
instead of having jiter read the text to that byte again (a text of 200 KiB of small tokens
then such a byte took ~2.4 ms, then ~0.9 ms; ``benchmarks/bench_bounds.py``). Past 256 KiB a
text's UTF-8 is checked first whatever it holds (the skim); now a shorter one the readers
refuse is named the same way: a repeated name before the byte no longer comes first.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import Kind, classify
from mcp_verdict.verdict import _parser
from mcp_verdict.verdict._classify import _options
from mcp_verdict.verdict._fastpath import read_common

_HEAD = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"'
_TAIL = b'"}]}}'
_CJK = "会议纪要：团队已确认部署计划。".encode() * 80  # 3,600 bytes: orjson's route (past 2.5 KiB)
_NOT = "the message is not UTF-8: "

# (wire text, whether the strict reader still reads it, findings as (code, path, message))
CASES: list[tuple[str, bytes, bool, list[tuple[str, str, str]]]] = [
    ("a byte that starts nothing", _HEAD + b"abc\xffdef" + _TAIL, False,
     [("json.encoding", "", _NOT + f"invalid start byte at byte {len(_HEAD) + 3}")]),
    ("a character cut short", _HEAD + b"a\xe4\xb8" + _TAIL, False,
     [("json.encoding", "", _NOT + f"invalid continuation byte at byte {len(_HEAD) + 1}")]),
    ("an overlong slash", _HEAD + b"a\xc0\xaf" + _TAIL, False,
     [("json.encoding", "", _NOT + f"invalid start byte at byte {len(_HEAD) + 1}")]),
    ("a surrogate encoded in UTF-8", _HEAD + b"a\xed\xa0\x80" + _TAIL, False,
     [("json.encoding", "", _NOT + f"invalid continuation byte at byte {len(_HEAD) + 1}")]),
    ("CJK past 2.5 KiB (orjson's route), cut at its end", _HEAD + _CJK + b"\xe4\xb8" + _TAIL, False,
     [("json.encoding", "", _NOT + f"invalid continuation byte at byte {len(_HEAD) + len(_CJK)}")]),
    # a repeated name before the byte: the text is no JSON text at all, named first (as past 256 KiB)
    ("a repeated name, then the byte",
     b'{"jsonrpc":"2.0","id":1,"id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"a\xff'
     + _TAIL, False, [("json.encoding", "", _NOT + "invalid start byte at byte 100")]),
    # what the readers refuse first for another reason the strict reader reads, and names the
    # byte first all the same (as the skim does past 256 KiB)
    ("data after the value, then the byte", _HEAD + b"a" + _TAIL + b" \xff", True,
     [("json.encoding", "", _NOT + f"invalid start byte at byte {len(_HEAD) + 1 + len(_TAIL) + 1}")]),
    ("a byte order mark first", b"\xef\xbb\xbf" + _HEAD + b"a\xff" + _TAIL, True,
     [("json.bom", "", "the message starts with a UTF-8 byte order mark")]),
    ("a lone surrogate escaped (UTF-8 bytes)", _HEAD + b"a\\ud800" + _TAIL, True,
     [("json.encoding", "/result/content/0/text",
       f"a string escapes a lone surrogate, which UTF-8 cannot carry (byte {len(_HEAD) + 7})")]),
]


@pytest.mark.parametrize(("name", "wire", "strict", "findings"), CASES, ids=[c[0] for c in CASES])
def test_a_text_the_readers_refuse_as_no_utf8(monkeypatch: pytest.MonkeyPatch, name: str, wire: bytes,
                                              strict: bool, findings: list[tuple[str, str, str]]) -> None:
    read: list[int] = []
    reader = _parser._strict

    def counted(data: bytes) -> Any:
        read.append(len(data))
        return reader(data)

    monkeypatch.setattr(_parser, "_strict", counted)
    verdict = classify(wire)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [(f.code, f.path, f.message) for f in verdict.findings] == findings
    assert bool(read) is strict


def test_the_fast_path_says_which_texts_its_reader_refused_as_no_utf8() -> None:
    options = _options("2026-07-28")
    assert read_common(_HEAD + b"a\xff" + _TAIL, options, None) is False
    assert read_common(_HEAD + _CJK + b"\xff" + _TAIL, options, None) is False  # (orjson's refusal)
    assert read_common(_HEAD + b"a" + _TAIL + b"x", options, None) is None  # trailing data: not this
    assert read_common(_HEAD + b"a\\ud800" + _TAIL, options, None) is None
