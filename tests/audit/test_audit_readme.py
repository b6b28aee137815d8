"""The README's audit section as written: its command runs on a rotated recording, its DuckDB
query runs on the Parquet it writes, and its schema table is CALL_SCHEMA."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from mcp_verdict.audit._arrow import CALL_SCHEMA

README = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
SECTION = README[README.index("## The audit"):README.index("## The rules, per version")]


def _type(arrow: pa.DataType) -> str:
    """An Arrow type as the README writes it."""
    if pa.types.is_list(arrow):
        return f"list<{_type(arrow.value_type)}>"
    if pa.types.is_struct(arrow):
        return "struct<" + ", ".join(arrow.field(i).name for i in range(arrow.num_fields)) + ">"
    if pa.types.is_timestamp(arrow):
        return f"timestamp[{arrow.unit}, {arrow.tz}]"
    return {"float64": "double"}.get(str(arrow), str(arrow))


def test_the_schema_table_is_the_call_schema() -> None:
    table = SECTION[SECTION.index("<!-- calls-schema"):]
    rows = re.findall(r"^\| `([a-z_]+)` \| (.+?) \| .+ \|$", table, re.MULTILINE)
    assert [name for name, _ in rows] == CALL_SCHEMA.names
    assert [kind for _, kind in rows] == [_type(field.type) for field in CALL_SCHEMA]


def test_the_command_and_the_query_run_as_written(demo_log: Path, tmp_path: Path) -> None:
    import duckdb

    lines = demo_log.read_bytes().splitlines(True)
    (tmp_path / "frames.jsonl.1").write_bytes(b"".join(lines[:25]))
    (tmp_path / "frames.jsonl").write_bytes(b"".join(lines[25:]))
    command = next(line for line in SECTION.splitlines() if line.startswith("mcp-verdict audit frames.jsonl"))
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", *shlex.split(command)[1:]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    query = SECTION[SECTION.index("```sql") + 6:]
    query = query[:query.index("```")]
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        rows = duckdb.connect().execute(query).fetchall()
    finally:
        os.chdir(cwd)
    assert ("mcp-verdict-demo", "duplicate_is_error", 1, "json.duplicate_key") in rows
    assert sum(n for _, _, n, _ in rows) == 13  # the demo's naive false successes (its catalogue)
