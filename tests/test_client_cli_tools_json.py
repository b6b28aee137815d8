"""``mcp-verdict tools --json``: the listing as the server sent it, one JSON text (RFC 8259;
``json.dumps(ensure_ascii=False)``, then DEL, the C1 and bidi controls and U+2028/U+2029 as
their ``\\uXXXX`` escape: cli/_json.py), written a piece at a time, byte for byte the text it
wrote built whole.

The server is real (tests/servers/listing_stdio.py, on stdio); the expected bytes are written by
hand. Before, the whole text was built (a str, escaped into another where it held a character
past ASCII, a line end added in a third, encoded into bytes) beside the listing the client holds:
a 16 MiB listing added ~8x its size to the command's peak; now ~4x (the recorded answer, its read
while it comes, the parsed listing and the SDK's model of each tool).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .processes import peak_run

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
SERVER = f"{sys.executable} -m tests.servers.listing_stdio"
MIB = 1 << 20

BIG = '{"name": "big", "inputSchema": {"type": "object"}}'
# (server flags, the exact output)
OUTPUTS = [
    ("", '{"version": "2025-11-25", "tools": [' + BIG + '], "warnings": []}\n'),
    ("--odd", '{"version": "2025-11-25", "tools": [' + BIG + ', {"name": "odd", "inputSchema": {"type": "object"}, '
              '"description": "q\\"b\\\\n\\nz\\u0000\\u007f\\u009b\\u202e\\u2028😀é"}], "warnings": []}\n'),
    ("--twice", '{"version": "2025-11-25", "tools": [' + BIG + ', {"name": "twin", "inputSchema": {"type": "object"}, '
                '"annotations": {"destructiveHint": true}}], "warnings": ["tools/list: 1 name is listed more than '
                "once: 'twin' (2 times); the last listing of each is the one kept\"]}\n"),
]


def _tools(flags: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*CLI, "tools", "--mode", "legacy", "--stdio", f"{SERVER} {flags}", "--json"],
                          capture_output=True, timeout=120, check=False, cwd=ROOT, stdin=subprocess.DEVNULL,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.mark.parametrize(("flags", "output"), OUTPUTS, ids=[f or "plain" for f, _ in OUTPUTS])
def test_the_listing_is_written_as_its_json_text(flags: str, output: str) -> None:
    run = _tools(flags)
    assert (run.returncode, run.stdout) == (0, output.encode()), run.stderr


def test_a_listing_of_many_megabytes_is_written_whole() -> None:
    run = _tools("--wide 3")
    assert run.returncode == 0, run.stderr
    wide = '{"name": "wide", "inputSchema": {"type": "object"}, "description": "' + "w" * 3 * MIB + 'é"}'
    assert run.stdout == ('{"version": "2025-11-25", "tools": [' + BIG + ", " + wide + '], "warnings": []}\n').encode()


def _peak(flags: str) -> tuple[int, int]:
    status, peak, _ = peak_run([*CLI, "tools", "--mode", "legacy", "--stdio", f"{SERVER} {flags}", "--json"], cwd=ROOT,
                               keep_stdout=False)
    return status, peak


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
def test_a_listing_of_many_megabytes_is_written_in_memory_bounded_near_its_size() -> None:
    """The same command on the plain listing is the baseline: a listing of 16 MiB more may add at
    most 5.5x its size (~4x measured; ~8x before, ~7x with the SDK's copy gone but the text built
    whole)."""
    _, baseline = _peak("")
    status, peak = _peak("--wide 16")
    assert status == 0
    assert peak - baseline < 5.5 * 16 * MIB / 1024, (peak, baseline)
