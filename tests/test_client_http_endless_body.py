"""``call --url`` against a server whose JSON answer never ends (tests/servers/hostile_http.py,
mode ``json_endless``: no content-length, the text string written until the client stops
reading): the body is read up to ``--max-bytes`` and no further, judged ``json.too_large`` (RFC
8259 s9: an implementation may limit the size of the texts it accepts), in memory bounded near
that limit (the house target: at most 3x the input more than the same command's baseline).

Before, a body passed to the SDK as it came was held three times over (the recorder's copy, the
SDK's list of parts, their join), and more copies were made as the cut frame was read for its id
(orjson's error held the whole text as a str; the id scan copied the string token out): the
64 MB limit peaked at ~410 MB, 16 MB at ~160 MB (baseline ~80 MB).

``call --json`` writes the cut answer's bytes twice, as the README documents (the round's
``response`` and its frame's ``data``): built as a dict of decoded copies and written by
``json.dumps``, the whole text made, escaped and encoded, the 16 MB limit peaked at ~188 MB;
written a piece at a time from the recorded bytes, ~110 MB.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .processes import peak_run, port_server

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
HOSTILE = [sys.executable, "-m", "tests.servers.hostile_http"]
LIMIT = 16_000_000
"""The --max-bytes of the test: light, and far above the baseline's noise."""

@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HOSTILE, cwd=ROOT) as url:
        yield url


def _call(base: str, max_bytes: int, *options: str) -> tuple[int, int, str]:
    """(exit status, peak KiB, stdout) of ``call --url <json_endless> --max-bytes N``."""
    return peak_call(base, "json_endless", max_bytes, *options)


def peak_call(base: str, mode: str, max_bytes: int, *options: str) -> tuple[int, int, str]:
    """(exit status, peak KiB, stdout) of ``call --url <mode> --max-bytes N`` (hostile_http's ``mode``)."""
    return peak_run([*CLI, "call", "--mode", "legacy", "--timeout", "60", "--max-bytes", str(max_bytes), "--url",
                     f"{base}/{mode}/mcp", "t", *options], cwd=ROOT, env={**os.environ, "COLUMNS": "100"})


# (--max-bytes, exit status, the findings (code, message)): RFC 8259 s9
CASES = [
    (1000, 20, [("json.too_large", "the message is more than 1000 bytes, the limit")]),
    (LIMIT, 20, [("json.too_large", f"the message is more than {LIMIT} bytes, the limit")]),
]


@pytest.mark.parametrize(("max_bytes", "status", "findings"), CASES)
def test_an_endless_json_body_is_cut_at_the_limit(base: str, max_bytes: int, status: int,
                                                  findings: list[tuple[str, str]]) -> None:
    code, _, out = _call(base, max_bytes, "--json")
    verdict = json.loads(out)["verdict"]
    found = verdict["findings"]
    assert isinstance(found, list)
    assert (code, verdict["kind"], [(f["code"], f["message"]) for f in found]) == (status, "unclassified", findings)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
def test_an_endless_json_body_is_read_in_memory_bounded_near_the_limit(base: str) -> None:
    """The same command with a limit of 1000 bytes is the baseline (the same modules, the same
    path, no large body): the 16 MB limit may add at most 3x its bytes to it. (The report on the
    terminal; ``--json`` below.)"""
    _, baseline, _ = _call(base, 1000)
    status, peak, out = _call(base, LIMIT)
    assert (status, out.splitlines()[0]) == (20, "verdict   unclassified  (protocol 2025-11-25, 1 round(s))")
    assert peak - baseline < 3 * LIMIT // 1024, (peak, baseline)


START = '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"'
"""How the body begins (the tools/call of a legacy session is its client's request 3)."""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
def test_the_json_output_of_an_endless_json_body_is_written_in_memory_bounded_near_the_limit(base: str) -> None:
    """``--json`` holds the cut answer's bytes twice (README: each round's ``response`` bytes as
    text, and every frame of the exchange): both are the body's first max_bytes + 1 bytes, and
    writing them may add at most 3x the limit to the baseline (the same command at 1000 bytes)."""
    _, baseline, _ = _call(base, 1000, "--json")
    status, peak, out = _call(base, LIMIT, "--json")
    data = json.loads(out)
    (round_,) = data["rounds"]
    answer = START + "a" * (LIMIT + 1 - len(START))
    assert (status, data["verdict"]["kind"]) == (20, "unclassified")
    assert round_["response"] == answer
    assert [f["data"] for f in round_["frames"] if f["direction"] == "in"] == [answer]
    assert peak - baseline < 3 * LIMIT // 1024, (peak, baseline)
