"""The audit on Spark: a directory of frame logs (or of their Parquet tables) in, the calls
table out — the same per-call rows as the local audit (:func:`mcp_verdict.audit.audit_files`).

    from pyspark.sql import SparkSession
    from mcp_verdict.audit.spark import audit

    result = audit(SparkSession.builder.getOrCreate(), "s3://bucket/frames/")
    result.calls.write.parquet("s3://bucket/calls/")      # the calls/1 schema (see the README)
    result.problems.show(); result.lines                   # unreadable and stray lines; line counts

How: each file is read whole by one task (``binaryFile``; frame logs rotate at 64 MiB by
default), through gzip when it is compressed (rotated files ``NAME.N`` and ``NAME.N.gz`` are one
recording with ``NAME``, a byte order mark before the first line is no part of it, as in the
local audit), split into lines with their numbers (:data:`~mcp_verdict.audit._arrow.FRAME_SCHEMA`),
each line given its connection, then the lines are partitioned by recording and connection
(a connection's frames stay together, in file order) and every partition runs the pure
:func:`~mcp_verdict.audit._arrow.audit_batches` with ``mapInArrow``. A Parquet input is a
directory of tables with :data:`FRAME_SCHEMA` (:func:`~mcp_verdict.audit._arrow.frame_batches`
writes them).

Needs the [spark] extra (pyspark, pyarrow).
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Final, cast

from .._extras import require
from ._files import _ROTATED

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

_BUCKETS: Final = 1 << 20


@dataclass(frozen=True)
class SparkAudit:
    calls: DataFrame
    """One row per tools/call (the calls/1 schema)."""
    problems: DataFrame
    """The unreadable and stray lines: source, line, conn, category, problem."""
    lines: dict[str, int]
    """Lines per category; they add up to every line read."""


def _split(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """binaryFile rows (path, content) → FRAME_SCHEMA rows with the partitioning key."""
    import pyarrow as pa

    from ._arrow import FRAME_SCHEMA
    from ._files import _lines
    from ._formats import framelog_conn

    schema = FRAME_SCHEMA.append(pa.field("key", pa.int64()))
    for batch in batches:
        columns = batch.to_pydict()
        for path, content in zip(columns["path"], columns["content"], strict=True):
            local = path.removeprefix("file:")
            match = _ROTATED.match(local)
            recording, order = (match["base"], -int(match["n"])) if match else (local, 0)
            rows: list[dict[str, Any]] = []
            handle: IO[bytes] = io.BytesIO(content)
            if content[:2] == b"\x1f\x8b":  # read as the local audit reads it (_files._open, _files._lines)
                handle = cast(IO[bytes], gzip.GzipFile(fileobj=handle))
            for number, line, _ in _lines(handle):
                text = None if isinstance(line, str) else line  # (past MAX_LINE, or past a damaged gzip's end)
                conn = framelog_conn(text) if text else None
                key = zlib.crc32(conn) if conn is not None else _BUCKETS + number % _BUCKETS
                rows.append({"recording": recording, "source": local, "file_order": order, "line": number,
                             "text": text, "key": key})
                if len(rows) >= 10_000:
                    yield pa.RecordBatch.from_pylist(rows, schema=schema)
                    rows = []
            if rows:
                yield pa.RecordBatch.from_pylist(rows, schema=schema)


def _keyed(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """FRAME_SCHEMA rows (a Parquet input) with the partitioning key added."""
    import pyarrow as pa

    from ._formats import framelog_conn

    for batch in batches:
        keys = []
        for number, text in zip(batch.column("line").to_pylist(), batch.column("text").to_pylist(), strict=True):
            conn = framelog_conn(text) if text else None
            keys.append(zlib.crc32(conn) if conn is not None else _BUCKETS + number % _BUCKETS)
        yield batch.append_column("key", pa.array(keys, pa.int64()))


def _audit(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    from ._arrow import FRAME_SCHEMA, audit_batches

    yield from audit_batches(batch.select(FRAME_SCHEMA.names) for batch in batches)


def audit(spark: SparkSession, path: str, *, input: str = "framelog", partitions: int | None = None) -> SparkAudit:
    """Audit every frame log under ``path`` (``input="framelog"``) or every Parquet frame
    table (``input="parquet"``)."""
    require("spark", "mcp_verdict.audit.spark")
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    from ._arrow import CALL_SCHEMA, ENTRY_SCHEMA, FRAME_SCHEMA

    def spark_schema(schema: Any) -> StructType:
        from pyspark.sql.pandas.types import from_arrow_schema

        return from_arrow_schema(schema)

    keyed_schema = spark_schema(FRAME_SCHEMA.append(pa.field("key", pa.int64())))
    if input == "framelog":
        files = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(os.fspath(path))
        lines = files.select("path", "content").mapInArrow(_split, keyed_schema)
    elif input == "parquet":
        lines = spark.read.parquet(os.fspath(path)).select(*FRAME_SCHEMA.names).mapInArrow(_keyed, keyed_schema)
    else:
        raise ValueError(f"input is framelog or parquet, not {input!r}")
    count = partitions or spark.sparkContext.defaultParallelism
    ordered = lines.repartition(count, "recording", "key").sortWithinPartitions("recording", "file_order", "line")
    entries = ordered.mapInArrow(_audit, spark_schema(ENTRY_SCHEMA)).cache()
    calls = entries.where(F.col("entry") == "call").select(*CALL_SCHEMA.names)
    problems = entries.where(F.col("entry") == "problem").select("source", "line", "conn", "category", "problem")
    counted = entries.where(F.col("entry") == "count").groupBy("category").agg(F.sum("lines").alias("lines"))
    tally = {row["category"]: int(row["lines"]) for row in counted.collect()}
    return SparkAudit(calls, problems, tally)
