"""stdio for any SDK session, read as bytes: every line recorded before the SDK parses it.

The SDK's own ``stdio_client`` decodes the server's stdout as text and parses each line inside
its reader, with no hook for the bytes; invalid UTF-8 or an unparseable line becomes an
exception the call never sees, and the call waits for its timeout. This transport reads bytes,
feeds every line to the tap (which pairs it with its request by id, or by the id it recovers from
a broken line), hands the SDK its messages, and when the SDK cannot read a line that answers one
of its requests, answers that request at once with a JSON-RPC parse error — so the call ends now,
and its verdict comes from the recorded bytes (``json.syntax``, ``json.encoding``...). Outgoing
messages are written as the SDK's own stdio transport writes them; one the SDK cannot write (a
string with a lone surrogate, in an id a caller chose or in the arguments) is not sent: a request
gets a JSON-RPC error on the read stream at once, the client's answer to a server's request is
replaced by a JSON-RPC error under that request's id (the server waits for no answer), a
notification is dropped, each noted — where the SDK's own transport ends the connection.

The server runs in a process group of its own; shutdown follows the spec (basic/transports/stdio):
close the server's stdin, wait, terminate, wait, kill, and what it left running in its group is
ended too (``_process``, shared with ``VerdictClient``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from os import PathLike
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc

from ..frames import Answered, LineReader, Stray, error_json, may_be_message
from ..verdict._peer_text import cut, neutral
from ._process import start, stop
from ._sdk import answer_id_of, request_of, sdk

if TYPE_CHECKING:
    from ._tap import VerdictTap

_PARSE_ERROR: Final = -32700
_INTERNAL_ERROR: Final = -32603
_WHY_SHOWN: Final = 500
"""The most characters of the SDK's exception text for a message it cannot write (and its count)."""
_UNREADABLE: Final = "mcp-verdict tap: the SDK cannot read the server's answer (the verdict has the details)"
_NO_ID: Final = "mcp-verdict tap: the server answered with an error without the request's id"
_LOOSE: Final = ("mcp-verdict tap: the server's answer carries the request's id as another JSON type "
                 "(the verdict has the details)")



@asynccontextmanager
async def stdio_transport(tap: VerdictTap, command: str, args: list[str], env: Mapping[str, str] | None, *,
                          cwd: str | PathLike[str] | None, max_bytes: int) -> AsyncIterator[tuple[Any, Any]]:
    if not command:
        raise ValueError("the server command is empty")
    kit = sdk()
    environment = kit.default_environment() | dict(env or {})
    process = await start([command, *args], environment, cwd)
    conn = tap._open("stdio", f"pid {process.pid}: {command} {' '.join(args)}".strip())
    to_client, from_server = anyio.create_memory_object_stream[Any](100)
    to_server, from_client = anyio.create_memory_object_stream[Any](100)

    async def deliver(line: bytes) -> None:
        loose = None
        if not may_be_message(line):  # a debug print: noise, never an answer (the verdict warns of it)
            tap._note(conn, "s2c", "noise", "not a JSON-RPC message", data=line)
            answered = []
        else:
            events = tap._feed(conn, "s2c", line)
            answered = [e.exchange for e in events if isinstance(e, Answered) and e.exchange.origin == "client"]
            if not answered and events and isinstance(events[0], Stray):
                loose = tap._loosely_waiting(conn, events[0])
        try:
            message: Any = kit.parse(line)
        except ValueError as exc:
            # fail the request it answers now (the verdict reads the recorded bytes); else what
            # the SDK's own transport hands the session for a line it cannot read
            message = kit.error(answered[0].request_id, _PARSE_ERROR, _UNREADABLE) if answered else exc
        else:
            look = answered[0].response_peek if answered else None
            if look is not None and look.kind == "error" and look.id is None:
                # an error without the request's id (the server could not read it): the SDK drops
                # it, and its call would wait for its timeout; it gets the error under its own id
                error = look.message.get("error") if look.message is not None else None
                code = error.get("code") if isinstance(error, dict) else None
                text = error.get("message") if isinstance(error, dict) else None
                message = kit.error(answered[0].request_id, code if type(code) is int else _PARSE_ERROR,
                                    text if isinstance(text, str) else _NO_ID)
        if loose is not None:  # an id the SDK cannot pair (3.0 or "3" for 3): that call fails now
            message = kit.error(loose.request_id, _PARSE_ERROR, _LOOSE)
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await to_client.send(message)

    async def read_stdout() -> None:
        assert process.stdout is not None
        lines = LineReader(max_bytes)
        try:
            async for chunk in process.stdout:
                for line in lines.feed(chunk):
                    if not line.cut:
                        await deliver(line.data.removesuffix(b"\r"))
                        continue
                    await deliver(line.data)  # classify says json.too_large of a cut line's start
                    tap._note(conn, "s2c", "error", f"a line longer than {max_bytes} bytes: its first "
                                                    f"{max_bytes + 1} bytes were judged, the rest skipped")
            for line in lines.close():  # the last line, when no LF ended it (the server wrote it and exited)
                await deliver(line.data.removesuffix(b"\r"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass
        finally:
            code = process.returncode
            reason = f"the server closed its stdout{'' if code is None else f' (exit {code})'}"
            tap._note(conn, "s2c", "eof", reason)
            tap._close(conn, reason)
            to_client.close()

    async def drain_stderr() -> None:
        assert process.stderr is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            async for _ in process.stderr:
                pass

    async def unwritable(session_message: Any, error: Exception) -> bytes | None:
        """What stands for a message the SDK cannot write: its request is answered on the read
        stream with a JSON-RPC error (never sent: the verdict says so); the client's answer to a
        server's request becomes a JSON-RPC error under that id, the bytes returned to send; a
        notification is dropped. Each is noted."""
        why = neutral(f"the SDK cannot write the message: {type(error).__name__}: {cut(str(error), _WHY_SHOWN)}")
        request = request_of(session_message)
        if request is not None:
            tap._not_written(conn, request[1], why)
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await to_client.send(kit.error(request[1], _INTERNAL_ERROR,
                                               f"mcp-verdict tap: {why} (the request was not sent)"))
            return None
        tap._note(conn, "c2s", "error", why)
        answer = answer_id_of(session_message)
        if answer is None or answer[0] is None:
            return None
        return error_json(answer[0], _INTERNAL_ERROR, "mcp-verdict tap: the client could not write its answer")

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async for session_message in from_client:
                try:
                    data = kit.dump(session_message)
                except Exception as exc:  # the SDK's serialisation refused it: that message fails, not the rest
                    unsent = await unwritable(session_message, exc)
                    if unsent is None:
                        continue
                    data = unsent
                tap._feed(conn, "c2s", data)
                try:
                    await process.stdin.send(data + b"\n")
                except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                    tap._not_sent(conn, data)
                    raise
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            tap._note(conn, "c2s", "error", "the server's stdin is closed")
            tap._close(conn, "the server's stdin is closed")
            to_client.close()

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(drain_stderr)
        group.start_soon(write_stdin)
        try:
            yield from_server, tap.write_stream(to_server, conn)
        finally:
            with anyio.CancelScope(shield=True):
                to_server.close()
                await stop(process)
                tap._close(conn, "the client closed the connection")
            group.cancel_scope.cancel()

