"""A peer's line breaks on the verdict's span: the README promises the status description is "the
outcome in one line" and that the tool's name and the request's id show "control, escape and
bidi characters as visible escapes", but LF and TAB (C0 controls) and U+2028/U+2029 went through
as they were — a server's error message ``"bad\\n..."`` split the status description (and the
message of a ``VerdictError``, which is the same line) into lines the server wrote. They are
visible escapes now, as ESC and the bidi controls were already. :func:`record` outside any span
(a span of its own) on the OpenTelemetry SDK's in-memory exporter (``test_otel``); the verdicts
are ``classify``'s of wire answers."""

from __future__ import annotations

from typing import cast

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from mcp_verdict import classify, evaluate
from mcp_verdict.otel import record
from mcp_verdict.tap import VerdictError

from .test_otel import EXPORTER

TAIL = "; next: investigate — error -32000 has no defined recovery"

# (label, the tool's name, the wire answer) → (span name, gen_ai.tool.name, jsonrpc.request.id,
# the status description); by hand
CASES: list[tuple[str, str, bytes, tuple[str, str, str, str]]] = [
    ("LF in the message, the name and the id", "get\nforecast",
     b'{"jsonrpc":"2.0","id":"a\\nb","error":{"code":-32000,"message":"bad\\nINFO all is well"}}',
     ("tools/call get\\nforecast", "get\\nforecast", "a\\nb",
      "the tools/call answer is protocol_error (error -32000: bad\\nINFO all is well)" + TAIL)),
    ("TAB and the Unicode line and paragraph separators", "t\tu\u2028v\u2029w",
     b'{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"x\\ty\\u2028z\\u2029"}}',
     ("tools/call t\\tu\\u2028v\\u2029w", "t\\tu\\u2028v\\u2029w", "7",
      "the tools/call answer is protocol_error (error -32000: x\\ty\\u2028z\\u2029)" + TAIL)),
    ("CR, ESC and a bidi control, as before", "a\r\x1b[2J\u202eb",
     b'{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"\\r\\u001b[2J\\u202e"}}',
     ("tools/call a\\r\\x1b[2J\\u202eb", "a\\r\\x1b[2J\\u202eb", "1",
      "the tools/call answer is protocol_error (error -32000: \\r\\x1b[2J\\u202e)" + TAIL)),
]


@pytest.mark.parametrize(("tool", "wire", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_peers_line_breaks_stay_on_one_line(tool: str, wire: bytes, expected: tuple[str, str, str, str]) -> None:
    EXPORTER.clear()
    outcome = evaluate(classify(wire), None)
    span = cast(ReadableSpan, record(outcome, tool=tool))
    attributes = span.attributes or {}
    assert (span.name, attributes["gen_ai.tool.name"], attributes["jsonrpc.request.id"],
            span.status.description) == expected
    assert str(VerdictError(outcome)) == expected[3]  # the same line
    EXPORTER.clear()
