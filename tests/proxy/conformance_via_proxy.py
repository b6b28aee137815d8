"""The conformance suite's client driver, put behind the proxy (HTTP → HTTP).

Usage (the suite appends the scenario server's URL): python tests/proxy/conformance_via_proxy.py MODE URL
Starts ``mcp-verdict proxy --mode MODE --listen 127.0.0.1:0 --upstream URL``, runs
tests/interop/conformance_client.py against the proxy's URL, stops the proxy, and exits with the
driver's status.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROXY = [sys.executable, "-c", "from mcp_verdict.cli import main; main()", "proxy"]


def main() -> int:
    mode, url = sys.argv[1], sys.argv[-1]
    proxy = subprocess.Popen([*PROXY, "--mode", mode, "--listen", "127.0.0.1:0", "--upstream", url],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proxy.stderr is not None
    try:
        for line in proxy.stderr:
            match = re.search(rb"listening on (http://\S+)", line)
            if match:
                break
        else:
            return 2
        driver = subprocess.run([sys.executable, str(HERE.parent / "interop" / "conformance_client.py"),
                                 match.group(1).decode()], check=False)
        return driver.returncode
    finally:
        proxy.terminate()
        try:
            proxy.wait(10)
        except subprocess.TimeoutExpired:
            proxy.kill()


if __name__ == "__main__":
    sys.exit(main())
