"""A server's text in the adapters' exceptions: shown literally (control, escape and bidi characters
as visible escapes, ``verdict/_peer_text``) and bounded (a megabyte of message is never copied
whole into an exception message). FastMCP's client over a ``StrictTransport`` (``VerdictError``)
and a FastMCP proxy with ``VerdictMiddleware`` (the downstream client's ``MCPError``), on a crafted
stdio server (``crafted_answers``) that writes each answer byte for byte."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.server import create_proxy
from mcp.shared.exceptions import MCPError

from mcp_verdict import VerdictError
from mcp_verdict.integrations.fastmcp import StrictTransport, VerdictMiddleware

from .crafted_answers import answer, command

HUGE = 1_000_000
UNKNOWN_EFFECT = ("; next: check_state — the request was sent and its effect is unknown: observe the state before "
                  "anything else; never resend blindly")
NOT_VALID = ("; next: investigate — the response is not a valid tools/call response: quarantine and log it; "
             "never success")
SHOWN = 500
"""How much of one piece of a server's text an exception message shows."""
UNKNOWN_TYPE = " is not recognized and MUST be considered invalid"


def internal_error(message: str) -> str:
    return '{"jsonrpc":"2.0","id":{id},"error":{"code":-32603,"message":"' + message + '"}}'


# case → (the tool's answer (JSON text: \\u escapes are the server's characters), its pad, the
#         exception message's text after "the tools/call answer is "), by hand
CASES: list[tuple[str, str, list[Any] | None, str]] = [
    ("ansi_colour", internal_error("boom \\u001b[31m red"), None,
     "protocol_error (error -32603: boom \\x1b[31m red)" + UNKNOWN_EFFECT),
    ("title_and_bell", internal_error("\\u001b]0;owned\\u0007 x"), None,
     "protocol_error (error -32603: \\x1b]0;owned\\a x)" + UNKNOWN_EFFECT),
    ("carriage_return", internal_error("all good\\rfailed"), None,
     "protocol_error (error -32603: all good\\rfailed)" + UNKNOWN_EFFECT),
    ("bidi_override", internal_error("pay \\u202e01$"), None,
     "protocol_error (error -32603: pay \\u202e01$)" + UNKNOWN_EFFECT),
    ("c1_csi", internal_error("a\\u009b2Jb"), None,
     "protocol_error (error -32603: a\\x9b2Jb)" + UNKNOWN_EFFECT),
    ("megabyte_message", internal_error("{pad}"), ["m", HUGE],
     f"protocol_error (error -32603: {'m' * SHOWN}… ({HUGE} characters in all))" + UNKNOWN_EFFECT),
    # a finding's message quotes the server's value (resultType) by its first 37 characters
    ("megabyte_result_type", answer('{"resultType":"{pad}","content":[]}'), ["r", HUGE],
     "unclassified (result.result_type_unknown at /result/resultType: "
     f"resultType '{'r' * 37}...'{UNKNOWN_TYPE})" + NOT_VALID),
]


def tools(raw: str, pad: list[Any] | None) -> dict[str, Any]:
    return {"tool": {"raw": raw, **({"pad": pad} if pad else {})}}


def run(scenario: Callable[[], Any]) -> Any:
    return anyio.run(scenario)


def differs(shown: str, expected: str) -> str | None:
    """None when ``shown == expected``, else both, their first 3000 characters (pytest's diff of
    two megabyte strings would run for minutes, and a traceback shows a function's arguments)."""
    if shown == expected:
        return None
    return f"{len(shown)} characters: {shown[:3000]!r}\nexpected {len(expected)}: {expected[:3000]!r}"


@pytest.mark.parametrize(("case", "raw", "pad", "expected"), CASES, ids=[case[0] for case in CASES])
def test_fastmcp_verdict_error_shows_the_servers_text_literally_and_bounded(case: str, raw: str,
                                                                             pad: list[Any] | None,
                                                                             expected: str) -> None:
    async def scenario() -> str:
        with anyio.fail_after(30):
            async with Client(StrictTransport(command(tools(raw, pad)))) as client:
                try:
                    await client.call_tool("tool", {})
                except VerdictError as exc:
                    return str(exc)
        return "no VerdictError"

    problem = differs(run(scenario), "the tools/call answer is " + expected)
    assert problem is None, problem


@pytest.mark.parametrize(("case", "raw", "pad", "expected"), CASES, ids=[case[0] for case in CASES])
def test_the_middlewares_error_shows_the_servers_text_literally_and_bounded(case: str, raw: str,
                                                                            pad: list[Any] | None,
                                                                            expected: str) -> None:
    async def scenario() -> str:
        proxy = create_proxy(StrictTransport(command(tools(raw, pad))))
        proxy.add_middleware(VerdictMiddleware())
        with anyio.fail_after(30):
            async with Client(proxy) as client:
                try:
                    await client.call_tool("tool", {})
                except MCPError as exc:
                    return exc.error.message
        return "no MCPError"

    problem = differs(run(scenario), "mcp-verdict refused the upstream answer: the tools/call answer is " + expected)
    assert problem is None, problem
