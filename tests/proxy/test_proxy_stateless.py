"""Stateless requests (2026-07-28) from several hosts through one proxy: JSON-RPC ids are unique
per connection only (basic/index#requests: "The request ID MUST NOT have been previously used by
the requestor within the same session"), and every stateless POST is a connection of its own, so
two hosts may have the same id in flight at once. Each answer must reach the host that asked, and
be judged against that host's request — never another's (a leak between hosts, and a verdict
judged on the wrong call).

Two hosts each call ``slow_write`` with id 7 at once; the first host's answer comes first (1 s
against 2 s), while the second host's request is the later one in flight.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.proxy import REFUSED, TOO_LARGE

from ._peers import HttpHostPeer, call, proxy_http_before

PAIRS = ["http-http", "http-stdio"]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_two_hosts_with_the_same_id_in_flight_each_get_their_own_answer(pair: str, mode: str, tmp_path: Path) -> None:

    def run(url: str) -> dict[str, Any]:
        got: dict[str, Any] = {}

        def host(name: str, seconds: float) -> None:
            peer = HttpHostPeer(url)
            status, body, _ = peer.post(call(7, "slow_write", {"key": name, "seconds": seconds}))
            got[name] = (status, json.loads(body) if body else None)
            peer.close()

        first = threading.Thread(target=host, args=("first", 1.0))
        second = threading.Thread(target=host, args=("second", 2.0))
        first.start()
        threading.Event().wait(0.3)  # the first request is in flight when the second arrives
        second.start()
        first.join(30)
        second.join(30)
        return got

    verdicts = tmp_path / "verdicts.jsonl"
    args = ["--mode", mode, "--verdicts", str(verdicts)]
    with proxy_http_before(pair, args) as url:
        got = run(url)
    for name in ("first", "second"):
        status, answer = got[name]
        assert status == 200, name
        assert answer["id"] == 7, name
        assert answer["result"]["structuredContent"] == {"key": name, "execution": 1}, name
    # each answer judged once, against a slow_write request of its own
    lines = [json.loads(line) for line in verdicts.read_text().splitlines()]
    judged = [(line["tool"], line["kind"], line["decision"]) for line in lines if line.get("method") == "tools/call"]
    # (the proxy checks no content: a normal_complete write is left to verify, POLICY row verify_content)
    assert judged == [("slow_write", "normal_complete", "verify_content")] * 2


# -- a request the proxy cannot read (or too large) with an id another host has in flight -------
def _slow_write_7(key: str, seconds: float) -> bytes:
    return json.dumps(call(7, "slow_write", {"key": key, "seconds": seconds})).encode()


NAN = _slow_write_7("second", 0.1).replace(b'"seconds": 0.1', b'"seconds": NaN')  # no strict parser reads it
TOO_LARGE_7 = _slow_write_7("x" * 5000, 0.1)  # past --max-frame-bytes 4096

# (pair, the second host's body, mode): (the second host's status, its answer's id as written
# and code). The first host calls slow_write with id 7 (1.5 s) and gets its own answer; the
# second posts while it is in flight. Over stdio (one connection for every host) the proxy
# cannot relay a request it cannot read under an id of its own: the JSON-RPC parse error, with
# the id; over HTTP it goes through a relay of its own to the upstream (the demo's parse error,
# whose null id enforce refuses); a request past the limit is never relayed: TOO_LARGE.
SECOND_CASES = [
    ("http-stdio", "unreadable", "observe", (200, "7", -32700)),
    ("http-stdio", "unreadable", "enforce", (200, "7", -32700)),
    ("http-http", "unreadable", "observe", (400, "null", -32700)),
    ("http-http", "unreadable", "enforce", (400, "7", REFUSED)),
    ("http-stdio", "too large", "observe", (413, "7", TOO_LARGE)),
    ("http-stdio", "too large", "enforce", (413, "7", TOO_LARGE)),
    ("http-http", "too large", "enforce", (413, "7", TOO_LARGE)),
]


@pytest.mark.parametrize(("pair", "second", "mode", "expected"), SECOND_CASES,
                         ids=[f"{p}-{s}-{m}" for p, s, m, _ in SECOND_CASES])
def test_a_request_of_another_host_with_the_same_id_in_flight_gets_its_own_error(
        pair: str, second: str, mode: str, expected: tuple[int, str, int]) -> None:

    def run(url: str) -> dict[str, tuple[int, bytes | None]]:
        got: dict[str, tuple[int, bytes | None]] = {}

        def host(name: str, body: bytes, delay: float) -> None:
            threading.Event().wait(delay)
            peer = HttpHostPeer(url)
            try:
                got[name] = peer.post(body, headers={"mcp-protocol-version": "2026-07-28"})[:2]
            finally:
                peer.close()

        threads = [threading.Thread(target=host, args=("first", _slow_write_7("first", 1.5), 0.0)),
                   threading.Thread(target=host, args=("second", NAN if second == "unreadable" else TOO_LARGE_7,
                                                       0.4))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        return got

    args = ["--mode", mode, "--max-frame-bytes", "4096"]
    with proxy_http_before(pair, args) as url:
        got = run(url)
    status, body = got["second"]
    answer = json.loads(body or b"null")
    id_text = re.match(rb'\{"jsonrpc":"2\.0","id":(.*?),', body or b"")
    assert (status, id_text.group(1).decode() if id_text else None,
            answer["error"]["code"] if answer else None) == expected
    status, body = got["first"]
    assert (status, json.loads(body or b"null")["result"]["structuredContent"]) == (200, {"key": "first",
                                                                                        "execution": 1})
