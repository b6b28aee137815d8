"""Why a connection could not be made: one exception, carrying the cause.

Connecting is spawning the server (stdio) or reaching the URL (HTTP), then the version
negotiation (``server/discover``, or the ``initialize`` handshake). Whatever fails there —
an executable that is not found, a refused connection, a URL without a scheme, an HTTP
status without a JSON-RPC body, a server that exits at start, a step that takes longer than
the timeout, a server that refuses every version — ends in :class:`CannotConnect`, whose
``cause`` says which, and whose message is one line a person can act on. The underlying
exception (often an ``ExceptionGroup`` from a task group) is kept as ``__cause__``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final, Literal
from urllib.parse import urlsplit

from ..frames._jsonrpc import Peek
from ._wire import NOT_MESSAGES, Frame, Request, exchange_of, not_messages, preview, requests

if TYPE_CHECKING:
    from pydantic import ValidationError

Cause = Literal["bad_url", "spawn", "refused", "unreachable", "http_status", "exited", "timeout", "protocol"]
_STDERR_LINES: Final = 5
_MESSAGE_SHOWN: Final = 200
"""The characters of a server's error message a connection failure quotes."""


class CannotConnect(ConnectionError):
    """The client could not connect to the server, or could not agree on a protocol with it.

    ``cause``: ``bad_url`` (no http(s) scheme or host), ``spawn`` (the command could not be
    started), ``refused`` (nothing listens at the address), ``unreachable`` (another network
    failure: DNS, reset, TLS), ``http_status`` (the endpoint answered an HTTP error without a
    JSON-RPC body), ``exited`` (the server process ended), ``timeout`` (a step took longer
    than the client's timeout), ``protocol`` (the server answered, but negotiation failed).
    ``step`` is where it happened: ``spawn``, ``connect``, ``server/discover`` or
    ``initialize``. ``status`` is the HTTP status, ``exit_code`` the process's exit status,
    ``stderr`` the last lines the server wrote to its stderr.
    """

    def __init__(self, cause: Cause, detail: str, *, target: str, step: str, status: int | None = None,
                 exit_code: int | None = None, stderr: Sequence[str] = ()) -> None:
        self.cause: Cause = cause
        self.detail = detail
        self.target = target
        self.step = step
        self.status = status
        self.exit_code = exit_code
        self.stderr = tuple(stderr)
        super().__init__(f"cannot connect to {target}: {detail} (during {step})")


def check_url(url: str) -> str | None:
    """Why ``url`` is not a Streamable HTTP endpoint address, or None."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return (f"the URL {url!r} has no http:// or https:// scheme" if not parts.scheme
                else f"the URL scheme {parts.scheme!r} is not http or https")
    if not parts.hostname:
        return f"the URL {url!r} names no host"
    try:
        parts.port  # noqa: B018 - read for its check: a port past 65535 or not a number raises
    except ValueError as exc:
        return f"the URL {url!r} has a bad port ({exc})"
    return None


def leaves(error: BaseException, _seen: set[int] | None = None) -> Iterator[BaseException]:
    """Every exception inside ``error`` (exception groups opened), followed along ``__cause__``
    and ``__context__`` (each once)."""
    seen = _seen if _seen is not None else set()
    if id(error) in seen:
        return
    seen.add(id(error))
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaves(inner, seen)
    else:
        yield error
    for linked in (error.__cause__, error.__context__):
        if linked is not None:
            yield from leaves(linked, seen)


def last_step(frames: Sequence[Frame]) -> str:
    """The negotiation request sent last (``server/discover``, ``initialize``), else ``connect``."""
    step = "connect"
    for request in requests(frames):
        if request.method in ("server/discover", "initialize"):
            step = request.method
    return step


def stderr_lines(text: str) -> list[str]:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-_STDERR_LINES:]


def diagnose(error: BaseException, *, target: str, frames: Sequence[Frame], timeout: float,
             exit_code: int | None, stderr: str, stdio: bool, stopped: bool = False,
             shed_noise: int = 0) -> CannotConnect:
    """Turn what the connect attempt raised, and what it left on the wire, into one cause.
    ``stopped``: the client itself ended the server process (after a timeout), so its exit
    status is not the cause. ``shed_noise``: stdio noise lines the log counted but did not keep."""
    import httpx2
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    step = last_step(frames)
    tail = stderr_lines(stderr)
    found = list(leaves(error))
    for leaf in found:
        if isinstance(leaf, CannotConnect):
            return leaf
    for leaf in found:
        if isinstance(leaf, (FileNotFoundError, PermissionError, NotADirectoryError)) and stdio and step == "connect":
            return CannotConnect("spawn", f"cannot start the server: {leaf.strerror or leaf}", target=target,
                                 step="spawn")
        if isinstance(leaf, (httpx2.UnsupportedProtocol, httpx2.InvalidURL)):
            return CannotConnect("bad_url", f"bad URL: {leaf}", target=target, step="connect")
        if isinstance(leaf, (httpx2.ConnectError, ConnectionRefusedError)):
            refused = any(isinstance(other, ConnectionRefusedError) or "refused" in str(other).lower()
                          for other in found)
            if refused:
                return CannotConnect("refused", "connection refused (is the server running?)", target=target,
                                     step="connect")
            return CannotConnect("unreachable", f"cannot reach the server: {leaf}", target=target, step="connect")
    posted = {f.exchange for f in frames if f.direction == "out"}  # not the GET stream's own status
    http_error = next((f for f in frames if f.kind == "http_error" and f.exchange in posted), None)
    if http_error is not None and http_error.status is not None and http_error.status >= 400:
        body = http_error.data.decode("utf-8", "replace").partition(": ")[2].strip()
        detail = f"HTTP {http_error.status}" + (f": {preview(body.encode(), 120)}" if body else "")
        return CannotConnect("http_status", detail, target=target, step=step, status=http_error.status)
    broke = next((f for f in frames if f.kind == "eof" and f.exchange in posted), None) if not stdio else None
    if broke is not None:
        return CannotConnect("unreachable", f"the connection broke: {broke.data.decode('utf-8', 'replace')}",
                             target=target, step=step)
    answered = _error_answer(frames) or _version_answer(frames, found)
    if answered is not None:  # what the server said, before what became of it after (the client ends it)
        return CannotConnect("protocol", f"the server answered {step} with {answered}", target=target, step=step,
                             stderr=tail)
    timed_out = any(isinstance(leaf, TimeoutError) or (isinstance(leaf, MCPError) and leaf.code == -32001)
                    for leaf in found)
    if stdio and exit_code is not None and not stopped:  # (ended by the client: its status is no cause)
        detail = f"the server exited with status {exit_code}"
        if tail:
            detail += f"; its stderr ends: {tail[-1].strip()}"
        return CannotConnect("exited", detail, target=target, step=step, exit_code=exit_code, stderr=tail)
    if stdio and not timed_out and not stopped and any(f.kind == "eof" for f in frames):
        return CannotConnect("exited", "the server closed its stdout", target=target, step=step, stderr=tail)
    if stdio and any(f.kind == "send_failed" for f in frames):  # (not the server's answer: the client's own error)
        return CannotConnect("exited", "the server closed its stdin", target=target, step=step, stderr=tail)
    if timed_out:
        noise = _noise(frames, shed_noise) if stdio else ""
        return CannotConnect("timeout", f"no answer within {timeout:g} s{noise}", target=target, step=step, stderr=tail)
    for leaf in found:
        if isinstance(leaf, MCPError):
            return CannotConnect("protocol", f"the server answered {step} with error {leaf.code}: {leaf}",
                                 target=target, step=step, stderr=tail)
    for leaf in found:
        if isinstance(leaf, (httpx2.TransportError, OSError)):
            return CannotConnect("unreachable", f"{type(leaf).__name__}: {leaf}", target=target, step=step)
    for leaf in found:
        if isinstance(leaf, ValidationError):  # (its str is a multi-line report quoting the server's values)
            return CannotConnect("protocol", f"the server answered {step} with {_unreadable(leaf)}", target=target,
                                 step=step, stderr=tail)
    leaf = found[0] if found else error
    return CannotConnect("protocol", f"{type(leaf).__name__}: {leaf}", target=target, step=step, stderr=tail)


def _error_answer(frames: Sequence[Frame]) -> str | None:
    """``error CODE: MESSAGE`` when the last negotiation request was answered with a JSON-RPC
    error (its frame, as the server wrote it), else None."""
    _, look = _last_answer(frames, ("server/discover", "initialize"))
    if look is None or look.kind != "error" or look.message is None:
        return None
    error = look.message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    shown = f"error {code}" if isinstance(code, int) and not isinstance(code, bool) else "an error"
    if isinstance(message, str) and message:
        shown += f": {message if len(message) <= _MESSAGE_SHOWN else message[:_MESSAGE_SHOWN - 1] + '…'}"
    return shown


def _unreadable(error: ValidationError) -> str:
    """``a result that is no valid InitializeResult (capabilities: Field required; 2 more
    problems)``: what the SDK's model refused in an answer, its first problem, in one line."""
    problems = error.errors()
    where = ".".join(str(part) for part in problems[0]["loc"]) if problems else ""
    said = f"{where or 'the result'}: {problems[0]['msg'] if problems else error}"
    said = said if len(said) <= _MESSAGE_SHOWN else said[:_MESSAGE_SHOWN - 1] + "…"
    more = len(problems) - 1
    return f"a result that is no valid {error.title} ({said}" + \
        (f"; {more} more problem{'s' if more > 1 else ''})" if more else ")")


def _noise(frames: Sequence[Frame], shed: int = 0) -> str:
    """What a server that did not answer wrote instead on stdout, when it wrote lines that are
    not JSON-RPC messages (a server logging to stdout): the likely cause. ``shed``: more such
    lines, counted but not kept."""
    noise = [f for f in frames if f.direction == "in" and f.kind == "message" and f.peek().kind in NOT_MESSAGES]
    if not noise:
        return ""
    return f"; the server wrote {not_messages(len(noise) + shed)} on its stdout (first: {preview(noise[0].data)}): " \
        "the likely cause"


def _version_answer(frames: Sequence[Frame], found: Sequence[BaseException]) -> str | None:
    """``protocol version 'X', which the client does not speak (it asked for Y)`` when the SDK
    refused the version the server's ``initialize`` answer chose (its RuntimeError), read from
    that answer; else None."""
    if not any(isinstance(leaf, RuntimeError) and "protocol version" in str(leaf) for leaf in found):
        return None
    asked, look = _last_answer(frames, ("initialize",))
    result = look.result if look is not None and look.kind == "response" else None
    chosen = result.get("protocolVersion") if result is not None else None
    if asked is None or chosen is None:
        return None
    wanted = asked.params.get("protocolVersion")
    return (f"protocol version {preview(str(chosen).encode(), 40)}, which the client does not speak"
            + (f" (it asked for {wanted})" if isinstance(wanted, str) else ""))


def _last_answer(frames: Sequence[Frame], methods: tuple[str, ...]) -> tuple[Request | None, Peek | None]:
    """The last request of ``methods`` among ``frames`` and the routing read of its answer
    (None for either where there is none)."""
    asked = [r for r in requests(frames) if r.method in methods]
    if not asked:
        return None, None
    answer = exchange_of(frames, asked[-1]).answer
    return asked[-1], answer.peek() if answer is not None else None
