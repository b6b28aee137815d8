"""Bounded work for answers that answer no request waiting, however many requests wait: the relay
on its own (no I/O, its public ``Relay``), fixed frames in, the requests waiting examined counted.

A server's 2025-03-26 batch of strays — answers whose id no request waits under (in enforce and
observe, each is looked for as an id of another JSON type: ``_near_miss``), errors with a null id
over HTTP (paired by the tracker: by their HTTP exchange, else with the only request waiting),
progress notifications naming no request's token — cost, before, a scan of every request waiting
per element: with 100,000 requests waiting and a batch of 100,000 such elements, 10^10 steps (the
proxy stuck for hours). Now each is a few lookups (an id of another type, a progress token) or a
scan that stops at the second request waiting (no id; the proxy's host and upstream exchanges are
numbered apart, so the exchange number pairs nothing: ``_relay._NO_ID_KINDS``).

The count: the entries read by iterating the relay's table of the requests waiting and the
tracker's (a dict that counts what its iterators yield: the hook), while the batch goes through.
No timing: the counts are fixed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_verdict.proxy import Relay

INIT = json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                   "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                              "clientInfo": {"name": "t", "version": "0"}}}).encode()
INIT_ANSWER = (b'{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},'
               b'"serverInfo":{"name":"s","version":"0"}}}')
HTTP = {"exchange": 7, "method": "POST", "status": 200, "content_type": "application/json"}


class Counting(dict):  # type: ignore[type-arg]
    """A dict that counts the entries its iterators yield (``values``, ``items``, ``keys``, ``iter``)."""

    read = 0

    def _count(self, inner: Iterator[Any]) -> Iterator[Any]:
        for entry in inner:
            Counting.read += 1
            yield entry

    def values(self) -> Any:
        return self._count(iter(super().values()))

    def items(self) -> Any:
        return self._count(iter(super().items()))

    def keys(self) -> Any:
        return self._count(iter(super().keys()))

    def __iter__(self) -> Iterator[Any]:
        return self._count(super().__iter__())


def element(kind: str, n: int) -> bytes:
    if kind == "another-id":  # (a string id no request has, of no other type's text either)
        return b'{"jsonrpc":"2.0","id":"x' + str(n).encode() + b'","result":{"content":[],"isError":false}}'
    if kind == "null-id":
        return b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
    return (b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t' + str(n).encode()
            + b'","progress":1}}')


def _relay(mode: str, waiting: int) -> Relay:
    relay = Relay(mode=mode)  # type: ignore[arg-type]
    relay.from_host(INIT)
    relay.from_upstream(INIT_ANSWER)
    for n in range(waiting):
        relay.from_host(b'{"jsonrpc":"2.0","id":' + str(n).encode() + b',"method":"tools/call","params":'
                        b'{"name":"t","arguments":{},"_meta":{"progressToken":' + str(n).encode() + b'}}}')
    return relay


# (mode, the batch's elements, requests waiting, elements; what the host gets (a batch of that many elements,
# or nothing), the entries of the tables of requests waiting read while the batch goes through)
CASES = [
    ("enforce", "another-id", 1_000, 1_000, 0, 0),
    ("observe", "another-id", 1_000, 1_000, 1_000, 0),
    ("enforce", "null-id", 1_000, 1_000, 0, 2_000),  # (the tracker's scan stops at the second waiting)
    ("observe", "progress", 1_000, 1_000, 1_000, 0),
    ("enforce", "another-id", 100_000, 100_000, 0, 0),
    ("observe", "null-id", 100_000, 100_000, 100_000, 200_000),
    ("enforce", "progress", 100_000, 100_000, 100_000, 0),
]


@pytest.mark.parametrize(("mode", "kind", "waiting", "elements", "gets", "read"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_a_batch_of_strays_reads_no_table_of_the_requests_waiting(mode: str, kind: str, waiting: int,
                                                                   elements: int, gets: int, read: int) -> None:
    relay = _relay(mode, waiting)
    relay._waiting = Counting(relay._waiting)  # the hook: what is read of the requests waiting
    state = relay.tracker.export(relay.conn)
    assert state is not None
    state.pending = Counting(state.pending)
    Counting.read = 0
    batch = b"[" + b",".join(element(kind, n) for n in range(waiting, waiting + elements)) + b"]"
    outs = relay.from_upstream(batch, HTTP)
    sent = [json.loads(o.data) for o in outs if o.to == "host"]
    assert ([len(frame) for frame in sent], Counting.read, relay.in_flight) == (
        [gets] if gets else [], read, waiting)
