"""The tap's defaults (``limits``, ``absent_result_type``) changed between two calls in the same
context (the same ``_meta``, so the Tracker gives both requests one context object): each call
is judged under the defaults in force when its answer arrives, never the last call's options.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcp_verdict import Kind, Limits, VerdictTap

from .test_tap_frames import Sink, request, sdk_message

OK = ('{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"complete","content":[{{"type":"text","text":"ok"}}],'
      '"isError":false}}}}')
NO_RESULT_TYPE = '{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":"ok"}}],"isError":false}}}}'

# (answer, the default changed before the second call, the kinds of the two calls, a finding of
# the second). A 2026-07-28 result without resultType is invalid unless absent_result_type says
# "complete" (https://modelcontextprotocol.io/specification/2026-07-28/basic/index); an answer
# past Limits.max_bytes is not read (json.too_large).
CASES: list[tuple[str, str, tuple[str, Any], tuple[Kind, Kind], str | None]] = [
    ("limits lowered", OK, ("limits", Limits(max_bytes=60)), (Kind.NORMAL_COMPLETE, Kind.UNCLASSIFIED),
     "json.too_large"),
    ("absent_result_type complete", NO_RESULT_TYPE, ("absent_result_type", "complete"),
     (Kind.UNCLASSIFIED, Kind.NORMAL_COMPLETE), None),
]


@pytest.mark.parametrize(("answer", "change", "kinds", "finding"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_call_is_judged_under_the_defaults_in_force(answer: str, change: tuple[str, Any],
                                                         kinds: tuple[Kind, Kind], finding: str | None) -> None:
    tap = VerdictTap()
    conn = tap._open("stdio", "defaults")
    proxy = tap.write_stream(Sink(), conn)

    async def call(request_id: int) -> Any:
        with tap.judging() as judged:
            await proxy.send(sdk_message(request_id))
            tap._feed(conn, "c2s", request(request_id))
            tap._feed(conn, "s2c", answer.format(request_id).encode())
        return judged.outcome

    first = asyncio.run(call(1))
    setattr(tap, *change)
    second = asyncio.run(call(2))
    assert (first.verdict.kind, second.verdict.kind) == kinds, second.verdict.findings
    if finding is not None:
        assert finding in [f.code for f in second.verdict.findings]
