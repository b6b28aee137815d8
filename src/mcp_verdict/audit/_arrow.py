"""The audit over Arrow record batches, and the stable per-call schema (``--parquet``).

:data:`CALL_SCHEMA` is the table of calls, one row per ``tools/call`` (the README documents
every column; a column is never renamed or retyped within a major version, only added).
:data:`FRAME_SCHEMA` is a frame log as a table: one row per line of the log, in the order of
its recording (``recording``, ``file_order``, ``line``). :func:`audit_batches` is the audit as a
pure function from frame batches to entry batches (:data:`ENTRY_SCHEMA`: the call columns, and
for the other entries, a line that could not be read or answered nothing, and each
category's line count), which is what :mod:`mcp_verdict.audit.spark` runs on every partition.

Needs the [audit] extra (pyarrow).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

import pyarrow as pa

from ._auditor import Auditor
from ._files import Input, _lines, _open
from ._formats import feed_framelog
from ._rows import CallRow, Entry, Problem, utc

_FINDING = pa.struct([("code", pa.string()), ("severity", pa.string()), ("path", pa.string()),
                      ("message", pa.string())])
_ROUND = pa.struct([("method", pa.string()), ("request_id", pa.string()), ("kind", pa.string()),
                    ("status", pa.string()), ("started_at", pa.timestamp("us", tz="UTC")),
                    ("ended_at", pa.timestamp("us", tz="UTC")), ("request_bytes", pa.int64()),
                    ("response_bytes", pa.int64()), ("line", pa.int64()), ("answer_line", pa.int64())])

CALL_SCHEMA = pa.schema([
    ("source", pa.string()), ("line", pa.int64()), ("input_format", pa.string()), ("fidelity", pa.string()),
    ("conn", pa.string()), ("call", pa.int64()), ("server", pa.string()), ("server_version", pa.string()),
    ("transport", pa.string()), ("tool", pa.string()), ("request_id", pa.string()),
    ("protocol_version", pa.string()), ("version_source", pa.string()), ("extensions", pa.list_(pa.string())),
    ("started_at", pa.timestamp("us", tz="UTC")), ("ended_at", pa.timestamp("us", tz="UTC")),
    ("duration_ms", pa.float64()), ("rounds", pa.int32()), ("round_details", pa.list_(_ROUND)),
    ("kind", pa.string()), ("first_kind", pa.string()), ("error_code", pa.int64()), ("finding", pa.string()),
    ("findings", pa.list_(_FINDING)), ("action", pa.string()), ("rule", pa.string()), ("reason", pa.string()),
    ("stage", pa.string()), ("accepted", pa.bool_()), ("content_checked", pa.bool_()), ("naive", pa.string()),
    ("naive_false_success", pa.bool_()), ("unknown_effect", pa.bool_()), ("answered", pa.bool_()),
    ("finished", pa.bool_()), ("end", pa.string()), ("task_id", pa.string()), ("request_bytes", pa.int64()),
    ("response_bytes", pa.int64()), ("rounds_shed", pa.int32()),
], metadata={"mcp_verdict.schema": "calls/1"})
"""One row per tools/call (schema ``calls/1``)."""

ENTRY_SCHEMA = pa.schema([("entry", pa.string()), *CALL_SCHEMA, ("category", pa.string()),
                          ("problem", pa.string()), ("lines", pa.int64())])
"""What :func:`audit_batches` returns: ``entry`` is ``call`` (the call columns), ``problem``
(``source``, ``line``, ``conn``, ``category``, ``problem``: why) or ``count`` (``category`` and
its ``lines``, once per category and partition)."""

FRAME_SCHEMA = pa.schema([
    ("recording", pa.string()), ("source", pa.string()), ("file_order", pa.int32()), ("line", pa.int64()),
    ("text", pa.binary()),
])
"""A frame log as a table: each line's bytes (``text``, without its line end; null for a line
that cannot be read: too long, or where a damaged gzip file stops being readable) with where it
is: the recording (the log's name without a rotation suffix), the file, its place among the
recording's files (oldest first) and the line number."""


def _time(value: float | None) -> datetime | None:
    return None if value is None else utc(value)


def call_record(row: CallRow) -> dict[str, Any]:
    """A call row as the columns of :data:`CALL_SCHEMA`."""
    return {
        "source": row.source, "line": row.line, "input_format": row.input_format, "fidelity": row.fidelity,
        "conn": row.conn, "call": row.call, "server": row.server, "server_version": row.server_version,
        "transport": row.transport, "tool": row.tool, "request_id": row.request_id,
        "protocol_version": row.protocol_version, "version_source": row.version_source,
        "extensions": list(row.extensions), "started_at": _time(row.started_at), "ended_at": _time(row.ended_at),
        "duration_ms": row.duration_ms, "rounds": row.round_count,
        "round_details": [{"method": r.method, "request_id": r.request_id, "kind": r.kind, "status": r.status,
                           "started_at": _time(r.started_at), "ended_at": _time(r.ended_at),
                           "request_bytes": r.request_bytes, "response_bytes": r.response_bytes, "line": r.line,
                           "answer_line": r.answer_line} for r in row.rounds],
        "kind": row.kind, "first_kind": row.first_kind, "error_code": row.error_code, "finding": row.finding,
        "findings": [{"code": f.code, "severity": f.severity, "path": f.path, "message": f.message}
                     for f in row.findings],
        "action": row.action, "rule": row.rule, "reason": row.reason, "stage": row.stage, "accepted": row.accepted,
        "content_checked": row.content_checked, "naive": row.naive, "naive_false_success": row.naive_false_success,
        "unknown_effect": row.unknown_effect, "answered": row.answered, "finished": row.finished, "end": row.end,
        "task_id": row.task_id, "request_bytes": row.request_bytes, "response_bytes": row.response_bytes,
        "rounds_shed": row.rounds_shed,
    }


def calls_batch(rows: Sequence[CallRow]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([call_record(r) for r in rows], schema=CALL_SCHEMA)


class ParquetSink:
    """Writes call rows to a Parquet file in row groups, as they come (bounded memory)."""

    def __init__(self, path: str, *, rows_per_group: int = 50_000) -> None:
        import pyarrow.parquet as pq

        # opened here, not by pyarrow: a failure is Python's OSError, with the system's words
        # (pyarrow's own says "Failed to open local file ... Detail: [errno 2] ...")
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        try:
            self._writer = pq.ParquetWriter(self._file, CALL_SCHEMA, compression="zstd")
        except BaseException:
            self._file.close()
            raise
        self._rows: list[CallRow] = []
        self._size = rows_per_group
        self.written = 0

    def add(self, row: CallRow) -> None:
        self._rows.append(row)
        if len(self._rows) >= self._size:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            self._writer.write_batch(calls_batch(self._rows))
            self.written += len(self._rows)
            self._rows = []

    def close(self) -> None:
        try:
            self._flush()
            self._writer.close()
        finally:
            self._file.close()


def frame_batches(inputs: Iterable[Input], *, rows: int = 10_000) -> Iterator[pa.RecordBatch]:
    """Frame logs as :data:`FRAME_SCHEMA` batches (for a data lake, or :func:`audit_batches`)."""
    inputs = list(inputs)
    newest = {i.recording: i.name for i in sorted(inputs, key=lambda i: i.order)}
    batch: list[dict[str, Any]] = []
    for item in inputs:
        recording = newest[item.recording]
        with _open(item.path) as handle:
            for number, line, _ in _lines(handle):
                batch.append({"recording": recording, "source": item.name, "file_order": item.order,
                              "line": number, "text": None if isinstance(line, str) else line})
                if len(batch) >= rows:
                    yield pa.RecordBatch.from_pylist(batch, schema=FRAME_SCHEMA)
                    batch = []
    if batch:
        yield pa.RecordBatch.from_pylist(batch, schema=FRAME_SCHEMA)


def _entry(entry: Entry) -> dict[str, Any]:
    if isinstance(entry, CallRow):
        return {"entry": "call", **call_record(entry)}
    assert isinstance(entry, Problem)
    return {"entry": "problem", "source": entry.source, "line": entry.line, "conn": entry.conn,
            "category": entry.category, "problem": entry.reason}


def audit_batches(batches: Iterable[pa.RecordBatch], *, trusted_server: bool = False,
                  rows: int = 10_000) -> Iterator[pa.RecordBatch]:
    """The audit of frame log lines (:data:`FRAME_SCHEMA` batches, each recording's lines in
    order: ``file_order``, ``line``) as :data:`ENTRY_SCHEMA` batches. Pure: the same lines
    give the same entries as the local audit of the files."""
    out: list[dict[str, Any]] = []
    auditors: dict[str, Auditor] = {}
    for batch in batches:
        columns = batch.to_pydict()
        for recording, source, order, number, text in zip(columns["recording"], columns["source"],
                                                          columns["file_order"], columns["line"], columns["text"],
                                                          strict=True):
            auditor = auditors.get(recording)
            if auditor is None:
                auditor = auditors[recording] = Auditor(input_format="framelog", trusted_server=trusted_server)
            auditor.source, auditor.file_order = source, order
            if text is None:
                entries: list[Entry] = [auditor.unreadable(
                    number, "the line cannot be read (too long, or a damaged file from here on)")]
            elif not text.strip():
                auditor.count("blank")
                continue
            else:
                entries = feed_framelog(auditor, number, text)
            out.extend(_entry(e) for e in entries)
            if len(out) >= rows:
                yield pa.RecordBatch.from_pylist(out, schema=ENTRY_SCHEMA)
                out = []
    for auditor in auditors.values():
        out.extend(_entry(e) for e in auditor.end())
        out.extend({"entry": "count", "category": category, "lines": lines}
                   for category, lines in auditor.tally.items())
    if out:
        yield pa.RecordBatch.from_pylist(out, schema=ENTRY_SCHEMA)

