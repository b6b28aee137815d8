"""A message the SDK cannot write on the tap's stdio transport. The SDK serialises each message
with pydantic, which raises ``PydanticSerializationError`` for a string holding a lone surrogate
(no UTF-8 carries one): in a request id a caller chose (JSON-RPC 2.0 section 4: an id is any
String; the caller puts its own ``SessionMessage`` on the tap's streams), in a call's arguments,
in the client's answer to a server's request, in a notification. The tap's writer let that
exception out: the transport's task group ended, and the whole connection with it (the SDK's own
stdio transport ends the same way). Now that message alone fails, and the connection carries on:

- a request is not sent; it gets a JSON-RPC error (-32603) under its own id on the read stream
  at once, and its verdict is ``transport.unwritable`` "the request was not sent" (``request_sent``
  False), decided ``fix_request``: sent again unchanged it fails the same way (RFC 8259 section
  8.2: a lone surrogate encodes no Unicode character). It was ``transport.error``, decided
  ``retry`` (nothing reached the server);
- the client's answer to a server's request is replaced by a JSON-RPC error under that request's
  id, so the server waits for nothing;
- a notification is dropped;

each noted in the frame log, and the next call is answered. The server is real
(tests/servers/echo_answers.py, which says what it received); the expected values are written by
hand. Over Streamable HTTP the same message fails inside the SDK's own POST task (httpx2's JSON
encoding, before the tap's recording transport sees a request): not the tap's code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from mcp_verdict import OptionError, VerdictTap

from .peers import DEMO_STDIO

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "tests.servers.echo_answers"]
WHY = ("the SDK cannot write the message: PydanticSerializationError: Error serializing to JSON: "
       "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in position {at}: surrogates not "
       "allowed")
NOT_SENT = "mcp-verdict tap: " + WHY + " (the request was not sent)"
CALL = {"name": "plain", "arguments": {}}


def request(request_id: Any, params: dict[str, Any]) -> SessionMessage:
    return SessionMessage(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params=params))


# (what the caller writes) → what it reads next (its type, id, and the error's code and message or
# the server's echo), and the verdicts of the judged block (finding codes, request_sent, the
# decision's action and rule); by hand
UNWRITABLE = (["transport.unwritable"], False, "fix_request", "unwritable")
CASES: list[tuple[str, SessionMessage, tuple[str, Any, Any], list[tuple[list[str], bool, str, str]]]] = [
    ("request id with a lone surrogate", request("a\ud800b", CALL),
     ("JSONRPCError", "a\ud800b", (-32603, NOT_SENT.format(at=1))), [UNWRITABLE]),
    ("arguments with a lone surrogate", request(7, {"name": "plain", "arguments": {"text": "x\ud800"}}),
     ("JSONRPCError", 7, (-32603, NOT_SENT.format(at=1))), [UNWRITABLE]),
    ("the client's answer with a lone surrogate",
     SessionMessage(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=5, result={"text": "\ud800"})),
     ("JSONRPCNotification", None, {"jsonrpc": "2.0", "id": 5, "error": {
         "code": -32603, "message": "mcp-verdict tap: the client could not write its answer"}}), []),
    ("a notification with a lone surrogate",
     SessionMessage(mcp_types.JSONRPCNotification(jsonrpc="2.0", method="notifications/message",
                                                  params={"level": "info", "data": "\ud800"})),
     ("JSONRPCResponse", 1, {"content": [{"type": "text", "text": "done"}], "isError": False}), []),
]


@pytest.mark.parametrize(("case", "written", "read", "verdicts"), CASES, ids=[c[0] for c in CASES])
def test_a_message_the_sdk_cannot_write_fails_alone(case: str, written: SessionMessage, read: tuple[str, Any, Any],
                                                    verdicts: list[tuple[list[str], bool, str, str]],
                                                    tmp_path: Path) -> None:
    async def scenario() -> tuple[Any, list[Any], Any, str]:
        with anyio.fail_after(20), VerdictTap(frame_log=tmp_path / "frames.jsonl") as tap:
            async with tap.stdio_transport(SERVER[0], SERVER[1:], cwd=ROOT) as (reader, writer):
                async with tap.judging() as judged:
                    await writer.send(written)
                    if read[0] == "JSONRPCResponse":  # a dropped notification: nothing to read before a call
                        await writer.send(request(1, CALL))
                    received = await reader.receive()
                # the connection lives on: the next call on it is answered
                await writer.send(request(2, CALL))
                after = await reader.receive()
            return received.message, judged.calls, after.message, (tmp_path / "frames.jsonl").read_text()

    message, calls, after, log = anyio.run(scenario)
    kind, request_id, detail = read
    assert type(message).__name__ == kind
    if kind == "JSONRPCError":
        assert (message.id, message.error.code, message.error.message) == (request_id, *detail)
    elif kind == "JSONRPCNotification":
        assert message.params["data"] == detail  # what the server received instead of the answer
    else:
        assert (message.id, message.result) == (request_id, detail)
    judged = [([f.code for f in c.verdict.findings], c.outcome.request_sent, c.outcome.decision.action.value,
               c.outcome.decision.rule) for c in calls if c.request_id != 1]
    assert judged == verdicts
    for call in calls:
        if not call.outcome.request_sent:
            assert call.verdict.findings[0].message == "the request was not sent: " + WHY.format(at=1)
    assert (type(after).__name__, after.id) == ("JSONRPCResponse", 2)
    assert '"kind":"error"' in log and "the SDK cannot write the message" in log


def test_the_sdks_call_with_arguments_it_cannot_write_fails_and_the_session_goes_on() -> None:
    """The official SDK's Client over the tap's stdio transport to the demo server: the SDK's own
    ``call_tool`` in a judging block fails alone (the transport's rule above); the tap's
    ``call_tool`` refuses the same arguments before anything is written (``frames/_sendable``:
    an ``OptionError``, as ``VerdictClient``'s), and the session goes on after both."""
    async def scenario() -> tuple[Any, str, Any]:
        tap = VerdictTap()
        with anyio.fail_after(20):
            async with Client(tap.stdio_transport(DEMO_STDIO[0], DEMO_STDIO[1:])) as client:
                async with tap.judging() as judged:
                    with pytest.raises(MCPError, match="the request was not sent"):  # the -32603 the tap answered
                        await client.call_tool("get_forecast", {"city": "Lis\ud800bon"})
                with pytest.raises(OptionError) as refused:
                    await tap.call_tool(client, "get_forecast", {"city": "Lis\ud800bon"})
                return judged.outcome, str(refused.value), await tap.call_tool(client, "get_forecast",
                                                                               {"city": "Lisbon"})

    failed, refused, after = anyio.run(scenario)
    assert ([f.code for f in failed.verdict.findings], failed.verdict.kind.value, failed.request_sent,
            failed.decision.action.value) == (["transport.unwritable"], "unclassified", False, "fix_request")
    assert failed.verdict.findings[0].message == "the request was not sent: " + WHY.format(at=3)
    assert refused == ("arguments['city'] must be a string UTF-8 can carry (this one holds a lone surrogate), "
                       "not 'Lis\\ud800bon'")
    assert (after.verdict.kind.value, after.decision.action.value) == ("normal_complete", "accept")
