"""The corpus kills every mutant of the real classifier, and the real classifier passes all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_verdict import classify, corpus
from mcp_verdict.kit._mutants import MUTANTS, Mutant, MutantError, build

CASES = corpus.load()


def caught(receiver: Callable[..., Any], case: corpus.Case) -> bool:
    """The receiver gives the case another kind, or its verdict lacks the finding the case names
    as its label's explanation (as the kill table counts: a warning's rule changes no kind)."""
    verdict = receiver(case.input, **case.kwargs())
    return verdict.kind != case.expect or (
        case.finding is not None and case.finding not in {f.code for f in verdict.findings})


def test_real_classifier_passes_every_case() -> None:
    assert [c.id for c in CASES if caught(classify, c)] == []


def test_there_are_the_two_design_mutants_and_at_least_ten_more() -> None:
    names = {m.name for m in MUTANTS}
    assert {"result_means_success", "complete_ignores_is_error"} <= names
    assert len(MUTANTS) >= 12


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_is_killed(mutant: Mutant) -> None:
    receiver = build(mutant)
    failing = [c.id for c in CASES if caught(receiver, c)]
    assert failing, f"mutant {mutant.name} ({mutant.description}) survives the corpus"


def test_design_mutants_on_the_twelve() -> None:
    """The note's twelve alone catch its two mutants (9 and 4 failures with this classifier)."""
    twelve = [c for c in CASES if c.id.startswith("design/")]
    by_name = {m.name: m for m in MUTANTS}
    counts = {}
    for name in ("result_means_success", "complete_ignores_is_error"):
        receiver = build(by_name[name])
        counts[name] = sum(receiver(c.input, **c.kwargs()).kind != c.expect for c in twelve)
    assert counts == {"result_means_success": 9, "complete_ignores_is_error": 4}


def test_a_patch_that_no_longer_matches_is_reported() -> None:
    stale = Mutant("stale", "targets text that is not there", (("_result.py", "no such text", "x"),))
    with pytest.raises(MutantError, match="stale"):
        build(stale)
