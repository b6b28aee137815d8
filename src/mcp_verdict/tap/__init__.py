"""The tap: verdicts for the calls an application already makes, from the bytes its connection moved.

Holds :class:`VerdictTap` (``_tap``: recording, pairing through the shared
:class:`~mcp_verdict.frames.Tracker`, judging each ``tools/call``, the optional frame log) and
what it is made of: what it knows of one connection and the noise a stdio server writes
(``_conn``), the judged calls it keeps within its byte bound (``_history``: :class:`TapCall`), a
judging block and the write stream that tells it its requests' ids (``_block``: :class:`Judged`,
:class:`WriteProxy`), a block's options checked before any request (``_options``); the
recorded transports it hands the SDK — Streamable HTTP over httpx2 or httpx (``_http``) and a
byte-reading stdio transport (``_stdio``) — what differs between the SDK's majors (``_sdk``:
mcp 1.x from 1.9, and 2.x) and :class:`VerdictError` (``_error``).

May import: the verdict, judgement and frames layers; anyio, orjson and msgspec (a judged call's
record is a frozen Struct, as the frames' values are); and, on first use only,
the official SDK (``mcp``, ``mcp_types``) and httpx2 or httpx. ``import mcp_verdict.tap`` loads
no stack: the transports import theirs when they are built (a missing one is one line naming the
extra). The adapters (``mcp_verdict.integrations``) and ``mcp_verdict.otel`` build on it.
"""

from ._block import Judged, WriteProxy
from ._error import VerdictError
from ._history import TapCall
from ._tap import VerdictTap

LAYER_CONTRACT = {
    "layers": ("verdict", "judgement", "frames"),
    "libraries": ("anyio", "orjson", "msgspec", "mcp", "mcp_types", "httpx", "httpx2"),
}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = ["Judged", "TapCall", "VerdictError", "VerdictTap", "WriteProxy"]
