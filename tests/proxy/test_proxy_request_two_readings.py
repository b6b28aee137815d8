"""A host request whose routing members two parsers read two ways, through the proxy (``proxy._twice``).

RFC 8259 s4: "The names within an object SHOULD be unique"; when they are not, "the behavior of
software that receives such an object is unpredictable". The proxy reads a request as orjson does
(the last of a name given twice); the server here (``listing_server.py --first``) keeps the first, as
cJSON and many other parsers do. Read two ways, the request the proxy pairs and judges is not the one
the server runs: a ``"ping"`` to the proxy is a ``"tools/call"`` to the server, whose answer then
reaches the host unjudged (an answer to a ping is not judged); a call judged against one tool runs
another; an id the proxy awaits is not the one the server answers.

enforce does not forward such a request: the proxy answers it itself with JSON-RPC 2.0 s5.1 Invalid
Request (-32600), naming the member in ``data.member`` (under a null id when the id is the member read
two ways, s5: the id cannot be told), and logs it ``refused``. observe forwards it unchanged (its mode:
every frame byte for byte) and notes on its frame-log record which member reads two ways. A member
given twice with the same value, or a repeated name the proxy does not route by (an argument's), is
read alike by both: forwarded in both modes, no note.

Before the fix, both modes forwarded every one of these requests, with no note: in enforce the
``method-twice`` row's host got the server's tools/call answer, which the proxy never judged.

Real peers: a stdio host (this test) through the proxy's CLI to ``listing_server.py --first``
(which appends each line it reads to ``$LISTING_LOG``). Expected values by hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.frames import FrameRecord
from mcp_verdict.frames import read as read_log

from ._peers import PROXY, LinePeer, call
from .test_proxy_http_edges import _request, _status
from .test_proxy_http_host_hostile import _body, _proxy

SERVER = [sys.executable, str(Path(__file__).with_name("listing_server.py"))]
META = json.dumps(call(1, "x")["params"]["_meta"], separators=(",", ":"))
INVALID_REQUEST = -32600
WHY = ("its {} member is given twice with two values: a parser that keeps the first reads another request than "
       "one that keeps the last (RFC 8259 s4: the names within an object SHOULD be unique)")
OBSERVED = "; forwarded unchanged (observe); the proxy paired and judged it by the last values"

# (case, the request as written, "@" standing for the _meta value) → (the member read two ways, None for
# none; what the host gets when the server runs it: the server's text for a tools/call it runs, "{}" for
# an empty result; the id the server reads, first of two)
ROWS: list[tuple[str, str, str | None, str, Any]] = [
    ("method-twice", '{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping",'
     '"params":{"name":"route","arguments":{},"_meta":@}}', "method", "called route {}", 1),
    ("method-escaped", '{"jsonrpc":"2.0","id":2,"method":"tools/call","\\u006dethod":"ping",'
     '"params":{"name":"route","arguments":{},"_meta":@}}', "method", "called route {}", 2),
    ("id-twice", '{"jsonrpc":"2.0","id":3,"id":4,"method":"ping","params":{"_meta":@}}', "id", "{}", 3),
    ("id-int-then-float", '{"jsonrpc":"2.0","id":5,"id":5.0,"method":"ping","params":{"_meta":@}}', "id", "{}", 5),
    ("name-twice", '{"jsonrpc":"2.0","id":6,"method":"tools/call",'
     '"params":{"name":"delete_everything","name":"route","arguments":{},"_meta":@}}', "params.name",
     "called delete_everything {}", 6),
    ("params-twice", '{"jsonrpc":"2.0","id":7,"method":"tools/call",'
     '"params":{"name":"delete_everything","arguments":{},"_meta":@},"params":{"name":"route"}}', "params.name",
     "called delete_everything {}", 7),
    ("task-id-twice", '{"jsonrpc":"2.0","id":8,"method":"tasks/get",'
     '"params":{"taskId":"a","taskId":"b","_meta":@}}', "params.taskId", "{}", 8),
    # read alike by both: forwarded in both modes
    ("method-twice-alike", '{"jsonrpc":"2.0","id":9,"method":"tools/call","method":"tools/call",'
     '"params":{"name":"route","arguments":{},"_meta":@}}', None, "called route {}", 9),
    ("argument-name-twice", '{"jsonrpc":"2.0","id":10,"method":"tools/call",'
     '"params":{"name":"route","arguments":{"name":"a","name":"b"},"_meta":@}}', None,
     'called route {"name":"a","name":"b"}', 10),
    ("plain", '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"route","arguments":{"id":1},'
     '"_meta":@}}', None, 'called route {"id":1}', 11),
]


def _run(tmp_path: Path, mode: str) -> tuple[list[Any], list[Any], list[tuple[str, str | None]]]:
    """Each row's request sent through the proxy in ``mode``: what the host got for each (the
    server's text or result, or the proxy's error: (its id, code, data.member)), the ids of the
    requests the server read, and each host request's frame-log record (kind, note)."""
    pages, seen, log = tmp_path / "pages.json", tmp_path / "seen.jsonl", tmp_path / "frames.jsonl"
    pages.write_text(json.dumps([[{"name": "route", "inputSchema": {"type": "object"}}]]))
    peer = LinePeer([*PROXY, "--mode", mode, "--log", str(log), "--", *SERVER, str(pages), "--first"],
                    env={"LISTING_LOG": str(seen)})
    got: list[Any] = []
    try:
        for _, body, *_ in ROWS:
            peer.send_raw(body.replace("@", META).encode() + b"\n")
            raw = peer.recv()
            assert raw is not None, b"".join(peer.stderr)
            answer = json.loads(raw)
            if "error" in answer:
                error = answer["error"]
                if error["data"].get("member") == "method":  # (the message, once)
                    assert error["message"] == ("mcp-verdict proxy: invalid request: " + WHY.format("method")
                                                + "; the proxy does not relay it")
                got.append((answer["id"], error["code"], error["data"].get("member")))
            else:
                result = answer["result"]
                got.append(result["content"][0]["text"] if "content" in result else json.dumps(result))
    finally:
        assert peer.close() == 0, b"".join(peer.stderr)
    server = [json.loads(line, object_pairs_hook=lambda pairs: dict(reversed(pairs)))["id"]
              for line in seen.read_bytes().splitlines()]
    records: list[tuple[str, str | None]] = [(r.kind, r.note) for r in read_log(log.read_bytes().splitlines())
               if isinstance(r, FrameRecord) and r.dir == "c2s" and r.kind in ("message", "refused")]
    return got, server, records


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_request_read_two_ways(tmp_path: Path, mode: str) -> None:
    got, server, records = _run(tmp_path, mode)
    expected_got: list[Any]
    if mode == "observe":
        expected_got = [row[3] for row in ROWS]
        expected_server = [row[4] for row in ROWS]
        expected_records = [("message", None if row[2] is None else WHY.format(row[2]) + OBSERVED) for row in ROWS]
    else:
        expected_got = [row[3] if row[2] is None else (None if row[2] == "id" else row[4], INVALID_REQUEST, row[2])
                        for row in ROWS]
        expected_server = [row[4] for row in ROWS if row[2] is None]
        expected_records = [("message", None) if row[2] is None else
                            ("refused", "not forwarded (enforce): " + WHY.format(row[2])) for row in ROWS]
    assert got == expected_got
    assert server == expected_server
    assert records == expected_records



BATCH_SERVER = [sys.executable, str(Path(__file__).parents[1] / "servers" / "batch_server.py")]
ECHO = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}'
TWICE = '{"jsonrpc":"2.0","id":2,"method":"tools/call","method":"ping","params":{"name":"echo","arguments":{}}}'


# (mode, the host's batch as written) → (the ids of the answers the host gets, in order, each with the
# proxy's error code when it is the proxy's; the lines the server reads after the initialize and its
# notification, as written) — a 2025-03-26 session (the only version with batches): enforce answers the
# element read two ways itself and sends the server the others, in order, as one batch; observe sends
# the batch as the host wrote it.
BATCHES: list[tuple[str, str, list[tuple[int | None, int | None]], list[str]]] = [
    ("enforce", f"[{ECHO % 1},{TWICE},{ECHO % 3}]", [(2, INVALID_REQUEST), (1, None), (3, None)],
     [f"[{ECHO % 1},{ECHO % 3}]"]),
    ("enforce", f"[{TWICE}]", [(2, INVALID_REQUEST)], []),
    ("observe", f"[{ECHO % 1},{TWICE},{ECHO % 3}]", [(1, None), (2, -32601), (3, None)],  # (the server reads
     # the last method, ping, which it does not know: -32601)
     [f"[{ECHO % 1},{TWICE},{ECHO % 3}]"]),
]


@pytest.mark.parametrize(("mode", "batch", "answers", "server"), BATCHES, ids=["enforce", "enforce-alone", "observe"])
def test_a_batch_element_read_two_ways(tmp_path: Path, mode: str, batch: str,
                                       answers: list[tuple[int | None, int | None]], server: list[str]) -> None:
    seen = tmp_path / "seen"
    peer = LinePeer([*PROXY, "--mode", mode, "--", *BATCH_SERVER], env={"BATCH_LOG": str(seen)})
    got: list[tuple[int | None, int | None]] = []
    try:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
        assert b'"2025-03-26"' in (peer.exchange(init) or b"")
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        peer.send_raw(batch.encode() + b"\n")
        while len(got) < len(answers):
            raw = peer.recv()
            assert raw is not None, (got, b"".join(peer.stderr))
            read = json.loads(raw)
            got.extend((answer["id"], answer["error"]["code"] if "error" in answer else None)
                       for answer in (read if isinstance(read, list) else [read]))
        assert b'"id":9' in (peer.exchange(json.loads(ECHO % 9)) or b"")  # (the server has read the batch)
    finally:
        assert peer.close() == 0, b"".join(peer.stderr)
    assert got == answers
    assert seen.read_text().splitlines()[2:-1] == server


# An HTTP host (2026-07-28, over the proxy's HTTP host side and the same stdio server): (case, body as
# written, "@" the _meta value; its Mcp-Method header) → in enforce, what the POST gets: (status, the
# JSON-RPC error's id, code, data.member), and nothing reaches the server. (A method or params.name read
# two ways is refused before, by the header checks against both readings: test_proxy_listing_two_readings.)
HTTP_ROWS: list[tuple[str, str, str, tuple[int, Any, int, str]]] = [
    ("id-twice", '{"jsonrpc":"2.0","id":3,"id":4,"method":"ping","params":{"_meta":@}}', "ping",
     (200, None, INVALID_REQUEST, "id")),
    ("task-id-twice", '{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"taskId":"a","taskId":"b","_meta":@}}',
     "tasks/get", (200, 8, INVALID_REQUEST, "params.taskId")),
]


@pytest.mark.parametrize(("body", "method", "expected"), [r[1:] for r in HTTP_ROWS], ids=[r[0] for r in HTTP_ROWS])
def test_an_http_request_read_two_ways_in_enforce(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str,
                                                  method: str, expected: tuple[int, Any, int, str]) -> None:
    pages, seen = tmp_path / "pages.json", tmp_path / "seen.jsonl"
    pages.write_text("[[]]")
    monkeypatch.setenv("LISTING_LOG", str(seen))
    with _proxy(["--mode", "enforce", "--", *SERVER, str(pages), "--first"], tmp_path / "err") as url:
        response = _request(url, "POST", body.replace("@", META).encode(),
                            {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method})
        ping = f'{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"_meta":{META}}}}}'.encode()
        plain = _request(url, "POST", ping, {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "ping"})  # (after it:
        # the server's first request)
    got = _body(response)
    assert (_status(response), got["id"], got["error"]["code"], got["error"]["data"]["member"]) == expected
    assert _status(plain) == 200
    assert [json.loads(line)["id"] for line in seen.read_bytes().splitlines()] == [1]
