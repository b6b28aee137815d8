"""A wrong judging option of the tap is an ``OptionError`` when the judging block is made, before
any request is sent: ``tap.judging(...)`` raises it, ``tap.call_tool(...)`` raises it before it
calls. Since the judgement checks its options (``judging_options``; classify's ``check_option``
for ``limits`` and ``absent_result_type``), the tap handed them on when it judged the call: the
call was made, the tool ran, and the OptionError came out of ``judged.outcome`` (or
``call_tool``) afterwards; ``observe`` was checked by ``settle`` after the call too.

The SDK's ``Client`` on a crafted stdio server that counts the ``tools/call`` requests it
receives (``crafted_answers``, ``runs``): the server never receives the call. The messages and
the options they name are written by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_verdict import Observe, OptionError, VerdictTap

from .crafted_answers import answer, command

DONE = answer('{"resultType":"complete","content":[{"type":"text","text":"done"}],"isError":false}')
EXPECTATION = ("an expectation (a JSON Schema (a dict or a bool), a pydantic model class, a pydantic TypeAdapter or a "
               "plain (not async) callable taking the verdict), a list or tuple of them, or None")


async def _read() -> Any:
    return None


# the option given → the OptionError's option and message (by hand)
WRONG: list[tuple[str, dict[str, Any], str, str]] = [
    ("expect of no kind", {"expect": 42}, "expect", f"expect must be {EXPECTATION}, not 42"),
    ("expect: a schema that cannot be used", {"expect": [{"type": 7}]}, "expect[0]",
     "expect[0] is a JSON Schema that cannot be used: at /type: the schema is invalid: 7 is not valid under any "
     "of the schemas listed in the 'anyOf' keyword"),
    ("suspects None", {"suspects": None}, "suspects", "suspects must be an iterable of Suspect values, not None"),
    ("suspects holding a number", {"suspects": [1]}, "suspects[0]",
     "suspects must hold Suspect values, not 1 (suspects[0])"),
    ("schema_limits a dict", {"schema_limits": {}}, "schema_limits", "schema_limits must be a SchemaLimits, not {}"),
    ("tool a string", {"tool": "tool"}, "tool", "tool must be the tool as listed (a mapping) or None, not 'tool'"),
    ("trusted_server a string", {"trusted_server": "yes"}, "trusted_server",
     "trusted_server must be True or False, not 'yes'"),
    ("limits a string", {"limits": "x"}, "limits", "limits must be a Limits, not 'x'"),
    ("absent_result_type unknown", {"absent_result_type": "maybe"}, "absent_result_type",
     "absent_result_type must be \"invalid\" or \"complete\", not 'maybe'"),
]
# call_tool alone: observe (settle's check)
OBSERVE: list[tuple[str, dict[str, Any], str, str]] = [
    ("observe not an Observe", {"observe": "later"}, "observe", "observe must be an Observe, not 'later'"),
    ("observe with a tool to call", {"observe": Observe.tool_call("tool", {}, until=bool)}, "observe",
     "Observe.tool_call needs a client to call the read tool; pass read= instead"),
]
CASES = [(case, given, option, message, way) for way in ("judging", "call_tool")
         for case, given, option, message in WRONG + (OBSERVE if way == "call_tool" else [])]


@pytest.mark.parametrize(("case", "given", "option", "message", "way"), CASES,
                         ids=[f"{c[4]}-{c[0]}" for c in CASES])
def test_a_wrong_judging_option_is_refused_before_the_call(case: str, given: dict[str, Any], option: str,
                                                           message: str, way: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"

    async def scenario() -> tuple[OptionError, Any]:
        tap = VerdictTap()
        executable, *args = command({"tool": {"raw": DONE}}, runs=str(runs))
        with anyio.fail_after(30):
            async with Client(tap.stdio_transport(executable, args)) as client:
                with pytest.raises(OptionError) as caught:
                    if way == "call_tool":
                        await tap.call_tool(client, "tool", {}, **given)
                    else:
                        async with tap.judging(client, **given):
                            await client.call_tool("tool", {})
                received = runs.read_text() if runs.exists() else ""
                after = await tap.call_tool(client, "tool", {})  # the connection goes on; the server counts
                return caught.value, (received, after.decision.action.value, runs.read_text())

    error, (received, action, counted) = anyio.run(scenario)
    assert (error.option, str(error)) == (option, message)
    assert received == ""  # the server never received the call
    assert (action, counted) == ("accept", "tool\n")


VERSIONS = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
# VerdictTap's own options (the defaults of every judgement) → the OptionError's option and message
# (by hand). Before, the tap took them as given and the first answer judged raised the
# OptionError from inside the transport's read of that answer (trusted_server, limits,
# absent_result_type), or nothing checked them at all (log_payloads, name).
WRONG_TAP: list[tuple[str, dict[str, Any], str, str]] = [
    ("trusted_server a string", {"trusted_server": "yes"}, "trusted_server",
     "trusted_server must be True or False, not 'yes'"),
    ("limits a number", {"limits": 5}, "limits", "limits must be a Limits, not 5"),
    ("absent_result_type unknown", {"absent_result_type": "maybe"}, "absent_result_type",
     "absent_result_type must be \"invalid\" or \"complete\", not 'maybe'"),
    ("default_version unknown", {"default_version": "1999-01-01"}, "default_version",
     f"default_version must be one of {VERSIONS}, not '1999-01-01'"),
    ("log_payloads None", {"log_payloads": None}, "log_payloads", "log_payloads must be True or False, not None"),
    ("name a number", {"name": 5}, "name", "name must be a string, not 5"),
]


@pytest.mark.parametrize(("case", "given", "option", "message"), WRONG_TAP, ids=[row[0] for row in WRONG_TAP])
def test_a_wrong_tap_option_is_refused_when_the_tap_is_made(case: str, given: dict[str, Any], option: str,
                                                              message: str) -> None:
    with pytest.raises(OptionError) as caught:
        VerdictTap(**given)
    assert (caught.value.option, str(caught.value)) == (option, message)
