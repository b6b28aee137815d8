"""A stdio MCP server for the proxy's restart tests: what becomes of the host's frames while the
server is down (exited, or being restarted).

Each start is counted in ``$RESTART_DIR/starts``; each notification it reads is appended to
``$RESTART_DIR/received`` as ``<start number> <method>``. A ``tools/call`` of ``exit`` exits at
once (status 3, unanswered), one of ``kill`` sends itself SIGTERM; one of ``write`` is appended
to ``received`` as ``<start> tools/call write <id as JSON>`` (the tool ran) and answered ``ok``;
any other request is answered ``ok``. ``initialize`` is answered
(2025-06-18) at once on the first start; on a later one (the proxy's replay) only once the file
``$RESTART_DIR/go`` exists (at most 30 s), and then as argv[1] says: ``answer`` answers it,
``exit`` exits instead (status 4). ``hang``: a later start's ``initialize`` is noted in
``received`` (``<start> initialize``) and answered only if ``go`` exists already, else never; at
the end of its stdin that process exits (status 0) once ``$RESTART_DIR/exit`` exists (at most
30 s), as a server slow to stop.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path


def main() -> None:
    folder = Path(os.environ["RESTART_DIR"])
    with (folder / "starts").open("a") as handle:
        handle.write("start\n")
    start = len((folder / "starts").read_text().splitlines())
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method = message.get("method")
        if "id" not in message:
            with (folder / "received").open("a") as handle:
                handle.write(f"{start} {method}\n")
            continue
        rid = json.dumps(message["id"]).encode()
        if method == "initialize":
            if start > 1 and sys.argv[1] == "hang":
                with (folder / "received").open("a") as handle:
                    handle.write(f"{start} initialize\n")
                if not (folder / "go").exists():
                    continue
            elif start > 1:
                _wait_for(folder / "go")
                if sys.argv[1] == "exit":
                    sys.exit(4)
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"protocolVersion":"2025-06-18",'
                      b'"capabilities":{"tools":{}},"serverInfo":{"name":"restart","version":"0"}}}\n')
        elif method == "tools/call" and message["params"]["name"] == "exit":
            sys.exit(3)
        elif method == "tools/call" and message["params"]["name"] == "kill":
            os.kill(os.getpid(), signal.SIGTERM)  # (ended by a signal, unanswered)
        elif method == "tools/call" and message["params"]["name"] == "write":
            with (folder / "received").open("a") as handle:  # (a write: the tool runs)
                handle.write(f"{start} tools/call write {rid.decode()}\n")
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"ok"}],'
                      b'"isError":false}}\n')
        else:
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"ok"}],'
                      b'"isError":false}}\n')
        out.flush()
    if sys.argv[1] == "hang":
        _wait_for(folder / "exit")


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)


if __name__ == "__main__":
    main()
