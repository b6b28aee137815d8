"""A stdio host's ``notifications/cancelled`` reaches an HTTP upstream after the request it cancels
has been taken (issue #13: nothing reordered; MCP basic/utilities/cancellation: a receiver MAY
ignore a cancellation of a request it does not know, and runs that request to its end).

Each frame is its own POST, maybe on a connection of its own (basic/transports/streamable-http),
and a request's POST is not waited for (its answer may be a long event stream): a cancellation
POSTed at once could reach the server before its request. The proxy holds it until the request's
POST has its response head (the server took the request: on an event stream, at once; on a JSON
answer, only with the whole answer — then the request is over, and the cancellation is not sent,
the frame log saying why: a cancellation names only a request its sender believes in progress,
Behavior Requirements 1), at most ``--timeout`` from its sending; frames after it do not wait for
it (they would wait for a request). A 2025-03-26 batch (one POST) is taken as one: a cancellation
of any of its requests waits for the batch's POST.

``order_http_server.py`` tells the order it took messages in; a ``slow`` call is taken a second
after its POST came, a notification half a second after its own unless another POST comes (a busy
server's pace). The proxy runs as its own process, under uvloop as the CLI runs it and on plain
asyncio.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ._peers import TIMEOUT, LinePeer, script_http, wait_until
from .test_proxy_upstream_order import INIT, INITIALIZED, LOOPS, _answers, _call, _cancel, _lines, _list, _order

INIT_2025_03 = {**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}}  # type: ignore[dict-item]
NO_LONGER = "the proxy no longer awaits the request it cancels: nothing goes to the host for it"
MOOT = ("the host's notification: not sent: the upstream answered the request it cancels (HTTP 200, "
        "application/json) before the request was taken: nothing is in progress to cancel (the host is not told: "
        "stdio)")
NEVER = ("the host's notification: not sent: the request it cancels was never sent (it waited for the upstream to "
         "answer the host's notification or response before it) (the host is not told: stdio)")
TAKEN_BACK = ("not sent upstream: the request it cancels was never sent (it waited for the upstream to answer the "
              "host's notification or response before it); " + NO_LONGER)


def _records(log: Path) -> Iterator[dict[str, Any]]:
    for line in log.read_text().splitlines():
        yield json.loads(line)


def _notes(log: Path) -> list[str]:
    """The notes of the records of what the host sent and of what became of it (in the order
    written; not the end of its stdin)."""
    return [r["note"] for r in _records(log) if r.get("dir") == "c2s" and r["kind"] in ("message", "error")
            and "note" in r]


def _initialized(peer: LinePeer, url: str) -> None:
    """``notifications/initialized`` and a request, which waits for its answer: once the request
    is answered, nothing the host sends next waits for the notification (it would be held, and a
    request cancelled while held is taken back, never sent)."""
    peer.send_raw(_lines(INITIALIZED, _list(1)))
    assert _answers(peer, 1) == {(1, "listed")}


Row = Callable[[LinePeer, str, Path], set[tuple[Any, Any]]]


def _slow(peer: LinePeer, url: str, log: Path) -> set[tuple[Any, Any]]:
    """A call the server takes a second late and its cancellation, in one write; then a request."""
    _initialized(peer, url)
    peer.send_raw(_lines(_call(2, "slow"), _cancel(2)))
    wait_until(lambda: "notifications/cancelled 2" in _order(url), TIMEOUT)
    return _answers_of(peer, _list(3))


def _json(peer: LinePeer, url: str, log: Path) -> set[tuple[Any, Any]]:
    """A call the server answers with JSON (the head comes with the whole answer) and its
    cancellation, in one write; then a request, once the cancellation's fate is written."""
    _initialized(peer, url)
    peer.send_raw(_lines(_call(2, "json"), _cancel(2)))
    wait_until(lambda: MOOT in _notes(log) or "notifications/cancelled 2" in _order(url), TIMEOUT)
    return _answers_of(peer, _list(3))


def _held(peer: LinePeer, url: str, log: Path) -> set[tuple[Any, Any]]:
    """A call the server took but never answers nor opens a stream for (``--timeout 2``); its
    cancellation and a request: the request is not held by the cancellation, which goes once it
    has waited 2 s for the call's head (the call's POST closed)."""
    _initialized(peer, url)
    peer.send_raw(_lines(_call(2, "held")))
    assert wait_until(lambda: "tools/call" in _order(url), TIMEOUT)
    peer.send_raw(_lines(_cancel(2), _list(3)))
    got = _answers(peer, 1)
    wait_until(lambda: "notifications/cancelled 2" in _order(url), TIMEOUT)
    return got


def _answers_of(peer: LinePeer, message: dict[str, Any]) -> set[tuple[Any, Any]]:
    peer.send(message)
    return _answers(peer, 1)


TAKEN = ["initialize", "notifications/initialized", "tools/list"]
# (the host's frames, the order the server took them in, the answers the host got, the notes of the
# host's frames' records in the frame log)
SINGLE: list[tuple[Row, list[str], set[tuple[Any, Any]], list[str], list[str]]] = [
    (_slow, [*TAKEN, "tools/call", "notifications/cancelled 2", "tools/list"], {(3, "listed")}, [NO_LONGER], []),
    (_json, [*TAKEN, "tools/call", "tools/list"], {(3, "listed")}, [NO_LONGER, MOOT], []),
    (_held, [*TAKEN, "tools/call", "tools/list", "notifications/cancelled 2"], {(3, "listed")}, [NO_LONGER],
     ["--timeout", "2"]),
]
MODES = [("observe", "uvloop"), ("enforce", "uvloop"), ("observe", "asyncio")]
ROWS = [(*row, mode, loop) for row in SINGLE for mode, loop in MODES]


@pytest.mark.parametrize(("frames", "taken", "answers", "notes", "options", "mode", "loop"), ROWS,
                         ids=[f"{row[0].__name__[1:]}-{row[5]}-{row[6]}" for row in ROWS])
def test_a_cancellation_reaches_the_http_upstream_after_its_request_was_taken(
        tmp_path: Path, frames: Row, taken: list[str], answers: set[tuple[Any, Any]], notes: list[str],
        options: list[str], mode: str, loop: str) -> None:
    log = tmp_path / "frames.jsonl"
    with script_http("order_http_server.py") as url:
        peer = LinePeer([*LOOPS[loop], "--mode", mode, *options, "--log", str(log), "--upstream", url])
        try:
            assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-11-25"
            got = frames(peer, url, log)
        finally:
            status = peer.close()
        assert (_order(url), got, _notes(log), status) == (taken, answers, notes, 0)


# -- a 2025-03-26 batch, held behind a notification ------------------------------------------------
BATCH = json.dumps([_call(2, "slow"), _call(3, "slow")]).encode() + b"\n"


# (the cancellations sent after the batch, the order the server took them in, the notes)
BATCHES: list[tuple[str, list[int], list[str], list[str]]] = [
    ("the second cancelled", [3], [*TAKEN[:2], "tools/call", "tools/call", "notifications/cancelled 3", "tools/list"],
     [NO_LONGER]),
    ("the first cancelled", [2], [*TAKEN[:2], "tools/call", "tools/call", "notifications/cancelled 2", "tools/list"],
     [NO_LONGER]),
    # (the whole batch taken back before it was sent: neither cancellation is)
    ("both cancelled", [3, 2], TAKEN, [NO_LONGER, TAKEN_BACK, NEVER]),
]
BATCH_ROWS = [(*row, mode, loop) for row in BATCHES for mode, loop in MODES]


@pytest.mark.parametrize(("cancelled", "taken", "notes", "mode", "loop"), [row[1:] for row in BATCH_ROWS],
                         ids=[f"{row[0]}-{row[4]}-{row[5]}" for row in BATCH_ROWS])
def test_a_cancellation_of_a_batchs_request_reaches_the_upstream_after_the_batch(
        tmp_path: Path, cancelled: list[int], taken: list[str], notes: list[str], mode: str, loop: str) -> None:
    """``notifications/initialized``, a batch of two calls and cancellations of its requests, in
    one write: the batch waits for the notification's answer, the cancellations for the batch to
    be taken; then a request, once the last cancellation was taken or its fate written."""
    log = tmp_path / "frames.jsonl"
    with script_http("order_http_server.py") as url:
        peer = LinePeer([*LOOPS[loop], "--mode", mode, "--log", str(log), "--upstream", url])
        try:
            assert json.loads(peer.exchange(INIT_2025_03) or b"{}")["result"]["protocolVersion"] == "2025-03-26"
            peer.send_raw(_lines(INITIALIZED) + BATCH + _lines(*map(_cancel, cancelled)))
            last = f"notifications/cancelled {cancelled[-1]}"
            wait_until(lambda: last in _order(url) or NEVER in _notes(log), TIMEOUT)
            got = _answers_of(peer, _list(4))
        finally:
            status = peer.close()
        assert (_order(url), got, _notes(log), status) == (taken, {(4, "listed")}, notes, 0)
