"""observe: a host request that gives its id twice with two values (RFC 8259 s4: member names
SHOULD be unique; ``proxy._twice``) is awaited under the last and answered under either (a server
whose parser keeps the first answers under the first: README, "The proxy"). Once the proxy stops
awaiting it — no answer within ``--timeout``, the host gone, the proxy stopping, the host's stream
closed — (MCP basic/utilities/cancellation):

- its cancellation names the last id, and the first too, in a second ``notifications/cancelled``,
  unless another request waits under the first (a server knows the request by one of the two and
  ignores a cancellation of an id it does not know, Error Handling; the proxy cannot tell which);
- a late answer under either id is refused as late (the host already has its -31002, or went
  away): it named the last only, and a late answer under the first reached the host as a frame
  answering nothing — one whose request the host may have given that first id since.

Relay rows (the sans-I/O core: ids and frames in, frames out), a clock of the test's own.
Expected values are written by hand.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.proxy import Relay

from ._peers import TIMEOUT, LinePeer, wait_until
from .test_proxy_upstream_order import LOOPS

TWICE = b'{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}'
"""A host's ping giving its id twice: awaited under 4, answered under 3 or 4."""
OTHER = b'{"jsonrpc":"2.0","id":3,"method":"ping"}'
"""Another host request, under the first of those ids."""


def _answer(request_id: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{}}' % request_id


def _shown(outs: list[Any]) -> list[tuple[str, Any]]:
    """Each frame out as (where, what): an error's (id, code), a cancellation's requestId, an
    answer's id."""
    shown: list[tuple[str, Any]] = []
    for out in outs:
        message = json.loads(out.data)
        if message.get("method") == "notifications/cancelled":
            shown.append((out.to, ("cancelled", message["params"]["requestId"])))
        elif "error" in message:
            shown.append((out.to, (message["id"], message["error"]["code"])))
        else:
            shown.append((out.to, ("answer", message["id"])))
    return shown


def _timeout(relay: Relay, now: list[float]) -> list[Any]:
    now[0] = 10.0
    return relay.expire()


def _host_lost(relay: Relay, now: list[float]) -> list[Any]:
    return relay.host_lost()


def _stopping(relay: Relay, now: list[float]) -> list[Any]:
    return relay.stopping("the proxy is stopping")


def _stream_closed(relay: Relay, now: list[float]) -> list[Any]:
    return relay.cancel(("int", 4), "its host closed the stream")


def _host_cancelled(relay: Relay, now: list[float]) -> list[Any]:
    """The host's own cancellation (it goes upstream as the host wrote it: the relay sends none)."""
    return relay.cancel(("int", 4), "its host cancelled it", notify=False)


GiveUp = Callable[[Relay, list[float]], list[Any]]
# (how the proxy stops awaiting it, what it sends then, what becomes of a late answer under 3 and under 4)
ROWS: list[tuple[GiveUp, list[tuple[str, Any]], list[tuple[str, Any]], list[tuple[str, Any]]]] = [
    (_timeout, [("host", (4, -31002)), ("upstream", ("cancelled", 4)), ("upstream", ("cancelled", 3))], [], []),
    (_host_lost, [("upstream", ("cancelled", 4)), ("upstream", ("cancelled", 3))], [], []),
    (_stopping, [("host", (4, -31001)), ("upstream", ("cancelled", 4)), ("upstream", ("cancelled", 3))], [], []),
    (_stream_closed, [("upstream", ("cancelled", 4)), ("upstream", ("cancelled", 3))], [], []),
    (_host_cancelled, [], [], []),
]


@pytest.mark.parametrize(("give_up", "sent", "late_first", "late_last"), ROWS,
                         ids=[row[0].__name__[1:] for row in ROWS])
def test_a_request_giving_its_id_twice_given_up(give_up: GiveUp, sent: list[tuple[str, Any]],
                                               late_first: list[tuple[str, Any]],
                                               late_last: list[tuple[str, Any]]) -> None:
    now = [0.0]
    relay = Relay(mode="observe", timeout=1.0, clock=lambda: now[0])
    assert [o.to for o in relay.from_host(TWICE)] == ["upstream"]
    assert relay.is_waiting(("int", 4))
    assert _shown(give_up(relay, now)) == sent
    assert (_shown(relay.from_upstream(_answer(3))), _shown(relay.from_upstream(_answer(4)))) == (late_first, late_last)
    assert relay.stats.refused == 2


def test_a_first_id_another_request_waits_under_is_left_to_it() -> None:
    """The request giving 3 and 4 times out while another, sent after it, waits under 3: its
    cancellation names 4 only, and the answer under 3 is the other request's (rows that held
    before too)."""
    now = [0.0]
    relay = Relay(mode="observe", timeout=1.0, clock=lambda: now[0])
    relay.from_host(TWICE)
    now[0] = 0.5
    relay.from_host(OTHER)
    now[0] = 1.2  # (past the first's deadline, not the other's)
    assert _shown(relay.expire()) == [("host", (4, -31002)), ("upstream", ("cancelled", 4))]
    assert _shown(relay.from_upstream(_answer(3))) == [("host", ("answer", 3))]
    assert relay.in_flight == 0


# -- through the proxy's process --------------------------------------------------------------------
LATE = [sys.executable, str(Path(__file__).with_name("late_first_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "twice", "version": "0"}}}
CALL = b'{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/call","params":{"name":"late","arguments":{}}}\n'


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_late_answer_under_the_first_id_after_a_give_up(tmp_path: Path, loop: str) -> None:
    """observe, ``--timeout 2``, over a stdio server keeping the first id (``late_first_server.py``:
    it answers the call under 3 once a cancellation comes): the host gets -31002 under 4, the
    server the proxy's cancellations of 4 and of 3, and the late answer under 3 is refused (the
    host's next frame is its ping's answer; before, the answer under 3 came first: a frame
    answering nothing the host had in flight)."""
    log = tmp_path / "cancelled.jsonl"
    peer = LinePeer([*LOOPS[loop], "--mode", "observe", "--timeout", "2", "--", *LATE], env={"LATE_LOG": str(log)})
    try:
        assert json.loads(peer.exchange(INIT) or b"{}")["result"]["protocolVersion"] == "2025-06-18"
        peer.send_raw(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' + CALL)
        timed_out = json.loads(peer.recv() or b"{}")
        assert wait_until(lambda: log.exists() and len(log.read_text().splitlines()) >= 1, TIMEOUT)
        peer.send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
        after = json.loads(peer.recv() or b"{}")
    finally:
        status = peer.close()
    cancelled = [json.loads(line) for line in log.read_text().splitlines()]
    assert ((timed_out["id"], timed_out["error"]["code"]), after, cancelled, status) == \
        ((4, -31002), {"jsonrpc": "2.0", "id": 5, "result": {}}, [4, 3], 0)
