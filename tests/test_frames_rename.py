"""``Tracker.rename``: a request waiting under one id waits under another from then on (the proxy's
``_twice``: a host request that gives its id twice, which two parsers read two ways, answered under
the id the tracker did not read). JSON-RPC 2.0 s5: a response carries the id of the request it
answers; the tracker pairs by id with its JSON type (``id_key``).

Each row: the client's requests fed (their bytes, in order), the rename (the id key it waits under,
the id it is to wait under), the server's answer fed → the renamed request's id (None: nothing
renamed), the request the answer pairs with (its method and id; None: a stray), and the version in
force after (an ``initialize`` renamed stays the one whose answer sets it). Expected values by hand."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict.frames import Answered, Tracker

INIT = (b'{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}')
INIT_ANSWER = (b'{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-06-18","capabilities":{},'
               b'"serverInfo":{"name":"s","version":"0"}}}')
PING_4 = b'{"jsonrpc":"2.0","id":4,"method":"ping"}'
PING_3 = b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}'

ROWS: list[tuple[str, list[bytes], tuple[str, Any], Any, bytes, tuple[Any, Any, Any]]] = [
    ("int-to-int", [PING_4], ("int", 4), 3, b'{"jsonrpc":"2.0","id":3,"result":{}}', (3, ("ping", 3), None)),
    ("int-to-str", [PING_4], ("int", 4), "a", b'{"jsonrpc":"2.0","id":"a","result":{}}', ("a", ("ping", "a"), None)),
    ("int-to-float", [PING_4], ("int", 4), 4.0, b'{"jsonrpc":"2.0","id":4.0,"result":{}}',
     (4.0, ("ping", 4.0), None)),
    ("none-waits", [PING_4], ("int", 5), 3, b'{"jsonrpc":"2.0","id":3,"result":{}}', (None, None, None)),
    ("taken", [PING_3, PING_4], ("int", 4), 3, b'{"jsonrpc":"2.0","id":3,"result":{}}',
     (None, ("tools/list", 3), None)),  # (another request waits under 3: nothing renamed, it keeps 3)
    ("initialize", [INIT], ("int", 4), 3, INIT_ANSWER, (3, ("initialize", 3), "2025-06-18")),
]


@pytest.mark.parametrize(("requests", "key", "to", "answer", "expected"), [r[1:] for r in ROWS],
                         ids=[r[0] for r in ROWS])
def test_a_request_renamed_is_answered_under_its_new_id(requests: list[bytes], key: tuple[str, Any], to: Any,
                                                        answer: bytes, expected: tuple[Any, Any, Any]) -> None:
    tracker = Tracker(default_version="2026-07-28")
    for seq, data in enumerate(requests):
        tracker.feed("c", "c2s", data, at=0.0, seq=seq)
    renamed = tracker.rename("c", "client", key, to)
    events = tracker.feed("c", "s2c", answer, at=0.0, seq=9)
    event = events[0]
    paired = (event.exchange.method, event.exchange.request_id) if isinstance(event, Answered) else None
    version = tracker.version_in_force("c") if requests[0] is INIT else None
    assert (None if renamed is None else renamed.request_id, paired, version) == expected
    if isinstance(to, float):  # (an id's JSON type counts: 4.0 is not 4)
        assert isinstance(event, Answered) and type(event.exchange.request_id) is float
