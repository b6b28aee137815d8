"""``call --url`` against a server whose event-stream answer is one event far past ``--max-bytes``
(tests/servers/hostile_http.py, mode ``sse_big``: a ``data`` line of 50 MiB, its line end and
the empty line that ends the event only after it): the event is read up to ``--max-bytes`` and
no further, recorded cut (its first max_bytes + 1 bytes, the ``data:`` line as it came) and
judged ``json.too_large`` (RFC 8259 s9: an implementation may limit the size of the texts it
accepts; WHATWG event-stream interpretation: an event ends at an empty line), in memory bounded
near that limit (the house target: at most 3x the input more than the same command's baseline).

Before, the unfinished line was held four times over (the SSE parser's buffer, the recorder's
copy of the event, the SDK's line buffer fed as the bytes came, and the SDK's copies as it
flushed that line at the stream's end): the 16 MB limit added ~97 MB (baseline ~80 MB). An
event now reaches the SDK once dispatched (the SDK acts on nothing before its empty line), and
its unfinished line is fed to the parser once ended: ~32 MB.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .processes import port_server
from .test_client_http_endless_body import peak_call

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
HOSTILE = [sys.executable, "-m", "tests.servers.hostile_http"]
LIMIT = 16_000_000
"""The --max-bytes of the test: light, and far above the baseline's noise."""

START = 'data: {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"'
"""How the event begins (the tools/call of a legacy session is its client's request 3)."""


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE, cwd=ROOT) as url:
        yield url


def _call(base: str, max_bytes: int, *options: str) -> tuple[int, int, str]:
    """(exit status, peak KiB, stdout) of ``call --url <sse_big> --max-bytes N``."""
    return peak_call(base, "sse_big", max_bytes, *options)


# (--max-bytes, exit status, the findings (code, message), the answer recorded): RFC 8259 s9
CASES = [
    (1000, 20, [("json.too_large", "the message is more than 1000 bytes, the limit")],
     START + "a" * (1001 - len(START))),
    (100_000, 20, [("json.too_large", "the message is more than 100000 bytes, the limit")],
     START + "a" * (100_001 - len(START))),
]


@pytest.mark.parametrize(("max_bytes", "status", "findings", "answer"), CASES)
def test_an_endless_event_is_recorded_cut_at_the_limit(base: str, max_bytes: int, status: int,
                                                       findings: list[tuple[str, str]], answer: str) -> None:
    """The cut event is recorded as it came: the answer judged, and the frame of the exchange, is
    its first max_bytes + 1 bytes, ``data:`` line included."""
    code, _, out = _call(base, max_bytes, "--json")
    data = json.loads(out)
    found = data["verdict"]["findings"]
    (round_,) = data["rounds"]
    assert (code, data["verdict"]["kind"], [(f["code"], f["message"]) for f in found]) == (
        status, "unclassified", findings)
    assert (round_["response"], [f["data"] for f in round_["frames"] if f["direction"] == "in"]) == (answer, [answer])


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
@pytest.mark.parametrize("options", [(), ("--json",)], ids=["report", "json"])
def test_an_endless_event_is_read_in_memory_bounded_near_the_limit(base: str, options: tuple[str, ...]) -> None:
    """The same command with a limit of 1000 bytes is the baseline (the same modules, the same
    path, no large event): the 16 MB limit may add at most 3x its bytes to it, the report on the
    terminal or ``--json`` (which holds the cut event twice: its round's response, its frame's
    data). The cut frame is read for its id alone, never parsed: orjson failing on it allocated
    ~12x its size, and ``--json`` peaked at ~3.1x."""
    _, baseline, _ = _call(base, 1000, *options)
    status, peak, out = _call(base, LIMIT, *options)
    first = json.loads(out)["verdict"]["kind"] if options else out.splitlines()[0]
    assert (status, first) == (20, "unclassified" if options else
                               "verdict   unclassified  (protocol 2025-11-25, 1 round(s))")
    assert peak - baseline < 3 * LIMIT // 1024, (peak, baseline)
