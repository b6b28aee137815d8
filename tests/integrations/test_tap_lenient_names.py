"""A tools/call request whose params hold bytes that are no UTF-8 is followed by the tracker, read
leniently (``frames.lenient_request``: each such byte a lone surrogate, ``"t\\udcff"``), and its
answer judged on its own bytes. Everything the tap hands out of such a name — ``TapCall.name``
on the judged call and on ``tap.history``, the span's ``gen_ai.tool.name`` and name, the frame
log — holds the escape (``\\udcff``), which any UTF-8 output carries: the old tap kept the lone
surrogate in ``TapCall.name``, so writing the history as JSON (msgspec) or printing a call's name
to a UTF-8 stream raised ``UnicodeEncodeError``.

No SDK writes such bytes (the official SDK serialises with pydantic, which refuses a lone
surrogate: ``test_tap_unwritable``), so the frames are fed through ``VerdictTap._feed``, as
``test_tap_frames`` feeds them; the judging block, its write proxy, the Tracker, the judge and
the OpenTelemetry SDK (in-memory exporter, ``test_otel``) are the real ones."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from mcp_verdict import VerdictTap
from mcp_verdict.frames import FrameRecord, read
from mcp_verdict.otel import instrument

from .test_otel import EXPORTER

META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        b'"io.modelcontextprotocol/clientCapabilities":{}}')
ANSWER = (b'{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}],'
          b'"isError":false}}')


class Sink:
    async def send(self, item: Any) -> None:
        return None


def request(name: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"' + name + b'","arguments":{},' \
        + META + b"}}"


# (the name's bytes on the wire, the judging block's options, the tap instrumented) →
# (TapCall.name, the span's gen_ai.tool.name or None without one); by hand: each byte that is no
# UTF-8 is U+DC00 + the byte, shown as its escape
CASES: list[tuple[str, bytes, dict[str, Any], bool, tuple[str, str | None]]] = [
    ("one byte", b"t\xff", {}, False, ("t\\udcff", None)),
    ("two bytes and an accent", b"\xe9t\xc3\xa9\xff", {}, False, ("\\udce9t\u00e9\\udcff", None)),
    ("options of the block", b"t\xff", {"trusted_server": True}, False, ("t\\udcff", None)),
    ("instrumented", b"t\xff", {}, True, ("t\\udcff", "t\\udcff")),
    ("instrumented with options", b"\x80", {"trusted_server": True}, True, ("\\udc80", "\\udc80")),
]


@pytest.mark.parametrize(("wire", "options", "spans", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_name_read_leniently_is_shown_as_its_escape(tmp_path: Path, wire: bytes, options: dict[str, Any],
                                                      spans: bool, expected: tuple[str, str | None]) -> None:
    EXPORTER.clear()
    log = tmp_path / "frames.jsonl"
    tap = VerdictTap(frame_log=log)
    if spans:
        instrument(tap)
    conn = tap._open("stdio", "lenient")
    proxy = tap.write_stream(Sink(), conn)
    sdk = SimpleNamespace(message=SimpleNamespace(jsonrpc="2.0", id=7, method="tools/call",
                                                  params={"name": "t", "arguments": {}}))

    async def scenario() -> Any:
        async with tap.judging(**options) as judged:
            await proxy.send(sdk)
            tap._feed(conn, "c2s", request(wire))
            tap._feed(conn, "s2c", ANSWER)
        return judged.calls[-1]

    call = asyncio.run(scenario())
    tap.close()
    exported = [span for span in EXPORTER.get_finished_spans() if "mcp_verdict.kind" in (span.attributes or {})]
    attributes = exported[0].attributes if exported else None
    shown = (call.name, attributes["gen_ai.tool.name"] if attributes is not None else None)
    assert shown == expected
    assert call.verdict.kind.value == "normal_complete"  # the answer, paired and judged on its own bytes
    assert msgspec.json.decode(msgspec.json.encode(list(tap.history)))[-1]["name"] == expected[0]
    assert [span.name for span in exported] == ([f"tools/call {expected[1]}"] if spans else [])
    with log.open("rb") as lines:
        records = [r for r in read(lines) if isinstance(r, FrameRecord) and r.kind == "message"]
    assert [r.data for r in records] == [request(wire), ANSWER]  # the bytes as they came
    EXPORTER.clear()
