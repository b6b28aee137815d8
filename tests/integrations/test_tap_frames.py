"""The tap's frame handling without I/O: any bytes on either direction never raise and never lose
the call — a judged call always ends with a verdict, the right one for its own id — and the
frame log records every frame."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, VerdictTap
from mcp_verdict.frames import FrameRecord, read

META = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientCapabilities":{}}')


class Sink:
    async def send(self, item: Any) -> None:
        return None


def sdk_message(request_id: Any, name: str = "t") -> Any:
    """What the SDK writes, as the proxy reads it (the fields of its pydantic models)."""
    return SimpleNamespace(message=SimpleNamespace(jsonrpc="2.0", id=request_id, method="tools/call",
                                                   params={"name": name, "arguments": {}}))


def request(request_id: int, name: str = "t") -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":"{name}",'
            f'"arguments":{{}},{META}}}}}').encode()


def ok(request_id: int | str, text: str = "ok") -> bytes:
    rid = f'"{request_id}"' if isinstance(request_id, str) else str(request_id)
    return (f'{{"jsonrpc":"2.0","id":{rid},"result":{{"resultType":"complete","content":[{{"type":"text",'
            f'"text":"{text}"}}],"isError":false}}}}').encode()


def judge(tap: VerdictTap, conn: str, frames: list[tuple[str, bytes]], request_id: int = 7) -> Any:
    proxy = tap.write_stream(Sink(), conn)

    async def scenario() -> Any:
        with tap.judging() as judged:
            await proxy.send(sdk_message(request_id))
            tap._feed(conn, "c2s", request(request_id))
            for direction, data in frames:
                tap._feed(conn, direction, data)  # type: ignore[arg-type]
        return judged.outcome

    return asyncio.run(scenario())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["c2s", "s2c"]), st.binary(max_size=200)), max_size=6))
def test_any_frames_never_raise_and_the_call_still_ends_in_a_verdict(frames: list[tuple[str, bytes]]) -> None:
    tap = VerdictTap()
    conn = tap._open("stdio", "fuzz")
    outcome = judge(tap, conn, frames)
    assert isinstance(outcome.verdict.kind, Kind)
    assert not outcome.succeeded or frames  # nothing answered: never success


# (frames after the request, expected kind, expected finding)
CASES: list[tuple[list[tuple[str, bytes]], Kind, str | None]] = [
    ([("s2c", ok(7))], Kind.NORMAL_COMPLETE, None),
    ([("s2c", ok(8, "not ours")), ("s2c", ok(7))], Kind.NORMAL_COMPLETE, None),
    ([("s2c", b'{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[],"isError":tru')],
     Kind.UNCLASSIFIED, "json.syntax"),
    ([("s2c", b'{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[],"isError":true,'
              b'"isError":false}}')], Kind.UNCLASSIFIED, "json.duplicate_key"),
    ([("s2c", ok("7"))], Kind.UNCLASSIFIED, "envelope.id_mismatch"),
    ([("s2c", b'{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}')], Kind.PROTOCOL_ERROR, None),
    ([("s2c", b"\xff\xfe not json at all")], Kind.UNCLASSIFIED, "json.encoding"),
    ([], Kind.UNCLASSIFIED, "transport.error"),
]


def test_each_answer_is_judged_for_its_own_request() -> None:
    for frames, kind, finding in CASES:
        tap = VerdictTap()
        outcome = judge(tap, tap._open("stdio", "case"), frames)
        assert outcome.verdict.kind is kind, (frames, outcome.verdict.findings)
        if finding is not None:
            assert finding in [f.code for f in outcome.verdict.findings], (frames, outcome.verdict.findings)


def test_the_frame_log_without_payloads_keeps_digests(tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    with VerdictTap(frame_log=log, log_payloads=False) as tap:
        conn = tap._open("stdio", "redacted")
        judge(tap, conn, [("s2c", ok(7, "secret"))])
        tap._close(conn, "done")
    with log.open("rb") as handle:
        records = [r for r in read(handle) if isinstance(r, FrameRecord)]
    assert [r.kind for r in records] == ["open", "message", "message", "close"]
    assert all(r.data is None for r in records) and records[2].redacted is not None
    assert b"secret" not in log.read_bytes()
