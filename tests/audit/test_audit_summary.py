"""The report's figures stay bounded: the time histogram widens with the recording's span."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import msgspec
import pytest

from mcp_verdict.audit import CallRow
from mcp_verdict.audit._summary import MAX_BUCKETS, Summary

ROW = CallRow(source="f", line=1, input_format="framelog", fidelity="wire", conn="c", call=1, server="s",
              server_version=None, transport="stdio", tool="t", request_id="1", protocol_version="2026-07-28",
              version_source="request_meta", extensions=(), started_at=0.0, ended_at=0.0, rounds=(),
              kind="unclassified", first_kind="unclassified", error_code=None, findings=(), action="investigate",
              rule="unclassified", reason="", stage="classified", accepted=False, content_checked=False,
              naive="success", naive_false_success=True, unknown_effect=False, answered=True, finished=True,
              end="answered", task_id=None)


@pytest.mark.parametrize(("times", "width"), [
    ([0.0, 30.0], 1),  # half a minute: one-second columns
    ([0.0, 3600.0], 60),  # an hour: minutes
    ([0.0, 86_400.0 * 70], 86_400),  # two sparse months: days, not six million seconds
    ([i * 7.0 for i in range(10_000)], 900),  # 19 hours, densely
])
def test_the_time_histogram_is_bounded(times: list[float], width: int) -> None:
    summary = Summary()
    for at in times:
        summary.add(msgspec.structs.replace(ROW, started_at=1_790_000_000.0 + at))
    assert summary.width == width
    assert len(summary.timeline()) <= MAX_BUCKETS + 1
    assert sum(sum(c.values()) for _, c in summary.timeline()) == len(times)
    assert summary.false_successes == len(times) and summary.false_by_tool[("s", "t")] == len(times)


# The CLI in a fresh process per seed of str's hash (PYTHONHASHSEED): the figures must not follow
# it. The call's findings, in the verdict's order, are content_missing then is_error (one each: a
# tie, which most_common leaves in the order counted).
FINDINGS_ORDER = {"result.content_missing": 1, "result.is_error": 1}
BY_SERVER_ORDER = [{"server": "srv", "finding": "result.content_missing", "calls": 1},
                   {"server": "srv", "finding": "result.is_error", "calls": 1}]


@pytest.mark.parametrize("seed", ["0", "1", "2", "3", "4", "5", "6", "7"])
def test_the_figures_do_not_depend_on_the_hash_seed(tmp_path: Path, seed: str) -> None:
    """The same log gives the same --json summary in every run (two runs, such as --jobs 1 and
    --jobs 2, differed): tied findings are listed in the order the calls hold them, not in a set's."""
    from .test_audit_report_text import CLI, one_call

    log = one_call(tmp_path / "frames.jsonl", "t")
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([*CLI, "audit", str(log), "--json"], capture_output=True, env=env, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert list(summary["findings"].items()) == list(FINDINGS_ORDER.items())
    assert summary["findings_by_server"] == BY_SERVER_ORDER
