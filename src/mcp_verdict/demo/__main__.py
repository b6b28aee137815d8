"""``python -m mcp_verdict.demo stdio | http [--port N]``: run the demo server.

- ``stdio``: JSON-RPC lines on stdin/stdout (basic/transports/stdio); logs go to stderr only.
  Exits when stdin ends (or when the ``hang_up`` tool makes it).
- ``http``: Streamable HTTP on 127.0.0.1 only (basic/transports/streamable-http); ``--port 0``
  (the default) lets the OS choose. Prints ``listening on http://127.0.0.1:PORT/mcp`` on
  **stdout** once it accepts connections; logs go to stderr. Stops on SIGINT/SIGTERM. A port
  out of 0-65535 is a usage error (status 2); one it cannot listen on (taken) is status 3.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from ._http import run_http
from ._stdio import serve_stdio


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a TCP port is a number from 0 to 65535, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a TCP port is a number from 0 to 65535, not {port}")
    return port


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mcp_verdict.demo",
                                     description="The mcp-verdict demo server (fault-injecting, MCP 2026-07-28).")
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="stderr log level (default WARNING)")
    commands = parser.add_subparsers(dest="transport", required=True)
    commands.add_parser("stdio", help="serve JSON-RPC lines on stdin/stdout")
    http = commands.add_parser("http", help="serve Streamable HTTP on 127.0.0.1")
    http.add_argument("--port", type=_port, default=0, help="TCP port on 127.0.0.1 (default 0: chosen by the OS)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s demo-server %(levelname)s %(message)s")
    if args.transport == "stdio":
        return asyncio.run(serve_stdio())
    try:
        return run_http(args.port, log_level=args.log_level.lower())
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
