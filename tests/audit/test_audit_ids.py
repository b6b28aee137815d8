"""Request ids past the 64-bit range in a frame log: the audit pairs each answer with the request
whose id it names, written the same (JSON-RPC 2.0 s4: an answer's id "MUST be the same as the
value of the id member in the Request Object"), and judges each call on its own answer's bytes.
orjson reads 18446744073709551616 (2**64) and 18446744073709551617 as one float: the audit took
the second request for a reuse of the first's id, and paired the first answer with it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from mcp_verdict.audit import CallRow, Problem, Totals, _parts, audit, plan
from mcp_verdict.frames import FrameRecord, encode

CALL = b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"t","arguments":{},' \
       b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}'
OK = b'{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}'
TOOL_ERROR = b'{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","isError":true,"content":[]}}'
FIRST, SECOND = b"18446744073709551616", b"18446744073709551617"  # 2**64, 2**64 + 1

# the frames, line by line: both calls wait, the second is answered first
FRAMES: list[tuple[Literal["c2s", "s2c"], bytes]] = [
    ("c2s", CALL % FIRST), ("c2s", CALL % SECOND), ("s2c", TOOL_ERROR % SECOND), ("s2c", OK % FIRST)]
# per call (its id as JSON text): its line, kind, end, its answer's line and size — read from FRAMES
EXPECTED = {
    "18446744073709551616": (1, "normal_complete", "answered", 4, len(OK % FIRST)),
    "18446744073709551617": (2, "tool_error", "answered", 3, len(TOOL_ERROR % SECOND)),
}


@pytest.mark.parametrize(("jobs", "stripe"), [(1, None), (2, 1)])  # (2, 1): each line a part of its own
def test_calls_with_ids_past_64_bits_get_their_own_answers(tmp_path: Path, jobs: int, stripe: int | None,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "frames.jsonl"
    log.write_bytes(b"".join(encode(FrameRecord("c", seq, 1_790_000_000.0 + seq, direction, "message", data,
                                                transport="stdio"))
                             for seq, (direction, data) in enumerate(FRAMES, 1)))
    if stripe is not None:
        monkeypatch.setattr(_parts, "_STRIPE", stripe)
    totals = Totals()
    entries = list(audit(plan([str(log)]), totals, jobs=jobs))
    calls = {e.request_id: (e.line, e.kind, e.end, e.rounds[0].answer_line, e.rounds[0].response_bytes)
             for e in entries if isinstance(e, CallRow)}
    assert calls == EXPECTED
    assert [e for e in entries if isinstance(e, Problem)] == []
    assert {k: v for k, v in totals.tally.items() if v} == {"call": 4}
