"""The kill table: the real classifier and each of its mutants over the corpus.

The real classifier must pass every case; each mutant must fail (or raise on) at least one,
which proves the corpus catches a receiver with that rule broken.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..corpus import Case, load
from ..verdict._classify import classify
from ..verdict._shown import shown
from ._mutants import MUTANTS, Mutant, build
from ._receiver import KitError, receiver_from
from ._run import Report, checked_cases, run


@dataclass(frozen=True, slots=True)
class KillRow:
    """One receiver of the kill table and what the corpus made of it."""

    name: str
    description: str
    report: Report
    real: bool
    """The real classifier (must pass all), not a mutant (must be killed)."""

    @property
    def failing(self) -> tuple[str, ...]:
        return tuple(o.case.id for o in self.report.with_status("fail"))

    @property
    def errors(self) -> tuple[str, ...]:
        """Cases on which the receiver raised (a mutant that raises is caught too)."""
        return tuple(o.case.id for o in self.report.with_status("error"))

    @property
    def result(self) -> str:
        caught = bool(self.failing or self.errors)
        if self.real:
            return "FAILS" if caught else "passes all"
        return "killed" if caught else "SURVIVED"

    @property
    def healthy(self) -> bool:
        return self.result in ("passes all", "killed")


def kill_table(cases: Iterable[Case] | None = None, mutants: Sequence[Mutant] = MUTANTS) -> tuple[KillRow, ...]:
    """The real classifier first, then every mutant; raises ``MutantError`` for a stale patch."""
    selected = load() if cases is None else checked_cases(cases)
    if not isinstance(mutants, (list, tuple)) or not all(isinstance(mutant, Mutant) for mutant in mutants):
        raise KitError(f"mutants: expected a list or tuple of Mutant values, got {shown(mutants)}")
    rows = [KillRow("real classifier", "mcp_verdict.classify",
                    run(receiver_from(classify, name="real classifier"), selected), True)]
    for mutant in mutants:
        receiver = receiver_from(build(mutant), name=mutant.name, input="both")
        rows.append(KillRow(mutant.name, mutant.description, run(receiver, selected), False))
    return tuple(rows)


__all__ = ["KillRow", "kill_table"]
