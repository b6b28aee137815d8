"""``mcp-verdict proxy``'s options: a value the proxy cannot run with is a usage error (status 2,
one line saying which option and why), never a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ._peers import PROXY, HttpHostPeer, _wait_for

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]


@pytest.mark.parametrize(("args", "message"), [
    (["--listen", "127.0.0.1:65536"], "Invalid value for --listen: the port 65536 is not between 0 and 65535"),
    (["--listen", "127.0.0.1:99999999999999999999"],
     "Invalid value for --listen: the port 99999999999999999999 is not between 0 and 65535"),
    (["--listen", "127.0.0.1:٣"], "Invalid value for --listen: HOST:PORT, e.g. 127.0.0.1:8100"),
    (["--timeout", "nan"], "--timeout must be a positive number of seconds, not nan"),
    (["--timeout", "inf"], "--timeout must be a positive number of seconds, not inf"),
    (["--timeout", "0"], "--timeout must be a positive number of seconds, not 0.0"),
    (["--timeout", "-1"], "--timeout must be a positive number of seconds, not -1.0"),
    (["--grace", "nan"], "--grace must be 0 or a positive number of seconds, not nan"),
    (["--grace", "-0.5"], "--grace must be 0 or a positive number of seconds, not -0.5"),
    (["--log-max-bytes", "100"], "--log-max-bytes must be at least 1024, not 100"),
    (["--log-backups", "-1"], "--log-backups must be from 0 to 1000, not -1"),
    # past the frame log's own bound: its OptionError named RotatingLines' backups, not the flag
    (["--log-backups", "1001"], "--log-backups must be from 0 to 1000, not 1001"),
    (["--max-restarts", "-1"], "--max-restarts must be 0 or more, not -1"),
    (["--listen", "127.0.0.1:0", "--path", "mcp"], "--path must start with '/', not 'mcp'"),
])
def test_a_value_the_proxy_cannot_run_with_is_a_usage_error(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run([*PROXY, "--log", str(tmp_path / "f.jsonl"), *args, "--", *SERVER],
                          check=False, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    err = done.stderr.decode()
    assert (done.returncode, "Traceback" in err) == (2, False), err
    assert err.strip().splitlines()[-1] == f"Error: {message}"


def test_an_ipv6_listen_address_is_printed_in_brackets() -> None:
    process = subprocess.Popen([*PROXY, "--listen", "[::1]:0", "--", *SERVER], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = _wait_for(rb"listening on (http://\S+)", process.stderr).decode()
        assert re.fullmatch(r"http://\[::1\]:\d+/mcp", url), url
        peer = HttpHostPeer(url)
        try:
            status, raw, _ = peer.post({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                        "params": {"name": "len", "arguments": {"text": "abc"}}})
        finally:
            peer.close()
        assert (status, raw) == (200, b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}],'
                                      b'"isError":false}}')
    finally:
        process.terminate()
        process.wait(10)
