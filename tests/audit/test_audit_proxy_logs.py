"""Logs the real proxy writes (``mcp-verdict proxy --log FILE``), audited as a user has them.

A rotated log (``--log-max-bytes``) is one recording however its files are named on the command
line: relative, with ``./``, absolute, through a link to their directory, in any order (README "The
audit": ``mcp-verdict audit frames.jsonl frames.jsonl.1``; the files of a rotated log are read as
one recording). A log of the proxy's default (payloads redacted) says in the report that its calls
could not be judged, where it read as a clean wire-fidelity audit."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_verdict.audit import plan
from mcp_verdict.demo import stdio_command

from .test_audit_recorded import run

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_forecast", {"city": "Lisbon"}), ("string_is_error", {}), ("charge_card", {"amount_cents": 1999}),
    ("get_forecast", {"city": "Porto"})]
# (tool, kind, first finding, naive false success), by hand from the demo's catalogue (demo/_catalogue.py)
EXPECTED = [("get_forecast", "normal_complete", None, False),
            ("string_is_error", "unclassified", "result.is_error", True),
            ("charge_card", "tool_error", None, True),
            ("get_forecast", "normal_complete", None, False)]


async def _record(log: Path, *options: str) -> None:
    from mcp_verdict.client import VerdictClient

    proxy = [sys.executable, "-m", "mcp_verdict", "proxy", "--log", str(log), *options, "--", *stdio_command()]
    async with VerdictClient.stdio(proxy, timeout=20) as client:
        await client.list_tools()
        for name, arguments in CALLS:
            await client.call_tool(name, arguments)


@pytest.fixture(scope="module")
def rotated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rotated")
    anyio.run(_record, folder / "frames.jsonl", "--log-payloads", "--log-max-bytes", "1024", "--log-backups", "50")
    return folder


SPELLINGS = [
    ("as listed", lambda names, folder: names),
    ("the current file with ./", lambda names, folder: [f"./{n}" if n == "frames.jsonl" else n for n in names]),
    ("the oldest file absolute", lambda names, folder: [str(folder / names[0]), *names[1:]]),
    ("every other file absolute, reversed", lambda names, folder: [
        str(folder / n) if i % 2 else n for i, n in enumerate(reversed(names))]),
    ("the current file through a link to the folder", lambda names, folder: [
        "link/frames.jsonl" if n == "frames.jsonl" else n for n in names]),
]


@pytest.mark.parametrize(("name", "spell"), SPELLINGS, ids=[c[0] for c in SPELLINGS])
def test_a_rotated_log_is_one_recording_however_its_files_are_named(rotated: Path, name: str, spell: object,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    names = sorted((p.name for p in rotated.iterdir() if p.name.startswith("frames.jsonl")),
                   key=lambda n: -int(n.rsplit(".", 1)[1]) if n[-1].isdigit() else 0)
    assert len(names) >= 3 and names[-1] == "frames.jsonl"  # the proxy rotated its log
    monkeypatch.chdir(rotated)
    if not os.path.lexists("link"):
        os.symlink(rotated, "link")
    paths = spell(names, rotated)  # type: ignore[operator]
    rows, problems, totals = run([Path(p) for p in paths])
    assert [(r.tool, r.kind, r.finding, r.naive_false_success) for r in rows] == EXPECTED
    assert problems == [] and totals.tally["unreadable"] == 0
    assert {item.recording for item in plan(paths)} == {0}


def test_a_log_of_redacted_payloads_says_its_calls_are_not_judged(tmp_path: Path) -> None:
    log = tmp_path / "frames.jsonl"
    anyio.run(_record, log)  # the proxy's default: payloads redacted (README "What it records")
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", "audit", str(log)], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80", "TERM": "dumb"}, timeout=120, check=False)
    words = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stderr
    # the negotiation (server/discover), tools/list and the 4 calls: each request and its answer; open, eof x2
    assert "15 lines = 3 transport + 12 redacted" in words
    assert ("12 messages recorded without their payload (redacted): the calls in them are not judged "
            "(mcp-verdict proxy --log-payloads records them)") in words
    assert "0 tools/call;" in words


# The rotated files compressed where they lie, as logrotate's ``compress`` leaves them (``NAME.N.gz``; the
# README's tap recipe and proxy rotate to ``NAME.N``): still one recording. (name, which of the rotated
# files are compressed: all, or all but NAME.1 as with logrotate's delaycompress, processes)
COMPRESSED = [
    ("every rotated file", "all", 1),
    ("every rotated file, two processes", "all", 2),
    ("all but the newest (logrotate's delaycompress)", "delayed", 1),
]


@pytest.mark.parametrize(("name", "which", "jobs"), COMPRESSED, ids=[c[0] for c in COMPRESSED])
def test_rotated_files_compressed_as_logrotate_leaves_them_are_one_recording(rotated: Path, tmp_path: Path,
                                                                            name: str, which: str, jobs: int) -> None:
    rotated_names = [p.name for p in rotated.iterdir() if p.name.startswith("frames.jsonl.")]
    paths = [tmp_path / "frames.jsonl"]
    paths[0].write_bytes((rotated / "frames.jsonl").read_bytes())
    for file in rotated_names:
        data = (rotated / file).read_bytes()
        if which == "all" or file != "frames.jsonl.1":
            paths.append(tmp_path / f"{file}.gz")
            paths[-1].write_bytes(gzip.compress(data))
        else:
            paths.append(tmp_path / file)
            paths[-1].write_bytes(data)
    rows, problems, totals = run(paths, jobs=jobs)
    assert [(r.tool, r.kind, r.finding, r.naive_false_success) for r in rows] == EXPECTED
    assert problems == [] and totals.tally["unreadable"] == 0
    assert {item.recording for item in plan([str(p) for p in paths])} == {0}
