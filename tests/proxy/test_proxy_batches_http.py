"""JSON-RPC batches through the real proxy to a Streamable HTTP upstream of MCP 2025-03-26
(``batch_http_server.py``: ``json`` answers a batch with one JSON array, ``sse-one`` with an
SSE stream of one event holding it, ``sse`` with an SSE stream of one event per answer), and an
HTTP host's batch to a stdio upstream that answers its elements one line each
(``tests/servers/batch_server.py``'s ``one-by-one``). (The rows of ``json`` and ``sse-one``
passed before too: they pin what the upstream's one batch of answers becomes.)

MCP 2025-03-26 basic/transports (Streamable HTTP, Sending Messages to the Server): a POST body may
be a batch of requests and notifications; one holding requests is answered with one JSON body or
an SSE stream, and the server's response carries the responses to those requests (the HTTP host
side: the proxy's answer to the host's POST carries every answer to the batch's requests, as the
upstream's JSON body or as SSE events). Each ``tools/call`` answer is judged on its own bytes:
observe forwards what the upstream sent byte for byte; enforce replaces the unclassified answer
(``dup``: a duplicated key) with the proxy's REFUSED error (proxy/_codes.py).

Before, over an HTTP upstream answering with one event per answer, the proxy stopped reading the
stream at the batch's first answer (the others never came: -31002 at ``--timeout``), and an HTTP
host's POST got only the first answer (the others were dropped, or went to its GET stream)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mcp_verdict.proxy import REFUSED
from tests.processes import port_server

from ._peers import PROXY, HttpHostPeer, LinePeer, proxy_http, wait_until
from .test_proxy_batches import BATCH, DUP, ECHO, FAIL, SERVER, SERVER_BATCH, call, cancel_the_first_of_a_batch, init

HTTP_SERVER = [sys.executable, str(Path(__file__).with_name("batch_http_server.py"))]
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
AS_SENT = frozenset({SERVER_BATCH, ECHO, DUP, FAIL})


def shown(frame: bytes | None) -> Any:
    """A frame the host got: its bytes when the server wrote them so; the proxy's REFUSED error as
    ("refused", id); a batch rewritten as the tuple of its elements, each shown so."""
    if frame is None or frame in AS_SENT:
        return frame
    if frame.lstrip()[:1] == b"[":
        return tuple(shown(bytes(e)) for e in msgspec.json.decode(frame, type=list[msgspec.Raw]))
    message = json.loads(frame)
    if message.get("error", {}).get("code") == REFUSED:
        return ("refused", message["id"])
    return frame


def _ids(frames: list[Any]) -> list[int]:
    """The ids of the answers the shown ``frames`` hold."""
    ids: list[int] = []
    for frame in frames:
        if isinstance(frame, tuple) and frame[0] == "refused":
            ids.append(frame[1])
        elif isinstance(frame, tuple):
            ids.extend(_ids(list(frame)))
        else:
            message = json.loads(frame)
            ids.extend(e["id"] for e in (message if isinstance(message, list) else [message]))
    return ids


@contextlib.contextmanager
def _upstream(kind: str) -> Iterator[list[str]]:
    """The proxy's upstream arguments: ``json`` or ``sse`` (the HTTP server), ``stdio`` (the stdio
    server answering a batch in one line), ``stdio-one-by-one`` (one line per answer)."""
    if kind.startswith("stdio"):
        yield ["--", *SERVER, *(["one-by-one"] if kind == "stdio-one-by-one" else [])]
        return
    with port_server([*HTTP_SERVER, kind]) as base:
        yield ["--upstream", base + "/mcp"]


REWRITTEN = (ECHO, ("refused", 2), FAIL)
ONE_BY_ONE = [ECHO, ("refused", 2), FAIL]
# (host, upstream, mode; what the host got for the batch, in order (an HTTP host: its POST's JSON body, or
# each event of its SSE stream); the verdict lines (id, kind))
VERDICTS = [(1, "normal_complete"), (2, "unclassified"), (3, "tool_error")]
CASES: list[tuple[str, str, str, list[Any]]] = [
    ("stdio", "json", "observe", [SERVER_BATCH]),
    ("stdio", "json", "enforce", [REWRITTEN]),
    ("stdio", "sse-one", "observe", [SERVER_BATCH]),
    ("stdio", "sse-one", "enforce", [REWRITTEN]),
    ("stdio", "sse", "observe", [ECHO, DUP, FAIL]),
    ("stdio", "sse", "enforce", ONE_BY_ONE),
    ("http", "json", "observe", [SERVER_BATCH]),
    ("http", "json", "enforce", [REWRITTEN]),
    ("http", "sse-one", "observe", [SERVER_BATCH]),
    ("http", "sse-one", "enforce", [REWRITTEN]),
    ("http", "sse", "observe", [ECHO, DUP, FAIL]),
    ("http", "sse", "enforce", ONE_BY_ONE),
    ("http", "stdio-one-by-one", "observe", [ECHO, DUP, FAIL]),
    ("http", "stdio-one-by-one", "enforce", ONE_BY_ONE),
]


@pytest.mark.parametrize(("side", "upstream", "mode", "gets"), CASES, ids=["-".join(c[:3]) for c in CASES])
def test_a_batch_through_the_proxy_gets_every_answer(side: str, upstream: str, mode: str, gets: list[Any],
                                                     tmp_path: Path) -> None:
    lines = tmp_path / "verdicts.jsonl"
    options = ["--mode", mode, "--timeout", "5", "--verdicts", str(lines)]
    got: list[Any] = []
    with _upstream(upstream) as target:
        if side == "stdio":
            peer = LinePeer([*PROXY, *options, *target])
            try:
                assert b'"2025-03-26"' in (peer.exchange(init("2025-03-26")) or b"")
                peer.send(INITIALIZED)
                peer.send_raw(BATCH + b"\n")
                while len(_ids(got)) < 3 and (line := peer.recv()) is not None:
                    got.append(shown(line))
            finally:
                peer.close()
        else:
            with proxy_http([*options, *target]) as (url, _):
                host = HttpHostPeer(url)
                try:
                    assert b'"2025-03-26"' in (host.exchange(init("2025-03-26")) or b"")
                    assert host.post(INITIALIZED)[0] == 202
                    status, last, before = host.post(BATCH)
                    assert status == 200
                    got = [shown(f) for f in [*before, last]]
                finally:
                    host.close()
    judged = sorted((v["id"], v["kind"]) for v in map(json.loads, lines.read_bytes().splitlines()) if v["id"] != 0)
    assert (got, judged) == (gets, VERDICTS)


IN_FLIGHT = -32600


def test_a_batch_whose_every_request_the_proxy_answers_gets_every_answer(tmp_path: Path) -> None:
    """An HTTP host's batch whose requests the proxy answers each itself (their id is in flight:
    INVALID_REQUEST, MCP basic/index) gets every answer, as one JSON array (before: the first only).
    The batch before it (``held``: answered once the next line reaches the server) gets its own."""
    import threading

    from ._restarting import frame_records, host_message

    log = tmp_path / "frames.jsonl"
    got: list[Any] = []
    with proxy_http(["--timeout", "10", "--log", str(log), "--log-payloads", "--", *SERVER]) as (url, _):
        host = HttpHostPeer(url)
        try:
            assert b'"2025-03-26"' in (host.exchange(init("2025-03-26")) or b"")
            assert host.post(INITIALIZED)[0] == 202
            held = json.dumps([call(1, "held")]).encode()
            first = threading.Thread(target=lambda: got.append(host.post(held)[:2]))
            first.start()
            assert wait_until(lambda: any(host_message('"held"')(r) for r in frame_records(log)))
            status, body, _ = host.post(json.dumps([call(1, "echo"), call(1, "fail")]).encode())
            first.join(20)
        finally:
            host.close()
    answers = json.loads(body or b"null")
    answers = answers if isinstance(answers, list) else [answers]
    assert (status, [(a["id"], a["error"]["code"]) for a in answers], got) == (
        200, [(1, IN_FLIGHT), (1, IN_FLIGHT)], [(200, b"[ " + ECHO + b" ]")])


ECHO_2 = ECHO.replace(b'"id":1', b'"id":2')


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_cancelling_a_batchs_first_request_leaves_the_others_answered(mode: str, tmp_path: Path) -> None:
    """A 2025 ``notifications/cancelled`` of the first request of a batch sent to an HTTP upstream
    no longer closes the batch's response stream (closing a request's stream cancels it, but that
    stream carries the answers to the batch's other requests too: MCP 2025-03-26 basic/transports).
    ``held`` (batch_http_server.py ``sse``): the batch's events come once the cancellation has. The
    host gets the answer to 2; the answer to 1 comes late and is refused (before: the stream was
    closed, and 2 got -31002 at ``--timeout``)."""
    log = tmp_path / "frames.jsonl"
    with _upstream("sse") as target:
        got = cancel_the_first_of_a_batch(
            LinePeer([*PROXY, "--mode", mode, "--timeout", "5", "--log", str(log), "--log-payloads", *target]))
    records = [json.loads(r) for r in log.read_bytes().splitlines()]
    assert (got, [r["note"] for r in records if r["kind"] == "refused"]) == (
        ECHO_2, ["a late answer: the proxy no longer awaited it (its host cancelled it)"])
