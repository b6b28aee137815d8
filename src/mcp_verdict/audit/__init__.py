"""The audit: recorded MCP traffic turned into a verdict per ``tools/call`` and a report.

Holds the sans-I/O audit of a conversation (``_auditor``: frames in, one :class:`CallRow` per
call out, every line counted; ``_held``: what it holds of a call and a connection, the rounds of
a call bounded; ``_methods``: the methods it follows a call by; ``_judge``: the verdict of each
round; ``_rows``: what the audit says), the inputs it reads (``_formats``: the frame log,
JSON-RPC JSON Lines; ``_otlp``: OTLP JSON trace exports), the same audit over Arrow record
batches and the stable per-call schema (``_arrow``), the report's figures (``_summary``) and its
HTML page (``_html``), and the edge that reads files and runs processes (``_run``; the files
planned and read a batch of lines at a time, ``_files``; the inputs cut into parts, one process
each, ``_parts``; the connections of frame logs dealt to processes, ``_deal``; how the processes
start, are heard and end, ``_workers``). ``spark`` (public) runs the Arrow audit with PySpark.

May import: the verdict, the judgement, the frames, the demo's definition of the naive
receiver, orjson and msgspec (core dependencies), and — in ``_arrow`` and ``spark`` only, on
first use — pyarrow and pyspark (the [audit] and [spark] extras).
"""

from typing import Any

from ._auditor import Auditor
from ._files import AuditError, Input, plan
from ._formats import FORMATS, detect
from ._rows import CATEGORIES, FIDELITY, CallRow, Entry, FindingRow, Problem, RoundRow
from ._run import MAX_JOBS, Totals, audit, audit_files

LAYER_CONTRACT = {
    "layers": ("verdict", "judgement", "frames", "demo"),
    "libraries": ("orjson", "msgspec", "pyarrow", "pyspark"),
}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

_ARROW = frozenset({"CALL_SCHEMA", "ENTRY_SCHEMA", "FRAME_SCHEMA", "ParquetSink", "audit_batches", "calls_batch",
                    "frame_batches"})


def __getattr__(name: str) -> Any:
    """The Arrow names load on first use: they need the [audit] extra (pyarrow)."""
    if name in _ARROW:
        from .._extras import require

        require("audit", f"mcp_verdict.audit.{name}")
        from . import _arrow

        return getattr(_arrow, name)
    raise AttributeError(f"module 'mcp_verdict.audit' has no attribute {name!r}")


__all__ = [  # noqa: RUF022 - the core names, then the Arrow names (loaded lazily)
    "CATEGORIES",
    "FIDELITY",
    "FORMATS",
    "MAX_JOBS",
    "AuditError",
    "Auditor",
    "CallRow",
    "Entry",
    "FindingRow",
    "Input",
    "Problem",
    "RoundRow",
    "Totals",
    "audit",
    "audit_files",
    "detect",
    "plan",
    "CALL_SCHEMA",
    "ENTRY_SCHEMA",
    "FRAME_SCHEMA",
    "ParquetSink",
    "audit_batches",
    "calls_batch",
    "frame_batches",
]
