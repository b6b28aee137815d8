"""The verdict-first MCP client: an edge (processes, sockets, the official SDK), extra ``[client]``.

Holds :class:`VerdictClient` (``_client``: negotiation and calls through the SDK, every round
judged from its recorded bytes), what a call records and the bounds of what it keeps
(``_records``: :class:`Round`, :class:`CallRecord`), the requests it sends raw through the SDK and
the SDK's reading of a tool (``_sdk``), the findings and warnings it writes itself
(``_findings``), its constructor's options checked (``_options``), the recording transports
(``_http``, ``_stdio``), the wire log and its correlation (``_wire``), why a connection failed
(``_connect``) and the input handlers (``_handlers``).

May import: the verdict, judgement and frames layers, the tap's stdio process handling
(``tap._process``: one place for how a stdio server is started and stopped); the official SDK
(``mcp``, ``mcp_types``, pydantic), httpx2 and anyio. Nothing in the core imports it; ``mcp_verdict.VerdictClient``
loads it on first use.
"""

from .._extras import require

require("client", "mcp_verdict.client")

from ._client import MODES, Mode, VerdictClient  # noqa: E402 - after the extra is checked
from ._connect import CannotConnect  # noqa: E402
from ._handlers import (  # noqa: E402
    AnswerRejected,
    ElicitAnswer,
    FormHandler,
    HandlerError,
    Handlers,
    RootsHandler,
    SamplingHandler,
    UrlConsentHandler,
)
from ._records import CallRecord, Round  # noqa: E402
from ._wire import Frame, WireLog  # noqa: E402

LAYER_CONTRACT = {
    "layers": ("verdict", "judgement", "frames", "tap"),
    "libraries": ("mcp", "mcp_types", "pydantic", "httpx2", "anyio"),
}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = [
    "MODES",
    "AnswerRejected",
    "CallRecord",
    "CannotConnect",
    "ElicitAnswer",
    "FormHandler",
    "Frame",
    "HandlerError",
    "Handlers",
    "Mode",
    "RootsHandler",
    "Round",
    "SamplingHandler",
    "UrlConsentHandler",
    "VerdictClient",
    "WireLog",
]
