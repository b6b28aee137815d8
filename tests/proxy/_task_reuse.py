"""What the task-id reuse tests (test_proxy_task_reuse.py: 2026-07-28 and ``tasks/get``;
test_proxy_task_reuse_2025.py: 2025-11-25 and ``tasks/result``) write their cases with and read
a run's outcome by: the judged values of a verdict line, what the host got per request, the
verdict lines written and the refused frames' notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_verdict.frames import FrameRecord
from mcp_verdict.frames import read as read_log
from mcp_verdict.proxy import REFUSED

R = ["task.field"]
Step = tuple[str, int, str]
# a verdict line: (method, id, call, kind, finding codes, decision, forwarded)
Line = tuple[str, int, int, str, list[str], str, str]
Judged = tuple[str, list[str], str, str]
TASK_LINE: Judged = ("task", [], "poll_task", "unchanged")
REUSED_OBSERVED: Judged = ("unclassified", R, "check_state", "unchanged")
REUSED_REFUSED: Judged = ("unclassified", R, "check_state", "refused")
DONE: Judged = ("normal_complete", [], "verify_content", "unchanged")
REFUSED_NOTE = "enforce: the verdict is unclassified (task.field)"


def what_the_host_got(received: list[dict[str, Any]]) -> list[Any]:
    """What the host got per request: ``"as sent"``, or the finding codes of the proxy's refusal."""
    shown: list[Any] = []
    for message in received:
        if "error" in message:
            error = message["error"]
            assert error["code"] == REFUSED
            shown.append([f["code"] for f in error["data"]["verdict"]["findings"]])
        else:
            shown.append("as sent")
    return shown


def written(verdicts: Path) -> list[Line]:
    """The verdict lines the proxy wrote, as :data:`Line` values."""
    lines = [json.loads(x) for x in verdicts.read_text().splitlines()]
    return [(w["method"], w["id"], w["call"], w["kind"], [f["code"] for f in w["findings"]], w["decision"],
             w["forwarded"]) for w in lines]


def refused_notes(log: Path) -> list[str | None]:
    """The notes of the frames the proxy logged ``refused`` (its error sent in their place)."""
    return [r.note for r in read_log(log.read_bytes().splitlines()) if isinstance(r, FrameRecord)
            and r.kind == "refused"]
