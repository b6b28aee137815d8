"""``--jobs N`` audits a log in parts (byte ranges cut at line ends, one process each) and puts
them together: the report is the one process's for every cut. Each case below is a small log
written by hand with its expected calls, problems and line counts (read from the frames, not
from the code); it is audited on one process, then on two and three with parts as small as
one line (every request and its answer in different parts, a connection's initialize in one
part and its calls in the next) and a few sizes between, and must give the same entries in the
same order and the same counts."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import CallRow, Entry, Input, Problem, Totals, _parts, _run, audit, plan
from mcp_verdict.frames import FrameRecord, encode

META = b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'
TASKS_META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
              b'"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}')
OK = b'{"resultType":"complete","content":[{"type":"text","text":"ok"}]}'
TASK = (b'{"resultType":"task","taskId":"T3","status":"working","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}')
DONE = (b'{"resultType":"complete","taskId":"T3","status":"completed","createdAt":"2026-01-01T00:00:00Z",'
        b'"lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":60000,"result":{"resultType":"complete",'
        b'"content":[{"type":"text","text":"report"}]}}')


def call(rid: int | str, meta: bytes = META, extra: bytes = b"") -> bytes:
    rid_text = rid.encode() if isinstance(rid, str) else b"%d" % rid
    return b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"t",%s%s}}' % (rid_text, extra, meta)


def answer(rid: int | str, result: bytes = OK) -> bytes:
    rid_text = rid.encode() if isinstance(rid, str) else b"%d" % rid
    return b'{"jsonrpc":"2.0","id":%s,"result":%s}' % (rid_text, result)


def rec(conn: str, direction: str, kind: str = "message", data: bytes | None = None,
        transport: str | None = "stdio") -> bytes:
    rec.seq += 1  # type: ignore[attr-defined]
    return encode(FrameRecord(conn, rec.seq, 1_790_000_000.0 + rec.seq, direction, kind, data,  # type: ignore[attr-defined, arg-type]
                              transport=transport))  # type: ignore[arg-type]


rec.seq = 0  # type: ignore[attr-defined]


def across_cuts() -> dict[str, bytes]:
    """Two connections interleaved: every call's request and answer lines apart."""
    return {"frames.jsonl": b"".join([
        rec("a", "c2s", "open"), rec("b", "c2s", "open"),
        rec("a", "c2s", data=call(1)), rec("b", "c2s", data=call(1)),
        rec("a", "s2c", data=answer(1)),
        rec("b", "s2c", data=answer(1, b'{"resultType":"complete","isError":true,"content":[]}')),
        rec("a", "c2s", data=call(2)), rec("b", "c2s", data=call(2)),
        rec("a", "s2c", data=b'{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}'),
        rec("a", "s2c", "close"), rec("b", "s2c", "close")])}


def initialize_then_calls() -> dict[str, bytes]:
    """A 2025-06-18 session: the version the server answered to initialize (line 3) is in force
    for the call (line 5), whose result has no resultType (complete in 2025; not in 2026)."""
    init = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}')
    ready = (b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
             b'"serverInfo":{"name":"srv","version":"2"}}}')
    return {"frames.jsonl": b"".join([
        rec("s", "c2s", "open"), rec("s", "c2s", data=init), rec("s", "s2c", data=ready),
        rec("s", "c2s", data=b'{"jsonrpc":"2.0","method":"notifications/initialized"}'),
        rec("s", "c2s", data=call(1, meta=b'"arguments":{}')),
        rec("s", "s2c", data=answer(1, b'{"content":[{"type":"text","text":"ok"}]}')),
        rec("s", "s2c", "close")])}


def duplicate_ids() -> dict[str, bytes]:
    """An id reused before its answer, a second answer, the same id on another connection
    answered as a string."""
    return {"frames.jsonl": b"".join([
        rec("a", "c2s", data=call(7)), rec("a", "c2s", data=call(7)), rec("a", "s2c", data=answer(7)),
        rec("a", "s2c", data=answer(7)), rec("b", "c2s", data=call(7)), rec("b", "s2c", data=answer('"7"'))])}


def malformed_at_the_cuts() -> dict[str, bytes]:
    """Lines that are no record (one starts like one), a blank line, between a request and its answer."""
    return {"frames.jsonl": b"".join([
        rec("a", "c2s", "open"), rec("a", "c2s", data=call(1)), b"not json at all\n",
        b'{"v":1,"conn":"a","dir":\n', b"\n", rec("a", "s2c", data=answer(1)), rec("a", "s2c", "close")])}


def crlf_and_no_final_newline() -> dict[str, bytes]:
    """CRLF line ends, and a last line with none."""
    lines = [rec("a", "c2s", data=call(1)), rec("a", "s2c", data=answer(1)), rec("a", "c2s", data=call(2)),
             rec("a", "s2c", data=answer(2, b'{"resultType":"complete","content":[],"isError":"false"}'))]
    return {"frames.jsonl": b"".join(line.replace(b"\n", b"\r\n") for line in lines).removesuffix(b"\r\n")}


def closed_and_opened_again() -> dict[str, bytes]:
    """A connection closed with a call waiting, then opened again under the same id: its calls
    are numbered from 1 again; the log ends with nothing waiting."""
    return {"frames.jsonl": b"".join([
        rec("a", "c2s", "open"), rec("a", "c2s", data=call(1)), rec("a", "s2c", "close"),
        rec("a", "c2s", "open"), rec("a", "c2s", data=call(1)), rec("a", "s2c", data=answer(1))])}


def rounds_and_tasks() -> dict[str, bytes]:
    """An input_required round linked by requestState, a task polled to completion, and a call
    the log ends before answering."""
    ask = b'{"resultType":"input_required","requestState":"S1","inputRequests":{}}'
    return {"frames.jsonl": b"".join([
        rec("a", "c2s", data=call(1)), rec("a", "s2c", data=answer(1, ask)),
        rec("a", "c2s", data=call(2, extra=b'"requestState":"S1","inputResponses":{},')),
        rec("a", "s2c", data=answer(2)),
        rec("a", "c2s", data=call(3, meta=TASKS_META)), rec("a", "s2c", data=answer(3, TASK)),
        rec("a", "c2s", data=b'{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"T3",%s}}'
            % TASKS_META),
        rec("a", "s2c", data=answer(4, DONE)), rec("a", "c2s", data=call(5))])}


def http_eof_keeps_the_connection() -> dict[str, bytes]:
    """An HTTP connection's stream ending (eof) is no close: the answer after it still pairs.
    The eof record does not say its transport: the connection's first line did."""
    return {"frames.jsonl": b"".join([
        rec("h", "c2s", data=call(1), transport="http"), rec("h", "s2c", "eof", transport=None),
        rec("h", "s2c", data=answer(1), transport=None)])}


def rotated_gzip_and_jsonrpc() -> dict[str, bytes]:
    """A connection whose request is in the rotated (gzip) file and its answer in the current
    one; another recording with a connection of the same id; a JSON-RPC file."""
    return {"frames.jsonl.1": gzip.compress(rec("a", "c2s", data=call(1)) + rec("b", "c2s", data=call(1))),
            "frames.jsonl": rec("a", "s2c", data=answer(1)) + rec("b", "s2c", "close"),
            "other.jsonl": rec("a", "c2s", data=call(1)) + rec("a", "s2c", data=answer(1)),
            "rpc.jsonl": call(9) + b"\n" + answer(9) + b"\n"}


def batches_across_cuts() -> dict[str, bytes]:
    """A 2025-03-26 session (MCP's one version with JSON-RPC batches, basic/index#batching): a
    batch of three calls (line 4), the second answered alone (line 5), the first and third by a
    batch (line 6): every call at the batch's line, the batch lines counted once each."""
    init = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26",'
            b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}')
    ready = (b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},'
             b'"serverInfo":{"name":"srv","version":"2"}}}')
    text = b'{"content":[{"type":"text","text":"ok"}]}'
    plain = b'"arguments":{}'
    return {"frames.jsonl": b"".join([
        rec("s", "c2s", "open"), rec("s", "c2s", data=init), rec("s", "s2c", data=ready),
        rec("s", "c2s", data=b"[" + call(1, meta=plain) + b"," + call(2, meta=plain) + b"," + call(3, meta=plain)
            + b"]"),
        rec("s", "s2c", data=answer(2, text)),
        rec("s", "s2c", data=b"[" + answer(3, b'{"content":[],"isError":true,"isError":false}') + b" , "
            + answer(1, text) + b"]"),
        rec("s", "s2c", "close")])}


# (name, files, calls as (file, conn, call, line, kind, end, version), problems as (file, line, category),
#  counts by category) — read from the frames above
T = "2026-07-28"
CASES: list[tuple[str, Callable[[], dict[str, bytes]], list[tuple[Any, ...]], list[tuple[Any, ...]],
                  dict[str, int]]] = [
    ("across_cuts", across_cuts,
     [("frames.jsonl", "a", 1, 3, "normal_complete", "answered", T),
      ("frames.jsonl", "b", 1, 4, "tool_error", "answered", T),
      ("frames.jsonl", "a", 2, 7, "protocol_error", "answered", T),
      ("frames.jsonl", "b", 2, 8, "unclassified", "closed", T)],
     [], {"call": 7, "transport": 4}),
    ("initialize_then_calls", initialize_then_calls,
     [("frames.jsonl", "s", 2, 5, "normal_complete", "answered", "2025-06-18")],
     [], {"message": 2, "notification": 1, "call": 2, "transport": 2}),
    ("duplicate_ids", duplicate_ids,
     [("frames.jsonl", "a", 1, 1, "unclassified", "reused_id", T),
      ("frames.jsonl", "a", 2, 2, "normal_complete", "answered", T),
      ("frames.jsonl", "b", 1, 5, "unclassified", "answered", T)],
     [("frames.jsonl", 4, "stray")], {"call": 5, "stray": 1}),
    ("malformed_at_the_cuts", malformed_at_the_cuts,
     [("frames.jsonl", "a", 1, 2, "normal_complete", "answered", T)],
     [("frames.jsonl", 3, "unreadable"), ("frames.jsonl", 4, "unreadable")],
     {"call": 2, "transport": 2, "unreadable": 2, "blank": 1}),
    ("crlf_and_no_final_newline", crlf_and_no_final_newline,
     [("frames.jsonl", "a", 1, 1, "normal_complete", "answered", T),
      ("frames.jsonl", "a", 2, 3, "unclassified", "answered", T)],
     [], {"call": 4}),
    ("closed_and_opened_again", closed_and_opened_again,
     [("frames.jsonl", "a", 1, 2, "unclassified", "closed", T),
      ("frames.jsonl", "a", 1, 5, "normal_complete", "answered", T)],
     [], {"call": 3, "transport": 3}),
    ("rounds_and_tasks", rounds_and_tasks,
     [("frames.jsonl", "a", 1, 1, "normal_complete", "answered", T),
      ("frames.jsonl", "a", 2, 5, "normal_complete", "answered", T),
      ("frames.jsonl", "a", 3, 9, "unclassified", "log_ended", T)],
     [], {"call": 9}),
    ("http_eof_keeps_the_connection", http_eof_keeps_the_connection,
     [("frames.jsonl", "h", 1, 1, "normal_complete", "answered", T)],
     [], {"call": 2, "transport": 1}),
    ("batches_across_cuts", batches_across_cuts,
     [("frames.jsonl", "s", 3, 4, "normal_complete", "answered", "2025-03-26"),
      ("frames.jsonl", "s", 4, 4, "unclassified", "answered", "2025-03-26"),
      ("frames.jsonl", "s", 2, 4, "normal_complete", "answered", "2025-03-26")],
     [], {"message": 2, "call": 3, "transport": 2}),
    ("rotated_gzip_and_jsonrpc", rotated_gzip_and_jsonrpc,
     [("frames.jsonl.1", "a", 1, 1, "normal_complete", "answered", T),
      ("frames.jsonl.1", "b", 1, 2, "unclassified", "closed", T),
      ("other.jsonl", "a", 1, 1, "normal_complete", "answered", T),
      ("rpc.jsonl", "rpc.jsonl", 1, 1, "normal_complete", "answered", T)],
     [], {"call": 7, "transport": 1}),
]


def write(tmp_path: Path, files: dict[str, bytes]) -> list[str]:
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    return [str(tmp_path / name) for name in files]


def run(paths: list[str], jobs: int) -> tuple[list[Entry], Totals]:
    totals = Totals()
    return list(audit(plan(paths), totals, jobs=jobs)), totals


def named(path: str, tmp_path: Path) -> str:
    return str(Path(path).relative_to(tmp_path))


@pytest.mark.parametrize(("name", "files", "calls", "problems", "counts"), CASES, ids=[c[0] for c in CASES])
def test_one_process_gives_what_the_frames_say(tmp_path: Path, name: str, files: Callable[[], dict[str, bytes]],
                                                calls: list[tuple[Any, ...]], problems: list[tuple[Any, ...]],
                                                counts: dict[str, int]) -> None:
    entries, totals = run(write(tmp_path, files()), 1)
    assert [(named(e.source, tmp_path), named(e.conn, tmp_path) if e.input_format == "jsonrpc" else e.conn, e.call,
             e.line, e.kind, e.end, e.protocol_version) for e in entries if isinstance(e, CallRow)] == calls
    assert [(named(e.source, tmp_path), e.line, e.category) for e in entries if isinstance(e, Problem)] == problems
    assert {k: v for k, v in totals.tally.items() if v} == counts


@pytest.mark.parametrize(("name", "files"), [(c[0], c[1]) for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("stripe", [1, 150, 400, 1 << 24])
def test_parts_give_the_one_process_report(tmp_path: Path, name: str, files: Callable[[], dict[str, bytes]],
                                           stripe: int, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = write(tmp_path, files())
    one, one_totals = run(paths, 1)
    monkeypatch.setattr(_parts, "_STRIPE", stripe)
    for jobs in (2, 3):
        many, many_totals = run(paths, jobs)
        assert many == one, (jobs, stripe)
        assert many_totals.tally == one_totals.tally
        assert many_totals.bytes_read == one_totals.bytes_read


def test_the_session_state_crosses_parts_when_spawned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spawned processes (no fork) get the same parts and hand the same state over."""
    paths = write(tmp_path, initialize_then_calls())
    one, _ = run(paths, 1)
    monkeypatch.setattr(_parts, "_STRIPE", 1)
    monkeypatch.setattr(_run, "_start_method", lambda: "spawn")
    many, _ = run(paths, 2)
    assert many == one
    row = next(e for e in many if isinstance(e, CallRow))
    assert (row.protocol_version, row.version_source, row.server, row.kind) == (
        "2025-06-18", "initialize", "srv", "normal_complete")


def test_a_log_is_cut_after_line_ends(tmp_path: Path) -> None:
    """Lines of 2, 3, 4 and 4 bytes (the last without its end), 13 bytes in 4 parts of ~3 bytes:
    each cut is after the first line end at or past its target (3, 6, 9); the last target has
    none after it, so three parts."""
    path = tmp_path / "frames.jsonl"
    path.write_bytes(b"a\nbb\nccc\ndddd")
    item = Input(str(path), "framelog", "wire", 0, 0, 13)
    cut = _parts.parts([item], 2, stripe=4)
    assert [(p.start, p.end, p.first_line, p.last_of_recording) for p in cut] == [
        (0, 5, 1, False), (5, 9, 3, False), (9, None, 4, True)]
    gz = tmp_path / "frames.jsonl.gz"
    gz.write_bytes(gzip.compress(b"a\nbb\nccc\ndddd"))
    whole = Input(str(gz), "framelog", "wire", 1, 0, gz.stat().st_size)
    assert [(p.input, p.start, p.end) for p in _parts.parts([item, whole], 2, stripe=4)][-1] == (1, 0, None)


DEEP = b'{"v":1,"conn":"c","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
"""A line of c nested past any parser's depth (unreadable: a reader that skips members it does
not know recurses into it)."""


def test_the_parent_decodes_in_full_only_the_lines_it_audits_again(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Two parts, the second from line 4: a (its call 1 waiting) and b are open at the cut, so the
    parent audits them again from line 4 up to their first close (b at 9, a at 14); c begins in
    the second part. Of lines 4-14 the parent decodes in full the five of a and b (5, 8, 9, 12,
    14) and the one too deep to read its conn from (11), not the five of c (4, 6, 7, 10, 13): the
    report is the one process's all the same (line 11 unreadable)."""
    lines = [rec("a", "c2s", "open"), rec("b", "c2s", "open"), rec("a", "c2s", data=call(1)),
             rec("c", "c2s", "open"), rec("b", "c2s", data=call(1)), rec("c", "c2s", data=call(1)),
             rec("c", "s2c", data=answer(1)), rec("b", "s2c", data=answer(1)), rec("b", "s2c", "close"),
             rec("c", "c2s", data=call(2)), DEEP, rec("a", "s2c", data=answer(1)), rec("c", "s2c", data=answer(2)),
             rec("a", "s2c", "close"), rec("c", "s2c", "close")]
    path = tmp_path / "frames.jsonl"
    path.write_bytes(b"".join(lines))
    one, one_totals = run([str(path)], 1)
    inputs = plan([str(path)])
    cut = len(b"".join(lines[:3]))
    monkeypatch.setattr(_run, "_cut", lambda items, jobs: [
        _parts.Part(0, 0, cut, 1, inputs[0], False), _parts.Part(0, cut, None, 0, inputs[0], True)])
    monkeypatch.setattr(_run, "_dealing", lambda items, jobs: None)  # (the byte cuts, not the connections dealt)
    monkeypatch.setattr(_run, "_start_method", lambda: "fork")
    decoded: list[int] = []
    decode_line = _run.decode_line  # type: ignore[attr-defined]

    def counted(line: bytes | str, number: int = 0) -> Any:
        decoded.append(number)  # (in this process: the parent's audit again; the processes count their own)
        return decode_line(line, number)

    monkeypatch.setattr(_run, "decode_line", counted)
    totals = Totals()
    many = list(audit(inputs, totals, jobs=2))
    assert many == one
    assert totals.tally == one_totals.tally
    assert decoded == [5, 8, 9, 11, 12, 14]
    assert [(e.conn, e.call, e.line, e.end) for e in one if isinstance(e, CallRow)] == [
        ("c", 1, 6, "answered"), ("b", 1, 5, "answered"), ("a", 1, 3, "answered"), ("c", 2, 10, "answered")]
    assert [(e.line, e.category) for e in one if isinstance(e, Problem)] == [(11, "unreadable")]
