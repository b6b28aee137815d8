"""``mcp-verdict proxy``: a verdict-enforcing MCP proxy (the command line of ``mcp_verdict.proxy``)."""

from __future__ import annotations

import sys

import click

from ..verdict._versions import LATEST_VERSION, VERSIONS

_EPILOG = """\b
Examples:
  mcp-verdict proxy -- python server.py                         stdio host, stdio server (observe)
  mcp-verdict proxy --mode enforce -- npx -y some-mcp-server    refuse unclassified answers
  mcp-verdict proxy --upstream http://127.0.0.1:8000/mcp        stdio host, HTTP server
  mcp-verdict proxy --listen 127.0.0.1:8100 -- python server.py HTTP host, stdio server
  mcp-verdict proxy --listen 127.0.0.1:8100 --upstream http://127.0.0.1:8000/mcp   reverse proxy
"""


def _listen(value: str | None) -> tuple[str, int] | None:
    if value is None:
        return None
    host, sep, port = value.rpartition(":")
    if not sep or not port.isascii() or not port.isdigit():
        raise click.BadParameter("HOST:PORT, e.g. 127.0.0.1:8100", param_hint="--listen")
    if int(port) > 65535:
        raise click.BadParameter(f"the port {port} is not between 0 and 65535", param_hint="--listen")
    return (host.strip("[]") or "127.0.0.1", int(port))


def _header(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for value in values:
        name, sep, text = value.partition(":")
        if not sep or not name.strip():
            raise click.BadParameter(f"{value!r} is not NAME: VALUE", param_hint="--header")
        out.append((name.strip(), text.strip()))
    return tuple(out)


@click.command("proxy", epilog=_EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--mode", type=click.Choice(["observe", "enforce"]), default="observe", show_default=True,
              help="observe: forward every frame unchanged; enforce: refuse unclassified answers.")
@click.option("--refuse-as", type=click.Choice(["error", "tool-error"]), default="error", show_default=True,
              help="What the host gets for a refused tools/call answer (JSON-RPC error -31000, or isError).")
@click.option("--upstream", metavar="URL", help="The upstream's Streamable HTTP endpoint (instead of a command).")
@click.option("--listen", metavar="HOST:PORT", help="Serve Streamable HTTP to the host (instead of stdio).")
@click.option("--path", default="/mcp", show_default=True, help="The MCP endpoint's path with --listen.")
@click.option("--header", "headers", multiple=True, metavar="'NAME: VALUE'",
              help="A header for every upstream HTTP request (repeatable; never logged).")
@click.option("--timeout", type=float, default=120.0, show_default=True,
              help="Seconds a request may wait for its answer before the host gets an error.")
@click.option("--max-frame-bytes", type=int, default=64 * 1024 * 1024, show_default=True,
              help="Frames larger than this are refused (in both directions).")
@click.option("--restart", type=click.Choice(["never", "on-failure", "always"]), default="never",
              show_default=True, help="Restart a stdio upstream that exits.")
@click.option("--max-restarts", type=int, default=5, show_default=True)
@click.option("--grace", type=float, default=5.0, show_default=True,
              help="Seconds the calls in flight get at shutdown: a stdio upstream after its input closes "
                   "(before SIGTERM); an HTTP host after a stop signal (then -31001).")
@click.option("--log", "log", metavar="FILE", help="Write the frame log (format v1, JSON Lines) here.")
@click.option("--verdicts", metavar="FILE", help="Write one verdict line per judged answer here.")
@click.option("--log-payloads", is_flag=True, help="Log the frames' bytes (default: a digest and size only).")
@click.option("--log-max-bytes", type=int, default=64 * 1024 * 1024, show_default=True,
              help="Rotate the log files at this size.")
@click.option("--log-backups", type=int, default=3, show_default=True)
@click.option("--default-version", type=click.Choice(VERSIONS), default=LATEST_VERSION, show_default=True,
              help="The version to judge by when a request does not say (no _meta, no initialize).")
@click.option("--no-otel", is_flag=True, help="No OpenTelemetry spans or metrics even when installed.")
@click.option("--allow-origin", "origins", multiple=True,
              help="With --listen: an Origin the host may send, and on a loopback address a Host (its "
                   "name) (default: none but localhost).")
def proxy_command(command: tuple[str, ...], mode: str, refuse_as: str, upstream: str | None, listen: str | None,
                  path: str, headers: tuple[str, ...], timeout: float, max_frame_bytes: int, restart: str,
                  max_restarts: int, grace: float, log: str | None, verdicts: str | None, log_payloads: bool,
                  log_max_bytes: int, log_backups: int, default_version: str, no_otel: bool,
                  origins: tuple[str, ...]) -> None:
    """Judge every tools/call answer between a host and an MCP server; observe or enforce.

    The host starts `mcp-verdict proxy -- <server command...>` in place of the server (stdio),
    or connects to --listen; the proxy speaks to the server's command or to --upstream URL.
    """
    from ..proxy import ProxyOptions, main

    try:
        options = ProxyOptions(
            command=command, upstream=upstream, listen=_listen(listen), path=path, mode=mode,  # type: ignore[arg-type]
            refuse_as=refuse_as, timeout=timeout, max_frame=max_frame_bytes, restart=restart,  # type: ignore[arg-type]
            max_restarts=max_restarts, grace=grace, log=log, verdicts=verdicts, log_payloads=log_payloads,
            log_max_bytes=log_max_bytes, log_backups=log_backups, otel=not no_otel, default_version=default_version,
            headers=_header(headers), allowed_origins=origins)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        status = main(options)
    except OSError as exc:  # the upstream cannot be started, the address is taken, a log cannot be opened
        click.echo(f"mcp-verdict proxy: {exc.strerror or exc}", err=True)  # (no "[Errno 2]" before it)
        sys.exit(3)
    except KeyboardInterrupt:
        status = 130
    sys.exit(status)
