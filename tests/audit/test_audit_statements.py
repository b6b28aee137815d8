"""What the three reports (terminal, ``--json``, ``--html``) say of the inputs, the same in each:
the fidelity an input actually carried, and that a log's payloads were redacted.

An OTLP trace export carries a result as parsed JSON only where its spans recorded one
(``gen_ai.tool.call.result``), a status only where they did not (README "The audit", the inputs'
table): its header said "parsed fidelity" whatever its spans held, even when every one of its rows
was of status fidelity. A frame log written with payloads off (the proxy's default) holds digests,
not bytes: the terminal said its calls were not judged, ``--json`` had only a count and the page
said nothing."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from .test_audit_otlp import COMPLETE, _span_line
from .test_audit_proxy_logs import _record

CLI = [sys.executable, "-m", "mcp_verdict", "audit"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "COLUMNS": "200", "TERM": "dumb"})


def _reports(path: Path, tmp_path: Path) -> tuple[str, dict[str, Any], str]:
    """The terminal report's words, the --json summary and the page's text (tags dropped)."""
    terminal = " ".join(_cli(str(path)).stdout.split())
    summary = json.loads(_cli(str(path), "--json").stdout.splitlines()[-1])
    page = tmp_path / "report.html"
    _cli(str(path), "--html", str(page))
    text = re.sub(r"<[^>]*>", " ", page.read_text(encoding="utf-8"))
    return terminal, summary, " ".join(html.unescape(text).split())


RESULT = {"gen_ai.tool.call.result": COMPLETE}
CODE = {"error.type": "-32602"}
NOTHING: dict[str, str] = {}
LISTED = {"mcp.method.name": "tools/list"}
PARSED = "parsed: a result recorded as parsed JSON: wire findings (json.*, envelope.*) cannot be seen"
STATUS = ("status: a span's status only: the kind is known for protocol errors and tool errors, nothing else is "
          "judged")
# (case, the spans' attributes, each its own request id) → (terminal header, --json fidelity, --json calls by
# fidelity, the page's fidelity cell); by hand from README "The audit" (the inputs' table)
FIDELITIES: list[tuple[str, list[dict[str, str]], tuple[str, str | None, dict[str, int], str]]] = [
    ("spans with a status only", [CODE, NOTHING],
     ("otlp, status fidelity", "status", {"status": 2}, STATUS)),
    ("spans with the result", [RESULT],
     ("otlp, parsed fidelity", "parsed", {"parsed": 1}, PARSED)),
    ("both", [RESULT, CODE, NOTHING],
     ("otlp, fidelity: parsed (1 call), status (2 calls)", None, {"parsed": 1, "status": 2},
      f"parsed (1 call), status (2 calls); {PARSED}; {STATUS}")),
    ("no tools/call span", [LISTED],
     ("otlp, fidelity: no tools/call span of its own", None, {}, "no tools/call span of its own")),
]


@pytest.mark.parametrize(("name", "spans", "expected"), FIDELITIES, ids=[c[0] for c in FIDELITIES])
def test_an_otlp_inputs_fidelity_is_what_its_spans_carried(tmp_path: Path, name: str, spans: list[dict[str, str]],
                                                           expected: tuple[str, str | None, dict[str, int], str]
                                                           ) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(_span_line({"jsonrpc.request.id": str(n), **attributes}) + "\n"
                            for n, attributes in enumerate(spans, 1)))
    header, fidelity, counts, cell = expected
    terminal, summary, page = _reports(path, tmp_path)
    assert f"{path}: {header}" in terminal
    assert [(i["fidelity"], i["calls_by_fidelity"]) for i in summary["inputs"]] == [(fidelity, counts)]
    assert f"{path} otlp {cell}" in page


NOTE = ("12 messages recorded without their payload (redacted): the calls in them are not judged "
        "(mcp-verdict proxy --log-payloads records them)")
# (how the proxy logged) → the notes of the three reports; by hand (README "The audit": a log whose payloads
# were redacted, the proxy's default)
REDACTED = [
    ("payloads redacted (the proxy's default)", (), [NOTE]),
    ("payloads logged", ("--log-payloads",), []),
]


@pytest.mark.parametrize(("name", "options", "notes"), REDACTED, ids=[c[0] for c in REDACTED])
def test_every_report_says_the_payloads_were_redacted(tmp_path: Path, name: str, options: tuple[str, ...],
                                                      notes: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    anyio.run(_record, log, *options)  # the real proxy's log of real calls to the demo server
    terminal, summary, page = _reports(log, tmp_path)
    assert [note for note in [NOTE] if note in terminal] == notes
    assert summary["notes"] == notes
    assert [note for note in [NOTE] if note in page] == notes
