"""A text its fast reader refuses as no UTF-8 is named without the strict reader's read.

RFC 8259 section 8.1: JSON text exchanged between systems MUST be encoded in UTF-8; a text that
is not is no JSON text at all (``json.encoding``, at the first byte that is no UTF-8, as
``bytes.decode`` names it). msgspec's typed read and orjson (the fast path's readers) refuse such
a text; the fast path says so (``read_common``'s ``False``), and classify names the byte at once
instead of having jiter read the text to that byte again (a text of 200 KiB of small tokens
then such a byte took ~2.4 ms, then ~0.9 ms; ``benchmarks/bench_bounds.py``). Past 256 KiB a
text's UTF-8 is checked first whatever it holds (the skim); now a shorter one the readers
refuse is named the same way: a repeated name before the byte no longer comes first. And past
2.5 KiB a text for msgspec's typed read that is not all ASCII has its UTF-8 checked before the
read, so no value is built before such a byte (200 KiB of small tokens then the byte: ~0.9 ms,
then ~20 us); the finding is the same wherever the byte sits.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mcp_verdict import Kind, classify
from mcp_verdict.verdict import _classify, _parser
from mcp_verdict.verdict._fastpath import read_common
from mcp_verdict.verdict._judge import _options

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


# --- the byte's place and the text's size: the finding is the same, and no value is built first ---
# Past 2.5 KiB a text for msgspec's typed read that is not all ASCII has its UTF-8 checked before
# the read (_fastpath module docstring, "Bytes that are no UTF-8"): the typed read of the values
# before such a byte is what made a listing of small tokens then the byte cost ~280x orjson.loads.
# The finding is the strict reader's, as it always was: json.encoding at the first byte that is no
# UTF-8 (RFC 8259 section 8.1), in bytes.decode's words.

_LISTING = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"v":['
_LISTING_TAIL = b"1]}}}"
_UNITS = {  # a kind of text: (what comes before the units, one unit, what comes after them)
    "tokens": (_LISTING, b"1,", _LISTING_TAIL),
    "ASCII string": (_HEAD, b"lorem ipsum ", _TAIL),
    "CJK string": (_HEAD, "会议纪要：团队已确认部署计划。".encode(), _TAIL),  # (orjson's route past 2.5 KiB)
    "mixed records": (_LISTING, '{"name":"文件 report.txt","size":1},'.encode(), _LISTING_TAIL),
}
_BAD = {  # bytes that are no UTF-8, put inside a string, and what bytes.decode says at their first byte
    "a byte that starts nothing": (b"\xff", "invalid start byte"),
    "a character cut short": (b"\xe4\xb8", "invalid continuation byte"),  # (then a quote or an ASCII letter)
    "a surrogate encoded": (b"\xed\xa0\x80", "invalid continuation byte"),
}


def _placed(kind: str, size: int, place: str, bad: bytes) -> tuple[bytes, int]:
    """A text of about ``size`` bytes of ``kind`` with ``bad`` inside a string (for tokens and
    records, a string token of its own: ``"a<bad>",``) after the first unit, at the middle or
    before the last unit; and the offset of ``bad``'s first byte."""
    head, unit, tail = _UNITS[kind]
    units = max(size // len(unit), 3)
    before = {"first": 1, "middle": units // 2, "last": units - 1}[place]
    inside = head is _HEAD  # one long string: the byte goes in it
    piece = bad if inside else b'"a' + bad + b'",'
    wire = head + unit * before + piece + unit * (units - before) + tail
    return wire, len(head) + len(unit) * before + (0 if inside else 2)


PLACED: list[tuple[str, int, str, str]] = [
    (kind, size, place, bad)
    for kind in _UNITS for size in (3 << 10, 64 << 10, 200 << 10) for place in ("first", "middle", "last")
    for bad in _BAD]


# The same at most 2.5 KiB, where classify hands the text to msgspec's typed read at once (which
# builds the values before such a byte, then refuses the text): the finding does not depend on the
# route, nor on the byte's place (a contract for any check of these texts' UTF-8 before the read).
PLACED_SHORT: list[tuple[str, int, str, str]] = [
    (kind, size, place, bad)
    for kind in _UNITS for size in (600, 1 << 10, 2 << 10, 2300) for place in ("first", "middle", "last")
    for bad in _BAD]


@pytest.mark.parametrize(("kind", "size", "place", "bad"), PLACED_SHORT,
                         ids=[f"{k}-{s}B-{p}-{b}" for k, s, p, b in PLACED_SHORT])
def test_the_byte_is_named_wherever_it_sits_in_a_short_text(kind: str, size: int, place: str, bad: str) -> None:
    data, reason = _BAD[bad]
    wire, offset = _placed(kind, size, place, data)
    assert 512 < len(wire) <= 2560
    verdict = classify(wire)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [(f.code, f.path, f.message) for f in verdict.findings] == [
        ("json.encoding", "", f"{_NOT}{reason} at byte {offset}")]
    assert read_common(wire, _options("2026-07-28"), None) is False  # (the judge's way in says so too)


@pytest.mark.parametrize(("kind", "size", "place", "bad"), PLACED,
                         ids=[f"{k}-{s >> 10}KiB-{p}-{b}" for k, s, p, b in PLACED])
def test_the_byte_is_named_wherever_it_sits(kind: str, size: int, place: str, bad: str) -> None:
    data, reason = _BAD[bad]
    wire, offset = _placed(kind, size, place, data)
    assert 2560 < len(wire) <= 256 << 10  # (longer texts are skimmed first: test_parser_bounds)
    verdict = classify(wire)
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [(f.code, f.path, f.message) for f in verdict.findings] == [
        ("json.encoding", "", f"{_NOT}{reason} at byte {offset}")]


def _counted_reader(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The typed reader of classify's plain options counted: the sizes of the texts it read."""
    options = _options("2026-07-28")
    assert options.read_common is not None
    reader = options.read_common
    read: list[int] = []

    def counted(data: bytes) -> Any:
        read.append(len(data))
        return reader(data)

    monkeypatch.setitem(_classify._PLAIN, "2026-07-28", msgspec.structs.replace(options, read_common=counted))
    return read


# (kind of text, size, the byte, whether msgspec's typed read still reads it): past 2.5 KiB a text
# that is no UTF-8 is refused before the read; at most 2.5 KiB, the read runs first (the check would
# cost the small answers more than it spares) and the finding is the same
READ_OR_NOT: list[tuple[str, int, bytes, bool]] = [
    ("tokens", 3 << 10, b"\xff", False),
    ("tokens", 64 << 10, b"\xff", False),
    ("tokens", 200 << 10, b"\xe4\xb8", False),
    ("ASCII string", 200 << 10, b"\xff", False),
    ("mixed records", 64 << 10, b"\xed\xa0\x80", False),
    ("tokens", 2 << 10, b"\xff", True),
    ("mixed records", 2 << 10, b"\xff", True),
]


@pytest.mark.parametrize(("kind", "size", "bad", "read"), READ_OR_NOT)
def test_no_value_is_built_before_a_byte_that_is_no_utf8(monkeypatch: pytest.MonkeyPatch, kind: str, size: int,
                                                         bad: bytes, read: bool) -> None:
    sizes = _counted_reader(monkeypatch)
    wire, offset = _placed(kind, size, "last", bad)
    verdict = classify(wire)
    assert [(f.code, f.message.rsplit(" ", 1)[-1]) for f in verdict.findings] == [("json.encoding", str(offset))]
    assert bool(sizes) is read


# (a well-formed text, the kind, how many times msgspec's typed read reads it): one past ASCII is read
# once its UTF-8 is checked, an ASCII one at once; one that starts with a byte order mark (which
# the check leaves to the readers, as jiter names it) is read once and refused, then named by the
# strict reader (json.bom)
WELL_FORMED: list[tuple[str, bytes, Kind, list[str], int]] = [
    ("mixed records, 3 KiB", _placed("mixed records", 3 << 10, "last", b"\xc3\xa9")[0], Kind.NORMAL_COMPLETE, [], 1),
    ("mixed records, 200 KiB", _placed("mixed records", 200 << 10, "first", b"\xc3\xa9")[0], Kind.NORMAL_COMPLETE,
     [], 1),
    ("tokens, one é at the end, 64 KiB", _placed("tokens", 64 << 10, "last", b"\xc3\xa9")[0], Kind.NORMAL_COMPLETE,
     [], 1),
    ("tokens, 64 KiB, ASCII", _placed("tokens", 64 << 10, "last", b"e")[0], Kind.NORMAL_COMPLETE, [], 1),
    ("a byte order mark, then records", b"\xef\xbb\xbf" + _placed("mixed records", 3 << 10, "last", b"e")[0],
     Kind.UNCLASSIFIED, ["json.bom"], 1),
]


# the same at most 2.5 KiB: each read once (a contract for any check of their UTF-8 before the read)
WELL_FORMED_SHORT: list[tuple[str, bytes, Kind, list[str], int]] = [
    ("mixed records, 1 KiB", _placed("mixed records", 1 << 10, "last", b"\xc3\xa9")[0], Kind.NORMAL_COMPLETE, [], 1),
    ("mixed records, 2.3 KiB", _placed("mixed records", 2300, "first", b"\xc3\xa9")[0], Kind.NORMAL_COMPLETE,
     [], 1),
    ("tokens, one é at the end, 2 KiB", _placed("tokens", 2 << 10, "last", b"\xc3\xa9")[0], Kind.NORMAL_COMPLETE,
     [], 1),
    ("CJK string, 1 KiB", _placed("CJK string", 1 << 10, "middle", "部".encode())[0], Kind.NORMAL_COMPLETE, [], 1),
    ("a byte order mark, then records", b"\xef\xbb\xbf" + _placed("mixed records", 1 << 10, "last", b"e")[0],
     Kind.UNCLASSIFIED, ["json.bom"], 1),
]


@pytest.mark.parametrize(("name", "wire", "kind", "codes", "reads"), WELL_FORMED_SHORT,
                         ids=[c[0] for c in WELL_FORMED_SHORT])
def test_a_well_formed_short_text_past_ascii_is_read_once(monkeypatch: pytest.MonkeyPatch, name: str, wire: bytes,
                                                          kind: Kind, codes: list[str], reads: int) -> None:
    sizes = _counted_reader(monkeypatch)
    assert 512 < len(wire) <= 2560
    verdict = classify(wire)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)
    assert sizes == [len(wire)] * reads


@pytest.mark.parametrize(("name", "wire", "kind", "codes", "reads"), WELL_FORMED, ids=[c[0] for c in WELL_FORMED])
def test_a_well_formed_text_past_ascii_is_read_once_checked(monkeypatch: pytest.MonkeyPatch, name: str, wire: bytes,
                                                            kind: Kind, codes: list[str], reads: int) -> None:
    sizes = _counted_reader(monkeypatch)
    assert len(wire) > 2560
    verdict = classify(wire)
    assert (verdict.kind, [f.code for f in verdict.findings]) == (kind, codes)
    assert sizes == [len(wire)] * reads
