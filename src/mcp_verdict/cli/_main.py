"""The ``mcp-verdict`` command line: the command group, which loads each command when it runs."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, Final

import click

from ._style import (
    EXIT_CODES,
    INTERRUPTED,
    OUTPUT_FAILED,
    READER_GONE,
    OutputFailed,
    output_errors,
    quiet_stdout,
    require_stdout,
    stdout_gone,
)


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

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        """The group's own ``--help`` and ``--version`` write while its arguments are read, before
        :meth:`invoke`: they end as every command's output does (they were a traceback and status 1
        on a full stdout, status 1 for a reader gone, status 0 and nothing for a closed stdout)."""
        with _ending():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        """A command whose reader stopped reading (``| head``) ends quietly with READER_GONE; one
        interrupted (Ctrl-C) ends with INTERRUPTED and one line on stderr, once it has stopped the
        server it started (click would print "Aborted!" and exit 1, a status ``audit`` gives to a
        naive false success); one whose output cannot be written (closed, a full disk) with
        OUTPUT_FAILED and one line on stderr saying why (it was a traceback and status 1, or
        nothing at all and the verdict's status for a closed stdout)."""
        with _ending():
            return super().invoke(ctx)

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        return _guarded(super().get_help_option(ctx))

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
            _guarded(command.get_help_option(ctx))  # (the option is made once per command, and kept)
            return command
        return super().get_command(ctx, cmd_name)


@contextlib.contextmanager
def _ending() -> Iterator[None]:
    """How a command ends when its output is gone: see :meth:`_LazyGroup.invoke`."""
    try:
        yield
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


def _guarded(option: click.Option | None) -> click.Option | None:
    """An eager option that prints and exits (``--help``, ``--version``) made to say a stdout it
    cannot write to as every command does: closed (it printed nothing, status 0) or whose write
    fails (a traceback) raise :class:`OutputFailed`; a reader gone stays ``BrokenPipeError``."""
    if option is None or option.callback is None or getattr(option.callback, "_guarded", False):
        return option
    callback = option.callback

    def guarded(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if not value or ctx.resilient_parsing:
            return callback(ctx, param, value)
        require_stdout()
        with output_errors():
            return callback(ctx, param, value)

    guarded._guarded = True  # type: ignore[attr-defined]
    option.callback = guarded
    return option


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


for _param in main.params:
    if isinstance(_param, click.Option) and _param.name == "version":
        _guarded(_param)


__all__ = ["EXIT_CODES", "main"]
