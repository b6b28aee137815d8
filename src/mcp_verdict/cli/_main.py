"""The ``mcp-verdict`` command line: the command group, which loads each command when it runs."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Final

import click

from ._style import EXIT_CODES, INTERRUPTED, OUTPUT_FAILED, READER_GONE, OutputFailed, quiet_stdout, stdout_gone


class _LazyGroup(click.Group):
    """Every command is imported only when run: ``--help`` lists them from this table, so it loads
    click alone, and ``classify`` never loads the SDK. A command on an extra's stack, run without
    the extra, prints which extra to install and exits 2."""

    LAZY: Final = {
        "classify": ("mcp_verdict.cli._classify:classify_command", None,
                     "Classify one JSON-RPC response (or JSON Lines of them) from FILE or stdin."),
        "conform": ("mcp_verdict.cli._kit:conform_command", None,
                    "Run every corpus case against a receiver and compare with the labels."),
        "mutants": ("mcp_verdict.cli._kit:mutants_command", None,
                    "Print the kill table: the real classifier, then each mutant of it."),
        "call": ("mcp_verdict.cli._call:call_command", "client",
                 "Call one tool and print its verdict, content check and decision."),
        "tools": ("mcp_verdict.cli._call:tools_command", "client",
                  "List the server's tools with their annotations and schemas."),
        "demo": ("mcp_verdict.cli._demo:demo_command", "client",
                 "Run every tool of the embedded fault-injecting server through the client."),
        "proxy": ("mcp_verdict.cli._proxy:proxy_command", "proxy", "Judge every answer between a host and a server."),
        "audit": ("mcp_verdict.cli._audit:audit_command", "audit",
                  "Audit recorded traffic: every tools/call's verdict, and what a naive receiver concluded."),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.LAZY:
                rows.append((name, self.LAZY[name][2]))
            else:  # pragma: no cover - every command is in the table
                rows.append((name, self.commands[name].get_short_help_str(limit=formatter.width - 6 - len(name))))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        """A command whose reader stopped reading (``| head``) ends quietly with READER_GONE; one
        interrupted (Ctrl-C) ends with INTERRUPTED and one line on stderr, once it has stopped the
        server it started (click would print "Aborted!" and exit 1, a status ``audit`` gives to a
        naive false success); one whose output cannot be written (closed, a full disk) with
        OUTPUT_FAILED and one line on stderr saying why (it was a traceback and status 1, or
        nothing at all and the verdict's status for a closed stdout)."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            if not stdout_gone():
                raise
            quiet_stdout()
            sys.exit(READER_GONE)
        except KeyboardInterrupt:
            click.echo("mcp-verdict: interrupted", err=True)
            sys.exit(INTERRUPTED)
        except OutputFailed as exc:
            quiet_stdout()  # what stays buffered for it is never written again at exit
            with contextlib.suppress(OSError):  # (stderr is what failed)
                click.echo(f"mcp-verdict: cannot write the output: {exc}", err=True)
            sys.exit(OUTPUT_FAILED)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LAZY and cmd_name not in self.commands:
            import importlib

            target, extra, _ = self.LAZY[cmd_name]
            module, _, name = target.partition(":")
            if extra is not None:
                from .._extras import MissingExtra, require

                try:
                    require(extra, f"mcp-verdict {cmd_name}")
                except MissingExtra as exc:
                    return _missing_extra_command(cmd_name, str(exc))
            command: click.Command = getattr(importlib.import_module(module), name)
            return command
        return super().get_command(ctx, cmd_name)


def _missing_extra_command(name: str, message: str) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                           "help_option_names": []})
    def missing() -> None:
        click.echo(f"mcp-verdict: {message}", err=True)
        sys.exit(2)

    return missing


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mcp-verdict")
def main() -> None:
    """Tell truthfully what an MCP tools/call produced, and what to do next."""


__all__ = ["EXIT_CODES", "main"]
