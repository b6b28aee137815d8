"""An HTTP upstream's JSON bodies against ``--max-frame-bytes`` (4096 here), through the real
proxy (a process, a stdio host) and a real aiohttp upstream (``status_http_server.py big:<n>``:
every POST answered with a body of ``n`` bytes, with its length or chunked).

README "The proxy", Faults: a frame past ``--max-frame-bytes`` is never held whole nor forwarded;
its id is read from its first 64 KiB and its call gets -31003. The body of a request's answer
is read in one read when its length is known and within the limit, else in chunks until past
it; past it, the rest is counted (the frame log gives its size) and not kept. A notification's
POST answered with a body past the limit is noted (a stdio host is not told)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.processes import port_server

from ._peers import PROXY, TIMEOUT, LinePeer, wait_until
from ._restarting import CHANGED, frame_records
from .test_proxy_faults import tool

SERVER = [sys.executable, str(Path(__file__).with_name("status_http_server.py"))]
PAST = "10000 bytes: past the limit of 4096 bytes"
NOTIFICATION = ("the host's notification: the upstream answered HTTP 202 with a body past 4096 bytes (the host is "
                "not told: stdio)")

# (the upstream's mode; the host's answer as (id, error code or None, its length); the frame
# log's refused and error records as (kind, note))
ROWS = [
    ("big:3000", (1, None, 3000), []),
    ("big-chunked:3000", (1, None, 3000), []),
    ("big:10000", (1, -31003, None), [("refused", PAST), ("error", NOTIFICATION)]),
    ("big-chunked:10000", (1, -31003, None), [("refused", PAST), ("error", NOTIFICATION)]),
    # its id past its first 64 KiB: the request of the exchange gets -31003 all the same
    ("big-id-last:100000", (1, -31003, None), [("refused", "100000 bytes: past the limit of 4096 bytes"),
                                               ("error", NOTIFICATION)]),
]


@pytest.mark.parametrize(("mode", "answer", "records"), ROWS, ids=[row[0] for row in ROWS])
def test_an_upstream_body_is_read_within_the_limit_and_counted_past_it(
        tmp_path: Path, mode: str, answer: tuple[int, int | None, int | None], records: list[tuple[str, str]]) -> None:
    log = tmp_path / "frames.jsonl"
    with port_server([*SERVER, mode]) as base:
        peer = LinePeer([*PROXY, "--max-frame-bytes", "4096", "--log", str(log), "--upstream", base + "/mcp"])
        try:
            raw = peer.exchange(tool(1, "echo")) or b"null"  # (none: the host waited TIMEOUT s)
            peer.send(CHANGED)
            wait_until(lambda: len(_faults(log)) >= len(records), TIMEOUT)
        finally:
            peer.close()
    message: dict[str, Any] | None = json.loads(raw)
    got = None if message is None else (message["id"], message["error"]["code"] if "error" in message else None,
                                        None if "error" in message else len(raw))
    assert (got, _faults(log)) == (answer, records)


def _faults(log: Path) -> list[tuple[str, str]]:
    return [(r["kind"], r.get("note", "")) for r in frame_records(log) if r["kind"] in ("refused", "error")]
