"""OpenTelemetry: each verdict on the ``tools/call`` span, per the MCP semantic conventions.

Holds :func:`instrument` (a tap observer: the verdict goes on the span the SDK or FastMCP has
open for the call when its answer arrives, or on a span of its own) and :func:`record` (the
attributes and status for one outcome, on a span you give or the current one) in ``_spans``.

May import: the verdict, judgement and tap layers, and ``opentelemetry`` (the API only; the
application brings the SDK and its exporters). Extra ``[otel]``.
"""

from .._extras import require

require("otel", "mcp_verdict.otel")

from ._spans import ATTRIBUTES, error_type, instrument, record, verdict_attributes, verdict_error_type  # noqa: E402 - after the extra is checked

LAYER_CONTRACT = {"layers": ("verdict", "judgement", "tap"), "libraries": ("opentelemetry",)}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = ["ATTRIBUTES", "error_type", "instrument", "record", "verdict_attributes", "verdict_error_type"]
