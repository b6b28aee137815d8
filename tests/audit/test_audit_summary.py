"""The report's figures stay bounded: the time histogram widens with the recording's span."""

from __future__ import annotations

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
