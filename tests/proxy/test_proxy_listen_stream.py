"""The proxy's own GET stream (a stdio host over an HTTP upstream, 2025 session): the stream it
opens for the server's own messages, ended, broken, refused or never answered by the upstream,
through the real proxy (a process) and a real aiohttp upstream (``listen_http_server.py``).

basic/transports/streamable-http (2025-06-18 and 2025-11-25), Listening for Messages from the
Server: the server answers a GET with an event stream or 405 (it offers none); it MAY close the
stream at any time (2025-11-25: sending ``retry`` and letting the client reconnect), and the
client MAY open it again. Resumability and Redelivery: with event ids, the client resumes with a
GET carrying ``Last-Event-ID``. Session Management: 404 means the session ended. README "The
proxy", Faults: every fault is noted in the frame log; ``--timeout`` bounds each exchange that
answers no call up to its response headers. The frame log's ``eof`` of a stdio connection ends
its calls for the audit: the GET stream's end is a record of transport ``http`` (its own), which
the audit does not read as the connection's end."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mcp_verdict.audit import CallRow, audit_files
from tests.processes import port_server

from ._peers import GET_BROKEN, PROXY, TIMEOUT, LinePeer, proxy_after, wait_until
from ._restarting import frame_records

SERVER = [sys.executable, str(Path(__file__).with_name("listen_http_server.py"))]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "arguments": {}}}
GET = "the proxy's GET stream: "
ENDED = GET + "the upstream ended it; "
BROKE = GET + "the upstream broke it: ClientPayloadError: "
NO_HEADERS = GET + "no response headers within 1 s; "
STATUS_500 = GET + "the upstream answered HTTP 500 without an event stream; "


_records = frame_records  # (its complete lines: the proxy may be writing the next)


def _stream_records(log: Path) -> list[tuple[str, str | None, str]]:
    """(kind, transport, note) of the s2c records that are no message (the GET stream's)."""
    return [(r["kind"], r.get("transport"), r.get("note", "")) for r in _records(log)
            if r["dir"] == "s2c" and r["kind"] != "message"]


def _session(mode: str, log: Path, timeout: str, lines: int, records: int) -> tuple[list[str], list[Any]]:
    """A stdio host's 2025 session through the proxy: initialize, initialized, one tools/call;
    (the texts of the server's notifications and the ids of the answers the host read, in order;
    the Last-Event-ID of each GET the upstream received), once ``records`` stream records are in
    the frame log."""
    with port_server([*SERVER, mode]) as base:
        peer = LinePeer([*PROXY, "--timeout", timeout, "--log", str(log), "--log-payloads",
                         "--upstream", base + "/mcp"])
        try:
            assert json.loads(peer.exchange(INITIALIZE) or b"null")["id"] == 1
            peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            peer.send(CALL)
            got: list[str] = []
            for _ in range(lines):
                message = json.loads(peer.recv() or b"null") or {}
                got.append(message["params"]["data"] if "method" in message else f"answer {message.get('id')}")
            assert wait_until(lambda: len(_stream_records(log)) >= records, TIMEOUT)
            seen = httpx2.get(base + "/seen", timeout=TIMEOUT).json()
        finally:
            peer.close()
    return got, seen


# (the upstream's GET stream; what the host reads; the Last-Event-ID of each GET the upstream
# received; the GET stream's records in the frame log as (kind, transport, the note's start, its end))
REOPENED = [
    ("end", ["one", "two", "answer 2"], [None, "e-1"],
     [("eof", "http", ENDED, "reopened in 0.25 s, Last-Event-ID e-1")]),
    ("reset", ["one", "two", "answer 2"], [None, "e-1"],
     [("error", "http", BROKE, "; reopened in 0.25 s, Last-Event-ID e-1")]),
    ("retry", ["one", "two", "answer 2"], [None, "e-1"],  # retry: 300 (ms) before its event
     [("eof", "http", ENDED, "reopened in 0.3 s (the server's retry), Last-Event-ID e-1")]),
    ("no-ids", ["one", "two", "answer 2"], [None, None],  # no event ids: nothing to resume from
     [("eof", "http", ENDED, "reopened in 0.25 s")]),
    # a load balancer cutting the idle stream (after 0.5 s) five times, then the server's message:
    # each stream stayed open longer than the wait, which is not doubled; never given up
    ("cut:5", ["answer 2", "one"], [None] * 6, [("eof", "http", ENDED, "reopened in 0.25 s")] * 5),
]


@pytest.mark.parametrize(("mode", "lines", "seen", "records"), REOPENED, ids=[row[0] for row in REOPENED])
def test_the_proxys_get_stream_is_reopened_and_its_end_recorded(tmp_path: Path, mode: str, lines: list[str],
                                                               seen: list[str | None],
                                                               records: list[tuple[str, str, str, str]]) -> None:
    log = tmp_path / "frames.jsonl"
    got, received = _session(mode, log, "10", len(lines), len(records))
    assert (got, received) == (lines, seen)
    stream = _stream_records(log)
    assert [(k, t) for k, t, _ in stream] == [(k, t) for k, t, _, _ in records]
    assert all(n.startswith(a) and n.endswith(b) for (_, _, n), (_, _, a, b) in zip(stream, records, strict=True))


# an upstream that never opens the stream: the headers bounded by --timeout (1 s here), the
# stream opened again with a backoff doubling up to 30 s (the first four shown), never given up
# while the session lives; 404 and 405 not reopened. (the upstream; the first GETs it received;
# the stream's first records as (kind, transport, note))
REFUSED = [
    ("stall", [None] * 4, [("error", "http", NO_HEADERS + "reopened in 0.25 s"),
                           ("error", "http", NO_HEADERS + "reopened in 0.5 s"),
                           ("error", "http", NO_HEADERS + "reopened in 1 s"),
                           ("error", "http", NO_HEADERS + "reopened in 2 s")]),
    ("status:500", [None] * 4, [("error", "http", STATUS_500 + "reopened in 0.25 s"),
                                ("error", "http", STATUS_500 + "reopened in 0.5 s"),
                                ("error", "http", STATUS_500 + "reopened in 1 s"),
                                ("error", "http", STATUS_500 + "reopened in 2 s")]),
    ("status:404", [None], [("error", "http", GET + "the upstream answered HTTP 404 (the session ended); "
                                                    "not reopened")]),
    ("status:405", [None], [("error", "http", GET + "the upstream answered HTTP 405 (it offers no stream); "
                                                    "not reopened")]),
]


@pytest.mark.parametrize(("mode", "seen", "records"), REFUSED, ids=[row[0] for row in REFUSED])
def test_a_get_stream_the_upstream_does_not_open_is_bounded_and_recorded(tmp_path: Path, mode: str,
                                                                        seen: list[str | None],
                                                                        records: list[tuple[str, str, str]]) -> None:
    log = tmp_path / "frames.jsonl"
    got, received = _session(mode, log, "1", 1, len(records))
    assert (got, received[:len(seen)], _stream_records(log)[:len(records)]) == (["answer 2"], seen, records)


# the audit reads the produced log: the GET stream's end (an eof of transport http), between
# the call and its answer, does not end the call; the same record made the connection's own
# (transport stdio) would. (the record's transport; the call's (answered, kind, finding))
AUDITED = [
    ("http", (True, "normal_complete", None)),
    ("stdio", (False, "unclassified", "transport.closed")),
]


@pytest.mark.parametrize(("transport", "call"), AUDITED, ids=[row[0] for row in AUDITED])
def test_the_audit_does_not_end_the_calls_at_the_get_streams_end(tmp_path: Path, transport: str,
                                                                call: tuple[bool, str, str | None]) -> None:
    log = tmp_path / "frames.jsonl"
    _session("end", log, "10", 3, 1)
    lines = log.read_text().splitlines()
    kinds = [json.loads(line)["kind"] for line in lines]
    eof = kinds.index("eof")
    assert [json.loads(line)["dir"] for line in lines[eof:eof + 1]] == ["s2c"]
    lines[eof] = lines[eof].replace('"transport":"http"', f'"transport":"{transport}"')
    audited = tmp_path / "audited.jsonl"
    audited.write_text("\n".join(lines) + "\n")
    _, _, entries = audit_files([str(audited)])
    calls = [(e.answered, e.kind, e.finding) for e in entries if isinstance(e, CallRow)]
    assert calls == [call]


FAILED = GET + "the proxy failed opening it: RuntimeError: get broken"


def test_a_fault_while_opening_the_stream_is_said_and_the_stream_tried_again(tmp_path: Path) -> None:
    """A fault as the proxy opens the session's GET stream is said on stderr and in the frame
    log, the stream is opened again after the backoff, and the host's calls are answered.
    Was: the listening task died unseen (the server's own messages lost for the session, nothing
    said anywhere)."""
    log = tmp_path / "frames.jsonl"
    proxy = proxy_after(GET_BROKEN)
    with port_server([*SERVER, "status:405"]) as base:
        peer = LinePeer([*proxy, "--timeout", "20", "--log", str(log), "--upstream", base + "/mcp"])
        try:
            first = json.loads(peer.exchange(INITIALIZE) or b"null")
            peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            second = json.loads(peer.exchange(CALL) or b"null")
            assert wait_until(lambda: len(_stream_records(log)) >= 2, TIMEOUT)
        finally:
            peer.close()
    assert (first["id"], "result" in first, second["id"], "result" in second) == (1, True, 2, True)
    assert _stream_records(log)[:2] == [("error", "http", FAILED + "; reopened in 0.25 s"),
                                        ("error", "http", FAILED + "; reopened in 0.5 s")]
    assert peer.stderr[:2] == [b"mcp-verdict proxy: " + FAILED.encode() + b"\n"] * 2
