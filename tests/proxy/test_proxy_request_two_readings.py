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

observe, a request that gives its id twice: the server keeping the first answers under the first id,
and the proxy takes that answer as the request's (judged against the id it carries: its verdict line
names it), where it awaited the last id only — over stdio the host got the answer as an unpaired frame
(no verdict), then UPSTREAM_TIMEOUT under the last id at ``--timeout``; over an HTTP host (the host's
POST waits for the request's answer) only the -31002 (``test_an_http_request_giving_its_id_twice``).

A 2025-03-26 batch holding such a request: observe forwards it with the batch, the batch's one
frame-log record noting the element (its place, the member: before, nothing noted it, the elements'
records not being written); enforce answers it itself and sends the upstream the other elements, which
the batch's record holds, noting the element left out (before, it held the host's bytes, the element
refused with them; and a batch left with no element had a record too, though nothing was sent).

Before the fix, both modes forwarded every one of these requests, with no note: in enforce the
``method-twice`` row's host got the server's tools/call answer, which the proxy never judged.

Real peers: a stdio host (this test) through the proxy's CLI to ``listing_server.py --first``
(which appends each line it reads to ``$LISTING_LOG``). Expected values by hand."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.frames import FrameRecord
from mcp_verdict.frames import read as read_log

from ..processes import port_server
from ._in_thread import http_host_in_thread
from ._peers import PROXY, TIMEOUT, LinePeer, call, wait_until
from .test_proxy_http_edges import _address, _request, _request_bytes, _status
from .test_proxy_http_host_hostile import _body, _proxy, _read_all

SERVER = [sys.executable, str(Path(__file__).with_name("listing_server.py"))]
META = json.dumps(call(1, "x")["params"]["_meta"], separators=(",", ":"))
INVALID_REQUEST = -32600
WHY = ("its {} member is given twice with two values: a parser that keeps the first reads another request than "
       "one that keeps the last (RFC 8259 s4: the names within an object SHOULD be unique)")
OBSERVED = "; forwarded unchanged (observe); the proxy paired and judged it by the last values"
EITHER = ("; forwarded unchanged (observe); the proxy judged it by the last values and takes an answer under either "
          "id as its answer")
"""observe's note when the id is given twice with two values (an answer under either is the request's)."""

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
    ("call-id-twice", '{"jsonrpc":"2.0","id":12,"id":13,"method":"tools/call",'
     '"params":{"name":"route","arguments":{},"_meta":@}}', "id", "called route {}", 12),
]
# The verdict lines (id, tool, kind) of the tools/call answers the proxy judges, in order: observe
# judges each call it reads as one (by the last method: not method-twice's nor method-escaped's) — the
# call that gave its id twice under the id the server answered under, 12; enforce those it forwards.
VERDICTS = {"observe": [(6, "route", "normal_complete"), (7, "route", "normal_complete"),
                        (9, "route", "normal_complete"), (10, "route", "normal_complete"),
                        (11, "route", "normal_complete"), (12, "route", "normal_complete")],
            "enforce": [(9, "route", "normal_complete"), (10, "route", "normal_complete"),
                        (11, "route", "normal_complete")]}


def _run(tmp_path: Path, mode: str) -> tuple[list[Any], list[Any], list[tuple[str, str | None]], list[Any]]:
    """Each row's request sent through the proxy in ``mode``: what the host got for each (the
    server's text or result, or the proxy's error: (its id, code, data.member)), the ids of the
    requests the server read, each host request's frame-log record (kind, note), and the verdict
    lines (id, tool, kind)."""
    pages, seen, log = tmp_path / "pages.json", tmp_path / "seen.jsonl", tmp_path / "frames.jsonl"
    lines = tmp_path / "verdicts.jsonl"
    pages.write_text(json.dumps([[{"name": "route", "inputSchema": {"type": "object"}}]]))
    peer = LinePeer([*PROXY, "--mode", mode, "--log", str(log), "--verdicts", str(lines), "--", *SERVER, str(pages),
                     "--first"], env={"LISTING_LOG": str(seen)})
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
    verdicts = [(v["id"], v["tool"], v["kind"]) for v in map(json.loads, lines.read_bytes().splitlines())]
    return got, server, records, verdicts


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_request_read_two_ways(tmp_path: Path, mode: str) -> None:
    got, server, records, verdicts = _run(tmp_path, mode)
    expected_got: list[Any]
    if mode == "observe":
        expected_got = [row[3] for row in ROWS]
        expected_server = [row[4] for row in ROWS]
        expected_records = [("message", None if row[2] is None else WHY.format(row[2]) + (
            EITHER if row[2] == "id" else OBSERVED)) for row in ROWS]
    else:
        expected_got = [row[3] if row[2] is None else (None if row[2] == "id" else row[4], INVALID_REQUEST, row[2])
                        for row in ROWS]
        expected_server = [row[4] for row in ROWS if row[2] is None]
        expected_records = [("message", None) if row[2] is None else
                            ("refused", "not forwarded (enforce): " + WHY.format(row[2])) for row in ROWS]
    assert got == expected_got
    assert server == expected_server
    assert records == expected_records
    assert verdicts == VERDICTS[mode]



BATCH_SERVER = [sys.executable, str(Path(__file__).parents[1] / "servers" / "batch_server.py")]
ECHO = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}'
TWICE = '{"jsonrpc":"2.0","id":2,"method":"tools/call","method":"ping","params":{"name":"echo","arguments":{}}}'
ID_TWICE = '{"jsonrpc":"2.0","id":4,"id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}'
LEFT_OUT = "element {} of {} not forwarded (enforce): " + WHY
"""The note of an enforce batch's record on an element read two ways (its place, the member)."""
NOTED = "element {} of {}: " + WHY
"""The note of an observe batch's record on an element read two ways (its place, the member), then
the request's own note (OBSERVED, EITHER)."""


# (mode, the host's batch as written) → (the ids of the answers the host gets, in order, each with the
# proxy's error code when it is the proxy's; the lines the server reads after the initialize and its
# notification, as written; the host frames' frame-log records after those two: (kind, data, note), in
# order) — a 2025-03-26 session (the only version with batches): enforce answers the element read two
# ways itself and sends the server the others, in order, as one batch, which the batch's record holds;
# observe sends the batch as the host wrote it, its record noting the element read two ways (the
# server, batch_server.py, keeps the last of a name given twice: it runs ping, and answers id 5).
BATCHES: list[tuple[str, str, list[tuple[int | None, int | None]], list[str], list[tuple[str, str, str | None]]]] = [
    ("enforce", f"[{ECHO % 1},{TWICE},{ECHO % 3}]", [(2, INVALID_REQUEST), (1, None), (3, None)],
     [f"[{ECHO % 1},{ECHO % 3}]"],
     [("message", f"[{ECHO % 1},{ECHO % 3}]", LEFT_OUT.format(2, 3, "method")),
      ("refused", TWICE, "not forwarded (enforce): " + WHY.format("method"))]),
    ("enforce", f"[{TWICE}]", [(2, INVALID_REQUEST)], [],
     [("refused", TWICE, "not forwarded (enforce): " + WHY.format("method"))]),
    ("enforce", f"[{ID_TWICE},{TWICE}]", [(None, INVALID_REQUEST), (2, INVALID_REQUEST)], [],
     [("refused", ID_TWICE, "not forwarded (enforce): " + WHY.format("id")),
      ("refused", TWICE, "not forwarded (enforce): " + WHY.format("method"))]),
    ("observe", f"[{ECHO % 1},{TWICE},{ECHO % 3}]", [(1, None), (2, -32601), (3, None)],  # (the server reads
     # the last method, ping, which it does not know: -32601)
     [f"[{ECHO % 1},{TWICE},{ECHO % 3}]"],
     [("message", f"[{ECHO % 1},{TWICE},{ECHO % 3}]", NOTED.format(2, 3, "method") + OBSERVED)]),
    ("observe", f"[{ID_TWICE},{ECHO % 6},{TWICE}]", [(5, None), (6, None), (2, -32601)],
     [f"[{ID_TWICE},{ECHO % 6},{TWICE}]"],
     [("message", f"[{ID_TWICE},{ECHO % 6},{TWICE}]",
       NOTED.format(1, 3, "id") + EITHER + "; " + NOTED.format(3, 3, "method") + OBSERVED)]),
    ("observe", f"[{ECHO % 1},{ECHO % 3}]", [(1, None), (3, None)], [f"[{ECHO % 1},{ECHO % 3}]"],
     [("message", f"[{ECHO % 1},{ECHO % 3}]", None)]),  # (none read two ways: one record, no note)
]


@pytest.mark.parametrize(("mode", "batch", "answers", "server", "records"), BATCHES,
                         ids=["enforce", "enforce-alone", "enforce-none-left", "observe", "observe-two",
                              "observe-none"])
def test_a_batch_element_read_two_ways(tmp_path: Path, mode: str, batch: str,
                                       answers: list[tuple[int | None, int | None]], server: list[str],
                                       records: list[tuple[str, str, str | None]]) -> None:
    seen, log = tmp_path / "seen", tmp_path / "frames.jsonl"
    peer = LinePeer([*PROXY, "--mode", mode, "--log", str(log), "--log-payloads", "--", *BATCH_SERVER],
                    env={"BATCH_LOG": str(seen)})
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
    host = [(r.kind, (r.data or b"").decode(), r.note) for r in read_log(log.read_bytes().splitlines())
            if isinstance(r, FrameRecord) and r.dir == "c2s" and r.kind in ("message", "refused")]
    assert host[2:-1] == records


# An HTTP host (2026-07-28, over the proxy's HTTP host side and the same stdio server): (case, body as
# written, "@" the _meta value; its Mcp-Method header) → in enforce, what the POST gets: (status, the
# JSON-RPC error's id, code, data.member), and nothing reaches the server. (A method, params.name or
# params.taskId read two ways is refused before, by the header checks against both readings — Mcp-Name
# is required on tasks/get, tasks/update and tasks/cancel too: test_proxy_listing_two_readings.)
HTTP_ROWS: list[tuple[str, str, str, tuple[int, Any, int, str]]] = [
    ("id-twice", '{"jsonrpc":"2.0","id":3,"id":4,"method":"ping","params":{"_meta":@}}', "ping",
     (200, None, INVALID_REQUEST, "id")),
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


FIRST_HTTP = [sys.executable, str(Path(__file__).with_name("status_http_server.py")), "first"]

# An HTTP host in observe, each row its own POST (2026-07-28, no session), through one proxy to a server
# whose parser keeps the first of a name given twice (stdio: listing_server.py --first; HTTP:
# status_http_server.py first): (case, body as written, "@" the _meta value; its Mcp-Method header, its
# Mcp-Name header or None) → what the POST gets: (status, the answer's id, its result: a tools/call's
# text, else the result). The server answers under the first id; the proxy takes that answer as the
# request's. Before, it awaited the last id only: over the stdio upstream each row giving its id twice got
# UPSTREAM_TIMEOUT (-31002) under the last id at --timeout (5 s here), the server's answer dropped (no
# stream to carry it); over the HTTP upstream an event stream with the server's answer as an unpaired
# event, then UPSTREAM_CLOSED (-31001) under the last id (the upstream's response held no answer to it).
HTTP_OBSERVED: list[tuple[str, str, str, str | None, tuple[int, Any, Any]]] = [
    ("id-twice", '{"jsonrpc":"2.0","id":3,"id":4,"method":"ping","params":{"_meta":@}}', "ping", None, (200, 3, {})),
    ("id-int-then-float", '{"jsonrpc":"2.0","id":5,"id":5.0,"method":"ping","params":{"_meta":@}}', "ping", None,
     (200, 5, {})),
    ("id-strings", '{"jsonrpc":"2.0","id":"a","id":"b","method":"ping","params":{"_meta":@}}', "ping", None,
     (200, "a", {})),
    ("call-id-twice", '{"jsonrpc":"2.0","id":12,"id":13,"method":"tools/call",'
     '"params":{"name":"route","arguments":{},"_meta":@}}', "tools/call", "route", (200, 12, "called route {}")),
    ("plain", '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"route","arguments":{},"_meta":@}}',
     "tools/call", "route", (200, 11, "called route {}")),
]
HTTP_VERDICTS = [(12, "route", "normal_complete"), (11, "route", "normal_complete")]
"""The verdict lines (id, tool, kind): the call that gave its id twice judged under the id answered."""


@contextlib.contextmanager
def _observing(where: str, upstream: str, tmp_path: Path) -> Iterator[str]:
    """The proxy's HTTP host side in observe (--timeout 5, verdict lines to tmp_path/verdicts.jsonl)
    before the ``upstream`` (``stdio`` or ``http``) first-keeping server: as its own process (under
    uvloop, as the CLI runs) or served in this process (``thread``: plain asyncio). Its URL."""
    pages, lines = tmp_path / "pages.json", tmp_path / "verdicts.jsonl"
    pages.write_text(json.dumps([[{"name": "route", "inputSchema": {"type": "object"}}]]))
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(port_server(FIRST_HTTP)) + "/mcp" if upstream == "http" else None
        command = [*SERVER, str(pages), "--first"]
        if where == "process":
            side = ["--upstream", url] if url is not None else ["--", *command]
            yield stack.enter_context(_proxy(["--mode", "observe", "--timeout", "5", "--verdicts", str(lines), *side],
                                             tmp_path / "err"))
            return
        from mcp_verdict.proxy._run import ProxyOptions

        options = ProxyOptions(command=command if url is None else (), upstream=url, listen=("127.0.0.1", 0),
                               otel=False, mode="observe", timeout=5.0, verdicts=str(lines))
        yield stack.enter_context(http_host_in_thread(options, record=True)).url


@pytest.mark.parametrize("upstream", ["stdio", "http"])
@pytest.mark.parametrize("where", ["process", "thread"])
def test_an_http_request_giving_its_id_twice_in_observe(tmp_path: Path, where: str, upstream: str) -> None:
    got = []
    with _observing(where, upstream, tmp_path) as url:
        for _, body, method, name, _ in HTTP_OBSERVED:
            headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method,
                       **({"Mcp-Name": name} if name else {})}
            response = _request(url, "POST", body.replace("@", META).encode(), headers)
            head, _, rest = response.partition(b"\r\n\r\n")
            answers = [json.loads(line[5:]) for line in rest.splitlines() if line.startswith(b"data:")] \
                if b"text/event-stream" in head else [json.loads(rest)]  # (an event stream: each event's answer)
            assert len(answers) == 1, answers
            answer = answers[0]
            result = answer.get("result", answer.get("error"))
            got.append((_status(response), answer["id"], result["content"][0]["text"] if "content" in result
                        else result))
    assert got == [row[4] for row in HTTP_OBSERVED]
    lines = (tmp_path / "verdicts.jsonl").read_bytes().splitlines()
    assert [(v["id"], v["tool"], v["kind"]) for v in map(json.loads, lines)] == HTTP_VERDICTS


VERBATIM = [sys.executable, str(Path(__file__).with_name("verbatim_server.py"))]
CALL = '{"jsonrpc":"2.0",%s,"method":"tools/call","params":{"name":"%s","arguments":{},"_meta":@}}'

# Two hosts of no session, one stdio upstream (every host on its one connection; verbatim_server.py
# answers under the first "id" member as written, as a parser keeping the first reads it; ``hang`` is
# never answered): host B's ``hang`` is in flight when host A POSTs an ``echo`` giving its id twice.
# (case, B's id member, A's id members) → (what B's POST gets: (id, code) — the proxy's
# UPSTREAM_TIMEOUT at --timeout 2, as hang has no answer; what A's gets: (id, text)). When A's first id
# is B's, the server would take A's call as another request under B's id: the proxy sends A's under an
# id of its own (both id members replaced) and A gets its answer under its last id as written. Before,
# it went as written: the server's answer to it went to B as B's answer, and A got -31002.
# (Each row waits B's limit out. A's call, sent once B's is in flight, took at most 22 ms at load 7
# on 2 cores: 2 s keeps B in flight a hundred times longer than A needs.)
CROSSED_TIMEOUT = 2.0
CROSSED: list[tuple[str, str, str, tuple[Any, int], tuple[Any, str]]] = [
    ("first-is-in-flight", '"id":3', '"id":3,"id":"a"', (3, -31002), ("a", "ok")),
    ("last-is-in-flight", '"id":3', '"id":"a","id":3', (3, -31002), (3, "ok")),
    ("none-in-flight", '"id":"b"', '"id":3,"id":"c"', ("b", -31002), (3, "ok")),  # (answered under the first)
]


@pytest.mark.parametrize(("b_id", "a_ids", "b_gets", "a_gets"), [r[1:] for r in CROSSED], ids=[r[0] for r in CROSSED])
@pytest.mark.parametrize("where", ["process", "thread"])
def test_a_first_id_another_host_has_in_flight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str,
                                               b_id: str, a_ids: str, b_gets: tuple[Any, int],
                                               a_gets: tuple[Any, str]) -> None:
    seen = tmp_path / "seen.jsonl"
    monkeypatch.setenv("VERBATIM_LOG", str(seen))
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
    with contextlib.ExitStack() as stack:
        if where == "process":
            url = stack.enter_context(_proxy(["--mode", "observe", "--timeout", f"{CROSSED_TIMEOUT:g}", "--",
                                              *VERBATIM], tmp_path / "err"))
        else:
            from mcp_verdict.proxy._run import ProxyOptions

            options = ProxyOptions(command=VERBATIM, listen=("127.0.0.1", 0), otel=False, mode="observe",
                                   timeout=CROSSED_TIMEOUT)
            url = stack.enter_context(http_host_in_thread(options)).url
        host, port, _ = _address(url)
        b = stack.enter_context(socket.create_connection((host, port), timeout=TIMEOUT))
        b.sendall(_request_bytes(url, "POST", (CALL % (b_id, "hang")).replace("@", META).encode(),
                                 {**headers, "Mcp-Name": "hang"}))
        assert wait_until(lambda: seen.exists() and b'"hang"' in seen.read_bytes(), TIMEOUT)  # (in flight)
        a = _body(_request(url, "POST", (CALL % (a_ids, "echo")).replace("@", META).encode(),
                           {**headers, "Mcp-Name": "echo"}))
        b_answer = _body(_read_all(b))
    assert (b_answer["id"], b_answer["error"]["code"] if "error" in b_answer else None) == b_gets
    assert (a["id"], a["result"]["content"][0]["text"] if "result" in a else a["error"]["code"]) == a_gets
