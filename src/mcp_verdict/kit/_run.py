"""Running a receiver over corpus cases: one outcome per case, never a crash of the run.

Each case ends as ``pass`` (the receiver's label is the expected one), ``fail`` (another
label), ``error`` (the receiver raised, or returned something that is not a label; the
exception is kept) or ``skip`` (the kit cannot put the case to this receiver: its wire bytes
have no parsed form, or it sets an option the receiver does not accept).
"""

from __future__ import annotations

import collections
import copy
import json
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..corpus import CORPUS_VERSION, Case, _a
from ..verdict._classify import DEFAULT_LIMITS, Limits
from ..verdict._kind import Kind
from ..verdict._parser import parse
from ..verdict._peer_text import neutral, one_line
from ..verdict._shown import shown
from ._labels import KIND_LABELS, Labels
from ._receiver import KitError, Receiver

Status = Literal["pass", "fail", "error", "skip"]
STATUSES: Final[tuple[Status, ...]] = ("pass", "fail", "error", "skip")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one case made of one receiver."""

    case: Case
    status: Status
    expected: str
    """The expected label (the application's label for ``case.expect``)."""
    got: str | None = None
    """The receiver's label, when it gave one."""
    reason: str = ""
    """Why it failed, errored or was skipped, in one line."""
    exception: BaseException | None = None
    """What the receiver raised (``error`` only; ``None`` when it returned something unusable)."""

    @property
    def failed(self) -> bool:
        return self.status in ("fail", "error")

    def to_dict(self) -> dict[str, Any]:
        case = self.case
        return {"id": case.id, "status": self.status, "version": case.version, "expect": case.expect.value,
                "expected": self.expected, "got": self.got, "reason": self.reason,
                "description": case.description, "spec": case.spec, "finding": case.finding,
                "source": case.source}


def check_case(receiver: Receiver, case: Case, labels: Labels = KIND_LABELS) -> Outcome:
    """Put one case to the receiver. Never raises for anything the receiver does (anything it
    raises but ``KeyboardInterrupt``, ``SystemExit`` included, is an ``error`` outcome); raises
    :class:`KitError` when it is not given a receiver, a case and labels."""
    _check_arguments(receiver, (case,), labels)
    return _check_case(receiver, case, labels)


def _check_arguments(receiver: object, cases: tuple[object, ...], labels: object) -> None:
    """The caller's own mistakes, named before any case runs (they were an AttributeError or a
    KeyError from deep in the run)."""
    if not isinstance(receiver, Receiver):
        raise KitError(f"receiver: expected a Receiver (kit.load_receiver or kit.receiver_from), got "
                       f"{_a(type(receiver).__name__)}")
    if not isinstance(labels, Labels):
        raise KitError(f"labels: expected a Labels (kit.load_labels or kit.labels_from), got "
                       f"{_a(type(labels).__name__)}")
    for case in cases:
        if not isinstance(case, Case):
            raise KitError(f"cases: expected corpus.Case objects (as corpus.load() gives them), got "
                           f"{_a(type(case).__name__)}")


def _check_case(receiver: Receiver, case: Case, labels: Labels) -> Outcome:
    expected = labels[case.expect]
    call = _call_for(receiver, case)
    if isinstance(call, str):
        return Outcome(case, "skip", expected, reason=call)
    response, options = call
    try:
        value = receiver.function(response, **options)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: a receiver never ends the run
        return Outcome(case, "error", expected, reason=f"the receiver raised {_exception_text(exc)}",
                       exception=_kept(exc))
    try:
        got = _label_of(value, labels)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return Outcome(case, "error", expected, reason=f"the receiver returned {_repr(value)}, whose .kind raised "
                       f"{_exception_text(exc)}", exception=_kept(exc))
    if got is None:
        return Outcome(case, "error", expected, reason=f"the receiver returned {_repr(value)}: expected a "
                       "label string, a Kind or an object with a .kind")
    if got == expected:
        return Outcome(case, "pass", expected, got)
    known = sorted(set(labels.by_kind.values()))
    shown = _short(repr(got))
    if got not in known:
        reason = f"expected {expected!r}, got {shown}, which is not a label ({', '.join(known)})"
    else:
        reason = f"expected {expected!r}, got {shown}"
    if not labels.identity:
        reason += f" (the case is {case.expect.value}; {shown} stands for " \
                  f"{', '.join(k.value for k in labels.kinds_of(got)) or 'no kind'})"
    return Outcome(case, "fail", expected, _short(got), reason)


def _exception_text(exc: BaseException) -> str:
    """``Type: message`` of what the receiver raised, bounded; its ``__str__`` may raise too."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except KeyboardInterrupt:
        raise
    except BaseException as inner:
        return f"{name} (whose str() raised {type(inner).__name__})"
    return f"{name}: {_short(text)}" if text else name


def _repr(value: object) -> str:
    """The receiver's value for a reason, bounded; its ``__repr__`` may raise (or never end)."""
    try:
        text = repr(value)
    except KeyboardInterrupt:
        raise
    except BaseException:
        text = object.__repr__(value)
    return _short(text)


def _kept(exc: BaseException) -> BaseException:
    """The exception as an outcome keeps it: its traceback's frames (the receiver's locals, which may
    be large) let go, for it and every exception it chains to."""
    seen: set[int] = set()
    pending = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        pending.extend(chained for chained in (current.__cause__, current.__context__) if chained is not None)
    return exc


def _call_for(receiver: Receiver, case: Case) -> tuple[object, dict[str, Any]] | str:
    """The response and options for this receiver, or why the case cannot be put to it."""
    options = case.kwargs()
    passed: dict[str, Any] = {}
    for name, value in options.items():
        if receiver.takes(name):
            passed[name] = copy.deepcopy(value)
        elif name != "version":  # every case has a version; a receiver may speak only one
            return f"the case sets {name}, which the receiver does not accept"
    if receiver.input == "raw":
        return case.wire(), passed
    if not case.raw:
        return copy.deepcopy(case.input), passed
    if receiver.input == "both":
        return case.input, passed
    limits: Limits = options.get("limits", DEFAULT_LIMITS)
    value, problem = parse(case.input, limits.max_bytes, limits.max_depth)
    if problem is not None:
        return f"its wire bytes have no parsed form ({problem.code}) and the receiver takes parsed responses"
    return value, passed


def _label_of(value: object, labels: Labels) -> str | None:
    """A ``Kind`` is mapped through the labels; any other string is the application's own label."""
    if not isinstance(value, str):
        value = getattr(value, "kind", None)
    if isinstance(value, Kind):
        return labels[value]
    return str.__str__(value) if isinstance(value, str) else None  # a str subclass as a plain str


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass(frozen=True, slots=True)
class Report:
    """Every outcome of one receiver over a selection of cases."""

    receiver: Receiver
    labels: Labels
    outcomes: tuple[Outcome, ...]
    not_run: tuple[Case, ...] = ()
    """The cases the run gave up before (``conform``: after cases in a row stopped at the time
    limit); none in a complete run. They have no outcome and are in no count."""
    not_run_reason: str = ""
    """Why they were not run (empty in a complete run)."""

    @property
    def complete(self) -> bool:
        """Every case ran (each has an outcome)."""
        return not self.not_run

    def with_status(self, *statuses: Status) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.status in statuses)

    @property
    def ok(self) -> bool:
        """No case failed or errored, at least one ran, and the run is complete."""
        counts = self.counts()
        return counts["fail"] == counts["error"] == 0 and counts["pass"] > 0 and self.complete

    def counts(self) -> dict[Status, int]:
        counter = collections.Counter(o.status for o in self.outcomes)
        return {status: counter[status] for status in STATUSES}

    def by_kind(self) -> dict[Kind, dict[Status, int]]:
        """Counts per expected kind."""
        table: dict[Kind, dict[Status, int]] = {kind: dict.fromkeys(STATUSES, 0) for kind in Kind}
        for outcome in self.outcomes:
            table[outcome.case.expect][outcome.status] += 1
        return table

    def skip_reasons(self) -> dict[str, int]:
        return dict(collections.Counter(o.reason for o in self.with_status("skip")).most_common())

    def to_dict(self) -> dict[str, Any]:
        return {
            "receiver": self.receiver.name, "input": self.receiver.input, "corpus_version": CORPUS_VERSION,
            "labels": self.labels.to_dict(), "ok": self.ok, "summary": {"cases": len(self.outcomes),
                                                                        **self.counts()},
            "by_kind": {kind.value: counts for kind, counts in self.by_kind().items()},
            "failures": [o.to_dict() for o in self.with_status("fail", "error")],
            "skipped": self.skip_reasons(),
            "complete": self.complete,
            "not_run": {"cases": len(self.not_run), "reason": self.not_run_reason or None,
                        "ids": [case.id for case in self.not_run]},
        }


def run(receiver: Receiver, cases: Iterable[Case], labels: Labels = KIND_LABELS) -> Report:
    """Put every case to the receiver; raises :class:`KitError` when it is not given a receiver,
    cases and labels."""
    chosen = checked_cases(cases)
    _check_arguments(receiver, chosen, labels)
    return Report(receiver, labels, tuple(_check_case(receiver, case, labels) for case in chosen))


MAX_CASES: Final = 1_000_000
"""The most cases a run takes (the corpus holds a few thousand): an iterable of cases that never
ends is refused rather than read for ever."""


def checked_cases(cases: object) -> tuple[Case, ...]:
    """``cases`` (an iterable of corpus cases, read once) as a tuple, or a :class:`KitError`:
    not an iterable, a member of no case (found as it is read: an iterable of anything else that
    never ends stops at its first member), or more than :data:`MAX_CASES`."""
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Iterable):
        raise KitError(f"cases: expected an iterable of corpus.Case objects (as corpus.load() gives them), got "
                       f"{shown(cases)}")
    chosen: list[Case] = []
    for case in cases:
        if not isinstance(case, Case):
            raise KitError(f"cases: expected corpus.Case objects (as corpus.load() gives them), got "
                           f"{_a(type(case).__name__)}")
        if len(chosen) == MAX_CASES:
            raise KitError(f"cases: more than {MAX_CASES:,} cases (an iterable that never ends?)")
        chosen.append(case)
    return tuple(chosen)


def split_versions(values: Iterable[str]) -> list[str] | None:
    """The versions of ``--versions``/``--mcp-versions`` (comma-separated, repeatable); ``None``
    (all) when the option is not given. Given with no version in it (``,``, an empty string) it
    raises :class:`KitError`; ``corpus.load`` refuses an unknown one. ``values`` is a list or
    tuple of strings (what the command lines give), else a :class:`KitError`."""
    if not isinstance(values, (list, tuple)):
        raise KitError(f"versions: expected a list or tuple of strings, got {shown(values)}")
    for value in values:
        if not isinstance(value, str):
            raise KitError(f"versions: expected strings, got {shown(value)}")
    given = list(values)
    chosen = [v.strip() for value in given for v in value.split(",") if v.strip()]
    if given and not chosen:
        named = ", ".join(shown(value, 60) for value in given[:5]) + (", ..." if len(given) > 5 else "")
        raise KitError(f"versions {named}: no protocol version named; leave the option out for every version")
    return chosen or None


def describe(outcome: Outcome, *, width: int = 300) -> str:
    """A failure as a reader needs it: which case, what was expected and why, what came back.

    Safe to print: every control, bidi and lone surrogate character in it (the receiver's text,
    the case's content) is shown as its visible escape, and the reason (the receiver's exception
    message) stays on its one line: a line break in it would forge the lines that follow."""
    case = outcome.case
    lines = [f"{case.id} ({case.version}): {one_line(outcome.reason)}",  # one line, whatever the receiver wrote
             f"  why: {case.description}",
             f"  spec: {case.spec}"]
    if case.finding is not None:
        lines.append(f"  finding that explains the label: {case.finding}")
    lines.append(f"  case: {case.source} (corpus {CORPUS_VERSION})")
    shown = {"version": case.version, **case.options}
    lines.append(f"  options: {_short(json.dumps(shown, ensure_ascii=False), width)}")
    if case.raw:
        lines.append(f"  wire bytes: {_short(repr(case.input), width)}")
    else:
        lines.append(f"  response: {_short(case.wire().decode('utf-8'), width)}")
    return neutral("\n".join(lines))


__all__ = ["STATUSES", "Outcome", "Report", "Status", "check_case", "describe", "run", "split_versions"]
