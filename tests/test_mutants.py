"""The corpus kills every mutant of the real classifier, and the real classifier passes all.

Counted as the kill table counts (``kit._killtable``'s rows): a case fails a receiver that gives
it another kind, or whose verdict lacks the finding the case names as its label's explanation
(a warning's rule changes no kind)."""

from __future__ import annotations

import pytest

from mcp_verdict import corpus
from mcp_verdict.kit._killtable import mutant_row, real_row
from mcp_verdict.kit._mutants import MUTANTS, Mutant, MutantError, build

CASES = tuple(corpus.load())


def test_real_classifier_passes_every_case() -> None:
    row = real_row(CASES)
    assert (row.failing, row.errors) == ((), ())


def test_there_are_the_two_design_mutants_and_at_least_ten_more() -> None:
    names = {m.name for m in MUTANTS}
    assert {"result_means_success", "complete_ignores_is_error"} <= names
    assert len(MUTANTS) >= 12


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_is_killed(mutant: Mutant) -> None:
    row = mutant_row(mutant, CASES)
    assert row.errors == (), f"mutant {mutant.name} raises on {row.errors[:3]}"
    assert row.failing, f"mutant {mutant.name} ({mutant.description}) survives the corpus"


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
