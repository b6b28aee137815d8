"""Which reader a long compact text goes to, and that the verdict is the same whichever it is.

A compact text longer than 4.5 KiB that is mostly long ASCII strings (a long text block, an
image's base64 data: ``_fastpath.long_ascii``) goes to the strict reader at once (jiter reads
such strings ~3.5x faster than orjson or msgspec; README, "Choosing the JSON reader"); a text
block past ASCII goes to orjson; anything else, and anything shorter, to msgspec's typed read.
The route is the library's business; what these rows hold is the answer a caller gets on every
route, written by hand (the spec's rules: RFC 8259 section 4 for a name given twice, section 8.1
for text that is no UTF-8; MCP 2026-07-28 server/tools for isError and basic/index for the id).

Also: the typed read's second try, with resource_link blocks declared, is made only when the
first refused a resource_link block (an image or an audio block is read once by it, then by the
strict reader).
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import Kind, classify
from mcp_verdict.verdict._fastpath import long_ascii, read_common
from mcp_verdict.verdict._judge import classify_options

OPTIONS = classify_options()
PROSE = "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\\n" * 2000  # (as written: \n escaped)
HEAD = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"'
TAIL = b'"}]}}'
BASE64 = b"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==" * 1000


def text_block(size: int) -> bytes:
    return HEAD + PROSE[:size].encode() + TAIL


def image_block() -> bytes:
    return (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"image",'
            b'"mimeType":"image/png","data":"' + BASE64 + b'"}]}}')


def listing(count: int) -> bytes:
    files = ",".join(f'{{"name":"file_{i:05d}.txt","size":{i}}}' for i in range(count))
    return (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],'
            b'"structuredContent":{"files":[' + files.encode() + b"]}}}")


CJK = "会议纪要：团队已确认部署计划，下一步进行负载测试。".encode() * 2000
NUMBERS = (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"v":['
           + b"1," * 32_000 + b"1]}}}")

# (case, text, long_ascii, read_common leaves it to the strict reader, kind, finding codes)
ROUTES: list[tuple[str, bytes, bool, bool, Kind, list[str]]] = [
    ("60 kB ASCII text block", text_block(60_000), True, True, Kind.NORMAL_COMPLETE, []),
    ("8 kB ASCII text block", text_block(8_000), True, True, Kind.NORMAL_COMPLETE, []),
    ("4 kB ASCII text block: typed", text_block(4_000), True, False, Kind.NORMAL_COMPLETE, []),
    ("100 kB image block", image_block(), True, True, Kind.NORMAL_COMPLETE, []),
    ("a listing of 2,000 records: typed", listing(2_000), False, False, Kind.NORMAL_COMPLETE, []),
    ("60 kB CJK text: orjson", HEAD + CJK + TAIL, False, False, Kind.NORMAL_COMPLETE, []),
    # no quote byte either, but dense tokens: the typed read builds numbers fastest
    ("a listing of 32,000 numbers: typed", NUMBERS, False, False, Kind.NORMAL_COMPLETE, []),
    ("numbers in a text block, comma-separated: typed", HEAD + b"1," * 30_000 + b"1" + TAIL, False, False,
     Kind.NORMAL_COMPLETE, []),
    ("numbers, a long text, numbers: typed",
     NUMBERS[:-4] + b',"' + PROSE[:20_000].encode() + b'",' + b"1," * 10_000 + b"1]}}}", False, False,
     Kind.NORMAL_COMPLETE, []),
    # wrong texts on the strict reader's route: its findings, as on every other route
    ("60 kB text, content given twice", text_block(60_000)[:-2] + b',"content":[]}}', True, True,
     Kind.UNCLASSIFIED, ["json.duplicate_key"]),
    ("60 kB text, isError a string", text_block(60_000)[:-2] + b',"isError":"false"}}', True, True,
     Kind.UNCLASSIFIED, ["result.is_error"]),
    ("60 kB text, a lone surrogate escaped", text_block(30_000)[:-5] + b"\\ud800" + PROSE[:30_000].encode() + TAIL,
     True, True, Kind.UNCLASSIFIED, ["json.encoding"]),
    ("60 kB text, isError true", text_block(60_000)[:-2] + b',"isError":true}}', True, True, Kind.TOOL_ERROR, []),
    # a byte past ASCII in a window: not this route; a byte that is no UTF-8 is named all the same
    ("60 kB text, a byte that is no UTF-8 at three quarters",
     text_block(45_000)[:-5] + b"\xff" + PROSE[:15_000].encode() + TAIL, False, False, Kind.UNCLASSIFIED,
     ["json.encoding"]),
]


@pytest.mark.parametrize(("case", "data", "ascii", "strict", "kind", "codes"), ROUTES, ids=[r[0] for r in ROUTES])
def test_a_long_compact_text_is_read_where_it_is_read_fastest_and_judged_alike(
        case: str, data: bytes, ascii: bool, strict: bool, kind: Kind, codes: list[str]) -> None:
    assert long_ascii(data) is ascii
    routed: Any = read_common(data, OPTIONS, None)
    assert (routed is None) is strict, case
    verdict = classify(data)
    assert verdict.kind is kind
    assert [f.code for f in verdict.findings if f.severity == "error"] == codes


def test_the_request_id_is_checked_on_the_strict_readers_route() -> None:
    data = text_block(60_000)
    assert classify(data, request_id=1).kind is Kind.NORMAL_COMPLETE
    wrong = classify(data, request_id=2)
    assert (wrong.kind, [f.code for f in wrong.findings]) == (Kind.UNCLASSIFIED, ["envelope.id_mismatch"])
    as_text = classify(data, request_id="1")
    assert (as_text.kind, [f.code for f in as_text.findings]) == (Kind.UNCLASSIFIED, ["envelope.id_mismatch"])


LINK = b'{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"}'
TEXT = b'{"type":"text","text":"ok"}'
IMAGE = b'{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}'

# (case, content blocks, kind): the second typed read, with links declared, is tried only when the
# first refused a resource_link block; whatever the blocks, the verdict is the spec's
BLOCKS: list[tuple[str, list[bytes], Kind]] = [
    ("a link", [LINK], Kind.NORMAL_COMPLETE),
    ("text then a link", [TEXT, LINK], Kind.NORMAL_COMPLETE),
    ("an image", [IMAGE], Kind.NORMAL_COMPLETE),
    ("an image then a link", [IMAGE, LINK], Kind.NORMAL_COMPLETE),
    ("a link then an image", [LINK, IMAGE], Kind.NORMAL_COMPLETE),
    ("a link without its name", [b'{"type":"resource_link","uri":"file:///a.txt"}'], Kind.UNCLASSIFIED),
]


@pytest.mark.parametrize(("case", "blocks", "kind"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_blocks_of_any_type_get_the_same_verdict_whichever_read_holds(case: str, blocks: list[bytes],
                                                                     kind: Kind) -> None:
    data = (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":['
            + b",".join(blocks) + b"]}}")
    assert classify(data).kind is kind, case
