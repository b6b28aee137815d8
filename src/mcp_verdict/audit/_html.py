"""The audit as one self-contained HTML page: inline CSS and SVG charts drawn here, no script,
no font, no request at view time. Everything that came from a log (server and tool names,
finding messages, file names) is escaped: it is text, never markup; its control and bidi
characters are shown as their escapes, as on the terminal.

Charts: verdict kinds over time (stacked columns), naive false successes by tool (bars), and
findings by server (stacked bars); beside them the totals, the line counts that add up, the
calls with an unknown effect and the unreadable lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from typing import Final

from ..verdict._peer_text import one_line
from ._rows import FIDELITY, utc
from ._summary import UNJUDGED, Summary, named_fidelities, redacted_note

KIND_COLOURS: Final = {
    "normal_complete": "#2e9e44", "tool_error": "#e0a800", "input_required": "#17a2b8", "task": "#3b6fd6",
    "protocol_error": "#b03fb0", "unclassified": "#d62728", UNJUDGED: "#9a9a9a",
}
_PALETTE: Final = ("#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#1f77b4",
                   "#7f7f7f")
_CSS: Final = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#c9cfdb}main{padding:20px 28px;max-width:1200px}
.cards{display:flex;gap:14px;flex-wrap:wrap;margin-bottom:18px}
.card{background:#fff;border-radius:8px;padding:12px 16px;min-width:150px;box-shadow:0 1px 2px #0002}
.card b{display:block;font-size:26px}.card.bad b{color:#d62728}
section{background:#fff;border-radius:8px;padding:14px 18px;margin-bottom:18px;box-shadow:0 1px 2px #0002}
h2{font-size:16px;margin:0 0 10px}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:3px 8px;border-bottom:1px solid #eceef2;vertical-align:top}
th{font-weight:600;color:#555}td.n{text-align:right;font-variant-numeric:tabular-nums}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:11px;height:11px;
margin-right:5px;border-radius:2px;vertical-align:-1px}.grid{display:grid;grid-template-columns:1fr 1fr;gap:18px}
code{font-size:12px;background:#f0f1f4;padding:1px 4px;border-radius:3px}.muted{color:#777}
.warn{color:#8a5a00;font-weight:bold}
"""


def _t(value: object) -> str:
    """Text on the page: control and bidi characters shown as their escapes (a U+202E in a tool
    name would turn the count after it around, ``verdict._peer_text``), line breaks and TAB too
    (``one_line``: a page shows a newline as a space, so ``a\nb`` would read as the name ``a b``),
    then HTML-escaped."""
    return escape(one_line(str(value)), quote=True)


def _legend(items: Sequence[tuple[str, str]]) -> str:
    return '<div class="legend">' + "".join(f'<span><i style="background:{c}"></i>{_t(n)}</span>'
                                            for n, c in items) + "</div>"


def _when(at: float) -> str:
    when = utc(at)
    return when.strftime("%Y-%m-%d %H:%M:%S") if when is not None else f"t={float(at)!r}"


def _per_column(width: int) -> str:
    return f"{width} s per column" if width < 10**12 else f"{float(width):.3g} s per column"


def kinds_over_time(summary: Summary) -> str:
    timeline = summary.timeline()
    if not timeline:
        return '<p class="muted">No call carries a time (JSON-RPC lines have none).</p>'
    width, height, left, bottom, top = 1080, 240, 44, 28, 12
    peak = max(sum(c.values()) for _, c in timeline) or 1
    step = (width - left) / len(timeline)
    bar = max(step * 0.8, 1.0)
    parts = [f'<svg class="chart" id="kinds-over-time" role="img" viewBox="0 {-top} {width} {height + bottom + top}" '
             f'width="100%" aria-label="verdict kinds over time">']
    for tick in (0, peak // 2, peak):
        y = height - height * tick / peak
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e5ea"/>'
                     f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{tick}</text>')
    for i, (start, counts) in enumerate(timeline):
        x, y = left + i * step, float(height)
        for kind, colour in KIND_COLOURS.items():
            n = counts.get(kind, 0)
            if n:
                h = height * n / peak
                y -= h
                parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{colour}">'
                             f"<title>{_t(_when(start))}: {n} {_t(kind)}</title></rect>")
    for i in (0, len(timeline) - 1):
        anchor = "start" if i == 0 else "end"
        parts.append(f'<text x="{left + i * step + (0 if i == 0 else step):.1f}" y="{height + 18}" '
                     f'text-anchor="{anchor}" font-size="11">{_t(_when(timeline[i][0]))} UTC</text>')
    parts.append("</svg>")
    used = [(k, c) for k, c in KIND_COLOURS.items() if summary.kinds.get(k)]
    return "".join(parts) + _legend(used) + f'<p class="muted">{_per_column(summary.width)}</p>'


def _bars(chart_id: str, label: str, rows: Sequence[tuple[str, Sequence[tuple[str, int, str]]]]) -> str:
    """Horizontal (stacked) bars: one row per name, each a list of (segment, value, colour)."""
    if not rows:
        return '<p class="muted">None.</p>'
    width, row_h, left = 520, 24, 210
    peak = max(sum(v for _, v, _ in segs) for _, segs in rows) or 1
    height = row_h * len(rows) + 6
    parts = [f'<svg class="chart" id="{chart_id}" role="img" viewBox="0 0 {width + 40} {height}" width="100%" '
             f'aria-label="{_t(label)}">']
    for i, (name, segments) in enumerate(rows):
        y = i * row_h + 3
        shown = name if len(name) <= 30 else name[:29] + "…"
        parts.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end" font-size="12">{_t(shown)}'
                     f"<title>{_t(name)}</title></text>")
        x = float(left)
        for segment, value, colour in segments:
            w = (width - left) * value / peak
            parts.append(f'<rect x="{x:.1f}" y="{y}" width="{max(w, 1):.1f}" height="{row_h - 6}" fill="{colour}">'
                         f"<title>{_t(name)}: {value} {_t(segment)}</title></rect>")
            x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 15}" font-size="12">{sum(v for _, v, _ in segments)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def false_successes_by_tool(summary: Summary) -> str:
    rows = [(f"{tool} · {server}", [("naive false successes", n, "#d62728"),
                                    ("other calls", summary.calls_by_tool[(server, tool)] - n, "#d9dce3")])
            for (server, tool), n in summary.false_by_tool.most_common(15)]
    return _bars("false-successes-by-tool", "naive false successes by tool", rows) + _legend(
        [("taken as success, not accepted", "#d62728"), ("the tool's other calls", "#d9dce3")])


def findings_by_server(summary: Summary) -> str:
    codes = [code for code, _ in summary.findings.most_common(len(_PALETTE) - 1)]
    colour = {code: _PALETTE[i] for i, code in enumerate(codes)}
    per_server: dict[str, Counter[str]] = {}
    for (server, code), n in summary.findings_by_server.items():
        per_server.setdefault(server, Counter())[code if code in colour else "other"] += n
    rows = [(server, [(code, n, colour.get(code, _PALETTE[-1])) for code, n in counts.most_common()])
            for server, counts in sorted(per_server.items(), key=lambda kv: -sum(kv[1].values()))[:15]]
    legend = [(code, colour[code]) for code in codes]
    if any("other" in c for c in per_server.values()):
        legend.append(("other", _PALETTE[-1]))
    return _bars("findings-by-server", "findings by server", rows) + _legend(legend)


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], numeric: Sequence[int] = ()) -> str:
    head = "".join(f"<th>{_t(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f'<td class="n">{_t(v)}</td>' if i in numeric else f"<td>{_t(v)}</td>"
                                    for i, v in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def render(summary: Summary, tally: Mapping[str, int], inputs: Sequence[tuple[str, str, str]],
           title: str = "mcp-verdict audit") -> str:
    """The page: ``inputs`` are (path, format, fidelity) per input file (fidelity ``none``, with
    why in place of the format, for a file nothing could be detected in)."""
    lines = sum(tally.values())
    share = f"{100 * summary.false_successes / summary.calls:.1f}%" if summary.calls else "0%"
    cards = [("calls", summary.calls, False), ("naive false successes", f"{summary.false_successes} ({share})", True),
             ("unknown effect", summary.unknown_effect, summary.unknown_effect > 0),
             ("unreadable lines", tally.get("unreadable", 0), tally.get("unreadable", 0) > 0),
             ("lines read", lines, False)]
    card_html = "".join(f'<div class="card{" bad" if bad else ""}"><b>{_t(v)}</b>{_t(k)}</div>' for k, v, bad in cards)
    span = ""
    if summary.first_time is not None and summary.last_time is not None:
        span = f" · {_t(_when(summary.first_time))} – {_t(_when(summary.last_time))} UTC"
    source_rows = [(path, fmt, f"{fidelity}: {FIDELITY[fidelity]}" if fidelity in FIDELITY else
                    "; ".join([fidelity, *(f"{name}: {FIDELITY[name]}" for name in named_fidelities(fidelity))]))
                   for path, fmt, fidelity in inputs]
    redacted = redacted_note(tally.get("redacted", 0))
    notes = f'<p class="warn">{_t(redacted)}</p>' if redacted else ""
    kinds = _table(["kind", "calls"], [(k, n) for k, n in summary.kinds.most_common()], numeric=(1,))
    actions = _table(["decision", "calls"], [(k, n) for k, n in summary.actions.most_common()], numeric=(1,))
    counted = _table(["lines", "count"], [*[(k, n) for k, n in tally.items() if n], ("total", lines)], numeric=(1,))
    top = _table(["finding", "calls"], [(k, n) for k, n in summary.findings.most_common(12)], numeric=(1,))
    unknown = _table(["server", "tool", "where", "why"], [
        (r.server or "", r.tool or "", f"{r.source}:{r.line}", r.finding or r.action or "")
        for r in summary.unknown_examples])
    problems = _table(["where", "what", "why"], [(f"{p.source}:{p.line}", p.category, p.reason)
                                                 for p in summary.problem_examples])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{_t(title)}</title><style>{_CSS}</style></head><body>
<header><h1>{_t(title)}</h1><p>{summary.calls} tools/call from {len(inputs)} file(s){span}</p></header>
<main>{notes}<div class="cards">{card_html}</div>
<section><h2>Verdict kinds over time</h2>{kinds_over_time(summary)}</section>
<div class="grid"><section><h2>Naive false successes by tool</h2>
<p class="muted">Calls whose first answer a receiver checking only <code>"result" in response</code> took as
success, and that mcp-verdict does not accept.</p>{false_successes_by_tool(summary)}</section>
<section><h2>Findings by server</h2>{findings_by_server(summary)}</section></div>
<div class="grid"><section><h2>By kind</h2>{kinds}</section><section><h2>By decision</h2>{actions}</section></div>
<div class="grid"><section><h2>Top findings</h2>{top}</section><section><h2>Every line accounted for</h2>{counted}
</section></div>
<section><h2>Calls with an unknown effect (first {len(summary.unknown_examples)} of {summary.unknown_effect})</h2>
{unknown}</section>
<section><h2>Unreadable and stray lines (first {len(summary.problem_examples)})</h2>{problems}</section>
<section><h2>Inputs and their fidelity</h2>{_table(["file", "format", "fidelity"], source_rows)}</section>
</main></body></html>
"""
