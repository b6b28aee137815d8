"""``python -m mcp_verdict.demo http --port N`` (README "Two commands") with a port it cannot use:
one line on stderr and a status, never a traceback.

Before, a port taken by another listener ended in an ``OSError: [Errno 98] Address already in
use`` traceback and a port past 65535 in ``OverflowError: bind(): port must be 0-65535.``, both
status 1. Now a port out of range is argparse's usage error (2), and one it cannot listen on is
status 3 (as ``mcp-verdict proxy`` gives for an address taken).
"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

DEMO = [sys.executable, "-m", "mcp_verdict.demo", "http"]

# (case: the --port value; status, the last line on stderr)
OUT_OF_RANGE = {
    "past 65535": ("99999", 2,
                   "python -m mcp_verdict.demo http: error: argument --port: a TCP port is a number from 0 to 65535, "
                   "not 99999"),
    "negative": ("-1", 2,
                 "python -m mcp_verdict.demo http: error: argument --port: a TCP port is a number from 0 to 65535, "
                 "not -1"),
    "not a number": ("abc", 2,
                     "python -m mcp_verdict.demo http: error: argument --port: a TCP port is a number from 0 to "
                     "65535, not 'abc'"),
}


@pytest.mark.parametrize("case", list(OUT_OF_RANGE))
def test_a_port_out_of_range_is_a_usage_error(case: str) -> None:
    port, status, last = OUT_OF_RANGE[case]
    run = subprocess.run([*DEMO, "--port", port], capture_output=True, timeout=60, check=False,
                         stdin=subprocess.DEVNULL)
    assert (run.returncode, run.stdout, run.stderr.decode().splitlines()[-1]) == (status, b"", last)


def test_a_port_taken_is_one_line_and_status_3() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        run = subprocess.run([*DEMO, "--port", str(port)], capture_output=True, timeout=60, check=False,
                             stdin=subprocess.DEVNULL)
    assert (run.returncode, run.stdout, run.stderr.decode().splitlines()) == (
        3, b"", [f"python -m mcp_verdict.demo http: cannot listen on 127.0.0.1:{port}: Address already in use"])
