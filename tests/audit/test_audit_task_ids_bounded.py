"""A server's task ids are its own text, of any length (2025-11-25 basic/utilities/tasks: ``taskId``
is a string, nothing bounds it): the tracker that pairs a task's polls with its call remembered
the last 100,000 of a connection (``max_answered``) whatever their size — 100,000 ids of 1 MB held
100 GB. It now holds at most ``frames._connection.KEYS_BYTES`` (16 MiB) of them per connection (and
apart of ``requestState`` values), the oldest forgotten first, as past the count: a poll of a
task forgotten is a message line and its call ends where the log ends, with the verdict of its
handle (``task``); the tasks remembered are followed as before.

Hand-written frame logs (format v1); expected values by hand (16 ids of 1 MB fit in 16 MiB, a
17th does not: ``sys.getsizeof`` of a 1,000,003-character ASCII string is 1,000,052 bytes)."""

from __future__ import annotations

from typing import Any

from mcp_verdict.audit import Auditor, CallRow
from mcp_verdict.frames._connection import KEYS_BYTES

from .test_audit_asked_at_sight import RESULT, STAMP, poll, task_call
from .test_audit_asked_judged import ALL, V3, answer, feed, init

BIG = b"x" * 1_000_000


def created(rid: int) -> tuple[str, bytes]:
    return "s2c", b'{"jsonrpc":"2.0","id":%d,"result":{"task":{"taskId":"T%02d%s","status":"working",%s}}}' % (
        rid, rid, BIG, STAMP)


def fetch(rid: int, task: int) -> tuple[str, bytes]:
    return "c2s", poll(rid, RESULT)[1].replace(b'"T1"', b'"T%02d%s"' % (task, BIG))


def test_a_connection_remembers_its_tasks_within_16_mib() -> None:
    frames: list[tuple[Any, ...]] = [*init(V3, ALL)]
    for i in range(1, 21):  # 20 tasks of 1 MB ids
        frames += [task_call(i), created(i)]
    done = b'{"content":[],"isError":false}'
    frames += [fetch(100, 20), answer(100, done),  # the newest: remembered, its call ends on its result
               fetch(101, 1), answer(101, done)]  # the oldest: forgotten, a message line
    auditor = Auditor()
    entries = feed(auditor, frames, 1)
    state = auditor._tracker._conns["c1"]
    assert (len(state.tasks), state.tasks_bytes <= KEYS_BYTES) == (16, True)
    entries += auditor.end()
    rows = {row.request_id: (row.kind, row.end, [r.method for r in row.rounds])
            for row in entries if isinstance(row, CallRow)}
    assert rows["20"] == ("normal_complete", "answered", ["tools/call", RESULT])
    assert rows["1"] == ("task", "log_ended", ["tools/call"])
    assert len(rows) == 20
