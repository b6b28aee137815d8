"""The bytes of one event of a host's stream (``proxy/_http_host._event``): WHATWG HTML, Server-sent
events, 9.2.6 Interpreting an event stream — each line of the frame its own ``data:`` line (a CR
LF or a LF ends a line; the lines joined with LF again by the host's parser), an ``id:`` only
where the stream's last event id changes, a blank line ending the event; a priming event (MCP
2025-11-25 basic/transports/streamable-http, Resumability: an event id and an empty ``data``
field), with the server's ``retry``."""

from __future__ import annotations

import pytest

from mcp_verdict.proxy._http_host import _event

LONG = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"' + b"x" * 60_000 + b'"}]}}'

# (kind, data, event id, the stream's last event id before it; the bytes written, its last event id after)
CASES = [
    ("frame", b'{"jsonrpc":"2.0","id":1,"result":{}}', None, None,
     b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n', None),
    ("frame", b'{"jsonrpc":"2.0","id":1,"result":{}}', "e-7", None,
     b'event: message\nid: e-7\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n', "e-7"),
    ("frame", b'{"id":1}', "e-7", "e-7", b'event: message\ndata: {"id":1}\n\n', "e-7"),  # (its id, kept)
    ("frame", b'{"id":1}', None, "e-7", b'event: message\ndata: {"id":1}\n\n', "e-7"),
    ("frame", b'{"id":1}', "e-8", "e-7", b'event: message\nid: e-8\ndata: {"id":1}\n\n', "e-8"),
    ("frame", b'{\n  "id": 1\n}', None, None, b'event: message\ndata: {\ndata:   "id": 1\ndata: }\n\n', None),
    ("frame", b'{\r\n"id":1\r\n}\r', None, None, b'event: message\ndata: {\ndata: "id":1\ndata: }\n\n', None),
    ("frame", b'{"id":2}\r\r', None, None, b'event: message\ndata: {"id":2}\n\n', None),
    ("frame", LONG, "e-9", None, b"event: message\nid: e-9\ndata: " + LONG + b"\n\n", "e-9"),
    ("frame", LONG, None, None, b"event: message\ndata: " + LONG + b"\n\n", None),
    ("frame", b'{"id":"\xc3\xa9"}', "\udcff\udcfe", None,
     b'event: message\nid: \xff\xfe\ndata: {"id":"\xc3\xa9"}\n\n', "\udcff\udcfe"),  # (the host's own bytes)
    ("prime", b"", "p-1", None, b"id: p-1\ndata:\n\n", "p-1"),
    ("prime", b"2500", "p-2", "p-1", b"id: p-2\nretry: 2500\ndata:\n\n", "p-2"),
]


@pytest.mark.parametrize(("kind", "data", "event_id", "written", "wire", "after"), CASES)
def test_an_event_is_written_as_its_bytes(kind: str, data: bytes, event_id: str | None, written: str | None,
                                          wire: bytes, after: str | None) -> None:
    assert _event(kind, data, event_id, written) == (wire, after)
