"""A stopped stdio server leaves no process behind, through the tap's transport and through
``VerdictClient`` (``tap/_process.py``, one place for both; MCP basic/transports/stdio: close
stdin, wait, terminate, kill).

The server here is the demo, started by a shell that first starts a helper in the background
(as wrappers and servers that spawn workers do), which holds the server's stdout and does not
end when the server does. Before, the client left that helper running, and so did the tap,
which also printed an "Event loop is closed" traceback at exit (its subprocess transport was
never closed) and did not start the server in a process group of its own.

Each scenario runs in a fresh interpreter (the traceback comes at its exit); whether the helper
ended is read from ``/proc`` (Linux), independently of the code under test."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_verdict.demo import stdio_command

from ..processes import gone

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

TAP = """
import anyio, sys
from mcp import Client
from mcp_verdict import VerdictTap

async def main():
    tap = VerdictTap()
    async with Client(tap.stdio_transport("sh", ["-c", sys.argv[1]])) as client:
        outcome = await tap.call_tool(client, "get_forecast", {"city": "Lisbon"})
    print(outcome.verdict.kind.value)

anyio.run(main)
"""

CLIENT = """
import anyio, sys
from mcp_verdict import VerdictClient

async def main():
    async with VerdictClient.stdio(["sh", "-c", sys.argv[1]]) as client:
        outcome = await client.call_tool("get_forecast", {"city": "Lisbon"})
    print(outcome.verdict.kind.value)

anyio.run(main)
"""

# (the helper the shell starts before the server, ending on SIGTERM or not)
HELPERS = [
    ("ends on SIGTERM", "sleep 300 &"),
    ("ignores SIGTERM (killed)", "trap '' TERM; sleep 300 &"),
]


@pytest.mark.parametrize("through", ["tap", "client"])
@pytest.mark.parametrize(("name", "helper"), HELPERS, ids=[name for name, _ in HELPERS])
def test_a_stopped_server_leaves_no_process_behind(tmp_path: Path, through: str, name: str, helper: str) -> None:
    pid_file = tmp_path / "helper.pid"
    shell = f"{helper} echo $! > {shlex.quote(str(pid_file))}; exec {shlex.join(stdio_command())}"
    done = subprocess.run([sys.executable, "-c", TAP if through == "tap" else CLIENT, shell], capture_output=True,
                          text=True, timeout=60, check=False)
    pid = int(pid_file.read_text())
    try:
        assert (done.returncode, done.stdout.strip()) == (0, "normal_complete"), done.stderr[-2000:]
        assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
        assert gone(pid)
    finally:
        subprocess.run(["kill", "-9", str(pid)], capture_output=True, check=False)
