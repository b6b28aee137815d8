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

import msgspec
import orjson

from ..frames import FrameRecord, LogProblem
from ..frames._log import LINE_START, decode_line
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


class _Conn(msgspec.Struct):
    conn: str


_READ_CONN: Final = msgspec.json.Decoder(_Conn)
"""A frame log line's ``conn`` alone, its other members skipped unread (a third of the cost of
``decode_line``)."""


def conn_of(line: bytes) -> str | None:
    """The ``conn`` of a frame log line (the last, where it is given twice, as ``decode_line``
    reads it), or None when the line is not a JSON object with a string ``conn`` or is nested
    too deep to skip (msgspec raises RecursionError where ``decode_line``'s reader, which knows
    every member, stops at the unknown one): a record that ``decode_line`` reads has this
    connection."""
    try:
        return _READ_CONN.decode(line).conn
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None


_START: Final = len(LINE_START)


def framelog_conn(line: bytes) -> bytes | None:
    """The connection of a frame log line as UTF-8 (``surrogatepass``), read cheaply, to share a
    log's connections among processes (``--jobs``: :class:`mcp_verdict.audit._deal._Share`) or
    Spark partitions (:mod:`mcp_verdict.audit.spark`). A record's is the connection the audit
    reads: the last ``conn`` member, where a line names two. A line that is no record is audited
    alike wherever it goes (an unreadable line, in no connection): its key is the ``conn`` it
    begins with as the writer writes it or names as a JSON object, else None.

    A line the writer wrote (:data:`~mcp_verdict.frames._log.LINE_START`, ASCII up to the
    closing quote, no escape in it) is read in place, unless a second ``"conn"`` follows or
    ``\\u006``, which may write one (``"con\\u006e"``: a key read as ``conn`` is written so or
    with ``\\u0063``, ``\\u006f``, ``\\u006e``; no other escape is one of its letters); any
    other line by :func:`conn_of` (the ``conn`` member alone), then, when that reads none (a
    line nested past msgspec's depth), by ``decode_line``."""
    if line.startswith(LINE_START):
        end = line.find(b'"', _START)
        if end > 0:
            key = line[_START:end]
            if (key.isascii() and key.find(b"\\") < 0 and line.find(b'"conn"', end) < 0
                    and line.find(b"\\u006", end) < 0):
                return key
    conn = conn_of(line)
    if conn is None:
        record = decode_line(line)
        if isinstance(record, LogProblem):
            return None
        conn = record.conn
    return conn.encode("utf-8", "surrogatepass")
