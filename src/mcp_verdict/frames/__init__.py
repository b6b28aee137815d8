"""The frames: what crosses an MCP connection, read without I/O, and the frame log format.

Holds the byte-faithful server-sent events reader (``_sse``), the bounded stdio line reader of a
client's side (``_lines``), the lenient routing read of a JSON-RPC frame with tolerant id recovery
(``_jsonrpc``; the structure of a frame it reads in C, its strings, brackets and top-level ``"id"``
members, ``_structure``; why orjson would find no JSON in a large frame, found before it reads it,
``_large``), where a cancellation's ``params.requestId`` members are in its bytes
(``_request_ids``, for the proxy to name its own id), the conversation tracker that pairs answers
with requests and knows the version, capabilities and extensions in force for each (``_track``; the
values it makes and returns, ``_exchange``; what it holds of one connection, ``_connection``), what
the frames say of tasks (``_tasks``: the task a request names, whether a poll's answer ends its
task, the verdicts of a task id created again), and the frame log format v1 with its JSON Schema
(``_log``, ``framelog-v1.schema.json``) and its rotating file writer (``_logfile``, the one module
here that does I/O), the seconds an HTTP error's Retry-After asks for (``_retry_after``), and what a
caller may send in a tool call or an answer to an input request (``_sendable``: JSON values only,
checked before anything is written), and what a connection keeps of the tools its server listed
(``_tools``: a whole listing replaces them, within a per-connection budget, and nothing is learnt
from one no strict parser reads; the tap, the audit and the proxy keep them by this one rule), and
the Streamable HTTP routing headers of a 2026-07-28 request checked against its body
(``_routing_headers``: ``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, the Base64
sentinel; the demo server and the proxy apply this one rule). The client, the tap, the proxy and
the audit all read the wire through it.

May import: the verdict layer (versions and extension ids), the standard library, orjson, and msgspec
(its frozen Structs are the immutable values a frame makes: built in C, ~10x a frozen dataclass).
Nothing here judges a response: that is ``classify``'s work, on the bytes this layer keeps.
"""

from ._exchange import Answered, Context, Event, Exchange, Seen, Stray, Unanswered
from ._jsonrpc import (
    FrameKind,
    Id,
    Peek,
    answer_peek,
    error_json,
    id_json,
    id_key,
    names_method,
    peek,
    peek_shape,
    recover_id,
    shown_id,
)
from ._lines import Line, LineReader, may_be_message
from ._log import (
    FORMAT_VERSION,
    FrameRecord,
    LogProblem,
    decode,
    encode,
    read,
    redact,
    schema,
)
from ._logfile import FrameLogWriter, RotatingLines
from ._retry_after import retry_after
from ._sse import SSEEvent, SSEParser, sse_events
from ._track import Tracker

LAYER_CONTRACT = {"layers": ("verdict",), "libraries": ("orjson", "msgspec")}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = [
    "FORMAT_VERSION",
    "Answered",
    "Context",
    "Event",
    "Exchange",
    "FrameKind",
    "FrameLogWriter",
    "FrameRecord",
    "Id",
    "Line",
    "LineReader",
    "LogProblem",
    "Peek",
    "RotatingLines",
    "SSEEvent",
    "SSEParser",
    "Seen",
    "Stray",
    "Tracker",
    "Unanswered",
    "answer_peek",
    "decode",
    "encode",
    "error_json",
    "id_json",
    "id_key",
    "may_be_message",
    "names_method",
    "peek",
    "peek_shape",
    "read",
    "recover_id",
    "redact",
    "retry_after",
    "schema",
    "shown_id",
    "sse_events",
]
