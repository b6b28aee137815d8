"""The README's proxy section holds the code's facts: the error codes, the host configuration
that runs as written, and options that the command really has."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from mcp_verdict.proxy import CODES

from ._peers import PROXY

README = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
SECTION = README[README.index("## The proxy"):README.index("## The audit")]


def test_the_codes_table_is_the_code_table() -> None:
    rows = re.findall(r"^\| (-31\d{3}) \| (.+?) \|$", SECTION, re.MULTILINE)
    assert [(int(code), text) for code, text in rows] == sorted(CODES.items(), reverse=True)


def test_the_host_configuration_runs_the_proxy_as_written(tmp_path: Path) -> None:
    block = re.search(r"```json\n(\{\"mcpServers\".+?)\n```", SECTION, re.DOTALL)
    assert block is not None
    server = json.loads(block.group(1))["mcpServers"]["tickets"]
    assert server["command"] == "mcp-verdict" and server["args"][:4] == ["proxy", "--mode", "enforce", "--"]
    # the same arguments, with the demo server standing in for tickets_server.py
    args = [*server["args"][1:4], sys.executable, "-m", "mcp_verdict.demo", "stdio"]
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "string_is_error", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}
    run = subprocess.run([*PROXY, *args], input=json.dumps(request).encode() + b"\n", capture_output=True,
                         timeout=60, check=False)
    answer = json.loads(run.stdout.splitlines()[0])
    assert answer["error"]["code"] == -31000 and run.returncode == 0


def test_every_option_the_section_names_exists() -> None:
    help_text = subprocess.run([*PROXY, "--help"], capture_output=True, text=True, timeout=60, check=True).stdout
    named = set(re.findall(r"`(--[a-z-]+)", SECTION)) - {"--quick"}  # the benchmark's option
    assert named and all(option in help_text for option in named)


def test_the_session_relay_cap_is_the_one_documented() -> None:
    from mcp_verdict.proxy._http_host import MAX_SESSIONS

    assert f"at most {MAX_SESSIONS:,} session relays are kept" in " ".join(SECTION.split())
