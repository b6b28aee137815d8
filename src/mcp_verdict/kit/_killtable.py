"""The kill table: the real classifier and each of its mutants over the corpus.

The real classifier must pass every case; each mutant must fail (or raise on) at least one,
which proves the corpus catches a receiver with that rule broken. Here, unlike a receiver's
``conform`` run, a case passes only when the verdict also holds the finding the case names as
its label's explanation (``Case.finding``): a rule whose finding is a warning changes no kind,
and a mutant that drops it is caught by the missing finding alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..corpus import Case, load
from ..verdict._classify import classify
from ..verdict._shown import shown
from ._mutants import MUTANTS, Mutant, build
from ._receiver import KitError, receiver_from
from ._run import Outcome, Report, _call_for, checked_cases, run


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
    return (real_row(selected), *(mutant_row(mutant, selected) for mutant in mutants))


def real_row(cases: tuple[Case, ...]) -> KillRow:
    """The real classifier's row of the kill table over ``cases``."""
    return KillRow("real classifier", "mcp_verdict.classify",
                   _explained(run(receiver_from(classify, name="real classifier"), cases), classify), True)


def mutant_row(mutant: Mutant, cases: tuple[Case, ...]) -> KillRow:
    """``mutant``'s row of the kill table over ``cases`` (its classifier built here)."""
    mutated = build(mutant)
    receiver = receiver_from(mutated, name=mutant.name, input="both")
    return KillRow(mutant.name, mutant.description, _explained(run(receiver, cases), mutated), False)


def _explained(report: Report, function: Callable[..., Any]) -> Report:
    """``report`` with each passed case that names its finding put to ``function`` once more, a
    ``fail`` when the verdict lacks that finding (an ``error`` when it raises)."""
    return Report(report.receiver, report.labels,
                  tuple(_with_finding(outcome, report, function) for outcome in report.outcomes))


def _with_finding(outcome: Outcome, report: Report, function: Callable[..., Any]) -> Outcome:
    case = outcome.case
    if outcome.status != "pass" or case.finding is None:
        return outcome
    call = _call_for(report.receiver, case)
    if isinstance(call, str):
        return outcome
    try:
        codes = {item.code for item in function(call[0], **call[1]).findings}
    except Exception as exc:  # a mutant that raises is caught, as run() catches it
        return Outcome(case, "error", outcome.expected, reason=f"the receiver raised {type(exc).__name__}",
                       exception=exc)
    if case.finding in codes:
        return outcome
    return Outcome(case, "fail", outcome.expected, outcome.got,
                   f"the kind is right, but not the finding that explains it ({case.finding})")


__all__ = ["KillRow", "kill_table"]
