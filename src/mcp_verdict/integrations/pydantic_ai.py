"""pydantic-ai: an ``MCPToolset`` whose calls are judged from their bytes.

``strict_toolset(url_or_command, ...)`` builds pydantic-ai's ``MCPToolset`` over FastMCP's
client with :class:`~mcp_verdict.integrations.fastmcp.StrictTransport` as its transport, and a
``process_tool_call`` hook (wrapping yours, if given)::

    agent = Agent(model, toolsets=[strict_toolset("http://127.0.0.1:8000/mcp")])

- an ``unclassified`` answer (``isError: "false"``, a duplicated ``isError``, an unknown
  ``resultType``, a broken frame) becomes a failed tool return carrying the reason
  (``ToolFailed``: the model sees the failure, is not told to retry); ``on_unclassified="raise"``
  raises the :class:`~mcp_verdict.VerdictError` out of the run instead;
- a tool error keeps pydantic-ai's tool-error behaviour (``tool_error_behavior``: a ``ModelRetry``
  by default);
- a failure whose effect is unknown (a timeout or -32603 after a write was sent: ``check_state``;
  any other server error after the call was sent, -32000...: ``investigate``) or that names a step
  to take first (``fulfil_input``, ``renegotiate``, ``add_capability``) is never turned into a
  ``ModelRetry``: it is a failed tool return telling the model not to call the tool again blindly
  — pydantic-ai's stock toolset asks the model to retry every protocol error, so a write runs
  again. Only a retry-safe failure (``decide``: ``retry``, ``fix_request``, ``return_to_model``)
  stays a ``ModelRetry``.

``verdict_process_tool_call(...)`` is the hook alone, for a toolset you build yourself over a
StrictTransport.
"""

from __future__ import annotations

from .._extras import require

require("pydantic-ai", "mcp_verdict.integrations.pydantic_ai")

from collections.abc import Awaitable, Callable, Mapping, Sequence  # noqa: E402 - after the extra is checked
from typing import Any, Final, Literal  # noqa: E402

from pydantic_ai.exceptions import ToolFailed  # noqa: E402
from pydantic_ai.mcp import MCPToolset  # noqa: E402

from ..judgement._check import Expectation  # noqa: E402
from ..judgement._decide import DEFAULT_RETRY, RetryPolicy  # noqa: E402
from ..judgement._suspect import call_problem  # noqa: E402
from ..tap import VerdictError, VerdictTap  # noqa: E402
from ..verdict._classify import OptionError  # noqa: E402
from ..verdict._shown import shown  # noqa: E402
from ._policy import judged_of, may_run_again, model_message, one_of  # noqa: E402
from .fastmcp import StrictTransport  # noqa: E402

__all__ = ["strict_toolset", "verdict_process_tool_call"]

ProcessToolCall = Callable[[Any, Any, str, dict[str, Any]], Awaitable[Any]]
_HOOK: Final = "an async callable (a process_tool_call hook) or None"


def _refusal(error: BaseException) -> VerdictError | None:
    if isinstance(error, VerdictError):
        return error
    if isinstance(error, BaseExceptionGroup):
        found = [e for e in (_refusal(inner) for inner in error.exceptions) if e is not None]
        return found[0] if found else None
    return None


def verdict_process_tool_call(inner: ProcessToolCall | None = None, *,
                              on_unclassified: Literal["fail", "raise"] = "fail") -> ProcessToolCall:
    """A ``process_tool_call`` hook: refusals, and failures that must not run again (whatever form
    the toolset gave them: a protocol error is a ``ModelRetry``), become failed tool returns with
    the reason."""
    one_of("on_unclassified", on_unclassified, ("fail", "raise"))
    if inner is not None and not callable(inner):
        raise OptionError("process_tool_call", _HOOK, inner)
    problem = None if inner is None else call_problem(inner, 4)
    if problem is not None:  # known now, not as a TypeError inside the toolset's first call
        raise OptionError("process_tool_call", _HOOK, inner,
                          f"process_tool_call must be {_HOOK} taking (ctx, call_tool, name, tool_args); "
                          f"{shown(inner)} cannot take them: {problem}")

    async def process_tool_call(ctx: Any, call_tool: Any, name: str, tool_args: dict[str, Any]) -> Any:
        try:
            if inner is not None:
                return await inner(ctx, call_tool, name, tool_args)
            return await call_tool(name, tool_args)
        except Exception as exc:
            refused = _refusal(exc)
            if refused is None:
                known = judged_of(exc)
                if known is None or may_run_again(known[0]):
                    raise
                refused = VerdictError(known[0], response=known[1])
            if on_unclassified == "raise":
                raise refused from exc
            raise ToolFailed(model_message(refused.outcome)) from exc

    return process_tool_call


def strict_toolset(target: str | Sequence[str] | StrictTransport, args: Sequence[str] = (), *,
                   tap: VerdictTap | None = None, trusted_server: bool = False,
                   expect: Expectation | Sequence[Expectation] | None = None,
                   env: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None, auth: Any = None,
                   retry: RetryPolicy | None = None, on_unclassified: Literal["fail", "raise"] = "fail",
                   process_tool_call: ProcessToolCall | None = None,
                   **toolset_options: Any) -> MCPToolset[Any]:
    """``MCPToolset`` over a StrictTransport (an ``http(s)://`` URL, or a command and ``args``),
    with the verdict hook; other options go to ``MCPToolset`` as they are. Given a StrictTransport,
    the transport's own options (``args``, ``tap``, ``trusted_server``, ``expect``, ``env``,
    ``headers``, ``auth``, ``retry``) are its own: passing them here too is an ``OptionError`` (a
    ValueError).
    ``retry`` is the policy ``decide`` follows (the StrictTransport's: ``DEFAULT_RETRY`` when not
    given): nothing runs a call again but the model, on a ``retry`` decision (a ``ModelRetry``,
    up to the toolset's ``max_retries``); ``RetryPolicy(max_attempts=1)`` decides no retry."""
    if isinstance(target, StrictTransport):
        given = {"args": args, "tap": tap, "trusted_server": trusted_server, "expect": expect, "env": env,
                 "headers": headers, "auth": auth, "retry": retry}
        # given: anything but the defaults, told by identity and type (the value's own __eq__ is caller code)
        ignored = [name for name, value in given.items()
                   if value is not None and value is not False and not (type(value) is tuple and not value)]
        if ignored:
            them = "them" if len(ignored) > 1 else "it"
            raise OptionError(ignored[0], "not given with a StrictTransport (an option of the transport's own)",
                              given[ignored[0]], f"{', '.join(ignored)}, given with a StrictTransport, would be "
                              f"ignored: give {them} to the StrictTransport")
        transport = target
    else:
        transport = StrictTransport(target, args, env=env, headers=headers, auth=auth, tap=tap,
                                    trusted_server=trusted_server, expect=expect,
                                    retry=DEFAULT_RETRY if retry is None else retry)
    hook = verdict_process_tool_call(process_tool_call, on_unclassified=on_unclassified)
    toolset: MCPToolset[Any] = MCPToolset(transport, process_tool_call=hook, **toolset_options)
    return toolset
