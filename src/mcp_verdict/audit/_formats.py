"""The inputs the audit reads, told apart by their first line, and each line fed to an
:class:`~mcp_verdict.audit.Auditor` (sans-I/O: lines in, entries out).

=============  ========================================================  ==========
format         what a line is                                            fidelity
=============  ========================================================  ==========
``framelog``   a frame log record (format v1, :mod:`mcp_verdict.frames`:  wire
               connection, direction, time, the frame's exact bytes)
``jsonrpc``    one JSON-RPC message, either direction (as many tools     wire, for what
               log them); the file is one connection, directions are      the line holds
               inferred (server requests by method, answers by the
               request waiting with their id), there are no times
``otlp``       an OTLP JSON trace export (one ``TracesData`` per line,   parsed or status
               as OpenTelemetry's file exporter writes), read for its
               ``tools/call`` spans (:mod:`mcp_verdict.audit._otlp`)
=============  ========================================================  ==========
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

import orjson

from ..frames import FrameRecord, LogProblem
from ..frames._log import decode_line
from ._auditor import Auditor
from ._rows import Entry

Format = Literal["framelog", "jsonrpc", "otlp"]
FORMATS: Final = ("framelog", "jsonrpc", "otlp")
FIDELITY_OF: Final = {"framelog": "wire", "jsonrpc": "wire", "otlp": "parsed"}


def detect(first: bytes) -> Format | None:
    """The format of a file from its first non-blank line, or None when it is none of them."""
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        # bytes that are no UTF-8 in a string, a lone surrogate escape (a wire finding to report, json.encoding;
        # in a trace export, what OpenTelemetry's JSON exporters write for a Python string holding one), NaN (a
        # json.* finding): the shape tells, as Python's json reads the line
        value = lenient_json(first)
        if value is None:
            return None
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        # a JSON-RPC batch (https://www.jsonrpc.org/specification#batch; MCP's until 2025-06-18)
        return "jsonrpc" if all(_is_message(item) for item in value) else None
    if not isinstance(value, dict):
        return None
    if "v" in value and "conn" in value and "dir" in value:
        return "framelog"
    if "resourceSpans" in value:
        return "otlp"
    return "jsonrpc" if _is_message(value) else None


def lenient_json(line: bytes) -> Any:
    """A line orjson refuses, as Python's json reads it (a lone surrogate escape, NaN, ``1e400``, a raw
    control character in a string as Python reads them; bytes that are no UTF-8 as lone surrogates,
    ``surrogateescape``); None when it is no JSON text for that reader either."""
    try:
        return json.loads(line.decode("utf-8", "surrogateescape"), strict=False)
    except (ValueError, RecursionError):
        return None


def _is_message(value: dict[str, object]) -> bool:
    """Whether a JSON object reads as a JSON-RPC message."""
    return value.get("jsonrpc") == "2.0" or "method" in value or "result" in value or "error" in value


def read_framelog(line: bytes, number: int) -> FrameRecord | LogProblem:
    """One frame log line (:func:`~mcp_verdict.frames.decode`), with or without its line end:
    JSON reads the same record either way, and a line that is no record is reported as it is
    without its end (the line is not copied without it first)."""
    record = decode_line(line, number)
    if type(record) is LogProblem and line.endswith((b"\n", b"\r")):
        return decode_line(line.rstrip(b"\r\n"), number)
    return record


def feed_framelog(auditor: Auditor, number: int, line: bytes) -> list[Entry]:
    """One frame log line, with or without its line end (:func:`read_framelog`)."""
    record = read_framelog(line, number)
    if isinstance(record, LogProblem):
        return [auditor.unreadable(number, record.reason, record.text)]
    return feed_record(auditor, number, record)


def feed_record(auditor: Auditor, number: int, record: FrameRecord) -> list[Entry]:
    """One frame log record, decoded (line ``number``)."""
    if record.kind == "message":
        data = record.data
        if data is None:
            auditor.count("redacted")
            return []
        return auditor.message(record.conn, record.dir, data, record.t, record.seq, number, record.http,
                               record.transport)
    return auditor.record(record.conn, record.kind, record.dir, line=number, note=record.note,
                          transport=record.transport)


def feed_jsonrpc(auditor: Auditor, number: int, line: bytes) -> list[Entry]:
    """One JSON-RPC JSON Lines line (without its line end): the file (``auditor.source``) is the
    connection."""
    return auditor.message(auditor.source, None, line, 0.0, number, number)


_CONN_PREFIX: Final = b'{"v":1,"conn":"'


def framelog_conn(line: bytes) -> bytes | None:
    """The connection of a frame log line, read cheaply (to share a log's connections among
    processes): the writer's own key order is read by position; any other line is decoded (one
    with a second ``"conn"`` member too, or a ``\\u`` escape after the first, which may write one:
    a record's last member of a name is the one read).
    None for a line that is not a record."""
    if line.startswith(_CONN_PREFIX):
        end = line.find(b'"', len(_CONN_PREFIX))
        if (end > 0 and line[len(_CONN_PREFIX):end].find(b"\\") < 0 and line.find(b'"conn"', end) < 0
                and line.find(b"\\u", end) < 0):  # (a later "conn" may be written with an escape: "con\\u006e")
            return line[len(_CONN_PREFIX):end]
    record = decode_line(line)
    return None if isinstance(record, LogProblem) else record.conn.encode("utf-8", "surrogatepass")
