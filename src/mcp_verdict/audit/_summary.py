"""The report's figures, gathered as the entries stream by (bounded memory: counters, a
bounded time histogram and the first examples of each list).

- totals by verdict kind and by decision;
- **naive false successes**: calls whose first answer a naive ``"result" in response``
  receiver took as success and mcp-verdict does not accept, by server and tool;
- top findings, and findings by server;
- calls with an unknown effect (decision ``check_state``);
- kinds over time (buckets that widen as the recording grows, at most :data:`MAX_BUCKETS`
  whatever its times);
- the problems (unreadable and stray lines) and the line counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from ..verdict._peer_text import cut
from ._rows import CallRow, Entry, Problem

NAME_KEPT: Final = 200
"""The characters of a server or tool name the summary keeps (a longer one is kept as its first
:data:`NAME_KEPT` and its length, :func:`verdict._peer_text.cut`): what the reports show and
hold stays bounded whatever a peer calls itself. The calls' own rows keep the whole names."""
MAX_PAIRS: Final = 100_000
"""The (server, tool) pairs and the (server, finding) pairs counted by name; the calls of pairs
first seen past them are counted under :data:`PAST_PAIRS` (the counts still add up, memory stays
bounded whatever number of names a recording holds)."""
PAST_PAIRS: Final = f"(pairs past the first {MAX_PAIRS})"
PAST_CODES: Final = f"(findings past the first {MAX_PAIRS})"
"""The finding codes counted by name are bounded too (the first :data:`MAX_PAIRS`, each cut to
:data:`NAME_KEPT`): a trace export's spans may record any codes (``mcp_verdict.findings``), a
new one per call; the calls of codes first seen past them are counted under this."""
MAX_BUCKETS: Final = 120
EXAMPLES: Final = 20
_WIDTHS: Final = (1, 5, 15, 60, 300, 900, 3600, 6 * 3600, 86400, 7 * 86400, 28 * 86400, 364 * 86400)
"""Column widths in seconds, each a multiple of the one before (a column merged into a wider
one lands in the column its times are in: four weeks, not thirty days, after a week)."""
_WIDEST: Final = 10**308
"""Past a year, a column is ten times as wide each time the span outgrows the columns (times in
nanoseconds read as seconds span millennia); at most this (the float next to the largest), so
even the span of the largest times either side (which is infinite as a float) falls into four
columns."""
UNJUDGED: Final = "not judged"
_FIDELITIES: Final = ("wire", "parsed", "status")
NO_CALLS: Final = "no tools/call span of its own"
"""The fidelity statement of a trace export no call was read from (:func:`fidelity_statement`)."""


def redacted_note(redacted: int) -> str | None:
    """What the reports say of messages recorded without their payload (a frame log written with
    payloads off: the proxy's default), the same words in each (terminal, ``--json``, page); None
    when there were none."""
    if not redacted:
        return None
    return (f"{redacted} messages recorded without their payload (redacted): the calls in them are not judged "
            "(mcp-verdict proxy --log-payloads records them)")


def named_fidelities(statement: str) -> list[str]:
    """The fidelities a :func:`fidelity_statement` names, best first."""
    return [name for name in _FIDELITIES
            if statement == name or statement.startswith(f"{name} (") or f", {name} (" in statement]


def fidelity_statement(input_format: str, calls: Counter[str] | None) -> tuple[str, dict[str, int]]:
    """What an input carried, from the calls read from it (``calls``: by fidelity): a frame log
    and a JSON-RPC file carry the wire; a trace export the result as parsed JSON where its spans
    recorded it, a status only where they did not, so its statement is the fidelity of its calls
    (``"parsed"``, ``"status"``), both with their counts when it holds both
    (``"parsed (2 calls), status (3 calls)"``), or :data:`NO_CALLS`. Returns the statement and
    the calls by fidelity."""
    counts = {name: calls[name] for name in _FIDELITIES if calls and calls[name]}
    if input_format != "otlp":
        return "wire", counts
    if not counts:
        return NO_CALLS, counts
    if len(counts) == 1:
        return next(iter(counts)), counts
    return ", ".join(f"{name} ({n} call{'s' if n != 1 else ''})" for name, n in counts.items()), counts


def server_name(row: CallRow) -> str:
    return cut(row.server, NAME_KEPT) if row.server else "(unknown server)"


def _kept(row: CallRow) -> CallRow:
    """An example row as the summary keeps it: its server and tool names and its findings' codes
    cut (:data:`NAME_KEPT`), as the figures keep them (a trace export's span may record a code of
    any length: the reports show an example's first finding)."""
    server, tool, findings = row.server, row.tool, row.findings
    long_codes = any(len(f.code) > NAME_KEPT for f in findings)
    if (server is None or len(server) <= NAME_KEPT) and (tool is None or len(tool) <= NAME_KEPT) and not long_codes:
        return row
    if long_codes:
        findings = tuple(msgspec.structs.replace(f, code=cut(f.code, NAME_KEPT)) if len(f.code) > NAME_KEPT else f
                         for f in findings)
    return msgspec.structs.replace(row, server=None if server is None else cut(server, NAME_KEPT),
                                   tool=None if tool is None else cut(tool, NAME_KEPT), findings=findings)


@dataclass
class Summary:
    calls: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    naive: Counter[str] = field(default_factory=Counter)
    false_successes: int = 0
    false_by_tool: Counter[tuple[str, str]] = field(default_factory=Counter)
    calls_by_tool: Counter[tuple[str, str]] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)
    findings_by_server: Counter[tuple[str, str]] = field(default_factory=Counter)
    fidelity: Counter[str] = field(default_factory=Counter)
    fidelity_by_source: dict[str, Counter[str]] = field(default_factory=dict)
    """Per input (a row's ``source``: one of the files named, so bounded), its calls by fidelity:
    what an input carried, said per input (:func:`fidelity_statement`)."""
    unknown_effect: int = 0
    unknown_examples: list[CallRow] = field(default_factory=list)
    false_examples: list[CallRow] = field(default_factory=list)
    problems: Counter[str] = field(default_factory=Counter)
    problem_examples: list[Problem] = field(default_factory=list)
    unfinished: int = 0
    width: int = _WIDTHS[0]
    buckets: dict[int, Counter[str]] = field(default_factory=dict)
    first_time: float | None = None
    last_time: float | None = None

    def add(self, entry: Entry) -> None:
        if isinstance(entry, Problem):
            self.problems[entry.category] += 1
            if len(self.problem_examples) < EXAMPLES:
                self.problem_examples.append(entry)
            return
        row = entry
        kind = row.kind or UNJUDGED
        self.calls += 1
        self.kinds[kind] += 1
        self.actions[row.action or UNJUDGED] += 1
        self.naive[row.naive] += 1
        self.fidelity[row.fidelity] += 1
        by_source = self.fidelity_by_source.get(row.source)
        if by_source is None:
            by_source = self.fidelity_by_source[row.source] = Counter()
        by_source[row.fidelity] += 1
        key = (server_name(row), cut(row.tool, NAME_KEPT) if row.tool else "(no tool name)")
        if key not in self.calls_by_tool and len(self.calls_by_tool) >= MAX_PAIRS:
            key = (PAST_PAIRS, PAST_PAIRS)
        self.calls_by_tool[key] += 1
        if row.naive_false_success:
            self.false_successes += 1
            self.false_by_tool[key] += 1
            if len(self.false_examples) < EXAMPLES:
                self.false_examples.append(_kept(row))
        past = False
        for code in dict.fromkeys(cut(f.code, NAME_KEPT) for f in row.findings):  # each once, in the row's order
            item = code
            if code not in self.findings and len(self.findings) >= MAX_PAIRS:
                if past:  # (a call counted once among the codes past the bound)
                    continue
                item, past = PAST_CODES, True
            self.findings[item] += 1
            pair = (key[0], item)
            if pair not in self.findings_by_server and len(self.findings_by_server) >= MAX_PAIRS:
                pair = (PAST_PAIRS, item)
            self.findings_by_server[pair] += 1
        if row.unknown_effect:
            self.unknown_effect += 1
            if len(self.unknown_examples) < EXAMPLES:
                self.unknown_examples.append(_kept(row))
        if not row.finished:
            self.unfinished += 1
        if row.started_at is not None:
            self._time(row.started_at, kind)

    def _time(self, at: float, kind: str) -> None:
        first, last = self.first_time, self.last_time
        wider = True
        if first is None or last is None:
            self.first_time = self.last_time = first = last = at
        elif at < first:
            self.first_time = first = at
        elif at > last:
            self.last_time = last = at
        else:
            wider = False
        bucket = int(at // self.width) * self.width
        counts = self.buckets.get(bucket)
        if counts is None:  # (a Counter made only for a new column)
            counts = self.buckets[bucket] = Counter()
        counts[kind] += 1
        if not wider:  # the span is the same: its columns are as wide as they need to be already
            return
        while (last - first) / self.width > MAX_BUCKETS - 1 and self.width < _WIDEST:
            self.width = next((w for w in _WIDTHS if w > self.width), min(self.width * 10, _WIDEST))
            merged: dict[int, Counter[str]] = {}
            for start, counts in self.buckets.items():
                merged.setdefault(int(start // self.width) * self.width, Counter()).update(counts)
            self.buckets = merged

    def timeline(self) -> list[tuple[int, Counter[str]]]:
        """Buckets from the first to the last, empty ones included (at most ``MAX_BUCKETS + 1``:
        the columns of a time axis)."""
        if not self.buckets:
            return []
        first, last = min(self.buckets), max(self.buckets)
        return [(start, self.buckets.get(start, Counter())) for start in range(first, last + 1, self.width)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls, "kinds": dict(self.kinds), "actions": dict(self.actions),
            "naive": dict(self.naive), "naive_false_successes": self.false_successes,
            "naive_false_successes_by_tool": [{"server": s, "tool": t, "false_successes": n,
                                               "calls": self.calls_by_tool[(s, t)]}
                                              for (s, t), n in self.false_by_tool.most_common()],
            "findings": dict(self.findings.most_common()),
            "findings_by_server": [{"server": s, "finding": f, "calls": n}
                                   for (s, f), n in self.findings_by_server.most_common()],
            "unknown_effect": self.unknown_effect, "unfinished": self.unfinished,
            "fidelity": dict(self.fidelity), "problems": dict(self.problems),
            "first_time": self.first_time, "last_time": self.last_time,
        }
