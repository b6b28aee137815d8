"""Every labelled corpus case, one test each, against the real classifier.

Each case is checked from its parsed form and from its wire bytes: the verdict must not
depend on whether the caller parsed the response first.
"""

from __future__ import annotations

import collections

import pytest

from mcp_verdict import RULES, VERSIONS, Kind, classify, corpus
from mcp_verdict.corpus import Case

CASES = corpus.load()


def _codes(case: Case, *, wire: bool) -> tuple[Kind, list[str]]:
    verdict = classify(case.wire() if wire else case.input, **case.kwargs())
    return verdict.kind, [f.code for f in verdict.findings]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    kind, codes = _codes(case, wire=False)
    assert kind is case.expect, f"{case.source}: {case.description}; findings {codes}"
    if case.finding is not None:
        assert case.finding in codes, f"{case.source}: expected finding {case.finding}, got {codes}"
    if not case.raw:
        assert _codes(case, wire=True) == (kind, codes)


def test_corpus_size_and_spread() -> None:
    assert len(CASES) >= 300
    per_version = collections.Counter(c.version for c in CASES)
    assert set(per_version) == set(VERSIONS)
    assert min(per_version.values()) >= 20, per_version
    per_kind = collections.Counter(c.expect for c in CASES)
    assert set(per_kind) == set(Kind), per_kind


# Only a parsed Python value (never JSON text) can break these; test_api.py covers them.
PYTHON_VALUE_RULES = {"json.not_json_value", "json.too_many_nodes"}
# The verdict's rules (the content check's and the client's own codes are tested elsewhere:
# task.input in tests/test_client_task_input.py, input.unanswerable in
# tests/test_client_input_rounds.py).
VERDICT_RULES = {code for code in RULES if code.split(".")[0] in {
    "json", "envelope", "error", "result", "content", "input", "task", "elicitation", "sampling", "icon",
    "meta"}} - {"content.suspect_error", "task.input", "input.unanswerable"}


def test_every_rule_is_exercised_and_every_named_finding_exists() -> None:
    named = {c.finding for c in CASES if c.finding is not None}
    assert named <= set(RULES), named - set(RULES)
    seen: set[str] = set()
    for case in CASES:
        seen.update(f.code for f in classify(case.input, **case.kwargs()).findings)
    assert VERDICT_RULES - seen - PYTHON_VALUE_RULES == set(), "rules no corpus case exercises"


def test_every_case_has_a_reference_and_a_reason() -> None:
    for case in CASES:
        assert case.spec and case.description, case.id
