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
import threading
from pathlib import Path
from typing import Any

import pytest

from ._peers import HttpHostPeer, call, demo_http, proxy_http

PAIRS = ["http-http", "http-stdio"]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("mode", ["observe", "enforce"])
def test_two_hosts_with_the_same_id_in_flight_each_get_their_own_answer(pair: str, mode: str, tmp_path: Path) -> None:
    from mcp_verdict.demo import stdio_command

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
    if pair == "http-http":
        with demo_http() as upstream, proxy_http([*args, "--upstream", upstream]) as (url, _):
            got = run(url)
    else:
        with proxy_http([*args, "--", *stdio_command()]) as (url, _):
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
