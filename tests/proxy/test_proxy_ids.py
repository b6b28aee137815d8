"""Request ids the proxy's fast read (orjson) does not hold, through a real proxy: an integer past
the 64-bit range (orjson reads it as a float: another id), a string escaping a lone surrogate
or a number past the double range (orjson reads no such frame). The host gets its answer, and
the proxy's own answers (the timeout, the refusal) and cancellations, under the id exactly as
the host wrote it; an id no int or float holds (``1e400``) gets an invalid-request error under
that id at once, never silence. And a host that reuses an id in flight gets an error for the
later request instead of leaving the earlier one waiting for ever.

The upstreams read as leniently as Python's json (the integers exact)."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.frames import FrameRecord
from mcp_verdict.frames import read as read_log
from mcp_verdict.proxy import REFUSED, TOO_LARGE, UPSTREAM_TIMEOUT

from ._peers import PROXY, HttpHostPeer, LinePeer, call, proxy_http, proxy_http_before, styled_http

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
ANSWER = "the upstream's answer"
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
_ID = re.compile(rb'^\{"jsonrpc":"2\.0","id":(.*?),"(?:result|error)":')


def tools_call(id_text: bytes, tool: str) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + id_text + b',"method":"tools/call","params":{"name":"' + tool.encode() \
        + b'","arguments":{}}}'


def id_and_outcome(raw: bytes) -> tuple[str, object]:
    """The answer's id exactly as written (its text), and what it says."""
    match = _ID.match(raw)
    assert match is not None, raw
    # (Python's json reads every id here: Infinity, lone surrogates; 5,000 digits kept as text)
    message = json.loads(raw, parse_int=lambda text: int(text) if len(text) < 100 else text)
    return match.group(1).decode("ascii"), ANSWER if "result" in message else message["error"]["code"]


# (the id as the host writes it, the tool, what the host gets in observe, in enforce): every id
# is written once, and its outcomes listed in the order they come. echo answers at once, hang
# never (the proxy's timeout answers it). An initialized 2025-06-18 session: echo's answer passes.
ROWS: list[tuple[str, str, list[object], list[object]]] = [
    ("18446744073709551616", "echo", [ANSWER], [ANSWER]),  # 2**64
    ("18446744073709551617", "hang", [UPSTREAM_TIMEOUT], [UPSTREAM_TIMEOUT]),  # the same float as 2**64
    ("-9223372036854775809", "hang", [UPSTREAM_TIMEOUT], [UPSTREAM_TIMEOUT]),  # -2**63 - 1
    ("-9223372036854775810", "echo", [ANSWER], [ANSWER]),
    ("123456789012345678901234567890", "echo", [ANSWER], [ANSWER]),
    ("123456789012345678901234567891", "hang", [UPSTREAM_TIMEOUT], [UPSTREAM_TIMEOUT]),
    ("18446744073709551615", "hang", [UPSTREAM_TIMEOUT], [UPSTREAM_TIMEOUT]),  # 2**64 - 1: orjson's last int
    ("1.0", "hang", [UPSTREAM_TIMEOUT], [UPSTREAM_TIMEOUT]),  # a float id stays a float
    ('"\\ud800"', "echo", [ANSWER], [REFUSED]),  # the answer echoes a lone surrogate: no strict parser reads it
    ('"\\udc00"', "hang", [UPSTREAM_TIMEOUT], [UPSTREAM_TIMEOUT]),
    ("1e400", "hang", [INVALID_REQUEST], [INVALID_REQUEST]),  # past the double range: no float holds it
    ("-1e400", "echo", [INVALID_REQUEST], [INVALID_REQUEST]),
]
# observe forwards every upstream frame: the upstream's own answer to -1e400 (written -Infinity)
OBSERVE_EXTRA: dict[str, list[object]] = {"-Infinity": [ANSWER]}
# the cancellations the upstream got for the requests the proxy timed out, as it printed their ids
CANCELLED = {"18446744073709551617", "-9223372036854775809", "123456789012345678901234567891",
             "18446744073709551615", "1.0", "\\udc00"}


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_stdio_host_gets_every_answer_under_the_id_it_wrote(mode: str, tmp_path: Path) -> None:
    verdicts = tmp_path / "verdicts.jsonl"
    peer = LinePeer([*PROXY, "--mode", mode, "--timeout", "1", "--verdicts", str(verdicts), "--", *SERVER])
    try:
        assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for id_text, tool, _, _ in ROWS:
            peer.send_raw(tools_call(id_text.encode(), tool) + b"\n")
        expected = {id_text: outcomes[mode == "enforce"] for id_text, _, *outcomes in ROWS}
        if mode == "observe":
            expected.update(OBSERVE_EXTRA)
        got: dict[str, list[object]] = {}
        for raw in peer.lines_within(10):
            id_text, outcome = id_and_outcome(raw)
            got.setdefault(id_text, []).append(outcome)
            if sum(map(len, got.values())) >= sum(map(len, expected.values())):
                break
        time.sleep(0.3)  # nothing more comes
        while not peer.lines.empty() and (late := peer.lines.get()) is not None:
            id_text, outcome = id_and_outcome(late)
            got.setdefault(id_text, []).append(outcome)
    finally:
        status = peer.close()
    assert got == expected
    assert status == 0
    stderr = b"".join(peer.stderr).decode("utf-8", "replace")
    assert {line.split(" ", 1)[1] for line in stderr.splitlines() if line.startswith("cancelled ")} == CANCELLED
    assert "Traceback" not in stderr
    # the verdict lines name the ids of the judged answers exactly (echo answers; 2**64 first)
    ids = [json.loads(line)["id"] for line in verdicts.read_text().splitlines()]
    assert ids[:3] == [18446744073709551616, -9223372036854775810, 123456789012345678901234567890]


def _post_all(url: str, bodies: dict[str, tuple[bytes, float]]) -> dict[str, tuple[int, bytes | None]]:
    """Each body POSTed by a host of its own, after its delay, all at once."""
    got: dict[str, tuple[int, bytes | None]] = {}

    def host(name: str, body: bytes, delay: float) -> None:
        time.sleep(delay)
        peer = HttpHostPeer(url)
        try:
            got[name] = peer.post(body, headers={"mcp-protocol-version": "2026-07-28"})[:2]
        finally:
            peer.close()

    threads = [threading.Thread(target=host, args=(name, body, delay)) for name, (body, delay) in bodies.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return got


def _slow_write(id_text: str, key: str, seconds: float) -> bytes:
    return json.dumps(call(0, "slow_write", {"key": key, "seconds": seconds})).encode().replace(
        b'"id": 0', b'"id": ' + id_text.encode())


@pytest.mark.parametrize("pair", ["http-stdio", "http-http"])
@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_stateless_hosts_get_their_answers_under_the_ids_they_wrote(pair: str, mode: str, tmp_path: Path) -> None:
    """Two hosts with 2**64 in flight at once (over stdio the later is sent upstream under an id
    of the proxy's, and its own id put back in the answer), and a third with 2**64 + 1 (the same
    float): each gets its own answer, under its id as it wrote it."""

    bodies = {"first": (_slow_write("18446744073709551616", "first", 1.0), 0.0),
              "second": (_slow_write("18446744073709551616", "second", 1.0), 0.3),
              "third": (_slow_write("18446744073709551617", "third", 0.5), 0.3)}
    args = ["--mode", mode]
    with proxy_http_before(pair, args) as url:
        got = _post_all(url, bodies)
    outcome = {name: (status, *id_and_outcome(body or b""), json.loads(body or b"")["result"]["structuredContent"][
        "key"]) for name, (status, body) in got.items()}
    assert outcome == {"first": (200, "18446744073709551616", ANSWER, "first"),
                       "second": (200, "18446744073709551616", ANSWER, "second"),
                       "third": (200, "18446744073709551617", ANSWER, "third")}


# (the id as written, the tool, the HTTP status and outcome): an HTTP host over the stdio fault
# server (a 2025-06-18 session: echo passes); the proxy's timeout and its invalid-request error
# carry the id as written
HTTP_ROWS: list[tuple[str, str, tuple[int, object]]] = [
    ("18446744073709551616", "echo", (200, ANSWER)),
    ("-9223372036854775809", "hang", (200, UPSTREAM_TIMEOUT)),
    ("123456789012345678901234567890", "hang", (200, UPSTREAM_TIMEOUT)),
    ('"\\udc00"', "hang", (200, UPSTREAM_TIMEOUT)),
    ("1e400", "hang", (200, INVALID_REQUEST)),
]


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_an_http_host_gets_its_answers_under_the_ids_it_wrote(mode: str) -> None:
    with proxy_http(["--mode", mode, "--timeout", "1", "--", *SERVER]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
            peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
            got = {}
            for id_text, tool, _ in HTTP_ROWS:
                status, raw, _events = peer.post(tools_call(id_text.encode(), tool))
                assert raw is not None
                got[id_text] = (status, *id_and_outcome(raw))
        finally:
            peer.close()
    assert got == {id_text: (status, id_text, outcome) for id_text, _, (status, outcome) in HTTP_ROWS}


def test_an_id_of_more_digits_than_python_converts_gets_an_invalid_request_error() -> None:
    """An integer id of 5,000 digits (past ``sys.get_int_max_str_digits``): over an HTTP upstream
    the proxy does not send it on, and the host gets INVALID_REQUEST under its id as written."""
    digits = "9" * 5000
    with styled_http("plain") as upstream:
        peer = LinePeer([*PROXY, "--mode", "enforce", "--upstream", upstream])
        try:
            peer.send_raw(tools_call(digits.encode(), "echo") + b"\n")
            raw = peer.recv(10)
            peer.send_raw(tools_call(b"7", "echo") + b"\n")  # and the proxy carries on
            after = peer.recv(10)
        finally:
            peer.close()
    assert raw is not None and after is not None
    assert id_and_outcome(raw) == (digits, INVALID_REQUEST)
    assert id_and_outcome(after)[0] == "7"


# -- a host that reuses an id in flight --------------------------------------------------------
def _lines(peer: LinePeer, count: int, seconds: float) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    deadline = time.monotonic() + seconds
    while len(out) < count:
        raw = peer.recv(max(0.01, deadline - time.monotonic()))
        if raw is None:
            break
        out.append(id_and_outcome(raw))
    return out


# the later request gets the error at once; the earlier one its answer (the first answer to the
# id: over a pipe, the upstream's answers to one id cannot be told apart); nothing more
@pytest.mark.parametrize(("mode", "expected"), [
    ("enforce", [("5", INVALID_REQUEST), ("5", ANSWER)]),
    ("observe", [("5", INVALID_REQUEST), ("5", ANSWER)]),
])
def test_a_stdio_host_that_reuses_an_id_in_flight_gets_an_answer_for_each_request(
        mode: str, expected: list[tuple[str, object]]) -> None:
    peer = LinePeer([*PROXY, "--mode", mode, "--timeout", "1.5", "--", *SERVER])
    try:
        assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        peer.send_raw(tools_call(b"5", "hang") + b"\n")
        time.sleep(0.2)
        peer.send_raw(tools_call(b"5", "echo") + b"\n")
        got = _lines(peer, 3, 4)
    finally:
        peer.close()
    assert got == expected


@pytest.mark.parametrize("mode", ["observe", "enforce"])
@pytest.mark.parametrize(("second", "code"), [
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}', INVALID_REQUEST),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"v":NaN}}}', PARSE_ERROR),
], ids=["readable", "unreadable"])
def test_an_http_session_that_reuses_an_id_in_flight_leaves_no_post_waiting(mode: str, second: bytes,
                                                                             code: int) -> None:
    """Two POSTs of one 2025 session with id 5: the later gets an error at once and is not sent
    (MCP basic/index: an id is not reused in a session while in flight), the earlier waits for
    its own answer (``hang``: -31002 at ``--timeout``). The earlier POST was left waiting for
    ever; then the later was sent on to the pipe before the proxy read it, and the upstream's
    answer to it went to the earlier POST."""
    with proxy_http(["--mode", mode, "--timeout", "2", "--", *SERVER]) as (url, _):
        peer = HttpHostPeer(url)
        peer.exchange(INIT)
        got: dict[str, Any] = {}

        def post(name: str, body: bytes, delay: float) -> None:
            time.sleep(delay)
            other = HttpHostPeer(url)
            other.session = peer.session
            try:
                status, raw, _ = other.post(body, timeout=8)
                got[name] = (status, id_and_outcome(raw) if raw else None)
            except Exception as exc:  # (a POST left waiting: the test fails on its name)
                got[name] = type(exc).__name__
            finally:
                other.close()

        threads = [threading.Thread(target=post, args=("earlier", tools_call(b"5", "hang"), 0.0)),
                   threading.Thread(target=post, args=("later", second, 0.4))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        peer.close()
    assert got == {"earlier": (200, ("5", UPSTREAM_TIMEOUT)), "later": (200, ("5", code))}


def test_a_renumbered_stateless_request_reaches_a_stdio_upstream_byte_for_byte_but_its_id(tmp_path: Path) -> None:
    """Over a stdio upstream a stateless request whose id another host has in flight is sent
    under an id of the proxy's: only the id's bytes change (an integer past 64 bits, an exponent
    and an escape elsewhere in it reach the upstream as written: they were re-serialised by
    orjson, 2**64 as 1.8446744073709552e+19), and the host gets its answer under its own id."""
    log = tmp_path / "frames.jsonl"
    second = (b'{"jsonrpc":"2.0", "id" : 7,"method":"tools/call","params":{"name":"echo","arguments":'
              b'{"n":18446744073709551616,"x":1E2,"s":"\\u00e9"}}}')
    with proxy_http(["--timeout", "3", "--log", str(log), "--log-payloads", "--", *SERVER]) as (url, _):
        got = _post_all(url, {"first": (tools_call(b"7", "hang"), 0.0), "second": (second, 0.3)})
    assert {name: (status, id_and_outcome(body or b"")) for name, (status, body) in got.items()} == {
        "first": (200, ("7", UPSTREAM_TIMEOUT)), "second": (200, ("7", ANSWER))}
    with log.open("rb") as lines:
        sent = [record.data for record in read_log(lines) if isinstance(record, FrameRecord) and record.dir == "c2s"
                and record.kind == "message" and record.data is not None and b"18446744073709551616" in record.data]
    assert [re.sub(rb'"mcp-verdict:[0-9a-f]+:1"', b"7", data) for data in sent] == [second]


@pytest.mark.parametrize("id_text", ["123456789012345678901234567890", '"\\ud800"', "1e400", "18446744073709551616"])
def test_a_request_past_the_limit_gets_too_large_under_the_id_it_wrote(id_text: str) -> None:
    """A request past ``--max-frame-bytes`` is never forwarded; its TOO_LARGE error carries its
    id as written, and the proxy carries on (ids of more than 20 digits, with a lone surrogate or
    past the double range were not found in its first bytes: the host got nothing; 2**64 was, and
    writing the error raised: the proxy read no more of the host)."""
    peer = LinePeer([*PROXY, "--max-frame-bytes", "2048", "--", *SERVER])
    try:
        peer.send_raw(b'{"jsonrpc":"2.0","id":' + id_text.encode() + b',"method":"tools/call","params":{"name":"echo",'
                      b'"arguments":{"text":"' + b"x" * 3000 + b'"}}}\n')
        raw = peer.recv(10)
        peer.send_raw(tools_call(b"1", "echo") + b"\n")
        after = peer.recv(10)
    finally:
        peer.close()
    assert raw is not None and after is not None
    assert (id_and_outcome(raw), id_and_outcome(after)) == ((id_text, TOO_LARGE), ("1", ANSWER))
