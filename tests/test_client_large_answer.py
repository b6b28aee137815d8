"""A well-formed answer of many megabytes, within ``--max-bytes``: judged from its recorded bytes
on stdio (tests/servers/hostile_stdio.py ``big N``: one line), and over Streamable HTTP as a JSON
body or one server-sent event (tests/servers/hostile_http.py ``json_Nmib``, ``sse_Nmib``), in
memory near what the verdict itself needs: the recorded bytes, and ``classify``'s read of them.

Before, the client held several more copies of such an answer: the stdio reader copied the line
twice out of its buffer; the SDK parsed it (its own copy of the text, and over SSE the event's
decoded text too) and kept the last message it read until the next came; and the pairing of the
answer with its request read it whole with orjson (~13x its size allocated) before ``classify``
read it again. A 16 MiB answer added ~6x its size to the command's peak on stdio and as a JSON
body, ~9x as an event; now ~3x: the line (or the body) and its copy while it is read, then the
frame and ``classify``'s read. After the call the client holds the frame and the verdict's
parsed value (2x; was 3x, 5x over SSE).
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mcp_verdict.client import VerdictClient

from .processes import peak_run, port_server

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
HTTP = [sys.executable, "-m", "tests.servers.hostile_http"]
MIB = 1 << 20
SIZE = 16
"""MiB of text in the large answer (the test's: light, and far above the baseline's noise)."""

@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with port_server(HTTP, cwd=ROOT) as url:
        yield url


def _server(base: str, transport: str, mib: int) -> list[str]:
    """The ``call`` options that reach the server of ``transport`` answering ``mib`` MiB."""
    if transport == "stdio":
        return ["--stdio", f"{sys.executable} -m tests.servers.hostile_stdio big {mib}"]
    return ["--url", f"{base}/{transport}_{mib}mib/mcp"]


def _call(base: str, transport: str, mib: int, *options: str) -> tuple[int, int, str]:
    """(exit status, peak KiB, stdout) of ``call t`` against a server answering ``mib`` MiB of text."""
    return peak_run([*CLI, "call", "--mode", "legacy", "--timeout", "60", *_server(base, transport, mib), "t",
                     *options], cwd=ROOT, env={**os.environ, "COLUMNS": "100"})


TRANSPORTS = ["stdio", "json", "sse"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_large_answer_is_judged_from_its_bytes(base: str, transport: str) -> None:
    """The answer is a tools/call result of one text block (MCP 2025-11-25, tools: CallToolResult):
    normal_complete, no finding, accepted (exit 0); the round's response is the answer's bytes
    as they came, and its text the block's."""
    status, _, out = _call(base, transport, SIZE, "--json")
    data = json.loads(out)
    (round_,) = data["rounds"]
    answer = round_["response"]
    tail = '"}],"isError":false}}' if transport == "stdio" else '"}]}}'
    assert (status, data["verdict"]["kind"], data["verdict"]["findings"]) == (0, "normal_complete", [])
    assert answer == '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"' + "a" * SIZE * MIB + tail
    assert data["verdict"]["content"] == [{"type": "text", "text": "a" * SIZE * MIB}]


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_large_answer_is_read_in_memory_near_what_the_verdict_needs(base: str, transport: str) -> None:
    """The same command against a server answering an empty text is the baseline (the same
    modules, the same path): the 16 MiB answer may add at most 4x its size to it (~3x measured:
    the recorded bytes and their copy while read, then ``classify``'s read; ~6x before, ~9x
    as an event)."""
    _, baseline, _ = _call(base, transport, 0)
    status, peak, out = _call(base, transport, SIZE)
    assert (status, out.splitlines()[0]) == (0, "verdict   normal_complete  (protocol 2025-11-25, 1 round(s))")
    assert peak - baseline < 4 * SIZE * MIB // 1024, (peak, baseline)


def _held_after_call(client: VerdictClient) -> tuple[int, str]:
    """(bytes the call left held, as tracemalloc counts them; the verdict's kind)."""
    held: list[int] = []
    kinds: list[str] = []

    async def run() -> None:
        async with client:
            await client.list_tools()
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                outcome = await client.call_tool("t", {})
                gc.collect()
                held.append(tracemalloc.get_traced_memory()[0] - before)
            finally:
                tracemalloc.stop()
            kinds.append(outcome.verdict.kind.value)

    anyio.run(run)
    return held[0], kinds[0]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_after_a_large_answer_the_client_holds_its_bytes_and_the_verdict(base: str, transport: str) -> None:
    """What the call leaves held (its record in ``history``, the outcome): the answer's frame and
    the verdict's parsed value, 2x the answer, and a little more (under 2.25x). The SDK's copy is
    gone: it was handed a small stand-in for the answer, and kept the last message it read (3x
    held before, 5x over SSE: its copy of the event's text too)."""
    if transport == "stdio":
        client = VerdictClient.stdio([sys.executable, "-m", "tests.servers.hostile_stdio", "big", str(SIZE)],
                                     cwd=str(ROOT), mode="legacy", timeout=60)
    else:
        client = VerdictClient.http(f"{base}/{transport}_{SIZE}mib/mcp", mode="legacy", timeout=60)
    held, kind = _held_after_call(client)
    assert kind == "normal_complete"
    assert 2 * SIZE * MIB <= held < 2.25 * SIZE * MIB, held / (SIZE * MIB)


@pytest.mark.parametrize("transport", ["json", "sse"])
def test_the_connection_goes_on_after_large_answers(base: str, transport: str) -> None:
    """The SDK, handed a stand-in for each large answer, keeps the session: three calls in a row
    on one client are each judged from their bytes, with no warning."""
    kinds: list[str] = []
    warnings: list[str] = []

    async def run() -> None:
        async with VerdictClient.http(f"{base}/{transport}_{SIZE}mib/mcp", mode="legacy", timeout=60) as client:
            kinds.extend([(await client.call_tool("t", {})).verdict.kind.value for _ in range(3)])
            warnings.extend(client.warnings)

    anyio.run(run)
    assert (kinds, warnings) == (["normal_complete"] * 3, [])


def test_a_large_structured_content_is_shown_from_its_first_characters() -> None:
    """``call`` shows the first 2,000 characters of the structuredContent as JSON and says how many
    more there are, without the whole text (``json.dumps`` made it once more: ~4x the answer's
    size at the peak with the SDK's copy gone, now ~3x: the bound is 3.5x). The baseline: the
    same server answering an empty string."""
    def call(mib: int) -> tuple[int, int, str]:
        return peak_run([*CLI, "call", "--mode", "legacy", "--timeout", "60", "--stdio",
                         f"{sys.executable} -m tests.servers.hostile_stdio structured {mib}", "t"],
                        cwd=ROOT, env={**os.environ, "COLUMNS": "100"})

    _, baseline, shown = call(0)
    status, peak, out = call(SIZE)
    assert 'structured {"data": ""}' in shown
    # {"data": "s...s"}: 10 + 16 MiB + 2 characters, 2,000 shown
    found = re.search(r'structured \{"data": "(s*)… \((\d+) more characters: see --json\)', out.replace("\n", ""))
    assert found is not None, out
    assert (status, len(found[1]), int(found[2])) == (0, 2000 - 10, 10 + SIZE * MIB + 2 - 2000)
    if sys.platform == "linux":  # (ru_maxrss in KiB is Linux's)
        assert peak - baseline < 3.5 * SIZE * MIB // 1024, (peak, baseline)
