"""An answer with no readable id over Streamable HTTP (an error with a null id: JSON-RPC 2.0
section 5, the server could not read the request id; or a frame no parser reads) pairs with the
request of its HTTP exchange — the POST it came back on — else with the only request waiting
(``frames.Tracker``). The pairing is looked up by exchange, not found by a scan of every request
waiting: such answers while many requests wait cost time quadratic in the log (a proxy's or tap's
frame log audited, a relay's tracker) where each should cost a step or two."""

from __future__ import annotations

import pytest

from mcp_verdict.frames import Answered, Tracker

from ._calls import python_steps

NULL_ID = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
GARBAGE = b'{"jsonrpc":"2.0","id":'


def _request(number: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{}}}' % number


def _feed(tracker: Tracker, frames: list[tuple[str, bytes, int | None]]) -> list[tuple[str, int | None]]:
    """Each frame (direction, bytes, its HTTP exchange or None): what each fed frame completed,
    as (event type, the id of the request it answered)."""
    out: list[tuple[str, int | None]] = []
    for seq, (direction, data, exchange) in enumerate(frames):
        http = {"exchange": exchange, "method": "POST"} if exchange is not None else None
        for event in tracker.feed("c", direction, data, at=0.0, seq=seq, http=http):  # type: ignore[arg-type]
            request_id = event.exchange.request_id if isinstance(event, Answered) else None
            out.append((type(event).__name__, request_id))  # type: ignore[arg-type]
    return out


# (frames: direction, bytes, HTTP exchange; what each answer paired with), by hand
CASES = [
    ("its exchange's request, among three", [("c2s", _request(1), 1), ("c2s", _request(2), 2), ("c2s", _request(3), 3),
                                             ("s2c", NULL_ID, 2)], [("Answered", 2)]),
    ("garbage on its exchange", [("c2s", _request(1), 1), ("c2s", _request(2), 2), ("s2c", GARBAGE, 1)],
     [("Answered", 1)]),
    ("an exchange with no request waiting, one request waiting: that one",
     [("c2s", _request(1), 1), ("s2c", NULL_ID, 9)], [("Answered", 1)]),
    ("an exchange with no request waiting, two waiting: none",
     [("c2s", _request(1), 1), ("c2s", _request(2), 2), ("s2c", NULL_ID, 9)], [("Stray", None)]),
    ("its exchange's request already answered, another waiting: that one",
     [("c2s", _request(1), 1), ("c2s", _request(2), 2),
      ("s2c", b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}', 1), ("s2c", NULL_ID, 1)],
     [("Answered", 1), ("Answered", 2)]),
    ("an id reused on a later exchange: the later exchange's",
     [("c2s", _request(1), 1), ("c2s", _request(2), 2), ("c2s", _request(1), 3), ("s2c", NULL_ID, 3)],
     [("Unanswered", None), ("Answered", 1)]),
    ("the reused id's first exchange: nothing waits there now, two waiting: none",
     [("c2s", _request(1), 1), ("c2s", _request(2), 2), ("c2s", _request(1), 3), ("s2c", NULL_ID, 1)],
     [("Unanswered", None), ("Stray", None)]),
]


@pytest.mark.parametrize(("name", "frames", "expected"), CASES, ids=[c[0] for c in CASES])
def test_an_answer_without_a_readable_id_pairs_by_its_http_exchange(
        name: str, frames: list[tuple[str, bytes, int | None]], expected: list[tuple[str, int | None]]) -> None:
    assert _feed(Tracker(), frames) == expected


def _steps(waiting: int) -> int:
    """The steps of feeding ``waiting`` requests, each on its own exchange, then as many null-id
    answers, each on a request's exchange (the last first)."""
    frames: list[tuple[str, bytes, int | None]] = [("c2s", _request(n), n) for n in range(waiting)]
    frames += [("s2c", NULL_ID, n) for n in reversed(range(waiting))]
    tracker = Tracker()
    steps, events = python_steps(lambda: _feed(tracker, frames))
    assert events == [("Answered", n) for n in reversed(range(waiting))]
    return steps


def test_the_cost_of_such_answers_grows_with_their_number_not_its_square() -> None:
    """Doubling the requests waiting and their answers doubles the work (at most 2.2×); a scan
    of every request waiting per answer made it 3.5× and more."""
    assert _steps(2000) / _steps(1000) <= 2.2


def test_the_index_holds_no_more_than_the_requests_waiting_whatever_the_exchange_numbers() -> None:
    """Requests answered by id leave the exchange index as it is rebuilt: after 10,000 requests
    on one exchange number (a log may repeat it) and their answers, it holds a bounded few."""
    tracker = Tracker()
    frames: list[tuple[str, bytes, int | None]] = []
    for n in range(10_000):
        frames.append(("c2s", _request(n), 7))
        frames.append(("s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}' % n, 7))
    assert _feed(tracker, frames) == [("Answered", n) for n in range(10_000)]
    state = tracker._conns["c"]
    assert state.indexed == sum(len(keys) for keys in state.by_exchange.values()) <= 2 * len(state.pending) + 64
