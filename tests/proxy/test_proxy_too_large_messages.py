"""A frame past ``--max-frame-bytes`` gets its request -31003 in the proxy's own words, as every
error the proxy writes itself: ``"mcp-verdict proxy: <reason>"`` with ``data.reason`` (README,
"The proxy", the errors the proxy writes). Before, the two -31003 errors alone had no prefix
and no ``reason``: a host could not tell them from the server's own."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ._peers import PROXY, LinePeer

SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]
LIMIT = 4096
# the fault server's answer to tools/call "big" (tests/proxy/fault_server.py), without its line end
ANSWER_HEAD = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"'
ANSWER_TAIL = b'"}],"isError":false}}'
REQUEST = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "echo", "arguments": {"pad": "p" * 5000}}}
REQUEST_SIZE = len(json.dumps(REQUEST).encode())


# (what the host sends, the error's message, its data) - by hand
CASES: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    ("the host's request", REQUEST,
     f"mcp-verdict proxy: the request is {REQUEST_SIZE} bytes; the proxy's limit is {LIMIT}",
     {"source": "mcp-verdict proxy", "reason": f"the request is {REQUEST_SIZE} bytes; the proxy's limit is {LIMIT}",
      "size": REQUEST_SIZE, "limit": LIMIT}),
    ("the server's answer",
     {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "big", "arguments": {"size": 10_000}}},
     f"mcp-verdict proxy: the server's answer is {len(ANSWER_HEAD) + 10_000 + len(ANSWER_TAIL)} bytes; "
     f"the proxy's limit is {LIMIT}",
     {"source": "mcp-verdict proxy",
      "reason": f"the server's answer is {len(ANSWER_HEAD) + 10_000 + len(ANSWER_TAIL)} bytes; the proxy's limit is "
                f"{LIMIT}", "size": len(ANSWER_HEAD) + 10_000 + len(ANSWER_TAIL), "limit": LIMIT}),
]


@pytest.mark.parametrize(("sent", "message", "data"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_frame_past_the_limit_is_the_proxys_own_error(sent: dict[str, Any], message: str,
                                                        data: dict[str, Any]) -> None:
    peer = LinePeer([*PROXY, "--max-frame-bytes", str(LIMIT), "--default-version", "2025-06-18", "--", *SERVER])
    try:
        answer = json.loads(peer.exchange(sent) or b"{}")
    finally:
        peer.close()
    assert answer == {"jsonrpc": "2.0", "id": 1, "error": {"code": -31003, "message": message, "data": data}}
