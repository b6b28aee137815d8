"""The exception for a call that must not pass as success, and the local verdicts of the tap.

:class:`VerdictError` is what the tap and the adapters raise when a stack would otherwise hand
the application a success it must not have (an ``unclassified`` answer: ``isError: "false"``,
a duplicated ``isError`` on the wire, an unknown ``resultType``...). It carries the
:class:`~mcp_verdict.Outcome`, its verdict and the decision, so the application can log the
findings and act on ``decision.action`` (``investigate``, ``check_state``...). Its decision is
the outcome's own unless another is given (an adapter that ran the call again gives the one it
ended on), and its message is built from that same decision.
"""

from __future__ import annotations

from typing import Any, Final

from ..judgement._decide import Decision
from ..judgement._outcome import Outcome
from ..verdict._findings import finding, integer_text
from ..verdict._kind import Kind
from ..verdict._peer_text import cut, one_line
from ..verdict._verdict import Verdict, make_verdict


class VerdictError(Exception):
    """A ``tools/call`` whose verdict must not pass as success.

    ``decision``: what to do now, when it is not the outcome's own (``outcome.decision``); the
    message, unless given, is :func:`describe`'s line for it."""

    def __init__(self, outcome: Outcome, message: str | None = None, *, response: bytes | None = None,
                 decision: Decision | None = None) -> None:
        self.outcome = outcome
        self.verdict: Verdict = outcome.verdict
        self.decision: Decision = decision if decision is not None else outcome.decision
        self.response = response
        """The answer's exact bytes, when one arrived."""
        super().__init__(message or describe(outcome, self.decision))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (type(self), self.outcome, str(self), self.response, self.decision))


PEER_TEXT_SHOWN: Final = 500
"""The most characters of one piece of a server's text (an error message, a finding's message or
path) :func:`describe` shows, before the count of the whole (the verdict keeps it whole)."""


def _shown(text: str | None) -> str:
    """A server's text as one line shows it: bounded, then neutralised, its line breaks too
    (``verdict._peer_text.one_line``)."""
    return "" if text is None else one_line(cut(text, PEER_TEXT_SHOWN))


def _rebuilt(cls: type[VerdictError], outcome: Outcome, message: str, response: bytes | None,
             decision: Decision) -> VerdictError:
    """A pickled :class:`VerdictError` (or subclass) as it was: its message, bytes and decision."""
    error = cls.__new__(cls)
    VerdictError.__init__(error, outcome, message, response=response, decision=decision)
    return error


def describe(outcome: Outcome, decision: Decision | None = None) -> str:
    """One line for a person: the kind, the first error finding (or the error), the action of
    ``decision`` (by default the outcome's own). The
    server's text in it (an error message, a finding's message and path) is shown literally, its
    control, escape and bidi characters as visible escapes, each at most :data:`PEER_TEXT_SHOWN`
    characters and the count: it goes into exception messages, logs and spans."""
    verdict = outcome.verdict
    why = ""
    first = verdict.errors[0] if verdict.errors else (verdict.findings[0] if verdict.findings else None)
    if first is not None:
        why = f" ({first.code}{' at ' + _shown(first.path) if first.path else ''}: {_shown(first.message)})"
    elif verdict.kind is Kind.PROTOCOL_ERROR:
        code = verdict.error_code  # (a caller's parsed value may hold an integer past str()'s digit limit)
        why = f" (error {integer_text(code) if isinstance(code, int) else code}: {_shown(verdict.error_message)})"
    elif outcome.content_check is not None and not outcome.content_check.passed:
        why = f" (content check: {', '.join(outcome.content_check.codes)})"
    if decision is None:
        decision = outcome.decision
    return f"the tools/call answer is {verdict.kind.value}{why}; next: {decision.action.value} — {decision.reason}"


def local_verdict(code: str, message: str, version: str) -> Verdict:
    """A verdict for what the tap saw go wrong on its side (no answer, a broken transport)."""
    return make_verdict(Kind.UNCLASSIFIED, (finding("", code, message),), version, None)
