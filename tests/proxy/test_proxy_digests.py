"""An answer's digest in the proxy's records: its verdict line and its frame log record (payloads
redacted) name the same SHA-256 and size, the digest of the bytes the host was sent or refused,
whichever way the relay took it (enforce, observe, deferred, read once when sent, refused; a
frame that answers nothing in between). The relay reads the bytes once for both records where it
read them twice; these rows hold on the code before that change and after it (a contract). The
digests are fixed (``sha256sum`` of each frame's bytes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.proxy import Relay
from mcp_verdict.proxy._record import Recorder

REQUEST = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":'
           b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}')
GOOD = (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}],'
        b'"isError":false}}')
FLAG = (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}],'
        b'"isError":"false"}}')
LONG = (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"' + b"x" * 3000
        + b'"}],"isError":false}}')
NOTE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'

DIGESTS = {
    GOOD: {"sha256": "ae3865446e439819a0b92da8891e1b96af5a7a3ff2959227f3f959ae2f33d4d8", "size": 115},
    FLAG: {"sha256": "ac698468f78799debce05e298f37ce28df73bc2c5ef2546e6c05435c842bcbf9", "size": 117},
    LONG: {"sha256": "9c1a393ead0827950a9fbd931a274b2a0f081e6a4ebcbab49b6de2cf765f4f4a", "size": 3113},
    NOTE: {"sha256": "9c40216c4e26b26b09e962ff37664f53c119eaed63010061d1c72aa5c2ec1627", "size": 87},
}
WRITTEN = b"(the proxy's refusal)"


def _run(tmp_path: Path, mode: str, answer: bytes, how: str, payloads: bool) -> tuple[list[Any], list[Any]]:
    recorder = Recorder(tmp_path / "f.jsonl", tmp_path / "v.jsonl", payloads=payloads)
    relay = Relay(mode="enforce" if mode == "enforce" else "observe", recorder=recorder)
    relay.from_host(REQUEST)
    if how == "note first":
        relay.from_upstream(NOTE)
    if how == "deferred":
        relay.from_upstream(answer, defer=True)
        relay.from_upstream(NOTE)
        relay.judge_deferred()
    elif how == "sent first":  # (as the stdio side does: enforce asks first, observe sends, then reads)
        if mode == "enforce":
            assert relay.passes_early(answer)
        else:
            relay.read_sent(answer)
        relay.from_upstream(answer, defer=mode == "observe")
        relay.judge_deferred()
    else:
        relay.from_upstream(answer)
    recorder.close()
    records = [json.loads(line) for line in (tmp_path / "f.jsonl").read_text().splitlines()]
    frames = [(r["kind"], WRITTEN if (r.get("note") or "").startswith("written by the proxy")
               else r["data"].encode() if payloads else r["redacted"]) for r in records if r["dir"] == "s2c"]
    lines = [(v["kind"], v["forwarded"], {"sha256": v["sha256"], "size": v["size"]})
             for v in map(json.loads, (tmp_path / "v.jsonl").read_text().splitlines())]
    return frames, lines


@pytest.mark.parametrize(("mode", "answer", "how", "frames", "lines"), [
    ("enforce", GOOD, "plain", [("message", GOOD)], [("normal_complete", "unchanged", GOOD)]),
    ("enforce", GOOD, "sent first", [("message", GOOD)], [("normal_complete", "unchanged", GOOD)]),
    ("enforce", GOOD, "note first", [("message", NOTE), ("message", GOOD)],
     [("normal_complete", "unchanged", GOOD)]),
    ("enforce", FLAG, "plain", [("refused", FLAG), ("message", WRITTEN)], [("unclassified", "refused", FLAG)]),
    ("enforce", LONG, "sent first", [("message", LONG)], [("normal_complete", "unchanged", LONG)]),
    ("observe", GOOD, "plain", [("message", GOOD)], [("normal_complete", "unchanged", GOOD)]),
    ("observe", FLAG, "plain", [("message", FLAG)], [("unclassified", "unchanged", FLAG)]),
    ("observe", GOOD, "deferred", [("message", GOOD), ("message", NOTE)],
     [("normal_complete", "unchanged", GOOD)]),
    ("observe", LONG, "sent first", [("message", LONG)], [("normal_complete", "unchanged", LONG)]),
    ("observe", LONG, "deferred", [("message", LONG), ("message", NOTE)],
     [("normal_complete", "unchanged", LONG)]),
])
@pytest.mark.parametrize("payloads", [False, True])
def test_an_answers_verdict_line_and_its_record_name_its_digest(tmp_path: Path, mode: str, answer: bytes, how: str,
                                                                 frames: list[Any], lines: list[Any],
                                                                 payloads: bool) -> None:
    got_frames, got_lines = _run(tmp_path, mode, answer, how, payloads)
    assert got_lines == [(kind, forwarded, DIGESTS[data]) for kind, forwarded, data in lines]
    assert got_frames == [(kind, data if data is WRITTEN or payloads else DIGESTS[data]) for kind, data in frames]
