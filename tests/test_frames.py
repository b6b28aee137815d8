"""The frames layer: server-sent events, routing reads, the frame log format, the tracker.

Every expected value below is written by hand from the rule it cites: WHATWG's event-stream
interpretation (https://html.spec.whatwg.org/multipage/server-sent-events.html), JSON-RPC 2.0
(https://www.jsonrpc.org/specification), and the MCP versioning and per-request ``_meta`` rules
(https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta).
"""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_verdict import TASKS_EXTENSION
from mcp_verdict.frames import (
    Answered,
    FrameLogWriter,
    FrameRecord,
    LineReader,
    LogProblem,
    RotatingLines,
    SSEEvent,
    SSEParser,
    Stray,
    Tracker,
    Unanswered,
    decode,
    encode,
    id_key,
    peek,
    read,
    recover_id,
    redact,
    schema,
    sse_events,
)

from ._calls import python_calls

# --- server-sent events ---------------------------------------------------------------------------

LONG = b"x" * 70_000 + b"\xff"
"""A data value past the 64 KiB that make a line long (its last byte no UTF-8: kept as it is)."""

SSE_CASES = [
    # (stream, [(data, event, id)]) — WHATWG "interpret an event stream"
    (b"data: {}\n\n", [(b"{}", "message", None)]),
    (b"event: message\ndata: {\"a\":1}\n\n", [(b'{"a":1}', "message", None)]),
    (b"data: a\r\ndata: b\r\n\r\n", [(b"a\nb", "message", None)]),  # data lines joined by LF; CRLF ends lines
    (b"data: a\rdata: b\r\r", [(b"a\nb", "message", None)]),  # a lone CR ends a line too
    (b": comment\ndata: x\n\ndata: y\n\n", [(b"x", "message", None), (b"y", "message", None)]),
    (b"data:nospace\n\n", [(b"nospace", "message", None)]),
    (b"data:  two spaces\n\n", [(b" two spaces", "message", None)]),  # only one space is dropped
    (b"id: 4\nretry: 10\ndata: z\n\n", [(b"z", "message", "4")]),
    (b"id: 7\ndata:\n\n", []),  # the 2025-11-25 priming event: an id and empty data is no message
    (b"id: 7\ndata:\n\ndata: m\n\n", [(b"m", "message", "7")]),  # ... but its id is kept
    (b"id: 7\n\n", []),  # no data field at all
    (b"data\n\n", []),  # a bare "data" field has an empty value
    (b"data:\ndata:\n\n", [(b"\n", "message", None)]),  # two empty data lines: one LF survives
    (b"event: ping\ndata: 1\n\n", [(b"1", "ping", None)]),
    (b"id: a\x00b\ndata: 1\n\n", [(b"1", "message", None)]),  # an id holding NUL is ignored
    (b"\xef\xbb\xbfdata: bom\n\n", [(b"bom", "message", None)]),  # a leading BOM is dropped
    (b"data: \xff\xfe\n\n", [(b"\xff\xfe", "message", None)]),  # data bytes kept exactly, not repaired
    (b"foo: bar\ndata: 1\n\n", [(b"1", "message", None)]),  # unknown fields are ignored
    (b"data: cut off without a blank line", []),  # discarded at the end of the stream
    # data lines past 64 KiB (SSEParser._long_data copies their value out once): the same rules
    (b"data: " + LONG + b"\n\n", [(LONG, "message", None)]),
    (b"data:" + LONG + b"\r\ndata: " + LONG + b"\r\n\r\n", [(LONG + b"\n" + LONG, "message", None)]),
    (b"id: 3\ndata:  " + LONG + b"\r\r", [(b" " + LONG, "message", "3")]),  # one space dropped; CR ends
    (b"data: a\ndata: " + LONG + b"\n\n", [(b"a\n" + LONG, "message", None)]),
    (b"dataX: " + LONG + b"\n\ndata: y\n\n", [(b"y", "message", None)]),  # another field, long
    (b": " + LONG + b"\ndata: z\n\n", [(b"z", "message", None)]),  # a long comment
    (b"data: " + LONG, []),  # a long event cut off: discarded
]


@pytest.mark.parametrize(("body", "expected"), SSE_CASES)
def test_sse_events(body: bytes, expected: list[tuple[bytes, str, str | None]]) -> None:
    assert [(e.data, e.event, e.id) for e in sse_events(body)] == expected


@pytest.mark.parametrize(("body", "expected"), SSE_CASES)
def test_sse_events_fed_in_chunks(body: bytes, expected: list[tuple[bytes, str, str | None]]) -> None:
    parser = SSEParser()
    events = [event for at in range(0, len(body), 4099) for event in parser.feed(body[at:at + 4099])]
    assert [(e.data, e.event, e.id) for e in events + parser.close()] == expected


def test_sse_parser_is_incremental_and_handles_a_split_crlf() -> None:
    parser = SSEParser()
    seen: list[SSEEvent] = []
    for chunk in (b"data: {\"id\"", b":1}\r", b"\n\r", b"\ndata: 2\n", b"\n"):
        seen += parser.feed(chunk)
    assert [e.data for e in seen] == [b'{"id":1}', b"2"]
    assert not parser.pending


def test_sse_long_data_line_is_copied_once() -> None:
    """An 8 MiB event fed in 64 KiB chunks: the parser's peak (traced) is its buffer and the
    value copied out of it, about twice the line (with three copies more before: ~4x)."""
    size = 8 * 1024 * 1024
    body = b"data: " + b"y" * size + b"\n\n"
    chunks = [body[i:i + 65536] for i in range(0, len(body), 65536)]
    parser = SSEParser()
    tracemalloc.start()
    try:
        events = [event for chunk in chunks for event in parser.feed(chunk)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [len(e.data) for e in events] == [size]
    assert peak < 2.5 * size, peak / size


def test_sse_retry_and_close() -> None:
    parser = SSEParser()
    assert parser.feed(b"retry: 1500\nretry: x1\ndata: a\n\ndata: b") == [SSEEvent(b"a", "message", None, 1500)]
    assert parser.retry == 1500
    assert parser.pending and parser.close() == [] and parser.dropped and not parser.pending


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"data: x", b"data:", b"id: 1", b": c", b"event: e", b"", b"retry: 5",
                                 b"data: \xff"]), max_size=12),
       st.sampled_from([b"\n", b"\r", b"\r\n"]), st.lists(st.integers(1, 7), max_size=10))
def test_sse_any_chunking_gives_the_same_events(lines: list[bytes], end: bytes, cuts: list[int]) -> None:
    body = b"".join(line + end for line in lines) + end
    whole = sse_events(body)
    parser = SSEParser()
    pieces: list[SSEEvent] = []
    position = 0
    for cut in cuts:
        pieces += parser.feed(body[position:position + cut])
        position += cut
    pieces += parser.feed(body[position:])
    pieces += parser.close()
    assert pieces == whole


# (the chunks fed, one at a time; the data of the events each feed returns) — WHATWG: a CR ends its
# line; a LF right after it is the same line end (CRLF), even when it comes in the next chunk
CR_CHUNK_CASES = [
    ([b"data: a\r\r"], [[b"a"]]),  # the empty line's CR dispatches at once (was: at the next byte)
    ([b"data: a\r\r", b"\n"], [[b"a"], []]),  # its LF, later: no second empty line, nothing more
    ([b"data: a\r", b"\r", b"\ndata: b\r\r"], [[], [b"a"], [b"b"]]),
    ([b"data: a\r", b"\n", b"\n"], [[], [], [b"a"]]),  # CR|LF is one line end; the next LF the empty line
    ([b"data: a\r", b"\r", b"\r"], [[], [b"a"], []]),  # three CRs: two line ends and an empty line
    ([b"data: a\r\r", b"", b"\ndata: b\n\n"], [[b"a"], [], [b"b"]]),  # an empty chunk changes nothing
]


@pytest.mark.parametrize(("chunks", "expected"), CR_CHUNK_CASES)
def test_sse_a_cr_at_the_end_of_a_chunk_ends_its_line_at_once(chunks: list[bytes],
                                                             expected: list[list[bytes]]) -> None:
    parser = SSEParser()
    assert [[event.data for event in parser.feed(chunk)] for chunk in chunks] == expected
    assert parser.close() == [] and not parser.dropped


# (bytes fed; whether the parser holds nothing after them)
IDLE_CASES = [
    (b"", True),
    (b": keep-alive\n", True),  # a comment: ignored
    (b"retry: 10\nid: 4\n", True),  # no event under way
    (b"id: 7\ndata:\n\n", True),  # a priming event, dispatched (no message)
    (b"data: {}\n\n", True),
    (b": keep-al", False),  # a line under way
    (b"data: {}\n", False),  # an event waiting for its empty line
    (b"event: message\n", False),
    (b"data: {}\r\r", True),  # a CR at the end ends its line at once
]


@pytest.mark.parametrize(("fed", "idle"), IDLE_CASES)
def test_sse_idle_says_whether_anything_is_held(fed: bytes, idle: bool) -> None:
    parser = SSEParser()
    parser.feed(fed)
    assert parser.idle is idle


# --- routing reads --------------------------------------------------------------------------------

PEEK_CASES = [
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}', "request", 1, "tools/call"),
    (b'{"jsonrpc":"2.0","method":"notifications/progress"}', "notification", None, "notifications/progress"),
    (b'{"jsonrpc":"2.0","id":"a","result":{}}', "response", "a", None),
    (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}', "error", None, None),
    (b'{"jsonrpc":"2.0","id":2.5,"result":{}}', "response", 2.5, None),
    (b'[{"jsonrpc":"2.0","id":1,"result":{}}]', "batch", None, None),
    (b'"just a string"', "invalid", None, None),
    (b'{"jsonrpc":"2.0","id":1}', "invalid", 1, None),
    (b'{"jsonrpc":"2.0","id":1,"method":"m","result":{}}', "invalid", 1, None),
    (b'{"jsonrpc":"2.0","id":3,"result":{"x":NaN}}', "unreadable", 3, None),
    (b'{"jsonrpc":"2.0","id":"k","result":{"t":"\\ud800"}}', "unreadable", "k", None),
    (b'{"jsonrpc":"2.0","id":4,"result":{"content":[{"ty', "unreadable", 4, None),
    (b'{"jsonrpc":"2.0","id":5,"result":{"t":"\xff"}}', "unreadable", 5, None),
    (b"debug: starting up", "unreadable", None, None),
]


@pytest.mark.parametrize(("frame", "kind", "id_", "method"), PEEK_CASES)
def test_peek(frame: bytes, kind: str, id_: Any, method: str | None) -> None:
    look = peek(frame)
    assert (look.kind, look.id, look.method) == (kind, id_, method)
    assert type(look.id) is type(id_)


RECOVER_CASES = [
    (b'{"jsonrpc":"2.0","result":{"id":9,"x":NaN},"id":3}', (True, 3)),  # the top-level id, not the nested one
    (b'{"id": "s-1" , "result": NaN}', (True, "s-1")),
    (b'{"id":"esc\\"aped","result":NaN}', (True, 'esc"aped')),
    (b'{"jsonrpc":"2.0","result":{"text":"\\"id\\":7"},"x":NaN}', (False, None)),  # "id" inside a string
    (b'{"result":NaN,"id":1.5}', (True, 1.5)),  # a float, as orjson reads one
    (b'{"id":' + b"9" * 30 + b',"result":NaN}', (True, 10**30 - 1)),  # an integer, exactly
    (b'[{"id":1}', (False, None)),  # nested one level down
    (b"", (False, None)),
]


@pytest.mark.parametrize(("frame", "expected"), RECOVER_CASES)
def test_recover_id(frame: bytes, expected: tuple[bool, Any]) -> None:
    assert recover_id(frame) == expected


def test_id_keys_keep_the_json_type_apart() -> None:
    assert len({id_key(7), id_key("7"), id_key(7.0)}) == 3


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_routing_reads_never_raise(data: bytes) -> None:
    peek(data)
    recover_id(data)
    decode(data)


# --- the frame log --------------------------------------------------------------------------------

RECORDS = [
    FrameRecord("c1", 0, 1764620000.5, "c2s", "message", b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
                transport="stdio"),
    FrameRecord("c1", 1, 1764620000.75, "s2c", "message", b'{"isError":true,"isError":false}'),
    FrameRecord("c1", 2, 1764620001.0, "s2c", "message", b"\xff\xfe not UTF-8"),
    FrameRecord("c1", 3, 1764620001.0, "s2c", "noise", b"debug: hello"),
    FrameRecord("h", 0, 1.0, "s2c", "message", b"{}", transport="http",
                http={"exchange": 2, "method": "POST", "status": 200, "content_type": "text/event-stream",
                      "session": "abc", "protocol_version": "2025-11-25", "event_id": "7"}),
    FrameRecord("c1", 4, 2.0, "s2c", "eof", note="the server exited with status 1"),
    FrameRecord("c1", 5, 2.0, "c2s", "open", note="stdio: python server.py"),
]


@pytest.mark.parametrize("record", RECORDS)
def test_a_record_survives_its_line_exactly_and_fits_the_schema(record: FrameRecord) -> None:
    line = encode(record)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode(line) == record
    jsonschema.validate(__import__("json").loads(line), schema())


def test_bytes_that_are_not_utf8_travel_as_base64() -> None:
    assert b'"b64":"//4gbm90IFVURi04"' in encode(RECORDS[2])


def test_redaction_keeps_only_digest_and_size() -> None:
    red = redact(RECORDS[0])
    assert red.data is None and red.redacted is not None and red.size == len(RECORDS[0].data or b"")
    line = encode(red)
    assert b"tools/call" not in line and decode(line) == red
    jsonschema.validate(__import__("json").loads(line), schema())


BAD_LINES = [
    (b"not json", "not JSON"),
    (b'{"v":2,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":""}', "unknown format version 2"),
    (b'{"v":1,"conn":"c","seq":-1,"t":0,"dir":"c2s","kind":"message","data":""}', "seq must be"),
    (b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"up","kind":"message","data":""}', "dir must be"),
    (b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message"}', "exactly one of"),
    (b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"eof","data":"x"}', "carries no payload"),
    (b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","b64":"***"}', "not valid base64"),
    (b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"","http":{"authorization":"x"}}',
     "http.authorization is not a field"),
]


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
def test_a_bad_line_is_a_problem_with_its_reason(line: bytes, reason: str) -> None:
    problem = decode(line, 7)
    assert isinstance(problem, LogProblem) and problem.line == 7 and reason in problem.reason


def test_the_schema_refuses_what_the_reader_refuses() -> None:
    import json

    for line, _ in BAD_LINES[1:]:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(json.loads(line), schema())


# Lines the typed reader and the checked reader of ``decode`` must read alike: the writer's own
# lines, and the edges where msgspec and orjson differ if nothing holds them together (a long
# integer orjson reads as a float, a null member, a duplicated key, an unknown member, a lone
# surrogate, base64, http members of the wrong type).
EDGE_LINES = [encode(r).rstrip(b"\n") for r in [*RECORDS, redact(RECORDS[0])]] + [
    b'{"v":1,"conn":"c","seq":184467440737095516150,"t":0,"dir":"c2s","kind":"open"}',
    b'{"v":1,"conn":"c","seq":18446744073709551615,"t":0,"dir":"c2s","kind":"open"}',
    b'{"v":1,"conn":"c","seq":0,"t":1e400,"dir":"c2s","kind":"open"}',
    b'{"v":1,"conn":"c","seq":0,"t":-0,"dir":"c2s","kind":"open"}',
    b'{"v":1,"conn":"c","seq":0,"t":7,"dir":"c2s","kind":"message","data":"x","note":null}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":null}',
    b'{"v":1,"conn":"c","conn":"d","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","data":"y"}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","extra":[[[1]]]}',
    b'{"v":1,"conn":"\\ud800","seq":0,"t":0,"dir":"c2s","kind":"open"}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"\\udc80"}',
    b'{"v":1.0,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"open"}',
    b'{"v":true,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"open"}',
    b'{"v":1,"conn":"c","seq":true,"t":0,"dir":"c2s","kind":"open"}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","b64":"eA=="}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","b64":"eA=="}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"open","redacted":{"sha256":"a","size":1}}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","redacted":{"sha256":"a","size":1,"x":2}}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","http":{"exchange":"2"}}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","http":{"status":200.0}}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","http":{"exchange":1e30}}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","http":{"exchange":-3}}',
    b'{"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"message","data":"x","transport":"ws"}',
    b' {"v":1,"conn":"c","seq":0,"t":0,"dir":"c2s","kind":"eof"} ',
    b"\xef\xbb\xbf{}", b"[]", b"", b'{"v":1}',
] + [line for line, _ in BAD_LINES]


@pytest.mark.parametrize("line", EDGE_LINES)
def test_the_typed_reader_reads_every_line_as_the_checked_reader_does(line: bytes) -> None:
    from mcp_verdict.frames._log import _decode_checked

    assert decode(line, 3) == _decode_checked(line, 3)
    assert decode(line.decode("utf-8", "surrogatepass"), 3) == _decode_checked(line.decode("utf-8", "surrogatepass"), 3)


_MEMBER = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                    st.floats(allow_nan=False), st.text(max_size=5), st.sampled_from(["c2s", "s2c", "message", "open",
                                                                                      "eof", "stdio", "http"]))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["v", "conn", "seq", "t", "dir", "kind", "data", "b64", "note", "transport",
                                        "redacted", "http", "other"]),
                       st.one_of(_MEMBER, st.dictionaries(st.sampled_from(["sha256", "size", "exchange", "status",
                                                                           "method", "x"]), _MEMBER, max_size=3)),
                       max_size=10))
def test_the_typed_reader_agrees_with_the_checked_reader_on_any_object(value: dict[str, Any]) -> None:
    from mcp_verdict.frames._log import _decode_checked

    line = __import__("json").dumps({"v": 1, "conn": "c", "seq": 0, "t": 0, "dir": "c2s", "kind": "open",
                                     **value}).encode()
    assert decode(line) == _decode_checked(line, 0)


def test_read_numbers_lines_and_skips_blank_ones() -> None:
    stream = io.BytesIO(encode(RECORDS[0]) + b"\n" + b"garbage\n" + encode(RECORDS[1]))
    out = list(read(stream))
    assert out[0] == RECORDS[0] and isinstance(out[1], LogProblem) and out[1].line == 3 and out[2] == RECORDS[1]


def test_the_writer_rotates_by_size_and_redacts_on_request(tmp_path: Path) -> None:
    path = tmp_path / "frames.jsonl"
    with FrameLogWriter(path, max_bytes=1024, backups=2) as writer:
        for seq in range(40):
            writer.write(FrameRecord("c", seq, float(seq), "c2s", "message", b"x" * 60))
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["frames.jsonl", "frames.jsonl.1", "frames.jsonl.2"]
    sizes = [p.stat().st_size for p in tmp_path.iterdir()]
    assert max(sizes) <= 1024
    kept = [r.seq for name in ("frames.jsonl.2", "frames.jsonl.1", "frames.jsonl")
            for r in read((tmp_path / name).open("rb")) if isinstance(r, FrameRecord)]
    assert kept == sorted(kept) and kept[-1] == 39  # the newest frames, in order
    with FrameLogWriter(tmp_path / "red.jsonl", payloads=False) as writer:
        writer.write(RECORDS[0])
    assert b"tools/call" not in (tmp_path / "red.jsonl").read_bytes()


# --- the tracker ----------------------------------------------------------------------------------

def _feed(tracker: Tracker, frames: list[tuple[str, bytes]], conn: str = "c", **http: Any) -> list[Any]:
    events = []
    for seq, (direction, data) in enumerate(frames):
        events += tracker.feed(conn, direction, data, at=float(seq), seq=seq,  # type: ignore[arg-type]
                               http=http or None)
    return events


CALL = b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"t","arguments":{}}}'
OK = b'{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}'


def test_answers_pair_by_id_with_its_json_type_out_of_order() -> None:
    tracker = Tracker()
    events = _feed(tracker, [("c2s", CALL % b"1"), ("c2s", CALL % b'"1"'), ("s2c", OK % b'"1"'),
                             ("s2c", b'{"jsonrpc":"2.0","method":"notifications/progress"}'), ("s2c", OK % b"1")])
    assert [type(e) for e in events] == [Answered, Answered]
    assert [e.exchange.request_id for e in events] == ["1", 1]
    assert [e.exchange.request.seq for e in events] == [1, 0]
    assert events[0].exchange.tool == "t" and events[0].exchange.method == "tools/call"


def test_strays_a_second_answer_and_an_answer_to_nothing() -> None:
    tracker = Tracker()
    events = _feed(tracker, [("s2c", OK % b"9"), ("c2s", CALL % b"1"), ("s2c", OK % b"1"), ("s2c", OK % b"1")])
    assert [type(e) for e in events] == [Stray, Answered, Stray]
    assert "answers no request" in events[0].reason and "second answer" in events[2].reason


def test_an_unreadable_answer_is_paired_by_its_recovered_id_or_the_only_waiting_request() -> None:
    tracker = Tracker()
    events = _feed(tracker, [("c2s", CALL % b"1"), ("c2s", CALL % b"2"),
                             ("s2c", b'{"jsonrpc":"2.0","id":2,"result":{"x":NaN}}'), ("s2c", b"garbage")])
    assert isinstance(events[0], Answered) and events[0].exchange.request_id == 2
    assert isinstance(events[1], Answered) and events[1].exchange.request_id == 1  # the only one left


def test_an_unreadable_answer_with_no_id_and_two_waiting_is_a_stray_then_both_are_unanswered() -> None:
    tracker = Tracker()
    events = _feed(tracker, [("c2s", CALL % b"1"), ("c2s", CALL % b"2"), ("s2c", b"garbage")])
    assert isinstance(events[0], Stray)
    closed = tracker.close("c", "the server exited")
    assert [type(e) for e in closed] == [Unanswered, Unanswered]
    assert isinstance(closed[0], Unanswered) and closed[0].reason == "the server exited"


def test_an_http_answer_without_an_id_pairs_with_its_own_exchange() -> None:
    tracker = Tracker()
    tracker.feed("h", "c2s", CALL % b"1", at=0, seq=0, http={"exchange": 1})
    tracker.feed("h", "c2s", CALL % b"2", at=0, seq=1, http={"exchange": 2})
    events = tracker.feed("h", "s2c", b"<html>", at=0, seq=2, http={"exchange": 2})
    assert isinstance(events[0], Answered) and events[0].exchange.request_id == 2


def test_server_requests_and_the_clients_answers_pair_the_other_way() -> None:
    tracker = Tracker()
    events = _feed(tracker, [("c2s", CALL % b"1"), ("s2c", b'{"jsonrpc":"2.0","id":1,"method":"elicitation/create"}'),
                             ("c2s", b'{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}'), ("s2c", OK % b"1")])
    assert [(e.exchange.origin, e.exchange.method) for e in events] == [("server", "elicitation/create"),
                                                                          ("client", "tools/call")]


INIT = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}')
INIT_OK = b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{},"serverInfo":{}}}'


def _context_of(frames: list[tuple[str, bytes]], **http: Any) -> Any:
    tracker = Tracker()
    events = _feed(tracker, frames, **http)
    return next(e for e in events if e.exchange.method == "tools/call").exchange.context


def test_a_2025_session_takes_the_version_and_capabilities_of_initialize() -> None:
    context = _context_of([("c2s", INIT), ("s2c", INIT_OK % b"2025-06-18"), ("c2s", CALL % b"1"), ("s2c", OK % b"1")])
    assert (context.version, context.source, context.claimed) == ("2025-06-18", "initialize", None)
    assert context.client_capabilities == {"elicitation": {}} and context.extensions == ()


def test_an_unknown_negotiated_version_is_claimed_and_read_as_the_default() -> None:
    context = _context_of([("c2s", INIT), ("s2c", INIT_OK % b"2099-01-01"), ("c2s", CALL % b"1"), ("s2c", OK % b"1")])
    assert (context.version, context.claimed) == ("2026-07-28", "2099-01-01")


def test_a_2026_request_carries_its_own_version_capabilities_and_extensions() -> None:
    call = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{'
            b'"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":'
            b'{"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}')
    context = _context_of([("c2s", call), ("s2c", OK % b"1")])
    assert (context.version, context.source) == ("2026-07-28", "request_meta")
    assert context.client_capabilities == {"sampling": {}, "extensions": {TASKS_EXTENSION: {}}}
    assert context.extensions == (TASKS_EXTENSION,)


def test_the_header_gives_the_version_when_nothing_else_does() -> None:
    context = _context_of([("c2s", CALL % b"1"), ("s2c", OK % b"1")], protocol_version="2025-03-26")
    assert (context.version, context.source) == ("2025-03-26", "header")
    assert _context_of([("c2s", CALL % b"1"), ("s2c", OK % b"1")]).source == "default"


def test_a_task_augmented_2025_11_25_call_has_the_tasks_extension_in_force() -> None:
    call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{"ttl":1000}}}'
    context = _context_of([("c2s", INIT), ("s2c", INIT_OK % b"2025-11-25"), ("c2s", call), ("s2c", OK % b"1")])
    assert context.extensions == (TASKS_EXTENSION,)


def _call_2026(rid: int, capabilities: bytes, version: bytes = b"2026-07-28", task: bytes = b"") -> bytes:
    return (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t",%s"_meta":{'
            b'"io.modelcontextprotocol/protocolVersion":"%s","io.modelcontextprotocol/clientCapabilities":%s}}}'
            % (rid, task, version, capabilities))


_CAPS = b'{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}'
# (the client's requests in order, whether each request's context is the previous one's object).
# What is in force is compared, not where it was written: equal _meta capabilities in two
# requests (2026-07-28 basic/lifecycle: each request carries them) are one context.
CONTEXT_REUSE_CASES: list[tuple[list[bytes], list[bool]]] = [
    ([_call_2026(1, _CAPS), _call_2026(2, _CAPS), _call_2026(3, _CAPS)], [False, True, True]),
    # the same members written in another order are the same capabilities
    ([_call_2026(1, _CAPS), _call_2026(2, b'{"extensions":{"io.modelcontextprotocol/tasks":{}},'
                                         b'"elicitation":{"form":{}}}')], [False, True]),
    ([_call_2026(1, _CAPS), _call_2026(2, b'{"elicitation":{}}'), _call_2026(3, _CAPS)], [False, False, False]),
    ([_call_2026(1, _CAPS), _call_2026(2, _CAPS, b"2099-01-01")], [False, False]),
    ([_call_2026(1, b"{}"), _call_2026(2, b"null"), _call_2026(3, b"null")], [False, False, True]),
    # a 2025 session: initialize's capabilities for every request; a task-augmented call differs
    ([INIT, CALL % b"1", CALL % b"2", _call_2026(3, b"{}", b"2025-11-25", b'"task":{"ttl":1},'),
      CALL % b"4"], [False, False, True, False, False]),
]


@pytest.mark.parametrize(("requests", "reused"), CONTEXT_REUSE_CASES)
def test_a_request_in_the_same_context_gets_the_same_context_object(requests: list[bytes],
                                                                   reused: list[bool]) -> None:
    tracker = Tracker()
    contexts = []
    for seq, data in enumerate(requests):
        tracker.feed("c", "c2s", data, at=0.0, seq=seq)
        opened = tracker.opened("c")
        assert opened is not None
        contexts.append(opened.context)
        if data == INIT:
            tracker.feed("c", "s2c", INIT_OK % b"2025-11-25", at=0.0, seq=100)
    assert [i > 0 and c is contexts[i - 1] for i, c in enumerate(contexts)] == reused
    for i, context in enumerate(contexts):  # each still says what is in force for its own request
        if reused[i]:
            assert context == contexts[i - 1]


def test_capabilities_nested_past_the_recursion_limit_are_compared_without_raising() -> None:
    deep = b'{"x":' * 1020 + b"{}" + b"}" * 1020
    tracker = Tracker()
    _feed(tracker, [("c2s", _call_2026(1, deep)), ("c2s", _call_2026(2, deep)), ("s2c", OK % b"2")])
    assert [e.request_id for e in tracker.pending("c")] == [1]


def test_rounds_of_one_call_are_linked_by_request_state_and_task_id() -> None:
    tracker = Tracker()
    frames = [
        ("c2s", CALL % b"1"),
        ("s2c", b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s1"}}'),
        ("c2s", b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","requestState":"s1"}}'),
        ("s2c", b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"T","status":"working"}}'),
        ("c2s", b'{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T"}}'),
        ("s2c", b'{"jsonrpc":"2.0","id":3,"result":{"taskId":"T","status":"completed"}}'),
        ("c2s", CALL % b"4"),
        ("s2c", OK % b"4"),
    ]
    events = _feed(tracker, frames)
    assert [(e.exchange.call, e.exchange.round, e.exchange.method) for e in events] == [
        (1, 1, "tools/call"), (1, 2, "tools/call"), (1, 3, "tasks/get"), (2, 1, "tools/call")]
    assert events[2].exchange.task_id == "T"


TASK_T = b'{"jsonrpc":"2.0","id":%s,"result":{"resultType":"task","taskId":"T","status":"working"}}'
GET_T = b'{"jsonrpc":"2.0","id":%s,"method":"tasks/get","params":{"taskId":"T"}}'


# (case, frames) → (the calls of the events, task_call, task_creator), by hand. A second call's answer naming a
# task id a first call's created (2025-11-25 basic/utilities/tasks, Task ID Requirements: "Task IDs MUST be unique
# among all tasks controlled by the receiver"): the tracker cannot tell whether the first task ended (its caller
# can), so the id is no call's (a poll naming it opens a call of its own) until learn_task hands it on.
@pytest.mark.parametrize(("name", "frames", "calls", "owner", "creator"), [
    ("created once", [("c2s", CALL % b"1"), ("s2c", TASK_T % b"1"), ("c2s", GET_T % b"2"), ("s2c", OK % b"2")],
     [1, 1], 1, (1, False)),
    ("created twice", [("c2s", CALL % b"1"), ("s2c", TASK_T % b"1"), ("c2s", CALL % b"2"), ("s2c", TASK_T % b"2"),
                       ("c2s", GET_T % b"3"), ("s2c", OK % b"3")],
     [1, 2, 3], None, (1, True)),
    ("created three times", [("c2s", CALL % b"1"), ("s2c", TASK_T % b"1"), ("c2s", CALL % b"2"),
                             ("s2c", TASK_T % b"2"), ("c2s", CALL % b"3"), ("s2c", TASK_T % b"3")],
     [1, 2, 3], None, (1, True)),
    # a poll's answer naming the id creates no task (the poll's call is the task's)
    ("polled", [("c2s", CALL % b"1"), ("s2c", TASK_T % b"1"), ("c2s", GET_T % b"2"), ("s2c", TASK_T % b"2")],
     [1, 1], 1, (1, False)),
])
def test_a_task_id_created_twice_is_no_calls(name: str, frames: list[tuple[str, bytes]], calls: list[int],
                                             owner: int | None, creator: tuple[int, bool]) -> None:
    tracker = Tracker()
    events = _feed(tracker, frames)
    assert [e.exchange.call for e in events] == calls
    assert tracker.task_call("c", "T") == owner
    assert tracker.task_creator("c", "T") == creator
    assert tracker.task_creator("c", "U") is None and tracker.task_creator("other", "T") is None
    if creator[1]:  # its caller says the first task ended: the id is the later call's
        tracker.learn_task("c", "T", 2)
        assert (tracker.task_call("c", "T"), tracker.task_creator("c", "T")) == (2, (2, False))


SECOND = "a second answer to the same request"
NOTHING = "it answers no request waiting on this connection"


@pytest.mark.parametrize(("cap", "expected", "again"), [
    # requestStates are remembered for the last ``cap`` calls that gave one, and rounds for the
    # last ``cap`` calls that have had a second (a call not remembered is in its first round);
    # past it the oldest is forgotten: a retry then opens a new call. With 0 nothing outlives its
    # own request; with 1, "s1" is the only requestState given, so the retry is call 1's second
    # round (before 2026-12-05 every call's first round was kept as well, and call 2's put call
    # 1's out: its count restarted at 1). The ids answered are forgotten all at once when they grow past ``cap`` (only
    # the detection of a second answer is lost): after ids 1, 2 and 3, id 3 is still known with a
    # cap of 1 (cleared at 2, then 3 added) and 100,000, not with 0 or 2 (cleared at 3).
    (0, [(1, 1), (2, 1), (3, 1)], NOTHING),
    (1, [(1, 1), (2, 1), (1, 2)], SECOND),
    (2, [(1, 1), (2, 1), (1, 2)], NOTHING),
    (100_000, [(1, 1), (2, 1), (1, 2)], SECOND),
])
def test_what_a_connection_remembers_is_bounded(cap: int, expected: list[tuple[int, int]], again: str) -> None:
    tracker = Tracker(max_answered=cap)
    frames = [
        ("c2s", CALL % b"1"),
        ("s2c", b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s1"}}'),
        ("c2s", CALL % b"2"),
        ("s2c", OK % b"2"),
        ("c2s", b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","requestState":"s1"}}'),
        ("s2c", OK % b"3"),
    ]
    events = _feed(tracker, frames)
    assert [(e.exchange.call, e.exchange.round) for e in events] == expected
    assert [e.reason for e in _feed(tracker, [("s2c", OK % b"3")])] == [again]


def test_connections_are_apart_even_with_the_same_ids() -> None:
    tracker = Tracker()
    tracker.feed("a", "c2s", CALL % b"1", at=0, seq=0)
    assert isinstance(tracker.feed("b", "s2c", OK % b"1", at=0, seq=0)[0], Stray)
    assert isinstance(tracker.feed("a", "s2c", OK % b"1", at=0, seq=1)[0], Answered)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["c2s", "s2c"]),
                          st.one_of(st.binary(max_size=60), st.sampled_from([CALL % b"1", OK % b"1", INIT,
                                                                             INIT_OK % b"x", b"garbage"]))),
                max_size=20))
def test_the_tracker_never_raises(frames: list[tuple[str, bytes]]) -> None:
    tracker = Tracker()
    _feed(tracker, frames)
    tracker.close("c")


# -- Tracker.opened and RotatingLines (added for the proxy) ------------------------------------------
def test_opened_names_the_request_the_last_frame_opened() -> None:
    tracker = Tracker()
    tracker.feed("c", "c2s", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}', at=0, seq=0)
    opened = tracker.opened("c")
    assert opened is not None and opened.request_id == 7 and opened.tool == "t"
    tracker.feed("c", "c2s", b'{"jsonrpc":"2.0","method":"notifications/initialized"}', at=0, seq=1)
    assert tracker.opened("c") is None
    tracker.feed("c", "s2c", b'{"jsonrpc":"2.0","id":7,"result":{}}', at=0, seq=2)
    assert tracker.opened("c") is None
    assert tracker.opened("unknown") is None


# (origin, id key asked, frames fed on "c" before) -> the request id found waiting, or None
WAITING_CASES = [
    ("client", ("int", 7), [("c2s", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}')], 7),
    # an id keeps its JSON type: 7 is not "7"
    ("client", ("str", "7"), [("c2s", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}')], None),
    # the server's request with the same id is the other origin's
    ("client", ("int", 7), [("s2c", b'{"jsonrpc":"2.0","id":7,"method":"roots/list"}')], None),
    ("server", ("int", 7), [("s2c", b'{"jsonrpc":"2.0","id":7,"method":"roots/list"}')], 7),
    # answered: no longer waiting
    ("client", ("int", 7), [("c2s", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}'),
                            ("s2c", b'{"jsonrpc":"2.0","id":7,"result":{}}')], None),
    ("client", ("int", 7), [], None),
]


@pytest.mark.parametrize(("origin", "key", "frames", "expected"), WAITING_CASES)
def test_waiting_names_the_request_an_answer_with_that_id_would_pair_with(
        origin: Any, key: tuple[str, Any], frames: list[tuple[Any, bytes]], expected: int | None) -> None:
    tracker = Tracker()
    for seq, (direction, frame) in enumerate(frames):
        tracker.feed("c", direction, frame, at=0, seq=seq)
    found = tracker.waiting("c", origin, key)
    assert (found.request_id if found is not None else None) == expected
    assert tracker.waiting("other", origin, key) is None


ROOTS = b'{"jsonrpc":"2.0","id":%s,"method":"roots/list"}'  # a server's request (client/roots)

# (the steps on "c": a frame fed in a direction, or ("forget", origin) / ("restore", origin): the request that
# origin waits under id 7 forgotten, or made the one waiting again — the one last forgotten, else the one waiting)
# -> Tracker.latest("c", id 7): of the client's and the server's requests both waiting under it, the side whose
# began waiting the later (its place in pending()), by hand
LATEST_CASES: list[tuple[str, list[tuple[str, Any]], str | None]] = [
    ("the server's after the client's", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7")], "server"),
    ("the client's after the server's", [("s2c", ROOTS % b"7"), ("c2s", CALL % b"7")], "client"),
    ("one side only", [("c2s", CALL % b"7")], None),
    ("none", [], None),
    ("an id keeps its JSON type: 7 is not \"7\"", [("c2s", CALL % b"7"), ("s2c", ROOTS % b'"7"')], None),
    ("another id", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"8")], None),
    # a request reusing a waiting id replaces it and begins waiting then: after the other side's
    ("the client's id reused", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7"), ("c2s", CALL % b"7")], "client"),
    ("the server's id reused", [("s2c", ROOTS % b"7"), ("c2s", CALL % b"7"), ("s2c", ROOTS % b"7")], "server"),
    ("the server's answered", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7"), ("c2s", OK % b"7")], None),
    ("the server's answered, then asked again", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7"), ("c2s", OK % b"7"),
                                                 ("s2c", ROOTS % b"7")], "server"),
    ("the client's answered, then asked again", [("s2c", ROOTS % b"7"), ("c2s", CALL % b"7"), ("s2c", OK % b"7"),
                                                 ("c2s", CALL % b"7")], "client"),
    ("both answered, then asked again the other way round",
     [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7"), ("c2s", OK % b"7"), ("s2c", OK % b"7"), ("s2c", ROOTS % b"7"),
      ("c2s", CALL % b"7")], "client"),
    ("the client's forgotten", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7"), ("forget", "client")], None),
    # restore: a request made the one waiting again begins waiting then, unless its id still waited
    ("the client's forgotten and restored", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7"), ("forget", "client"),
                                             ("restore", "client")], "client"),
    ("the client's restored while it waits", [("c2s", CALL % b"7"), ("s2c", ROOTS % b"7"), ("restore", "client")],
     "server"),
]


@pytest.mark.parametrize(("name", "steps", "expected"), LATEST_CASES, ids=[c[0] for c in LATEST_CASES])
def test_latest_names_the_side_whose_request_under_an_id_began_waiting_the_later(
        name: str, steps: list[tuple[str, Any]], expected: str | None) -> None:
    tracker = Tracker()
    forgotten = None
    for seq, (step, value) in enumerate(steps):
        if step == "forget":
            forgotten = tracker.forget("c", value, ("int", 7))
        elif step == "restore":
            exchange = forgotten or tracker.waiting("c", value, ("int", 7))
            assert exchange is not None
            tracker.restore("c", value, ("int", 7), exchange)
        else:
            tracker.feed("c", step, value, at=0, seq=seq)  # type: ignore[arg-type]
    assert tracker.latest("c", ("int", 7)) == expected
    assert tracker.latest("other", ("int", 7)) is None


def _later_in_pending(tracker: Tracker, key: tuple[str, Any]) -> str | None:
    """What latest() says, read from the order of pending() (a scan: the oracle)."""
    sides = [e.origin for e in tracker.pending("c") if id_key(e.request_id) == key]
    return sides[-1] if len(sides) == 2 else None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["call", "roots", "client answers", "server answers", "forget client",
                                           "forget server", "restore"]), st.sampled_from([b"7", b"8", b'"7"'])),
                max_size=30))
def test_latest_is_the_order_of_pending(steps: list[tuple[str, bytes]]) -> None:
    tracker = Tracker()
    forgotten: list[tuple[Any, Any]] = []
    for seq, (step, request_id) in enumerate(steps):
        key = id_key(peek(OK % request_id).id)
        if step.startswith("forget"):
            origin: Any = step.split()[1]
            exchange = tracker.forget("c", origin, key)
            if exchange is not None:
                forgotten.append((origin, exchange))
        elif step == "restore":
            if forgotten:
                origin, exchange = forgotten.pop()
                tracker.restore("c", origin, id_key(exchange.request_id), exchange)
        else:
            direction, frame = {"call": ("c2s", CALL), "roots": ("s2c", ROOTS), "client answers": ("c2s", OK),
                                "server answers": ("s2c", OK)}[step]
            tracker.feed("c", direction, frame % request_id, at=0, seq=seq)  # type: ignore[arg-type]
        for each in (("int", 7), ("int", 8), ("str", "7")):
            assert tracker.latest("c", each) == _later_in_pending(tracker, each)


def test_what_latest_keeps_is_bounded_by_the_requests_waiting() -> None:
    """Each id both sides waited under at once is noted; the notes of ids no longer both waiting are dropped
    once they are more than twice the requests waiting (and 64): 1,000 such ids met and answered, then one
    waiting, keep at most 2 x 2 + 64 notes."""
    tracker = Tracker()
    seq = 0
    for i in range(1000):
        for direction, frame in (("c2s", CALL), ("s2c", ROOTS), ("c2s", OK), ("s2c", OK)):
            tracker.feed("c", direction, frame % str(i).encode(), at=0, seq=seq)  # type: ignore[arg-type]
            seq += 1
    tracker.feed("c", "s2c", ROOTS % b"5000", at=0, seq=seq)
    tracker.feed("c", "c2s", CALL % b"5000", at=0, seq=seq + 1)
    assert tracker.latest("c", ("int", 5000)) == "client"
    assert tracker.latest("c", ("int", 999)) is None
    state = tracker.export("c")
    assert state is not None and len(state.pending) == 2 and len(state.both) <= 2 * 2 + 64


def test_rotating_lines_rotate_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    with RotatingLines(path, max_bytes=1024, backups=1) as lines:
        for n in range(100):
            lines.write_line(b'{"n":%d,"pad":"%s"}\n' % (n, b"x" * 40))
    kept = path.read_bytes().splitlines() + (tmp_path / "v.jsonl.1").read_bytes().splitlines()
    assert all(line.startswith(b'{"n":') and line.endswith(b'"}') for line in kept)
    assert path.stat().st_size <= 1024 and not (tmp_path / "v.jsonl.2").exists()
    with pytest.raises(ValueError, match="closed"):
        lines.write_line(b"x\n")


def test_a_request_reusing_a_waiting_id_replaces_it_and_the_first_is_unanswered() -> None:
    tracker = Tracker()
    assert tracker.feed("c", "c2s", CALL % b"1", at=0, seq=0) == []
    events = tracker.feed("c", "c2s", CALL % b"1", at=1, seq=1)
    assert [type(e) for e in events] == [Unanswered]
    assert isinstance(events[0], Unanswered) and events[0].exchange.request.seq == 0
    assert "reused its id" in events[0].reason
    answered = tracker.feed("c", "s2c", OK % b"1", at=2, seq=2)
    assert isinstance(answered[0], Answered) and answered[0].exchange.request.seq == 1


@pytest.mark.parametrize(("pair", "answer", "expected"), [
    (False, OK % b'"7"', Stray),  # JSON-RPC: "7" answers no request 7
    (True, OK % b'"7"', Answered),  # the audit's reading: the only waiting request with that text
    (True, OK % b'"8"', Stray),
    (True, OK % b"7.0", Stray),  # 7.0 is not written 7
])
def test_a_mismatched_id_pairs_only_when_asked_and_only_with_the_one_request_of_that_text(
        pair: bool, answer: bytes, expected: type) -> None:
    tracker = Tracker(pair_mismatched_ids=pair)
    tracker.feed("c", "c2s", CALL % b"7", at=0, seq=0)
    events = tracker.feed("c", "s2c", answer, at=0, seq=1)
    assert [type(e) for e in events] == [expected]


# (the request's id, the answer's id) → what the answer is (pair_mismatched_ids: the only waiting request whose id
# is written as the answer's, in another JSON type), by hand: the ids' texts are Python's repr of them
MISMATCHED = [
    (b"7.0", b'"7.0"', Answered),
    (b'"7.0"', b"7.0", Answered),
    (b"0.0", b'"-0.0"', Stray),  # -0.0 equals 0.0, but is not written so
    (b"-0.0", b'"-0.0"', Answered),
    (b"0", b'"-0"', Stray),
    (b"1e2", b'"100.0"', Answered),  # 1e2 is the float 100.0
    (b"1e2", b'"1e2"', Stray),
    (b"123456789012345678901234567890", b'"123456789012345678901234567890"', Answered),
    (b'"True"', b'"True"', Answered),  # (the same type: paired by its own key)
    (b'"x"', b'"y"', Stray),
]


@pytest.mark.parametrize(("request_id", "answer_id", "expected"), MISMATCHED)
def test_a_mismatched_id_is_paired_by_its_text(request_id: bytes, answer_id: bytes, expected: type) -> None:
    tracker = Tracker(pair_mismatched_ids=True)
    tracker.feed("c", "c2s", CALL % request_id, at=0, seq=0)
    assert [type(e) for e in tracker.feed("c", "s2c", OK % answer_id, at=0, seq=1)] == [expected]


def _steps(tracker: Tracker, frames: list[tuple[Literal["c2s", "s2c"], bytes]]) -> int:
    """The Python function calls feeding ``frames`` makes (``tests._calls``)."""

    def feed() -> None:
        for seq, (direction, data) in enumerate(frames):
            tracker.feed("c", direction, data, at=0, seq=seq)

    return python_calls(feed)[0]


@pytest.mark.parametrize("waiting", [1, 2000])
def test_answers_to_no_request_cost_the_same_whatever_waits(waiting: int) -> None:
    tracker = Tracker(pair_mismatched_ids=True)
    for i in range(waiting):
        tracker.feed("c", "c2s", CALL % str(i).encode(), at=0, seq=i)
    strays: list[tuple[Literal["c2s", "s2c"], bytes]] = [("s2c", OK % str(10**6 + i).encode()) for i in range(200)]
    assert _steps(tracker, strays) <= 1.1 * _steps(Tracker(pair_mismatched_ids=True), strays)


def test_a_typed_match_comes_before_a_mismatched_one() -> None:
    tracker = Tracker(pair_mismatched_ids=True)
    tracker.feed("c", "c2s", CALL % b"7", at=0, seq=0)
    tracker.feed("c", "c2s", b'{"jsonrpc":"2.0","id":"7","method":"ping"}', at=0, seq=1)
    first = tracker.feed("c", "s2c", OK % b'"7"', at=0, seq=2)[0]  # the ping, by its own type
    assert isinstance(first, Answered) and first.exchange.method == "ping"
    second = tracker.feed("c", "s2c", OK % b'"7"', at=0, seq=3)[0]  # then the tools/call 7, by its text
    assert isinstance(second, Answered) and second.exchange.request_id == 7


def test_feed_takes_the_callers_peek_instead_of_reading_again() -> None:
    tracker = Tracker()
    tracker.feed("c", "c2s", CALL % b"1", at=0, seq=0)
    look = peek(OK % b"1")
    events = tracker.feed("c", "s2c", OK % b"1", at=0, seq=1, look=look)
    assert isinstance(events[0], Answered) and events[0].exchange.response_peek is look


def test_tasks_update_continues_the_call_that_created_the_task() -> None:
    tracker = Tracker()
    frames = [
        ("c2s", CALL % b"1"),
        ("s2c", b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T","status":"working"}}'),
        ("c2s", b'{"jsonrpc":"2.0","id":2,"method":"tasks/update","params":{"taskId":"T","inputResponses":{}}}'),
        ("s2c", b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}'),
    ]
    events = _feed(tracker, frames)
    assert [(e.exchange.call, e.exchange.round, e.exchange.method) for e in events] == [
        (1, 1, "tools/call"), (1, 2, "tasks/update")]


# --- the bounded stdio line reader (basic/transports#stdio: newline-delimited, bounded) ----------

LINES: list[tuple[list[bytes], int, list[tuple[bytes, bool]]]] = [
    ([b'{"a":1}\n'], 64, [(b'{"a":1}', False)]),
    ([b'{"a":', b"1}\n{", b'"b":2}\n'], 64, [(b'{"a":1}', False), (b'{"b":2}', False)]),
    ([b"\n  \n\r\n", b"x\n"], 64, [(b"x", False)]),  # blank lines are no messages
    ([b"\f\n\v\n \t\n"], 64, [(b"\f", False), (b"\v", False)]),  # blank is JSON's whitespace (RFC 8259 s2)
    ([b"x\r\n"], 64, [(b"x\r", False)]),  # a CR before the LF kept: the bytes as sent
    ([b"0123456789"], 8, [(b"012345678", True)]),  # unfinished and past the limit: its start, once
    ([b"0123456789", b"abc", b"def\nok\n"], 8, [(b"012345678", True), (b"ok", False)]),  # the rest skipped
    ([b"0123456789\nok\n"], 8, [(b"0123456789", False), (b"ok", False)]),  # whole at once: as read
    ([b"01234567"], 8, []),  # at the limit, unfinished: still waited for
    ([b"01234567", b"\n"], 8, [(b"01234567", False)]),
]


@pytest.mark.parametrize(("chunks", "limit", "expected"), LINES)
def test_line_reader(chunks: list[bytes], limit: int, expected: list[tuple[bytes, bool]]) -> None:
    reader = LineReader(limit)
    assert [(line.data, line.cut) for chunk in chunks for line in reader.feed(chunk)] == expected


# (chunks, limit, the lines the end of the stream gives) - a last line without its LF is still a
# line (the proxy reads its two sides so); a blank rest, or the rest of a cut line, is none
LAST_LINES: list[tuple[list[bytes], int, list[tuple[bytes, bool]]]] = [
    ([b'{"a":1}\n{"b":2}'], 64, [(b'{"b":2}', False)]),
    ([b'{"a":1}\n'], 64, []),
    ([b"x\n \t\r"], 64, []),
    ([b"x\r"], 64, [(b"x\r", False)]),  # a CR alone ends no line: the bytes as sent
    ([b"0123456789", b"ab"], 8, []),  # the rest of the cut line: skipped
    ([b"0123456789\n", b"ab"], 8, [(b"ab", False)]),
    ([b"01234567"], 8, [(b"01234567", False)]),  # at the limit: whole
]


@pytest.mark.parametrize(("chunks", "limit", "expected"), LAST_LINES)
def test_line_reader_at_the_end(chunks: list[bytes], limit: int, expected: list[tuple[bytes, bool]]) -> None:
    reader = LineReader(limit)
    for chunk in chunks:
        reader.feed(chunk)
    assert [(line.data, line.cut) for line in reader.close()] == expected
    assert reader.close() == []  # once


# An answer's routing from its bytes alone (Tracker._plain_answer) or from its peek: each case is
# (requests waiting, the answer, what it pairs with: the request id, or NO_REQUEST), with
# the kind its peek says. The bytes route only where they prove the peek's pairing.
NO_REQUEST: Any = object()
PLAIN_ANSWERS: list[tuple[list[bytes], bytes, Any, str]] = [
    ([b"1"], OK % b"1", 1, "response"),
    ([b'"a-1"'], OK % b'"a-1"', "a-1", "response"),
    ([b"-0"], OK % b"0", 0, "response"),  # -0 is the integer 0 for orjson
    ([b"1", b'"1"'], OK % b'"1"', "1", "response"),  # the JSON type decides
    ([b"1", b"2"], b'{"jsonrpc":"2.0","id":1,"result":{},"id":2}', 2, "response"),  # the last id is kept
    ([b"1", b"2"], b'{"jsonrpc":"2.0","id":1,"result":{},"\\u0069d":2}', 2, "response"),  # "id", escaped
    ([b"1", b"2"], b'{"jsonrpc":"2.0","id":1,"result":{"x":{"id":3}}}', 1, "response"),  # an inner "id"
    ([b'"a\\"b"'], OK % b'"a\\"b"', 'a"b', "response"),  # an escaped id: read by the peek
    ([b"123456789012345678"], OK % b"123456789012345678", 123456789012345678, "response"),
    ([b"1234567890123456789"], OK % b"1234567890123456789", 1234567890123456789, "response"),
    ([b"18446744073709551616"], OK % b"18446744073709551616", 2**64, "response"),  # exact (orjson: a float)
    ([b"1"], b'{"jsonrpc":"2.0","id":1,"result":{', 1, "unreadable"),  # truncated: its id recovered
    ([b"1"], b'{"jsonrpc":"2.0","id":1,"result":{"v":1e400}}', 1, "unreadable"),
    ([b"1"], b'{"jsonrpc":"2.0","id":1,"result":{},"method":"x"}', 1, "invalid"),
    ([b"1"], b'{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"}}', 1, "error"),
    ([b'"a,b"'], OK % b'"a,b"', "a,b", "response"),
    ([b'"\xc3\xa9"'], OK % b'"\xc3\xa9"', "\u00e9", "response"),  # UTF-8 in the id: read by the peek
    ([b'""'], OK % b'""', "", "response"),
    ([b"1"], b'{"jsonrpc":"2.0","id":01,"result":{}}', 1, "unreadable"),  # no id recovered: the only request
    ([b"1", b"2"], b'{"jsonrpc":"2.0","id":"\x01","result":{}}', NO_REQUEST, "unreadable"),  # nor here
    ([b"1"], b'{"jsonrpc":"2.0","id":1,"result":{"text":"\\u0041"}}', 1, "response"),  # \u in a value
    ([b"1"], b'{"jsonrpc":"2.0","id":1,"extra":0,"result":{}}', 1, "response"),
    # null: the server could not read the id (JSON-RPC 2.0 section 5): as with none, the only request
    ([b"1"], b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}', 1, "error"),
    ([b"1", b"2"], b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}', NO_REQUEST, "error"),
    ([b"1"], b'{"jsonrpc":"2.0","id":null,"result":{}}', NO_REQUEST, "response"),  # a result names its request
    ([b"1"], b'{"jsonrpc":"2.0","error":{"code":-32700,"message":"m"}}', 1, "error"),  # none: the only request
    ([b"1"], OK % b"2", NO_REQUEST, "response"),
    ([b"1"], OK % b"1.0", NO_REQUEST, "response"),
]


@pytest.mark.parametrize(("requests", "answer", "pairs", "kind"), PLAIN_ANSWERS)
def test_an_answer_pairs_as_its_peek_says_whether_its_bytes_route_it_or_not(
        requests: list[bytes], answer: bytes, pairs: Any, kind: str) -> None:
    for given_look in (False, True):
        tracker = Tracker()
        for seq, request_id in enumerate(requests):
            tracker.feed("c", "c2s", CALL % request_id, at=0, seq=seq)
        events = tracker.feed("c", "s2c", answer, at=0, seq=9, look=peek(answer) if given_look else None)
        assert len(events) == 1
        event = events[0]
        if pairs is NO_REQUEST:
            assert isinstance(event, Stray) and event.peek.kind == kind
            assert event.reason == "it answers no request waiting on this connection"
            continue
        assert isinstance(event, Answered)
        exchange = event.exchange
        assert (type(exchange.request_id), exchange.request_id) == (type(pairs), pairs)
        assert exchange.response is not None and exchange.response.data == answer
        assert exchange.response_peek is not None and exchange.response_peek.kind == kind
        assert exchange.response_peek == peek(answer)
        assert len(tracker.pending("c")) == len(requests) - 1
        again = tracker.feed("c", "s2c", answer, at=0, seq=10)
        assert isinstance(again[0], Stray) and again[0].reason == (
            "a second answer to the same request" if exchange.response_peek.id is not None
            else "it answers no request waiting on this connection")


def test_an_answer_holding_a_member_the_tracker_reads_is_read() -> None:
    """requestState and taskId in an answer are remembered whether or not its id is plain."""
    tracker = Tracker()
    frames = [
        ("c2s", CALL % b"1"),
        ("s2c", b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"S"}}'),
        ("c2s", b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","requestState":"S"}}'),
        ("s2c", b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","task":{"taskId":"T"}}}'),
        ("c2s", b'{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T"}}'),
        ("s2c", OK % b"3"),
    ]
    events = _feed(tracker, frames)
    assert [(e.exchange.call, e.exchange.round) for e in events] == [(1, 1), (1, 2), (1, 3)]


def test_past_max_pending_the_oldest_request_is_dropped_as_evicted() -> None:
    tracker = Tracker(max_pending=3)
    events = [tracker.feed("c", "c2s", CALL % str(n).encode(), at=0, seq=n) for n in range(1, 6)]
    assert [[(type(e).__name__, e.exchange.request_id, e.evicted) for e in es if isinstance(e, Unanswered)]
            for es in events] == [[], [], [], [("Unanswered", 1, True)], [("Unanswered", 2, True)]]
    assert [e.request_id for e in tracker.pending("c")] == [3, 4, 5]
    (late,) = tracker.feed("c", "s2c", OK % b"1", at=0, seq=9)  # the dropped request's answer: a stray
    assert isinstance(late, Stray)
    (reused,) = tracker.feed("c", "c2s", CALL % b"5", at=0, seq=10)  # a reused id is no eviction
    assert isinstance(reused, Unanswered) and not reused.evicted
    with pytest.raises(ValueError, match="max_pending"):
        Tracker(max_pending=0)


def test_forget_stops_waiting_for_one_request() -> None:
    tracker = Tracker()
    tracker.feed("c", "c2s", CALL % b"1", at=0, seq=1)
    tracker.feed("c", "c2s", CALL % b'"1"', at=0, seq=2)
    forgotten = tracker.forget("c", "client", ("int", 1))
    assert forgotten is not None and forgotten.request_id == 1
    assert tracker.forget("c", "client", ("int", 1)) is None and tracker.forget("other", "client", ("int", 1)) is None
    assert [e.request_id for e in tracker.pending("c")] == ["1"]
    (late,) = tracker.feed("c", "s2c", OK % b"1", at=0, seq=3)
    assert isinstance(late, Stray)


def test_restore_gives_an_id_back_to_the_earlier_request() -> None:
    # a relay refuses a host's reuse of an id in flight (MCP basic/index#requests: ids MUST NOT be
    # reused in a session): the tracker took the second request for id 1, restore puts the first
    # back, so the one answer to id 1 is the first request's (seq 1, not seq 2)
    tracker = Tracker()
    tracker.feed("c", "c2s", CALL % b"1", at=0, seq=1)
    (earlier,) = tracker.pending("c")
    tracker.feed("c", "c2s", CALL % b"1", at=0, seq=2)
    tracker.restore("c", "client", ("int", 1), earlier)
    tracker.restore("other", "client", ("int", 1), earlier)  # nothing held of that connection: nothing
    assert [e.request.seq for e in tracker.pending("c")] == [1] and tracker.pending("other") == []
    (answered,) = tracker.feed("c", "s2c", OK % b"1", at=0, seq=3)
    assert isinstance(answered, Answered) and answered.exchange.request.seq == 1


# --- exact ids (JSON-RPC 2.0 s4: the id is the request's own, answered "the same as the value of
# the id member in the Request Object"; orjson reads an integer past 64 bits as a float) ---------

BROKEN = b'{"jsonrpc":"2.0","id":%s,"result":{"content":[],"x":NaN}}'  # no parser reads it
# (the id as the peer wrote it, the answer, what peek reads of the answer: kind, id, has_id, unheld)
EXACT_IDS: list[tuple[bytes, bytes, tuple[str, Any, bool, bytes | None]]] = [
    (b"18446744073709551616", OK, ("response", 18446744073709551616, True, None)),  # 2**64
    (b"18446744073709551617", OK, ("response", 18446744073709551617, True, None)),  # 2**64 + 1: the same float
    (b"-18446744073709551616", OK, ("response", -18446744073709551616, True, None)),  # -2**64
    (b"1.5", OK, ("response", 1.5, True, None)),
    (b"1E2", OK, ("response", 100.0, True, None)),  # a float, as orjson reads it (not the int 100)
    (b"1e400", OK, ("unreadable", None, False, b"1e400")),  # no int or float holds it
    (b"1234567890123456789012345", BROKEN, ("unreadable", 1234567890123456789012345, True, None)),  # 25 digits
    (b'"s-1"', OK, ("response", "s-1", True, None)),
]


@pytest.mark.parametrize(("written", "answer", "expected"), EXACT_IDS, ids=[w.decode() for w, _, _ in EXACT_IDS])
def test_peek_reads_the_id_as_written(written: bytes, answer: bytes,
                                      expected: tuple[str, Any, bool, bytes | None]) -> None:
    look = peek(answer % written)
    assert (look.kind, look.id, look.has_id) == expected[:3]
    assert type(look.id) is type(expected[1])
    assert look.unheld == expected[3]
    assert recover_id(BROKEN % written) == (expected[2], expected[1])  # the same id where no parser reads it


def test_each_answer_pairs_with_its_own_request_only() -> None:
    """Every request of EXACT_IDS waiting at once (one with 1e400 is no request: no parser reads
    it), their answers in reverse order: each pairs with the request its id names, written the
    same; the answer with 1e400 with none."""
    unheld = "its id is a number no integer or float holds, which no request can carry"
    tracker = Tracker()
    requests = _feed(tracker, [("c2s", CALL % written) for written, _, _ in EXACT_IDS])
    paired: dict[bytes, tuple[bytes | None, bytes | str]] = {}
    for seq, (written, answer, _) in enumerate(reversed(EXACT_IDS), 100):
        (event,) = tracker.feed("c", "s2c", answer % written, at=0, seq=seq)
        if isinstance(event, Answered):
            assert event.exchange.response is not None
            paired[written] = (event.exchange.request.data, event.exchange.response.data)
        else:
            assert isinstance(event, Stray)
            paired[written] = (None, event.reason)
    assert paired == {written: (None, unheld) if written == b"1e400" else (CALL % written, answer % written)
                      for written, answer, _ in EXACT_IDS}
    assert tracker.pending("c") == []
    assert [(type(e), e.reason) for e in requests] == [(Stray, unheld)]  # the request with 1e400


@pytest.mark.parametrize("answer", [OK % b"1e400", OK % b"-1e400", BROKEN % (b"9" * 5000),
                                    b'{"jsonrpc":"2.0","id":1e400,"error":{"code":-32603,"message":"m"}}'])
def test_an_answer_whose_id_no_number_holds_is_paired_with_no_request(answer: bytes) -> None:
    """The only request waiting is not taken for its request (a frame without a visible id is)."""
    tracker = Tracker()
    tracker.feed("c", "c2s", CALL % b"7", at=0, seq=0)
    (event,) = tracker.feed("c", "s2c", answer, at=0, seq=1)
    assert isinstance(event, Stray) and event.peek.unheld is not None and not event.peek.has_id
    assert [e.request_id for e in tracker.pending("c")] == [7]
    (later,) = tracker.feed("c", "s2c", OK % b"7", at=0, seq=2)
    assert isinstance(later, Answered)


_NOT_FOLLOWED = ("no strict parser reads it and its bytes name a method: a request or a notification whose method "
                 "and params cannot be read, which is not followed")
_ANSWERS_NONE = "it answers no request waiting on this connection"


@pytest.mark.parametrize(("frame", "reason"), [
    # a request no strict parser reads (NaN, a lone surrogate), nothing waiting: not called an answer
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"v":NaN}}}', _NOT_FOLLOWED),
    (b'{"jsonrpc":"2.0","id":2,"method" : "tools/call","params":{"name":"\\ud800"}}', _NOT_FOLLOWED),
    (b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":NaN}}', _NOT_FOLLOWED),
    # an answer no strict parser reads, nothing waiting
    (b'{"jsonrpc":"2.0","id":3,"result":{"content":[],"v":NaN}}', _ANSWERS_NONE),
    (b'{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"method"}],"v":NaN}}', _ANSWERS_NONE),
])
def test_an_unreadable_frame_nothing_waits_for_says_what_it_is(frame: bytes, reason: str) -> None:
    """A stray's reason (the audit prints it, then "; unreadable: ..."): a frame that names a
    method is no answer (it was called one: "it answers no request waiting on this connection").
    (A tracker that reads such requests leniently, the default, follows a request with an id:
    tests/test_frames_batch.py; the proxy's does not, it awaits them itself.)"""
    events = _feed(Tracker(read_unreadable_requests=False), [("c2s", frame)])
    assert [(type(e).__name__, e.reason) for e in events] == [("Stray", reason)]


@pytest.mark.parametrize("frame", [
    b'{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"' + b"a" * 2_000_000,  # cut in a string
    b'{"jsonrpc":"2.0","id":"' + b"a" * 2_000_000,  # cut in the id
    b'{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"' + b"a\\\"" * 700_000,  # escapes
])
def test_reading_the_id_of_a_frame_cut_inside_a_string_is_bounded_in_memory(frame: bytes) -> None:
    """An answer cut at the size limit, an endless body: the id is recovered without the regular
    expression's backtracking stack (it took ~140 bytes per byte of the string: 565 MB for a 4 MB
    frame). The bound, 30x the frame, holds orjson's own failed read (~12x) and no more (a memory
    bound, not a timing)."""
    import tracemalloc

    peek(b"{}")
    tracemalloc.start()
    try:
        look = peek(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert look.kind == "unreadable"
    assert peak < 30 * len(frame), f"{peak / len(frame):.0f}x the frame"
