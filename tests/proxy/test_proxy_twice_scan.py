"""``proxy._twice.may_repeat``: which host frames may give a routing member twice (then read by
``two_readings``), and which surely do not (sent and read as any frame).

RFC 8259 s4 (the names within an object SHOULD be unique). The answer is lexical, as the frame is
written: ``"method"``, ``"id"``, ``"params"``, ``"name"``, ``"taskId"`` each counted where it
appears quoted (a string value counts as a name does), and any ``\\u`` escape (which may spell one
of them). True is "maybe" (``two_readings`` tells); False must be sure. Expected values by hand.
"""

from __future__ import annotations

import pytest

from mcp_verdict.proxy._twice import may_repeat

ROWS = [
    ("a plain tools/call", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}',
     False),
    ("a notification, no id", b'{"jsonrpc":"2.0","method":"notifications/initialized"}', False),
    ("method twice", b'{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}', True),
    ("id twice", b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', True),
    ("params.taskId twice", b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"a","taskId":"b"}}',
     True),
    ("an argument named name: maybe", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a",'
     b'"arguments":{"name":"b"}}}', True),
    ("a value written as a name: maybe", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"method"}}',
     True),
    ("an escape beside a plain name", b'{"jsonrpc":"2.0","id":1,"\\u006dethod":"ping"}', True),
    ("an escape in a value", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"caf\\u00e9"}}', True),
    ("one escape, no plain name", b'{"\\u006dethod":"ping"}', False),
    ("an escaped quote around id in a value", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
     b'"say \\"id\\""}}', False),
    ("id closing a value's escaped quote", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
     b'"say \\"id"}}', True),
    ("two names sharing a quote (not JSON)", b'{"method":"x","params":{"name"id":1}}', False),
    ("one id overlapping itself (not JSON)", b'{"id"id":1}', False),
    ("empty", b"", False),
]


@pytest.mark.parametrize(("frame", "expected"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_may_repeat(frame: bytes, expected: bool) -> None:
    assert may_repeat(frame) is expected
