"""An HTTP upstream's JSON bodies against ``--max-frame-bytes`` (4096 here), through the real
proxy (a process, a stdio host) and a real aiohttp upstream (``status_http_server.py big:<n>``:
every POST answered with a body of ``n`` bytes, with its length or chunked).

README "The proxy", Faults: a frame past ``--max-frame-bytes`` is never held whole nor forwarded;
its id is read from its first 64 KiB and its call gets -31003. The body of a request's answer
is read in one read when its length is known and within the limit, else in chunks until past
it; past it, the rest is counted (the frame log gives its size) and not kept. A notification's
POST answered with a body past the limit is noted (a stdio host is not told). An event stream's
unfinished event is not held past the limit either: the exchange is given up, and its request,
whose id the event does not show, gets -31003 at once (it got -31002 at ``--timeout``)."""

from __future__ import annotations

import json
import re
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


# (the upstream's mode; the host's answer as (id, error code, its message with the bytes read
# shown as <size>); the frame log's refused records' notes, <size> alike). The bytes read when
# the limit is passed depend on how the stream's bytes come in: between 4097 and the event's
# 10006 (``data: `` and 10000 bytes).
PAST_READ = "<size> bytes: past the limit of 4096 bytes"
EVENT_ROWS = [
    ("big-event:10000", (1, -31003, "mcp-verdict proxy: the server's answer is <size> bytes or more; the proxy's "
                                    "limit is 4096 (its id was not in its first bytes)"), [PAST_READ]),
    # within the limit, unfinished: the call waits (--timeout 2)
    ("big-event:3000", (1, -31002, "mcp-verdict proxy: no answer within 2 s"), []),
]


@pytest.mark.parametrize(("mode", "answer", "refused"), EVENT_ROWS, ids=[row[0] for row in EVENT_ROWS])
def test_an_unfinished_event_past_the_limit_answers_its_request(
        tmp_path: Path, mode: str, answer: tuple[int, int, str], refused: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    with port_server([*SERVER, mode]) as base:
        peer = LinePeer([*PROXY, "--max-frame-bytes", "4096", "--timeout", "2", "--log", str(log),
                         "--upstream", base + "/mcp"])
        try:
            raw = peer.exchange(tool(1, "echo")) or b"null"
        finally:
            peer.close()
    message = json.loads(raw)
    notes = [r.get("note", "") for r in frame_records(log) if r["kind"] == "refused"]
    sizes = [int(size) for text in (message["error"]["message"], *notes) for size in re.findall(_SIZE, text)]
    assert all(4096 < size <= 10006 for size in sizes)
    assert ((message["id"], message["error"]["code"], re.sub(_SIZE, "<size>", message["error"]["message"])),
            [re.sub(_SIZE, "<size>", note) for note in notes]) == (answer, refused)


_SIZE = r"(?:^|(?<=is ))\d+(?= bytes)"
"""The bytes read in a note (its first word) or in -31003's message (``is <n> bytes``)."""
