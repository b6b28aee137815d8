"""The audit's rows are untracked by the cycle collector (``gc=False``, audit/_rows.py): as the
auditor makes them, as they cross between the audit's processes (MessagePack, or pickled when
MessagePack cannot hold a value), and as the merge yields them. A row holds text, numbers and
tuples of other rows made before it: no reference cycle can pass through one."""

from __future__ import annotations

import gc
import pickle
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from mcp_verdict.audit import CallRow, Entry, FindingRow, Problem, RoundRow, _run, audit_files
from mcp_verdict.audit._rows import DECODE

from .test_audit_jobs import PROBLEM, ROW, generate


def rows_of(entries: list[Entry]) -> list[object]:
    """Every row in ``entries``: each entry, its rounds and its findings."""
    out: list[object] = []
    for entry in entries:
        out.append(entry)
        if isinstance(entry, CallRow):
            out.extend(entry.rounds)
            out.extend(entry.findings)
    return out


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("untracked") / "frames.jsonl"
    generate(path, connections=6)
    return path


# (jobs, the types of rows the audit of the generated log yields: made by the auditor with
# jobs=1; decoded from the processes' MessagePack, or audited again in the parent, with jobs=2)
CASES = [
    (1, {CallRow, RoundRow, FindingRow}),
    (2, {CallRow, RoundRow, FindingRow}),
]


@pytest.mark.parametrize(("jobs", "types"), CASES)
def test_the_rows_an_audit_yields_are_untracked(log: Path, jobs: int, types: set[type]) -> None:
    _, _, entries = audit_files([str(log)], jobs=jobs)
    rows = rows_of(list(entries))
    assert {type(r) for r in rows} == types
    assert Counter(gc.is_tracked(r) for r in rows) == Counter({False: len(rows)})


# (how a row crosses between processes, the rows after it)
CROSSINGS = [
    ("messagepack", lambda: DECODE.decode(_run._packed([ROW, PROBLEM])[1])),
    ("pickled", lambda: pickle.loads(pickle.dumps(_run._packed([msgspec.structs.replace(ROW, error_code=2 ** 70),
                                                                  PROBLEM])[1]))),
    ("made here", lambda: [ROW, PROBLEM]),
]


@pytest.mark.parametrize(("how", "crossed"), CROSSINGS, ids=[c[0] for c in CROSSINGS])
def test_rows_stay_untracked_across_processes(how: str, crossed: object) -> None:
    rows = rows_of(crossed())  # type: ignore[operator]
    assert [type(r) for r in rows] == [CallRow, RoundRow, RoundRow, FindingRow, Problem]
    assert [gc.is_tracked(r) for r in rows] == [False, False, False, False, False]
