"""2025-11-25's ``io.modelcontextprotocol/related-task`` in a result's ``_meta`` (``meta.reserved``,
``verdict/_meta``): basic/utilities/tasks#associating-task-related-messages, "All requests,
notifications, and responses related to a task MUST include the io.modelcontextprotocol/related-task
key in their _meta field, with the value set to an object with a taskId matching the associated task
ID." The schema's result ``_meta`` is open (a rule stricter than it: tests/stricter_than_schema.py).
Each row: the result, whether the call was task-augmented, the kind and the findings expected
(written by hand), over the bytes and the parsed value alike.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_verdict import TASKS_EXTENSION, Kind, classify

R = "io.modelcontextprotocol/related-task"
AT = "/result/_meta/io.modelcontextprotocol~1related-task"
TASK = {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
        "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 60000}
DONE: dict[str, Any] = {"content": [{"type": "text", "text": "done"}]}

CASES: list[tuple[str, str, dict[str, Any], bool, Kind, list[tuple[str, str]]]] = [
    ("created, its own task", "2025-11-25", {"task": TASK, "_meta": {R: {"taskId": "t1"}}}, True, Kind.TASK, []),
    ("created, another task", "2025-11-25", {"task": TASK, "_meta": {R: {"taskId": "t2"}}}, True, Kind.UNCLASSIFIED,
     [("meta.reserved", AT + "/taskId")]),
    ("created, the id alone", "2025-11-25", {"task": TASK, "_meta": {R: "t1"}}, True, Kind.UNCLASSIFIED,
     [("meta.reserved", AT)]),
    ("created, no key (SHOULD NOT be needed: the id is in the task)", "2025-11-25", {"task": TASK}, True, Kind.TASK,
     []),
    ("final result, a task id", "2025-11-25", {**DONE, "_meta": {R: {"taskId": "t9"}}}, False,
     Kind.NORMAL_COMPLETE, []),
    ("final result, no taskId", "2025-11-25", {**DONE, "_meta": {R: {"id": "t9"}}}, False, Kind.UNCLASSIFIED,
     [("meta.reserved", AT)]),
    ("final result, a number", "2025-11-25", {**DONE, "_meta": {R: {"taskId": 9}}}, False, Kind.UNCLASSIFIED,
     [("meta.reserved", AT + "/taskId")]),
    ("final result, a list", "2025-11-25", {**DONE, "_meta": {R: ["t9"]}}, False, Kind.UNCLASSIFIED,
     [("meta.reserved", AT)]),
    ("beside a serverInfo of any shape (open on 2025-11-25)", "2025-11-25",
     {**DONE, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}, R: "t9"}}, False,
     Kind.UNCLASSIFIED, [("meta.reserved", AT)]),
    ("2025-06-18 reserves no such key", "2025-06-18", {**DONE, "_meta": {R: "t9"}}, False, Kind.NORMAL_COMPLETE, []),
    ("2026-07-28 neither (its tasks are an extension)", "2026-07-28",
     {"resultType": "complete", **DONE, "_meta": {R: "t9"}}, False, Kind.NORMAL_COMPLETE, []),
]


@pytest.mark.parametrize(("name", "version", "result", "augmented", "kind", "findings"), CASES,
                         ids=[c[0] for c in CASES])
def test_related_task(name: str, version: str, result: dict[str, Any], augmented: bool, kind: Kind,
                      findings: list[tuple[str, str]]) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "result": result}
    extensions = [TASKS_EXTENSION] if augmented else []
    for response in (json.dumps(message, separators=(",", ":")).encode(), message):
        verdict = classify(response, version=version, extensions=extensions)
        assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == (kind, findings), name
