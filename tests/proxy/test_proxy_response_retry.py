"""An HTTP host's JSON-RPC response to a server's request (2025: sampling, elicitation, roots)
whose way upstream fails: what the host is told, and whether it may send it again.

- over an HTTP upstream the proxy keeps no state a retry needs: the POST that failed gets 502
  and the proxy's JSON-RPC error with a null id (-31004), noted in the frame log, and the host's
  retry is forwarded as the first was (here taken: 202);
- over a stdio upstream the server's requests a host may answer are those the process sent
  and no host answered yet (``HttpHost._asked``): a process that exits takes its requests with
  it. A response to one of them is then refused, 400 and -32600, unsent — the first time and on
  any retry: no process is left to take it. Before, the requests of a process that had exited
  stayed answerable: a host's late response was written to the restarted process, which never
  sent that request and counts its ids from the start again — its own request under that id,
  sent to another host's session, was taken as answered by the first host's response.

Real proxy processes, real servers (``broken_http_server.py reset-first``: the first connection
reset, then every request taken; ``asking_server.py``), raw sockets on 127.0.0.1.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.processes import port_server

from ._peers import TIMEOUT, wait_until
from ._restarting import frame_records
from .test_proxy_http_edges import _request, _status
from .test_proxy_http_host_agreement import _session, _text, _tool
from .test_proxy_http_host_hostile import _body, _close_all, _proxy, _Stream

BROKEN = [sys.executable, str(Path(__file__).with_name("broken_http_server.py"))]
ASKING = [sys.executable, str(Path(__file__).with_name("asking_server.py"))]
V2025 = {"MCP-Protocol-Version": "2025-06-18"}
UPSTREAM_UNAVAILABLE, INVALID_REQUEST = -31004, -32600  # README "The proxy"; JSON-RPC 2.0 s5.1

# (the host's response, as it POSTs it twice) — what it gets each time: (status, the JSON-RPC
# error's (id, code) or None)
RESPONSES = [
    ("result", b'{"jsonrpc":"2.0","id":"s-9","result":{"roots":[]}}'),
    ("error", b'{"jsonrpc":"2.0","id":"s-9","error":{"code":-1,"message":"declined"}}'),
]


@pytest.mark.parametrize("body", [r[1] for r in RESPONSES], ids=[r[0] for r in RESPONSES])
def test_a_response_the_http_upstream_failed_to_take_may_be_sent_again(tmp_path: Path, body: bytes) -> None:
    log = tmp_path / "frames.jsonl"
    got = []
    with port_server([*BROKEN, "reset-first"]) as base, \
            _proxy(["--log", str(log), "--log-payloads", "--upstream", base + "/mcp"], tmp_path / "err") as url:
        for _ in range(2):
            response = _request(url, "POST", body, {**V2025, "Mcp-Session-Id": "s-1"})
            answer = _body(response)
            got.append((_status(response), (answer["id"], answer["error"]["code"]) if answer else None))
    assert got == [(502, (None, UPSTREAM_UNAVAILABLE)), (202, None)]
    records = [(r["dir"], r["kind"]) for r in frame_records(log) if r["dir"] == "c2s"]
    assert records == [("c2s", "message"), ("c2s", "error"), ("c2s", "message")]


def test_a_response_to_a_request_of_a_process_that_exited_is_refused_each_time(tmp_path: Path) -> None:
    """Host A's session is asked ``s-1`` by the first process, which then crashes (restarted:
    ``--restart on-failure``); the new process asks host B's session its own ``s-1``. A's
    response to the first ``s-1`` is refused, and again when sent again; B's answer is the one
    the new process takes. Before: A's response got 202 and reached the new process, which took it
    for the answer to B's ``s-1`` (B's own answer then got 202 too, and the server's error)."""
    log = tmp_path / "frames.jsonl"
    asked: list[bytes] = []
    streams: list[_Stream] = []
    with _proxy(["--restart", "on-failure", "--log", str(log), "--log-payloads", "--", *ASKING],
                tmp_path / "err") as url:
        one, two = _session(url, "2025-06-18"), _session(url, "2025-06-18")
        try:
            stream_one = _Stream(url, {**V2025, "Mcp-Session-Id": one})
            streams.append(stream_one)
            assert wait_until(lambda: b"\r\n\r\n" in stream_one.raw, TIMEOUT)
            first = threading.Thread(target=lambda: asked.append(_request(
                url, "POST", _tool(5, "ask"), {**V2025, "Mcp-Session-Id": one})))
            first.start()
            assert wait_until(lambda: b'"s-1"' in stream_one.raw, TIMEOUT)  # A is asked s-1
            crashed = _body(_request(url, "POST", _tool(6, "exit"), {**V2025, "Mcp-Session-Id": two}))
            first.join(TIMEOUT)
            assert wait_until(lambda: any("replayed initialize" in r.get("note", "") for r in frame_records(log)),
                              TIMEOUT)
            stream_two = _Stream(url, {**V2025, "Mcp-Session-Id": two})  # the new process's requests go here
            streams.append(stream_two)
            assert wait_until(lambda: b"\r\n\r\n" in stream_two.raw, TIMEOUT)
            second = threading.Thread(target=lambda: asked.append(_request(
                url, "POST", _tool(7, "ask"), {**V2025, "Mcp-Session-Id": two})))
            second.start()
            assert wait_until(lambda: b'"s-1"' in stream_two.raw, TIMEOUT)  # B is asked the new process's s-1
            late = b'{"jsonrpc":"2.0","id":"s-1","result":{"roots":[{"uri":"file:///a"}]}}'
            stale = [_request(url, "POST", late, {**V2025, "Mcp-Session-Id": one}) for _ in range(2)]
            own = _request(url, "POST", b'{"jsonrpc":"2.0","id":"s-1","result":{"roots":[]}}',
                           {**V2025, "Mcp-Session-Id": two})
            second.join(TIMEOUT)
        finally:
            _close_all(streams)
    refused: list[Any] = [(_status(r), _body(r)["error"]["code"] if _body(r) else None) for r in stale]
    assert (crashed["id"], crashed["error"]["code"]) == (6, -31001)  # (the crash answered the call in flight)
    assert _body(asked[0])["error"]["code"] == -31001  # (so was A's call, whose process is gone)
    assert (refused, _status(own), _text(asked[1])) == (
        [(400, INVALID_REQUEST)] * 2, 202, (7, "answered s-1"))
    notes = [r["note"] for r in frame_records(log) if r["dir"] == "c2s" and r["kind"] == "refused"]
    assert len(notes) == 2 and all("answers no request the server sent to this session" in n for n in notes)
    assert json.loads(stale[0].partition(b"\r\n\r\n")[2])["id"] is None
