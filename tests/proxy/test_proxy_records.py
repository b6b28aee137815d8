"""The proxy's records on a disk that fails: the calls go on (the records stop, said once on
stderr), and a clean exit with records prints nothing."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ._peers import PROXY, LinePeer

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def _call(request_id: int) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "len", "arguments": {"text": "x" * 300}}}


def _target(tmp_path: Path, failure: str) -> list[str]:
    if failure == "rotation":  # NAME.1 is a directory: the rotation's rename fails mid-run
        (tmp_path / "f.log.1").mkdir()
        return ["--log", str(tmp_path / "f.log"), "--log-payloads", "--log-max-bytes", "1024", "--log-backups", "1"]
    if failure == "full log":
        return ["--log", "/dev/full"]
    if failure == "full verdicts":
        return ["--verdicts", "/dev/full"]
    raise AssertionError(failure)


@pytest.mark.parametrize(("mode", "failure", "said"), [
    ("enforce", "rotation", "the frame log {tmp}/f.log could not be written (IsADirectoryError: [Errno 21] "
                            "Is a directory: '{tmp}/f.log.1'); no more frame log records are written, "
                            "the proxy carries on"),
    ("observe", "rotation", "the frame log {tmp}/f.log could not be written (IsADirectoryError: [Errno 21] "
                            "Is a directory: '{tmp}/f.log.1'); no more frame log records are written, "
                            "the proxy carries on"),
    ("enforce", "full log", "the frame log /dev/full could not be written (OSError: [Errno 28] No space left "
                            "on device); no more frame log records are written, the proxy carries on"),
    ("observe", "full verdicts", "the verdict lines /dev/full could not be written (OSError: [Errno 28] No "
                                 "space left on device); no more verdict lines records are written, the proxy "
                                 "carries on"),
])
def test_a_record_file_that_fails_stops_its_records_not_the_calls(tmp_path: Path, mode: str, failure: str,
                                                                  said: str) -> None:
    if failure.startswith("full") and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    peer = LinePeer([*PROXY, "--mode", mode, *_target(tmp_path, failure), "--", *SERVER])
    assert json.loads(peer.exchange(INIT) or b"{}")["id"] == 0
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    texts = [json.loads(peer.exchange(_call(n)) or b"{}")["result"]["content"][0]["text"] for n in range(1, 7)]
    assert (texts, peer.close()) == (["300"] * 6, 0)
    lines = b"".join(peer.stderr).decode().splitlines()
    assert lines == ["mcp-verdict proxy: " + said.format(tmp=tmp_path)]


@pytest.mark.parametrize("records", [["--log", "f.jsonl"], ["--log", "f.jsonl", "--verdicts", "v.jsonl"],
                                     ["--verdicts", "v.jsonl"]])
def test_a_clean_exit_with_records_prints_nothing(tmp_path: Path, records: list[str]) -> None:
    """The host closes stdin, stdout a pipe: the proxy closes stdout itself after its recorder,
    which is not the host going away (it printed 'ValueError: the frame log is closed')."""
    args = [str(tmp_path / a) if a.endswith(".jsonl") else a for a in records]
    peer = LinePeer([*PROXY, *args, "--", *SERVER])
    assert json.loads(peer.exchange(INIT) or b"{}")["id"] == 0
    assert json.loads(peer.exchange(_call(1)) or b"{}")["id"] == 1
    assert (peer.close(), b"".join(peer.stderr)) == (0, b"")
    if "--log" in records:
        kinds = [json.loads(line)["kind"] for line in (tmp_path / "f.jsonl").read_text().splitlines()]
        assert kinds == ["open", "message", "message", "message", "message", "eof", "eof"]
