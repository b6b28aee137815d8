"""The audit on Spark (local mode, one local[2] session): a directory of frame logs, and the
same logs as Parquet frame tables, give the same per-call rows and line counts as the local audit."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mcp_verdict.audit import CallRow, audit_files, plan
from mcp_verdict.audit._arrow import CALL_SCHEMA, calls_batch, frame_batches

pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="module")
def spark() -> Any:
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers run this interpreter (it has mcp_verdict)
    session = (SparkSession.builder.master("local[2]").appName("mcp-verdict-audit-test")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def _local(paths: list[Path]) -> tuple[pa.Table, dict[str, int]]:
    _, totals, entries = audit_files([str(p) for p in paths])
    rows = [e for e in entries if isinstance(e, CallRow)]
    return pa.Table.from_batches([calls_batch(rows)], schema=CALL_SCHEMA), totals.tally


def _sorted(table: pa.Table) -> list[dict[str, Any]]:
    return sorted(table.to_pylist(), key=lambda r: (r["source"], r["conn"], r["call"]))


def test_spark_gives_the_local_audits_rows(spark: Any, demo_log: Path, everything_log: Path, tmp_path: Path) -> None:
    from mcp_verdict.audit.spark import audit

    logs = tmp_path / "logs"
    logs.mkdir()
    lines = demo_log.read_bytes().splitlines(True)
    (logs / "demo.jsonl.1").write_bytes(b"".join(lines[:30]))  # rotated: one recording of two files
    (logs / "demo.jsonl").write_bytes(b"".join(lines[30:]) + b"not a record\n")
    shutil.copy(everything_log, logs / "everything.jsonl")
    paths = sorted(logs.iterdir())
    expected, tally = _local(paths)

    result = audit(spark, str(logs))
    assert _sorted(result.calls.toArrow().cast(CALL_SCHEMA)) == _sorted(expected)
    assert {k: v for k, v in result.lines.items() if v} == {k: v for k, v in tally.items() if v}
    problems = result.problems.collect()
    assert [(Path(p["source"]).name, p["line"], p["category"]) for p in problems] == [
        ("demo.jsonl", len(lines) - 30 + 1, "unreadable")]

    tables = tmp_path / "tables"
    tables.mkdir()
    pq.write_table(pa.Table.from_batches(list(frame_batches(plan([str(p) for p in paths])))),
                   tables / "frames.parquet")
    from_parquet = audit(spark, str(tables), input="parquet")
    assert _sorted(from_parquet.calls.toArrow().cast(CALL_SCHEMA)) == _sorted(expected)


def test_spark_reads_compressed_rotations_and_a_byte_order_mark_as_the_local_audit(
        spark: Any, demo_log: Path, tmp_path: Path) -> None:
    """A rotated log as logrotate's compress leaves it (NAME.N.gz) and a file that begins with a UTF-8 byte
    order mark (RFC 8259 8.1): one recording, every line a record, the local audit's rows."""
    from mcp_verdict.audit.spark import audit

    logs = tmp_path / "logs"
    logs.mkdir()
    lines = demo_log.read_bytes().splitlines(True)
    (logs / "demo.jsonl.2.gz").write_bytes(gzip.compress(b"".join(lines[:20])))
    (logs / "demo.jsonl.1").write_bytes(b"\xef\xbb\xbf" + b"".join(lines[20:40]))
    (logs / "demo.jsonl").write_bytes(b"".join(lines[40:]))
    expected, tally = _local(sorted(logs.iterdir()))
    assert tally["unreadable"] == tally["stray"] == 0 and len(expected) > 0

    result = audit(spark, str(logs))
    assert _sorted(result.calls.toArrow().cast(CALL_SCHEMA)) == _sorted(expected)
    assert {k: v for k, v in result.lines.items() if v} == {k: v for k, v in tally.items() if v}
    assert result.problems.collect() == []


def _duplicated_conn_log(path: Path) -> Path:
    """Eight calls on connection b, each answered by a record that names a connection twice (first
    d0..d7, then b): a record's last member of a name is the one read (the local audit's reader),
    so every answer is b's."""
    lines = []
    for n in range(8):
        call = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t"}}' % n
        answer = b'{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","content":[]}}' % n
        lines.append(b'{"v":1,"conn":"b","seq":%d,"t":%d,"dir":"c2s","kind":"message","data":%s}\n'
                     % (2 * n, 2 * n, json.dumps(call.decode()).encode()))
        lines.append(b'{"v":1,"conn":"d%d","seq":%d,"t":%d,"dir":"s2c","kind":"message","data":%s,"conn":"b"}\n'
                     % (n, 2 * n + 1, 2 * n + 1, json.dumps(answer.decode()).encode()))
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize(("line", "conn"), [
    (b'{"v":1,"conn":"a","seq":0,"t":1,"dir":"c2s","kind":"open"}', b"a"),  # the writer's order
    (b'{"v":1,"conn":"a","seq":0,"t":1,"dir":"c2s","kind":"open","conn":"b"}', b"b"),  # the last conn is read
    (b'{"v":1,"conn":"a","seq":0,"t":1,"dir":"c2s","kind":"open","con\\u006e":"b"}', b"b"),  # written escaped
    (b'{"v":1,"conn":"a","seq":0,"t":1,"dir":"c2s","kind":"message","data":"{\\"conn\\":1}"}', b"a"),
    (b'{"v":1,"conn":"q\\"d","seq":0,"t":1,"dir":"c2s","kind":"open"}', b'q"d'),
    # no record: unreadable wherever it is audited, keyed by the conn it names (tests/audit/test_audit_conn_key.py)
    (b'{"v":1,"conn":"a","seq":-1,"t":1,"dir":"c2s","kind":"open","conn":"b"}', b"b"),
    (b'{"v":1,"conn":-1,"t":1,"dir":"c2s","kind":"open"}', None),  # no record, no conn
])
def test_a_lines_connection_is_its_records(line: bytes, conn: bytes | None) -> None:
    from mcp_verdict.audit._formats import framelog_conn

    assert framelog_conn(line) == conn


def test_spark_partitions_a_record_by_the_connection_it_is_read_as(spark: Any, tmp_path: Path) -> None:
    from mcp_verdict.audit.spark import audit

    logs = tmp_path / "logs"
    logs.mkdir()
    log = _duplicated_conn_log(logs / "frames.jsonl")
    expected, tally = _local([log])
    assert [(r["conn"], r["call"], r["kind"], r["end"]) for r in _sorted(expected)] == [
        ("b", n, "normal_complete", "answered") for n in range(1, 9)]
    assert {k: v for k, v in tally.items() if v} == {"call": 16}
    result = audit(spark, str(logs))
    assert _sorted(result.calls.toArrow().cast(CALL_SCHEMA)) == _sorted(expected)
    assert {k: v for k, v in result.lines.items() if v} == {"call": 16}
    assert result.problems.collect() == []
