"""Ids as the host wrote them, through a real proxy (JSON-RPC 2.0 s5: the id of a response MUST
be the same as the value of the id member of the request it answers; hosts compare ids as text
or as typed values).

- Every answer the proxy writes itself — its timeout, a refusal, the -32700 and -32600 errors,
  TOO_LARGE, an upstream gone — carries the request's id byte for byte as the host wrote it
  (``1E2``, not ``100.0``; ``-0``, not ``0``; ``"\\u0041"``, not ``"A"``), on the stdio and the
  HTTP host sides. An upstream's own answer passes through as the upstream wrote it.
- A request whose string id is not UTF-8 (no JSON text holds it: RFC 8259 s8.1) is a frame no
  parser reads and whose id cannot be told: the host gets the JSON-RPC parse error (-32700) with
  a null id at once (s5.1: "If there was an error in detecting the id in the Request object ...,
  it MUST be Null"), or TOO_LARGE with a null id when it is also past the limit; never silence,
  never a bare 202, and the proxy carries on.
- A restarted stdio upstream is initialised with the host's ``initialize`` byte for byte but its
  id (an integer past 64 bits, an exponent, an escape, the blanks as written).

The upstream, ``verbatim_server.py``, answers under the request's id bytes (``echo``), or under
the id as Python's json writes the value it read (``float``)."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from pathlib import Path

import pytest

from ._peers import PROXY, HttpHostPeer, LinePeer, proxy_http, proxy_http_before

VERBATIM = [sys.executable, str(Path(__file__).with_name("verbatim_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
ANSWER = "the upstream's answer"
# JSON-RPC 2.0 s5.1, and the proxy's codes as the README's table lists them
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
REFUSED = -31000
UPSTREAM_CLOSED = -31001
UPSTREAM_TIMEOUT = -31002
TOO_LARGE = -31003
_ID = re.compile(rb'^\{"jsonrpc":"2\.0","id":(.*?),"(?:result|error)":')

Seen = tuple[str, object]
"""(the answer's id as written, decoded with invalid UTF-8 shown as \\xNN; what it says)."""


def tools_call(id_text: bytes, tool: str, arguments: bytes = b"{}") -> bytes:
    return (b'{"jsonrpc":"2.0","id":' + id_text + b',"method":"tools/call","params":{"name":"' + tool.encode()
            + b'","arguments":' + arguments + b"}}")


def unreadable(id_text: bytes, tool: str) -> bytes:
    """A tools/call no strict parser reads (NaN in its arguments)."""
    return tools_call(id_text, tool, b'{"v":NaN}')


def too_large(id_text: bytes) -> bytes:
    """A tools/call past --max-frame-bytes 2048."""
    return tools_call(id_text, "echo", b'{"text":"' + b"x" * 3000 + b'"}')


def seen(raw: bytes) -> Seen:
    match = _ID.match(raw)
    assert match is not None, raw
    message = json.loads(raw.decode("utf-8", "replace"))
    return (match.group(1).decode("utf-8", "backslashreplace"),
            ANSWER if "result" in message else message["error"]["code"])


def collect(peer: LinePeer, count: int, seconds: float) -> list[Seen]:
    """The next ``count`` answers (fewer if ``seconds`` pass first), then whatever else comes
    within 0.3 s (nothing should)."""
    got = []
    for raw in peer.lines_within(seconds):
        got.append(seen(raw))
        if len(got) >= count:
            break
    got += [seen(raw) for raw in peer.lines_within(0.3)]
    return got


# -- 1. the proxy's own answers carry the id as written -----------------------------------------
# (frames sent at once, each answer as (the id as written, what it says) in observe, in enforce);
# --timeout 1, --max-frame-bytes 2048, a 2025-06-18 session
TIMEOUT_ROWS: list[tuple[list[bytes], list[Seen], list[Seen]]] = [
    ([tools_call(b"1E2", "hang")], [("1E2", UPSTREAM_TIMEOUT)], [("1E2", UPSTREAM_TIMEOUT)]),
    ([tools_call(b"2.50", "hang")], [("2.50", UPSTREAM_TIMEOUT)], [("2.50", UPSTREAM_TIMEOUT)]),
    ([tools_call(b"-0", "hang")], [("-0", UPSTREAM_TIMEOUT)], [("-0", UPSTREAM_TIMEOUT)]),
    ([tools_call(b'"\\u0041"', "hang")], [('"\\u0041"', UPSTREAM_TIMEOUT)], [('"\\u0041"', UPSTREAM_TIMEOUT)]),
    # an answer no strict parser reads: forwarded in observe, refused in enforce
    ([tools_call(b"3E0", "dup")], [("3E0", ANSWER)], [("3E0", REFUSED)]),
    # observe: the upstream's own answers pass through as the upstream wrote them; enforce
    # refuses them (an id with a fraction or exponent: MCP ids are strings or integers)
    ([tools_call(b"4.0e0", "echo")], [("4.0e0", ANSWER)], [("4.0e0", REFUSED)]),
    ([tools_call(b"5E0", "float")], [("5.0", ANSWER)], [("5E0", REFUSED)]),
    ([tools_call(b'"\\u0042"', "echo")], [('"\\u0042"', ANSWER)], [('"\\u0042"', ANSWER)]),
    # an unreadable request whose id is in flight (6E0 and 6e0 are one number): -32700 at once
    ([tools_call(b"6E0", "hang"), unreadable(b"6e0", "hang")],
     [("6e0", PARSE_ERROR), ("6E0", UPSTREAM_TIMEOUT)], [("6e0", PARSE_ERROR), ("6E0", UPSTREAM_TIMEOUT)]),
    # a readable one: -32600 at once
    ([tools_call(b"7E0", "hang"), tools_call(b"7.0", "hang")],
     [("7.0", INVALID_REQUEST), ("7E0", UPSTREAM_TIMEOUT)], [("7.0", INVALID_REQUEST), ("7E0", UPSTREAM_TIMEOUT)]),
    ([too_large(b"8E0")], [("8E0", TOO_LARGE)], [("8E0", TOO_LARGE)]),
    # an unreadable request awaited by its id
    ([unreadable(b"9E0", "hang")], [("9E0", UPSTREAM_TIMEOUT)], [("9E0", UPSTREAM_TIMEOUT)]),
]
# then the upstream exits mid-call: every call in flight gets UPSTREAM_CLOSED
GONE = [tools_call(b"1E1", "hang"), tools_call(b"1.1E1", "exit")]
GONE_SEEN = [("1E1", UPSTREAM_CLOSED), ("1.1E1", UPSTREAM_CLOSED)]


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_stdio_host_gets_the_proxys_answers_under_the_id_it_wrote(mode: str) -> None:
    peer = LinePeer([*PROXY, "--mode", mode, "--timeout", "1", "--max-frame-bytes", "2048", "--", *VERBATIM])
    try:
        assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        expected: list[Seen] = []
        for frames, observe, enforce in TIMEOUT_ROWS:
            for data in frames:
                peer.send_raw(data + b"\n")
                time.sleep(0.05)
            expected += enforce if mode == "enforce" else observe
        got = collect(peer, len(expected), 10)
        for data in GONE:
            peer.send_raw(data + b"\n")
        gone = collect(peer, len(GONE_SEEN), 10)
    finally:
        peer.close()
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    assert sorted(gone, key=repr) == sorted(GONE_SEEN, key=repr)
    assert "Traceback" not in b"".join(peer.stderr).decode("utf-8", "replace")


# (what the host POSTs in its 2025 session, one after the other, with the delay before it; the
# status and what each gets in observe, in enforce): an HTTP host over a stdio upstream
HTTP_ROWS: list[tuple[str, bytes, float, tuple[int, Seen], tuple[int, Seen]]] = [
    ("timeout", tools_call(b"1E2", "hang"), 0.0, (200, ("1E2", UPSTREAM_TIMEOUT)), (200, ("1E2", UPSTREAM_TIMEOUT))),
    ("minus zero", tools_call(b"-0", "hang"), 0.0, (200, ("-0", UPSTREAM_TIMEOUT)), (200, ("-0", UPSTREAM_TIMEOUT))),
    ("escape", tools_call(b'"\\u0041"', "hang"), 0.0,
     (200, ('"\\u0041"', UPSTREAM_TIMEOUT)), (200, ('"\\u0041"', UPSTREAM_TIMEOUT))),
    ("refused", tools_call(b"3E0", "dup"), 0.0, (200, ("3E0", ANSWER)), (200, ("3E0", REFUSED))),
    ("passed", tools_call(b"4.0e0", "echo"), 0.0, (200, ("4.0e0", ANSWER)), (200, ("4.0e0", REFUSED))),
    ("upstream's text", tools_call(b"5E0", "float"), 0.0, (200, ("5.0", ANSWER)), (200, ("5E0", REFUSED))),
    ("passed, an integer", tools_call(b"-0", "echo"), 0.0, (200, ("-0", ANSWER)), (200, ("-0", ANSWER))),
    ("too large", too_large(b"8E0"), 0.0, (413, ("8E0", TOO_LARGE)), (413, ("8E0", TOO_LARGE))),
    ("unreadable", unreadable(b"9E0", "hang"), 0.0,
     (200, ("9E0", UPSTREAM_TIMEOUT)), (200, ("9E0", UPSTREAM_TIMEOUT))),
]
# POSTed at once, each after its delay: a request whose id is in flight, unreadable then readable
IN_FLIGHT: list[tuple[str, bytes, float, tuple[int, Seen]]] = [
    ("earlier 6E0", tools_call(b"6E0", "hang"), 0.0, (200, ("6E0", UPSTREAM_TIMEOUT))),
    ("later 6e0", unreadable(b"6e0", "hang"), 0.4, (200, ("6e0", PARSE_ERROR))),
    ("earlier 7E0", tools_call(b"7E0", "hang"), 0.0, (200, ("7E0", UPSTREAM_TIMEOUT))),
    ("later 7.0", tools_call(b"7.0", "hang"), 0.4, (200, ("7.0", INVALID_REQUEST))),
]
HTTP_GONE: list[tuple[str, bytes, float, tuple[int, Seen]]] = [
    ("hang", tools_call(b"1E1", "hang"), 0.0, (200, ("1E1", UPSTREAM_CLOSED))),
    ("exit", tools_call(b"1.1E1", "exit"), 0.4, (200, ("1.1E1", UPSTREAM_CLOSED))),
]


def _post_at_once(url: str, session: str | None, rows: list[tuple[str, bytes, float, tuple[int, Seen]]]
                  ) -> dict[str, object]:
    got: dict[str, object] = {}

    def post(name: str, body: bytes, delay: float) -> None:
        time.sleep(delay)
        peer = HttpHostPeer(url)
        peer.session = session
        try:
            status, raw, _ = peer.post(body, timeout=8)
            got[name] = (status, seen(raw) if raw else None)
        except Exception as exc:  # (a POST left waiting: the test fails on its name)
            got[name] = type(exc).__name__
        finally:
            peer.close()

    threads = [threading.Thread(target=post, args=(name, body, delay)) for name, body, delay, _ in rows]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    return got


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_an_http_host_gets_the_proxys_answers_under_the_id_it_wrote(mode: str) -> None:
    with proxy_http(["--mode", mode, "--timeout", "1", "--max-frame-bytes", "2048", "--", *VERBATIM]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
            peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
            got: dict[str, object] = {}
            for name, body, _, _, _ in HTTP_ROWS:
                status, raw, _events = peer.post(body, timeout=8)
                got[name] = (status, seen(raw) if raw else None)
        finally:
            peer.close()
        in_flight = _post_at_once(url, peer.session, IN_FLIGHT)
        gone = _post_at_once(url, peer.session, HTTP_GONE)
    assert got == {name: rows[mode == "enforce"] for name, _, _, *rows in HTTP_ROWS}
    assert in_flight == {name: outcome for name, _, _, outcome in IN_FLIGHT}
    assert gone == {name: outcome for name, _, _, outcome in HTTP_GONE}


# -- 2. a string id that is not UTF-8 ----------------------------------------------------------
# (frames sent one after the other; what the host gets in observe, in enforce). The verbatim
# server answers echo under the id's bytes (invalid UTF-8): observe forwards that answer too
# (it forwards every upstream frame), enforce refuses it (no strict parser reads it)
NOT_UTF8_ROWS: list[tuple[bytes, list[Seen], list[Seen]]] = [
    (tools_call(b'"\xff"', "hang"), [("null", PARSE_ERROR)], [("null", PARSE_ERROR)]),
    (tools_call(b'"a\xfe"', "echo"), [("null", PARSE_ERROR), ('"a\\xfe"', ANSWER)], [("null", PARSE_ERROR)]),
    (too_large(b'"\xc3"'), [("null", TOO_LARGE)], [("null", TOO_LARGE)]),
    (tools_call(b"1", "echo"), [("1", ANSWER)], [("1", ANSWER)]),  # and the proxy carries on
]


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_stdio_host_gets_a_parse_error_for_a_string_id_that_is_not_utf8(mode: str) -> None:
    peer = LinePeer([*PROXY, "--mode", mode, "--timeout", "1", "--max-frame-bytes", "2048", "--", *VERBATIM])
    got: list[list[Seen]] = []
    try:
        assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for data, observe, enforce in NOT_UTF8_ROWS:
            peer.send_raw(data + b"\n")
            got.append(collect(peer, len(enforce if mode == "enforce" else observe), 3))
    finally:
        status = peer.close()
    assert got == [rows[mode == "enforce"] for _, *rows in NOT_UTF8_ROWS]
    assert status == 0
    assert "Traceback" not in b"".join(peer.stderr).decode("utf-8", "replace")


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_an_http_session_gets_a_parse_error_for_a_string_id_that_is_not_utf8(mode: str) -> None:
    """A 2025 session over a stdio upstream (the POST is written to the pipe before the proxy
    reads it): 200 with the parse error, where the host got a bare 202 for its request."""
    with proxy_http(["--mode", mode, "--timeout", "1", "--max-frame-bytes", "2048", "--", *VERBATIM]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
            peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
            got = []
            for body in (tools_call(b'"\xff"', "hang"), too_large(b'"\xc3"'), tools_call(b"1", "echo")):
                status, raw, _ = peer.post(body, timeout=8)
                got.append((status, seen(raw) if raw else None))
        finally:
            peer.close()
    assert got == [(200, ("null", PARSE_ERROR)), (413, ("null", TOO_LARGE)), (200, ("1", ANSWER))]


@pytest.mark.parametrize("pair", ["http-stdio", "http-http"])
@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_stateless_http_host_gets_a_parse_error_for_a_string_id_that_is_not_utf8(pair: str, mode: str) -> None:
    """2026-07-28 requests without a session, in front of the demo server over stdio and over
    HTTP: 200 with the parse error (a bare 202 before), and the next request is answered."""
    headers = {"mcp-protocol-version": "2026-07-28"}
    with proxy_http_before(pair, ["--mode", mode, "--timeout", "2"]) as url:
        peer = HttpHostPeer(url)
        try:
            status, raw, _ = peer.post(b'{"jsonrpc":"2.0","id":"\xff","method":"ping"}', headers=headers)
            bad = (status, seen(raw) if raw else None)
            status, raw, _ = peer.post(b'{"jsonrpc":"2.0","id":"\xff\xfe","method":"ping"}', headers=headers)
            again = (status, seen(raw) if raw else None)
        finally:
            peer.close()
    assert (bad, again) == ((200, ("null", PARSE_ERROR)), (200, ("null", PARSE_ERROR)))


# -- 3. the initialize replayed to a restarted upstream ---------------------------------------------
INIT_BYTES = (b'{"jsonrpc":"2.0", "id" : 0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
              b'"capabilities":{"experimental":{"x-big":{"n":18446744073709551616,"x":1E2,"s":"\\u00e9\\/"}}},'
              b'"clientInfo":{"name":"t","version":"0"}}}')
REPLAY_ID = re.compile(rb'"id" : "[^"]*"')


def test_a_restarted_upstream_gets_the_hosts_initialize_byte_for_byte_but_its_id(tmp_path: Path) -> None:
    log = tmp_path / "received"
    peer = LinePeer([*PROXY, "--restart", "on-failure", "--", *VERBATIM], env={"VERBATIM_LOG": str(log)})
    try:
        peer.send_raw(INIT_BYTES + b"\n")
        assert b'"2025-06-18"' in (peer.recv(10) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        first = seen(peer.exchange({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                    "params": {"name": "exit", "arguments": {}}}) or b"")
        after = seen(peer.exchange({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                    "params": {"name": "echo", "arguments": {}}}) or b"")
    finally:
        peer.close()
    assert (first, after) == (("1", UPSTREAM_CLOSED), ("2", ANSWER))
    inits = [line.rstrip(b"\n") for line in log.read_bytes().splitlines(keepends=True) if b'"initialize"' in line]
    assert len(inits) == 2
    assert inits[0] == INIT_BYTES
    assert REPLAY_ID.search(inits[1]) is not None and REPLAY_ID.sub(b'"id" : 0', inits[1]) == INIT_BYTES
