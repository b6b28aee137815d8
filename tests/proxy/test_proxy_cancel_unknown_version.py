"""What the frame log says of a stdio host's ``notifications/cancelled`` through the real proxy (a
process) to a real aiohttp upstream (``status_http_server.py``: ``hang`` is never answered),
by what the proxy knows of the upstream.

basic/utilities/cancellation (2025-11-25): the notification cancels a request; 2026-07-28
basic/patterns/cancellation: over Streamable HTTP, closing the request's stream does, and no
notification is expected. The proxy POSTs the host's notification in its 2025 session, or
under a 2025 version an ``initialize`` answer gave; else it only closes the request's stream.
When no ``initialize`` was answered (no session, no version), which revision the upstream
speaks is not known: the note says so. It read ``2026-07-28 cancels a request by closing its
stream``, which the proxy did not know. README "The proxy": the frame log says what really
happened to each frame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.processes import port_server

from ._peers import PROXY, TIMEOUT, LinePeer, wait_until
from ._restarting import cancellation_notes
from .test_proxy_faults import INIT, tool
from .test_proxy_host_cancel_in_flight import NO_LONGER, STATUS_SERVER
from .test_proxy_host_cancel_queued import cancel

UNKNOWN = ("not sent upstream: the upstream gave no session and no protocol version (no initialize answer); "
           f"closing the request's stream is its cancellation (its stream closed); {NO_LONGER}")

# (the upstream's mode; whether the host initialises; the cancellation's record notes; the
# JSON-RPC methods the upstream was POSTed: the cancellation's POST and the next call's race)
ROWS = [
    ("unknown", "json-stateless", False, [UNKNOWN], ["tools/call", "tools/call"]),
    ("2025-no-session", "json-stateless", True, [NO_LONGER],
     ["initialize", "tools/call", "notifications/cancelled", "tools/call"]),
    ("2025-session", "json", True, [NO_LONGER],
     ["initialize", "tools/call", "notifications/cancelled", "tools/call"]),
]


@pytest.mark.parametrize(("mode", "initialises", "notes", "posted"), [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_a_stdio_hosts_cancellation_not_posted_says_what_the_proxy_knows(
        tmp_path: Path, mode: str, initialises: bool, notes: list[str], posted: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    with port_server([*STATUS_SERVER, mode]) as base:
        peer = LinePeer([*PROXY, "--log", str(log), "--log-payloads", "--upstream", base + "/mcp"])
        try:
            if initialises:
                assert _answer(peer, INIT) == 0
            peer.send(tool(5, "hang"))
            assert wait_until(lambda: len(_seen(base)) == 1 + initialises, TIMEOUT)  # (its POST came)
            peer.send(cancel(5))
            assert _answer(peer, tool(6, "echo")) == 6
            wait_until(lambda: len(_seen(base)) >= len(posted), TIMEOUT)
            got = _seen(base)
        finally:
            peer.close()
    assert (cancellation_notes(log), sorted(got)) == (notes, sorted(posted))


def _seen(base: str) -> list[str]:
    """The JSON-RPC methods the upstream was POSTed (in the order it read them)."""
    rows = httpx2.get(base + "/seen", timeout=TIMEOUT).json()
    return [method for verb, method, _ in rows if verb == "POST" and method is not None]


def _answer(peer: LinePeer, message: dict[str, Any]) -> Any:
    """The id of the answer to ``message`` (the server's own messages before it skipped)."""
    peer.send(message)
    while (line := peer.recv()) is not None:
        if b'"method"' not in line:
            return json.loads(line).get("id")
    return None
