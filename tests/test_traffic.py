"""No false alarms on real traffic: every recorded answer of a real server keeps its kind, with
no finding at any severity.

The recorded cases (``rec/`` ids, corpus/data/recorded.jsonl) are written by
tests/interop/traffic.py from its hand-written call tables; tests/interop/test_traffic_live.py
records them again against the live servers. Here: each case is classified from its exact
bytes and from its parsed value, plainly and with the options the recording client had (the
request id it sent, the capabilities it declared, the extensions); the file's labels are the
call tables' (a label is never edited in the data alone); and the recording covers the servers,
kinds, versions and content blocks that issue #11 names.
"""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest

from mcp_verdict import Kind, classify, corpus
from mcp_verdict.corpus import Case

from .interop.traffic import SERVERS

RECORDED = [c for c in corpus.load() if c.id.startswith("rec/")]
TABLE = {(server.name, call.label): (server, call) for server in SERVERS for call in server.calls}


def _with_client_options(case: Case) -> dict[str, Any]:
    assert case.recorded is not None
    return {**case.kwargs(), "request_id": case.recorded["request_id"],
            "client_capabilities": case.recorded["client_capabilities"],
            "extensions": tuple(case.recorded["extensions"])}


@pytest.mark.parametrize("case", RECORDED, ids=[c.id for c in RECORDED])
def test_a_recorded_answer_keeps_its_kind_with_no_finding(case: Case) -> None:
    assert case.raw, "recorded traffic keeps the exact bytes"
    for value, options in ((case.wire(), case.kwargs()), (case.wire(), _with_client_options(case)),
                           (json.loads(case.wire()), _with_client_options(case))):
        verdict = classify(value, **options)
        found = [(f.code, f.path, f.message) for f in verdict.findings]
        assert (verdict.kind, verdict.findings) == (case.expect, ()), \
            f"{case.id} ({case.description}): {verdict.kind.value} {found}"


@pytest.mark.parametrize("case", RECORDED, ids=[c.id for c in RECORDED])
def test_the_label_is_the_call_tables(case: Case) -> None:
    assert case.recorded is not None
    _, server_name, label, round_ = case.id.split("/")
    server, call = TABLE[(server_name, label)]
    assert case.expect is call.kinds[int(round_)]
    assert case.description == call.note
    assert (case.recorded["server"], case.recorded["tool"], case.recorded["arguments"]) == \
        (server.name, call.tool, call.arguments)
    assert case.recorded["package"] == server.package and case.recorded["package_version"]
    assert case.recorded["server_info"].get("name"), "the server named itself at connection"


def test_every_call_of_the_tables_was_recorded_with_every_round() -> None:
    rounds = collections.Counter((c.recorded["server"], c.id.split("/")[2]) for c in RECORDED if c.recorded)
    assert rounds == {key: len(call.kinds) for key, (_, call) in TABLE.items()}


def test_the_recording_covers_what_the_issue_names() -> None:
    servers = {c.recorded["server"] for c in RECORDED if c.recorded}
    assert {"server-everything", "server-filesystem", "server-memory", "mcp-server-time", "mcp-server-git",
            "python-sdk-1", "python-sdk-2", "typescript-sdk", "fastmcp", "fastmcp-typescript"} <= servers
    sdk = {c.recorded["server"]: c.recorded["package_version"] for c in RECORDED
           if c.recorded and c.recorded["server"].startswith("python-sdk-")}
    assert sdk["python-sdk-1"].startswith("1.") and sdk["python-sdk-2"].startswith("2."), sdk
    assert {c.expect for c in RECORDED} == set(Kind) - {Kind.UNCLASSIFIED}
    assert {c.version for c in RECORDED} >= {"2024-11-05", "2025-11-25", "2026-07-28"}
    blocks = collections.Counter(block.get("type") for c in RECORDED
                                 for block in (json.loads(c.wire()).get("result") or {}).get("content", []))
    assert {"text", "image", "audio", "resource_link", "resource"} <= set(blocks), blocks
    assert {c.recorded["transport"] for c in RECORDED if c.recorded} == {"stdio", "http"}
    assert {Kind.INPUT_REQUIRED, Kind.TOOL_ERROR} <= {c.expect for c in RECORDED
                                                      if c.recorded and c.recorded["transport"] == "http"}
    errors = {c.recorded["server"] for c in RECORDED if c.recorded and c.expect is Kind.TOOL_ERROR}
    assert {"mcp-server-time", "server-filesystem", "server-everything", "server-memory", "mcp-server-git"} <= errors
