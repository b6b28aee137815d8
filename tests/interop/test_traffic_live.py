"""The recorded-traffic servers, live: each call of tests/interop/traffic.py's tables, recorded
again now, must get the kind its table states, round by round, with no finding.

Under MCP_VERDICT_REQUIRE_INTEROP=1 (./run test) a missing server fails instead of skipping.
The bytes are not compared with the recorded file (times, paths and ids move); the kinds are.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import anyio
import pytest

from .traffic import SERVERS, Server, missing, record


@pytest.mark.parametrize("server", SERVERS, ids=[s.name for s in SERVERS])
def test_live_answers_keep_the_tables_kinds(server: Server) -> None:
    lacking = missing(server)
    if lacking or (server.name == "mcp-server-git" and shutil.which("git") is None):
        message = f"{server.name} needs {', '.join(map(str, lacking)) or 'git'}: ./run test installs it"
        if os.environ.get("MCP_VERDICT_REQUIRE_INTEROP") == "1":
            pytest.fail(message)
        pytest.skip(message)
    with tempfile.TemporaryDirectory(prefix="mcp-verdict-traffic-") as scratch:
        items = anyio.run(record, server, Path(scratch))
    got = {(i.call.label, i.round): (i.kind.value, i.findings) for i in items}
    want = {(call.label, n): (kind.value, ()) for call in server.calls for n, kind in enumerate(call.kinds)}
    assert got == want
    assert all(i.response is not None for i in items)
