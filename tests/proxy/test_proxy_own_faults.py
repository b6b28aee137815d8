"""The proxy's own faults where no handler caught them (README, "The proxy", Faults: every frame in
is forwarded, answered with an error, or logged as refused; no call waits past ``--timeout``).

Each fault is simulated in the proxy's own process by a prelude run before it (a piece of the
proxy or of its HTTP library made to raise, as a bug there would), with real peers: the demo
server over stdio or HTTP, ``order_http_server.py``. What each must come to: one neutral stderr
line, a frame-log record, and the host's calls answered (a documented error code, or their
answers) in bounded time; the pipes and the proxy go on. Before, an exception out of an asyncio
protocol's callback closed its pipe (stdin taken for the host's end, the upstream's stdout for
its exit: calls lost or answered UPSTREAM_CLOSED as if the server had exited), and one out of a
task's coroutine ended it unseen (a "Task exception was never retrieved" traceback at best).
"""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.demo import stdio_command
from mcp_verdict.proxy import UPSTREAM_CLOSED, UPSTREAM_TIMEOUT, UPSTREAM_UNAVAILABLE
from tests.processes import port_server

from ._peers import TIMEOUT, HttpHostPeer, LinePeer, call, demo_http, proxy_after, script_http, wait_until
from ._restarting import EXIT, LATE, frame_records, initialise
from ._restarting import SERVER as RESTARTING
from .test_proxy_faults import INIT as FAULT_INIT
from .test_proxy_faults import SERVER as FAULTING
from .test_proxy_faults import tool
from .test_proxy_http_host_hostile import _proxy
from .test_proxy_listen_stream import CALL, _stream_records
from .test_proxy_listen_stream import INITIALIZE as LISTEN_INIT
from .test_proxy_listen_stream import SERVER as LISTENING
from .test_proxy_upstream_order import INIT, INITIALIZED, _answers, _call, _cancel, _lines, _list, _order


def _raising(where: str, method: str, test: str) -> str:
    """A prelude: ``where``'s ``method`` raises ``RuntimeError('broken')`` when ``test`` (an
    expression of ``data``, the frame, and ``caller``, the calling function's name) holds; else
    it runs as it is."""
    module, _, cls = where.rpartition(".")
    return (f"import sys\nfrom {module} import {cls}\n"
            f"_kept = {cls}.{method}\n"
            "def _broken(self, data, *args, **kwargs):\n"
            "    caller = sys._getframe(1).f_code.co_name\n"
            f"    if {test}:\n"
            "        raise RuntimeError('broken')\n"
            "    return _kept(self, data, *args, **kwargs)\n"
            f"{cls}.{method} = _broken\n")


BOOM = "isinstance(data, bytes) and b'boom' in data"
INITIALIZE_2025 = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "proxy-tests", "version": "0"}}}
"""The frames the simulated fault meets: the host's call and the server's answer that hold ``boom``."""


def _outcome(raw: bytes) -> tuple[Any, Any]:
    """(an answer's id, its echoed text or its error's code)."""
    answer = json.loads(raw)
    return answer["id"], answer["error"]["code"] if "error" in answer else answer["result"]["structuredContent"]["text"]


def _outcomes(peer: LinePeer, count: int) -> list[tuple[Any, Any]]:
    """The answers the host gets, sorted, once it has ``count`` of them (or its stdout ended, or
    the hang guard passed)."""
    got = []
    for raw in peer.lines_within(TIMEOUT):
        got.append(_outcome(raw))
        if len(got) >= count:
            break
    return sorted(got, key=repr)


def _errors(log: Path) -> list[str]:
    return [r["note"] for r in frame_records(log) if r["kind"] == "error"]


HOST = "the proxy failed relaying the host's frame: RuntimeError: broken"
UPSTREAM = "the proxy failed relaying the upstream's frame: RuntimeError: broken"
# (the prelude, --mode; the answers the host gets, the frame log's error notes, the stderr line)
CALLBACK_CASES = [
    # the host's call meets the fault as the proxy reads it (stdin's callback): answered -31004
    # under its id, and the host's next call relayed. Was: stdin closed (noted "the host closed
    # stdin"), calls 2 and 3 never answered, the proxy ended once call 1 was answered
    (_raising("mcp_verdict.proxy._bridge.Bridge", "from_host", BOOM), "observe",
     [(1, "x"), (2, UPSTREAM_UNAVAILABLE), (3, "after")], [HOST + " (answered UPSTREAM_UNAVAILABLE)"], HOST),
    # the server's answer meets it after the host was sent it (the upstream's stdout callback):
    # no longer awaited, the pipe kept. Was: the upstream's stdout closed, the server exited, the
    # calls answered UPSTREAM_CLOSED "the upstream exited (status 0)" (call 2 twice: its answer,
    # then -31001), the proxy ended (call 3 lost, or answered -31001 too)
    (_raising("mcp_verdict.proxy._relay.Relay", "from_upstream", BOOM), "observe",
     [(1, "x"), (2, "boom"), (3, "after")], [UPSTREAM + " (the host has it: no longer awaited)"], UPSTREAM),
    (_raising("mcp_verdict.proxy._relay.Relay", "from_upstream", BOOM), "enforce",
     [(1, "x"), (2, "boom"), (3, "after")], [UPSTREAM + " (the host has it: no longer awaited)"], UPSTREAM),
    # ...before the host was sent it (enforce, as its verdict is made): call 2 answered -31004
    (_raising("mcp_verdict.proxy._relay.Relay", "passes_early", BOOM), "enforce",
     [(1, "x"), (2, UPSTREAM_UNAVAILABLE), (3, "after")], [UPSTREAM + " (answered UPSTREAM_UNAVAILABLE)"], UPSTREAM),
]


def _three_calls(peer: LinePeer) -> tuple[list[tuple[Any, Any]], int | None]:
    """A call in flight (``slow_echo``, 1 s), the call that meets the fault ("boom"), and one after
    it, sent through ``peer``: (their outcomes, the proxy's status once closed)."""
    try:
        peer.send(call(1, "slow_echo", {"text": "x", "seconds": 1}))
        peer.send(call(2, "slow_echo", {"text": "boom", "seconds": 0}))
        peer.send(call(3, "slow_echo", {"text": "after", "seconds": 0}))
        return _outcomes(peer, 3), peer.close()
    except BaseException:
        peer.close()
        raise


@pytest.mark.parametrize(("prelude", "mode", "answers", "errors", "line"), CALLBACK_CASES,
                         ids=["host-frame", "upstream-answer-sent-observe", "upstream-answer-sent-enforce",
                              "upstream-answer-unsent"])
def test_a_fault_in_a_pipes_callback_answers_the_call_and_keeps_the_pipe(
        tmp_path: Path, prelude: str, mode: str, answers: list[tuple[Any, Any]], errors: list[str],
        line: str) -> None:
    """stdio → stdio (the demo server): a call in flight (``slow_echo``, 1 s), the call that meets
    the fault, and one after it."""
    log = tmp_path / "frames.jsonl"
    peer = LinePeer([*proxy_after(prelude), "--mode", mode, "--timeout", "120", "--log", str(log), "--",
                     *stdio_command()])
    got, status = _three_calls(peer)
    assert (got, _errors(log), status) == (answers, errors, 0)
    assert peer.stderr == [f"mcp-verdict proxy: {line}\n".encode()]


def test_a_fault_as_the_calls_past_timeout_are_answered_answers_them(tmp_path: Path) -> None:
    """stdio → stdio: a call the demo server answers in 30 s, ``--timeout 2``; the timer that
    answers it at its deadline meets a fault: it is said, and the call answered UPSTREAM_TIMEOUT
    with the fault as its reason. Was: an exception out of the timer's callback (a traceback), no
    timer armed again: the call waited past ``--timeout`` (no answer within the hang guard)."""
    log = tmp_path / "frames.jsonl"
    prelude = ("from mcp_verdict.proxy._relay import Relay\n"
               "def _broken(self, now=None):\n"
               "    raise RuntimeError('broken')\n"
               "Relay.expire = _broken\n")
    reason = "the proxy failed answering the calls past --timeout: RuntimeError: broken"
    peer = LinePeer([*proxy_after(prelude), "--timeout", "2", "--grace", "1", "--log", str(log), "--",
                     *stdio_command()])
    try:
        raw = peer.exchange(call(1, "slow_echo", {"text": "x", "seconds": 30}))
    finally:
        status = peer.close()
    error = json.loads(raw or b"null")["error"] if raw else {}
    assert (_outcome(raw) if raw else None, error.get("message"), status) == (
        (1, UPSTREAM_TIMEOUT), f"mcp-verdict proxy: {reason}", 0)
    assert _errors(log) == [reason]
    assert peer.stderr == [f"mcp-verdict proxy: {reason}\n".encode()]


EXIT_LINE = "the proxy failed taking in the upstream's exit: RuntimeError: broken"


def test_a_fault_as_the_upstreams_exit_is_taken_in_answers_the_calls_and_ends_the_proxy(tmp_path: Path) -> None:
    """stdio → stdio: the demo server exits (``hang_up``) with a call in flight, and the proxy's
    task that takes the exit in meets a fault: the calls get UPSTREAM_CLOSED with its reason, it
    is said, and the proxy ends as when no restart is left. Was: the task died (a traceback), no
    call answered within the hang guard (``--timeout 120``), the proxy never ended."""
    log = tmp_path / "frames.jsonl"
    prelude = ("from mcp_verdict.proxy._stdio import StdioUpstream\n"
               "def _broken(self, **kwargs):\n"
               "    raise RuntimeError('broken')\n"
               "StdioUpstream._restarts_after = _broken\n")
    peer = LinePeer([*proxy_after(prelude), "--timeout", "120", "--log", str(log), "--", *stdio_command()])
    try:
        peer.send(call(1, "slow_echo", {"text": "x", "seconds": 5}))
        peer.send(call(2, "hang_up"))
        got = _outcomes(peer, 2)
        ended = wait_until(lambda: peer.process.poll() is not None, TIMEOUT)
    finally:
        status = peer.close()
    assert (got, ended, status) == ([(1, UPSTREAM_CLOSED), (2, UPSTREAM_CLOSED)], True, 0)
    assert _errors(log) == [EXIT_LINE + ": no restart"]
    assert [line for line in peer.stderr if b"mcp-verdict proxy" in line or b"Traceback" in line] == [
        f"mcp-verdict proxy: {EXIT_LINE}\n".encode()]


@contextlib.contextmanager
def _http_host(log: Path, err: Path, prelude: str) -> Iterator[HttpHostPeer]:
    """An HTTP host's peer of the proxy (started after ``prelude``, its frame log ``log``, its
    stderr ``err``) in front of the demo server over HTTP."""
    with contextlib.ExitStack() as stack:
        upstream = stack.enter_context(demo_http())
        url = stack.enter_context(_proxy(["--log", str(log), "--upstream", upstream], err, proxy_after(prelude)))
        host = HttpHostPeer(url)
        stack.callback(host.close)
        yield host


def test_a_fault_as_an_http_hosts_relay_is_closed_is_said(tmp_path: Path) -> None:
    """HTTP → HTTP (the demo server): a 2025 initialize with no session from the upstream, its
    relay closed once answered; a fault as the proxy closes it is said on stderr and in the frame
    log, its other steps still run. Was: the closing task died (a traceback, "Task exception was
    never retrieved"), nothing in the frame log."""
    err, log = tmp_path / "err", tmp_path / "frames.jsonl"
    prelude = ("from mcp_verdict.proxy._http_upstream import HttpUpstream\n"
               "async def _broken(self, timeout):\n"
               "    raise RuntimeError('broken')\n"
               "HttpUpstream.settle = _broken\n")
    reason = "the proxy failed closing a relay: RuntimeError: broken"
    with _http_host(log, err, prelude) as host:
        status, raw, _ = host.post(INITIALIZE_2025)
        said = wait_until(lambda: reason in _errors(log), TIMEOUT)
        answered = host.post(call(2, "slow_echo", {"text": "after", "seconds": 0}))
    assert (status, json.loads(raw or b"null")["id"], said) == (200, 1, True)
    assert (answered[0], _outcome(answered[1] or b"null")) == (200, (2, "after"))
    assert err.read_bytes().split(b"\n")[1:] == [f"mcp-verdict proxy: {reason}".encode(), b""]  # (the stateless
    # relay of call 2 is kept)


def test_a_fault_as_a_cancellation_follows_its_request_is_said(tmp_path: Path) -> None:
    """stdio → HTTP (``order_http_server.py``, a 2025-11-25 session): a call the server takes a
    second late and its cancellation, which waits for the call to be taken; a fault on the way is
    said on stderr and in the frame log (the cancellation not sent), and the host's next request
    answered. Was: the task died (a traceback), the cancellation lost with nothing said."""
    log = tmp_path / "frames.jsonl"
    prelude = _raising("mcp_verdict.proxy._bridge.Bridge", "batch_of", "caller == '_cancel_taken'")
    reason = "the proxy failed sending it upstream: RuntimeError: broken"
    with script_http("order_http_server.py") as url:
        peer = LinePeer([*proxy_after(prelude), "--log", str(log), "--upstream", url])
        try:
            assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
            peer.send_raw(_lines(INITIALIZED, _list(1)))
            assert _answers(peer, 1) == {(1, "listed")}
            peer.send_raw(_lines(_call(2, "slow"), _cancel(2)))
            said = wait_until(lambda: any(reason in note for note in _errors(log)), TIMEOUT)
            peer.send(_list(3))
            after = _answers(peer, 1)
            taken = _order(url)
        finally:
            status = peer.close()
    assert (said, after, taken, status) == (
        True, {(3, "listed")}, ["initialize", "notifications/initialized", "tools/list", "tools/call", "tools/list"], 0)
    assert [note for note in _errors(log) if "RuntimeError" in note] == [
        f"the host's notification: {reason} (the host is not told: stdio)"]
    assert peer.stderr == [f"mcp-verdict proxy: the host's frame: {reason}\n".encode()]


def test_a_fault_as_a_request_waits_behind_a_notification_answers_it() -> None:
    """stdio → HTTP (the demo server, a 2025-06-18 session): ``notifications/initialized`` and a
    call in one write, the call's POST waiting for the notification's answer (the host's order);
    a fault as it stops waiting answers the call at once with UPSTREAM_UNAVAILABLE, said on
    stderr. Was: the task died (a traceback), the call never sent nor answered within the hang
    guard (it would have been at ``--timeout``, 120 s)."""
    prelude = ("import sys\nimport mcp_verdict.proxy._http_upstream as up\n"
               "_kept = up._lapsed\n"
               "def _broken(ahead):\n"
               "    if sys._getframe(1).f_code.co_name == '_post_behind':\n"
               "        raise RuntimeError('broken')\n"
               "    return _kept(ahead)\n"
               "up._lapsed = _broken\n")
    slow = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "slow_echo", "arguments": {"text": "x", "seconds": 0}}}
    reason = "the proxy failed sending the request upstream: RuntimeError: broken"
    with demo_http() as url:
        peer = LinePeer([*proxy_after(prelude), "--timeout", "120", "--upstream", url])
        try:
            assert json.loads(peer.exchange(INITIALIZE_2025) or b"null")["id"] == 1
            peer.send_raw(_lines(INITIALIZED, slow))
            raw = peer.recv()
        finally:
            status = peer.close()
    answer = json.loads(raw or b"null")
    assert (answer and answer["id"], answer and answer["error"]["message"], status) == (
        2, f"mcp-verdict proxy: {reason}", 0)
    assert peer.stderr == [f"mcp-verdict proxy: {reason}\n".encode()]


def test_a_fault_as_the_silent_upstream_is_stopped_kills_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """stdio → stdio (``restart_server.py hang``, ``--max-restarts 1``): the restarted process is
    silent to its replayed ``initialize`` past ``--timeout`` and is stopped; its stdin closed, it
    outlives ``--grace``, and the signal meets a fault. It is said, the process killed, and the
    proxy ends as when a stop leaves no restart (status 1, FORCED_EXIT). Was: the stopping task
    died (a traceback), the process was kept, and the proxy did not end within the hang guard."""
    log = tmp_path / "frames.jsonl"
    monkeypatch.setenv("RESTART_DIR", str(tmp_path))
    prelude = ("import mcp_verdict.proxy._stdio as stdio\n"
               "def _broken(*args, **kwargs):\n"
               "    raise RuntimeError('broken')\n"
               "stdio.signal_group = _broken\n")
    reason = "the proxy failed stopping the silent upstream: RuntimeError: broken"
    peer = LinePeer([*proxy_after(prelude), "--restart", "on-failure", "--max-restarts", "1", "--timeout", "3",
                     "--grace", "1", "--log", str(log), "--", *RESTARTING, "hang"])
    try:
        initialise(peer)
        assert json.loads(peer.exchange(EXIT) or b"null")["error"]["code"] == UPSTREAM_CLOSED
        ended = wait_until(lambda: peer.process.poll() is not None, TIMEOUT)
    finally:
        (tmp_path / "exit").touch()  # (the silent process may exit)
        status = peer.close()
    assert (ended, status) == (True, 1)
    assert _errors(log) == [LATE + ": stopping it (no restart left)", reason + ": killing it"]
    assert [line for line in peer.stderr if b"mcp-verdict proxy" in line or b"Traceback" in line] == [
        f"mcp-verdict proxy: {reason}\n".encode()]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_fault_as_an_upstreams_leftover_is_ended_lets_its_stdout_go(tmp_path: Path) -> None:
    """stdio → stdio: ``fault_server.py`` started by a shell that first starts a helper ignoring
    SIGTERM, which holds the server's stdout (test_proxy_upstream_group); the server exits
    mid-call, and ending the helper meets a fault. It is said, the server's stdout let go of, and
    the call answered UPSTREAM_CLOSED at once. Was: the task died (a traceback), the exit went
    unseen while the helper held the pipe: no answer within the hang guard (``--timeout 60``).
    The stop at the proxy's end meets the fault again, said again."""
    prelude = ("import mcp_verdict.proxy._stdio as stdio\n"
               "async def _broken(*args, **kwargs):\n"
               "    raise RuntimeError('broken')\n"
               "stdio.group_ended = _broken\n")
    assert _exit_beside_a_helper(tmp_path, prelude) == (
        (1, UPSTREAM_CLOSED), True, 3, [LET_GO] * 2, [LEFT_SAID] * 2)  # (the server's own status: it is gone for good)


LEFT = "the proxy failed ending what the upstream left running: RuntimeError: broken"
LET_GO = f"{LEFT}: its stdout let go of"
LEFT_SAID = f"mcp-verdict proxy: {LEFT}\n".encode()


def _exit_beside_a_helper(tmp_path: Path, prelude: str) -> tuple[object, bool, int | None, list[str], list[bytes]]:
    """The faulting server exits mid-call (tool ``exit``) behind a shell whose helper ignores
    SIGTERM and holds its stdout, the proxy started after ``prelude``: (the call's outcome,
    whether the proxy ended by itself, its status, the frame log's error notes, its stderr lines
    of faults and tracebacks)."""
    log = tmp_path / "frames.jsonl"
    pid_file = tmp_path / "helper.pid"
    shell = f"trap '' TERM; sleep 300 & echo $! > {shlex.quote(str(pid_file))}; exec {shlex.join(FAULTING)}"
    peer = LinePeer([*proxy_after(prelude), "--timeout", "60", "--log", str(log), "--", "sh", "-c", shell],
                    env={"FAULT_STARTS": str(tmp_path / "starts")})
    try:
        assert json.loads(peer.exchange(FAULT_INIT) or b"{}")["result"]["protocolVersion"] == "2025-06-18"
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        raw = peer.exchange(tool(1, "exit"))
        ended = wait_until(lambda: peer.process.poll() is not None, TIMEOUT)  # (no restart: the proxy ends)
    finally:
        status = peer.close()
        subprocess.run(["kill", "-9", pid_file.read_text().strip()], check=False)  # (the helper: SIGKILL never came)
    said = [line for line in peer.stderr if b"mcp-verdict proxy" in line or b"Traceback" in line]
    return (_outcome(raw) if raw else None, ended, status, _errors(log), said)


JUDGING = "the proxy failed judging the upstream's answer: RuntimeError: broken"


def test_a_fault_as_an_answer_is_judged_is_said_and_the_others_judged(tmp_path: Path) -> None:
    """stdio → stdio (the demo server), observe, ``--verdicts``: the answer to call 2 meets a fault
    as it is judged, after the host was sent it. It is said (one stderr line, the frame log), and
    the other calls' verdict lines are written. Was: the fault left the judging (a traceback on
    stderr, "judging an answer the host was sent failed"), the call's verdict lost with nothing in
    the frame log."""
    log, verdicts = tmp_path / "frames.jsonl", tmp_path / "verdicts.jsonl"
    prelude = ("from mcp_verdict.proxy._relay import Relay\n"
               "_kept = Relay._observe\n"
               "def _broken(self, exchange, waiting, data, judged=None):\n"
               "    if b'boom' in data:\n"
               "        raise RuntimeError('broken')\n"
               "    return _kept(self, exchange, waiting, data, judged)\n"
               "Relay._observe = _broken\n")
    peer = LinePeer([*proxy_after(prelude), "--mode", "observe", "--timeout", "120", "--log", str(log),
                     "--verdicts", str(verdicts), "--", *stdio_command()])
    got, status = _three_calls(peer)
    judged = sorted((line["id"], line["kind"]) for line in map(json.loads, verdicts.read_text().splitlines()))
    assert (got, judged, status) == (
        [(1, "x"), (2, "boom"), (3, "after")], [(1, "normal_complete"), (3, "normal_complete")], 0)
    assert _errors(log) == [JUDGING + " (the answer forwarded, no verdict written)"]
    assert peer.stderr == [f"mcp-verdict proxy: {JUDGING}\n".encode()]


def _closing_broken(caller: str) -> str:
    """A prelude: the line splitter's ``close`` (the last line, at a pipe's end) raises
    ``RuntimeError('broken')`` when called by ``caller``."""
    return ("import sys\nfrom mcp_verdict.proxy._stdio import LineSplitter\n"
            "_kept = LineSplitter.close\n"
            "def _broken(self):\n"
            f"    if sys._getframe(1).f_code.co_name == {caller!r}:\n"
            "        raise RuntimeError('broken')\n"
            "    return _kept(self)\n"
            "LineSplitter.close = _broken\n")


LAST_HOST = "the proxy failed reading the host's last line: RuntimeError: broken"
LAST_UPSTREAM = "the proxy failed reading the upstream's last line: RuntimeError: broken"
# (the splitter's caller that meets the fault; what the host does after call 1; the answers; the
# frame log's error and eof notes; the stderr line)
PIPE_END_CASES = [
    # the host closes stdin: the proxy answers call 1 and ends. Was: the end went untaken (a
    # traceback out of stdin's connection_lost), the proxy never ended (killed by the test)
    ("connection_lost", "close", [(1, "x")],
     [LAST_HOST, "the host closed stdin", "the upstream closed stdout (exit status 0)"], LAST_HOST),
    # the server exits (hang_up) with call 1 in flight: both calls answered UPSTREAM_CLOSED at once,
    # the proxy ends. Was: the exit went untaken (a traceback out of the stdout pipe's
    # connection_lost): both calls answered UPSTREAM_TIMEOUT at --timeout, the proxy never ended
    ("pipe_connection_lost", "hang_up", [(1, UPSTREAM_CLOSED), (2, UPSTREAM_CLOSED)],
     [LAST_UPSTREAM, "the upstream closed stdout (exit status 0)"], LAST_UPSTREAM),
]


@pytest.mark.parametrize(("caller", "then", "answers", "notes", "line"), PIPE_END_CASES,
                         ids=["stdin", "upstream-stdout"])
def test_a_fault_at_a_pipes_end_still_takes_the_end_in(
        tmp_path: Path, caller: str, then: str, answers: list[tuple[Any, Any]], notes: list[str], line: str) -> None:
    """stdio → stdio (the demo server), ``--timeout 60``: call 1 in flight, then the host's stdin
    or the server's stdout ends, and the last line (none here) meets a fault as it is read. It is
    said (stderr, the frame log) and the pipe's end taken in: the calls answered, the proxy ends."""
    log = tmp_path / "frames.jsonl"
    peer = LinePeer([*proxy_after(_closing_broken(caller)), "--timeout", "60", "--log", str(log), "--",
                     *stdio_command()])
    try:
        peer.send(call(1, "slow_echo", {"text": "x", "seconds": 1}))
        if then == "close":
            assert peer.process.stdin is not None
            peer.process.stdin.close()
        else:
            peer.send(call(2, "hang_up"))
        got = _outcomes(peer, len(answers))
        ended = wait_until(lambda: peer.process.poll() is not None, TIMEOUT)
    finally:
        status = peer.close()
    assert (got, ended, status) == (answers, True, 0)
    assert [r["note"] for r in frame_records(log) if r["kind"] in ("error", "eof")] == notes
    assert [each for each in peer.stderr if b"mcp-verdict proxy" in each or b"Traceback" in each] == [
        f"mcp-verdict proxy: {line}\n".encode()]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_fault_as_the_upstreams_exit_is_seen_lets_its_stdout_go(tmp_path: Path) -> None:
    """stdio → stdio, ``--timeout 60``: ``fault_server.py`` started by a shell that first starts a
    helper ignoring SIGTERM, which holds the server's stdout; the server exits mid-call, and the
    proxy's look for what it left running (in the process's exit callback) meets a fault. It is
    said as a fault in ending the leftovers is, the server's stdout let go of, and the call
    answered UPSTREAM_CLOSED at once. Was: a traceback out of the callback, the exit unseen while
    the helper held the pipe: the call answered UPSTREAM_TIMEOUT at ``--timeout``, the proxy never
    ended (not within the hang guard)."""
    prelude = ("import sys\nimport mcp_verdict.proxy._stdio as stdio\n"
               "_kept = stdio.group_alive\n"
               "def _broken(pid):\n"
               "    if sys._getframe(1).f_code.co_name == '_end_leftovers':\n"
               "        raise RuntimeError('broken')\n"
               "    return _kept(pid)\n"
               "stdio.group_alive = _broken\n")
    assert _exit_beside_a_helper(tmp_path, prelude) == ((1, UPSTREAM_CLOSED), True, 3, [LET_GO], [LEFT_SAID])


def test_a_fault_as_a_notifications_http_answer_is_read_answers_the_post(tmp_path: Path) -> None:
    """HTTP → HTTP (the demo server, a 2025-06-18 session): the host's ``notifications/initialized``
    is posted upstream, and the proxy meets a fault as it reads the server's answer to it. The
    host's POST is answered 502 with UPSTREAM_UNAVAILABLE and the fault as its reason, said on
    stderr and in the frame log; the next call relayed. Was: the fault left the delivery's task,
    the host's POST got aiohttp's bare 500, nothing in the frame log."""
    err, log = tmp_path / "err", tmp_path / "frames.jsonl"
    prelude = ("import sys\nimport mcp_verdict.proxy._http_upstream as up\n"
               "_kept = up.given\n"
               "def _broken(*args, **kwargs):\n"
               "    if sys._getframe(1).f_code.co_name == '_deliver':\n"
               "        raise RuntimeError('broken')\n"
               "    return _kept(*args, **kwargs)\n"
               "up.given = _broken\n")
    reason = "the proxy failed sending it upstream: RuntimeError: broken"
    with _http_host(log, err, prelude) as host:
        assert host.post(INITIALIZE_2025)[0] == 200
        status, raw, _ = host.post(INITIALIZED)
        answered = host.post(call(2, "slow_echo", {"text": "after", "seconds": 0}))
    error = json.loads(raw) if raw and raw.startswith(b"{") else None  # (aiohttp's 500: plain text)
    assert (status, error and error["error"]["code"], error and error["error"]["data"]["reason"]) == (
        502, UPSTREAM_UNAVAILABLE, reason)
    assert (answered[0], _outcome(answered[1] or b"null")) == (200, (2, "after"))
    assert _errors(log) == [f"the host's notification: {reason} (answered HTTP 502)"]
    assert err.read_bytes().split(b"\n")[1:] == [f"mcp-verdict proxy: the host's frame: {reason}".encode(), b""]


def test_a_fault_as_the_get_stream_is_reopened_is_said_and_it_reopens(tmp_path: Path) -> None:
    """stdio → HTTP (``listen_http_server.py end``, a 2025-06-18 session): the server's GET stream
    sends ``one`` and ends; the proxy meets a fault as it notes the end (the stream's Last-Event-ID
    shown). It is said (stderr, the frame log) and the stream opened again after the backoff: the
    server's ``two`` reaches the host, and the call's answer (which the server holds until the second
    GET). Was: the stream's task died unseen (nothing said, nothing in the frame log), never
    reopened: ``two`` lost, the call answered only once the server stopped holding it (20 s)."""
    log = tmp_path / "frames.jsonl"
    prelude = ("import sys\nimport mcp_verdict.proxy._http_upstream as up\n"
               "_kept = up.neutral\n"
               "def _broken(*args, **kwargs):\n"
               "    if sys._getframe(1).f_code.co_name == '_listen':\n"
               "        raise RuntimeError('broken')\n"
               "    return _kept(*args, **kwargs)\n"
               "up.neutral = _broken\n")
    reason = "the proxy's GET stream: the proxy failed keeping it open: RuntimeError: broken"
    with port_server([*LISTENING, "end"]) as base:
        peer = LinePeer([*proxy_after(prelude), "--timeout", "10", "--log", str(log), "--upstream", base + "/mcp"])
        try:
            assert json.loads(peer.exchange(LISTEN_INIT) or b"null")["id"] == 1
            peer.send(INITIALIZED)
            peer.send(CALL)
            got = []
            for raw in peer.lines_within(TIMEOUT):
                message = json.loads(raw)
                got.append(message["params"]["data"] if "method" in message else f"answer {message.get('id')}")
                if len(got) >= 3:
                    break
        finally:
            status = peer.close()
    assert (got, status) == (["one", "two", "answer 2"], 0)
    assert _stream_records(log)[:1] == [("error", "http", f"{reason}; reopened in 0.25 s")]
    assert peer.stderr == [f"mcp-verdict proxy: {reason}\n".encode()]


def test_a_fault_as_a_listings_tools_are_kept_is_said(tmp_path: Path) -> None:
    """stdio → stdio (the demo server), observe, ``--verdicts``: the ``tools/list`` answer is
    forwarded and its tools meet a fault as they are kept. It is said (stderr, the frame log:
    no tool kept), and the next call is relayed and judged. Was: a traceback on stderr ("judging
    an answer the host was sent failed"), nothing in the frame log."""
    log, verdicts = tmp_path / "frames.jsonl", tmp_path / "verdicts.jsonl"
    prelude = ("from mcp_verdict.proxy._relay import Relay\n"
               "def _broken(self, exchange):\n"
               "    raise RuntimeError('broken')\n"
               "Relay._keep = _broken\n")
    reason = "the proxy failed keeping the listed tools: RuntimeError: broken"
    peer = LinePeer([*proxy_after(prelude), "--timeout", "120", "--log", str(log), "--verdicts", str(verdicts),
                     "--", *stdio_command()])
    try:
        assert json.loads(peer.exchange(INITIALIZE_2025) or b"null")["id"] == 1
        peer.send(INITIALIZED)
        listed = json.loads(peer.exchange({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) or b"null")
        raw = peer.exchange(call(3, "slow_echo", {"text": "a", "seconds": 0}))
    finally:
        status = peer.close()
    judged = [(line["id"], line["kind"]) for line in map(json.loads, verdicts.read_text().splitlines())]
    assert (listed["id"], _outcome(raw or b"null"), judged, status) == (2, (3, "a"), [(3, "normal_complete")], 0)
    assert _errors(log) == [f"{reason} (the listing forwarded, no tool kept)"]
    assert peer.stderr == [f"mcp-verdict proxy: {reason}\n".encode()]
