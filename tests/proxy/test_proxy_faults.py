"""Faults through the proxy (stdio → stdio, 2025-06-18 session): each ends as a JSON-RPC error
for the call in flight, in bounded time, and nothing is lost or reordered."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.frames import FrameRecord
from mcp_verdict.frames import read as read_log
from mcp_verdict.proxy import REFUSED, TOO_LARGE, UPSTREAM_CLOSED, UPSTREAM_TIMEOUT

from ._peers import PROXY, LinePeer, wait_until

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
INIT: dict[str, Any] = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def tool(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def start(tmp_path: Path, *args: str, capabilities: dict[str, Any] | None = None) -> LinePeer:
    peer = LinePeer([*PROXY, "--log", str(tmp_path / "frames.jsonl"), "--log-payloads", *args, "--", *SERVER],
                    env={"FAULT_STARTS": str(tmp_path / "starts")})
    init = INIT if capabilities is None else {**INIT, "params": {**INIT["params"], "capabilities": capabilities}}
    assert json.loads(peer.exchange(init) or b"{}")["result"]["protocolVersion"] == "2025-06-18"
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return peer


def error_of(raw: bytes | None) -> dict[str, Any]:
    assert raw is not None
    return dict(json.loads(raw)["error"])


def test_unknown_members_and_meta_are_kept_byte_for_byte(tmp_path: Path) -> None:
    peer = start(tmp_path)
    raw = peer.exchange(tool(1, "echo"))
    assert raw == (b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],'
                   b'"isError":false,"x-unknown":{"kept":true},"_meta":{"m":1}}}')
    peer.close()


def test_an_upstream_that_exits_mid_call_fails_the_call_and_is_restarted(tmp_path: Path) -> None:
    peer = start(tmp_path, "--restart", "on-failure")
    started = time.monotonic()
    error = error_of(peer.exchange(tool(1, "exit")))
    assert error["code"] == UPSTREAM_CLOSED and "status 3" in error["message"]
    assert time.monotonic() - started < 20  # (not the call's --timeout: the exit is told at once)
    # the restarted upstream was initialised again with the host's own initialize
    assert json.loads(peer.exchange(tool(2, "echo")) or b"{}")["id"] == 2
    assert (tmp_path / "starts").read_text().count("start") == 2
    peer.close()


def test_an_upstream_that_exits_without_restart_ends_the_proxy_with_its_status(tmp_path: Path) -> None:
    peer = start(tmp_path)
    assert error_of(peer.exchange(tool(1, "exit")))["code"] == UPSTREAM_CLOSED
    assert peer.process.wait(15) == 3


def test_a_hanging_upstream_is_answered_at_the_timeout_and_cancelled(tmp_path: Path) -> None:
    peer = start(tmp_path, "--timeout", "0.5")
    started = time.monotonic()
    error = error_of(peer.exchange(tool(7, "hang")))
    assert error["code"] == UPSTREAM_TIMEOUT
    assert 0.4 < time.monotonic() - started < 20  # (the hang is forever: 40x the timeout on a loaded machine)
    assert wait_until(lambda: any(b"cancelled 7" in line for line in peer.stderr))
    peer.close()


@pytest.mark.parametrize(("mode", "expected"), [("observe", "unchanged"), ("enforce", REFUSED)])
def test_garbage_from_the_upstream(tmp_path: Path, mode: str, expected: object) -> None:
    peer = start(tmp_path, "--mode", mode)
    peer.send(tool(3, "garbage"))
    if mode == "observe":
        assert peer.recv() == b"this is not json"
        assert peer.recv() == b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"te'
    else:
        error = error_of(peer.recv())  # the noise line is dropped; the truncated frame's id recovered
        assert error["code"] == REFUSED
        assert error["data"]["verdict"]["findings"][0]["code"] == "json.syntax"
    assert json.loads(peer.exchange(tool(4, "echo")) or b"{}")["id"] == 4
    peer.close()


ASK_7 = (b'{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"m",'
         b'"requestedSchema":{"type":"object","properties":{}}}}')


@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_a_server_request_reusing_an_id_in_flight_passes_as_on_a_direct_connection(tmp_path: Path,
                                                                                   mode: str) -> None:
    # JSON-RPC 2.0 s4: an id identifies one request; a server that sends a second request under
    # the id of one the host has not answered breaks that, but it is the host's to answer: both
    # requests reach it as written, and the call's answer after them. Before, the second request
    # raised in the relay (an AssertionError in the upstream's pipe callback): it and every line
    # after it in the same read were lost, and the call got "the upstream exited" at the end. The
    # host declares elicitation (a server request for what it did not declare is refused in enforce).
    peer = start(tmp_path, "--mode", mode, capabilities={"elicitation": {}})
    peer.send(tool(3, "reuse"))
    assert [peer.recv(), peer.recv()] == [ASK_7, ASK_7]
    assert peer.recv() == b'{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":false}}'
    assert json.loads(peer.exchange(tool(4, "echo")) or b"{}")["id"] == 4
    peer.close()


def test_duplicate_keys_never_reach_the_host_as_they_came_in_enforce(tmp_path: Path) -> None:
    peer = start(tmp_path, "--mode", "enforce")
    error = error_of(peer.exchange(tool(5, "dup")))
    assert error["code"] == REFUSED
    assert error["data"]["verdict"]["findings"][0]["code"] == "json.duplicate_key"
    peer.close()


def test_oversized_frames_are_refused_both_ways(tmp_path: Path) -> None:
    peer = start(tmp_path, "--max-frame-bytes", "4096")
    error = error_of(peer.exchange(tool(8, "big", size=100_000)))
    assert error["code"] == TOO_LARGE
    error = error_of(peer.exchange(tool(9, "echo", pad="y" * 10_000)))
    assert error["code"] == TOO_LARGE and error["data"]["limit"] == 4096
    assert json.loads(peer.exchange(tool(10, "echo")) or b"{}")["id"] == 10
    peer.close()
    kinds = [(r.dir, r.kind) for r in read_log((tmp_path / "frames.jsonl").open("rb")) if isinstance(r, FrameRecord)]
    assert kinds.count(("s2c", "refused")) == 1 and kinds.count(("c2s", "refused")) == 1


def test_progress_notifications_pass_in_order_before_the_answer(tmp_path: Path) -> None:
    peer = start(tmp_path)
    message = tool(11, "progress")
    message["params"]["_meta"] = {"progressToken": "p1"}
    peer.send(message)
    frames = [peer.recv() for _ in range(3)]
    assert [json.loads(f or b"{}").get("method") or json.loads(f or b"{}").get("id") for f in frames] == [
        "notifications/progress", "notifications/progress", 11]
    peer.close()


def test_a_host_that_goes_away_cancels_its_calls_upstream(tmp_path: Path) -> None:
    process = subprocess.Popen([*PROXY, "--", *SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdin.write(json.dumps(tool(11, "echo")).encode() + b"\n")
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["id"] == 11  # the proxy is up
    process.stdin.write(json.dumps(tool(12, "hang")).encode() + b"\n")
    process.stdin.flush()
    time.sleep(0.5)
    process.stdout.close()  # the host stops reading: the proxy's next write breaks the pipe
    process.stdin.write(json.dumps(tool(13, "echo")).encode() + b"\n")
    process.stdin.flush()
    try:
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        raise
    assert b"cancelled 12" in err

def test_the_frame_log_accounts_for_every_frame(tmp_path: Path) -> None:
    peer = start(tmp_path, "--mode", "enforce", "--verdicts", str(tmp_path / "verdicts.jsonl"))
    for n in range(20, 30):
        peer.send(tool(n, "dup" if n % 3 == 0 else "echo"))
    answers = [json.loads(peer.recv() or b"{}") for _ in range(10)]
    assert [a["id"] for a in answers] == list(range(20, 30))
    peer.close()
    records = list(read_log((tmp_path / "frames.jsonl").open("rb")))
    assert all(hasattr(r, "kind") for r in records)
    refused = [r for r in records if getattr(r, "kind", "") == "refused"]
    assert len(refused) == 3
    verdicts = [json.loads(line) for line in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    assert [v["kind"] for v in verdicts] == ["unclassified" if n % 3 == 0 else "normal_complete" for n in range(20, 30)]
    assert all("authorization" not in line.lower() for line in (tmp_path / "frames.jsonl").read_text().splitlines())


def test_payloads_are_redacted_by_default(tmp_path: Path) -> None:
    peer = LinePeer([*PROXY, "--log", str(tmp_path / "f.jsonl"), "--", *SERVER])
    peer.exchange(INIT)
    peer.close()
    lines = [json.loads(line) for line in (tmp_path / "f.jsonl").read_text().splitlines()]
    messages = [line for line in lines if line["kind"] == "message"]
    assert messages and all("redacted" in m and "data" not in m for m in messages)


def test_an_oversized_post_is_refused_over_http() -> None:
    from ._peers import HttpHostPeer, proxy_http

    with proxy_http(["--max-frame-bytes", "4096", "--", *SERVER]) as (url, _):
        host = HttpHostPeer(url)
        status, body, _ = host.post(json.dumps(tool(1, "echo", pad="y" * 10_000)).encode())
        assert status == 413 and body is not None and error_of(body)["code"] == TOO_LARGE
        status, body, _ = host.post(b'{"pad":"' + b"y" * 10_000 + b'"}')  # no id to answer
        assert status == 413 and body is None
        host.close()


@pytest.mark.parametrize(("path", "method", "status"), [
    # one endpoint (basic/transports#streamable-http: "a single HTTP endpoint path"); anything
    # else is not found, and nothing of it goes upstream
    ("/mcp/", "POST", 404), ("/other", "POST", 404), ("/", "GET", 404), ("/mcp", "PUT", 405),
])
def test_only_the_endpoint_path_is_served(path: str, method: str, status: int) -> None:
    import httpx2

    from ._peers import HttpHostPeer, proxy_http

    with proxy_http(["--", *SERVER]) as (url, _):
        base = url.rsplit("/", 1)[0]
        answer = httpx2.request(method, base + path, content=json.dumps(tool(1, "echo")).encode(),
                               headers={"Content-Type": "application/json"}, timeout=10)
        assert answer.status_code == status
        host = HttpHostPeer(url)  # the endpoint itself still answers
        status_code, body, _ = host.post(INIT)
        assert status_code == 200 and body is not None and "result" in json.loads(body)
        host.close()


def _demo_target(stack: contextlib.ExitStack, upstream: str) -> list[str]:
    """The proxy's arguments naming the demo server as its upstream: over HTTP (served in
    ``stack``) or as a stdio command."""
    from mcp_verdict.demo import stdio_command

    from ._peers import demo_http

    return ["--upstream", stack.enter_context(demo_http())] if upstream == "http" else ["--", *stdio_command()]


@pytest.mark.parametrize("upstream", ["stdio", "http"])
def test_sigterm_stops_an_http_listening_proxy_with_its_records_complete(tmp_path: Path, upstream: str) -> None:
    # `kill` / a service manager's stop: the proxy exits 0 with every answer it forwarded judged
    # (observe judges after forwarding) and every frame logged, as a host closing stdin does on stdio
    import signal

    from ._peers import HttpHostPeer, call, proxy_http

    log, verdicts = tmp_path / "frames.jsonl", tmp_path / "verdicts.jsonl"
    args = ["--mode", "observe", "--log", str(log), "--log-payloads", "--verdicts", str(verdicts)]
    with contextlib.ExitStack() as stack:
        target = _demo_target(stack, upstream)
        url, process = stack.enter_context(proxy_http([*args, *target]))
        host = HttpHostPeer(url)
        for n in range(1, 11):
            status, body, _ = host.post(call(n, "string_is_error"))  # (an unclassified answer: forwarded in observe)
            assert status == 200 and json.loads(body or b"{}")["id"] == n
        process.send_signal(signal.SIGTERM)  # at once after the last answer: its verdict may not be written yet
        assert process.wait(20) == 0  # stopped, not killed by the signal (-15)
        host.close()
    lines = [json.loads(line) for line in verdicts.read_text().splitlines()]
    assert [(line["id"], line["kind"]) for line in lines] == [(n, "unclassified") for n in range(1, 11)]
    records = [r for r in read_log(log.open("rb")) if isinstance(r, FrameRecord) and r.kind == "message"]
    assert [json.loads(r.data or b"{}")["id"] for r in records if r.dir == "c2s"] == list(range(1, 11))
    assert [json.loads(r.data or b"{}")["id"] for r in records if r.dir == "s2c"] == list(range(1, 11))


@pytest.mark.parametrize("upstream", ["stdio", "http"])
@pytest.mark.parametrize(("seconds", "grace", "expected"), [
    (1.0, 10.0, "answered"),  # answered within the grace: forwarded as it came
    (25.0, 0.5, UPSTREAM_CLOSED),  # still waiting when the grace ends: an error, never a silent close
])
def test_sigterm_gives_the_calls_in_flight_the_grace_then_an_error(upstream: str, seconds: float, grace: float,
                                                                  expected: object) -> None:
    import signal
    import threading

    from ._peers import HttpHostPeer, call, proxy_http

    got: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        target = _demo_target(stack, upstream)
        url, process = stack.enter_context(proxy_http(["--grace", str(grace), *target]))

        def host() -> None:
            peer = HttpHostPeer(url)
            got["answer"] = peer.post(call(7, "slow_write", {"key": "k", "seconds": seconds}))
            peer.close()

        thread = threading.Thread(target=host)
        thread.start()
        time.sleep(0.5)  # the call is in flight
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        thread.join(30)
        assert time.monotonic() - started < grace + 18  # (below the call's own seconds: not waited out)
    status, body, _ = got["answer"]
    answer = json.loads(body)
    assert status == 200 and answer["id"] == 7
    if expected == "answered":
        assert answer["result"]["structuredContent"] == {"key": "k", "execution": 1}
    else:
        assert answer["error"]["code"] == expected and "stopped" in answer["error"]["message"]


@pytest.mark.parametrize("upstream", ["stdio", "http"])
def test_sigterm_stops_a_stdio_proxy_with_status_0_and_an_error_for_the_call_in_flight(upstream: str) -> None:
    import signal

    from ._peers import call

    with contextlib.ExitStack() as stack:
        target = _demo_target(stack, upstream)
        peer = LinePeer([*PROXY, "--grace", "0.5", *target])
        stack.callback(peer.close)
        assert peer.exchange(call(6, "write_count", {"key": "k"})) is not None  # running (its signal handlers set)
        peer.send(call(7, "slow_write", {"key": "k", "seconds": 25.0}))
        time.sleep(0.5)  # in flight
        started = time.monotonic()
        peer.process.send_signal(signal.SIGTERM)
        error = error_of(peer.recv(30))
        assert error["code"] == UPSTREAM_CLOSED and "stopped" in error["message"]
        assert peer.process.wait(30) == 0  # the proxy stopped the upstream: not the upstream's failure
        assert time.monotonic() - started < 20  # (the call would take 25 s: not waited out)


TASKS_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
TERMINAL = (b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","taskId":"t1","status":"completed",'
            b'"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,'
            b'"result":{"resultType":"complete","content":[{"type":"text","text":"boom"}],')


@pytest.mark.parametrize(("mode", "task", "expected"), [
    ("enforce", "dup", (REFUSED, "json.duplicate_key")),
    ("enforce", "ok", TERMINAL + b'"isError":true}}}'),
    ("observe", "dup", TERMINAL + b'"isError":true,"isError":false}}}'),
])
def test_a_terminal_tasks_get_is_judged_on_its_bytes(mode: str, task: str, expected: object) -> None:
    peer = LinePeer([*PROXY, "--mode", mode, "--", *SERVER])
    raw = peer.exchange({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                         "params": {"_meta": TASKS_META, "taskId": task}})
    peer.close()
    if isinstance(expected, tuple):
        error = error_of(raw)
        assert (error["code"], error["data"]["verdict"]["findings"][0]["code"]) == expected
    else:
        assert raw == expected
