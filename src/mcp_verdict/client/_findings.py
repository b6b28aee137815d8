"""The findings and warnings the client writes itself (their codes are in ``verdict._findings``):
an ``input_required`` answer that names no request to answer (:func:`_asks_none`), the noise a
server wrote (:func:`_noise_finding`, ``transport.noise``), a verdict with one more finding
(:func:`_with`), a server's string quoted (:func:`_quoted`), and tool names listed more than once
(:func:`_warn_duplicates`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..verdict._findings import Finding, finding
from ..verdict._verdict import Verdict, make_verdict
from ._wire import Exchange, not_messages, preview


def _asks_none(subject: str, also: str, why: str, *, code: str = "input.unanswerable") -> Finding:
    """The finding that ends a call on an ``input_required`` answer that asks for input and names
    none to answer (an empty ``inputRequests``), where nothing the client could send would move it
    on: ``subject`` names the answer (a result, a task), ``also`` what else it lacks, ``why`` the
    rule that says so. One wording for a result (``input.unanswerable``: no ``requestState``
    either) and a task (``task.input``: a task has no state to echo)."""
    return finding("/result/inputRequests", code, f"{subject} is input_required but its inputRequests is empty{also}: "
                   f"it asks for input and names no request to answer ({why})")


def _with(verdict: Verdict, extra: Finding) -> Verdict:
    """The verdict with one more finding after its own (a warning never changes the kind)."""
    return make_verdict(verdict.kind, (*verdict.findings, extra), verdict.version, verdict.message)


_NOISE_SHOWN: Final = 3
"""Noise lines quoted in a ``transport.noise`` warning (the rest are in the round's frames)."""


def _noise_finding(seen: Exchange, *, answered: bool) -> Finding:
    """How many noise lines the server wrote in all (those the wire log could not keep
    counted too), and the first few of them; what is not quoted is said to be left out."""
    count = seen.noise_count
    first = [preview(frame.data, 60) for frame in seen.noise[:_NOISE_SHOWN]]
    notes = [f"the first {len(first)} shown"] if first and count > len(first) else []
    if seen.noise_shed:
        notes.append(f"the wire log kept {len(seen.noise)} of them")
    when = "before its answer" if answered else "instead of an answer"
    message = f"the server wrote {not_messages(count)} {when}" + (f" ({'; '.join(notes)})" if notes else "")
    if first:
        message += ": " + ", ".join(first) + (", …" if count > len(first) else "")
    return finding("", "transport.noise", message)


def _quoted(text: str, limit: int = 60) -> str:
    """A server's string in a message: quoted, cut at ``limit`` characters with a mark."""
    return repr(text[:limit]) + ("…" if len(text) > limit else "")


def _warn_duplicates(tools: Sequence[Mapping[str, Any]], warnings: list[str]) -> None:
    """One warning for the tool names listed more than once (the last listing is kept: the
    one a call is checked against), naming the first three."""
    counts: dict[str, int] = {}
    for tool in tools:
        counts[tool["name"]] = counts.get(tool["name"], 0) + 1
    twice = [(name, count) for name, count in counts.items() if count > 1]
    if not twice:
        return
    named = ", ".join(f"{_quoted(name)} ({count} times)" for name, count in twice[:3])
    more = f" and {len(twice) - 3} more" if len(twice) > 3 else ""
    subject = "1 name is" if len(twice) == 1 else f"{len(twice)} names are"
    warnings.append(f"tools/list: {subject} listed more than once: {named}{more}; the last listing of each is "
                    "the one kept")
