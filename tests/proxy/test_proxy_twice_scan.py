"""``proxy._twice.may_repeat``: which host frames may give a routing member twice (then read by
``two_readings``), and which surely do not (sent and read as any frame).

RFC 8259 s4 (the names within an object SHOULD be unique). The answer is lexical, as the frame is
written: ``"method"``, ``"id"``, ``"params"``, ``"name"``, ``"taskId"`` each counted where it
appears quoted (a string value counts as a name does), and any ``\\u`` escape (which may spell one
of them). True is "maybe" (``two_readings`` tells); False must be sure. Expected values by hand.
"""

from __future__ import annotations

import pytest

from mcp_verdict.proxy import Relay
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


TWICE = b'{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"t","arguments":{}}}'
"""A request whose method reads two ways: enforce answers it itself, -32600 (JSON-RPC 2.0 s5.1), unsent."""

VOUCHED = [
    ("none vouched", None, True),
    ("an equal copy vouched: scanned all the same", bytes(bytearray(TWICE)), True),
    ("other bytes vouched", b'{"jsonrpc":"2.0","id":1,"method":"ping"}', True),
]


@pytest.mark.parametrize(("vouched", "refused"), [row[1:] for row in VOUCHED], ids=[row[0] for row in VOUCHED])
def test_the_relay_skips_its_scan_for_the_very_bytes_vouched_for_alone(vouched: bytes | None, refused: bool) -> None:
    """``Relay.unrepeated``: the bridge, which asked ``may_repeat`` before it sent a frame in enforce,
    names the frame it found none in; the relay skips its own scan for that very object only, and
    forgets it after the call (a copy, or any other frame, is scanned)."""
    relay = Relay(mode="enforce")
    relay.unrepeated = vouched
    outs = relay.from_host(TWICE)
    assert [(out.to, b'"code":-32600' in out.data) for out in outs] == [("host", refused)]
    assert relay.unrepeated is None
